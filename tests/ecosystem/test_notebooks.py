"""Execute every tutorial notebook in notebooks/ (nbclient + ipykernel), with the small budgets the
notebooks switch to when CARDZOO_NOTEBOOK_SMOKE=1. Skips when the Jupyter packages are absent."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("courtpiece_env")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
REQUIRES = {
    # notebook name -> modules it needs beyond the quickstart's
    "02_train_selfplay.ipynb": ["torch", "matplotlib", "agents.train"],
    "03_arena_ratings.ipynb": ["agents.arena"],
}


def test_notebooks_exist():
    assert NOTEBOOKS, "notebooks/ holds no .ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    for mod in REQUIRES.get(path.name, []):
        pytest.importorskip(mod)
    monkeypatch.setenv("CARDZOO_NOTEBOOK_SMOKE", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    repo = str(path.parents[1])
    monkeypatch.setenv("PYTHONPATH", repo + os.pathsep + os.environ.get("PYTHONPATH", ""))
    nb = nbformat.read(path, as_version=4)
    # per-cell limit only: a cold numba cache (fresh CI clone) compiles every game's kernels here, on 2
    # cores shared with the other xdist worker (and its Ray test's processes): 300 s was seen to run out
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    t = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - t
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    print(f"{path.name}: {elapsed:.1f}s")
