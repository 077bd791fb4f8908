"""Duplicate-format matches between agents, win rates with 95% confidence intervals, ratings.

**Duplicate format.** Luck of the deal is the biggest source of variance in card games, so every
deal is played several times with the agents' seats exchanged and the scores of the replays are
added up: in the partnership games (Court Piece, Sheng Ji) each deal is played twice, A on team 0
(seats 0, 2) and B on team 1, then the teams' seats swapped; in LOPTI the lineup (A, B, A, B, ...)
is played in every rotation of the seats. Deals are injected with ``reset(options={"deal": ...})``
(``BatchGame.reset(deals=...)``), so the replays of a deal are the same cards in the same order.

Two engines run the same matches: ``"batch"`` steps all replays of all deals together in one
``BatchGame`` (agents answer with ``act_batch``), ``"aec"`` plays each replay on the PettingZoo env
(needed by agents with ``needs_env`` and for per-decision time limits). ``engine="auto"`` picks
batch unless an agent needs the env or time limits are on.

**Time limits.** Court Piece has timeout rules (CP-12): with ``time_limits=True`` a trump call or
hide that takes longer than ``call_seconds`` (Band hide: ``band_hide_seconds``) is replaced by the
runner's ``env.timeout()`` call; ``play_seconds`` optionally limits card play the same way.

**Statistics.** Per deal the duplicate score of A is the mean reward of A's seats over the replays,
minus B's. ``MatchResult`` gives the mean score difference with a normal 95% interval and the win
rate (a tie counts one half) with a Wilson 95% interval. ``rate`` runs a round robin and fits
openskill (Plackett-Luce) ratings from every duplicate deal.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from cardzoo import records
from cardzoo.registry import make, make_batch

TEAM_GAMES = ("courtpiece", "shengji")


def num_players(game: str, config: dict) -> int:
    if game == "lopti":
        return int(config.get("num_players", 4))
    return 4


def random_deal(game: str, rng: np.random.Generator, config: dict | None = None):
    """One deal in the game's injection format (spec section 7), drawn from `rng`."""
    config = config or {}
    if game == "courtpiece":
        p = rng.permutation(52)
        return {"hands": [[int(c) for c in p[13 * s:13 * (s + 1)]] for s in range(4)],
                "dealer": int(rng.integers(4))}
    if game == "lopti":
        return {"deck": [int(c) for c in rng.permutation(52)]}
    if game == "shengji":
        decks = int(config.get("decks", 2))
        canonical = np.repeat(np.arange(54), decks)
        return [int(c) for c in canonical[rng.permutation(54 * decks)]]
    raise ValueError(f"unknown game {game!r}")


def reset_options(game: str, deal) -> dict:
    return {"deal": deal}


def duplicate_lineups(game: str, n_players: int) -> list[list[int]]:
    """Lineups of agent indices (0 = A, 1 = B) per seat, one per replay of a deal."""
    if game in TEAM_GAMES:
        return [[0, 1, 0, 1], [1, 0, 1, 0]]
    base = [i % 2 for i in range(n_players)]
    return [[base[(s + r) % n_players] for s in range(n_players)] for r in range(n_players)]


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


@dataclass
class MatchResult:
    game: str
    a: str
    b: str
    diffs: np.ndarray                       # per deal: A's duplicate score minus B's
    seconds: dict = field(default_factory=dict)   # agent name -> mean seconds per decision
    timeouts: int = 0
    games_played: int = 0

    @property
    def deals(self) -> int:
        return len(self.diffs)

    @property
    def wins(self) -> int:
        return int((self.diffs > 1e-9).sum())

    @property
    def ties(self) -> int:
        return int((np.abs(self.diffs) <= 1e-9).sum())

    @property
    def losses(self) -> int:
        return int((self.diffs < -1e-9).sum())

    @property
    def win_rate(self) -> float:
        return (self.wins + 0.5 * self.ties) / max(1, self.deals)

    @property
    def win_rate_ci(self) -> tuple[float, float]:
        return wilson(self.wins + 0.5 * self.ties, self.deals)

    @property
    def mean_diff(self) -> float:
        return float(self.diffs.mean()) if self.deals else 0.0

    @property
    def mean_diff_ci(self) -> tuple[float, float]:
        if self.deals < 2:
            return (-math.inf, math.inf)
        h = 1.96 * float(self.diffs.std(ddof=1)) / math.sqrt(self.deals)
        return (self.mean_diff - h, self.mean_diff + h)

    def row(self) -> dict:
        lo, hi = self.win_rate_ci
        dlo, dhi = self.mean_diff_ci
        return {"game": self.game, "A": self.a, "B": self.b, "deals": self.deals, "W-T-L":
                f"{self.wins}-{self.ties}-{self.losses}", "win rate A": f"{self.win_rate:.3f} [{lo:.3f}, {hi:.3f}]",
                "score A-B": f"{self.mean_diff:+.3f} [{dlo:+.3f}, {dhi:+.3f}]"}

    def __str__(self) -> str:
        return "  ".join(f"{k}: {v}" for k, v in self.row().items())


def _time_limit(game: str, env, config: dict, time_limits, play_seconds):
    """Seconds allowed for the decision now pending, or None (CP-12)."""
    if not time_limits or game != "courtpiece":
        return None
    phase = env.unwrapped.public_state()["phase"]
    if phase in ("call", "hide"):
        return float(config.get("call_seconds", 20))
    if phase == "band_hide":
        return float(config.get("band_hide_seconds", 20))
    if phase == "play":
        return play_seconds
    return None


def play_aec(game: str, agents: list, config: dict | None = None, deal=None, seed: int | None = None,
             time_limits: bool = False, play_seconds: float | None = None, stats: dict | None = None,
             on_record=None):
    """Play one episode on the AEC env with agents[seat]; returns (rewards per seat, env).

    `stats` (optional dict) accumulates {id(agent): [seconds, decisions]} and "timeouts".
    `on_record` (optional) is called with the game's record (cardzoo.records) at its end."""
    config = dict(config or {})
    env = make(game, raw=True, **config)     # raw: the runner's timeout() call sits beside step()
    # steps and timeouts go through `player`: the env itself, or a Recorder around it
    player = env if on_record is None else records.Recorder(env, players=[_label(ag) for ag in agents])
    player.reset(seed=seed, options=None if deal is None else reset_options(game, deal))
    n = num_players(game, config)
    totals = np.zeros(n, np.float64)
    agent_names = list(env.unwrapped.possible_agents)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            player.step(None)
            continue
        seat = agent_names.index(name)
        ag = agents[seat]
        limit = _time_limit(game, env, config, time_limits, play_seconds)
        if ag.needs_env:
            ag.observe_env(env, seat)
        t0 = time.perf_counter()
        a = ag.act(obs["observation"], obs["action_mask"])
        dt = time.perf_counter() - t0
        if stats is not None:
            rec = stats.setdefault(id(ag), [0.0, 0])
            rec[0] += dt
            rec[1] += 1
        if limit is not None and dt > limit:
            player.timeout()
            if stats is not None:
                stats["timeouts"] = stats.get("timeouts", 0) + 1
        else:
            player.step(int(a))
        for s, nm in enumerate(agent_names):
            totals[s] += env.rewards.get(nm, 0.0)
    if on_record is not None:
        on_record(player.record())
    return totals, env


def play_batch(game: str, agent_list: list, lineups: np.ndarray, config: dict | None = None,
               deals: list | None = None, seed: int = 0, stats: dict | None = None,
               max_steps: int = 100000, on_record=None) -> np.ndarray:
    """Play len(lineups) games together; lineups[b, seat] indexes agent_list. Returns rewards [n, seats].

    `on_record` (optional) is called with each game's record (cardzoo.records) at the end: game b is
    the AEC env reset with seed + b and deals[b], so its steps replay there (records.from_steps)."""
    config = dict(config or {})
    lineups = np.asarray(lineups, dtype=np.int64)
    n = len(lineups)
    g = make_batch(game, n, **config)
    g.reset(seed=seed, deals=deals)
    steps = None if on_record is None else [[] for _ in range(n)]
    action_name = None if on_record is None else make(game, raw=True, **config).action_name
    totals = np.zeros((n, lineups.shape[1]), np.float64)
    rows = np.arange(n)
    for _ in range(max_steps):
        cp = np.asarray(g.current_player, dtype=np.int64)
        live = cp >= 0
        if not live.any():
            break
        obs = g.observe()
        mask = g.legal_mask()
        who = np.where(live, lineups[rows, np.maximum(cp, 0)], -1)
        actions = np.zeros(n, np.int64)
        for k, ag in enumerate(agent_list):
            idx = np.flatnonzero(who == k)
            if idx.size:
                t0 = time.perf_counter()
                actions[idx] = ag.act_batch(obs[idx], mask[idx])
                if stats is not None:
                    rec = stats.setdefault(id(ag), [0.0, 0])
                    rec[0] += time.perf_counter() - t0
                    rec[1] += idx.size
        g.step(actions)
        totals[live] += g.rewards[live]
        if steps is not None:
            for b in np.flatnonzero(live):
                steps[b].append({"actor": int(cp[b]), "action": action_name(int(actions[b]))})
    else:
        raise RuntimeError(f"games still running after {max_steps} steps")
    if on_record is not None:
        for b in range(n):
            rec = records.from_steps(game, config, seed + b, None if deals is None else reset_options(game, deals[b]),
                                     steps[b], players=[_label(agent_list[k]) for k in lineups[b]])
            if not np.allclose(rec["rewards"], totals[b], atol=1e-6):
                raise RuntimeError(f"game {b}: the AEC replay of a batch game paid {rec['rewards']}, the batch "
                                   f"{totals[b].tolist()} (BatchGame and the AEC env must agree)")
            on_record(rec)
    return totals


def duplicate_match(game: str, a, b, deals: int = 100, config: dict | None = None, seed: int = 0,
                    engine: str = "auto", time_limits: bool = False, play_seconds: float | None = None,
                    progress=None, chunk: int = 256, on_record=None) -> MatchResult:
    """A against B on `deals` duplicate deals (see module docstring). `on_record` (optional) is called
    with the record (cardzoo.records) of every game played, in deal order, replays of a deal together."""
    config = dict(config or {})
    n = num_players(game, config)
    lineups = duplicate_lineups(game, n)
    rng = np.random.default_rng(seed)
    deal_list = [random_deal(game, rng, config) for _ in range(deals)]
    if engine == "auto":
        engine = "aec" if (a.needs_env or b.needs_env or time_limits) else "batch"
    check_engine(engine, (a, b))
    if engine == "batch" and time_limits:
        raise ValueError("time limits are timed per decision, which only the 'aec' engine does")
    for ag in (a, b):
        ag.reset()
    stats: dict = {}
    scores = np.zeros((deals, len(lineups), 2))   # mean reward of A's seats, of B's seats
    seat_of = [[np.array([s for s in range(n) if lu[s] == k]) for k in (0, 1)] for lu in lineups]
    if engine == "aec":
        for i, deal in enumerate(deal_list):
            for j, lu in enumerate(lineups):
                rew, _ = play_aec(game, [(a, b)[k] for k in lu], config, deal, seed=seed + i,
                                  time_limits=time_limits, play_seconds=play_seconds, stats=stats,
                                  on_record=on_record)
                scores[i, j] = [rew[seat_of[j][0]].mean(), rew[seat_of[j][1]].mean()]
            if progress is not None:
                progress.update(1)
    else:
        per = max(1, chunk // len(lineups))
        for start in range(0, deals, per):
            ids = list(range(start, min(deals, start + per)))
            games = [(i, j) for i in ids for j in range(len(lineups))]
            rew = play_batch(game, [a, b], np.array([lineups[j] for _, j in games]), config,
                             deals=[deal_list[i] for i, _ in games], seed=seed + start * len(lineups),
                             stats=stats, on_record=on_record)
            for r, (i, j) in zip(rew, games):
                scores[i, j] = [r[seat_of[j][0]].mean(), r[seat_of[j][1]].mean()]
            if progress is not None:
                progress.update(len(ids))
    diffs = (scores[:, :, 0] - scores[:, :, 1]).mean(axis=1)
    seconds = {}
    for ag in (a, b):
        t, k = stats.get(id(ag), [0.0, 0])
        seconds[_label(ag)] = t / max(1, k)
    return MatchResult(game, _label(a), _label(b), diffs, seconds, int(stats.get("timeouts", 0)),
                       deals * len(lineups))


def check_engine(engine: str, agents) -> None:
    """A ValueError unless ``engine`` can play every one of ``agents``: the batch engine hands an agent
    observations only (act_batch), so an agent that reads the env (``needs_env``: the search agents,
    Sheng Ji's residual policy) would not play as itself there."""
    if engine not in ("auto", "aec", "batch"):
        raise ValueError(f"engine must be 'auto', 'aec' or 'batch', not {engine!r}")
    if engine == "batch":
        for ag in agents:
            if ag.needs_env:
                raise ValueError(f"the 'batch' engine plays from observations only, and {_label(ag)} needs the "
                                 "env (it reads the game's state): use the 'aec' engine, or 'auto'")


def _label(agent) -> str:
    return getattr(agent, "label", None) or getattr(agent, "name", type(agent).__name__)


def rate(game: str, agents: dict, deals: int = 50, config: dict | None = None, seed: int = 0,
         engine: str = "auto", progress=None, on_record=None):
    """Round robin of duplicate matches between every pair; openskill ratings from every deal.

    Returns (ratings: list of dicts sorted best first, results: list of MatchResult)."""
    from openskill.models import PlackettLuce

    for name, ag in agents.items():  # every pair's engine is known before the first pair plays
        ag.label = name
    check_engine(engine, agents.values())
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in agents}
    results = []
    names = list(agents)
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            na, nb = names[x], names[y]
            agents[na].label, agents[nb].label = na, nb
            res = duplicate_match(game, agents[na], agents[nb], deals, config, seed=seed + 1000 * len(results),
                                  engine=engine, progress=progress, on_record=on_record)
            results.append(res)
            for d in res.diffs:
                ranks = [1, 1] if abs(d) <= 1e-9 else ([1, 2] if d > 0 else [2, 1])
                (ra,), (rb,) = model.rate([[ratings[na]], [ratings[nb]]], ranks=ranks)
                ratings[na], ratings[nb] = ra, rb
    table = sorted(({"agent": n, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for n, r in ratings.items()),
                   key=lambda t: -t["ordinal"])
    return table, results


def format_table(rows: list[dict]) -> str:
    """Plain-text table of a list of dicts with the same keys."""
    if not rows:
        return "(no rows)"
    keys = list(rows[0])
    cells = [[str(k) for k in keys]] + [[(f"{r[k]:.3f}" if isinstance(r[k], float) else str(r[k])) for k in keys]
                                        for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(keys))]
    lines = ["  ".join(c[i].ljust(widths[i]) for i in range(len(keys))) for c in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
