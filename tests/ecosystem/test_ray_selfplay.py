"""examples/ray_selfplay.py: agents.train on Ray actors from Python (its own Ray start, a collector
handed to the trainer), checkpoint in the agents' format. Slow (starts a local Ray: the CI's Ray
check is tests/ecosystem/test_ray_train.py); skips without ray or torch."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("courtpiece_env")
pytest.importorskip("ray", reason='ray is not installed (pip install "cardzoo[ray]")')
pytest.importorskip("torch")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ray_selfplay.py"


def _example():
    spec = importlib.util.spec_from_file_location("ray_selfplay_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_ray_selfplay_trains_and_checkpoint_plays(tmp_path, capsys):
    from agents import make_agent
    from cardzoo.registry import make_batch

    ex = _example()
    out = tmp_path / "run"
    assert ex.main(["--workers", "2", "--envs", "4", "--iterations", "2", "--hidden", "32",
                    "--snapshot-every", "1", "--variant", "be_rang", "--out", str(out)]) == 0
    assert "iter 2: vs" in capsys.readouterr().out
    bot = make_agent(f"learned:{out / 'model.pt'}", "courtpiece", seed=0)
    g = make_batch("courtpiece", 8, variant="be_rang")
    g.reset(seed=0)
    masks = g.legal_mask()
    actions = bot.act_batch(g.observe(), masks)
    assert masks[np.arange(8), actions].all()
