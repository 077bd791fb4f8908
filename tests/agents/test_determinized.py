"""The shared skeleton of the search agents (agents/determinized.py): layout, choice, z test, books."""
from __future__ import annotations

import numpy as np
import pytest

from agents.determinized import DeterminizedSearch, paired_layout
from agents.lopti.heuristic import LoptiHeuristic


class _Search(DeterminizedSearch):
    games = ("lopti",)
    heuristic = LoptiHeuristic

    def act(self, observation, action_mask) -> int:
        return 0


def test_paired_layout_is_world_major_then_candidate_then_rollout():
    lay = paired_layout(2, [7, 9, 4], 2)
    assert lay.dtype == np.int64
    assert lay.tolist() == [7, 7, 9, 9, 4, 4, 7, 7, 9, 9, 4, 4]
    world = np.arange(len(lay)) // (3 * 2)
    for a in (7, 9, 4):                   # every candidate meets every world equally often
        assert np.bincount(world[lay == a]).tolist() == [2, 2]


def test_best_breaks_ties_to_the_heuristic_then_the_lowest_action():
    assert DeterminizedSearch.best({3: 1.0, 5: 2.0, 8: 2.0}, 8) == 8
    assert DeterminizedSearch.best({3: 1.0, 5: 2.0, 8: 2.0}, 3) == 5
    assert DeterminizedSearch.best({3: 1.0, 5: 0.5}, 5) == 3


def test_override_keeps_the_heuristic_unless_confident():
    agent = _Search("lopti", 0, z=1.0, env_config={})
    base = np.zeros(20)
    clear = {1: base + 1.0 + 0.01 * np.arange(20), 2: base}
    noisy = {1: np.where(np.arange(20) % 2 == 0, 1.0, -0.9), 2: base}
    assert agent.override(1, 2, clear) == 1
    assert agent.override(1, 2, noisy) == 2
    assert agent.override(2, 2, noisy) == 2
    assert agent.override(1, 3, clear) == 1            # the heuristic's action was not searched
    assert _Search("lopti", 0, z=0.0, env_config={}).override(1, 2, noisy) == 1


def test_books_and_config():
    agent = _Search("lopti", 0, z=1.0, env_config={"num_players": 3}, extra_stats={"calls": 0})
    assert agent.stats == {"decisions": 0, "searched": 0, "fallbacks": 0, "games": 0, "seconds": 0.0, "calls": 0}
    assert agent.fall_back(np.int64(5)) == 5 and agent.stats["fallbacks"] == 1
    dt = agent.record(0.0, games=40, choice=1)
    assert agent.stats["searched"] == 1 and agent.stats["seconds"] == dt
    assert agent.last["games"] == 40 and agent.last["choice"] == 1 and agent.last["rollouts_per_s"] > 0
    cfg = agent._config()
    cfg["num_players"] = 4                # a copy: the agent's options stay
    assert agent._config() == {"num_players": 3}
    assert isinstance(agent.fallback, LoptiHeuristic)
    with pytest.raises(ValueError, match="plays lopti"):
        _Search("shengji", 0, z=1.0, env_config=None)
