"""The first run of a game: its kernels compile (seconds to minutes) before anything plays, and are
cached on disk for every later run. `announce_compile` says so on stderr, once per process and game,
when the game's compiled cache is really empty; `start_compile_helper` then compiles part of the
game's kernels in a second process on an idle core (numba compiles one function at a time, and the
first process finds what the helper cached); `warm_up_stages` lists what compiles a game's usual
paths ahead of time (the `cardzoo warmup` command).
"""
from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
import time

from cardzoo import _jit

# package -> (the game's name for people, how long its first compile takes on a typical machine)
COMPILE_NOTES = {
    "courtpiece_env": ("Court Piece", "about 10 seconds"),
    "lopti_env": ("LOPTI", "about 20 seconds"),
    "shengji_env": ("Sheng Ji", "about 20 seconds"),
}

_announced: set[str] = set()

#: package -> the module whose ``compile_ahead()`` lists, as (dispatcher, arguments) pairs (each
#: argument a sample value or a numba type), what the helper process compiles: kernels the first
#: env() compiles late (after its step kernel's own callees), at that env's argument types, so the
#: helper is done with them by then
AHEAD = {"lopti_env": "lopti_env.env", "shengji_env": "shengji_env.env"}


def cache_is_cold(package: str, root=_jit.ROOT) -> bool:
    """True when not one kernel file of the package has a compiled index (.nbi) in its cache
    directory: nothing of the game was ever compiled and cached here (or a source change cleared it,
    cardzoo._jit). False where the cache cannot be found or written: there is nothing to announce."""
    files = [p for p in _jit.package_sources(package, root) if b"cache=True" in p.read_bytes()]
    if not files:
        return False
    for path in files:
        where = _jit.cache_dir(path)
        if where is None:
            return False
        if where.is_dir() and any(where.glob(f"{path.stem}.*.nbi")):
            return False
    return True


def announce_compile(package: str, stream=None) -> bool:
    """Print one line on stderr (or `stream`) if the package's kernels are about to compile from an
    empty cache; at most once per process and package. Returns whether it printed."""
    if package in _announced or package not in COMPILE_NOTES:
        return False
    _announced.add(package)
    if not cache_is_cold(package):
        return False
    title, how_long = COMPILE_NOTES[package]
    print(f"cardzoo: compiling {title} kernels (first run only, {how_long})...",
          file=sys.stderr if stream is None else stream, flush=True)
    return True


def idle_cores(window: float = 0.1) -> float | None:
    """How many cores are idle now: the idle share of all CPU time over ``window`` seconds (Linux's
    /proc/stat; this process sleeps meanwhile) times the CPU count. None where it cannot be read."""
    def sample():
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]  # user .. steal (guest is inside user)
        return ticks[3] + ticks[4], sum(ticks)                     # idle + iowait, all
    try:
        idle0, total0 = sample()
        time.sleep(window)
        idle1, total1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    if total1 <= total0:
        return None
    return (idle1 - idle0) / (total1 - total0) * (os.cpu_count() or 1)


def start_compile_helper(package: str):
    """Start the package's compile-ahead helper (``python -m cardzoo.firstrun PACKAGE``, output
    discarded) when the machine has a core to spare: at least two CPUs, and, measured now while this
    process sleeps, one and a half cores idle (one for this process's compile, one for the helper's);
    where idleness cannot be measured, a 1-minute load average of at most the CPU count minus one. A
    busy machine (a test run, another compile) would only lose time to the helper. It is asked once,
    on a cold start (announce_compile), so the 0.1 s measurement is paid once. Set
    ``CARDZOO_COMPILE_HELPER=0`` to never start one. Returns the process, or None."""
    if package not in AHEAD or os.environ.get("CARDZOO_COMPILE_HELPER", "1") == "0":
        return None
    cpus = os.cpu_count() or 1
    if cpus < 2:
        return None
    idle = idle_cores()
    if idle is not None:
        spare = idle >= 1.5
    else:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = 0.0
        spare = load <= cpus - 1
    if not spare:
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", "cardzoo.firstrun", package], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _random_legal(mask, rnd: random.Random) -> int:
    legal = [i for i, ok in enumerate(mask) if ok]
    return legal[rnd.randrange(len(legal))]


def warm_up_stages(game: str) -> list:
    """What a game's env and BatchGame run, as (name, run) stages to compile (or load from the
    cache) ahead of time: one full env() episode (reset, step, mask, observe), then a BatchGame's
    reset, observe, legal_mask and step, then its rollout."""
    from cardzoo.registry import make, make_batch

    rnd = random.Random(0)
    batch = []

    def env_episode():
        env = make(game)
        env.reset(seed=0)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else _random_legal(obs["action_mask"], rnd))

    def batch_step():
        g = make_batch(game, 2)
        g.reset(seed=0)
        g.observe()
        g.step([_random_legal(row, rnd) if row.any() else 0 for row in g.legal_mask()])
        batch.append(g)

    def rollout():
        g = batch[0]
        g.reset(seed=1)
        g.rollout(seed=0)

    return [("env episode", env_episode), ("batch step", batch_step), ("rollout", rollout)]


def ahead_signatures(package: str) -> list:
    """The package's compile-ahead list as (dispatcher, signature) pairs."""
    from numba import typeof, types

    return [(dispatcher, tuple(a if isinstance(a, types.Type) else typeof(a) for a in args))
            for dispatcher, args in importlib.import_module(AHEAD[package]).compile_ahead()]


def compile_ahead(package: str) -> None:
    """Compile (or load from the cache) the kernels the package's env lists for the helper."""
    for dispatcher, signature in ahead_signatures(package):
        dispatcher.compile(signature)


if __name__ == "__main__":
    compile_ahead(sys.argv[1])
