"""The Sheng Ji AEC env (raw_env / env) and BatchGame, bound to the kernels (spec section 9)."""
from __future__ import annotations

import numbers
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from cardzoo import aec
from cardzoo.batch import BatchGameBase
from cardzoo.cards import RANKS, SUITS, card_index, card_text, rank_index

from . import config as cfgmod
from . import kernels as K
from .observe import OBS_SIZE, batch_observe, observe_seat
from .state import make_state

NUM_ACTIONS = K.NUM_ACTIONS
_PHASE_STR = K.PHASE_NAMES + ("OVER", "OVER", "OVER")
RESET_KEYS = ("deal", "redeals", "banker", "levels", "first_drawer", "trump")
TRUMP_NAMES = ("C", "D", "H", "S", "NT")


# ---------------------------------------------------------------------------------------------
# card text helpers (section 9 "Card text")
# ---------------------------------------------------------------------------------------------

def card_set_text(counts) -> str:
    out = []
    for c in range(54):
        out.extend([card_text(c)] * int(counts[c]))
    return " ".join(out)


def _cards_text_from_list(cards) -> str:
    return " ".join(card_text(c) for c in sorted(int(c) for c in cards))


def parse_deal(deal, decks: int, what: str = "deal") -> np.ndarray:
    """A section 7.1 order (ints 0..53 or card text) -> int8 array; each card exactly D times."""
    if isinstance(deal, (str, bytes)) or not isinstance(deal, (list, tuple, np.ndarray)):
        raise ValueError(f"{what} must be a list of {54 * decks} cards, got {type(deal).__name__}")
    if len(deal) != 54 * decks:
        raise ValueError(f"{what} must hold {54 * decks} cards (54 x {decks} decks), got {len(deal)}")
    out = np.empty(54 * decks, np.int8)
    for i, item in enumerate(deal):
        if isinstance(item, str):
            c = card_index(item, jokers=True)
        elif isinstance(item, (numbers.Integral, np.integer)) and not isinstance(item, bool) and 0 <= int(item) < 54:
            c = int(item)
        else:
            raise ValueError(f"{what}[{i}] = {item!r} is not a card (an id 0..53 or text such as 'AS', 'LJ')")
        out[i] = c
    counts = np.bincount(out.astype(np.int64), minlength=54)
    bad = np.flatnonzero(counts != decks)
    if len(bad):
        c = int(bad[0])
        raise ValueError(f"{what} holds {card_text(c)} {int(counts[c])} times; every card must appear exactly "
                         f"{decks} times")
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
        unknown = sorted(set(options) - set(RESET_KEYS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {', '.join(map(repr, unknown))}; known: {', '.join(RESET_KEYS)}")
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
            if isinstance(lv, (str, bytes)) or not isinstance(lv, (list, tuple)) or len(lv) != 2:
                raise ValueError(f"levels={lv!r} must be a list of two levels")
            self.levels = [_parse_level(lv[0], "levels"), _parse_level(lv[1], "levels")]
        if self.banker < 0 and self.levels[0] != self.levels[1]:
            raise ValueError(f"levels={lv!r} must be equal when no banker is given (first hand, SJ-4.2)")
        tr = options.get("trump")
        self.trump = -1
        if tr is not None:
            if cfg.declaration_mode != "preset":
                raise ValueError("reset option trump needs declaration_mode='preset'")
            if not isinstance(tr, str) or tr.upper() not in TRUMP_NAMES:
                raise ValueError(f"trump={tr!r} must be one of 'C', 'D', 'H', 'S', 'NT'")
            self.trump = TRUMP_NAMES.index(tr.upper())


def _init_game(st, b, cfg_arr, cfg: cfgmod.Config, setup: _Setup, rng: np.random.Generator):
    """Section 7.4 draws for the first hand and the kernel start of game b."""
    order = setup.deal if setup.deal is not None else canonical_order(rng, cfg.decks)
    trump = setup.trump
    if cfg.declaration_mode == "preset" and trump < 0:
        trump = int(rng.integers(4))
    s = st[b]
    s["levels"][:] = setup.levels
    s["banker"] = setup.banker
    s["f"] = setup.banker if setup.banker >= 0 else setup.first_drawer
    s["void_deals"] = 0
    s["hand_index"] = 0
    s["term"] = 0
    s["trunc"] = 0
    s["r_valid"] = 0
    s["passed"][:] = 0
    s["rewards"][:] = 0
    K.start_deal(st, b, cfg_arr, order, trump)
    K.after_deal_auto(st, b, cfg_arr)


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
            K.after_deal_auto(st, b, cfg_arr)


# ---------------------------------------------------------------------------------------------
# names (9.5)
# ---------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------
# public state / result as JSON-able Python (9.3, 9.4)
# ---------------------------------------------------------------------------------------------

def _decomp_texts(counts, lvl, trump, decks):
    ok = np.empty(64, np.int64)
    oL = np.empty(64, np.int64)
    ot = np.empty(64, np.int64)
    oc = np.empty((64, K.NPOS), np.int64)
    m = K.decompose_counts(np.asarray(counts, np.int64), lvl, trump, decks, ok, oL, ot, oc)
    out = []
    for j in range(m):
        cards = []
        for w in range(int(oL[j])):
            cards.extend([int(oc[j, w])] * int(ok[j]))
        out.append(_cards_text_from_list(cards))
    return out


def result_dict(s) -> dict | None:
    if not s["r_valid"]:
        return None
    banker = int(s["r_banker"])
    winner = int(s["r_winner"])
    return {
        "hand_index": int(s["r_hand_index"]),
        "banker": banker,
        "declarers": banker % 2,
        "hand_level": int(s["r_level"]),
        "trump": TRUMP_NAMES[int(s["r_trump"])],
        "trick_points": [int(s["r_tp"][0]), int(s["r_tp"][1])],
        "kitty": card_set_text(s["r_kitty"]),
        "kitty_points": int(s["r_kpts"]),
        "last_trick_winner": int(s["r_last"]),
        "multiplier": int(s["r_mult"]),
        "kitty_bonus": int(s["r_bonus"]),
        "penalty": int(s["r_pen"]),
        "opponent_points": int(s["r_p"]),
        "outcome": "hold" if int(s["r_outcome"]) == 0 else "takeover",
        "table_levels": int(s["r_table"]),
        "hand_score": int(s["r_score"]),
        "levels_gained": [int(s["r_gain"][0]), int(s["r_gain"][1])],
        "new_levels": [int(s["r_newlev"][0]), int(s["r_newlev"][1])],
        "next_banker": int(s["r_next_banker"]),
        "match_winner": None if winner < 0 else winner,
    }


def _trick_plays(s, t):
    """[[seat, card set], ...] of trick t in play order, from the play log."""
    plays = []
    cur_seat = -1
    cur = []
    nlog = int(s["nlog"])
    seats = s["log_seat"][:nlog]
    cards = s["log_card"][:nlog]
    tricks = s["log_trick"][:nlog]
    for i in np.flatnonzero(tricks == t):
        q = int(seats[i])
        if q != cur_seat:
            if cur_seat >= 0:
                plays.append([cur_seat, _cards_text_from_list(cur)])
            cur_seat = q
            cur = []
        cur.append(int(cards[i]))
    if cur_seat >= 0:
        plays.append([cur_seat, _cards_text_from_list(cur)])
    return plays


def _leader_counts(s, t, leader):
    nlog = int(s["nlog"])
    counts = np.zeros(54, np.int64)
    for i in range(nlog):
        if int(s["log_trick"][i]) == t and int(s["log_seat"][i]) == leader:
            counts[int(s["log_card"][i])] += 1
    return counts


def public_state_dict(s, cfg: cfgmod.Config, result_cache=None) -> dict:
    ph = int(s["phase"])
    D = cfg.decks
    lvl = int(s["hand_level"])
    trump = int(s["trump"])
    banker = int(s["banker"])
    nd = int(s["ndecl"])
    decls = [[int(s["decl_seat"][i]), card_text(int(s["decl_card"][i])), int(s["decl_cnt"][i])] for i in range(nd)]
    ntr = int(s["ntricks"])
    tricks = []
    for t in range(ntr):
        ldr = int(s["tr_leader"][t])
        tricks.append({
            "leader": ldr,
            "plays": _trick_plays(s, t),
            "format": _decomp_texts(_leader_counts(s, t, ldr), lvl, trump, D),
            "winner": int(s["tr_winner"][t]),
            "points": int(s["tr_points"][t]),
        })
    in_play = ph in (K.LEAD, K.FOLLOW)
    cur_trick = _trick_plays(s, ntr) if in_play else []
    fmt = []
    if ph == K.FOLLOW:
        ldr = int(s["leader"])
        fmt = _decomp_texts(_leader_counts(s, ntr, ldr), lvl, trump, D)
    fts = []
    for i in range(int(s["nft"])):
        t = int(s["ft_trick"][i])
        seat = int(s["ft_seat"][i])
        fts.append({"seat": seat, "trick": t, "attempted": card_set_text(s["ft_att"][i]),
                    "played": card_set_text(_leader_counts(s, t, seat))})
    over = ph == K.OVER
    return {
        "phase": K.PHASE_NAMES[ph] if ph <= K.OVER else "OVER",
        "current_player": int(s["actor"]) if ph <= K.FOLLOW else None,
        "decks": D,
        "hand_index": int(s["hand_index"]),
        "levels": [int(s["levels"][0]), int(s["levels"][1])],
        "hand_level": lvl,
        "first_drawer": int(s["f"]),
        "banker": None if banker < 0 else banker,
        "declarers": None if banker < 0 else banker % 2,
        "void_deals": int(s["void_deals"]),
        "dealt": int(s["dealt"]),
        "hand_sizes": [int(s["hand"][q].sum()) for q in range(4)],
        "declarations": decls,
        "standing": list(decls[-1]) if decls else None,
        "trump": None if trump < 0 else TRUMP_NAMES[trump],
        "kitty_revealed": [card_text(int(c)) for c in s["kitty_order"][: int(s["nrev"])]],
        "leader": int(s["leader"]) if in_play else None,
        "trick": cur_trick,
        "trick_format": fmt,
        "tricks": tricks,
        "points": [int(s["points"][0]), int(s["points"][1])],
        "failed_throws": fts,
        "shown": [card_set_text(s["shown"][q]) for q in range(4)],
        "kitty": card_set_text(s["buried"]) if (over and s["hand_over"]) else None,
        "result": result_dict(s),
    }


# ---------------------------------------------------------------------------------------------
# AEC env
# ---------------------------------------------------------------------------------------------

class raw_env(aec.CardGameEnv):
    metadata = {"name": "shengji_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    version = 0
    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE
    observation_bounds = (-1000.0, 1000.0)

    def __init__(self, render_mode: str | None = None, **config):
        self.config = cfgmod.make(**config)
        self._cfg = self.config.to_array()
        self._st = make_state(1)
        self._result_cache = None
        self._obs_mask = np.zeros(NUM_ACTIONS, np.uint8)
        self._info = np.zeros(8, np.int64)
        self._info[0] = -1
        self._info[1] = K.OVER
        self._rew = np.zeros(4, np.float32)
        self._cur_mask = np.zeros(NUM_ACTIONS, np.int8)
        super().__init__(4, render_mode=render_mode)

    def _refresh(self):
        mask = np.empty(NUM_ACTIONS, np.int8)
        K.sync_info(self._st, 0, self._cfg, mask, self._info, self._rew)
        self._cur_mask = mask

    # ---- hooks ----
    def _game_reset(self, rng, options):
        setup = _Setup(self.config, options, rng)
        st = make_state(1)
        _init_game(st, 0, self._cfg, self.config, setup, rng)
        queues = [list(setup.redeals)]
        _fill_deals(st, self._cfg, self.config, [rng], queues)
        self._st = st
        self._redeal_queue = queues
        self._result_cache = None
        self._refresh()

    def _game_step(self, action):
        mask = np.empty(NUM_ACTIONS, np.int8)
        K.env_step(self._st, 0, self._cfg, action, mask, self._info, self._rew)
        self._cur_mask = mask
        if self._info[1] == K.NEED_DEAL:
            _fill_deals(self._st, self._cfg, self.config, [self._rng], self._redeal_queue)
            rew = self._rew.copy()
            self._refresh()
            self._rew = rew

    def _game_actor(self):
        return int(self._info[0])

    def _game_mask(self):
        return self._cur_mask

    def _game_observation(self, seat):
        out = np.zeros(OBS_SIZE, np.float32)
        observe_seat(self._st, 0, self._cfg, seat, out, self._obs_mask)
        return out

    def _game_phase(self):
        return _PHASE_STR[int(self._info[1])]

    def _game_rewards(self):
        return self._rew

    def _game_end(self):
        return bool(self._info[2]), bool(self._info[3])

    def _game_result(self):
        if not self._info[4]:
            return None
        key = int(self._info[5])
        if self._result_cache is None or self._result_cache[0] != key:
            self._result_cache = (key, result_dict(self._st[0]))
        return self._result_cache[1]

    def _game_render(self):
        from .render import render_text
        text = render_text(self._st[0], self.config)
        if self.render_mode == "human":
            print(text)
        return text

    # ---- section 9 extras ----
    def public_state(self) -> dict:
        return public_state_dict(self._st[0], self.config)

    def action_name(self, a) -> str:
        return action_name(a)

    def action_from_name(self, name) -> int:
        return action_from_name(name)

    def hand(self, seat) -> str:
        if isinstance(seat, bool) or not isinstance(seat, (numbers.Integral, np.integer)) or not 0 <= int(seat) <= 3:
            raise ValueError(f"seat {seat!r} is outside 0..3")
        return card_set_text(self._st[0]["hand"][int(seat)])

    def legal_plays(self, max_plays: int = 100000) -> list[str]:
        """Complete legal plays of the current BURY/LEAD/FOLLOW decision (containing the current
        selection) as card-set strings; a helper for agents that score whole moves."""
        buf = np.zeros((max_plays, 54), np.int8)
        n = K.legal_plays(self._st, 0, self._cfg, buf)
        if n < 0 or n > max_plays:
            raise ValueError(f"the legal plays exceed max_plays={max_plays}")
        return [card_set_text(buf[i]) for i in range(n)]


def env(**config):
    return aec.wrap(raw_env(**config))


# ---------------------------------------------------------------------------------------------
# BatchGame (9.7)
# ---------------------------------------------------------------------------------------------

_POOL = None


def _threaded_rollout(st, cfg, rng) -> int:
    """K.batch_rollout (a nogil kernel) on contiguous slices of the batch, one per thread.

    Uses numba's thread count (NUMBA_NUM_THREADS / numba.set_num_threads), like the other games'
    parallel kernels, so one setting limits every game to one core for benchmarks."""
    global _POOL
    n = len(st)
    workers = min(numba.get_num_threads(), max(1, n // 64))
    if workers <= 1:
        return int(K.batch_rollout(st, cfg, rng))
    if _POOL is None or _POOL._max_workers < workers:
        _POOL = ThreadPoolExecutor(max_workers=workers)
    bounds = np.linspace(0, n, workers + 1).astype(int)
    futs = [_POOL.submit(K.batch_rollout, st[a:b], cfg, rng[a:b]) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    return int(sum(f.result() for f in futs))


class BatchGame(BatchGameBase):
    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE

    def __init__(self, n: int, **config):
        self.config = cfgmod.make(**config)
        self._cfg = self.config.to_array()
        super().__init__(n, 4)
        self._st = make_state(self.n)
        self._rngs = [np.random.default_rng() for _ in range(self.n)]
        self._queues = None
        self._cp = np.empty(self.n, np.int8)

    def _reset_games(self, seeds, deals):
        parsed = None
        if deals is not None:
            parsed = [parse_deal(d, self.config.decks, f"deals[{i}]") for i, d in enumerate(deals)]
        rngs = [np.random.default_rng(s) for s in seeds]
        st = make_state(self.n)
        setup = _Setup(self.config, None, None)
        for b in range(self.n):
            if parsed is not None:
                setup.deal = parsed[b]
            _init_game(st, b, self._cfg, self.config, setup, rngs[b])
        _fill_deals(st, self._cfg, self.config, rngs, None)
        self._st = st
        self._rngs = rngs

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
            total += _threaded_rollout(self._st, self._cfg, rng)
            if not (self._st["phase"] == K.NEED_DEAL).any():
                break
            _fill_deals(self._st, self._cfg, self.config, self._rngs, None)
        self.rewards[:] = self._st["rewards"]
        return total

    def legal_plays(self, b: int, max_plays: int = 100000) -> np.ndarray:
        """The complete legal plays of game b's current decision as uint8 count vectors [m, 54]."""
        buf = np.zeros((max_plays, 54), np.int8)
        n = K.legal_plays(self._st, int(b), self._cfg, buf)
        if n < 0 or n > max_plays:
            raise ValueError(f"the legal plays exceed max_plays={max_plays}")
        return buf[:n].astype(np.uint8)
