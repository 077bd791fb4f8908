"""cardzoo._jit.check_sources: a kernel package's numba cache is cleared when its sources, or those
of a package it compiles in, change -- numba itself checks only a function's own file."""
import pathlib
import subprocess
import sys
import textwrap

from cardzoo import _jit

KERNEL = textwrap.dedent("""
    from numba import njit
    from core.helpers import BONUS

    @njit(cache=True)
    def score(x):
        return x + BONUS
""")


def _tree(root: pathlib.Path, bonus: int):
    (root / "core").mkdir(exist_ok=True)
    (root / "game").mkdir(exist_ok=True)
    (root / "core" / "__init__.py").write_text("import numba  # noqa: F401\n")
    (root / "core" / "helpers.py").write_text(f"import numba  # noqa: F401\nBONUS = {bonus}\n")
    (root / "game" / "__init__.py").write_text("")
    (root / "game" / "kernels.py").write_text(KERNEL)


def _run(root: pathlib.Path) -> str:
    """A fresh process: check the sources, then run the cached kernel."""
    code = textwrap.dedent(f"""
        import pathlib, sys
        sys.path.insert(0, {str(root)!r})
        from cardzoo import _jit
        cleared = _jit.check_sources(pathlib.Path({str(root)!r}), ("core", "game"), {{"game": ("core",)}})
        from game.kernels import score
        print(",".join(cleared), score(1))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_a_change_in_a_dependency_clears_the_dependent_cache(tmp_path):
    _tree(tmp_path, bonus=10)
    assert _run(tmp_path) == "core,game 11"
    assert _run(tmp_path) == "11"                       # nothing changed: the cache is kept
    assert list((tmp_path / "game" / "__pycache__").glob("kernels.score-*.nbi"))
    _tree(tmp_path, bonus=20)                           # only core changed; game/kernels.py did not
    assert _run(tmp_path) == "core,game 21"             # numba alone would have printed 11


def test_the_project_packages_are_stamped_on_import():
    import cardzoo  # noqa: F401  (runs check_sources)

    files = _jit.package_sources("cardzoo")
    assert {p.name for p in files} >= {"cards.py", "batch.py", "fastpath.py", "nprandom.py"}
    assert "cli.py" not in {p.name for p in files}      # the command line compiles nothing
    home = _jit.cache_dir(_jit.ROOT / "cardzoo" / "__init__.py")
    for pkg in _jit.KERNEL_PACKAGES:
        stamp = home / f"{_jit.STAMP_NAME}-{pkg}.sha256"
        assert stamp.read_text().strip() == _jit.sources_digest(_jit.package_sources(pkg))
    assert _jit.check_sources() == []


def _plus_one(x):
    return x + 1


def test_kernel_calls_compile_one_version_per_plain_types():
    """cardzoo._jit.plain_scalar_calls: a kernel called from kernels with the constants 2 and 3 and an
    int32 compiles once, for int64 (numba alone compiles Literal[int](2), Literal[int](3) and int32),
    and returns the same values; an unsigned argument keeps its type."""
    import numpy as np
    from numba import njit, types

    import cardzoo  # noqa: F401  (installs plain_scalar_calls)

    _plus_one.__module__ = "lopti_env._plain_calls_probe"   # a kernel package's function
    helper = njit(_plus_one)

    @njit
    def caller(y):
        return helper(2) + helper(3) + helper(np.int32(y))

    assert caller(5) == 3 + 4 + 6
    assert helper.signatures == [(types.int64,)]

    @njit
    def caller_unsigned(y):
        return helper(np.uint64(y))

    assert caller_unsigned(7) == 8
    assert (types.uint64,) in helper.signatures


def test_fast_target_config_keeps_numba_flag_semantics():
    """cardzoo._jit.fast_target_config: numba's flags give the same option values, hash and equality
    as numba's own definitions (one property per option), for defaults, set options and an option set
    to its default explicitly."""
    from numba.core.compiler import Flags

    import cardzoo  # noqa: F401  (installs fast_target_config)

    def numba_values(f):
        return {k: getattr(f, k) for k in f.options}

    plain, nogil, nogil2, explicit_default = Flags(), Flags(), Flags(), Flags()
    nogil.release_gil = True
    nogil2.release_gil = True
    explicit_default.release_gil = False
    for f in (plain, nogil, explicit_default):
        assert f.values() == numba_values(f)
        assert hash(f) == hash(tuple(sorted(numba_values(f))))
    assert nogil.values()["release_gil"] is True and plain.values()["release_gil"] is False
    assert nogil == nogil2 and plain == explicit_default
    assert nogil != plain and plain != nogil
    assert {(1, nogil): "a"}[(1, nogil2)] == "a"
