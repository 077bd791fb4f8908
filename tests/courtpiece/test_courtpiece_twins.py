"""Every speed twin of courtpiece_env.rules.TWINS against its reference, move for move, on thousands
of random positions reached by random play in every variant."""
import numpy as np
import pytest
from numba import njit

import courtpiece_env
from cardzoo.cards import seed_generators
from courtpiece_configs import CONFIGS
from courtpiece_env.rules.play import play_card, void_sets_trump
from courtpiece_env.rules.rollout import plain_trick, random_action, random_trick
from courtpiece_env.state import PLAY

MIN_POSITIONS = 2000


@njit
def _plain(st, cfg, katte, out):
    for b in range(st.shape[0]):
        out[b] = st[b].phase == PLAY and plain_trick(st[b], cfg, katte)


@njit
def _twin_and_reference(twin, ref, cfg, katte, seed, moves):
    """random_trick on twin[b], four random_action + play_card on ref[b], each from its own copy of
    game b's generator; the reference's moves go to moves[b]. Returns both generators."""
    n = twin.shape[0]
    rng_twin = seed_generators(seed, n)
    rng_ref = rng_twin.copy()
    for b in range(n):
        random_trick(twin[b], cfg, rng_twin, b, katte)
        s = ref[b]
        for k in range(4):
            a = random_action(s, cfg, rng_ref, b)
            moves[b, k] = a
            play_card(s, cfg, a)
    return rng_twin, rng_ref


def _plain_positions(config, seed, n_games=500):
    """States at the lead of a plain trick (rollout.plain_trick), reached by random legal play."""
    g = courtpiece_env.BatchGame(n_games, **config)
    cfg = g._cfg
    katte = bool(void_sets_trump(cfg))
    rng = np.random.default_rng(seed)
    g.reset(seed=seed)
    found = []
    plain = np.zeros(n_games, np.bool_)
    while not g.done.all():
        _plain(g._st, cfg, katte, plain)
        found.append(g._st[plain & ~g.done].copy())
        mask = g.legal_mask()
        g.step((rng.random(mask.shape) * mask).argmax(1))
    return np.concatenate(found), cfg, katte


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_random_trick_plays_as_play_card_move_for_move(config):
    """rollout.random_trick against random_action + play_card: the same four cards from the same draws,
    the same state after the trick (trick winner, CP-8.2 trump set, scores, result), the same generator."""
    positions, n_set = 0, 0
    k = 0
    while positions < MIN_POSITIONS:
        st, cfg, katte = _plain_positions(config, 31 * k + 3)
        k += 1
        twin, ref = st.copy(), st.copy()
        moves = np.full((len(st), 4), -1, np.int64)
        rng_twin, rng_ref = _twin_and_reference(twin, ref, cfg, katte, k, moves)
        rows = np.arange(len(st))
        assert (twin["trick_cards"][rows, st["ntrick"]] == moves).all(), config
        for field in st.dtype.names:
            assert (twin[field] == ref[field]).all(), (config, field)
        assert (rng_twin == rng_ref).all(), config
        positions += len(st)
        n_set += int(((st["trump"] < 0) & (twin["trump"] >= 0)).sum())
    assert positions >= MIN_POSITIONS
    if config["variant"] == "be_rang" or (config["variant"] == "mendi_coat" and "mendi_trump" not in config):
        assert n_set > 0, "no position had CP-8.2 set trump inside the twin's trick"
