"""PIMC search: sampled deals never contradict public information, on random states; the replayed
history reaches exactly the searching seat's information set."""
from __future__ import annotations

import numpy as np
import pytest

from agents.base import RandomAgent
from agents.search import PIMCAgent, Situation
from cardzoo.cards import card_index
from cardzoo.registry import make, make_batch
from tests.agents.conftest import require

VARIANTS = [("single_sar", {}), ("double_sar", {}), ("be_rang", {}), ("mendi_coat", {}),
            ("single_sar", {"change_trump": True, "change_cards": True})]


def _random_state(variant, extra, seed):
    """An AEC env advanced by random play to a random play decision; (env, seat)."""
    rng = np.random.default_rng(seed)
    env = make("courtpiece", variant=variant, **extra)
    env.reset(seed=seed)
    stop = int(rng.integers(0, 40))
    rnd = RandomAgent(seed=seed)
    raw = env.unwrapped
    k = 0
    while True:
        name = env.agent_selection
        if env.terminations[name]:
            return None, None
        obs = env.observe(name)
        phase = raw.public_state()["phase"]
        if phase == "play" and k >= stop:
            return env, raw.possible_agents.index(name)
        a = rnd.act(None, obs["action_mask"])
        if phase == "change_cards":
            a = 56                 # keep: the search replays positions without changed cards
        if phase == "change_trump":
            a = 56
        env.step(a)
        k += 1


@pytest.mark.parametrize("variant,extra", VARIANTS)
def test_sampled_deals_agree_with_everything_public(variant, extra):
    require("courtpiece")
    config = {"variant": variant, **extra}
    checked = 0
    for seed in range(12):
        env, seat = _random_state(variant, extra, seed)
        if env is None:
            continue
        raw = env.unwrapped
        ps = raw.public_state()
        obs = env.observe(raw.possible_agents[seat])
        sit = Situation(ps, seat, obs["observation"], config)
        assert sit.supported is None, sit.supported
        deals = [sit.sample(np.random.default_rng(s)) for s in range(4)]
        assert all(d is not None for d in deals)
        my_cards = {card_index(c) for c in raw.hand(seat)}
        for d in deals:
            hands = d["hands"]
            assert d["dealer"] == ps["dealer"]
            assert sorted(c for h in hands for c in h) == list(range(52))
            assert all(len(h) == 13 for h in hands)
            played = {s: set() for s in range(4)}
            for t in ps["tricks"] + ([{"cards": ps["current_trick"]}] if ps["current_trick"] else []):
                for s, c in t["cards"]:
                    played[s].add(card_index(c))
            for s in range(4):
                held = set(hands[s]) - played[s]
                assert played[s] <= set(hands[s])                       # played cards were that seat's
                assert len(held) == ps["hand_sizes"][s]                 # hand sizes
                for void in sit.voids[s]:                               # shown voids
                    assert all(c // 13 != void for c in held)
            assert set(hands[seat]) - played[seat] == my_cards          # own hand exactly
            if variant in ("single_sar", "double_sar") and ps["caller"] is not None:
                assert any(c // 13 == ps["trump"] for c in hands[ps["caller"]][:5])   # CP-3.2
        # the replayed history reaches the searcher's information set in every sampled world
        g = make_batch("courtpiece", len(deals), **config)
        g.reset(seed=0, deals=deals)
        for a in sit.history():
            g.step(np.full(len(deals), a, np.int64))
        assert (g.current_player == seat).all()
        assert np.array_equal(g.legal_mask(), np.repeat(obs["action_mask"][None].astype(np.uint8), len(deals), 0))
        assert np.allclose(g.observe(), obs["observation"][None])
        checked += 1
    assert checked >= 6


def test_pimc_plays_legal_moves_and_reports_throughput():
    require("courtpiece")
    env, seat = _random_state("single_sar", {}, 3)
    agent = PIMCAgent("courtpiece", seed=0, samples=3, rollouts=2, env_config={})
    agent.observe_env(env, seat)
    obs = env.observe(env.agent_selection)
    a = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][a] == 1
    if obs["action_mask"].sum() > 1:
        assert agent.stats["searched"] == 1 and agent.stats["games"] > 0 and agent.rollouts_per_s > 0
        assert agent.last["rollouts_per_s"] > 0 and set(agent.last["values"]) == set(np.flatnonzero(obs["action_mask"]))
