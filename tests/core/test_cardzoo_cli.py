"""The `cardzoo` command line's own commands (agents' train/arena/play are tested in tests/agents)."""
import io
import pathlib
import subprocess
import sys
import time

import pytest

from cardzoo import firstrun
from cardzoo.cli import main


def test_games_lists_every_game(capsys):
    assert main(["games"]) == 0
    assert capsys.readouterr().out.split() == ["courtpiece", "lopti", "shengji"]


@pytest.mark.parametrize("game", ["courtpiece", "lopti", "shengji"])
def test_demo_plays_one_full_game_and_prints_its_result(game, capsys):
    assert main(["demo", game, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    assert "decisions; result: {" in last
    assert int(last.split()[0]) > 0


def test_bench_measures_and_prints_a_table(capsys):
    assert main(["bench", "--games", "courtpiece", "--quick", "--budget", "0.05", "--no-peers"]) == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| cardzoo courtpiece")]
    assert len(rows) == 7 and all("failed" not in r for r in rows)
    assert sum("env(), env.last() every decision" in r for r in rows) == 1   # the full RL loop


def test_bench_rows_are_the_median_of_their_rounds():
    """Every measurement runs once per pass; its row takes the median of each rate over the rounds
    that ran, keeps the rest of the first, and reports an error only when every round failed."""
    from benchmarks.throughput import _median_round

    rounds = [{"decisions_per_s": 5.0, "loop": "full"}, {"error": "stall"}, {"decisions_per_s": 1.0, "loop": "full"},
              {"decisions_per_s": 2.0, "loop": "full"}]
    assert _median_round(rounds) == {"decisions_per_s": 2.0, "loop": "full"}
    assert _median_round([{"error": "a"}, {"error": "b"}]) == {"error": "a"}


def test_unknown_arguments_are_refused():
    with pytest.raises(SystemExit):
        main(["demo", "--bogus"])


def test_warmup_reports_seconds_per_game_and_is_fast_on_a_warm_cache(capsys):
    """In-process the first warmup compiles (or loads) Court Piece; a fresh process then loads every
    kernel from the disk cache: quick, and with no compile notice."""
    assert main(["warmup", "courtpiece"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[-1].startswith("courtpiece: ") and out.out.rstrip().endswith(" s")
    assert "3/3" in out.err                                      # the progress bar ran every stage
    root = pathlib.Path(__file__).resolve().parents[2]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cardzoo.cli", "warmup", "courtpiece"], cwd=root,
                          capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    assert "compiling" not in done.stderr
    reported = float(done.stdout.split()[-2])
    assert reported < 10 and wall < 30, (reported, wall)


def test_warmup_refuses_an_unknown_game(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["warmup", "bridge"])
    assert stop.value.code == 2 and "unknown game 'bridge'" in capsys.readouterr().err


def test_the_compile_notice_sees_a_cold_cache_and_speaks_once(tmp_path, monkeypatch):
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "__init__.py").write_text("")
    (tmp_path / "game" / "kernels.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef one():\n    return 1\n")
    assert firstrun.cache_is_cold("game", root=tmp_path)
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); from game.kernels import one; print(one())"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    assert not firstrun.cache_is_cold("game", root=tmp_path)    # compiled and cached: nothing to say

    monkeypatch.setattr(firstrun, "_announced", set())
    monkeypatch.setattr(firstrun, "cache_is_cold", lambda package: True)
    said = io.StringIO()
    assert firstrun.announce_compile("shengji_env", stream=said)
    assert not firstrun.announce_compile("shengji_env", stream=said)
    assert said.getvalue() == "cardzoo: compiling Sheng Ji kernels (first run only, about 20 seconds)...\n"
