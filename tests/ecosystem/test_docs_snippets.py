"""Every ```python block of docs/ECOSYSTEM.md runs as pasted, with its training budgets shrunk.
A block whose imports are not installed is skipped; the RLlib block (it starts Ray) is slow."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "ECOSYSTEM.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S) if DOC.exists() else []
# the project's own packages: only third-party imports may skip a block
OWN_PACKAGES = {"cardzoo", "courtpiece_env", "lopti_env", "shengji_env", "agents", "benchmarks"}
# budgets of the snippets -> test budgets (each pattern must occur in some block)
SHRINK = [
    ("total_timesteps=20_000", "total_timesteps=256"),
    ("n_steps=512, batch_size=128", "n_steps=128, batch_size=64"),
    ("n_eval_episodes=50", "n_eval_episodes=2"),
    ("n_episode=8", "n_episode=2"),
    ("train_batch_size_per_learner=4000, minibatch_size=500, num_epochs=5",
     "train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1"),
    ("[256, 256]", "[32]"),
    (".env_runners(num_env_runners=1)", ".env_runners(num_env_runners=0)"),
    ("ray.init()", "ray.init(address='local', num_cpus=1, include_dashboard=False, log_to_driver=False, "
                   "_node_ip_address='127.0.0.1')"),
    ("for i in range(10):", "for i in range(1):"),
]


@pytest.fixture(autouse=True)
def _one_torch_thread():
    if importlib.util.find_spec("torch") is None:
        yield
        return
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)          # the CI machine has 2 cores shared by the xdist workers
    yield
    torch.set_num_threads(n)


def _modules(src: str) -> list[str]:
    mods = re.findall(r"^\s*(?:from|import)\s+([A-Za-z_][\w.]*)", src, re.M)
    return sorted({m for m in mods})


def test_doc_has_snippets_and_every_budget_is_found():
    assert len(BLOCKS) >= 6
    text = "\n".join(BLOCKS)
    for old, _ in SHRINK:
        assert old in text, old


@pytest.mark.parametrize("i", [pytest.param(i, marks=pytest.mark.slow) if "import ray" in b else i
                               for i, b in enumerate(BLOCKS)])   # the RLlib block starts Ray: slow
def test_snippet_runs(i, capsys, monkeypatch):
    src = BLOCKS[i]
    for mod in _modules(src):
        if mod.split(".")[0] in OWN_PACKAGES:
            importlib.import_module(mod)          # a documented import of ours that breaks fails, never skips
            continue
        try:
            importlib.import_module(mod)          # the whole dotted path: plain ray has no usable ray.rllib
        except ImportError as e:
            pytest.skip(f"{mod} is not importable ({e})")
    for old, new in SHRINK:
        src = src.replace(old, new)
    if "import ray" in src:
        monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    namespace: dict = {"__name__": f"ecosystem_snippet_{i}"}
    try:
        exec(compile(src, f"{DOC.name}[block {i}]", "exec"), namespace)
    finally:
        if "import ray" in src:
            import ray

            ray.shutdown()
