"""Sheng Ji determinized search: sampled deals never contradict public information (checked on
random states, failed throws included), the replay reaches the searching seat's information set,
whole plays are emitted card by card, legal actions only, seeded determinism."""
from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.arena import random_deal
from agents.base import RandomAgent
from cardzoo.cards import card_index
from cardzoo.registry import make, make_batch
from tests.agents.conftest import require


def _random_decision(seed, config):
    """An env advanced by random play to a random LEAD/FOLLOW decision with an empty selection."""
    rng = np.random.default_rng(seed)
    env = make("shengji", raw=True, **config)
    env.reset(seed=seed)
    stop = int(rng.integers(0, 60))
    rnd = RandomAgent("shengji", seed)
    k = 0
    while True:
        name = env.agent_selection
        if env.terminations[name]:
            return None, None
        obs = env.observe(name)
        ps = env.public_state()
        fresh = obs["observation"][54:108].sum() == 0
        if ps["phase"] in ("LEAD", "FOLLOW") and fresh and k >= stop:
            return env, env.possible_agents.index(name)
        env.step(rnd.act(None, obs["action_mask"]))
        k += 1


def _counts(text):
    out = np.zeros(54, np.int64)
    for t in text.split():
        out[card_index(t, jokers=True)] += 1
    return out


@pytest.mark.parametrize("decks", [1, 2])
def test_sampled_deals_agree_with_everything_public(decks):
    require("shengji")
    from agents.shengji_search import _COMPARE, Situation, replay, start_rows

    config = {"decks": decks}
    checked = throws = 0
    for seed in range(10):
        env, seat = _random_decision(seed, config)
        if env is None:
            continue
        name = env.possible_agents[seat]
        ps = env.public_state()
        real = env.observe(name)["observation"]
        throws += len(ps["failed_throws"])
        sit = Situation(ps, seat, real, config)
        assert sit.supported is None, sit.supported
        H = sit.H
        # the voids read from the record hold for the real hands (test-side check only)
        for s in range(4):
            real_hand = _counts(env.hand(s))
            assert not any(real_hand[c] and sit.esuit(c) in sit.voids[s] for c in range(54))
        deals = [sit.sample(np.random.default_rng(100 * seed + i)) for i in range(6)]
        deals = [d for d in deals if d is not None]
        assert deals
        for d in deals:
            assert (np.bincount(d, minlength=54) == decks).all()
            for s in range(4):
                r = (s - ps["banker"]) % 4
                dealt = np.bincount(d[r:4 * H:4], minlength=54)
                hidden = dealt - sit.played[s]
                assert (hidden >= 0).all()                    # every played card was dealt to its seat
                assert hidden.sum() == ps["hand_sizes"][s]
                if s == seat:
                    assert (hidden == sit.my_hand).all()
                    continue
                assert not any(hidden[c] and sit.esuit(c) in sit.voids[s] for c in range(54))
                shown = _counts(ps["shown"][s])
                kitty = np.bincount(d[4 * H:], minlength=54)
                held = hidden + (kitty if s == ps["banker"] else 0)
                assert (held >= shown).all()
        # replayed, the kept worlds show the seat exactly its table
        g = make_batch("shengji", len(deals), **dict(config, declaration_mode="preset"))
        start_rows(g, [sit.reset_options(d) for d in deals], [np.array([i]) for i in range(len(deals))])
        ok = replay(g, [sit.history(d) for d in deals])
        obs = g.observe()
        same = (obs[:, _COMPARE] == real[_COMPARE][None]).all(axis=1)
        assert same[ok].all() or not ok.any()
        assert (obs[ok, 854:] == real[854:]).all()          # same legal mask in every kept world
        checked += int(ok.sum())
    assert checked >= 10 and throws >= 1


def _play(agents, seed, config):
    env = make("shengji", **config)
    env.reset(seed=seed, options={"deal": random_deal("shengji", np.random.default_rng(seed), config)})
    names = list(env.unwrapped.possible_agents)
    actions = []
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        ag = agents[names.index(name)]
        if ag.needs_env:
            ag.observe_env(env, names.index(name))
        a = ag.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        actions.append(a)
        env.step(a)
    return actions


@pytest.mark.parametrize("extra", [{}, {"auto_forced": True}])
def test_search_plays_legal_whole_plays_and_is_seeded(extra):
    require("shengji")
    config = {"decks": 1, **extra}
    runs = []
    for _ in range(2):
        agents = [make_agent("pimc:samples=3,rollouts=1,max_plays=4,max_leads=6", "shengji", seed=7,
                             env_config=config) if s % 2 == 0 else make_agent("heuristic", "shengji", seed=s)
                  for s in range(4)]
        runs.append(_play(agents, 4, config))
        st = agents[0].stats
        assert st["searched"] > 0 and st["games"] > 0 and agents[0].rollouts_per_s > 0
    assert runs[0] == runs[1]


def test_search_rejects_bad_options_and_falls_back_outside_play():
    require("shengji")
    from agents.shengji_search import ShengJiSearch

    with pytest.raises(ValueError):
        ShengJiSearch(samples=0)
    with pytest.raises(ValueError):
        ShengJiSearch(game="lopti")
    config = {"decks": 1, "episode": "match", "max_hands": 1}
    agents = [make_agent("pimc:samples=2", "shengji", seed=1, env_config=config)] + \
             [make_agent("heuristic", "shengji", seed=s) for s in (2, 3, 4)]
    _play(agents, 5, config)
    assert agents[0].stats["searched"] == 0 and agents[0].stats["fallbacks"] > 0
