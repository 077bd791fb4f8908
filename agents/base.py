"""The agent interface shared by every cardzoo agent, and the uniform random agent.

An agent maps an observation and its legal-action mask to an action id:

* ``act(observation, action_mask) -> int`` for one decision (the AEC env's ``observe(agent)``);
* ``act_batch(obs[B, O], mask[B, A]) -> int64[B]`` for B decisions at once (``BatchGame.observe()``
  and ``BatchGame.legal_mask()``).

Agents are seeded (``seed`` in the constructor; ``reset(seed)`` re-seeds), so the same seed and the
same sequence of calls give the same actions. Agents use only the public API: the observation, the
mask, and — for agents that set ``needs_env = True`` — the public record of the AEC env, handed to
them through ``observe_env(env, seat)`` right before each ``act`` (``public_state()``,
``action_name()``; ``env.unwrapped.hand(seat)`` only for the agent's own seat). Agents with
``needs_env = False`` work from the observation vector alone, so they can also play inside the
batched arena and as self-play opponents.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Agent(ABC):
    """Base class. Subclasses implement ``act`` (and may vectorize ``act_batch``)."""

    name = "agent"
    #: True when ``act`` needs ``observe_env`` first (AEC arena only).
    needs_env = False
    #: games this agent can play (None = every game)
    games: tuple[str, ...] | None = None

    def __init__(self, game: str | None = None, seed: int | None = None, **config):
        if self.games is not None and game is not None and game not in self.games:
            raise ValueError(f"{type(self).__name__} plays {', '.join(self.games)}, not {game!r}")
        if config:
            raise ValueError(f"{type(self).__name__}: unknown option(s) {', '.join(sorted(config))}")
        self.game = game
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.env = None
        self.seat = None

    def reset(self, seed: int | None = None) -> None:
        """Re-seed (start of a match); ``seed=None`` keeps the constructor's seed."""
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def observe_env(self, env, seat: int) -> None:
        """Called by the AEC arena before ``act``: the env (wrapped or raw) and the acting seat."""
        self.env = env
        self.seat = int(seat)

    @abstractmethod
    def act(self, observation, action_mask) -> int:
        """The action id for one decision (its mask bit is set)."""

    def act_batch(self, obs, masks) -> np.ndarray:
        obs = np.asarray(obs)
        masks = np.asarray(masks)
        return np.array([self.act(obs[i], masks[i]) for i in range(len(masks))], dtype=np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, seed={self.seed!r})"


def legal_actions(action_mask) -> np.ndarray:
    """Ascending ids of the legal actions; ValueError when none is legal."""
    legal = np.flatnonzero(np.asarray(action_mask))
    if legal.size == 0:
        raise ValueError("the action mask has no legal action: this seat is not to act")
    return legal


class RandomAgent(Agent):
    """Uniform over the legal actions, seeded; ``act_batch`` is one vectorized draw."""

    name = "random"

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, obs, masks) -> np.ndarray:
        masks = np.asarray(masks)
        if masks.ndim != 2:
            raise ValueError(f"masks must be [B, A], got shape {masks.shape}")
        if len(masks) and not masks.any(axis=1).all():
            raise ValueError("a row of the action mask has no legal action")
        u = self.rng.random(masks.shape)
        u[masks == 0] = -1.0
        return u.argmax(axis=1).astype(np.int64)


def confidently_better(diff, z: float) -> bool:
    """True when the paired differences ``diff`` (a candidate's value minus the baseline's, over the
    same sampled worlds) have a mean above ``z`` standard errors: how the search agents decide that a
    searched action may override their heuristic's, so sampling noise does not."""
    d = np.asarray(diff, dtype=np.float64)
    se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.inf
    return bool(d.mean() > z * se)


class BatchCache:
    """``BatchGame`` objects of one game by (size, config), reused across a search agent's decisions:
    building one (numba state arrays) costs more than the search step that fills it."""

    def __init__(self, game: str, limit: int = 32):
        self.game, self.limit, self._games = game, int(limit), {}

    def get(self, n: int, cfg: dict):
        key = (int(n), repr(sorted(cfg.items())))
        g = self._games.get(key)
        if g is None:
            from cardzoo.registry import make_batch

            if len(self._games) >= self.limit:
                self._games.clear()
            g = self._games[key] = make_batch(self.game, int(n), **cfg)
        return g
