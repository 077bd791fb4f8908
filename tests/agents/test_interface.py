"""Interface conformance of every agent on every game that exists: legal actions only (AEC and
batched), seeded determinism, and the RandomAgent's uniformity."""
from __future__ import annotations

import numpy as np
import pytest

from agents import RandomAgent, agent_options, heuristic_class, make_agent, search_class
from agents.arena import play_aec, random_deal
from agents.base import Agent
from cardzoo.registry import make_batch
from tests.agents.conftest import CONFIGS, GAMES, record_game, require


def _agent_specs(game):
    specs = ["random", "heuristic"]
    if game == "courtpiece":
        specs += ["greedy", "pimc:samples=2,rollouts=2", "pimc:samples=2,policy=random,z=0"]
    return specs


@pytest.mark.parametrize("game", GAMES)
def test_every_agent_plays_only_legal_actions_and_is_seeded(game):
    require(game)
    config = CONFIGS[game]
    n = 3 if game == "lopti" else 4
    for spec in _agent_specs(game):
        runs = []
        for _ in range(2):
            agents = [make_agent(spec, game, seed=10 + s, env_config=config) for s in range(n)]
            runs.append(record_game(game, agents, seed=5, config=config))
        assert runs[0] == runs[1], f"{spec} on {game}: same seeds gave different games"
        assert len(runs[0]) > 0


@pytest.mark.parametrize("game", GAMES)
def test_act_batch_is_legal_on_batched_states(game):
    require(game)
    config = CONFIGS[game]
    g = make_batch(game, 16, **config)
    g.reset(seed=3)
    agents = [RandomAgent(game, seed=1), heuristic_class(game)(game, seed=1)]
    for step in range(60):
        live = ~g.done
        if not live.any():
            break
        obs, mask = g.observe(), g.legal_mask()
        idx = np.flatnonzero(live)
        acts = np.zeros(g.n, np.int64)
        acts[idx] = agents[step % 2].act_batch(obs[idx], mask[idx])
        assert acts.dtype == np.int64
        assert (mask[idx, acts[idx]] == 1).all()
        g.step(acts)


def test_random_agent_is_uniform_over_legal_and_vectorized():
    mask = np.zeros((4000, 10), np.uint8)
    mask[:, [1, 4, 7]] = 1
    a = RandomAgent(seed=0).act_batch(np.zeros((4000, 3)), mask)
    counts = np.bincount(a, minlength=10)
    assert set(np.flatnonzero(counts)) == {1, 4, 7}
    assert counts[[1, 4, 7]].min() > 1200
    single = [RandomAgent(seed=3).act(None, mask[0]) for _ in range(3)]
    assert len(set(single)) == 1          # same seed, same first draw
    r = RandomAgent(seed=3)
    first = [r.act(None, mask[0]) for _ in range(20)]
    r.reset()
    assert [r.act(None, mask[0]) for _ in range(20)] == first
    with pytest.raises(ValueError):
        RandomAgent(seed=0).act(None, np.zeros(5, np.int8))


def test_agent_interface_rejects_bad_options_and_unknown_specs():
    with pytest.raises(ValueError):
        RandomAgent("courtpiece", 0, bogus=1)
    with pytest.raises(ValueError):
        make_agent("nonsense", "courtpiece")
    with pytest.raises(ValueError):
        heuristic_class("chess")
    assert issubclass(heuristic_class("lopti"), Agent)


@pytest.mark.parametrize("game", GAMES)
def test_agent_spec_options_are_read_as_the_agent_declares_them(game):
    """agent_options: each option typed by the constructor; unknown options, the caller's seed and
    values that are not exactly of the option's type are refused by name, never converted."""
    require(game)
    cls = search_class(game)
    assert agent_options(cls, "samples=3,z=2,rollouts=1") == {"samples": 3, "z": 2.0, "rollouts": 1}
    assert make_agent("pimc:samples=3,z=0.5", game, seed=0).samples == 3
    for spec, message in [("pimc:bogus=1", "unknown agent option 'bogus'"),
                          ("pimc:seed=3", "unknown agent option 'seed'.*--seed"),
                          ("pimc:samples=1.5", "samples='1.5' must be an integer"),
                          ("pimc:samples=true", "samples='true' must be an integer"),
                          ("pimc:samples=1e9", "samples='1e9' must be an integer"),
                          ("pimc:samples=abc", "samples='abc' must be an integer"),
                          ("pimc:z=high", "z='high' must be a number"),
                          ("pimc:samples", "'samples' is not key=value")]:
        with pytest.raises(ValueError, match=message):
            make_agent(spec, game, seed=0)
    with pytest.raises(ValueError, match="unknown agent option 'x' for CourtPieceGreedy; its options: none"):
        make_agent("greedy:x=1", "courtpiece")


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_beats_random_in_the_batched_arena(game):
    require(game)
    from agents.arena import duplicate_match

    res = duplicate_match(game, make_agent("heuristic", game, 1), make_agent("random", game, 2),
                          deals=40, config=CONFIGS[game], seed=11, engine="batch")
    assert res.mean_diff_ci[0] > 0 and res.win_rate > 0.7


def test_play_aec_returns_zero_sum_rewards():
    require("courtpiece")
    agents = [make_agent("heuristic", "courtpiece", s) for s in range(4)]
    rew, env = play_aec("courtpiece", agents, {}, random_deal("courtpiece", np.random.default_rng(0)), seed=0)
    assert rew.sum() == 0 and rew[0] == rew[2] and rew[1] == rew[3] and rew[0] != 0


VARIANT_CONFIGS = [
    ("courtpiece", {"variant": "double_sar"}),
    ("courtpiece", {"variant": "chhupa_rang", "change_trump": True}),
    ("courtpiece", {"variant": "be_rang", "change_cards": True}),
    ("courtpiece", {"variant": "mendi_coat"}),
    ("courtpiece", {"variant": "mendi_coat", "mendi_trump": "band"}),
    ("courtpiece", {"variant": "single_sar", "change_trump": True, "change_cards": True}),
    ("lopti", {"num_players": 5}),
    ("lopti", {"num_players": 3, "session": True, "session_rounds": 2}),
    ("shengji", {"decks": 2, "declaration_mode": "after_deal"}),
]


@pytest.mark.parametrize("game,config", VARIANT_CONFIGS)
def test_heuristic_and_random_play_every_variant_legally(game, config):
    """BatchGame.step raises on any illegal action, so finishing the match proves legality."""
    require(game)
    from agents.arena import duplicate_match

    res = duplicate_match(game, make_agent("heuristic", game, 1), make_agent("random", game, 2),
                          deals=6, config=config, seed=4, engine="batch")
    assert res.deals == 6
