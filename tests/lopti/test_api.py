"""PettingZoo API conformance of lopti_env (spec section 9.1; ARCHITECTURE conventions). PettingZoo's own
api_test / seed_test on every N and session episodes: tests/core/test_pettingzoo_stock.py."""
from __future__ import annotations

import numpy as np
import pytest

import lopti_env


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
