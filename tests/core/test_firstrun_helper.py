"""The first-run compile helper (cardzoo.firstrun): what it compiles is exactly what a first env()
then loads from the cache, and it starts only when asked and useful."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cardzoo import firstrun

_CHECK = """
import json, random, sys
from numba.core import event
from cardzoo import firstrun
from cardzoo.registry import make

package, game = sys.argv[1], sys.argv[2]
firstrun.compile_ahead(package)                      # the helper's work, into the empty cache
listed = {d.py_func.__qualname__ for d, _ in firstrun.ahead_signatures(package)}
compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Listener())
env = make(game)
env.reset(seed=3)
rnd = random.Random(0)
for agent in env.agent_iter():
    obs, _, terminated, truncated, _ = env.last()
    env.step(None if terminated or truncated else firstrun._random_legal(obs["action_mask"], rnd))
print(json.dumps({"listed": sorted(listed), "compiled_again": sorted(listed & set(compiled)),
                  "compiled": len(compiled)}))
"""


@pytest.mark.parametrize("package,game", [("lopti_env", "lopti"), ("shengji_env", "shengji")])
def test_the_env_loads_what_the_helper_compiled(package, game, tmp_path):
    """From an empty cache: after the helper's compile_ahead, a first env() episode compiles its own
    kernels but none of the helper's again (a listed signature that differed from the env's would
    leave the env to compile that kernel itself)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", _CHECK, package, game], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(report["listed"]) >= 4
    assert report["compiled"] > 10                      # the env did compile from that empty cache
    assert report["compiled_again"] == []


def test_helper_starts_only_when_wanted(monkeypatch):
    assert firstrun.start_compile_helper("courtpiece_env") is None           # nothing listed for it
    monkeypatch.setenv("CARDZOO_COMPILE_HELPER", "0")
    assert firstrun.start_compile_helper("shengji_env") is None
    monkeypatch.setenv("CARDZOO_COMPILE_HELPER", "1")
    monkeypatch.setattr(firstrun.os, "cpu_count", lambda: 1)                  # no core to spare
    assert firstrun.start_compile_helper("shengji_env") is None
    monkeypatch.setattr(firstrun.os, "cpu_count", lambda: 4)
    started = []
    monkeypatch.setattr(firstrun.subprocess, "Popen", lambda cmd, **kw: started.append(cmd) or "proc")
    monkeypatch.setattr(firstrun.os, "getloadavg", lambda: (0.2, 0.0, 0.0))   # an old quiet minute ...
    monkeypatch.setattr(firstrun, "idle_cores", lambda: 1.1)                  # ... but busy now
    assert firstrun.start_compile_helper("shengji_env") is None
    monkeypatch.setattr(firstrun.os, "getloadavg", lambda: (3.5, 0.0, 0.0))   # a busy minute ...
    monkeypatch.setattr(firstrun, "idle_cores", lambda: 3.9)                  # ... over now
    assert firstrun.start_compile_helper("shengji_env") == "proc"
    assert started[0][1:] == ["-m", "cardzoo.firstrun", "shengji_env"]
    monkeypatch.setattr(firstrun, "idle_cores", lambda: None)                 # no /proc/stat: the load average
    assert firstrun.start_compile_helper("shengji_env") is None
    monkeypatch.setattr(firstrun.os, "getloadavg", lambda: (0.2, 0.0, 0.0))
    assert firstrun.start_compile_helper("shengji_env") == "proc"
    assert len(started) == 2


def test_idle_cores_reads_the_machine_now():
    """Linux: a share of the CPUs, from 0 to their count (the other test worker may be busy beside
    it, so not all of them); where /proc/stat is missing, None (the load average decides)."""
    idle = firstrun.idle_cores(0.05)
    if not os.path.exists("/proc/stat"):
        assert idle is None
        return
    assert 0.0 <= idle <= os.cpu_count() + 1e-9
