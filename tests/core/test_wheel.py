"""The wheel a user installs: built from this checkout, installed (not editable) into a fresh venv
that has the runtime dependencies and nothing else (no torch, no peers, no cardzoo checkout on the
path), then used from a folder outside the checkout: every env plays a game, `cardzoo demo` and
`cardzoo bench --quick` run. Offline: the build uses the running environment's setuptools and the
fresh venv sees the running environment's copies of the runtime dependencies only.

Marked `wheel` (it compiles the games' kernels cold: ~2 CPU-minutes); CI runs it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest

try:
    from packaging.requirements import Requirement
except ImportError:  # pip always carries a copy
    from pip._vendor.packaging.requirements import Requirement

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "runs", "*.egg-info", "__pycache__",
                              ".pytest_cache", ".hypothesis", "*.nbi", "*.nbc")

PLAY_EVERY_ENV = r"""
import importlib.util, sys
import numpy as np
import cardzoo, courtpiece_env, lopti_env, shengji_env, agents, benchmarks
for mod in (cardzoo, courtpiece_env, lopti_env, shengji_env, agents, benchmarks):
    assert "site-packages" in mod.__file__, mod.__file__
assert importlib.util.find_spec("torch") is None, "torch must not be installed here"
for game, config in [("courtpiece", {"variant": "double_sar"}), ("lopti", {"num_players": 3}),
                     ("shengji", {"decks": 1})]:
    env = cardzoo.make(game, **config)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            result = info["result"]
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    print(game, steps, "decisions", result)
"""


def _wheel_requirements(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(z.read(name).decode()).get_all("Requires-Dist") or []


def _runtime_requirements(wheel: Path) -> list[str]:
    """Distribution names the wheel needs at run time (no extras), with their own requirements,
    transitively."""
    def names(reqs):
        for text in reqs or []:
            r = Requirement(text)
            if r.marker is None or r.marker.evaluate({"extra": ""}):
                yield r.name

    todo = list(names(_wheel_requirements(wheel)))
    seen = []
    while todo:
        name = todo.pop()
        if name.lower() in (s.lower() for s in seen):
            continue
        seen.append(name)
        todo += list(names(metadata.requires(name)))
    return seen


def _link_dependencies(wheel: Path, target: Path) -> None:
    """Symlink the running environment's copies of the wheel's runtime dependencies (their
    top-level packages and dist-info) into `target`."""
    target.mkdir()
    for name in _runtime_requirements(wheel):
        dist = metadata.distribution(name)
        base = Path(dist.locate_file(""))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            src = base / top
            if src.exists() and not (target / top).exists() and top != "__pycache__" and not top.endswith(".pth"):
                (target / top).symlink_to(src)


def _run(cmd, cwd, env, timeout=900):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{cmd}\nstdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}"
    return p.stdout


def test_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=SKIP)
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", str(dist), str(src)], tmp_path, None)
    (wheel,) = dist.glob("cardzoo-*.whl")

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, None)
    py = venv / "bin" / "python"
    purelib = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        tmp_path, None).strip())
    _link_dependencies(wheel, tmp_path / "deps")
    (purelib / "runtime_deps.pth").write_text(str(tmp_path / "deps") + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q", str(wheel)],
         tmp_path, None)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    # the dependency bounds accept the versions this suite runs with
    _run([sys.executable, "-m", "pip", "--python", str(py), "check"], outside, env)
    played = _run([str(py), "-c", PLAY_EVERY_ENV], outside, env)
    assert [line.split()[0] for line in played.splitlines()] == ["courtpiece", "lopti", "shengji"]

    cli = str(venv / "bin" / "cardzoo")
    assert "decisions; result: {" in _run([cli, "demo", "courtpiece", "--seed", "2"], outside, env)
    # one game: the others' rollout kernels would only add compile time to what the envs above showed
    bench = _run([cli, "bench", "--quick", "--budget", "0.1", "--games", "courtpiece"], outside, env)
    rows = [r for r in bench.splitlines() if r.startswith("| ")]
    assert any(r.startswith("| limit probe | B=4096 |") for r in rows)
    assert sum(r.startswith("| cardzoo courtpiece ") for r in rows) == 7, bench
    assert not any("failed" in r for r in rows), bench
    assert "OpenSpiel skipped: not installed" in bench and "rlcard not installed" in bench
