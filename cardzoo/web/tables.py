"""The games the web table holds: one human seat against agents, recorded as it is played, kept in
memory with a cap and an idle expiry. No web code here: the server turns these into HTTP."""
from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict

from cardzoo import records
from cardzoo.options import check_seed
from cardzoo.registry import list_games, make
from cardzoo.web.views import (PRIVATE_WINDOWS, button_labels, hand_view, legal_names, move_label, private_window,
                               public_move, result_view, table_view, turn_hint)

MAX_BOT_STEPS = 20000  # a game's every decision fits easily (a LOPTI round stops at max_moves)


class RequestError(ValueError):
    """A request the table refuses; `status` is the HTTP status it maps to."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _opponent_specs(opponents, seat: int, n: int) -> list[str | None]:
    """Per seat: an agent spec, None for the human. `opponents` is one spec for every other seat or
    a list of specs for the other seats in ascending order."""
    if isinstance(opponents, str):
        specs = [opponents] * (n - 1)
    elif isinstance(opponents, list) and all(isinstance(o, str) for o in opponents):
        specs = list(opponents)
    else:
        raise RequestError("'opponents' must be an agent spec or a list of them (one per other seat)")
    if len(specs) != n - 1:
        raise RequestError(f"'opponents' lists {len(specs)} agents, the game has {n - 1} other seats")
    specs.insert(seat, None)
    return specs


class Table:
    """One game: `seat` is the human's, every other seat an agent; bots move until the human is to
    act. `moves` and `frames` hold what happened since the human's previous action."""

    def __init__(self, game: str, config: dict | None = None, seat: int = 0, opponents="heuristic",
                 seed: int | None = None):
        from agents import make_agent

        if game not in list_games():
            raise RequestError(f"unknown game {game!r}; games: {', '.join(list_games())}")
        if not isinstance(config, dict):
            raise RequestError("'config' must be an object of game options")
        if "render_mode" in config:    # the table renders for itself; make() would refuse it as a duplicate
            raise RequestError("config: 'render_mode' is not a game option (the table sets it)")
        try:
            env = make(game, render_mode="ansi", **config)
        except (ValueError, TypeError) as e:
            raise RequestError(f"config: {e}") from None
        raw = env.unwrapped
        n = raw.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise RequestError(f"'seat' must be an int in 0..{n - 1}")
        try:
            seed = check_seed(seed)
        except ValueError as e:
            raise RequestError(str(e)) from None
        specs = _opponent_specs(opponents, seat, n)
        self.seed = records.new_seed() if seed is None else seed
        self.agents = []
        for s, spec in enumerate(specs):
            try:
                self.agents.append(None if spec is None else
                                   make_agent(spec, game, seed=self.seed + s, env_config=config))
            except Exception as e:  # a spec from the request: any failure (bad option, unreadable checkpoint) is its own
                raise RequestError(f"opponent {spec!r}: {e}") from None
        self.id = secrets.token_hex(8)
        self.game, self.config, self.seat = game, dict(config), seat
        self.players = ["human" if spec is None else spec for spec in specs]
        self.env = records.Recorder(env, players=self.players)
        self.env.reset(seed=self.seed)
        self.raw = raw
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.moves: list[dict] = []
        self.frames: list[dict] = []
        self._bots()

    # ---- playing -------------------------------------------------------------------------------
    def _actor(self) -> int | None:
        raw = self.raw
        if not raw.agents or self.env.over:
            return None
        return raw.seat_of(raw.agent_selection)

    def _step(self, seat: int, action: int) -> None:
        """Step the env and log the move as the human saw it: its own in full, another seat's hidden
        move by its kind, a silent one (a Sheng Ji declaring pass) not at all. A frame that stops at
        another seat's private window (a Sheng Ji declaration window: the deal stops there only when
        that seat holds a legal declaration) names no actor and shows the seats as they were when the
        move was made, not where the deal went on to."""
        phase, name = self._phase(), self.raw.action_name(action)
        private = PRIVATE_WINDOWS.get(self.game)
        before = table_view(self.game, self.raw, {self.seat})["seats"] if private else None
        shown = name if seat == self.seat else public_move(self.game, phase, name)
        label = move_label(self.game, self.raw, seat, name) if shown == name else None   # not for a hidden move
        self.env.step(action)
        if shown is None:
            return
        self.moves.append({"seat": seat, "action": shown, **({"label": label} if label else {})})
        frame = table_view(self.game, self.raw, {self.seat})
        if private_window(self.game, frame["phase"], self._actor(), self.seat):
            frame["seats"] = before
        frame["move"] = self.moves[-1]
        self.frames.append(frame)

    def _bots(self) -> None:
        """Agents act until the human's turn or the end."""
        for _ in range(MAX_BOT_STEPS):
            seat = self._actor()
            if seat is None or seat == self.seat:
                return
            ag = self.agents[seat]
            obs = self.raw.observe(self.raw.agent_selection)
            if ag.needs_env:
                ag.observe_env(self.raw, seat)
            self._step(seat, int(ag.act(obs["observation"], obs["action_mask"])))
        raise RuntimeError(f"the agents made {MAX_BOT_STEPS} decisions without the game reaching the human")

    def act(self, action) -> None:
        if not isinstance(action, str):
            raise RequestError("'action' must be an action name (a string, as in 'legal')")
        seat = self._actor()
        if seat is None:
            raise RequestError("the game is over", 409)
        if seat != self.seat:
            raise RequestError(f"it is player_{seat}'s turn, not yours", 409)
        legal = legal_names(self.raw)
        if action not in legal:
            raise RequestError(f"{action!r} is not legal now; legal: {', '.join(legal)}")
        self.moves, self.frames = [], []
        self._step(seat, self.raw.action_from_name(action))
        self._bots()

    def _phase(self) -> str:
        return self.raw.infos[self.raw.agent_selection]["phase"]

    # ---- the state the API returns -------------------------------------------------------------
    def state(self) -> dict:
        actor = self._actor()
        mine = actor == self.seat
        legal = legal_names(self.raw) if mine else []
        hand, buttons = hand_view(self.game, self.raw, self.seat, legal)
        labels = button_labels(self.game, self.raw, self.seat, buttons) if mine else {}
        hint = turn_hint(self.game, self.raw, self.seat) if mine else None
        rec = self.env.record()
        view = table_view(self.game, self.raw, "all" if rec["over"] else {self.seat})
        # a record holds the seed and every move, so every hand: the human gets it once the game is over
        return {"id": self.id, "game": self.game, "config": self.config, "seat": self.seat,
                "players": self.players, "to_act": actor, "your_turn": mine, "legal": legal,
                "phase": view["phase"], "over": rec["over"], "result": rec["result"], "rewards": rec["rewards"],
                "hand": hand, "buttons": buttons, "labels": labels, "hint": hint, "view": view,
                "moves": self.moves, "frames": self.frames,
                "record": rec if rec["over"] else None,
                "summary": result_view(self.game, rec["result"], rec["rewards"], self.seat,
                                       self.config.get("episode") == "match") if rec["over"] else None}

    def finished_record(self) -> dict:
        """The game's record; RequestError (409) while it is on, as the record would show every hand."""
        rec = self.env.record()
        if not rec["over"]:
            raise RequestError("the game is still on: its record (the seed and every move) would show every "
                               "hand; download it when the game is over", 409)
        return rec


class TableStore:
    """Tables by id, at most `cap`, each dropped after `ttl` seconds without a request (a finished one
    sooner when a new game needs its place)."""

    def __init__(self, cap: int = 64, ttl: float = 3600.0):
        self.cap, self.ttl = cap, ttl
        self.tables: OrderedDict[str, Table] = OrderedDict()
        self.lock = threading.Lock()

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [k for k, t in self.tables.items() if now - t.touched > self.ttl]:
            del self.tables[key]

    def add(self, table: Table) -> None:
        """Hold a new table; when full, the finished game touched longest ago makes room (a live game
        is never dropped for a new one: then the server is busy, 503)."""
        with self.lock:
            self._expire()
            if len(self.tables) >= self.cap:
                done = [key for key, t in self.tables.items() if t.env.over]
                if not done:
                    raise RequestError(f"the server holds {self.cap} games in play already; try again later", 503)
                del self.tables[min(done, key=lambda key: self.tables[key].touched)]
            self.tables[table.id] = table

    def get(self, table_id: str) -> Table:
        with self.lock:
            self._expire()
            table = self.tables.get(table_id)
            if table is None:
                raise RequestError(f"no game {table_id!r} (finished games expire after {self.ttl:g} s)", 404)
            table.touched = time.monotonic()
            return table


def replay_frames(record: dict) -> dict:
    """Every position of a record, for the replay view: the start and the table after each step, all
    hands face up, and the finished game's result as the page shows it (for the seat labelled "human",
    if any). RecordError names the first step the env refuses."""
    frames = []
    game = record.get("game") if isinstance(record, dict) else None
    steps = record.get("steps") if isinstance(record, dict) and isinstance(record.get("steps"), list) else []
    labels = [None]   # the next step's label, taken before it is made (a LOPTI "select 3" names what it selects)

    def label_of(raw, i: int):
        st = steps[i] if i < len(steps) else None
        if not isinstance(st, dict) or not isinstance(st.get("action"), str) or not isinstance(st.get("actor"), int):
            return None
        return move_label(game, raw, st["actor"], st["action"])

    def on_step(i, st, raw):
        frame = table_view(game, raw, "all")
        frame["move"] = {"seat": st["actor"], "action": st.get("action", "timeout"),
                         **({"label": labels[0]} if labels[0] else {})}
        frames.append(frame)
        labels[0] = label_of(raw, i)

    raw = records.start(record)
    frames.append(dict(table_view(game, raw, "all"), move=None))
    labels[0] = label_of(raw, 0)
    rec = records.replay(record, on_step=on_step).record()
    players = record.get("players") or []
    viewer = players.index("human") if "human" in players else None
    match = isinstance(record.get("config"), dict) and record["config"].get("episode") == "match"
    summary = result_view(game, rec["result"], rec["rewards"], viewer, match) if rec["over"] else None
    return {"game": game, "players": record.get("players"), "frames": frames, "record": rec, "summary": summary}
