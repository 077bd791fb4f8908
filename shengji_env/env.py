"""The Sheng Ji AEC env (raw_env / env) and BatchGame, bound to the kernels (spec section 9)."""
from __future__ import annotations

import copy
import numbers

import numpy as np
from numba import njit

from cardzoo import aec, nprandom
from cardzoo.fastpath import RESYNC, KernelEntry
from cardzoo.options import check_int
from cardzoo.batch import BatchGameBase, run_shards
from cardzoo.cards import SUITS, card_index, card_text, rank_index

from . import config as cfgmod
from . import kernels as K
from .observe import OBS_SIZE, batch_observe, observe_seat
from .public import TRUMP_NAMES, card_set_text, public_state_dict, result_dict
from .state import make_state

NUM_ACTIONS = K.NUM_ACTIONS
_PHASE_STR = K.PHASE_NAMES + ("OVER", "OVER", "OVER")
RESET_KEYS = ("deal", "redeals", "banker", "levels", "first_drawer", "trump")


def parse_deal(deal, decks: int, what: str = "deal") -> np.ndarray:
    """A section 7.1 order (ints 0..53 or card text) -> int8 array; each card exactly D times."""
    if (isinstance(deal, (str, bytes)) or not isinstance(deal, (list, tuple, np.ndarray))
            or (isinstance(deal, np.ndarray) and deal.ndim != 1)):
        raise ValueError(f"{what} must be a list (or 1-d array) of {54 * decks} cards, got {type(deal).__name__}")
    if len(deal) != 54 * decks:
        raise ValueError(f"{what} must hold {54 * decks} cards (54 x {decks} decks), got {len(deal)}")
    if isinstance(deal, np.ndarray) and deal.ndim == 1 and np.issubdtype(deal.dtype, np.integer):
        # integer arrays (search agents start hundreds of sampled deals per decision): checked
        # as a whole instead of card by card, with the same messages
        bad = np.flatnonzero((deal < 0) | (deal >= 54))
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"{what}[{i}] = {deal[i]!r} is not a card (an id 0..53 or text such as 'AS', 'LJ')")
        out = deal.astype(np.int8)
    else:
        out = _parse_deal_items(deal, decks, what)
    counts = np.bincount(out.astype(np.int64), minlength=54)
    bad = np.flatnonzero(counts != decks)
    if len(bad):
        c = int(bad[0])
        raise ValueError(f"{what} holds {card_text(c)} {int(counts[c])} times; every card must appear exactly "
                         f"{decks} times")
    return out


def _parse_deal_items(deal, decks: int, what: str) -> np.ndarray:
    out = np.empty(54 * decks, np.int8)
    for i, item in enumerate(deal):
        if isinstance(item, str):
            c = card_index(item, jokers=True)
        elif isinstance(item, (numbers.Integral, np.integer)) and not isinstance(item, bool) and 0 <= int(item) < 54:
            c = int(item)
        else:
            raise ValueError(f"{what}[{i}] = {item!r} is not a card (an id 0..53 or text such as 'AS', 'LJ')")
        out[i] = c
    return out


def _parse_level(v, what):
    if isinstance(v, bool):
        raise ValueError(f"unreadable level {v!r} in {what}")
    if isinstance(v, (numbers.Integral, np.integer)):
        if 0 <= int(v) <= 12:
            return int(v)
        raise ValueError(f"level {v!r} in {what} is outside 0..12")
    if isinstance(v, str):
        try:
            return rank_index(v)
        except ValueError:
            raise ValueError(f"unreadable level {v!r} in {what}: expected '2'..'A' or 0..12") from None
    raise ValueError(f"unreadable level {v!r} in {what}: expected '2'..'A' or 0..12")


def canonical_order(rng: np.random.Generator, decks: int) -> np.ndarray:
    """Section 7.3: canonical[rng.permutation(54 D)], canonical = each card D times ascending."""
    canonical = np.repeat(np.arange(54, dtype=np.int8), decks)
    return canonical[rng.permutation(54 * decks)]


class _Setup:
    """Validated reset options (section 7.1) for one game."""

    def __init__(self, cfg: cfgmod.Config, options: dict | None, rng: np.random.Generator | None):
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, not {type(options).__name__}")
        # (an unknown key never gets here from reset: the AEC adapter warns and drops it, 9.6)
        D = cfg.decks
        self.deal = None if options.get("deal") is None else parse_deal(options["deal"], D, "deal")
        redeals = options.get("redeals")
        self.redeals = []
        if redeals is not None:
            if isinstance(redeals, (str, bytes)) or not isinstance(redeals, (list, tuple)):
                raise ValueError("redeals must be a list of deals")
            self.redeals = [parse_deal(r, D, f"redeals[{i}]") for i, r in enumerate(redeals)]
        banker = options.get("banker")
        if banker is not None and (isinstance(banker, bool) or not isinstance(banker, (numbers.Integral, np.integer))
                                   or not 0 <= int(banker) <= 3):
            raise ValueError(f"banker={banker!r} must be a seat 0..3 or None")
        self.banker = -1 if banker is None else int(banker)
        fd = options.get("first_drawer")
        if fd is not None:
            if isinstance(fd, bool) or not isinstance(fd, (numbers.Integral, np.integer)) or not 0 <= int(fd) <= 3:
                raise ValueError(f"first_drawer={fd!r} must be a seat 0..3")
            if banker is not None:
                raise ValueError("first_drawer cannot be given together with banker (the banker draws first)")
        self.first_drawer = cfg.first_drawer if fd is None else int(fd)
        start = rank_index(cfg.start_level)
        lv = options.get("levels")
        if lv is None:
            self.levels = [start, start]
        else:
            self.levels = list(_parse_levels(lv, "levels"))  # BatchGame.reset's reading of the pair
        if self.banker < 0 and self.levels[0] != self.levels[1]:
            raise ValueError(f"levels={lv!r} must be equal when no banker is given (first hand, SJ-4.2)")
        # the start kernel's rows of these (made once: an env's seeded resets reuse one _Setup)
        self.rows = (np.array([self.banker], np.int64), np.array([self.levels], np.int64),
                     np.array([self.first_drawer], np.int64))
        tr = options.get("trump")
        self.trump = -1
        if tr is not None:
            if cfg.declaration_mode != "preset":
                raise ValueError("reset option trump needs declaration_mode='preset'")
            if not isinstance(tr, str) or tr.upper() not in TRUMP_NAMES:
                raise ValueError(f"trump={tr!r} must be one of 'C', 'D', 'H', 'S', 'NT'")
            self.trump = TRUMP_NAMES.index(tr.upper())


def _first_draws(cfg: cfgmod.Config, setup: _Setup, rng: np.random.Generator):
    """Section 7.4's draws for the first hand: its order (unless injected), then its preset trump
    (unless given). Returns (order, trump)."""
    order = setup.deal if setup.deal is not None else canonical_order(rng, cfg.decks)
    trump = setup.trump
    if cfg.declaration_mode == "preset" and trump < 0:
        trump = int(rng.integers(4))
    return order, trump


@njit(inline="always", cache=True)
def _canonical_into(out, decks):
    """Section 7.3's canonical order, each card `decks` times ascending, into out[:54 decks]."""
    i = 0
    for c in range(54):
        for _ in range(decks):
            out[i] = c
            i += 1


@njit(inline="always", cache=True)
def _preset_trump_draw(row, trumps, b):
    if trumps[b] < 0:
        trumps[b] = nprandom.integers_below(row, 4)


@njit(cache=True, nogil=True)
def seeded_first_draws_rows(words, nwords, states, orders, trumps, decks, draw_orders, preset):
    """_first_draws of games 0..n-1 from default_rng(seed), in numba (cardzoo.nprandom; game b's seed
    as entropy words[b]): its order canonical[permutation(54 D)] into orders[b] (when draw_orders),
    then its preset trump integers(4) into trumps[b] where none was given (trumps[b] < 0, when
    preset); the generator's state after the draws in states[b]. BatchGame's reset runs it on shards
    of the batch, an env's on its one game. The canonical order is shuffled in place (the same swaps
    give canonical[permutation]), games b and b + 1 side by side (nprandom.shuffle_pair)."""
    n = 54 * decks
    nb = states.shape[0]
    for b in range(0, nb - 1, 2):
        nprandom.seed_row(words[b], nwords[b], states[b])
        nprandom.seed_row(words[b + 1], nwords[b + 1], states[b + 1])
        if draw_orders:
            _canonical_into(orders[b], decks)
            _canonical_into(orders[b + 1], decks)
            nprandom.shuffle_pair(states[b], orders[b], states[b + 1], orders[b + 1], n)
        if preset:
            _preset_trump_draw(states[b], trumps, b)
            _preset_trump_draw(states[b + 1], trumps, b + 1)
    if nb % 2:
        b = nb - 1
        nprandom.seed_row(words[b], nwords[b], states[b])
        if draw_orders:
            _canonical_into(orders[b], decks)
            nprandom.shuffle_into(states[b], orders[b], n)
        if preset:
            _preset_trump_draw(states[b], trumps, b)


_SEEDED_FIRST_DRAWS = KernelEntry(seeded_first_draws_rows)


def _init_game(st, cfg_arr, setup: _Setup, orders, trumps, env_step, work):
    """The kernel start of an env's game (st: its one record) from its validated options and section
    7.4 draws (_first_draws; orders int8[1, n], trumps int64[1]): the batch start on that row, then
    its automatic moves through the env's step entry point `env_step` on its work buffer, which also
    writes the mask and the report (a first run compiles that entry point anyway; _start_rows would
    compile the moves again)."""
    _BEGIN_ROWS(st, cfg_arr, orders, trumps, *setup.rows)
    env_step(st, 0, cfg_arr, K.AUTO_AFTER_DEAL, work)


def _fill_deals(st, cfg_arr, cfg: cfgmod.Config, rngs, redeal_queues):
    """Give every game waiting in NEED_DEAL its next order (redeal or next match hand, 7.4)."""
    while True:
        waiting = np.flatnonzero(st["phase"] == K.NEED_DEAL)
        if len(waiting) == 0:
            return
        for b in waiting:
            b = int(b)
            kind = int(st[b]["need_kind"])
            q = redeal_queues[b] if redeal_queues is not None else None
            trump = -1
            if kind == 1 and q:
                order = q.pop(0)
            else:
                order = canonical_order(rngs[b], cfg.decks)
                if kind == 2 and cfg.declaration_mode == "preset":
                    trump = int(rngs[b].integers(4))
            K.start_deal(st, b, cfg_arr, order, trump)
            _after_deal_auto(st, b, cfg_arr)


# ---- names (9.5) ----------------------------------------------------------------------------

def _build_names():
    names = []
    for c in range(54):
        names.append(f"card {card_text(c)}")
    names.append("done")
    names.append("pass")
    for s in range(4):
        for k in range(1, 5):
            names.append(f"declare level {SUITS[s]} x{k}")
    for k in range(1, 5):
        names.append(f"declare LJ x{k}")
    for k in range(1, 5):
        names.append(f"declare BJ x{k}")
    for s in range(4):
        names.append(f"name trump {SUITS[s]}")
    return names


ACTION_NAMES = _build_names()
_NAME_TO_ID = {n: i for i, n in enumerate(ACTION_NAMES)}


def action_name(a) -> str:
    if isinstance(a, bool) or not isinstance(a, (numbers.Integral, np.integer)) or not 0 <= int(a) < NUM_ACTIONS:
        raise ValueError(f"action {a!r} is outside 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[int(a)]


def action_from_name(name) -> int:
    if not isinstance(name, str):
        raise ValueError(f"action name {name!r} is not a string")
    if name in _NAME_TO_ID:
        return _NAME_TO_ID[name]
    if name.startswith("card 10") and len(name) == 8:
        alt = "card T" + name[7:]
        if alt in _NAME_TO_ID:
            return _NAME_TO_ID[alt]
    raise ValueError(f"unknown action name {name!r}")


# ---- AEC env --------------------------------------------------------------------------------

MAX_PLAYS_LIMIT = 10**7
"""The largest max_plays of legal_plays: its buffer of max_plays x 54 bytes (540 MB) is allocated at once."""


def _legal_plays(game, b: int, max_plays) -> np.ndarray:
    """The legal plays of game b (raw_env: 0) as rows of one int8 buffer per env/BatchGame object,
    reused across calls (a view: the caller copies what it keeps). The kernel writes every listed
    row in full, so the buffer is never cleared, and it sees exactly max_plays rows, as a fresh
    buffer of max_plays rows would be; the buffer grows to the largest max_plays asked."""
    if isinstance(max_plays, bool) or not isinstance(max_plays, (numbers.Integral, np.integer)) or \
            not 0 <= max_plays <= MAX_PLAYS_LIMIT:
        raise ValueError(f"max_plays must be an integer in 0..{MAX_PLAYS_LIMIT} (the buffer holds 54 bytes a "
                         f"play), got {max_plays!r}")
    max_plays = int(max_plays)
    if not 0 <= b < len(game._st):
        raise ValueError(f"game index {b} is outside 0..{len(game._st) - 1}")
    buf = getattr(game, "_plays_buf", None)
    if buf is None or buf.shape[0] < max_plays:
        buf = game._plays_buf = np.empty((max_plays, 54), np.int8)
    n = K.legal_plays(game._st, b, game._cfg, buf[:max_plays])
    if n < 0 or n > max_plays:
        raise ValueError(f"the legal plays exceed max_plays={max_plays}")
    return buf[:n]


class raw_env(aec.CardGameEnv):
    metadata = {"name": "shengji_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    version = 0
    phase_names = _PHASE_STR
    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE
    observation_bounds = (-1000.0, 1000.0)
    reset_options = RESET_KEYS
    # (_plays_buf: legal_plays' scratch rows, megabytes a clone need not copy; made again on its first call)
    _derived = ("_blank", "_blank_bytes", "_cur_mask", "_report_words", "_report_rewards", "_env_step", "_plays_buf")

    def __init__(self, render_mode: str | None = None, **config):
        self.config = cfgmod.make(**config)
        self._cfg = self.config.to_array()
        self._st = make_state(1)
        self._result_cache = None
        # the last non-quiet call's report (_pull: actor or -1, phase, term, trunc, result valid, result
        # hand index) and rewards; env_step's work buffer holds the actor's mask (_cur_mask, rewritten
        # in place by every step: the adapter hands out copies), its scratch and that report
        self._report, self._rew = (-1, K.OVER, 0, 0, 0, 0), np.zeros(4, np.float32)
        self._work = np.zeros(K.WORK_BYTES, np.int8)
        # _game_reset_seeded's options (none) and work arrays (a seed's entropy words)
        self._no_options = _Setup(self.config, None, None)
        self._seed_words = np.zeros((1, 2), np.uint32)
        self._seed_nwords = np.zeros(1, np.int64)
        self._seed_order = np.zeros((1, 54 * self.config.decks), np.int8)
        self._seed_trump = np.full(1, -1, np.int64)
        super().__init__(4, render_mode=render_mode)
        self._bind()

    def _bind(self):
        # make_state(1) as bytes: each reset starts from a byte copy of it (a fresh array: earlier
        # states stay as they were), which costs a fraction of make_state's field writes
        self._blank = make_state(1)
        self._blank_bytes = self._blank.view(np.uint8).tobytes()
        self._cur_mask = self._work[:NUM_ACTIONS]
        self._report_words = self._work[K.WORK_INFO:K.WORK_INFO + 48].view(np.int64)  # _pull reads them
        self._report_rewards = self._work[K.WORK_INFO + 48:K.WORK_INFO + 64].view(np.float32)
        # the kernels' compiled entry points at the env's argument types (fixed: see KernelEntry)
        self._env_step = _ENV_STEP.at(self._st, 0, self._cfg, 0, self._work)

    def _refresh(self):
        self._env_step(self._st, 0, self._cfg, K.SYNC_ONLY, self._work)
        self._pull()

    def _pull(self):
        """Read a non-quiet call's report (a quiet step changes only the actor, which the adapter keeps)."""
        self._report, self._rew = tuple(self._report_words.tolist()), self._report_rewards.copy()

    # ---- hooks ----
    def _game_reset_seeded(self, seed):
        """_game_reset(default_rng(seed), None) with the first draws made in numba: the env then holds
        exactly what the plain path leaves (a redeal draws on from the same generator state)."""
        if not nprandom.STREAM_MATCHES:
            return None
        nprandom.put_seed_words(seed, self._seed_words, self._seed_nwords)
        states = np.empty((1, nprandom.STATE_WORDS), np.uint64)  # the generator's own: kept by it
        order, trump = self._seed_order, self._seed_trump  # read by _start, kept by nobody
        trump[0] = -1
        _SEEDED_FIRST_DRAWS(self._seed_words, self._seed_nwords, states, order, trump, self.config.decks, True,
                            self.config.declaration_mode == "preset")
        rng = nprandom.LazyGenerator(states, 0)
        self._start(self._no_options, order, trump, rng)
        return rng

    def _game_reset(self, rng, options):
        setup = _Setup(self.config, options, rng)
        order, trump = _first_draws(self.config, setup, rng)
        self._start(setup, np.asarray(order, np.int8).reshape(1, -1), np.array([trump], np.int64), rng)

    def _start(self, setup, orders, trumps, rng):
        """The new episode from its validated options and first draws (nothing fails from here)."""
        # a writable array over a fresh copy of the blank record's bytes: ~10x faster than viewing a
        # copied uint8 array as the record dtype (numpy checks such a view field by field)
        st = np.frombuffer(bytearray(self._blank_bytes), self._blank.dtype)
        if isinstance(self._blank, np.recarray):  # make_state's form with numba's JIT disabled
            st = st.view(np.recarray)
        _init_game(st, self._cfg, setup, orders, trumps, self._env_step, self._work)
        queues = [list(setup.redeals)]
        self._st = st
        self._redeal_queue = queues
        self._result_cache = None
        self._pull()
        if self._report[1] == K.NEED_DEAL:  # the first deal needs another (a redeal): _fill_deals
            _fill_deals(st, self._cfg, self.config, [rng], queues)
            self._refresh()

    def _game_step(self, action):
        self._env_step(self._st, 0, self._cfg, action, self._work)
        self._refresh()  # (a quiet step leaves no report in the work buffer)
        if self._report[1] == K.NEED_DEAL:
            self._deal_next()

    def _deal_next(self):
        """The next deal of a match or a redeal (the kernel stopped at NEED_DEAL); the step's rewards stay."""
        _fill_deals(self._st, self._cfg, self.config, [self._rng], self._redeal_queue)
        rew = self._rew.copy()
        self._refresh()
        self._rew = rew

    def _game_quick_step(self, action):
        """The adapter's fast path: env_step's report (cardzoo.fastpath; ILLEGAL when the env's mask refuses)."""
        moved = self._env_step(self._st, 0, self._cfg, action, self._work)
        if moved == RESYNC:
            self._pull()
            if self._report[1] == K.NEED_DEAL:
                self._deal_next()
        return moved

    def _game_actor(self):
        return self._report[0]

    def _game_mask(self):
        return self._cur_mask

    def _game_observation(self, seat):
        out = np.zeros(OBS_SIZE, np.float32)
        # the compiled entry point, bound at the first observation (a masks-only first run compiles none)
        observe = _OBSERVE_SEAT.fn or _OBSERVE_SEAT.at(self._st, 0, seat, out, self._cur_mask)
        observe(self._st, 0, seat, out, self._cur_mask)
        return out

    def _game_phase(self):
        return _PHASE_STR[self._report[1]]

    def _game_rewards(self):
        return self._rew

    def _game_end(self):
        return bool(self._report[2]), bool(self._report[3])

    def _game_result(self):
        if not self._report[4]:
            return None
        key = self._report[5]
        if self._result_cache is None or self._result_cache[0] != key:
            self._result_cache = (key, result_dict(self._st[0]))
        return self._result_cache[1]

    def _game_render(self):
        from .render import render_text
        text = render_text(self._st[0], self.config)
        if self.render_mode == "human":  # PettingZoo's contract: human mode shows the table, returns None
            print(text)
            return None
        return text

    # ---- section 9 extras ----
    def public_state(self) -> dict:
        self._check_reset("public_state")
        return public_state_dict(self._st[0], self.config)

    def action_name(self, a) -> str:
        return action_name(a)

    def action_from_name(self, name) -> int:
        return action_from_name(name)

    def hand(self, seat) -> str:
        if isinstance(seat, bool) or not isinstance(seat, (numbers.Integral, np.integer)) or not 0 <= int(seat) <= 3:
            raise ValueError(f"seat {seat!r} is outside 0..3")
        self._check_reset("hand")
        return card_set_text(self._st[0]["hand"][int(seat)])

    def legal_plays(self, max_plays: int = 100000) -> list[str]:
        """Complete legal plays of the current BURY/LEAD/FOLLOW decision (containing the current
        selection) as card-set strings; a helper for agents that score whole moves. More than
        max_plays (at most MAX_PLAYS_LIMIT, 10**7) is a ValueError."""
        self._check_reset("legal_plays")
        plays = _legal_plays(self, 0, max_plays)
        return [card_set_text(p) for p in plays]


_ENV_STEP = KernelEntry(K.env_step)
_OBSERVE_SEAT = KernelEntry(observe_seat)
_SCRATCH_WORK = np.zeros(K.WORK_BYTES, np.int8)


def _after_deal_auto(st, b, cfg_arr):
    """K.after_deal_auto through the env's one entry point (K.env_step), which a first run compiles
    anyway, with a scratch work buffer."""
    _ENV_STEP(st, b, cfg_arr, K.AUTO_AFTER_DEAL, _SCRATCH_WORK)


def env(**config):
    return aec.wrap(raw_env(**config))


def compile_ahead() -> list:
    """cardzoo.firstrun's helper compiles these (dispatcher, sample arguments of the env's types)
    while a first env() compiles its step: the FOLLOW mask, the observation, the seeded start."""
    st, cfg, mask, i64 = make_state(1), cfgmod.make().to_array(), np.zeros(NUM_ACTIONS, np.int8), np.zeros(1, np.int64)
    return [(K.legal_mask, (st, 0, cfg, mask)),
            (observe_seat, (st, 0, 0, np.zeros(OBS_SIZE, np.float32), mask)),
            (seeded_first_draws_rows, (np.zeros((1, 2), np.uint32), i64, np.empty((1, nprandom.STATE_WORDS), np.uint64),
                                       np.empty((1, 54), np.int8), i64, 1, True, False)),
            (_begin_rows, (st, cfg, np.empty((1, 54), np.int8), i64, i64, np.zeros((1, 2), np.int64), i64))]


# ---- BatchGame (9.7) ------------------------------------------------------------------------

class _RowRngs:
    """Per-game generators (section 7.3: game b draws from default_rng(seeds[b])), each created on its
    first draw: default_rng costs tens of microseconds, and most batches never draw (injected deals,
    preset trump and one-hand episodes need no random order: how search agents start sampled worlds).
    With ``states`` (uint64[n, nprandom.STATE_WORDS]) the reset's first draws were made in one jitted
    call (cardzoo/nprandom.py): game b's generator continues from states[b], the exact state
    default_rng(seeds[b]) is in after those draws."""

    __slots__ = ("seeds", "gens", "states")

    def __init__(self, seeds, states=None):
        self.seeds = list(seeds)
        self.gens = [None] * len(self.seeds)
        self.states = states

    def __getitem__(self, b):
        g = self.gens[b]
        if g is None:
            g = (nprandom.to_generator(self.states[b]) if self.states is not None
                 else np.random.default_rng(self.seeds[b]))
            self.gens[b] = g
        return g

    def __len__(self):
        return len(self.seeds)

    def _make_unseeded(self, rows) -> None:
        """Make the fresh-entropy generators (seed None) of rows not made yet: a copy of the
        games then draws what the originals will, instead of entropy of its own."""
        if self.states is None:
            for b in rows:
                if self.gens[b] is None and self.seeds[b] is None:
                    self[b]

    def __getstate__(self):  # copy.deepcopy and pickle of a BatchGame
        self._make_unseeded(range(len(self.seeds)))
        return self.seeds, self.gens, self.states

    def __setstate__(self, state):
        self.seeds, self.gens, self.states = state

    def take(self, rows) -> "_RowRngs":
        """The generators of games rows, each an independent copy in its current state."""
        states = None if self.states is None else self.states[np.asarray(rows, np.int64)]
        out = _RowRngs([self.seeds[b] for b in rows], states)
        self._make_unseeded(rows)
        for i, b in enumerate(rows):
            if self.gens[b] is not None:
                out.gens[i] = copy.deepcopy(self.gens[b])
        return out


def _seeded_first_draws(seeds, orders, trumps, draw_orders: bool, preset: bool, decks: int,
                        threads: int = 1):
    """Section 7.4's first draws of every game (seeded_first_draws_rows over `threads` shards), as
    _reset_games' loop makes them with default_rng(seeds[b]). Fills orders and trumps in place;
    returns the generator states left after the draws."""
    words, nwords = nprandom.entropy_words(seeds)
    states = np.empty((len(nwords), nprandom.STATE_WORDS), np.uint64)
    run_shards(threads, len(nwords), lambda a, b: seeded_first_draws_rows(
        words[a:b], nwords[a:b], states[a:b], orders[a:b], trumps[a:b], decks, draw_orders, preset))
    return states


def _int_deals(deals: list, decks: int) -> np.ndarray | None:
    """The deals as one int8 array [n, 54 D] when every one is a valid integer array (checked in a
    few whole-batch operations), else None: the caller then parses them one by one (parse_deal),
    which also names the first problem."""
    if not all(isinstance(d, np.ndarray) and d.ndim == 1 and d.shape[0] == 54 * decks
               and np.issubdtype(d.dtype, np.integer) for d in deals):
        return None
    arr = np.stack(deals)
    if (arr < 0).any() or (arr >= 54).any():
        return None
    # per-row card counts in one bincount (row r's cards offset by 54 r)
    counts = np.bincount((arr.astype(np.int64) + 54 * np.arange(len(arr))[:, None]).ravel(), minlength=54 * len(arr))
    if (counts != decks).any():
        return None
    return arr.astype(np.int8)


def _per_game(value, n: int, what: str, is_one, parse_one) -> list:
    """A reset option given once for every game (is_one(value)) or as a sequence of n values, one
    per game (None entries allowed) -> a list of n parsed values (None where not given)."""
    if value is None:
        return [None] * n
    if is_one(value):
        one = parse_one(value, what)
        return [one] * n
    if (isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray))
            or (isinstance(value, np.ndarray) and value.ndim == 0)):  # a 0-d array has no len()
        raise ValueError(f"{what}={value!r} must be one value for every game or a list of {n} (one per game)")
    if len(value) != n:
        raise ValueError(f"{what} must be one value for every game or a list of {n} (one per game), "
                         f"got a list of {len(value)}")
    return [None if v is None else parse_one(v, f"{what}[{i}]") for i, v in enumerate(value)]


def _is_seat(v) -> bool:
    return isinstance(v, (numbers.Integral, np.integer))


def _parse_seat(v, what):
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)) or not 0 <= int(v) <= 3:
        raise ValueError(f"{what}={v!r} must be a seat 0..3 or None")
    return int(v)


def _is_level_pair(v) -> bool:
    """One [team 0, team 1] pair (levels are ints or rank strings), not a per-game list of pairs."""
    if isinstance(v, np.ndarray):
        return v.ndim == 1
    return isinstance(v, (list, tuple)) and not any(x is None or isinstance(x, (list, tuple, np.ndarray)) for x in v)


def _parse_levels(v, what):
    if (isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple, np.ndarray))
            or (isinstance(v, np.ndarray) and v.ndim != 1) or len(v) != 2):
        raise ValueError(f"{what}={v!r} must be a list of two levels")
    return (_parse_level(v[0], what), _parse_level(v[1], what))


def _parse_trump(v, what):
    if not isinstance(v, str) or v.upper() not in TRUMP_NAMES:
        raise ValueError(f"{what}={v!r} must be one of 'C', 'D', 'H', 'S', 'NT'")
    return TRUMP_NAMES.index(v.upper())


# ---- batch start and sequence kernels -------------------------------------------------------

@njit(cache=True, nogil=True)
def _start_rows(st, cfg, orders, trumps, bankers, levels, firsts):
    """Section 7.4 first-hand start of every game b from its options and first draws, automatic
    moves included: BatchGame's reset."""
    _begin_rows(st, cfg, orders, trumps, bankers, levels, firsts)
    for b in range(st.shape[0]):
        K.after_deal_auto(st, b, cfg)


@njit(cache=True, nogil=True)
def _begin_rows(st, cfg, orders, trumps, bankers, levels, firsts):
    """_start_rows up to the automatic moves after the deal's start (an env's _init_game makes
    those through its step entry point)."""
    for b in range(st.shape[0]):
        s = st[b]
        s.levels[0] = levels[b, 0]
        s.levels[1] = levels[b, 1]
        s.banker = bankers[b]
        s.f = bankers[b] if bankers[b] >= 0 else firsts[b]
        s.void_deals = 0
        s.hand_index = 0
        s.term = 0
        s.trunc = 0
        s.r_valid = 0
        s.passed[:] = 0
        s.rewards[:] = 0.0
        K.start_deal(st, b, cfg, orders[b], trumps[b])


_BEGIN_ROWS = KernelEntry(_begin_rows)


@njit(cache=True)
def _play_rows(st, cfg, actions, pos, status, rewards):
    """Step game b through actions[b, pos[b]:] until its sequence ends (-1 or the row's end:
    status 1), an action is not legal for it (status 2, not applied) or it waits for a deal
    (status 3); rows with status != 0 are skipped. rewards[b] sums the applied steps'."""
    ws = K.make_ws()
    tmp = np.zeros(K.NUM_ACTIONS, np.int8)
    mask = np.zeros(K.NUM_ACTIONS, np.int8)
    T = actions.shape[1]
    for b in range(st.shape[0]):
        if status[b] != 0:
            continue
        s = st[b]
        t = pos[b]
        status[b] = 1
        while t < T:
            a = actions[b, t]
            if a < 0:
                break
            if s.phase == K.NEED_DEAL:
                status[b] = 3
                break
            if s.phase > K.FOLLOW or a >= K.NUM_ACTIONS:
                status[b] = 2
                break
            K.legal_mask(st, b, cfg, mask)
            if mask[a] == 0:
                status[b] = 2
                break
            K.step_ws(st, b, cfg, a, ws, tmp)
            for i in range(4):
                rewards[b, i] += s.rewards[i]
            t += 1
        pos[b] = t




class BatchGame(BatchGameBase):
    """n Sheng Ji games stepped together (spec 9.7).

    Beyond 9.7: ``reset`` also takes the per-game first-hand options of §7.1 (``banker``,
    ``levels``, ``trump``, ``first_drawer``), ``play`` steps every game through its own action
    sequence in one call, and ``take`` copies chosen games into a new batch; together they let a
    search agent start, replay and branch sampled worlds without touching the state records."""

    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE

    def __init__(self, n: int, threads: int = 1, **config):
        self.config = cfgmod.make(**config)
        self._cfg = self.config.to_array()
        super().__init__(n, 4, threads)
        self._st = make_state(self.n)
        self._rngs = _RowRngs([None] * self.n)
        self._queues = None
        self._cp = np.empty(self.n, np.int8)
        self._opts = None

    def reset(self, seed: int | None = None, deals=None, *, banker=None, levels=None, trump=None,
              first_drawer=None) -> None:
        """Start every game's first hand (9.7; game b draws from default_rng(seed + b), §7.3/7.4).

        deals: None, a list of n §7.1 orders, or an int array [n, 54 D]. The other options are
        §7.1's, each given once for every game or as a list of n values (None entries: that game
        takes the default): ``banker`` a seat 0..3 (None: declaring decides, first-hand rules),
        ``levels`` a [team 0, team 1] pair of "2".."A" or 0..12 (default both ``start_level``; equal
        when the game has no banker), ``trump`` "C", "D", "H", "S" or "NT" (declaration_mode
        "preset" only; None draws it, 7.4), ``first_drawer`` 0..3 (only for a game without banker).
        Bad options raise ValueError naming the problem before any game changes. With deals and
        trump given nothing is drawn, so starting sampled worlds costs one kernel call."""
        opts = self._parse_options(banker, levels, trump, first_drawer)
        if isinstance(deals, np.ndarray):
            if deals.ndim != 2 or deals.shape[0] != self.n:
                raise ValueError(f"deals must be a list of {self.n} deals (one per game) or an int array "
                                 f"[{self.n}, {54 * self.config.decks}], got an array of shape {deals.shape}")
            deals = list(deals)
        # the base class checks seed and deals, then calls _reset_games, which reads the options here
        self._opts = opts
        try:
            super().reset(seed, deals)
        finally:
            self._opts = None

    def _parse_options(self, banker, levels, trump, first_drawer):
        n, cfg = self.n, self.config
        if banker is None and levels is None and trump is None and first_drawer is None:
            # every game takes the defaults: no per-game checks to make (the common self-play reset)
            start = rank_index(cfg.start_level)
            return (np.full(n, -1, np.int64), np.full((n, 2), start, np.int64), np.full(n, -1, np.int64),
                    np.full(n, cfg.first_drawer, np.int64))
        bankers = _per_game(banker, n, "banker", _is_seat, _parse_seat)
        firsts = _per_game(first_drawer, n, "first_drawer", _is_seat, _parse_seat)
        levs = _per_game(levels, n, "levels", _is_level_pair, _parse_levels)
        trumps = _per_game(trump, n, "trump", lambda v: isinstance(v, str), _parse_trump)
        if cfg.declaration_mode != "preset" and any(t is not None for t in trumps):
            raise ValueError("reset option trump needs declaration_mode='preset'")
        start = rank_index(cfg.start_level)
        out_b = np.full(n, -1, np.int64)
        out_f = np.full(n, cfg.first_drawer, np.int64)
        out_l = np.full((n, 2), start, np.int64)
        out_t = np.full(n, -1, np.int64)
        for b in range(n):
            if firsts[b] is not None:
                if bankers[b] is not None:
                    raise ValueError(f"game {b}: first_drawer cannot be given together with banker "
                                     "(the banker draws first)")
                out_f[b] = firsts[b]
            if levs[b] is not None:
                out_l[b] = levs[b]
            if bankers[b] is None:
                if out_l[b, 0] != out_l[b, 1]:
                    raise ValueError(f"game {b}: levels={list(levs[b])} must be equal when no banker is given "
                                     "(first hand, SJ-4.2)")
            else:
                out_b[b] = bankers[b]
            if trumps[b] is not None:
                out_t[b] = trumps[b]
        return out_b, out_l, out_t, out_f

    def _reset_games(self, seeds, deals):
        bankers, levels, trumps, firsts = self._opts if self._opts is not None else self._parse_options(
            None, None, None, None)
        D = self.config.decks
        orders = np.empty((self.n, 54 * D), np.int8)
        if deals is not None:
            whole = _int_deals(deals, D)
            if whole is not None:
                orders[:] = whole
            else:
                for i, d in enumerate(deals):
                    orders[i] = parse_deal(d, D, f"deals[{i}]")
        preset = self.config.declaration_mode == "preset"
        trumps = trumps.copy()
        if nprandom.seeds_fit(seeds):
            states = _seeded_first_draws(seeds, orders, trumps, deals is None, preset, D, self.threads)
            rngs = _RowRngs(seeds, states)
        else:
            rngs = _RowRngs(seeds)
            for b in range(self.n):
                # 7.4: a game's draws in order: its order (unless injected), then its preset trump
                if deals is None:
                    orders[b] = canonical_order(rngs[b], D)
                if preset and trumps[b] < 0:
                    trumps[b] = int(rngs[b].integers(4))
        st = make_state(self.n)
        run_shards(self.threads, self.n, lambda a, b: _start_rows(
            st[a:b], self._cfg, orders[a:b], trumps[a:b], bankers[a:b], levels[a:b], firsts[a:b]))
        _fill_deals(st, self._cfg, self.config, rngs, None)
        self._st = st
        self._rngs = rngs

    def play(self, actions) -> np.ndarray:
        """Step each game b through its own action sequence ``actions[b]`` (an int array [n, T];
        a -1 ends that game's sequence early), all games in one jitted call, everything automatic
        included as in ``step``. A game stops at its first action that is not legal for it (mask
        bit 0, outside 0..83, or the game is done): that action and the rest of its sequence are not
        applied; the other games go on. Returns int64[n]: the number of actions applied to each
        game (its sequence length when all were legal). ``rewards`` then holds, per game, the sum of
        the rewards of its applied steps. For search agents replaying a public history on sampled
        worlds: a world is consistent iff its count equals the history's length."""
        self._check_reset("play")
        acts = np.asarray(actions)
        if acts.ndim != 2 or acts.shape[0] != self.n or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be an int array of shape ({self.n}, T), got {acts.dtype} {acts.shape}")
        acts = np.ascontiguousarray(acts, np.int64)
        pos = np.zeros(self.n, np.int64)
        status = np.zeros(self.n, np.int8)
        rew = np.zeros((self.n, 4), np.float32)
        while True:
            _play_rows(self._st, self._cfg, acts, pos, status, rew)
            waiting = status == 3
            _fill_deals(self._st, self._cfg, self.config, self._rngs, None)
            if not waiting.any():
                break
            status[waiting] = 0
        self.rewards[:] = rew
        return pos

    def take(self, rows) -> "BatchGame":
        """A new BatchGame (same config) holding copies of games ``rows`` (an int array of indices
        0..n-1, repeats allowed), in that order, with their generators and latest rewards."""
        idx = np.asarray(rows)
        if idx.ndim != 1 or len(idx) == 0 or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError(f"rows must be a non-empty 1-D int array of game indices, got {idx.dtype} {idx.shape}")
        if (idx < 0).any() or (idx >= self.n).any():
            raise ValueError(f"rows must lie in 0..{self.n - 1}")
        g = BatchGame.__new__(BatchGame)
        BatchGameBase.__init__(g, len(idx), 4, self.threads)
        g.config = self.config
        g._cfg = self._cfg
        g._st = self._st[idx]
        g._rngs = self._rngs.take(idx.tolist())
        g._queues = None
        g._cp = np.empty(g.n, np.int8)
        g._opts = None
        g.rewards[:] = self.rewards[idx]
        g._is_reset = self._is_reset
        return g

    def public_state(self, b: int) -> dict:
        """Game b's public state, as env().public_state() gives it (section 9.3)."""
        self._check_reset("public_state")
        return public_state_dict(self._st[self._game_index(b)], self.config)

    def hand(self, b: int, seat: int) -> str:
        """Game b's hand of `seat`, as env().hand(seat) gives it."""
        self._check_reset("hand")
        b, seat = self._game_index(b), check_int("seat", seat, 0, 3, what="hand()")
        return card_set_text(self._st[b]["hand"][seat])

    @property
    def state(self):
        """The state records (a recarray view: attribute access from Python, shared memory)."""
        return self._st.view(np.recarray)

    def _kernel_current_player(self):
        K.batch_current_player(self._st, self._cp)
        return self._cp.copy()

    def _kernel_legal_mask(self, out):
        K.batch_legal_mask(self._st, self._cfg, out)

    def _kernel_observe(self, out):
        batch_observe(self._st, self._cfg, out)

    def _kernel_step(self, actions):
        K.batch_step(self._st, self._cfg, actions.astype(np.int64))
        _fill_deals(self._st, self._cfg, self.config, self._rngs, None)
        self.rewards[:] = self._st["rewards"]

    def _kernel_rollout(self, policy, seed):
        rng = K.make_rng(seed, self.n)
        total = 0
        while True:
            if self.threads == 1:
                total += int(K.batch_rollout(self._st, self._cfg, rng))
            else:
                st, cfg = self._st, self._cfg
                total += sum(run_shards(self.threads, self.n,
                                        lambda a, b: int(K.batch_rollout(st[a:b], cfg, rng[a:b]))))
            if not (self._st["phase"] == K.NEED_DEAL).any():
                break
            _fill_deals(self._st, self._cfg, self.config, self._rngs, None)
        self.rewards[:] = self._st["rewards"]
        return total

    def legal_plays(self, b: int, max_plays: int = 100000) -> np.ndarray:
        """The complete legal plays of game b's current decision as uint8 count vectors [m, 54]."""
        self._check_reset("legal_plays")
        return _legal_plays(self, self._game_index(b), max_plays).astype(np.uint8)
