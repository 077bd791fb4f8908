"""PettingZoo's own conformance tests, stock (no shim), on every env, variant and episode kind.

`api_test` probes `reset(seed=0, options={"options": 1})`: per spec 9.6 of every game an unknown
top-level options key warns (UserWarning naming it and the known keys) and is ignored, so the probe
passes. api_test reports soft failures as warnings: here every warning it gives must be one of the
two it gives for any Dict observation (PettingZoo classic envs get them too), or the probe's own.
"""
from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import api_test, seed_test

import courtpiece_env
import lopti_env
import shengji_env
from tests.courtpiece.courtpiece_configs import CONFIGS

_LOPTI_SESSION = dict(session=True, session_rounds=2, max_moves=200, rps_max_throws=40)
CASES = [
    *[(courtpiece_env, c) for c in CONFIGS],
    *[(lopti_env, dict(num_players=n)) for n in (2, 3, 4, 5)],
    *[(lopti_env, dict(num_players=n, **_LOPTI_SESSION)) for n in (2, 3, 4, 5)],
    *[(shengji_env, dict(decks=d, declaration_mode=m)) for d in (1, 2, 3, 4) for m in ("draw", "after_deal", "preset")],
    (shengji_env, dict(decks=1, episode="match", max_hands=3)),
    (shengji_env, dict(decks=2, episode="match", max_hands=2, reward_mode="match")),
]
IDS = [f"{mod.__name__.removesuffix('_env')}-" + "-".join(f"{k}={v}" for k, v in c.items()) for mod, c in CASES]

# the two soft warnings api_test gives any env whose observation is a Dict (observation, action_mask)
_DICT_OBSERVATION = ("Observation is not a NumPy array",
                     "Observation space for each agent probably should be gymnasium.spaces.box")


@pytest.mark.parametrize("mod,config", CASES, ids=IDS)
def test_stock_api_test(mod, config):
    env = mod.env(**config)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=400)
    probe = [w for w in caught if str(w.message).startswith("reset: unknown options key(s) 'options' ignored")]
    assert len(probe) == 1 and probe[0].category is UserWarning
    known = ", ".join(map(repr, env.unwrapped.reset_options))
    assert str(probe[0].message).endswith(f"known keys: {known}")
    other = [str(w.message) for w in caught if w not in probe and not str(w.message).startswith(_DICT_OBSERVATION)]
    assert other == []


@pytest.mark.parametrize("mod,config", CASES, ids=IDS)
def test_stock_seed_test(mod, config):
    seed_test(lambda: mod.env(**config), num_cycles=200)


@pytest.mark.parametrize("mod", [courtpiece_env, lopti_env, shengji_env])
def test_unknown_reset_key_warns_and_is_ignored_known_bad_value_raises(mod):
    """9.6: reset(seed=s, options={unknown: ...} + known keys) is reset(seed=s, options=known keys),
    with one UserWarning; a known key with a bad value is still a ValueError that changes nothing."""
    a, b = mod.raw_env(), mod.raw_env()
    with pytest.warns(UserWarning, match=r"unknown options key\(s\) 'bogus', 'x' ignored; known keys: 'deal'"):
        a.reset(seed=4, options={"bogus": 1, "x": None})
    b.reset(seed=4)
    assert a.public_state() == b.public_state() and a.agent_selection == b.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a plain reset and options=None/{} warn about nothing
        a.reset(seed=5, options={})
        a.reset(seed=5, options=None)
    before = a.public_state()
    with pytest.raises(ValueError), pytest.warns(UserWarning, match="'bogus'"):
        a.reset(seed=6, options={"bogus": 1, "deal": "not a deal"})
    assert a.public_state() == before
