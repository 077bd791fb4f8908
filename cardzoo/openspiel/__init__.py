"""Every cardzoo game as an OpenSpiel game: ``import cardzoo.openspiel`` registers
``cardzoo_courtpiece``, ``cardzoo_lopti`` and ``cardzoo_shengji`` with ``pyspiel``.

    import pyspiel
    import cardzoo.openspiel
    game = pyspiel.load_game("cardzoo_courtpiece", {"variant": "double_sar"})

**Parameters** are the env options (each game's rule spec, section 6) under their own names, with
the spec's defaults. An option whose default is a list or dict (LOPTI's rule lists, Sheng Ji's
``must_defend``) is a JSON string: ``{"must_defend": '["A", "K"]'}``; so is
a string of digits, which a game string would read back as a number (Sheng Ji's ``start_level``:
``'"5"'``; a plain ``"A"`` also works). Court Piece's ``match_target`` (an int or None) is an int, 0
meaning None. One more parameter, ``deal_seed_bytes``, sets the chance nodes (below). The game keeps
JSON parameters with ';' between items (``["A";"K"]``): OpenSpiel splits a game string at commas.

**A state wraps one AEC env** (the game's own kernels at batch size 1; no rule is implemented here)
and the action sequence that led to it, so it can always be rebuilt: ``clone`` and ``deserialize``
replay the actions on a fresh env through the public ``reset``/``step``.

**Chance.** An episode starts with ``deal_seed_bytes`` (default 4) chance nodes of 256 equally likely
outcomes each: they spell an env seed s, big-endian (outcomes 0, 0, 1, 2 are s = 258), and the env
starts with ``env.reset(seed=s)``, which makes the deal and every later random event of the episode
(the Court Piece dealer draw, LOPTI's rock-paper-scissors coins and reshuffles, Sheng Ji redeals)
exactly as the PettingZoo env does with that seed. The deals are sampled, not enumerated: there are
about 5e28 ways to deal 52 cards to four seats (more with Sheng Ji's decks), far beyond an action id,
and dealing card by card as chance nodes would not cover the other random events, which the envs
draw from the episode's generator. A few small chance nodes rather than one with 2**32 outcomes keep
chance sampling cheap for OpenSpiel's Python algorithms (they draw from the full outcome list).

**Observations.** ``observation_tensor(p)`` and ``information_state_tensor(p)`` are seat p's cardzoo
observation (float32, the spec's section 3.4 / 9: everything p sees, nothing hidden from it).
``information_state_string(p)`` has perfect recall: ``"p<seat> "`` and a 128-bit digest of the
sequence of p's observations since the deal (so two states share it exactly when p saw the same
things in the same order). ``observation_string(p)`` is readable: p's hand, the public record
(``public_state()`` as JSON) and a digest of p's observation tensor.

**Worlds.** ``resample_from_infostate(p, sampler)`` draws the hidden cards with the information-set
samplers of cardzoo's search agents (``agents.courtpiece.search``, ``agents.lopti.search``,
``agents.shengji.search``) and rebuilds the position on them; see `cardzoo.openspiel.worlds` for the
positions each covers. p's information state string is unchanged, so OpenSpiel's ``ISMCTSBot`` runs
on these games.

Rewards are the env's: ``rewards()`` what the latest step paid, ``returns()`` their sum. A
single-deal episode (the default in every game) pays only at its end: reward model TERMINAL, so
``MCTSBot`` accepts it; match and session episodes are REWARDS games.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from fractions import Fraction

import numpy as np
import pyspiel

from cardzoo.openspiel.worlds import GAMES, GameSpec

_SEED_BYTES = 4
_CHANCE = [(b, 1.0 / 256) for b in range(256)]


def _digest(prev: bytes, obs: bytes) -> bytes:
    return hashlib.blake2b(prev + obs, digest_size=16).digest()


def _parameter_spec(spec: GameSpec) -> dict:
    """The env options with their defaults; a default that pyspiel cannot hold goes as JSON text."""
    out = {}
    for f in dataclasses.fields(spec.config_class):
        default = _default(f)
        if _optional_int(f):
            out[f.name] = 0
        else:
            out[f.name] = _json_text(default) if _as_json(default) else default
    out["deal_seed_bytes"] = _SEED_BYTES
    return out


def _default(f):
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()


def _optional_int(f) -> bool:
    """An `int | None` option defaulting to None (Court Piece's match_target): an int parameter where
    0, outside the option's range, stands for None (a JSON "3" would come back from a game string as
    an int)."""
    return f.default is None and str(f.type).replace(" ", "") in ("int|None", "Optional[int]")


def _as_json(default) -> bool:
    """Options pyspiel cannot hold as they are: None, lists, dicts -- and strings made of digits
    (Sheng Ji's start_level "2"), which a game string would read back as an int."""
    return not isinstance(default, (bool, int, float, str)) or (isinstance(default, str) and default.isdigit())


def _json_text(value) -> str:
    """The canonical text of a JSON option: the items of a list or dict separated by ';', not ','.
    OpenSpiel rebuilds a game from its string (serialization, pickling, deep copies) and splits that
    string's parameters at every comma, brackets or not."""
    return json.dumps(list(value) if isinstance(value, tuple) else value, separators=(";", ":"))


def _json_loads(text):
    """JSON text, its items separated by ',' (as a user writes it) or by ';' (as a game string holds it:
    `_json_text`); no option value holds a ';' of its own."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        if not isinstance(text, str) or ";" not in text:
            raise
        return json.loads(text.replace(";", ","))


def _env_config(spec: GameSpec, params: dict) -> tuple[dict, dict]:
    """pyspiel parameters -> the env's keyword options (JSON text parsed where the spec says so), and
    the parameters with each JSON option in its canonical text (`_json_text`), which the game keeps:
    its string then loads the same game again."""
    config, canonical = {}, dict(params)
    for f in dataclasses.fields(spec.config_class):
        if f.name not in params:
            continue
        default = _default(f)
        value = params[f.name]
        if _optional_int(f):
            value = None if value == 0 else value
        elif _as_json(default):
            try:
                value = _json_loads(value)
            except (TypeError, json.JSONDecodeError):
                if not isinstance(default, str):
                    raise ValueError(f"parameter {f.name}={value!r}: expected JSON text such as "
                                     f"{json.dumps(default)!r}") from None
            if isinstance(default, str) and not isinstance(value, str):
                value = json.dumps(value)
            if isinstance(default, tuple) and isinstance(value, list):
                value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
            canonical[f.name] = _json_text(value)
        if value != default:
            config[f.name] = value
    return config, canonical


class Table:
    """One episode of a cardzoo game rebuilt from (config, seed, reset options, actions): the AEC env
    at that position plus the record that reproduces it. `copy()` replays the record on a fresh env
    (through ``reset`` and ``step`` only), pickling keeps only the record."""

    __slots__ = ("game", "config", "seed", "options", "actions", "env")

    def __init__(self, game: str, config: dict, seed: int | None, options: dict | None, actions=()):
        from cardzoo.registry import make

        self.game, self.config, self.seed, self.options = game, config, seed, options
        self.env = make(game, raw=True, render_mode="ansi", **config)
        self.env.reset(seed=seed, options=options)
        self.actions = []
        for a in actions:
            self.step(a)

    def step(self, action: int) -> None:
        self.env.step(action)
        self.actions.append(action)

    def copy(self) -> "Table":
        return Table(self.game, self.config, self.seed, self.options, self.actions)

    def record(self) -> dict:
        return {"game": self.game, "config": self.config, "seed": self.seed, "options": self.options,
                "actions": list(self.actions)}

    def __getstate__(self):
        return self.record()

    def __setstate__(self, record):
        Table.__init__(self, record["game"], record["config"], record["seed"], record["options"], record["actions"])

    def __deepcopy__(self, memo):
        return self.copy()

    @property
    def actor(self) -> int:
        """The seat to act, -1 once the episode is over."""
        env = self.env
        agent = env.agent_selection
        if not env.agents or env.terminations[agent] or env.truncations[agent]:
            return -1
        return env.seat_of(agent)

    def observation(self, seat: int) -> np.ndarray:
        return self.env.observe(self.env.possible_agents[seat])["observation"]

    def mask(self) -> np.ndarray:
        return self.env.infos[self.env.agent_selection]["action_mask"]


class CardzooGame(pyspiel.Game):
    """A cardzoo game for OpenSpiel (see the module docstring); one class for all three, told apart by
    their `GameSpec`."""

    spec: GameSpec

    def __init__(self, params=None):
        params = dict(params or {})
        spec = self.spec
        self.env_config, params = _env_config(spec, params)
        self.seed_bytes = int(params.get("deal_seed_bytes", _SEED_BYTES))
        if not 1 <= self.seed_bytes <= 8:
            raise ValueError(f"parameter deal_seed_bytes={self.seed_bytes}: must be 1..8")
        from cardzoo.registry import make

        self.namer = make(spec.name, raw=True, **self.env_config)  # validates the options too
        cfg = self.namer.config
        n = self.namer.num_players
        low, high = spec.utility_bounds(cfg)
        info = pyspiel.GameInfo(num_distinct_actions=self.namer.num_actions, max_chance_outcomes=256,
                                num_players=n, min_utility=float(low), max_utility=float(high),
                                utility_sum=0.0, max_game_length=int(spec.max_length(cfg)))
        reward_model = (pyspiel.GameType.RewardModel.TERMINAL if spec.single_deal(cfg)
                        else pyspiel.GameType.RewardModel.REWARDS)
        super().__init__(_game_type(spec, reward_model), info, params)
        self.num_seats = n
        self.rng = np.random.default_rng()

    def new_initial_state(self):
        return CardzooState(self)

    def __reduce__(self):
        # pyspiel's own pickling rebuilds only the C++ part of a Python game, without the attributes
        # set here; loading the game string runs __init__ again
        return _load_game, (str(self),)

    def __deepcopy__(self, memo):
        # a game never changes: its states share it (pyspiel's C++ clone deep-copies a state's attributes)
        return self

    def deserialize_state(self, text: str):
        """The state `CardzooState.serialize` wrote (JSON of its record)."""
        return CardzooState.from_record(self, json.loads(text))

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        perfect = iig_obs_type is None or iig_obs_type.perfect_recall
        if iig_obs_type is not None and (iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                                         or not iig_obs_type.public_info):
            raise ValueError("cardzoo observations are one seat's view (public and its own private "
                             "information) only")
        return _Observer(self.namer.observation_size, perfect)


def _load_game(text: str):
    """`pyspiel.load_game`, from this module so that unpickling a game registers the games first."""
    return pyspiel.load_game(text)


def _game_type(spec: GameSpec, reward_model) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=f"cardzoo_{spec.name}", long_name=f"cardzoo {spec.long_name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM, reward_model=reward_model,
        max_num_players=spec.max_players, min_num_players=spec.min_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_parameter_spec(spec))


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_record(record) -> None:
    """The shape of a serialized state (`CardzooState.serialize`): a ValueError naming what is wrong,
    before anything is replayed."""
    if not isinstance(record, dict):
        raise ValueError(f"a serialized cardzoo state is a JSON object, not {type(record).__name__}")
    unknown = sorted(set(record) - {"game", "config", "seed", "options", "actions", "seed_bytes"})
    if unknown:
        raise ValueError(f"serialized state: unknown key(s) {', '.join(map(repr, unknown))}")
    seed = record.get("seed")
    if seed is not None and not (_is_int(seed) and seed >= 0):
        raise ValueError(f"serialized state: 'seed' must be an int >= 0, got {seed!r}")
    for key in ("actions", "seed_bytes"):
        if key in record and not (isinstance(record[key], list) and all(_is_int(a) for a in record[key])):
            raise ValueError(f"serialized state: {key!r} must be a list of ints, got {record[key]!r}")
    for key in ("config", "options"):
        if record.get(key) is not None and not isinstance(record[key], dict):
            raise ValueError(f"serialized state: {key!r} must be an object, got {record[key]!r}")
    if "seed_bytes" in record and ("seed" in record or "actions" in record):
        raise ValueError("serialized state: 'seed_bytes' (before the deal) goes without 'seed' and 'actions'")
    if record.get("actions") and seed is None and record.get("options") is None:
        raise ValueError("serialized state: 'actions' need the 'seed' (or reset 'options') they follow")


class CardzooState(pyspiel.State):
    """One position: a `Table` (None at the chance nodes, which collect the seed's bytes in
    `seed_bytes`), the returns so far and each seat's observation history.

    `clone` is pyspiel's own: it copies the history and move number, which only C++ can set, and
    deep-copies each attribute (the table replays its record; the game is shared)."""

    def __init__(self, game: CardzooGame):
        super().__init__(game)
        self._game = game
        self.table: Table | None = None
        self.seed_bytes: list[int] = []
        self._n = game.num_seats
        self._returns = np.zeros(self._n)
        self._rewards = np.zeros(self._n)
        self._recall = _Recall(self._n)
        self._actor = pyspiel.PlayerId.CHANCE

    # ---- rebuilding ---------------------------------------------------------------------------
    @classmethod
    def from_record(cls, game: CardzooGame, record: dict) -> "CardzooState":
        """The state of a record (`serialize`): the episode replayed, every seat's digests rebuilt."""
        state = cls(game)
        _check_record(record)
        if record.get("game", game.spec.name) != game.spec.name:
            raise ValueError(f"a {record.get('game')!r} record is not a state of cardzoo_{game.spec.name}")
        seed, options = record.get("seed"), record.get("options")
        config = record.get("config", game.env_config)
        actions = [int(a) for a in record.get("actions", ())]
        if seed is None and options is None:
            for b in record.get("seed_bytes", ()):
                state.apply_action(int(b))
            return state
        if options is None and config == game.env_config and 0 <= seed < 256 ** game.seed_bytes:
            state.deal(seed)  # through pyspiel's apply_action: the history is the episode's own
            for a in actions:
                state.apply_action(a)
            return state
        # a resampled world (injected cards, perhaps another config): rebuilt, with no chance history
        state._start(Table(game.spec.name, config, seed, options))
        for a in actions:
            state._apply_action(a)
        return state

    def _start(self, table: Table) -> None:
        self.table = table
        self._recall = _Recall(self._n)
        self._recall.add(table)
        self._sync()

    def _sync(self) -> None:
        actor = self.table.actor
        self._actor = actor if actor >= 0 else pyspiel.PlayerId.TERMINAL

    # ---- the pyspiel.State API ----------------------------------------------------------------
    def current_player(self):
        return self._actor

    def is_terminal(self):
        return self._actor == pyspiel.PlayerId.TERMINAL

    def chance_outcomes(self):
        return _CHANCE

    def _legal_actions(self, player):
        if player != self._actor:
            return []
        return np.flatnonzero(self.table.mask()).tolist()

    def _apply_action(self, action):
        if self.table is None:
            if not 0 <= action < 256:
                raise ValueError(f"chance outcome {action} is outside 0..255 (a byte of the deal seed)")
            self.seed_bytes.append(int(action))
            if len(self.seed_bytes) == self._game.seed_bytes:
                seed = int.from_bytes(bytes(self.seed_bytes), "big")
                self._start(Table(self._game.spec.name, self._game.env_config, seed, None))
            return
        if self._actor < 0:
            raise ValueError("the episode is over: no action applies")
        table = self.table
        table.step(int(action))  # the env raises ValueError for an illegal action and changes nothing
        env = table.env
        r = np.array([_exact(env.rewards[a]) for a in env.possible_agents])
        self._rewards = r
        self._returns = self._returns + r
        self._recall.add(table)
        self._sync()

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed byte {action}"
        return self._game.namer.action_name(int(action))

    def returns(self):
        return self._returns.tolist()

    def rewards(self):
        return self._rewards.tolist()

    def _seat(self, player) -> int:
        """The seat a player argument names (the current player if None); a ValueError otherwise:
        Python's negative indexing would hand back another seat's information (the current player of
        a chance or terminal node is negative)."""
        p = self._actor if player is None else player
        if not 0 <= p < self._n:
            raise ValueError(f"player {int(p)} is not a seat 0..{self._n - 1}"
                             + (" (no seat is to act here: name one)" if player is None else ""))
        return int(p)

    def information_state_string(self, player=None):
        p = self._seat(player)
        return f"p{p} " + self._recall.digest(p).hex()

    def observation_string(self, player=None):
        p = self._seat(player)
        return _observation_string(self, p)

    def information_state_tensor(self, player=None):
        return self.observation_tensor(player)

    def observation_tensor(self, player=None):
        p = self._seat(player)
        if self.table is None:
            return [0.0] * self._game.namer.observation_size
        return self.table.observation(p).tolist()

    def serialize(self):
        return json.dumps({"seed_bytes": self.seed_bytes} if self.table is None else self.table.record())

    def resample_from_infostate(self, player, sampler):
        """A state of the same game in which seat `player` has seen exactly what it saw here (same
        information state string, observation and legal actions), the hidden cards drawn by the
        game's information-set sampler (`cardzoo.openspiel.worlds`); ValueError where no sampler covers the
        position. `sampler` (OpenSpiel's probability sampler) seeds the draw."""
        player = self._seat(player)
        if self.table is None:  # nothing is hidden before the deal
            return self.clone()
        seed = int(sampler() * 2.0 ** 53) if sampler is not None else int(self._game.rng.integers(2 ** 53))
        rng = np.random.default_rng(seed)
        table = self._game.spec.resample(self.table, int(player), rng)
        twin = CardzooState(self._game)
        twin.table = table
        twin._returns, twin._rewards = self._returns.copy(), self._rewards.copy()
        base = self._recall.digest(player)
        # the other seats' histories in the drawn world are unknown: they start from here
        others = [_digest(b"resampled" + base, table.observation(p).tobytes()) for p in range(self._n)]
        twin._recall = _Recall(self._n, [base if p == player else others[p] for p in range(self._n)])
        twin._sync()
        return twin

    def deal(self, seed: int) -> None:
        """At the start of an episode: apply the chance outcomes that spell env seed `seed` (the
        episode is then ``env.reset(seed=seed)``'s)."""
        if self.table is not None or self.seed_bytes:
            raise ValueError("deal(seed) starts an episode: this state is past its first chance node")
        n = self._game.seed_bytes
        if not 0 <= seed < 256 ** n:
            raise ValueError(f"seed {seed} does not fit in deal_seed_bytes={n} bytes")
        for b in int(seed).to_bytes(n, "big"):
            self.apply_action(b)

    @property
    def env(self):
        """The raw AEC env at this position (read it; stepping it directly desynchronises the state)."""
        return None if self.table is None else self.table.env

    def __str__(self):
        if self.table is None:
            return f"chance: deal seed bytes {self.seed_bytes}"
        return self.table.env.render()


def _exact(reward) -> float:
    """An env reward as the fraction it stands for: the envs pay float32, so LOPTI's -1/3 (LO §5) comes
    as -0.33333334 and a zero-sum round summed to -3e-8, where OpenSpiel checks zero-sum games to 1e-9.
    Every reward of the specs is a fraction of small denominator (places averaged over ties, thirds)."""
    x = float(reward)
    if x == int(x):
        return x
    f = Fraction(x).limit_denominator(120)
    return float(f) if abs(float(f) - x) <= 1e-6 * max(1.0, abs(x)) else x


class _Recall:
    """Each seat's observation history: the digest of the observations folded in so far and the
    observations (bytes) after them. Folding (one hash per observation, d_k = blake2b(d_(k-1) + obs_k))
    waits until a seat's information state string is asked for, so rollouts that never ask pay only
    the observing; pickling (pyspiel serializes a state's __dict__) folds first, keeping 16 bytes a seat."""

    __slots__ = ("seen", "unseen")

    def __init__(self, n: int, seen=None):
        self.seen = list(seen) if seen is not None else [b""] * n
        self.unseen = [[] for _ in range(n)]

    def add(self, table: Table) -> None:
        for p, unseen in enumerate(self.unseen):
            unseen.append(table.observation(p).tobytes())

    def digest(self, p: int) -> bytes:
        unseen = self.unseen[p]
        if unseen:
            d = self.seen[p]
            for b in unseen:
                d = _digest(d, b)
            self.seen[p] = d
            self.unseen[p] = []
        return self.seen[p]

    def copy(self) -> "_Recall":
        twin = _Recall(0, self.seen)
        twin.unseen = [list(u) for u in self.unseen]
        return twin

    def __deepcopy__(self, memo):
        return self.copy()  # no folding: a clone in a rollout may never ask for an information state

    def __getstate__(self):
        return [self.digest(p).hex() for p in range(len(self.seen))]

    def __setstate__(self, hexes):
        self.seen = [bytes.fromhex(h) for h in hexes]
        self.unseen = [[] for _ in hexes]


def _observation_string(state: CardzooState, p: int) -> str:
    if state.table is None:
        return f"p{p} before the deal"
    env = state.table.env
    obs = state.table.observation(p)
    public = json.dumps(env.public_state(), sort_keys=True, separators=(",", ":"))
    return f"p{p} hand {env.hand(p)} | {public} | obs {_digest(b'', obs.tobytes()).hex()}"


class _Observer:
    """pyspiel's observer protocol (`tensor`, `dict`, `set_from`, `string_from`) over the states."""

    def __init__(self, size: int, perfect_recall: bool):
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self.perfect_recall = perfect_recall

    def set_from(self, state, player):
        player = state._seat(player)
        if state.table is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = state.table.observation(player)

    def string_from(self, state, player):
        player = state._seat(player)
        if self.perfect_recall:
            return state.information_state_string(player)
        return _observation_string(state, player)


def _register() -> list[str]:
    names = []
    registered = {t.short_name for t in pyspiel.registered_games()}
    for spec in GAMES.values():
        cls = type(f"{spec.long_name.replace(' ', '')}Game", (CardzooGame,), {"spec": spec, "__module__": __name__})
        globals()[cls.__name__] = cls  # a module attribute: pickle finds the class by name
        name = f"cardzoo_{spec.name}"
        if name not in registered:
            pyspiel.register_game(_game_type(spec, pyspiel.GameType.RewardModel.TERMINAL), cls)
        names.append(name)
    return names


GAME_NAMES = _register()


class AgentBot(pyspiel.Bot):
    """A cardzoo agent (``act(observation, action_mask)``; ``observe_env`` first if it needs the env)
    as an OpenSpiel bot for seat `player` of a cardzoo game."""

    def __init__(self, agent, player: int):
        pyspiel.Bot.__init__(self)
        self.agent, self.player = agent, int(player)

    def step(self, state):
        actor = state.current_player()
        if actor != self.player:
            where = ("this is a chance node" if state.is_chance_node() else
                     "the episode is over" if state.is_terminal() else f"seat {actor} is")
            raise ValueError(f"AgentBot: seat {self.player} is not to act: {where}")
        env = state.env
        agent_name = env.possible_agents[self.player]
        if getattr(self.agent, "needs_env", False):
            self.agent.observe_env(env, self.player)
        obs = env.observe(agent_name)
        return int(self.agent.act(obs["observation"], obs["action_mask"]))

    def restart_at(self, state):
        pass

    def inform_action(self, state, player, action):
        pass


__all__ = ["GAME_NAMES", "AgentBot", "CardzooGame", "CardzooState", "Table"]
