"""Every bad `cardzoo` argument is one line on stderr and a non-zero exit, never a traceback and
never a run (cardzoo/cli.py: argparse's type= checks, and the library's ValueError turned into the
same line in one place)."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from cardzoo.cli import main

ROOT = Path(__file__).resolve().parents[2]
LOPTI_CHECKPOINT = str(ROOT / "agents" / "checkpoints" / "lopti.pt")
MENDI_CHECKPOINT = str(ROOT / "agents" / "checkpoints" / "mendi_coat.pt")
ARENA = ["arena", "courtpiece", "random", "random", "--deals", "2"]

NONSENSE = {
    "unknown game": ["demo", "nogame"],
    "demo bad variant": ["demo", "courtpiece", "--variant", "x"],
    "negative seed": ["demo", "courtpiece", "--seed", "-1"],
    "unknown flag": ["demo", "--bogus"],
    "arena unknown agent": ["arena", "courtpiece", "random", "bogus"],
    "arena one agent": ["arena", "courtpiece", "random"],
    "arena unknown game": ["arena", "nogame", "random", "random"],
    "negative deals": ARENA[:4] + ["--deals", "-5"],
    "zero deals": ARENA[:4] + ["--deals", "0"],
    "fractional deals": ARENA[:4] + ["--deals", "1.5"],
    "unknown option": ARENA + ["--set", "foo=1"],
    "set without value": ARENA + ["--set", "novalue"],
    "bad option value": ARENA + ["--set", "change_cards=maybe"],
    "bad variant": ARENA + ["--variant", "x"],
    "option given twice": ARENA + ["--set", "change_cards=true", "--set", "change_cards=false"],
    "variant given twice": ARENA + ["--variant", "be_rang", "--set", "variant=single_sar"],
    "learned without path": ["arena", "courtpiece", "random", "learned:"],
    "missing checkpoint": ["arena", "courtpiece", "random", "learned:/nonexistent/model.pt"],
    "wrong-game checkpoint": ["arena", "courtpiece", "random", f"learned:{LOPTI_CHECKPOINT}"],
    "train negative minutes": ["train", "courtpiece", "--minutes", "-1"],
    "train nan minutes": ["train", "courtpiece", "--minutes", "nan"],
    "train zero envs": ["train", "courtpiece", "--envs", "0"],
    "train zero hidden": ["train", "courtpiece", "--hidden", "0"],
    "train negative lr": ["train", "courtpiece", "--lr", "-1"],
    "train zero threads": ["train", "courtpiece", "--threads", "0"],
    "train ensemble too large": ["train", "courtpiece", "--algo", "residual", "--ensemble", "100"],
    "train seed past the derived seeds' range": ["train", "courtpiece", "--seed", "10000000000000"],
    "train residual with iterations": ["train", "courtpiece", "--algo", "residual", "--iterations", "2"],
    "train ppo with an ensemble": ["train", "courtpiece", "--ensemble", "3"],
    "train zero iterations": ["train", "courtpiece", "--iterations", "0"],
    "train more workers than envs": ["train", "courtpiece", "--envs", "4", "--workers", "8"],
    # an option of the other --algo would be dropped without a word: a PPO run that ignores the
    # checkpoint it was told to distil from, or a residual run that ignores its learning rate
    "train ppo distilling a checkpoint": ["train", "courtpiece", "--distill-from", MENDI_CHECKPOINT],
    "train ppo with labels": ["train", "courtpiece", "--label-against", "heuristic", "--keep-labels"],
    "train ppo with a search": ["train", "lopti", "--search", "samples=4"],
    "train ppo with layers": ["train", "shengji", "--layers", "3"],
    "train residual with a learning rate": ["train", "courtpiece", "--algo", "residual", "--lr", "0.01"],
    "train residual with opponents": ["train", "courtpiece", "--algo", "residual", "--opponents", "random"],
    "train residual on ray": ["train", "courtpiece", "--algo", "residual", "--ray"],
    "train residual with a teacher": ["train", "lopti", "--algo", "residual", "--teacher", "none"],
    "train out is a file": ["train", "courtpiece", "--out", str(ROOT / "README.md")],
    "train residual out is a file": ["train", "lopti", "--algo", "residual", "--out", str(ROOT / "README.md")],
    "train out under a file": ["train", "shengji", "--out", str(ROOT / "README.md" / "run")],
    "bench unknown game": ["bench", "--games", "nogame"],
    "bench negative budget": ["bench", "--budget", "-1"],
    "bench zero budget": ["bench", "--budget", "0"],
    "arena unknown search option": ["arena", "courtpiece", "random", "pimc:bogus=1"],
    "arena search option not a number": ["arena", "courtpiece", "random", "pimc:samples=abc"],
    "arena search option a fraction": ["arena", "lopti", "random", "pimc:samples=1.5"],
    "arena seed as an agent option": ["arena", "shengji", "random", "pimc:seed=3"],
    "arena learned option of the wrong type": ["arena", "courtpiece", "random",
                                               f"learned:{ROOT}/agents/checkpoints/courtpiece.pt,margin=x"],
    "serve port out of range": ["serve", "--port", "99999"],
    "arena batch engine with time limits": ARENA + ["--engine", "batch", "--time-limits"],
    # only Court Piece has timeout rules (CP-12): elsewhere the flag did nothing but slow the match down
    "arena time limits in lopti": ["arena", "lopti", "random", "random", "--deals", "1", "--time-limits"],
    "arena time limits in shengji": ["arena", "shengji", "random", "random", "--deals", "1", "--time-limits"],
    "checkpoint of another variant": ["arena", "courtpiece", "random", f"learned:{MENDI_CHECKPOINT}"],
    "checkpoint of another player count": ["arena", "lopti", "--set", "num_players=3", "random",
                                           f"learned:{LOPTI_CHECKPOINT}"],
    "play unknown opponent": ["play", "courtpiece", "--opponents", "bogus"],
    "play seat out of range": ["play", "courtpiece", "--seat", "9"],
}


def _error_lines(err: str) -> list[str]:
    """stderr without the first-run notice (cardzoo.firstrun), which an empty numba cache adds."""
    return [line for line in err.splitlines() if not line.startswith("cardzoo: compiling ")]


def _refused(argv, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    out, err = capsys.readouterr()
    assert e.value.code not in (0, None), f"exit status {e.value.code!r}"
    lines = _error_lines(err)
    assert len(lines) == 1, err
    assert lines[0].startswith("cardzoo") and ": error: " in lines[0] and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("argv", NONSENSE.values(), ids=NONSENSE.keys())
def test_nonsense_is_one_line_on_stderr_and_a_nonzero_exit(argv, capsys, monkeypatch):
    if argv[0] == "train" or "learned:" in " ".join(argv):
        pytest.importorskip("torch")
        _no_training(monkeypatch)
    _refused(argv, capsys)


def _no_training(monkeypatch) -> None:
    """Refused means refused before any training starts: a run that starts fails the test at once."""
    import agents.residual
    import agents.train

    def started(*a, **k):
        raise AssertionError("a training run started")

    monkeypatch.setattr(agents.train, "train", started)
    monkeypatch.setattr(agents.residual, "train_residual", started)


def test_the_line_names_the_problem(capsys, monkeypatch):
    pytest.importorskip("torch")
    _no_training(monkeypatch)
    assert "'foo'" in _refused(ARENA + ["--set", "foo=1"], capsys)
    assert "--deals" in _refused(ARENA[:4] + ["--deals", "-5"], capsys)
    assert "'bogus'" in _refused(["arena", "courtpiece", "random", "bogus"], capsys)
    assert "--set change_cards given twice (True and False)" in _refused(
        ARENA + ["--set", "change_cards=true", "--set", "change_cards=false"], capsys)
    assert "--variant be_rang and --set variant=single_sar" in _refused(
        ARENA + ["--variant", "be_rang", "--set", "variant=single_sar"], capsys)
    assert "nogame" in _refused(["demo", "nogame"], capsys)
    assert "unknown agent option 'bogus'" in _refused(["arena", "courtpiece", "random", "pimc:bogus=1"], capsys)
    assert "samples='1.5' must be an integer" in _refused(["arena", "lopti", "random", "pimc:samples=1.5"], capsys)
    assert "trained on courtpiece with {'variant': 'mendi_coat'}, not with the default options" in _refused(
        ["arena", "courtpiece", "random", f"learned:{MENDI_CHECKPOINT}"], capsys)
    assert "--distill-from, --layers are for --algo residual" in _refused(
        ["train", "courtpiece", "--layers", "3", "--distill-from", MENDI_CHECKPOINT], capsys)
    assert "--envs, --lr are for --algo ppo" in _refused(
        ["train", "courtpiece", "--algo", "residual", "--envs", "64", "--lr", "0.01"], capsys)


def test_play_without_stdin_ends_with_a_clean_message(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    line = _refused(["play", "courtpiece", "--seat", "0"], capsys)
    assert "stdin" in line


def test_the_installed_entry_point_refuses_the_same_way():
    """The real process: `python -m cardzoo.cli` with no stdin, as a shell user runs it."""
    for argv in (["arena", "courtpiece", "random", "random", "--deals", "-5"], ["play", "courtpiece"]):
        p = subprocess.run([sys.executable, "-m", "cardzoo.cli", *argv], cwd=ROOT, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 2, p.stderr
        assert len(_error_lines(p.stderr)) == 1 and "Traceback" not in p.stderr, p.stderr


def test_serve_on_a_port_in_use_is_one_line(capsys):
    """The socket is bound before anything is announced, so a taken address is the one-line error."""
    pytest.importorskip("uvicorn")
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = _refused(["serve", "--port", str(port)], capsys)
    assert f"cannot listen on 127.0.0.1:{port}" in line


@pytest.mark.parametrize("argv, message", [
    (["--deals", "0"], "--deals: '0' must be an integer >= 1"), (["--seed", "-1"], "--seed: '-1' must be"),
    (["--chunk", "-1"], "--chunk: '-1' must be"), (["--pimc", "bogus"], "--pimc 'bogus': unknown agent"),
])
def test_strength_benchmark_refuses_bad_arguments_before_playing(argv, message, capsys):
    from benchmarks import strength

    with pytest.raises(SystemExit) as e:
        strength.main(argv + ["--no-learned"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err and "Traceback" not in err
