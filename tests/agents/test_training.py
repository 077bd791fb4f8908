"""A <= 20-second PPO smoke run: it trains, logs, plots, saves a checkpoint that reloads with
torch.load(weights_only=True) to the same network, and the loss changes."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from tests.agents.conftest import require

torch = pytest.importorskip("torch")


def test_ppo_smoke_run_saves_reloads_and_learns(tmp_path):
    require("courtpiece")
    from agents import make_agent
    from agents.learned import LearnedAgent, load_checkpoint
    from agents.train import TrainConfig, train

    cfg = TrainConfig(game="courtpiece", seed=1, n_envs=16, hidden=32, max_iterations=3, epochs=2, minibatch=128,
                      snapshot_every=1, eval_every=2, eval_deals=8, distill_games=16, distill_epochs=1)
    res = train(cfg, tmp_path)
    losses = res["losses"]
    assert len(losses) == 3 and len(set(np.round(losses, 6))) > 1            # the loss moves
    rows = list(csv.DictReader(open(res["log"])))
    assert len(rows) == 3 and any(r["eval_vs_random"] != "" for r in rows)
    ev = next(r for r in rows if r["eval_vs_heuristic"] != "")
    assert 0 <= float(ev["eval_vs_heuristic_lo"]) <= float(ev["eval_vs_heuristic"]) <= float(ev["eval_vs_heuristic_hi"]) <= 1
    assert {r["opponent"] for r in rows} <= {f"{s}+heuristic" for s in ("random", "snapshot_1", "snapshot_2")}
    assert (tmp_path / "curve.png").stat().st_size > 1000
    ckpt = tmp_path / "model.pt"
    assert ckpt.stat().st_size < 3_000_000
    meta = json.loads((tmp_path / "model.json").read_text())
    assert meta["game"] == "courtpiece" and meta["seed"] == 1 and meta["iterations"] == 3
    assert meta["distilled"]["teacher"] == "heuristic" and meta["distilled"]["decisions"] > 16 * 13
    state = torch.load(ckpt, weights_only=True)
    assert "obs_scale" in state
    model, _ = load_checkpoint(ckpt)
    obs = torch.rand(5, meta["obs_size"])
    mask = torch.ones(5, meta["num_actions"], dtype=torch.int8)
    with torch.no_grad():
        assert torch.allclose(model(obs, mask)[0], res["model"](obs, mask)[0])
    # the reloaded agent plays legal moves through the arena's spec strings
    agent = make_agent(str(ckpt), "courtpiece", seed=0)
    assert isinstance(agent, LearnedAgent)
    from agents.arena import duplicate_match

    r = duplicate_match("courtpiece", agent, make_agent("random", "courtpiece", 1), deals=4, seed=0)
    assert r.deals == 4


@pytest.mark.parametrize("overlap", [True, False])
def test_training_is_seeded(tmp_path, overlap):
    """Same seed, same run: also when the next iteration is collected in a thread while this one learns."""
    require("courtpiece")
    from agents.train import TrainConfig, train

    cfg = TrainConfig(game="courtpiece", seed=7, n_envs=8, hidden=16, max_iterations=3, epochs=1, minibatch=64,
                      eval_every=0, distill_games=8, distill_epochs=1, distill_rounds=2, overlap=overlap)
    a = train(cfg, tmp_path / "a")
    b = train(cfg, tmp_path / "b")
    assert a["losses"] == b["losses"]
    sa = torch.load(tmp_path / "a" / "model.pt", weights_only=True)
    sb = torch.load(tmp_path / "b" / "model.pt", weights_only=True)
    assert all(torch.equal(sa[k], sb[k]) for k in sa)


def test_bad_checkpoint_is_rejected(tmp_path):
    from agents.learned import load_checkpoint

    with pytest.raises(ValueError):
        load_checkpoint(tmp_path / "missing.pt")


def test_shipped_checkpoints_load_and_play_legally():
    from pathlib import Path

    from agents import make_agent
    from cardzoo.registry import make_batch
    from tests.agents.conftest import game_available

    ckpts = sorted((Path(__file__).resolve().parents[2] / "agents" / "checkpoints").glob("*.pt"))
    for ckpt in ckpts:
        assert ckpt.stat().st_size < 5_000_000                               # a few MB at most
        game = json.loads(ckpt.with_suffix(".json").read_text())["game"]      # mendi_coat.pt plays courtpiece
        if not game_available(game):
            continue
        agent = make_agent(str(ckpt), game, seed=0)
        if agent.needs_env:             # a Sheng Ji residual policy reads legal_plays: one AEC game, every seat
            from agents.arena import play_aec, random_deal

            rewards, _ = play_aec(game, [agent] * 4, agent.meta["env_config"],
                                  random_deal(game, np.random.default_rng(1)), seed=1)
            assert np.isfinite(rewards).all() and rewards.sum() == pytest.approx(0.0)
            continue
        g = make_batch(game, 8, **agent.meta["env_config"])
        g.reset(seed=1)
        for _ in range(20):
            live = ~g.done
            if not live.any():
                break
            acts = agent.act_batch(g.observe(), g.legal_mask())
            g.step(np.where(live, acts, 0))


def test_a_minutes_budget_holds_distillation_to_half_and_ppo_runs_at_least_once(tmp_path):
    """--minutes covers distillation: past half the budget no further DAgger round starts,
    and PPO runs at least one iteration, so every run leaves a log row, a curve and a checkpoint."""
    from agents.train import TrainConfig, train

    cfg = TrainConfig(game="courtpiece", seed=2, n_envs=8, hidden=16, minutes=0.001, epochs=1, minibatch=64,
                      eval_every=0, distill_games=8, distill_epochs=3, distill_rounds=4)
    res = train(cfg, tmp_path)
    meta = json.loads((tmp_path / "model.json").read_text())
    assert meta["distilled"]["rounds"] == 1 and meta["distilled"]["epochs"] == 3
    assert res["iterations"] == 1 and len(list(csv.DictReader(open(res["log"])))) == 1
