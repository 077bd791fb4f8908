"""Random inputs (hypothesis) to every game's factories, deals, states, seeds and actions: each call
either succeeds or raises ValueError, and after a ValueError public_state(), masks, agent_selection,
rewards and the generator are as they were (docs/env_contract_inputs.md). The named cases are in
tests/core/test_validation.py; example counts stay small so this file runs in well under a minute."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import courtpiece_env
import lopti_env
import shengji_env
from cardzoo.cards import card_text
from cardzoo.options import SEED_MAX
from courtpiece_env import config as cp_config
from lopti_env.config import LoptiConfig
from shengji_env import config as sj_config
from env_snapshot import snapshot

GAMES = {"courtpiece": courtpiece_env, "lopti": lopti_env, "shengji": shengji_env}
CONFIG_CLASSES = {"courtpiece": cp_config.CourtPieceConfig, "lopti": LoptiConfig, "shengji": sj_config.Config}
FUZZ = settings(max_examples=50, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# anything a caller might pass where an int, a bool, a string or a card is expected
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.integers(-3, 60), st.floats(),
    st.text(max_size=3), st.integers(-2**63, 2**63 - 1).map(np.int64), st.integers(0, 255).map(np.uint8),
    st.floats(width=32).map(np.float32), st.just(np.True_), st.just(np.array(3)), st.just(b"AS"),
    st.lists(st.integers(-2, 60), max_size=3), st.just({}),
)


def attempt(call) -> bool:
    """True if call succeeded, False if it raised ValueError; anything else fails the test."""
    try:
        call()
    except ValueError:
        return False
    return True


_ENVS: dict = {}


def env_at(game: str, seed: int = 5, moves: int = 0, **config):
    """A shared env of `game` reset with `seed`, then `moves` legal actions (the first legal one,
    rotating); rebuilt to the same point on every call, so examples never see each other's state."""
    key = (game, json.dumps(config, sort_keys=True))
    if key not in _ENVS:
        _ENVS[key] = GAMES[game].env(**config)
    env = _ENVS[key]
    env.reset(seed=seed)
    for i in range(moves):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        legal = np.flatnonzero(env.unwrapped.observe(agent)["action_mask"])
        env.step(int(legal[i % len(legal)]))
    return env


# ---- factories -----------------------------------------------------------------------------------
def option_dicts(game):
    """Dicts of real option names (sometimes an unknown one) to a valid-looking value or junk."""
    fields = dataclasses.fields(CONFIG_CLASSES[game])
    names = [f.name for f in fields] + ["bogus"]
    plausible = st.one_of(st.sampled_from([f.default for f in fields if not callable(f.default)]),
                          st.sampled_from(["single_sar", "mendi_coat", "match", "kots", "rank", "winner", "preset",
                                           "A", "2", "hand", "levels"]),
                          st.integers(-1, 12), st.booleans())
    return st.dictionaries(st.sampled_from(names), st.one_of(plausible, JUNK), max_size=3)


@pytest.mark.parametrize("game", GAMES)
@FUZZ
@given(data=st.data())
def test_fuzz_factories_accept_or_refuse_with_value_error(game, data):
    mod = GAMES[game]
    options = data.draw(option_dicts(game))
    made = attempt(lambda: mod.raw_env(**options))
    assert attempt(lambda: mod.BatchGame(1, **options)) == made  # one checker behind every factory
    if made:
        config = mod.raw_env(**options).config
        for name, value in options.items():
            if isinstance(value, (bool, np.integer)) or type(value) is int:
                assert getattr(config, name) == value and type(getattr(config, name)) in (bool, int), name


# ---- seeds ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
@FUZZ
@given(seed=st.one_of(JUNK, st.integers(0, SEED_MAX), st.integers(SEED_MAX - 3, SEED_MAX + 3)))
def test_fuzz_seeds(game, seed):
    env = env_at(game, moves=3)
    before = snapshot(env)
    if not attempt(lambda: env.reset(seed=seed)):
        assert snapshot(env) == before
    elif seed is not None:  # (None: fresh entropy) an accepted seed is an int in range, the game is its game
        assert isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and 0 <= seed <= SEED_MAX
        twin = GAMES[game].raw_env()
        twin.reset(seed=int(seed))
        assert env.unwrapped.public_state() == twin.public_state()
    g = GAMES[game].BatchGame(2)
    g.reset(seed=1)
    masks = g.legal_mask()
    if not attempt(lambda: g.rollout(seed=seed)):
        assert (g.legal_mask() == masks).all() and not g.done.all()


GAME_OVER = 100_000  # env_at plays until the game ends (every game ends or truncates well before)


# ---- actions -------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
@FUZZ
@given(moves=st.one_of(st.integers(0, 30), st.just(GAME_OVER)), data=st.data())
def test_fuzz_actions(game, moves, data):
    """Mid-game positions and (GAME_OVER) the finished game, whose dead agents accept only None."""
    env = env_at(game, seed=moves % 31, moves=moves)
    if moves == GAME_OVER:
        agent = env.agent_selection
        assert env.terminations[agent] or env.truncations[agent], "the game did not end"
    agent = env.agent_selection
    live = not (env.terminations[agent] or env.truncations[agent])
    mask = env.unwrapped.observe(agent)["action_mask"]
    legal = int(data.draw(st.sampled_from(np.flatnonzero(mask).tolist() or [0])))
    disguised = st.sampled_from([legal, np.int16(legal), np.array(legal), float(legal), legal + 0.5, str(legal),
                                 np.float64(legal), [legal], np.array([legal]), legal == 1, complex(legal)])
    action = data.draw(st.one_of(disguised, disguised, JUNK, st.integers(-2, 141)))
    before = snapshot(env)
    if attempt(lambda: env.step(action)):
        if live:  # a live agent's accepted action is an int whose mask bit is set
            assert not isinstance(action, (bool, float, str)) and mask[int(action)]
        else:
            assert action is None
    else:
        assert snapshot(env) == before


BATCH_ACTIONS = st.one_of(
    st.lists(st.integers(-1, 141), min_size=0, max_size=5).map(np.array),
    st.lists(st.floats(0, 100), min_size=3, max_size=3).map(np.array),
    st.lists(st.booleans(), min_size=3, max_size=3).map(np.array),
    st.lists(st.sampled_from(["0", "1"]), min_size=3, max_size=3),
    JUNK,
)


@pytest.mark.parametrize("game", GAMES)
@FUZZ
@given(actions=BATCH_ACTIONS, legal_first=st.booleans())
def test_fuzz_batch_actions(game, actions, legal_first):
    g = GAMES[game].BatchGame(3)
    g.reset(seed=2)
    masks, obs = g.legal_mask(), g.observe()
    if legal_first:  # mostly legal: each game's first legal action, one entry perhaps replaced
        legal = masks.argmax(axis=1)
        if isinstance(actions, np.ndarray) and actions.shape == (3,) and actions.dtype.kind == "i":
            legal[0] = actions[0]
        actions = legal
    if attempt(lambda: g.step(actions)):
        acts = np.asarray(actions)
        assert acts.shape == (3,) and acts.dtype.kind in "iu" and masks[np.arange(3), acts].all()
    else:
        assert (g.legal_mask() == masks).all() and (g.observe() == obs).all()


# ---- deals ---------------------------------------------------------------------------------------
def is_seat(v, n) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < n


def mutated(cards: list, data) -> tuple[list, bool | None]:
    """(a card list with one random change, whether the deal stays valid; None: it depends)."""
    cards = list(cards)
    i = data.draw(st.integers(0, len(cards) - 1))
    kind = data.draw(st.sampled_from(["none", "text", "ten", "junk", "drop", "twice", "numpy", "floats"]))
    if kind == "text":  # card text in lower case names the same card
        cards[i] = card_text(cards[i]).lower()
    elif kind == "ten":  # "10H" for "TH"
        cards = [card_text(c).replace("T", "10") if c < 52 else c for c in cards]
    elif kind == "junk":
        cards[i] = data.draw(JUNK)
        return cards, None
    elif kind == "drop":
        del cards[i]
        return cards, False
    elif kind == "twice":
        cards[i] = cards[(i + 1) % len(cards)]
        return cards, False
    elif kind == "numpy":
        return np.array(cards, data.draw(st.sampled_from([np.int8, np.int64, np.uint16]))), True
    elif kind == "floats":  # card ids as floats, even whole ones, are not card ids
        return (np.array(cards, np.float64) if data.draw(st.booleans()) else [float(c) for c in cards]), False
    return cards, True


def seat_or_junk(data, n):
    """Mostly a seat 0..n-1, sometimes junk."""
    return data.draw(st.integers(0, n - 1)) if data.draw(st.integers(0, 3)) else data.draw(JUNK)


def check_reset(env, options, valid):
    """reset(options) succeeds exactly when the deal is valid (if known), and a refusal changes nothing."""
    before = snapshot(env)
    ok = attempt(lambda: env.reset(options=options))
    if valid is not None:
        assert ok == valid, options
    if not ok:
        assert snapshot(env) == before
    return ok


@FUZZ
@given(data=st.data())
def test_fuzz_courtpiece_deals(data):
    env = env_at("courtpiece", episode="match")
    perm = [int(c) for c in np.random.default_rng(data.draw(st.integers(0, 99))).permutation(52)]
    hands, valid = [], True
    for s in range(4):
        hand, ok = mutated(perm[13 * s:13 * s + 13], data) if data.draw(st.booleans()) else (perm[13 * s:13 * s + 13], True)
        hands.append(hand)
        valid = None if ok is None or valid is None else valid and ok
    dealer = seat_or_junk(data, 4)
    deal = {"hands": hands, "dealer": dealer}
    valid = valid if is_seat(dealer, 4) else False
    options = {"deal": deal}
    if not data.draw(st.integers(0, 3)):  # an extra field, a match_state: accepted or refused, nothing else
        deal[data.draw(st.sampled_from(["turned", "band_timeout", "draw", "colour"]))] = data.draw(JUNK)
        options["match_state"] = {"score": [data.draw(st.one_of(st.integers(0, 20), JUNK)), 0],
                                  "streak": data.draw(st.sampled_from([[None, 0], [0, 3], [1, 0], [None, 1]])),
                                  "bazi_index": data.draw(st.one_of(st.integers(0, 5), JUNK))}
        valid = None if valid is not False else False  # known only when already invalid
    if check_reset(env, options, valid) and env.unwrapped.public_state()["phase"] == "call":
        # the injected deal is the one in play: each seat holds its first five
        assert [sorted(env.unwrapped.hand(s)) for s in range(4)] == \
            [sorted(card_text(c) for c in perm[13 * s:13 * s + 5]) for s in range(4)]


@FUZZ
@given(data=st.data())
def test_fuzz_lopti_deals(data):
    env = env_at("lopti", num_players=2, session=True, session_rounds=3)
    deck, valid = mutated([int(c) for c in np.random.default_rng(data.draw(st.integers(0, 99))).permutation(52)], data)
    dealer = seat_or_junk(data, 2)
    if check_reset(env, {"deal": {"deck": deck, "dealer": dealer}}, valid if is_seat(dealer, 2) else False):
        assert env.unwrapped.public_state()["dealer"] == dealer


@FUZZ
@given(data=st.data())
def test_fuzz_lopti_states(data):
    env = env_at("lopti", num_players=2, session=True, session_rounds=3)
    keys = ["scores", "pending", "rules", "known", "moves", "chain", "to_act", "out", "move", "round",
            "prev_winner", "phase", "switches", "dealer"]
    plausible = st.one_of(JUNK, st.lists(st.one_of(st.integers(-1, 21), st.floats()), min_size=2, max_size=7),
                          st.sampled_from(["first", "extra", "play", "swap", "proposal"]))
    state = {"seats": [{"hand": "AS 9C"}, {"hand": "KS", "up": "2D - -"}]}
    state.update(data.draw(st.dictionaries(st.sampled_from(keys), plausible, max_size=3)))
    if check_reset(env, {"state": state}, None):
        scores = env.unwrapped.public_state()["scores"]
        assert all(np.isfinite(scores)) and max(map(abs, scores)) <= 1e6


@FUZZ
@given(data=st.data())
def test_fuzz_shengji_deals_and_options(data):
    env = env_at("shengji", decks=1)
    order = [int(c) for c in np.random.default_rng(data.draw(st.integers(0, 99))).permutation(54)]
    deal, valid = mutated(order, data)
    options = {"deal": deal}
    for key, values in (("banker", st.one_of(st.integers(-1, 4), JUNK)),
                        ("levels", st.one_of(st.lists(st.one_of(st.integers(-1, 13), st.sampled_from(
                            ["2", "A", "10", "X"])), min_size=2, max_size=2), JUNK)),
                        ("first_drawer", st.one_of(st.integers(0, 3), JUNK)),
                        ("redeals", st.one_of(JUNK, st.just([order])))):
        if not data.draw(st.integers(0, 3)):
            options[key] = data.draw(values)
            valid = None if valid is not False else False  # known only when already invalid
    check_reset(env, options, valid)
