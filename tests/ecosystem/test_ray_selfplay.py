"""examples/ray_selfplay.py: self-play rollouts on Ray actors, PPO on the driver, checkpoint in the
agents' format. Slow (starts a local Ray); skips without ray or torch."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("courtpiece_env")
pytest.importorskip("ray")
pytest.importorskip("torch")
pytest.importorskip("agents.train")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ray_selfplay.py"


def _example():
    spec = importlib.util.spec_from_file_location("ray_selfplay_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_merge_keeps_games_apart():
    ex = _example()
    part = {"obs": np.zeros((3, 2), np.float32), "mask": np.ones((3, 4), np.uint8), "act": np.zeros(3, np.int64),
            "logp": np.zeros(3, np.float32), "val": np.zeros(3, np.float32), "game": np.array([0, 1, 1]),
            "rew": np.zeros(3, np.float32)}
    data, ret, dec = ex.merge([(part, np.ones(2), 5), (part, np.zeros(2), 7)], n_envs=2)
    assert list(data["game"]) == [0, 1, 1, 2, 3, 3] and dec == 12 and len(ret) == 4
    seats = ex.learner_seats("courtpiece", 4, 4, 0)
    assert seats.sum(axis=1).tolist() == [2, 2, 2, 2] and seats[0, 0] and seats[1, 1]


@pytest.mark.slow
def test_ray_selfplay_trains_and_checkpoint_plays(tmp_path):
    from agents import make_agent
    from cardzoo.registry import make_batch

    ex = _example()
    out = tmp_path / "run"
    assert ex.main(["--workers", "2", "--envs", "8", "--iterations", "2", "--hidden", "32",
                    "--snapshot-every", "1", "--variant", "be_rang", "--out", str(out)]) == 0
    bot = make_agent(f"learned:{out / 'model.pt'}", "courtpiece", seed=0)
    g = make_batch("courtpiece", 8, variant="be_rang")
    g.reset(seed=0)
    masks = g.legal_mask()
    actions = bot.act_batch(g.observe(), masks)
    assert masks[np.arange(8), actions].all()
