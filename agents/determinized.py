"""The skeleton the three determinized search agents share (``agents.<game>.search``).

Each game's search agent (``PIMCAgent``, ``LoptiSearch``, ``ShengJiSearch``) decides the same way:

1. ask its prior for an action first (the fallback, and the baseline the search must beat): the game's
   heuristic, or with ``prior=<checkpoint.pt>`` a learned policy (e.g. a residual policy, which is the
   heuristic with the network's changes);
2. sample worlds consistent with the public record and its own observation (game specific: what is
   public, and how a sampled world is rebuilt, differs per game);
3. play every candidate action in every world ``rollouts`` times — one batch of
   ``worlds x candidates x rollouts`` games laid out by ``paired_layout``, so each candidate is
   scored on the same worlds;
4. take the best mean reward, but keep the heuristic's action unless the searched one beats it by
   ``z`` standard errors of the paired difference over the same worlds (``override``, built on
   ``agents.base.confidently_better``), so sampling noise does not override a sound heuristic;
5. book the decision: ``stats`` (decisions, searched, fallbacks, games rolled out, search seconds)
   and ``last`` (the latest searched decision: games, seconds, rollouts per second, values).

``DeterminizedSearch`` holds steps 1, 3 (layout), 4 and 5 and the options every game has (``z``,
``env_config``, ``prior``); each game's subclass supplies the sampling, the candidates and the rollouts.
The rollouts themselves stay the game's jitted policies: a torch call per rollout decision would
cost more than the whole rollout. Court Piece's can also be a small residual network evaluated inside
its playout kernel (``pimc:policy=<checkpoint.pt>``, ``agents.jitnet``).
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from agents.base import Agent, BatchCache, confidently_better


def paired_layout(worlds: int, candidates, rollouts: int) -> np.ndarray:
    """The candidate played in each game of a ``worlds x candidates x rollouts`` batch (int64 array of
    that length): world-major, then candidate, then rollout — game i plays in world
    ``i // (len(candidates) * rollouts)``, so every candidate meets the same worlds."""
    return np.tile(np.repeat(np.asarray(candidates, np.int64), int(rollouts)), int(worlds))


class DeterminizedSearch(Agent):
    """Base class of the determinized search agents; see the module docstring.

    Subclasses set ``games`` (one game) and ``heuristic`` (that game's heuristic agent class) and
    implement ``act``; ``extra_stats`` are the counters they add to ``stats``. ``z``: the search
    overrides the heuristic only when its paired advantage exceeds ``z`` standard errors (0: pure
    arg-max); ``env_config``: the env's options when the agent plays without an env to read them from;
    ``prior``: a checkpoint (``learned:`` spec without the prefix) whose move is the default and the
    baseline, instead of the heuristic's (``fallback`` stays the heuristic, for its helpers).
    """

    name = "pimc"
    needs_env = True
    heuristic: type[Agent]

    def __init__(self, game: str | None, seed: int | None, z: float, env_config: dict | None,
                 extra_stats: dict | None = None, prior: str | None = None):
        super().__init__(game, seed)
        self.z = float(z)
        self.env_config = dict(env_config) if env_config is not None else None
        self.fallback = self.heuristic(game, seed)
        self.prior = self.fallback if prior is None else self._learned_prior(str(prior), seed)
        self.stats = {"decisions": 0, "searched": 0, "fallbacks": 0, "games": 0, "seconds": 0.0,
                      **(extra_stats or {})}
        self.last: dict = {}          # the latest searched decision: games, seconds, rollouts/s, values
        # sampled worlds are loaded into reused BatchGames: building one costs more than a search step
        self._batches = BatchCache(self.games[0])

    def _learned_prior(self, path: str, seed: int | None) -> Agent:
        from agents import make_agent

        agent = make_agent(f"learned:{path}", self.games[0], seed, env_config=self.env_config)
        if agent.needs_env:
            raise ValueError(f"prior={path}: the prior must play from the observation alone")
        return agent

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.fallback.reset(seed)
        if self.prior is not self.fallback:
            self.prior.reset(seed)

    def _config(self) -> dict:
        """The env's options as keyword arguments of ``make_batch``: ``env_config`` when given, else
        the config dataclass of the env handed to ``observe_env``."""
        if self.env_config is not None:
            return dict(self.env_config)
        cfg = getattr(self.env.unwrapped, "config", None)
        return dataclasses.asdict(cfg) if dataclasses.is_dataclass(cfg) else {}

    @property
    def rollouts_per_s(self) -> float:
        """Games rolled out per second of search time, over every searched decision."""
        return self.stats["games"] / max(1e-9, self.stats["seconds"])

    @property
    def decisions_per_s(self) -> float:
        """Searched decisions per second of search time."""
        return self.stats["searched"] / max(1e-9, self.stats["seconds"])

    def fall_back(self, h: int) -> int:
        """The prior's action ``h`` for a decision the search cannot take (counted in ``stats``)."""
        self.stats["fallbacks"] += 1
        return int(h)

    @staticmethod
    def best(values: dict, h: int) -> int:
        """The action of the highest mean value; ties go to the heuristic's action ``h``, then to the
        lowest action id."""
        return max(values, key=lambda a: (values[a], a == h, -a))

    def override(self, choice: int, h: int, per_game: dict) -> int:
        """``choice`` when the search is confident it beats the heuristic's ``h`` (``per_game``: each
        candidate's rewards, paired over the same sampled worlds), else ``h``; ``choice`` also stands
        when ``h`` was not searched."""
        if choice == h or h not in per_game:
            return choice
        return choice if confidently_better(per_game[choice] - per_game[h], self.z) else h

    def record(self, t0: float, **last) -> float:
        """Book a searched decision begun at ``t0`` (``time.perf_counter()``): ``last`` becomes the given
        entries (``games``, ``values``, ``choice``, ...) plus ``seconds`` and ``rollouts_per_s``, and
        ``stats`` counts it. Returns its seconds."""
        dt = time.perf_counter() - t0
        games = last.get("games", 0)
        self.last = {**last, "seconds": dt, "rollouts_per_s": games / max(1e-9, dt)}
        self.stats["seconds"] += dt
        self.stats["searched"] += 1
        return dt
