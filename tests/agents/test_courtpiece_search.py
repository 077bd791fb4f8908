"""PIMC search: sampled deals never contradict public information, on random states; the replayed
history reaches exactly the searching seat's information set."""
from __future__ import annotations

import json

from pathlib import Path

import numpy as np
import pytest

from agents.base import RandomAgent
from agents.courtpiece.search import PIMCAgent, Situation
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
    env, seat = _random_state("single_sar", {}, 4)
    agent = PIMCAgent("courtpiece", seed=0, samples=3, rollouts=2, env_config={})
    agent.observe_env(env, seat)
    obs = env.observe(env.agent_selection)
    # a decision with a choice (seed 3's had one legal card, so nothing below ever ran)
    assert obs["action_mask"].sum() > 1
    a = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][a] == 1
    assert agent.stats["searched"] == 1 and agent.stats["games"] > 0 and agent.rollouts_per_s > 0
    assert agent.last["rollouts_per_s"] > 0 and set(agent.last["values"]) == set(np.flatnonzero(obs["action_mask"]))


@pytest.mark.parametrize("variant,extra", VARIANTS)
def test_fast_sampler_agrees_with_everything_public(variant, extra):
    """Situation.sample_orders (jitted sampler + deal orders) keeps the constraints of ``sample``,
    and BatchGame.reset(hands=...) + replay reaches the searcher's information set."""
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
        orders = sit.sample_orders(8, seed)
        assert orders.shape == (8, 4, 13)
        my_cards = {card_index(c) for c in raw.hand(seat)}
        for o in orders:
            assert sorted(o.ravel().tolist()) == list(range(52))
            for s in range(4):
                held = set(o[s].tolist()) - set(sit.played[s])
                assert set(sit.played[s]) <= set(o[s].tolist())
                assert len(held) == ps["hand_sizes"][s]
                assert all(c // 13 not in sit.voids[s] for c in held)
            assert set(o[seat].tolist()) - set(sit.played[seat]) == my_cards
            assert set(o[seat, :5].tolist()) == set(sit.my_first5)
            if variant in ("single_sar", "double_sar") and ps["caller"] is not None:
                assert any(c // 13 == ps["trump"] for c in o[ps["caller"], :5])      # CP-3.2
        g = make_batch("courtpiece", len(orders), **config)
        g.reset(hands=orders, dealers=ps["dealer"])
        g.replay(sit.history())
        assert (g.current_player == seat).all()
        assert np.array_equal(g.legal_mask(), np.repeat(obs["action_mask"][None].astype(np.uint8), len(orders), 0))
        assert np.allclose(g.observe(), obs["observation"][None])
        checked += 1
    assert checked >= 6


@pytest.mark.parametrize("variant", ["single_sar", "mendi_coat", "be_rang", "double_sar"])
def test_heuristic_card_kernel_equals_the_heuristic(variant):
    """heuristic_card (the rollout policy) plays exactly CourtPieceHeuristic's card, on states reached
    by a mix of random and heuristic play."""
    require("courtpiece")
    from agents.courtpiece.heuristic import CourtPieceHeuristic
    from agents.courtpiece.search import policy_cards_batch
    from agents.jitnet import no_net

    h = CourtPieceHeuristic("courtpiece", 0)
    g = make_batch("courtpiece", 24, variant=variant)
    g.reset(seed=1)
    rng = np.random.default_rng(2)
    checked = 0
    while not g.done.all():
        m, obs = g.legal_mask(), g.observe()
        out = np.zeros(g.n, np.int64)
        policy_cards_batch(g.records, g.config_array, no_net(), 0.0, out)
        for b in np.flatnonzero(out >= 0):
            if m[b].sum() > 1:
                assert h.act(obs[b], m[b]) == out[b]
                checked += 1
        u = rng.random(m.shape)
        u[m == 0] = -1.0
        g.step(np.where((out >= 0) & (rng.random(g.n) < 0.5), out, u.argmax(axis=1)))
    assert checked > 300


def test_pimc_heuristic_rollouts_mendi_coat_and_policy_checks():
    require("courtpiece")
    env, seat = _random_state("mendi_coat", {}, 5)
    agent = PIMCAgent("courtpiece", seed=0, samples=4, env_config={"variant": "mendi_coat"})
    agent.observe_env(env, seat)
    obs = env.observe(env.agent_selection)
    a = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][a] == 1
    # the decision was searched (not a fall-back), so the search timed itself
    assert agent.stats["searched"] == 1 and agent.stats["fallbacks"] == 0 and agent.decisions_per_s > 0
    for bad in (dict(policy="greedy"), dict(eps=2.0), dict(samples=0)):
        with pytest.raises(ValueError):
            PIMCAgent("courtpiece", **bad)


def test_pimc_searches_the_trump_call_and_keeps_the_first_five():
    require("courtpiece")
    env = make("courtpiece")
    env.reset(seed=4)
    raw = env.unwrapped
    assert raw.public_state()["phase"] == "call"
    seat = raw.possible_agents.index(env.agent_selection)
    obs = env.observe(env.agent_selection)
    sit = Situation(raw.public_state(), seat, obs["observation"], {})
    assert sit.call_supported(raw.public_state()) is None and sit.call_history() == []
    orders = sit.sample_call_orders(6, np.random.default_rng(0))
    first = sorted(card_index(c) for c in raw.hand(seat))
    for o in orders:
        assert sorted(o.ravel().tolist()) == list(range(52)) and sorted(o[seat, :5].tolist()) == first
    agent = PIMCAgent("courtpiece", seed=0, samples=2, call_samples=8, env_config={})
    agent.observe_env(env, seat)
    a = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][a] == 1 and agent.stats["calls"] == 1


def test_strength_rows_cover_mendi_coat_and_merge_chunks():
    require("courtpiece")
    from benchmarks import strength

    assert strength.ROW_SETS["mendi_coat"] == ("courtpiece", {"variant": "mendi_coat"})
    rows = strength.matchups("courtpiece", "pimc", {"variant": "mendi_coat"})
    assert ("heuristic", "random", False) in rows and ("pimc", "heuristic", True) in rows
    # a checkpoint counts only for the game and config it was trained on (its JSON says which)
    assert {Path(r[0]).name for r in rows if r[0].endswith(".pt")} == {"mendi_coat.pt"}
    single = strength.matchups("courtpiece", "pimc", {})
    assert {Path(r[0]).name for r in single if r[0].endswith(".pt")} == {"courtpiece.pt", "courtpiece_rollout.pt"}
    from agents.arena import MatchResult

    parts = [MatchResult("courtpiece", "a", "b", np.array([1.0, 0.0]), {"a": 1.0}),
             MatchResult("courtpiece", "a", "b", np.array([-1.0]), {"a": 4.0})]
    m = strength._merge(parts)
    assert (m.wins, m.ties, m.losses) == (1, 1, 1) and m.seconds["a"] == pytest.approx(2.0)


def test_strength_log_resumes_and_pools_chunks(tmp_path, capsys):
    """--log: a run split over --first-chunk and a resume pools to the same row as one straight run."""
    require("courtpiece")
    from benchmarks import strength

    base = ["--game", "courtpiece", "--only-search", "--no-learned", "--search-deals", "4", "--chunk", "2",
            "--pimc", "pimc:samples=2,call_samples=8"]
    whole = tmp_path / "whole.json"
    strength.main(base + ["--json", str(whole)])
    log = tmp_path / "chunks.jsonl"
    strength.main(base + ["--log", str(log), "--first-chunk", "1"])        # only chunk 1 (seed 1)
    assert [json.loads(x)["seed"] for x in log.read_text().splitlines()] == [1]
    strength.main(base + ["--log", str(log)])                               # plays chunk 0, reuses chunk 1
    assert sorted(json.loads(x)["seed"] for x in log.read_text().splitlines()) == [0, 1]
    pooled = tmp_path / "pooled.json"
    strength.main(base + ["--log", str(log), "--json", str(pooled)])        # nothing left to play
    assert len(log.read_text().splitlines()) == 2
    keys = ("deals", "W-T-L", "win rate A", "score A-B")
    w, p = json.loads(whole.read_text())[0], json.loads(pooled.read_text())[0]
    assert {k: w[k] for k in keys} == {k: p[k] for k in keys} and p["deals"] == 4


def _seeing_worlds(monkeypatch, cls, samples):
    """At the card-play decisions with a choice of a few random positions: (the worlds the oracle
    search ``cls`` evaluates, each seat's true cards played and held, the cards each seat played,
    the searching seat); its choice is legal."""
    from agents.courtpiece.search import PIMCAgent

    found = []
    for seed in range(6):
        env, seat = _random_state("single_sar", {}, seed)
        if env is None:
            continue
        raw = env.unwrapped
        obs = env.observe(raw.possible_agents[seat])
        if int(obs["action_mask"][:52].sum()) < 2:
            continue
        agent = cls("courtpiece", seed=seed, samples=samples)
        agent.observe_env(env, seat)
        seen = []

        def spy(sit, orders, legal, cfg, history=None, agent=agent):
            seen.append(orders.copy())
            return PIMCAgent.evaluate(agent, sit, orders, legal, cfg, history)

        monkeypatch.setattr(agent, "evaluate", spy)
        a = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        ps = raw.public_state()
        played = {s: set() for s in range(4)}
        for trick in [t["cards"] for t in ps["tricks"]] + ([ps["current_trick"]] if ps["current_trick"] else []):
            for s, c in trick:
                played[int(s)].add(card_index(c))
        truth = [played[s] | {card_index(c) for c in raw.hand(s)} for s in range(4)]
        found.append((seen[-1], truth, played, seat))
    assert len(found) >= 2
    return found


def test_seeing_search_plays_the_true_deal_in_every_world(monkeypatch):
    """benchmarks/oracle.py: at a card-play decision every world SeeingSearch evaluates holds each
    seat's true cards (those it played and those in its hand), and the replayed history reaches the
    real position; its choice is a legal card."""
    require("courtpiece")
    from benchmarks.oracle import SeeingSearch

    for orders, truth, _, _ in _seeing_worlds(monkeypatch, SeeingSearch, 3):
        assert orders.shape == (3, 4, 13)
        for s in range(4):
            assert all(set(int(c) for c in orders[k, s]) == truth[s] for k in range(3))


def test_partner_seeing_search_samples_only_the_opponents(monkeypatch):
    """benchmarks/oracle.py --sees partner: every world gives the searcher and its partner their
    true cards; the opponents' hands are sampled (they differ between worlds and, in some, from the
    truth), with each opponent's played cards in its hand."""
    require("courtpiece")
    from benchmarks.oracle import PartnerSeeingSearch

    sampled = 0
    for orders, truth, played, seat in _seeing_worlds(monkeypatch, PartnerSeeingSearch, 8):
        assert len(orders) == 8
        for k in range(len(orders)):
            hands = [set(int(c) for c in orders[k, s]) for s in range(4)]
            assert hands[seat] == truth[seat] and hands[(seat + 2) % 4] == truth[(seat + 2) % 4]
            assert set().union(*hands) == set(range(52))
            for s in ((seat + 1) % 4, (seat + 3) % 4):
                assert len(hands[s]) == 13 and played[s] <= hands[s]
            sampled += any(hands[s] != truth[s] for s in range(4))
    assert sampled > 0


def test_oracle_benchmark_prints_a_json_result(capsys):
    require("courtpiece")
    from benchmarks import oracle

    oracle.main(["--deals", "2", "--seed", "3", "--samples", "2", "--opponent", "heuristic", "--json"])
    row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert row["deals"] == 2 and row["wins"] + row["ties"] + row["losses"] == 2 and row["game"] == "courtpiece"
    assert 0.0 <= row["ci95"][0] <= row["win_rate"] <= row["ci95"][1] <= 1.0
