"""The trainer's parts on their own: GAE by game, opponents dealt game by game, the teacher's games and
distillation (expert iteration's first step), evaluation with confidence intervals."""
from __future__ import annotations

import numpy as np
import pytest

from tests.agents.conftest import require

torch = pytest.importorskip("torch")


def _gae_reference(games, val, rew, gamma, lam):
    adv = np.zeros(len(games), np.float32)
    for b in np.unique(games):
        idx = np.flatnonzero(games == b)
        running = 0.0
        for t in range(len(idx) - 1, -1, -1):
            nxt = val[idx[t + 1]] if t + 1 < len(idx) else 0.0
            running = rew[idx[t]] + gamma * nxt - val[idx[t]] + gamma * lam * running
            adv[idx[t]] = running
    return adv


def test_gae_matches_a_per_game_loop():
    from agents.train import gae

    rng = np.random.default_rng(3)
    games = rng.integers(0, 7, 300)
    val = rng.normal(size=300).astype(np.float32)
    rew = np.where(rng.random(300) < 0.2, rng.normal(size=300), 0).astype(np.float32)
    adv, ret = gae({"game": games, "val": val, "rew": rew}, 0.99, 0.9)
    np.testing.assert_allclose(adv, _gae_reference(games, val, rew, 0.99, 0.9), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ret, adv + val, rtol=1e-6)


def test_opponent_kinds_are_checked():
    from agents.train import opponent_kinds

    assert opponent_kinds("self, heuristic") == ["self", "heuristic"]
    for bad in ("", "self,bogus", ","):
        with pytest.raises(ValueError, match="opponents"):
            opponent_kinds(bad)


def test_games_are_dealt_their_opponent_by_global_index():
    """A list of opponents is dealt game by game from the shard's global offset: the heuristic plays
    exactly the games it was given (its seats then play the heuristic's moves)."""
    require("courtpiece")
    from agents import make_agent
    from agents.train import _learner_seats, play_episodes
    from cardzoo.registry import make_batch

    class Spy:
        def __init__(self):
            self.inner, self.rows = make_agent("heuristic", "courtpiece", seed=0), 0

        def act_batch(self, obs, masks):
            self.rows += len(masks)
            return self.inner.act_batch(obs, masks)

    spy = Spy()
    g = make_batch("courtpiece", 6)
    from agents.learned import build_model

    model = build_model(916, 60, 16, 1, "relu")
    learner = _learner_seats("courtpiece", 4, 6, 0)
    gen, rng = torch.Generator().manual_seed(0), np.random.default_rng(0)
    data, ret, dec = play_episodes(torch, g, model, [None, spy], learner, 5, gen, rng, offset=1)
    # offset 1: games 0, 2, 4 have global ids 1, 3, 5 and play entry 1 (the spy)
    assert spy.rows > 0 and dec > 6 * 40
    learner_moves = len(data["act"])
    assert 0 < spy.rows < dec - learner_moves          # the random opponent played the other games
    assert set(np.unique(data["game"])) == set(range(6))
    # every game paid its learner once, at its last learner decision
    assert np.count_nonzero(data["rew"]) <= 6 and np.isclose(data["rew"].sum(), ret.sum(), atol=1e-5)


def test_distillation_fits_the_teacher():
    """Distilling the heuristic raises the policy's agreement with it well above an untrained net's."""
    require("courtpiece")
    from agents.learned import build_model
    from agents.train import TrainConfig, distill, teacher_games
    from agents import make_agent

    cfg = TrainConfig(game="courtpiece", seed=2, distill_games=64, distill_epochs=4, hidden=64, distill_minibatch=256)
    teacher = make_agent("heuristic", "courtpiece", seed=0)
    held = teacher_games("courtpiece", {}, teacher, 32, 777)
    assert len(held["act"]) == len(held["obs"]) == len(held["ret"]) and held["mask"][np.arange(len(held["act"])), held["act"]].all()
    torch.manual_seed(0)
    model = build_model(916, 60, 64, 2, "relu")

    def agreement():
        with torch.no_grad():
            logits, _ = model(torch.as_tensor(held["obs"]), torch.as_tensor(held["mask"].astype(np.int8)))
        return float((logits.argmax(1).numpy() == held["act"]).mean())

    before = agreement()
    facts = distill(torch, cfg, model, torch.Generator().manual_seed(0), log=lambda m: None)
    after = agreement()
    assert facts["decisions"] > 64 * 13 and facts["teacher"] == "heuristic"
    assert after > before + 0.15 and after > 0.6


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_collection_plays_the_learners_network(activation):
    """The workers' copies are the learner's network: the log-probabilities recorded while collecting are
    the learner's own for those actions (PPO's ratio starts at 1)."""
    require("courtpiece")
    from agents.learned import build_model
    from agents.train import LocalCollector, TrainConfig, _weights

    cfg = TrainConfig(game="courtpiece", n_envs=4, hidden=16, activation=activation, seed=3)
    torch.manual_seed(1)
    model = build_model(916, 60, 16, 2, activation)
    data, _, _ = LocalCollector(cfg).collect(_weights(model), [None, "heuristic"], 0, 11)
    with torch.no_grad():
        logits, value = model(torch.as_tensor(data["obs"]), torch.as_tensor(data["mask"].astype(np.int8)))
    lp = torch.log_softmax(logits, 1).gather(1, torch.as_tensor(data["act"])[:, None]).squeeze(1).numpy()
    np.testing.assert_allclose(lp, data["logp"], atol=1e-5)
    np.testing.assert_allclose(value.numpy(), data["val"], atol=1e-5)


def test_the_baseline_is_the_agents_own_result_on_the_same_deal():
    """baseline_returns plays the deal with the agent in every seat; play_episodes subtracts it from the
    reward it credits, once per game, and leaves the returns it reports alone."""
    require("courtpiece")
    from agents import make_agent
    from agents.arena import play_batch
    from agents.learned import build_model
    from agents.train import _learner_seats, baseline_returns, play_episodes
    from cardzoo.registry import make_batch

    h = make_agent("heuristic", "courtpiece", seed=0)
    learner = _learner_seats("courtpiece", 4, 6, 1)
    base = baseline_returns(make_batch("courtpiece", 6), h, learner, 40)
    totals = play_batch("courtpiece", [h], np.zeros((6, 4), np.int64), seed=40)
    np.testing.assert_allclose(base, (totals * learner).sum(1) / 2)
    model = build_model(916, 60, 16, 1, "relu")
    runs = []
    for b in (None, base):
        gen, rng = torch.Generator().manual_seed(0), np.random.default_rng(0)
        runs.append(play_episodes(torch, make_batch("courtpiece", 6), model, h, learner, 40, gen, rng, baseline=b))
    (d0, r0, _), (d1, r1, _) = runs
    np.testing.assert_array_equal(r0, r1)
    np.testing.assert_allclose(d0["rew"].sum() - d1["rew"].sum(), base.sum(), atol=1e-4)


def test_training_benchmark_reports_learner_decisions_per_second():
    require("courtpiece")
    from benchmarks.training import measure

    row = measure("courtpiece", {}, iterations=3, envs=8, overlap=True, threads=1)
    assert row["learner decisions/s"] > 0 and row["decisions/s"] >= row["learner decisions/s"]
    assert 0 < row["collect s / wall s"] <= 1     # a share of the timed span
    mirror = measure("courtpiece", {}, iterations=3, envs=8, overlap=True, threads=1, opponents="mirror", epochs=1)
    assert mirror["learner decisions/s"] == mirror["decisions/s"] and mirror["opponents"] == "mirror"


@pytest.mark.parametrize("game", ["courtpiece", "lopti"])
def test_mirror_games_make_every_decision_a_sample_of_its_own_side(game):
    """Opponent MIRROR: the learner plays every seat, each side (a team, a LOPTI seat) is one trajectory
    credited with its own reward; the other games of the list keep their learner and opponent seats."""
    require(game)
    from agents.learned import build_model
    from agents.train import LocalCollector, TrainConfig, _weights, gae, side_ids

    cfg = TrainConfig(game=game, n_envs=6, hidden=16, layers=1, seed=3, workers=2, baseline=None)
    g_obs, g_act = (916, 60) if game == "courtpiece" else (309, 140)
    model = build_model(g_obs, g_act, 16, 1, "relu")
    data, ret, dec = LocalCollector(cfg).collect(_weights(model), ["mirror", None], 0, 11)
    sides = side_ids(game, 4)
    stride = sides.max() + 1
    games, side = data["game"] // stride, data["game"] % stride
    mirrored = games % 2 == 0                                   # global games 0, 2, 4 are MIRROR
    assert set(np.unique(games)) == set(range(6))
    assert set(np.unique(data["game"][mirrored])) == {b * stride + k for b in (0, 2, 4) for k in range(stride)}
    assert (side[~mirrored] == 0).all()                          # against random: one learner trajectory
    for b in (0, 2, 4):                                          # each side is paid once, at its last decision
        paid = [data["rew"][data["game"] == b * stride + k].sum() for k in range(stride)]
        assert np.isclose(paid[0], ret[b], atol=1e-5)
        if game == "courtpiece":
            assert np.isclose(paid[0], -paid[1], atol=1e-5)     # the teams' results cancel
    learner_moves = len(data["act"])
    assert learner_moves > dec / 2                                # half the games: every decision is the learner's
    adv, rets = gae(data, cfg.gamma, cfg.lam)
    assert np.isfinite(adv).all() and len(adv) == learner_moves


def test_the_curve_smooths_without_pulling_its_ends_to_zero():
    from agents.train import trailing_mean

    np.testing.assert_allclose(trailing_mean([2.0, 4.0, 6.0, 8.0], 2), [2.0, 3.0, 5.0, 7.0])
    np.testing.assert_allclose(trailing_mean([1.0, 1.0, 1.0], 5), [1.0, 1.0, 1.0])
