"""Game records (cardzoo/records.py, docs/records.md): written by the Recorder, replayed exactly by
`check`, bad records refused with the first wrong step named; `cardzoo replay`."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from cardzoo import records
from cardzoo.cli import main
from cardzoo.registry import make

CONFIGS = {"courtpiece": {"variant": "double_sar"}, "lopti": {"num_players": 3}, "shengji": {"decks": 1}}
SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "record.schema.json"


def play_random(env, seed: int, timeouts_every: int = 0) -> None:
    """Play `env` (already reset) to its end with uniform random legal actions; with timeouts_every=k
    every k-th decision is a Court Piece timeout (CP-12.2) instead."""
    rng = np.random.default_rng(seed)
    n = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        n += 1
        if timeouts_every and n % timeouts_every == 0:
            env.timeout()
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


_RECORDED = {}


def recorded(game: str) -> dict:
    """One random game of `game` (small config), recorded once per test session."""
    if game not in _RECORDED:
        raw = make(game, **CONFIGS[game])
        env = records.Recorder(raw, players=[f"random#{s}" for s in range(raw.unwrapped.num_players)])
        env.reset(seed=11)
        play_random(env, 5)
        _RECORDED[game] = env.record()
    return copy.deepcopy(_RECORDED[game])


@pytest.mark.parametrize("game", ["courtpiece", "lopti", "shengji"])
def test_a_recorded_game_replays_exactly_after_a_json_round_trip(game, tmp_path):
    rec = recorded(game)
    assert rec["format"] == "cardzoo-record" and rec["version"] == records.VERSION
    assert rec["game"] == game and rec["env"] == f"{game}_v0" and rec["config"] == CONFIGS[game]
    assert rec["seed"] == 11 and rec["options"] is None and rec["over"] is True
    assert len(rec["rewards"]) == (3 if game == "lopti" else 4) and abs(sum(rec["rewards"])) < 1e-6
    assert rec["result"] is not None and all(set(st) == {"actor", "action"} for st in rec["steps"])
    path = records.save(rec, tmp_path / "g.json")
    loaded = records.load(path)
    assert loaded == rec
    replayed = records.check(loaded)
    assert replayed["steps"] == rec["steps"] and replayed["result"] == rec["result"]


def test_record_steps_are_the_actions_by_name_with_their_actors():
    env = records.Recorder(make("courtpiece"))
    env.reset(seed=2)
    raw = env.unwrapped
    seen = []
    for _ in range(6):
        a = int(np.flatnonzero(raw.infos[raw.agent_selection]["action_mask"])[0])
        seen.append({"actor": raw.seat_of(raw.agent_selection), "action": raw.action_name(a)})
        env.step(a)
    rec = env.record()
    assert rec["steps"] == seen and rec["over"] is False and rec["result"] is None
    records.check(rec)  # a game in progress replays too


def test_an_injected_deal_and_court_piece_timeouts_reproduce_from_the_seed():
    """CP-12.2: a timeout at the call turns a card chosen by the generator (CP-3.5, section 7 step 3) and a
    play timeout picks a random legal card; the record lists only "timeout", the seed redraws them."""
    from agents.arena import random_deal

    deal = random_deal("courtpiece", np.random.default_rng(1))
    env = records.Recorder(make("courtpiece"))
    env.reset(seed=123, options={"deal": deal})
    play_random(env, 0, timeouts_every=3)
    rec = env.record()
    assert rec["options"] == {"deal": deal}
    assert rec["steps"][2] == {"actor": rec["steps"][2]["actor"], "timeout": True}
    assert records.check(rec)["result"] == rec["result"]
    other = dict(rec, seed=124)  # other random events: the replay no longer matches
    with pytest.raises(records.RecordError, match=r"step \d+|differs"):
        records.check(other)


def test_a_seedless_reset_is_recorded_with_a_seed_and_the_series_repeats():
    env = records.Recorder(make("courtpiece"))
    env.reset()
    seed = env.record()["seed"]
    assert isinstance(seed, int) and 0 <= seed < 2 ** 53      # JavaScript reads it back exactly
    env.reset(seed=5)
    env.reset()
    first = env.record()["seed"]
    env.reset(seed=5)
    env.reset()
    assert env.record()["seed"] == first


def _mutated(rec, fn):
    bad = copy.deepcopy(rec)
    fn(bad)
    return bad


@pytest.mark.parametrize("fix, message", [
    (lambda r: r["steps"][3].update(actor=(r["steps"][3]["actor"] + 1) % 4),
     r"^step 4: the record has seat \d acting, but seat \d is to act"),
    (lambda r: r["steps"][4].update(action="play 1Z"), r"^step 5: 'play 1Z' is not an action name"),
    (lambda r: r["steps"].insert(0, dict(r["steps"][0], action="pass" if r["steps"][0]["action"] != "pass"
                                          else "call trump C")), r"^step \d+: "),
    (lambda r: r["steps"].append(dict(r["steps"][-1])), r"^step \d+: the game is already over"),
    (lambda r: r["steps"].pop(), r"the record says the game is over, but it is not over"),
    (lambda r: r["result"].update(winner_team=1 - r["result"]["winner_team"]), r"result differs"),
    (lambda r: r["rewards"].reverse(), r"rewards differs"),
    (lambda r: r["steps"][0].pop("action"), r"^step 1: expected"),
    (lambda r: r.update(version=99), r"'version' 99 is not supported"),
    (lambda r: r.update(version=True), r"'version' True is not supported"),   # JSON true is not 1 (the schema)
    (lambda r: r.update(game="chess"), r"'game' 'chess' is not one of"),
    (lambda r: r.update(config={"variant": "x"}), r"^config: option variant"),
    (lambda r: r.update(options={"deal": {"dealer": 9}}), r"^reset options: "),
    (lambda r: r.update(seed=-1), r"'seed' must be an int >= 0"),
    (lambda r: r.update(extra=1), r"unknown key\(s\) 'extra'"),
    (lambda r: r.update(env="courtpiece_v9"), r"written by courtpiece_v9, this env is courtpiece_v0"),
    (lambda r: r.update(config={"render_mode": "ansi"}), r"^config: "),
    (lambda r: r.update(result=None), r"result differs: the record has None"),        # over, yet no result
    (lambda r: r.update(rewards=None), r"rewards differs: the record has None"),
    (lambda r: r.update(options={"bogus": 1}), r"^reset options: unknown key\(s\) 'bogus'; known keys: 'deal'"),
    (lambda r: r.update(players=["a"]), r"'players' lists 1 label\(s\), the game has 4 seats"),
])
def test_a_bad_record_names_its_first_wrong_step_or_field(fix, message):
    rec = recorded("courtpiece")
    with pytest.raises(records.RecordError, match=message):
        records.check(_mutated(rec, fix))


def test_a_timeout_in_a_game_without_timeouts_is_refused():
    rec = recorded("shengji")
    rec["steps"][0] = {"actor": rec["steps"][0]["actor"], "timeout": True}
    with pytest.raises(records.RecordError, match="step 1: a timeout, but shengji has no timeouts"):
        records.check(rec)


def test_cli_replay_check_passes_good_records_and_fails_bad_ones_in_one_line(tmp_path, capsys):
    good = records.save(recorded("courtpiece"), tmp_path / "good.json")
    assert main(["replay", str(good), "--check"]) == 0
    assert "ok (courtpiece, " in capsys.readouterr().out
    bad = recorded("courtpiece")
    bad["steps"][7]["action"] = "lead reveal"
    bad_path = records.save(bad, tmp_path / "bad.json")
    (tmp_path / "junk.json").write_text("{not json")
    assert main(["replay", str(good), str(bad_path), str(tmp_path / "junk.json"), "--check"]) == 1
    out = capsys.readouterr()
    assert out.err.splitlines() == [f"{bad_path}: step 8: 'lead reveal' is not legal for seat "
                                    f"{bad['steps'][7]['actor']} in phase 'play'",
                                    f"{tmp_path / 'junk.json'}: not JSON: Expecting property name enclosed in "
                                    f"double quotes: line 1 column 2 (char 1)"]
    assert "Traceback" not in out.err


def test_cli_replay_prints_the_moves_and_the_end(tmp_path, capsys):
    rec = recorded("courtpiece")
    assert main(["replay", str(records.save(rec, tmp_path / "g.json"))]) == 0
    out = capsys.readouterr().out
    assert f"   1. player_{rec['steps'][0]['actor']}: {rec['steps'][0]['action']}" in out
    assert f"rewards: {rec['rewards']}" in out


@pytest.mark.parametrize("game", ["courtpiece", "lopti", "shengji"])
def test_records_follow_the_json_schema(game):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validate(recorded(game), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_mutated(recorded(game), lambda r: r["steps"][0].update(actor="x")), schema)


@pytest.mark.parametrize("game, engine", [("courtpiece", "batch"), ("courtpiece", "aec"), ("shengji", "batch"),
                                          ("lopti", "batch")])
def test_arena_save_records_writes_one_replayable_file_per_game(game, engine, tmp_path, capsys):
    extra = {"shengji": ["--set", "decks=1"], "lopti": ["--set", "num_players=3"]}.get(game, [])
    folder = tmp_path / "recs"
    assert main(["arena", game, "heuristic", "random", "--deals", "2", "--engine", engine, *extra,
                 "--save-records", str(folder)]) == 0
    files = sorted(folder.glob("*.json"))
    games = 3 * 2 if game == "lopti" else 2 * 2          # every replay of every deal
    assert [f.name for f in files] == [f"{game}-{k:05d}.json" for k in range(1, games + 1)]
    capsys.readouterr()
    assert main(["replay", *map(str, files), "--check"]) == 0
    assert capsys.readouterr().out.count(": ok (") == games
    first, second = records.load(files[0]), records.load(files[1])
    assert first["options"]["deal"] == second["options"]["deal"]   # the duplicate replays of one deal
    assert sorted(set(first["players"])) == ["heuristic", "random"] and first["players"] != second["players"]


def test_sheng_ji_redeals_come_back_from_the_seed():
    """SJ-4.9 / 7.4: with no declaration the first hand is redealt from the generator; the record holds
    only the passes, the seed redraws the new orders."""
    env = records.Recorder(make("shengji", decks=1))
    env.reset(seed=21)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    while raw.agents and not env.over:
        names = [raw.action_name(int(a)) for a in np.flatnonzero(raw.infos[raw.agent_selection]["action_mask"])]
        env.step(raw.action_from_name("pass") if "pass" in names else raw.action_from_name(str(rng.choice(names))))
        if env.over:
            break
    rec = env.record()
    assert raw.public_state()["void_deals"] >= 1 and rec["over"]
    records.check(rec)
    with pytest.raises(records.RecordError):
        records.check(dict(rec, seed=22))


def test_a_truncated_lopti_round_is_recorded_as_truncated():
    env = records.Recorder(make("lopti", num_players=3, max_moves=6))
    env.reset(seed=4)
    play_random(env, 1)
    rec = env.record()
    assert rec["over"] and rec["truncated"] and rec["result"]["truncated"]
    assert records.check(rec)["truncated"]
    with pytest.raises(records.RecordError, match="truncated differs"):
        records.check(dict(rec, truncated=False))


def test_arena_time_limits_record_their_timeouts_and_replay():
    """CP-12.2 through the arena's runner: with play_seconds=0 every card play times out and the
    generator picks the card; the records carry the timeouts and replay exactly."""
    from agents import make_agent
    from agents.arena import duplicate_match

    saved = []
    res = duplicate_match("courtpiece", make_agent("random", "courtpiece", 0), make_agent("random", "courtpiece", 1),
                          deals=1, seed=2, time_limits=True, play_seconds=0.0, on_record=saved.append)
    assert res.timeouts > 0 and len(saved) == 2
    for rec in saved:
        assert sum("timeout" in st for st in rec["steps"]) > 0
        records.check(rec)


def test_record_writer_numbers_on_after_a_folder_s_records_and_refuses_a_file(tmp_path):
    rec = recorded("courtpiece")
    first = records.RecordWriter(tmp_path / "recs")
    assert [first(rec).name for _ in range(2)] == ["courtpiece-00001.json", "courtpiece-00002.json"]
    again = records.RecordWriter(tmp_path / "recs")      # a second run into the same folder adds
    assert again(rec).name == "courtpiece-00003.json" and len(list((tmp_path / "recs").iterdir())) == 3
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="cannot save records in"):
        records.RecordWriter(tmp_path / "file")
