"""cardzoo.cards.source_stamp: the cache key of kernels that compile in other files' kernels
(numba's on-disk cache checks a function's own file only)."""
import importlib
import importlib.util

from cardzoo.cards import source_stamp


def _module(path, name, text):
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_stamp_follows_every_source_file(tmp_path):
    a = _module(tmp_path / "a.py", "stamp_a", "X = 1\n")
    b = _module(tmp_path / "b.py", "stamp_b", "Y = 2\n")
    before = source_stamp(a, b)
    assert before == source_stamp(a, b) and 0 <= before < 1 << 56
    assert source_stamp(a) != before
    (tmp_path / "b.py").write_text("Y = 3\n")
    assert source_stamp(a, b) != before


def test_cross_file_env_kernels_carry_the_stamp_of_their_sources():
    """Each env.py kernel that calls its game's kernels.py holds that stamp as its only closure
    constant, so an edit of kernels.py (or state, config, cards) selects a fresh compile."""
    cp, lo, sj = (importlib.import_module(f"{game}_env.env") for game in ("courtpiece", "lopti", "shengji"))

    for kernel, stamp in [(cp.aec_step, cp._kernel_source_stamp()), (lo.aec_step, lo._kernel_source_stamp()),
                          (sj._start_rows, sj._kernel_source_stamp()), (sj._play_rows, sj._kernel_source_stamp())]:
        assert [c.cell_contents for c in kernel.py_func.__closure__] == [stamp]
