"""The `cardzoo` command line's own commands (agents' train/arena/play are tested in tests/agents)."""
import pytest

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
    assert len(rows) == 6 and all("failed" not in r for r in rows)


def test_unknown_arguments_are_refused():
    with pytest.raises(SystemExit):
        main(["demo", "--bogus"])
