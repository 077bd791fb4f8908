"""Batched stepping of B games of one kind: the shared driver behind every game's BatchGame.

A game's BatchGame subclasses `BatchGameBase`: it owns a state record array with a leading batch
axis and implements the `_kernel_*` hooks with its numba kernels. The checks users rely on (action
shapes, illegal actions raising before any game moves, done games ignored) live here once.

``threads=n`` splits a rollout and a seeded reset over n cores (`run_shards`): the batch is cut into n
contiguous shards, each played (or dealt) by the game's nogil kernels in its own thread. Every game
draws from its own generator (a rollout: generator b of `cardzoo.cards.seed_generators(seed, B)`,
made before the split; a reset: default_rng(seed + b)), so the games are the same for any n.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from cardzoo.firstrun import announce_compile
from cardzoo.options import check_int, check_seed, int_array, require_reset


_POOL: ThreadPoolExecutor | None = None  # shared by every BatchGame; grown to the largest threads asked


def check_threads(threads) -> int:
    """The number of threads a BatchGame splits its rollouts and seeded resets over: an int >= 1, else
    ValueError."""
    return check_int("threads", threads, lo=1, what="BatchGame")


def copy_records(records: np.ndarray) -> np.ndarray:
    """A copy of a game record array, byte for byte: numpy copies an array of a structured dtype field
    by field, ~8 x slower for a Court Piece record and more for larger ones."""
    return records.view(np.uint8).copy().view(records.dtype)


def run_shards(threads: int, n: int, shard):
    """[shard(a, b) for each contiguous shard a..b of rows 0..n-1], the shards run in `threads`
    threads (at most one shard per row). With threads=1 this is [shard(0, n)] in the calling thread,
    no pool involved. shard must release the GIL (a nogil kernel) for the threads to run at once."""
    global _POOL
    workers = min(threads, n)
    if workers <= 1:
        return [shard(0, n)]
    if _POOL is None or _POOL._max_workers < workers:
        _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cardzoo-shard")
    bounds = np.linspace(0, n, workers + 1).astype(np.int64)
    futures = [_POOL.submit(shard, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
    return [f.result() for f in futures]


class BatchGameBase(ABC):
    num_actions: int = 0
    observation_size: int = 0

    def __init__(self, n: int, num_players: int, threads: int = 1):
        self.n = check_int("n", n, lo=1, what="BatchGame batch size")
        self.threads = check_threads(threads)  # rollout() and reset(seed) run on this many cores
        announce_compile(type(self).__module__.partition(".")[0])  # before the game's kernels compile
        self.num_players = num_players
        self.rewards = np.zeros((self.n, num_players), np.float32)
        self._is_reset = False  # set by the first successful reset (see _check_reset)

    # ---- hooks ----------------------------------------------------------------------------------
    @abstractmethod
    def _reset_games(self, seeds: list, deals: list | None) -> None:
        """Start game b from numpy.random.default_rng(seeds[b]) (None = fresh entropy)."""

    @abstractmethod
    def _kernel_current_player(self) -> np.ndarray:
        """int8[n]: the seat to act in each game, -1 once done."""

    @abstractmethod
    def _kernel_legal_mask(self, out: np.ndarray) -> None:
        """Write each game's legal mask into out (uint8[n, A], zeroed; done games stay zero)."""

    @abstractmethod
    def _kernel_observe(self, out: np.ndarray) -> None:
        """Write each game's observation (of the seat to act) into out (float32[n, obs])."""

    @abstractmethod
    def _kernel_step(self, actions: np.ndarray) -> None:
        """Step every live game with its (legal) action; write self.rewards."""

    @abstractmethod
    def _kernel_rollout(self, policy: str, seed: int) -> int:
        """Play every live game to its end (one jitted call, or one per shard of run_shards with
        self.threads > 1); return decisions played."""

    # ---- the driver ---------------------------------------------------------------------------
    def _check_reset(self, call: str) -> None:
        """NotResetError (a ValueError) for `call` before the first successful reset."""
        require_reset(self._is_reset, call)

    def _game_index(self, b) -> int:
        """A game index from the user: an int in 0..n-1, else ValueError."""
        return check_int("b", b, 0, self.n - 1, what="game index")

    def reset(self, seed: int | None = None, deals: list | None = None) -> None:
        seed = check_seed(seed, self.n)  # game b is seeded seed + b
        if deals is not None and (not isinstance(deals, (list, tuple)) or len(deals) != self.n):
            raise ValueError(f"deals must be a list of {self.n} deals (one per game) or None")
        seeds = [None] * self.n if seed is None else range(seed, seed + self.n)
        self._reset_games(seeds, None if deals is None else list(deals))
        self.rewards[:] = 0.0
        self._is_reset = True

    @property
    def current_player(self) -> np.ndarray:
        self._check_reset("current_player")
        return self._kernel_current_player()

    @property
    def done(self) -> np.ndarray:
        self._check_reset("done")
        return self._kernel_current_player() < 0

    def legal_mask(self) -> np.ndarray:
        self._check_reset("legal_mask")
        out = np.zeros((self.n, self.num_actions), np.uint8)
        self._kernel_legal_mask(out)
        return out

    def observe(self) -> np.ndarray:
        self._check_reset("observe")
        out = np.zeros((self.n, self.observation_size), np.float32)
        self._kernel_observe(out)
        return out

    def step(self, actions) -> None:
        self._check_reset("step")
        acts = int_array(actions, "actions")
        if acts.shape != (self.n,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be an int array of shape ({self.n},), got {acts.dtype} {acts.shape}")
        live = ~self.done
        # the range is checked in the caller's dtype: a uint64 past 2**63 would wrap negative in int64
        bad_range = live & ((acts < 0) | (acts >= self.num_actions))
        if bad_range.any():
            b = int(np.flatnonzero(bad_range)[0])
            raise ValueError(f"game {b}: action {int(acts[b])} is outside 0..{self.num_actions - 1}")
        acts = acts.astype(np.int64)
        mask = self.legal_mask()
        legal = mask[np.arange(self.n), np.where(live, acts, 0)] != 0
        illegal = live & ~legal
        if illegal.any():
            b = int(np.flatnonzero(illegal)[0])
            raise ValueError(f"game {b}: illegal action {int(acts[b])} for seat {int(self.current_player[b])}; "
                             "no game was stepped")
        self._kernel_step(np.where(live, acts, -1))

    def rollout(self, policy: str = "random", seed: int = 0) -> int:
        """Play every live game to its end; seed (None: fresh entropy) seeds the random policy."""
        self._check_reset("rollout")
        if policy != "random":
            raise ValueError(f"unknown rollout policy {policy!r}; available: 'random'")
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) >> 1  # in 0..SEED_MAX
        return int(self._kernel_rollout(policy, seed))
