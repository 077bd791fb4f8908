"""The arena: duplicate pairing really replays identical deals, engines agree, statistics, ratings,
time limits."""
from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.arena import (MatchResult, duplicate_lineups, duplicate_match, play_aec, random_deal, rate,
                          reset_options, wilson)
from agents.base import Agent
from cardzoo.registry import make
from tests.agents.conftest import CONFIGS, GAMES, require


class Recorder(Agent):
    """Heuristic wrapper that records the first observation it sees in every game."""

    def __init__(self, inner):
        super().__init__(inner.game, 0)
        self.inner = inner
        self.seen = []

    def act(self, observation, action_mask):
        self.seen.append(np.array(observation))
        return self.inner.act(observation, action_mask)


def test_duplicate_lineups_swap_teams_and_rotate_lopti_seats():
    assert duplicate_lineups("courtpiece", 4) == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert duplicate_lineups("shengji", 4) == [[0, 1, 0, 1], [1, 0, 1, 0]]
    rot = duplicate_lineups("lopti", 3)
    assert rot == [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    # every seat sees every lineup entry once
    assert all(sorted(col) == sorted(rot[0]) for col in zip(*rot))


@pytest.mark.parametrize("game", GAMES)
def test_replays_of_a_deal_start_from_identical_cards(game):
    require(game)
    config = CONFIGS[game]
    deal = random_deal(game, np.random.default_rng(4), config)
    n = 3 if game == "lopti" else 4
    starts = []
    for lineup in duplicate_lineups(game, n):
        env = make(game, **config)
        env.reset(seed=99 + len(starts), options=reset_options(game, deal))
        raw = env.unwrapped
        starts.append(([raw.hand(s) for s in range(n)], raw.public_state()))
    for hands, ps in starts[1:]:
        assert hands == starts[0][0]
        assert ps == starts[0][1]


def test_same_agent_on_both_sides_scores_exactly_zero_and_engines_agree():
    require("courtpiece")
    a = make_agent("heuristic", "courtpiece", 0)
    b = make_agent("heuristic", "courtpiece", 0)
    batch = duplicate_match("courtpiece", a, b, deals=12, seed=5, engine="batch")
    aec = duplicate_match("courtpiece", a, b, deals=12, seed=5, engine="aec")
    assert np.all(batch.diffs == 0) and batch.ties == 12
    assert np.array_equal(batch.diffs, aec.diffs)
    h, r = make_agent("heuristic", "courtpiece", 0), make_agent("random", "courtpiece", 1)
    x = duplicate_match("courtpiece", h, r, deals=8, seed=2, engine="batch")
    y = duplicate_match("courtpiece", r, h, deals=8, seed=2, engine="batch")
    assert x.deals == 8 and x.games_played == 16
    assert np.isclose(x.mean_diff, -y.mean_diff, atol=10)   # both see the same deals


def test_duplicate_replays_feed_each_agent_the_other_sides_cards():
    """In the swapped replay, A's seat holds exactly the cards B's seat held (same deal, seats swapped)."""
    require("courtpiece")
    from agents.courtpiece.heuristic import CourtPieceHeuristic

    deal = random_deal("courtpiece", np.random.default_rng(8))
    recs = []
    for lineup in duplicate_lineups("courtpiece", 4):
        agents = [Recorder(CourtPieceHeuristic("courtpiece", 0)) for _ in range(4)]
        play_aec("courtpiece", agents, {}, deal, seed=1)
        recs.append([ag.seen[0][:52] for ag in agents])
    for s in range(4):
        assert np.array_equal(recs[0][s], recs[1][s])      # same seat, same cards in both replays


def test_statistics_and_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi and abs((lo + hi) / 2 - 0.5) < 1e-9
    r = MatchResult("courtpiece", "a", "b", np.array([1.0, 0.0, -1.0, 2.0]))
    assert (r.wins, r.ties, r.losses) == (2, 1, 1)
    assert r.win_rate == 0.625
    lo, hi = r.mean_diff_ci
    assert lo < r.mean_diff < hi
    assert "win rate A" in r.row()


def test_openskill_ratings_rank_heuristic_above_random():
    require("courtpiece")
    agents = {"random": make_agent("random", "courtpiece", 0), "heuristic": make_agent("heuristic", "courtpiece", 1)}
    table, results = rate("courtpiece", agents, deals=40, seed=3)
    assert [t["agent"] for t in table] == ["heuristic", "random"]
    assert len(results) == 1


def test_call_timeouts_replace_slow_calls():
    require("courtpiece")
    a = make_agent("heuristic", "courtpiece", 0)
    b = make_agent("random", "courtpiece", 1)
    res = duplicate_match("courtpiece", a, b, deals=3, config={"call_seconds": 1e-9}, seed=0, time_limits=True)
    assert res.timeouts >= 3            # every call step timed out (CP-12.2)
    assert res.games_played == 6


@pytest.mark.parametrize("game", GAMES)
def test_the_batch_engine_refuses_an_agent_that_needs_the_env(game):
    """The search agents read the env (needs_env); on the batch engine they used to play their
    heuristic fallback unannounced, so a "pimc" row of the table was the heuristic's. Refused instead,
    by name, before a game is played; round robins (rate) too."""
    search, h = make_agent("pimc", game, seed=0), make_agent("heuristic", game, seed=1)
    with pytest.raises(ValueError, match="'batch' engine .* pimc needs the env"):
        duplicate_match(game, search, h, 1, engine="batch")
    with pytest.raises(ValueError, match="'batch' engine .* pimc needs the env"):
        rate(game, {"pimc": search, "heuristic": h, "random": make_agent("random", game, seed=2)}, 1,
             engine="batch")
    assert search.stats["decisions"] == 0
