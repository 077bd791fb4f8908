"""`cardzoo arena GAME A B --deals N --json`: the last stdout line is one JSON object with the
match's record, equal to the table's numbers (issue: machine-readable arena)."""
from __future__ import annotations

import json

from agents import make_agent
from agents.arena import duplicate_match
from cardzoo.cli import main
from tests.agents.conftest import require

KEYS = ["game", "config", "agents", "deals", "wins", "ties", "losses", "win_rate", "ci95", "score_diff",
        "score_ci95"]


def test_arena_json_is_the_last_line_and_matches_the_match(capsys):
    require("courtpiece")
    argv = ["arena", "courtpiece", "heuristic", "random", "--deals", "6", "--variant", "be_rang", "--seed", "4"]
    assert main(argv + ["--json"]) == 0
    out = capsys.readouterr().out
    rec = json.loads(out.strip().splitlines()[-1])
    assert list(rec) == KEYS
    assert rec["game"] == "courtpiece" and rec["config"] == {"variant": "be_rang"}
    assert rec["agents"] == ["heuristic", "random"] and rec["deals"] == 6
    assert rec["wins"] + rec["ties"] + rec["losses"] == 6
    assert rec["win_rate"] == (rec["wins"] + rec["ties"] / 2) / 6
    lo, hi = rec["ci95"]
    assert 0 <= lo <= rec["win_rate"] <= hi <= 1
    slo, shi = rec["score_ci95"]
    assert slo <= rec["score_diff"] <= shi
    # the same match played through the library: the CLI reports exactly its numbers
    cfg = {"variant": "be_rang"}
    a = make_agent("heuristic", "courtpiece", seed=4, env_config=cfg)
    b = make_agent("random", "courtpiece", seed=4 + 101, env_config=cfg)
    res = duplicate_match("courtpiece", a, b, 6, cfg, seed=4)
    assert (rec["wins"], rec["ties"], rec["losses"]) == (res.wins, res.ties, res.losses)
    assert rec["score_diff"] == res.mean_diff


def test_arena_json_of_one_deal_has_no_infinite_interval(capsys):
    require("courtpiece")
    assert main(["arena", "courtpiece", "random", "random", "--deals", "1", "--json"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert "Infinity" not in line
    assert json.loads(line)["score_ci95"] == [None, None]


def test_arena_json_of_a_round_robin_holds_every_pair_and_the_ratings(capsys):
    require("courtpiece")
    assert main(["arena", "courtpiece", "heuristic", "random", "greedy", "--deals", "2", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rec["agents"] == ["heuristic", "random", "greedy"]
    assert [m["agents"] for m in rec["matches"]] == [["heuristic", "random"], ["heuristic", "greedy"],
                                                      ["random", "greedy"]]
    assert all(list(m) == KEYS and m["deals"] == 2 for m in rec["matches"])
    assert sorted(r["agent"] for r in rec["ratings"]) == ["greedy", "heuristic", "random"]
