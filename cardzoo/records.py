"""Game records: one versioned JSON format for every game, written while a game is played and
replayed through the env to confirm it reproduces exactly (schema: docs/records.md).

A record holds what the env needs to play the same game again -- the game, its config, the reset
seed and options (an injected deal), and every step in order: the acting seat and the action by its
name (`action_name`), or a Court Piece timeout (CP-12.2) -- plus what the game gave: the result
(`infos[...]["result"]`) and every seat's total reward. Chance events after the deal (Court Piece's
turned card and timeouts, LOPTI's redeals and rock-paper-scissors, Sheng Ji's redeals and match
deals) are drawn from the env's generator in an order the specs fix (section 7 of each), so the seed
reproduces them: a record never needs to list them.

    env = Recorder(make("courtpiece", variant="double_sar"), players=["me", "heuristic", ...])
    env.reset(seed=7)
    ... env.step(a) ...
    save(env.record(), "game.json")
    check(load("game.json"))          # replays it; RecordError names the first wrong step
"""
from __future__ import annotations

import dataclasses
import json
import math
import secrets
from pathlib import Path

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from cardzoo.registry import list_games, make

FORMAT = "cardzoo-record"
VERSION = 1
_KEYS = ("format", "version", "game", "env", "config", "seed", "options", "players", "steps", "over",
         "truncated", "rewards", "result")


class RecordError(ValueError):
    """A record that is malformed or that the env does not reproduce; the message names the first
    wrong field or step (steps numbered from 1)."""


def jsonable(x):
    """`x` with numpy scalars and arrays, tuples and sets turned into plain JSON types."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def game_of(raw) -> str:
    """The registry name of a raw env's game: metadata name "courtpiece_v0" -> "courtpiece"."""
    return raw.metadata["name"].rsplit("_v", 1)[0]


def config_of(raw) -> dict:
    """The options of a raw env that differ from their defaults: make(game, **config_of(raw)) builds
    the same game."""
    cfg = raw.config
    out = {}
    for f in dataclasses.fields(cfg):
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
        value = getattr(cfg, f.name)
        if default is dataclasses.MISSING or jsonable(value) != jsonable(default):
            out[f.name] = jsonable(value)
    return out


def new_seed() -> int:
    """A fresh seed from OS entropy, below 2**53: an int every JSON reader keeps exactly (JavaScript's
    numbers lose larger ones, and a record with another seed is another game)."""
    return secrets.randbits(53)


class Recorder(BaseWrapper):
    """Wraps any cardzoo AEC env (wrapped or raw) and records its game; `record()` returns it.

    Every reset starts a new record. A Recorder always resets the env with an explicit seed, so the
    record can reproduce it: `reset()` without a seed takes the next seed from a generator seeded by
    the last seed given (fresh entropy before any), which keeps a recorded series reproducible."""

    def __init__(self, env, players: list[str] | None = None):
        super().__init__(env)
        raw = env.unwrapped
        self.game = game_of(raw)
        self.config = config_of(raw)
        if players is not None and (not isinstance(players, (list, tuple)) or len(players) != raw.num_players
                                    or not all(isinstance(p, str) for p in players)):
            raise ValueError(f"players must be None or a list of {raw.num_players} labels (one a seat), "
                             f"got {players!r}")
        self.players = None if players is None else list(players)
        self.seeds = None
        self.seed = None
        self.reset_options = None
        self.steps: list[dict] = []
        self.totals = np.zeros(raw.num_players, np.float64)
        self.result = None
        self.over = self.truncated = False

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is None:
            if self.seeds is None:
                self.seeds = np.random.default_rng(new_seed())
            seed = int(self.seeds.integers(2 ** 53))
        else:
            self.seeds = np.random.default_rng(seed)
        self.env.reset(seed=seed, options=options)
        self.begin(seed, options)

    def begin(self, seed: int, options: dict | None) -> None:
        """Start a new record of the env, just reset with this seed and these options."""
        self.seed = int(seed)
        self.reset_options = jsonable(options)
        self.steps = []
        self.totals[:] = 0.0
        self.result = None
        self.over, self.truncated = _ended(self.env.unwrapped)

    def _after(self, entry: dict) -> None:
        raw = self.env.unwrapped
        self.steps.append(entry)
        for s, name in enumerate(raw.possible_agents):
            self.totals[s] += raw.rewards.get(name, 0.0)
        for info in raw.infos.values():
            self.result = info.get("result", self.result)
            break
        self.over, self.truncated = _ended(raw)

    def step(self, action) -> None:
        raw = self.env.unwrapped
        agent = raw.agent_selection
        dead = raw.terminations.get(agent) or raw.truncations.get(agent)
        self.env.step(action)
        if not dead:
            self._after({"actor": raw.seat_of(agent), "action": raw.action_name(int(action))})

    def timeout(self) -> None:
        """Court Piece's runner call of CP-12.2, recorded as a timeout step."""
        raw = self.env.unwrapped
        seat = raw.seat_of(raw.agent_selection)
        self.env.timeout()
        self._after({"actor": seat, "timeout": True})

    def record(self) -> dict:
        """The game so far as a record (the one place a record's keys are written)."""
        if self.seed is None:
            raise ValueError("Recorder.record(): no game yet (call reset first)")
        return {"format": FORMAT, "version": VERSION, "game": self.game,
                "env": self.env.unwrapped.metadata["name"], "config": jsonable(self.config), "seed": self.seed,
                "options": jsonable(self.reset_options), "players": jsonable(self.players),
                "steps": [dict(st) for st in self.steps], "over": self.over, "truncated": self.truncated,
                "rewards": [float(r) for r in self.totals], "result": jsonable(self.result)}


def _ended(raw) -> tuple[bool, bool]:
    """(over, truncated) of a raw env with its agents still present (before their dead steps)."""
    done = all(raw.terminations[a] or raw.truncations[a] for a in raw.agents)
    return done, done and any(raw.truncations[a] for a in raw.agents)


# ---- reading and replaying ---------------------------------------------------------------------
def dumps(record: dict) -> str:
    return json.dumps(record, indent=1)


def save(record: dict, path) -> Path:
    path = Path(path)
    path.write_text(dumps(record) + "\n")
    return path


def loads(text: str) -> dict:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not JSON: {e}") from None
    validate(record)
    return record


def load(path) -> dict:
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a text file") from None
    return loads(text)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def validate(record) -> None:
    """Structure only (types and keys); `replay` checks what the env says about it."""
    if not isinstance(record, dict):
        got = {type(None): "nothing (null or an empty text)", list: "a list", str: "a string", bool: "true or false",
               int: "a number", float: "a number"}.get(type(record), type(record).__name__)
        raise RecordError(f"a record is a JSON object, not {got}")
    if record.get("format") != FORMAT:
        raise RecordError(f"'format' must be {FORMAT!r}, got {record.get('format')!r}")
    if not _is_int(record.get("version")) or record["version"] != VERSION:  # true == 1 in Python, not in JSON
        raise RecordError(f"'version' {record.get('version')!r} is not supported (this cardzoo reads {VERSION})")
    unknown = sorted(set(record) - set(_KEYS))
    if unknown:
        raise RecordError(f"unknown key(s) {', '.join(map(repr, unknown))}")
    for key in ("game", "config", "seed", "steps"):
        if key not in record:
            raise RecordError(f"missing key {key!r}")
    if record["game"] not in list_games():
        raise RecordError(f"'game' {record['game']!r} is not one of {', '.join(list_games())}")
    if not isinstance(record["config"], dict):
        raise RecordError("'config' must be an object of game options")
    if not _is_int(record["seed"]) or record["seed"] < 0:
        raise RecordError(f"'seed' must be an int >= 0, got {record['seed']!r}")
    if record.get("options") is not None and not isinstance(record["options"], dict):
        raise RecordError("'options' must be an object (the reset options) or null")
    players = record.get("players")
    if players is not None and not (isinstance(players, list) and all(isinstance(p, str) for p in players)):
        raise RecordError("'players' must be a list of strings (one label per seat) or null")
    if not isinstance(record["steps"], list):
        raise RecordError("'steps' must be a list")
    for i, st in enumerate(record["steps"], 1):
        if not isinstance(st, dict) or not _is_int(st.get("actor")):
            raise RecordError(f"step {i}: a step is an object with an int 'actor', got {st!r}")
        if set(st) == {"actor", "action"} and isinstance(st["action"], str):
            continue
        if set(st) == {"actor", "timeout"} and st["timeout"] is True:
            continue
        raise RecordError(f"step {i}: expected {{'actor', 'action': <name>}} or {{'actor', 'timeout': true}}, "
                          f"got {st!r}")
    rewards = record.get("rewards")
    if rewards is not None and not (isinstance(rewards, list) and all(
            isinstance(r, (int, float)) and not isinstance(r, bool) for r in rewards)):
        raise RecordError("'rewards' must be a list of numbers (one per seat) or null")
    for key in ("over", "truncated"):
        if key in record and not isinstance(record[key], bool):
            raise RecordError(f"'{key}' must be true or false")


_BAD_INPUT = (ValueError, TypeError, KeyError, IndexError)  # what a malformed config or option can raise


def start(record: dict):
    """A raw env (render_mode "ansi") reset as the record's game starts."""
    validate(record)
    try:
        env = make(record["game"], raw=True, render_mode="ansi", **record["config"])
    except _BAD_INPUT as e:
        raise RecordError(f"config: {e}") from None
    if record.get("env", env.metadata["name"]) != env.metadata["name"]:
        raise RecordError(f"the record was written by {record['env']}, this env is {env.metadata['name']} "
                          f"(a changed env may play the same steps differently)")
    players = record.get("players")
    if players is not None and len(players) != env.num_players:
        raise RecordError(f"'players' lists {len(players)} label(s), the game has {env.num_players} seats")
    # env.reset warns about an unknown options key and ignores it (9.6); a record that names one was not
    # written by a Recorder, whose options are the ones the env took
    unknown = sorted(set(record.get("options") or {}) - set(env.reset_options))
    if unknown:
        raise RecordError(f"reset options: unknown key(s) {', '.join(map(repr, unknown))}; known keys: "
                          f"{', '.join(map(repr, env.reset_options))}")
    try:
        env.reset(seed=record["seed"], options=record.get("options"))
    except _BAD_INPUT as e:
        raise RecordError(f"reset options: {e}") from None
    return env


def replay(record: dict, on_step=None):
    """Play the record's steps through the env, checking each; returns a Recorder holding the game
    (its env: `.unwrapped`). `on_step(i, step, env)` (optional) runs after each step i (1-based).

    RecordError names the first step that is not what the env allows: the game already over, another
    seat to act, an unknown action name, an action that is not legal then, a timeout where the game has
    none."""
    raw = start(record)
    rec = Recorder(raw, players=record.get("players"))
    rec.begin(record["seed"], record.get("options"))
    for i, st in enumerate(record["steps"], 1):
        if not _live(raw):
            raise RecordError(f"step {i}: the game is already over, but the record goes on")
        actor = raw.seat_of(raw.agent_selection)
        if st["actor"] != actor:
            raise RecordError(f"step {i}: the record has seat {st['actor']} acting, but seat {actor} is to act "
                              f"(phase {raw.infos[raw.agent_selection]['phase']!r})")
        if "timeout" in st:
            if not hasattr(raw, "timeout"):
                raise RecordError(f"step {i}: a timeout, but {record['game']} has no timeouts")
            rec.timeout()
        else:
            try:
                a = raw.action_from_name(st["action"])
            except ValueError:
                raise RecordError(f"step {i}: {st['action']!r} is not an action name of {record['game']}") from None
            if not raw.infos[raw.agent_selection]["action_mask"][a]:
                raise RecordError(f"step {i}: {st['action']!r} is not legal for seat {actor} in phase "
                                  f"{raw.infos[raw.agent_selection]['phase']!r}")
            rec.step(a)
        if on_step is not None:
            on_step(i, st, raw)
    return rec


def _live(raw) -> bool:
    agent = raw.agent_selection
    return bool(raw.agents) and not (raw.terminations.get(agent) or raw.truncations.get(agent))


def _same(x, y) -> bool:
    if isinstance(x, float) or isinstance(y, float):
        return isinstance(x, (int, float)) and isinstance(y, (int, float)) and math.isclose(
            x, y, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(map(_same, x, y))
    return x == y


def check(record: dict) -> dict:
    """Replay the record and confirm it reproduces exactly: every step legal with its actor, and the
    end (over, truncated, rewards, result) equal to the record's. Returns the replayed record;
    RecordError names the first difference."""
    replayed = replay(record).record()
    n = len(record["steps"])
    if "over" in record and record["over"] != replayed["over"]:
        raise RecordError(f"after step {n}: the record says the game is {'over' if record['over'] else 'not over'}, "
                          f"but it is {'over' if replayed['over'] else 'not over'}")
    for key in ("truncated", "rewards", "result"):  # each one the record states, null included
        if key in record and not _same(jsonable(record[key]), replayed[key]):
            raise RecordError(f"after step {n}: {key} differs: the record has {record[key]!r}, "
                              f"the replay {replayed[key]!r}")
    return replayed


def from_steps(game: str, config: dict, seed: int, options: dict | None, steps: list,
               players: list[str] | None = None) -> dict:
    """The full record of a game known by its steps (e.g. played on a BatchGame, whose game b is the
    AEC env reset with seed s + b): the steps are replayed through the env, which fills in the end."""
    return replay({"format": FORMAT, "version": VERSION, "game": game, "config": jsonable(config), "seed": seed,
                   "options": jsonable(options), "players": players, "steps": steps}).record()


class RecordWriter:
    """Saves each record it is called with as its own file in `folder` (created if needed):
    <game>-00001.json, <game>-00002.json, ... in the order the games were played, numbered on from
    the highest number already in the folder."""

    def __init__(self, folder):
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"cannot save records in {folder}: {e.strerror or e}") from None
        # numbering goes on after the files already there, so a second run adds to a folder, never
        # overwrites (files are <game>-<n>.json)
        taken = [int(p.stem.rpartition("-")[2]) for p in self.folder.glob("*-*.json")
                 if p.stem.rpartition("-")[2].isdigit()]
        self.count = max(taken, default=0)

    def __call__(self, record: dict) -> Path:
        self.count += 1
        return save(record, self.folder / f"{record['game']}-{self.count:05d}.json")
