"""The Ray examples refuse bad arguments as the cardzoo command does: one line on stderr, exit status 2,
before Ray starts (a zero --workers used to start Ray and hang, a bad --variant to fail after it
started, with a traceback)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

BAD = {
    "ray_selfplay.py": [["--workers", "0"], ["--envs", "-1"], ["--iterations", "0"], ["--lr", "-1"],
                        ["--variant", "xyz"], ["--game", "lopti", "--variant", "double_sar"], ["--seed", "-1"]],
    "ray_throughput.py": [["--envs", "0"], ["--workers", "0"], ["--workers", "1", "-2"], ["--repeats", "0"],
                          ["--envs", "4", "--workers", "8"]],
}


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py") + "_example", EXAMPLES / name)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name, argv", [(n, a) for n, cases in BAD.items() for a in cases],
                         ids=[f"{n}:{' '.join(a)}" for n, cases in BAD.items() for a in cases])
def test_a_bad_argument_is_one_line_before_ray_starts(name, argv, capsys, monkeypatch):
    pytest.importorskip("torch")
    import agents.distributed

    def started(*a, **k):
        raise AssertionError("Ray was started")

    monkeypatch.setattr(agents.distributed, "init_ray", started)
    with pytest.raises(SystemExit) as e:
        _example(name).main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    lines = [line for line in err.splitlines() if not line.startswith("cardzoo: compiling ")]
    assert len(lines) == 1 and ": error: " in lines[0] and "Traceback" not in err, err
