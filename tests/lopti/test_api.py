"""PettingZoo API conformance of lopti_env (spec section 9.1; ARCHITECTURE conventions)."""
from __future__ import annotations

import functools

import numpy as np
import pytest
from cardzoo.testing import api_test, seed_test

import lopti_env


@pytest.mark.parametrize("session", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_lopti_api_test(n, session):
    config = {"num_players": n, "session": session}
    if session:
        config.update(session_rounds=2, max_moves=200, rps_max_throws=40)
    api_test(lopti_env.env(**config), num_cycles=300)


@pytest.mark.parametrize("n", [2, 5])
def test_lopti_seed_test(n):
    seed_test(functools.partial(lopti_env.env, num_players=n), num_cycles=300)


def test_lopti_seed_test_session():
    seed_test(functools.partial(lopti_env.env, num_players=4, session=True, session_rounds=2, max_moves=150),
              num_cycles=300)


def test_lopti_spaces_and_names():
    e = lopti_env.env(num_players=3)
    e.reset(seed=0)
    u = e.unwrapped
    assert u.metadata["name"] == "lopti_v0"
    assert u.possible_agents == ["player_0", "player_1", "player_2"]
    for a in u.possible_agents:
        assert e.action_space(a).n == 140
        ob = e.observe(a)
        assert ob["observation"].dtype == np.float32 and ob["observation"].shape == (309,)
        assert ob["action_mask"].dtype == np.int8 and ob["action_mask"].shape == (140,)
        if a != e.agent_selection:
            assert not ob["action_mask"].any()
        assert "action_mask" in e.infos[a] and e.infos[a]["phase"] == "swap"
    assert e.observe(e.agent_selection)["action_mask"].any()
