"""LOPTI determinized search: sampled positions never contradict public information (checked on
random states: the searching seat's observation and mask are the same in every sampled world), the
jitted rollout policy is the heuristic, legal actions only, seeded determinism."""
from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.base import RandomAgent
from agents.lopti.heuristic import LoptiHeuristic
from cardzoo.cards import parse_cards
from cardzoo.registry import make, make_batch
from tests.agents.conftest import record_game, require


def _random_position(seed, num_players):
    """A raw env advanced by random play to a random PLAY decision; (env, seat) or (None, None)."""
    rng = np.random.default_rng(seed)
    env = make("lopti", raw=True, num_players=num_players)
    env.reset(seed=seed)
    stop = int(rng.integers(0, 150))
    rnd = RandomAgent("lopti", seed)
    k = 0
    while True:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            return None, None
        ps = env.public_state()
        if ps["phase"] == "play" and k >= stop:
            return env, env.possible_agents.index(name)
        env.step(rnd.act(None, env.observe(name)["action_mask"]))
        k += 1


def test_sampled_positions_agree_with_everything_public():
    require("lopti")
    from agents.lopti.search import Situation

    checked = 0
    for seed in range(16):
        n = 2 + seed % 4
        env, seat = _random_position(seed, n)
        if env is None:
            continue
        name = env.possible_agents[seat]
        ps = env.public_state()
        real = env.observe(name)
        sit = Situation(ps, seat, real["observation"], {"num_players": n})
        assert sit.supported is None, sit.supported
        public = set(sit.public)
        for s in range(3):
            S = sit.sample(np.random.default_rng(100 * seed + s))
            assert S is not None
            hidden = [c for st in S["seats"] for c in st["hand"] + [d for d in st["down"] if d is not None]]
            hidden += S["draw"]
            # every card exactly once; the public cards stay where the record says
            listed = hidden + [c for st in S["seats"] for c in st["up"] if c is not None]
            listed += [c for _, cs in S["pile"] for c in cs]
            assert len(listed) == len(set(listed))
            for t, st in enumerate(S["seats"]):
                assert len(st["hand"]) == ps["seats"][t]["hand_size"]
                assert set(parse_cards(ps["seats"][t]["known"]) if ps["seats"][t]["known"] else []) <= set(st["hand"])
                assert [d is not None for d in st["down"]] == ps["seats"][t]["down"]
                if t != seat:
                    known = set(parse_cards(ps["seats"][t]["known"])) if ps["seats"][t]["known"] else set()
                    assert not ((set(st["hand"]) - known) & public)
            assert len(S["draw"]) == ps["draw_size"]
            # the seat's own hand is its real hand by rank
            ranks = np.bincount([c % 13 for c in S["seats"][seat]["hand"]], minlength=13)
            assert (ranks == np.rint(real["observation"][5:18]).astype(int)).all()
            # loaded into a fresh env: the searching seat sees exactly what it sees now
            e2 = make("lopti", raw=True, num_players=n)
            e2.reset(seed=0, options={"state": S})
            o2 = e2.observe(name)
            assert (o2["observation"] == real["observation"]).all()
            assert (o2["action_mask"] == real["action_mask"]).all()
            p2 = e2.public_state()
            for key in ("seats", "pile", "top", "chain", "gone", "draw_size", "out", "to_act", "move", "moves"):
                assert p2[key] == ps[key], key
            checked += 1
    assert checked >= 20


def test_positions_load_into_batch_rows():
    require("lopti")
    from agents.lopti.search import Situation

    env, seat = _random_position(3, 4)
    name = env.possible_agents[seat]
    real = env.observe(name)
    sit = Situation(env.public_state(), seat, real["observation"], {})
    states = [sit.sample(np.random.default_rng(s)) for s in range(3)]
    g = make_batch("lopti", 6)
    g.load_positions(states, [np.array([0, 1]), np.array([2, 3]), np.array([4, 5])])
    obs, mask = g.observe(), g.legal_mask()
    assert (obs == real["observation"][None]).all()
    assert (mask == real["action_mask"][None]).all()
    for i, S in enumerate(states):
        e2 = make("lopti", raw=True)
        e2.reset(seed=0, options={"state": S})
        assert g.public_state(2 * i) == e2.public_state()


def test_jitted_rollout_policy_is_the_heuristic():
    require("lopti")
    from agents.lopti.search import heuristic_batch

    g = make_batch("lopti", 24, num_players=3)
    g.reset(seed=4)
    h, rnd = LoptiHeuristic("lopti", 0), RandomAgent("lopti", 0)
    state = np.array([5], np.uint64)
    seen = 0
    for _ in range(120):
        live = ~g.done
        if not live.any():
            break
        obs, mask = g.observe(), g.legal_mask()
        acts = heuristic_batch(obs, mask, 0.0, state)
        for b in np.flatnonzero(live):
            assert mask[b, acts[b]] == 1
            if int(obs[b, 0]) == 1:
                assert acts[b] == h.act(obs[b], mask[b])
                seen += 1
        assert (acts[~live] == -1).all()
        g.step(np.where(live, [rnd.act(None, m) if m.any() else 0 for m in mask], 0))
    assert seen > 100


def test_jitted_rollouts_match_stepped_heuristic_play():
    """The fused rollout (state features, legal list) plays exactly the heuristic stepped through
    the public BatchGame API from the same loaded positions."""
    require("lopti")
    from agents.lopti.search import Situation, _rollout_heuristic, heuristic_batch

    env, seat = _random_position(5, 4)
    real = env.observe(env.possible_agents[seat])
    sit = Situation(env.public_state(), seat, real["observation"], {})
    states = [sit.sample(np.random.default_rng(s)) for s in range(6)]
    rows = [np.array([i]) for i in range(6)]
    a, b = make_batch("lopti", 6), make_batch("lopti", 6)
    a.load_positions(states, rows)
    b.load_positions(states, rows)
    fused, plies = _rollout_heuristic(a.st, a.cfg, a.carry, a.decks, a.coins, seat, 0.0,
                                      np.array([1], np.uint64), 10_000)
    stepped = np.zeros(6)
    k = 0
    while not b.done.all():
        k += int((~b.done).sum())
        b.step(heuristic_batch(b.observe(), b.legal_mask(), 0.0, np.array([1], np.uint64)))
        stepped += b.rewards[:, seat]
    assert a.done.all() and plies == k
    assert np.allclose(fused, stepped)
    assert (a.legal_mask() == b.legal_mask()).all()


@pytest.mark.parametrize("spec", ["pimc:samples=3", "pimc:samples=2,policy=random,z=0"])
def test_search_plays_legal_actions_and_is_seeded(spec):
    require("lopti")
    config = {"num_players": 3}
    runs = []
    for _ in range(2):
        agents = [make_agent(spec, "lopti", seed=7, env_config=config)] + \
                 [make_agent("heuristic", "lopti", seed=s) for s in (1, 2)]
        runs.append(record_game("lopti", agents, 9, config))
        st = agents[0].stats
        assert st["searched"] > 0 and st["games"] > 0 and agents[0].rollouts_per_s > 0
    assert runs[0] == runs[1]


def test_search_falls_back_in_sessions_and_rejects_bad_options():
    require("lopti")
    from agents.lopti.search import LoptiSearch

    with pytest.raises(ValueError):
        LoptiSearch(samples=0)
    with pytest.raises(ValueError):
        LoptiSearch(policy="greedy")
    with pytest.raises(ValueError):
        LoptiSearch(game="courtpiece")
    config = {"num_players": 2, "session": True, "session_rounds": 1}
    agents = [make_agent("pimc:samples=2", "lopti", seed=1, env_config=config), make_agent("heuristic", "lopti", 2)]
    record_game("lopti", agents, 3, config)
    assert agents[0].stats["searched"] == 0 and agents[0].stats["fallbacks"] > 0
