"""`cardzoo arena | play | train` as registered by agents/cli.py into cardzoo's parser."""
from __future__ import annotations

import json
import re

import pytest

from cardzoo.cli import build_parser, main
from tests.agents.conftest import require


def test_agents_commands_are_registered():
    parser = build_parser()
    for cmd in ("train", "arena", "play"):
        args = parser.parse_args([cmd, "courtpiece"] + (["random", "random"] if cmd == "arena" else []))
        assert callable(args.func)


def test_arena_prints_a_summary_table(capsys):
    require("courtpiece")
    assert main(["arena", "courtpiece", "heuristic", "random", "--deals", "4", "--variant", "be_rang"]) == 0
    out = capsys.readouterr().out
    assert "win rate A" in out and "heuristic" in out and "games played: 8" in out


def test_arena_with_three_agents_prints_ratings(capsys):
    require("courtpiece")
    assert main(["arena", "courtpiece", "heuristic", "random", "greedy", "--deals", "3"]) == 0
    out = capsys.readouterr().out
    assert "ordinal" in out and out.count("courtpiece") >= 3


@pytest.mark.parametrize("game,extra", [("courtpiece", ["--variant", "mendi_coat"]), ("lopti", ["--set", "num_players=2"]),
                                        ("shengji", ["--set", "decks=1"])])
def test_play_auto_runs_a_whole_game(game, extra, capsys):
    require(game)
    assert main(["play", game, "--auto", "--seed", "3"] + extra) == 0
    out = capsys.readouterr().out
    assert "rewards:" in out and "\nGame over\n" in out     # the result in words follows (as on the web table)
    assert {"courtpiece": "  Bazi: team ", "lopti": "  player_0: ", "shengji": "  Outcome: team "}[game] in out


def test_play_human_reads_moves_from_stdin(monkeypatch, capsys):
    require("courtpiece")
    answers = iter(["not a move", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", "courtpiece", "--seat", "1", "--seed", "0"]) == 0
    assert "legal:" in capsys.readouterr().out


def test_train_command_writes_checkpoint_log_and_curve(tmp_path, capsys):
    require("courtpiece")
    pytest.importorskip("torch")
    out = tmp_path / "run"
    assert main(["train", "courtpiece", "--iterations", "2", "--envs", "8", "--hidden", "16", "--distill-games", "8",
                 "--distill-rounds", "2", "--eval-deals", "2", "--out", str(out)]) == 0
    assert (out / "model.pt").exists() and (out / "model.json").exists() and (out / "log.csv").exists()
    assert "decisions/s" in capsys.readouterr().out
    card = (out / "model_card.md").read_text()     # the model card: how to reproduce it, what it cost, its arena
    assert "cardzoo train courtpiece --iterations 2" in card and "distilled from `heuristic`: 2 rounds" in card
    assert "| heuristic | 2 |" in card and "| random | 2 |" in card
    assert json.loads((out / "model.json").read_text())["train_config"]["epochs"] == 2     # PPO's default


def test_train_command_mirror_opponents_and_ppo_epochs(tmp_path):
    require("courtpiece")
    pytest.importorskip("torch")
    out = tmp_path / "run"
    assert main(["train", "courtpiece", "--iterations", "2", "--envs", "8", "--hidden", "16", "--teacher", "none",
                 "--opponents", "mirror", "--epochs", "1", "--out", str(out)]) == 0
    meta = json.loads((out / "model.json").read_text())
    assert meta["train_config"]["epochs"] == 1 and meta["train_config"]["opponents"] == "mirror"
    assert meta["samples"] == meta["decisions"]          # mirror: every decision is the learner's


@pytest.mark.parametrize("game", ["courtpiece", "lopti", "shengji"])
def test_play_shows_the_human_only_its_own_cards(game, monkeypatch, capsys):
    """The human's seat sees its own hand and the table; every other seat is a card count (render()
    is the all-seeing view, for --auto and the end of the game)."""
    require(game)
    monkeypatch.setattr("builtins.input", lambda prompt="": "quit")
    assert main(["play", game, "--seat", "1", "--seed", "0"]) == 0
    seats = [line.strip() for line in capsys.readouterr().out.splitlines() if line.startswith("  player_")]
    mine = [line for line in seats if line.startswith("player_1")]
    others = [line for line in seats if not line.startswith("player_1")]
    assert len(mine) == 1 and "cards" not in mine[0].split(",")[0] and any(s in mine[0] for s in "♣♦♥♠J")
    assert len(others) >= 1 and all(re.match(r"player_\d( \[.*\])?: \d+ cards", line) for line in others)


def test_play_takes_the_words_of_a_legal_action():
    """_typed_action: an id, a full name, or the words of one legal action's name in order."""
    require("courtpiece")
    import courtpiece_env
    from agents.cli import _typed_action

    raw = courtpiece_env.raw_env()
    raw.reset(seed=0)
    legal = [int(a) for a in raw.infos[raw.agent_selection]["action_mask"].nonzero()[0]]
    assert raw.public_state()["phase"] == "call"
    assert _typed_action("call H", raw, legal) == raw.action_from_name("call trump H")
    assert _typed_action("CALL TRUMP s", raw, legal) == raw.action_from_name("call trump S")
    assert _typed_action(str(legal[0]), raw, legal) == legal[0]
    with pytest.raises(ValueError, match="'call' could be any of: call trump "):
        _typed_action("call", raw, legal)
    with pytest.raises(ValueError, match="unknown action name"):
        _typed_action("trump call H", raw, legal)   # the words, but not in their order
    card = raw.hand(raw.seat_of(raw.agent_selection))[0]
    assert _typed_action(card, raw, legal) == raw.action_from_name(f"play {card}")  # not legal now: play says so


def test_play_tells_the_other_seats_moves_as_the_person_sees_them(monkeypatch, capsys):
    """Between the person's turns the bots' moves are printed as the web table logs them: cards by suit
    symbol, a Chhupa Rang card hidden face down only as "hides a card" (CP-7.1: nobody else sees it)."""
    require("courtpiece")
    monkeypatch.setattr("builtins.input", lambda prompt="": "quit")
    assert main(["play", "courtpiece", "--variant", "chhupa_rang", "--seat", "2", "--seed", "0"]) == 0
    told = [line for line in capsys.readouterr().out.splitlines() if re.match(r"player_[013]: ", line)]
    assert told == ["player_0: hides a card", "player_0: show the face-down card", "player_0: play 2♥",
                    "player_1: play J♥"]


@pytest.mark.parametrize("command", [["arena", "shengji", "learned:agents/checkpoints/shengji.pt", "random",
                                      "--deals", "1"],
                                     ["play", "courtpiece", "--auto", "--opponents",
                                      "learned:agents/checkpoints/courtpiece.pt"]])
def test_learned_agents_play_on_one_torch_thread(command, monkeypatch, capsys):
    """A learned agent runs one small forward pass per decision: on torch's default thread pool that
    cost 7-9 times one thread's time on a busy 2-core machine (13 ms a Sheng Ji decision against 1.5).
    arena and play use one thread, unless OMP_NUM_THREADS says otherwise."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    try:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
        torch.set_num_threads(2)
        assert main(command) == 0
        assert torch.get_num_threads() == 1
        monkeypatch.setenv("OMP_NUM_THREADS", "2")
        torch.set_num_threads(2)
        assert main(command) == 0
        assert torch.get_num_threads() == 2       # the user's own setting stands
    finally:
        torch.set_num_threads(before)
