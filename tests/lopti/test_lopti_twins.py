"""The LOPTI speed twins (lopti_env.rules.TWINS), each tied to its reference move for move.

rollout.legal_action against legality.play_mask: the same legal actions in the same order at
thousands of positions from random games. rollout.fast_play against step_game (play_step + play_mask
+ the uniform pick): same seeds -> the same action sequence, move for move, and the same final record,
field for field, over thousands of games for N = 2..5 with varied base rules (LO-12), truncation
(LO-9.5), play_to_end off, sessions (LO-10) and made rules (LO-11: the general step then runs the PLAY
phase), from fresh deals and from positions reached by random play."""
from __future__ import annotations

import numpy as np
import pytest

import lopti_env
import lopti_env.rules
from lopti_env import kernels as K
from lopti_env.config import SWITCH_HI, SWITCH_LO, SWITCH_NAMES
from lopti_env.env import rollout_counts

LOG = 12000  # actions per game the logs hold (the longest game here stays far below)


def random_switches(rng):
    """A random LO-12 setting (CLEAR_RANK != LOW_RANK)."""
    while True:
        sw = {name: int(rng.integers(lo, hi + 1)) for name, lo, hi in zip(SWITCH_NAMES, SWITCH_LO, SWITCH_HI)}
        if sw["CLEAR_RANK"] != sw["LOW_RANK"]:
            return sw


def advance(g, steps, seed):
    """Random legal BatchGame.step decisions, so rollouts start from varied positions."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if g.done.all():
            break
        mask = g.legal_mask()
        acts = (rng.random(mask.shape) * mask).argmax(axis=1)
        g.step(acts)


def both_ways(cfg, games, seed, rseed, steps=0):
    """Rollout copies of the same games with the fast loop off and on; assert identical games.
    Returns (actions played, actions the fast loop chose)."""
    g = lopti_env.BatchGame(games, **cfg)
    g.reset(seed=seed)
    advance(g, steps, seed)
    runs = []
    for fast in (False, True):
        st = g.st.copy()
        logs = np.full((games, LOG), -1, np.int16)
        counts = rollout_counts(st, g.cfg, g.carry, g.decks, g.coins, rseed, fast, logs)
        runs.append((st, logs, counts))
    (st0, log0, c0), (st1, log1, c1) = runs
    assert (c0[:, 0] < LOG).all()
    np.testing.assert_array_equal(c0[:, 0], c1[:, 0])
    assert c0[:, 1].sum() == 0
    for b in np.flatnonzero((log0 != log1).any(axis=1))[:1]:
        i = int(np.flatnonzero(log0[b] != log1[b])[0])
        raise AssertionError(f"game {b}: action {i} differs: general {log0[b, i]}, fast {log1[b, i]}")
    for name in st0.dtype.names:
        if name == "legal":  # entries past n_legal are scratch (n_legal is compared)
            continue
        diff = (st0[name] != st1[name]).reshape(games, -1).any(axis=1)
        assert not diff.any(), f"field {name!r} differs in games {np.flatnonzero(diff)[:5].tolist()}"
    assert (st1["actor"] == -1).all() and (st1["phase"] == K.DONE).all()
    return int(c1[:, 0].sum()), int(c1[:, 1].sum())


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_fast_play_default_rules(n):
    """600 default games per N from the deal, 300 from positions 1..60 decisions in."""
    total, fast = both_ways({"num_players": n}, 600, 100 + n, 7 + n)
    assert fast > 0.95 * total  # the fast loop played the PLAY phases
    both_ways({"num_players": n}, 300, 200 + n, 9 + n, steps=int(np.random.default_rng(n).integers(1, 61)))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_fast_play_random_base_rules(n):
    """24 random LO-12 settings per N (with rewards, truncation and play_to_end varied), 60 games each."""
    rng = np.random.default_rng(31 + n)
    fast_total = 0
    for i in range(24):
        cfg = {"num_players": n, "base_rules": random_switches(rng), "play_to_end": bool(i % 3),
               "reward_scheme": ("rank", "winner")[i % 2], "max_moves": int(rng.choice([40, 150, 1000])),
               "first_dealer": int(rng.integers(n))}
        fast_total += both_ways(cfg, 60, 1000 * n + i, i, steps=int(rng.integers(0, 30)))[1]
    assert fast_total > 0


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_fast_play_sessions_and_made_rules(n):
    """Sessions (rules made by winners, votes, RPS; the fast loop runs only rounds without an ACTIVE
    rule) and games with initial made rules (the fast loop never runs)."""
    rng = np.random.default_rng(77 + n)
    cfg = {"num_players": n, "session": True, "session_rounds": 3, "max_moves": 200, "rps_max_throws": 12,
           "bracket_max_throws": 4, "base_rules": random_switches(rng)}
    total, fast = both_ways(cfg, 80, 300 + n, 5)
    assert 0 < fast < total
    cfg = {"num_players": n, "initial_rules": [[1, 12, 1, 1], [5, 3, 0, 1]], "max_moves": 300}
    assert both_ways(cfg, 80, 400 + n, 6)[1] == 0


def play_positions(cfg, games, seed, steps):
    """Records of PLAY-phase positions met by random BatchGame play (every decision of every game)."""
    g = lopti_env.BatchGame(games, **cfg)
    g.reset(seed=seed)
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(steps):
        if g.done.all():
            g.reset(seed=int(rng.integers(1 << 30)))
        live = (g.st["phase"] == K.PLAY) & (g.st["actor"] >= 0)
        found.append(g.st[live].copy())
        mask = g.legal_mask()
        g.step((rng.random(mask.shape) * mask).argmax(axis=1))
    return np.concatenate(found), g.cfg


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_fast_legal_actions_equal_play_mask(n):
    """At every PLAY position of random games (default and random LO-12 switches; thousands per N)
    the twin enumerates play_mask's legal list, action for action."""
    rng = np.random.default_rng(50 + n)
    checked = 0
    for i, base in enumerate([{}] + [random_switches(rng) for _ in range(3)]):
        st, cfg = play_positions({"num_players": n, "base_rules": base}, 64, 60 + 10 * n + i, 120)
        out = np.zeros(140, np.int16)
        for b in range(len(st)):
            k = K.fast_legal_actions(st, b, out)
            ref = st[b]["legal"][:st[b]["n_legal"]]
            assert k == len(ref) and (out[:k] == ref).all(), (b, out[:k].tolist(), ref.tolist())
        checked += len(st)
    assert checked > 5000
