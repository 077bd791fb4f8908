"""numba's on-disk cache, made safe for kernels that span files.

numba keys a cached function on the content of its own source file only. A kernel that calls (and so
compiles in) a kernel of another file would keep running a stale copy of it after that file changed.
`check_sources` closes the gap once for the whole project: it hashes the sources of each kernel
package, and when a hash differs from the one recorded beside the cache, it removes the cached machine
code of that package and of every package that compiles it in, before any of them is loaded. Kernels
can then be split across modules freely, and a stale cache can never run.

`plain_scalar_calls` cuts what compiles on a first run: numba compiles a kernel once per distinct
argument types at each call from another kernel, and types a constant argument by its value
(`Literal[int](2)`) and a narrow integer by its width, so one helper called as `f(g, 2)`, `f(g, 3)`
and `f(g, i32)` compiled three times.

`fast_target_config` cuts the compiler's own bookkeeping on a first run: numba compares its flag
objects at every typed call of an `@overload` function, each time through one property per option.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Where compiled code comes from, in import order: each package's kernels may compile in those of the
# packages before it, so a change in one clears its own cache and those of the packages after it.
# A game package and agents count whole (their constant tables are compiled in as globals); of the
# core only the modules that hold kernels count, so editing the command line recompiles nothing.
KERNEL_PACKAGES = ("cardzoo", "courtpiece_env", "lopti_env", "shengji_env", "agents")
DEPENDS_ON = {"cardzoo": (), "courtpiece_env": ("cardzoo",), "lopti_env": ("cardzoo",),
              "shengji_env": ("cardzoo",), "agents": ("cardzoo", "courtpiece_env", "lopti_env", "shengji_env")}

STAMP_NAME = "cardzoo-kernel-sources"

#: numba options of a kernel that hands arrays to many helper calls in its hot loop and allocates
#: nothing: without them every such call increments and decrements each array's reference count
#: (atomically), which in Court Piece's observation encoder cost ten times the encoding itself.
#: The helpers it calls are compiled under the same options, so they must not allocate either.
NO_REFCOUNT = {"_nrt": False}


def package_sources(package: str, root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    """The .py files of one kernel package under root, sorted (the hash's order)."""
    base = root / package
    if not base.is_dir():
        return []
    files = sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)
    if package == "cardzoo":
        files = [p for p in files if p.parent == base and b"numba" in p.read_bytes()]
    return files


def sources_digest(files, root: pathlib.Path = ROOT) -> str:
    h = hashlib.sha256()
    for path in files:
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


class _Anchor:
    """Stands in for a function when asking numba's cache locators where a file's cache lives."""

    class __code__:  # noqa: N801 - the attribute numba's locators read
        co_firstlineno = 0


def cache_dir(py_file: pathlib.Path) -> pathlib.Path | None:
    """The directory numba caches py_file's functions in (its own locator rules: NUMBA_CACHE_DIR,
    the in-tree __pycache__, the user-wide cache), or None where numba could not cache them."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.68
    for cls in impl._locator_classes:
        try:
            locator = cls.from_function(_Anchor, str(py_file))
        except Exception:  # a locator that does not apply to plain files (IPython, zip)
            continue
        if locator is not None:
            return pathlib.Path(locator.get_cache_path())
    return None


def clear_cache(files) -> int:
    """Remove the cached machine code (index .nbi and data .nbc) of every function of files."""
    removed = 0
    for path in files:
        where = cache_dir(path)
        if where is None or not where.is_dir():
            continue
        for cached in where.glob(f"{path.stem}.*.nb[ic]"):
            with contextlib.suppress(FileNotFoundError):
                cached.unlink()
                removed += 1
    return removed


@contextlib.contextmanager
def _locked(directory: pathlib.Path):
    """An exclusive lock over directory (processes importing at once, e.g. pytest-xdist workers)."""
    lock = open(directory / (STAMP_NAME + ".lock"), "a")
    try:
        if sys.platform != "win32":
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        lock.close()


def check_sources(root: pathlib.Path = ROOT, packages=KERNEL_PACKAGES, depends_on=DEPENDS_ON) -> list[str]:
    """Clear the numba cache of every kernel package whose sources, or whose dependencies' sources,
    changed since it was written. Returns the packages cleared. Called once, when cardzoo is
    imported, before any kernel module loads."""
    sources = {pkg: package_sources(pkg, root) for pkg in packages}
    home = cache_dir(root / packages[0] / "__init__.py") if sources[packages[0]] else None
    if home is None:
        return []
    cleared: list[str] = []
    try:
        home.mkdir(parents=True, exist_ok=True)
        with _locked(home):
            changed = set()
            for pkg in packages:
                if not sources[pkg]:
                    continue
                stamp = home / f"{STAMP_NAME}-{pkg}.sha256"
                digest = sources_digest(sources[pkg], root)
                if not stamp.exists() or stamp.read_text().strip() != digest:
                    changed.add(pkg)
                    tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
                    tmp.write_text(digest + "\n")
                    tmp.replace(stamp)
            for pkg in packages:
                if pkg in changed or changed.intersection(depends_on.get(pkg, ())):
                    clear_cache(sources[pkg])
                    cleared.append(pkg)
    except OSError:  # a read-only install: numba cannot write a cache there either
        return []
    return cleared


def _plain(t):
    from numba.core import types

    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64
    return t


def plain_scalar_calls(packages=KERNEL_PACKAGES) -> None:
    """Make a call from one kernel into a kernel of these packages compile, and reuse, one version
    per plain argument types: a constant is typed as its type, not its value, and a signed integer
    narrower than 64 bits as int64 (values are unchanged; unsigned bit sets, bools and arrays keep
    their types). Idempotent; calls from Python are untouched (numba already drops their literals)."""
    from numba.core.dispatcher import Dispatcher

    if getattr(Dispatcher.get_call_template, "_cardzoo_plain", False):
        return
    original, ours = Dispatcher.get_call_template, tuple(packages)

    def get_call_template(self, args, kws):
        if self.py_func.__module__.split(".")[0] in ours:
            args = tuple(_plain(a) for a in args)
            kws = {k: _plain(v) for k, v in kws.items()}
        return original(self, args, kws)

    get_call_template._cardzoo_plain = True
    Dispatcher.get_call_template = get_call_template


def fast_target_config() -> None:
    """Make numba's compiler-flag objects cheap to hash and compare, which a first run does hundreds
    of thousands of times (every typed call of an `@overload` function looks up a cache keyed on the
    flags). numba builds the full option dict through one property per option for each hash and each
    comparison; this computes the same values straight from the set options and the defaults, and
    answers equal at once when the set options are the same. Results are unchanged; a numba without
    these internals is left as it is. Idempotent."""
    try:
        from numba.core.targetconfig import TargetConfig
    except ImportError:
        return
    if getattr(TargetConfig.values, "_cardzoo_fast", False) or not hasattr(TargetConfig, "options"):
        return
    original_eq = TargetConfig.__eq__

    def values(self):
        got = self._values
        return {k: got.get(k, option.default) for k, option in self.options.items()}

    def __hash__(self):  # numba hashes the sorted option names: a constant per class
        return hash(tuple(sorted(self.options)))

    def __eq__(self, other):
        if type(self) is type(other) and self._values == other._values:
            return True
        return original_eq(self, other)

    values._cardzoo_fast = True
    TargetConfig.values = values
    TargetConfig.__hash__ = __hash__
    TargetConfig.__eq__ = __eq__
