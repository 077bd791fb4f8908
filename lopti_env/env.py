"""LOPTI environments: the PettingZoo AEC env (raw_env / env) and BatchGame (spec section 9)."""
from __future__ import annotations

import numbers

import numpy as np
from numba import njit

from cardzoo import nprandom
from cardzoo.aec import CardGameEnv, wrap
from cardzoo.fastpath import ILLEGAL, RESYNC, KernelEntry
from cardzoo.batch import BatchGameBase, run_shards
from cardzoo.cards import RANKS, card_text, rank_index, seed_generators
from cardzoo.options import check_int
from lopti_env import kernels as K
from lopti_env.config import NUM_ACTIONS, OBS_BOUNDS, OBS_SIZE, SWITCH_NAMES, LoptiConfig, make_lopti_config
from lopti_env.deals import _dealer_of, deck_from_deal, inject_state
from lopti_env.observe import observe_batch, observe_one
from lopti_env.state import PHASE_NAMES, STATE_DTYPE, new_state

VERSION = 0
PROPOSE_KINDS = ("remove", "amend", "base", "restore")
KIND_CODES = {1: "REMOVE", 2: "AMEND", 3: "BASE", 4: "RESTORE"}


# ---------------------------------------------------------------------------------------------
# action names (section 9.6)
# ---------------------------------------------------------------------------------------------


def action_name(a) -> str:
    if isinstance(a, bool) or not isinstance(a, numbers.Integral) or not 0 <= int(a) < NUM_ACTIONS:
        raise ValueError(f"action {a!r} is not an int in 0..{NUM_ACTIONS - 1}")
    a = int(a)
    if a < 52:
        r, k = divmod(a, 4)
        return "play " + " ".join([RANKS[r]] * (k + 1))
    if a == 52:
        return "pickup"
    if a < 56:
        return f"flip {a - 53}"
    if a < 95:
        r, j = divmod(a - 56, 3)
        return f"swap {RANKS[r]} up{j}"
    if a < 102:
        return ("keep", "pass", "yes", "no", "rock", "paper", "scissors")[a - 95]
    if a < 106:
        return "propose " + PROPOSE_KINDS[a - 102]
    if a < 108:
        return "timing " + ("now", "next")[a - 106]
    return f"select {a - 108}"


_FIXED_NAMES = {action_name(a): a for a in range(52, NUM_ACTIONS) if not 56 <= a < 95}


def action_from_name(s) -> int:
    if not isinstance(s, str):
        raise ValueError(f"action name {s!r} is not a string")
    words = s.split()
    text = " ".join(words)
    if text in _FIXED_NAMES:
        return _FIXED_NAMES[text]
    try:
        if len(words) >= 2 and words[0] == "play" and len(words) <= 5:
            ranks = {rank_index(w) for w in words[1:]}
            if len(ranks) == 1:
                return 4 * ranks.pop() + len(words) - 2
        elif len(words) == 3 and words[0] == "swap" and words[2] in ("up0", "up1", "up2"):
            return 56 + 3 * rank_index(words[1]) + int(words[2][2])
    except ValueError:
        pass
    raise ValueError(f"unknown action name {s!r} (see spec section 9.6)")


# ---------------------------------------------------------------------------------------------
# the shared per-game setup used by raw_env and BatchGame
# ---------------------------------------------------------------------------------------------


class _Game:
    """Config arrays and episode start shared by raw_env and BatchGame."""

    def _setup_config(self, config: LoptiConfig):
        self.config = config
        self.cfg = config.cfg_array()
        self.carry = config.carry_array()
        self.rules0 = config.rules_array()
        self.sw0 = config.switches()
        self.R = config.num_rounds()
        self.n_coins = (6 * self.R + len(config.carryover_rules) + 8) if config.session else 1

    def _decks_from(self, deck_rng):
        return np.stack([deck_rng.permutation(52).astype(np.int8) for _ in range(self.R)])

    def _coins_from(self, aux_rng):
        if not self.config.session:
            return np.zeros(1, np.int8)
        return np.array([aux_rng.integers(2) for _ in range(self.n_coins)], np.int8)

    def _parse_deal(self, deal):
        """-> (first dealer, {round: deck})"""
        n = self.config.num_players
        if not isinstance(deal, dict):
            raise ValueError("options['deal'] must be a dict (section 7.1)")
        if "deals" in deal:
            if set(deal) - {"deals", "dealer"}:
                raise ValueError("options['deal'] with 'deals' takes no other key than 'dealer'")
            if not self.config.session:
                raise ValueError("options['deal']['deals'] needs session=True")
            lst = deal["deals"]
            if not isinstance(lst, (list, tuple)) or not 1 <= len(lst) <= self.R:
                raise ValueError(f"options['deal']['deals'] must list 1..{self.R} deals")
            # 7.1: "dealer" fixes round 0's dealer, given beside "deals" or in its first deal; later
            # rounds' dealers follow from it (LO-2.5), so a dealer there or a second, different one is
            # an error rather than ignored
            later = [i for i, d in enumerate(lst) if i and isinstance(d, dict) and "dealer" in d]
            if later:
                raise ValueError(f"deal of round {later[0]}: 'dealer' is for round 0 only (round i is dealt "
                                 "by (first dealer + i) mod N, LO-2.5)")
            fd = _dealer_of(lst[0], n, self.config.first_dealer)
            if "dealer" in deal and isinstance(lst[0], dict) and "dealer" in lst[0] and _dealer_of(deal, n, fd) != fd:
                raise ValueError(f"options['deal'] names two first dealers: 'dealer' {deal['dealer']!r} and "
                                 f"round 0's {lst[0]['dealer']!r}")
            fd = _dealer_of(deal, n, fd)
            return fd, {i: deck_from_deal(d, n, (fd + i) % n, f"deal of round {i}") for i, d in enumerate(lst)}
        fd = _dealer_of(deal, n, self.config.first_dealer)
        return fd, {0: deck_from_deal(deal, n, fd)}


class _NoRewards(tuple):
    """What a step that ended no round gave every seat: zeros, and `any()` without a numpy reduction
    (which costs more than the kernel step itself)."""

    def any(self):
        return False


@njit(cache=True)
def aec_step(st, words, cards, act):
    """The AEC env's step: K.step_game on game 0, with the constants and the episode's decks and coins
    in two flat buffers -- numba unboxes every array argument on every call, which costs about as much
    as a step, so two buffers instead of four arrays -- and the actor's mask checked first. Returns the
    step report of cardzoo.fastpath: ILLEGAL when the mask does not allow `act` (nothing changed), the
    next actor when the step kept the phase and ended no round (section 5 pays at round ends only, and
    the result exists only in phase "done": a quiet step), else RESYNC; the new mask is the record's.

    words: int32[2 + len(cfg) + 5 * carry rows] = len(cfg), carry rows, cfg, carry (rows in order);
    cards: int8[52 * rounds + coins] = the rounds' decks in order, then the coins."""
    g = st[0]
    if g.mask[act] == 0:
        return ILLEGAL
    nc = np.int64(words[0])
    rows = np.int64(words[1])
    cfg = words[2:2 + nc]
    carry = words[2 + nc:2 + nc + 5 * rows].reshape((rows, 5))
    rounds = np.int64(cfg[K.C_ROUNDS])
    phase = g.phase
    rounds_done = g.rounds_done
    K.step_game(g, cfg, carry, cards[:52 * rounds].reshape((rounds, 52)), cards[52 * rounds:], act)
    if g.phase == phase and g.rounds_done == rounds_done and g.actor >= 0:
        return g.actor
    return RESYNC


_aec_step = KernelEntry(aec_step)
_observe_one = KernelEntry(observe_one)
_seed_rows = KernelEntry(nprandom.seed_rows)
# one game's draws: the batch kernel permutation_rows would compile its paired shuffle for nothing
_permutation_into = KernelEntry(nprandom.permutation_into)


class raw_env(_Game, CardGameEnv):
    metadata = {"name": "lopti_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    version = VERSION
    phase_names = PHASE_NAMES
    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE
    observation_bounds = OBS_BOUNDS
    reset_options = ("deal", "state")
    _derived = ("_decks", "_coins", "_f_actor", "_f_phase", "_f_rewards", "_f_rounds", "_mask_i8",
                "_blank_u8", "_scratch_u8", "_st_u8", "_step")

    def __init__(self, render_mode: str | None = None, **config):
        cfg = make_lopti_config(config)
        self._setup_config(cfg)
        super().__init__(cfg.num_players, render_mode=render_mode)
        self._st = new_state(1)
        # aec_step's two buffers; _decks and _coins are views of the second, rewritten by reset
        self._words = np.concatenate([[len(self.cfg), len(self.carry)], self.cfg, self.carry.ravel()]).astype(np.int32)
        self._cards = np.zeros(52 * self.R + self.n_coins, np.int8)
        self._aux = None
        self._seed = None
        self._round_winners = []
        self._c_phase = K.DONE
        self._paid_now = False
        self._no_rewards = _NoRewards((0.0,) * cfg.num_players)
        self._scratch = new_state(1)
        self._bind()

    def _bind(self):
        self._decks = self._cards[:52 * self.R].reshape(1, self.R, 52)
        self._coins = self._cards[52 * self.R:].reshape(1, self.n_coins)
        self._f_actor = self._st["actor"]
        self._f_phase = self._st["phase"]
        self._f_rewards = self._st["rewards"]
        self._f_rounds = self._st["rounds_done"]
        # the actor's legal mask, rewritten in place by every step (the adapter hands out copies)
        self._mask_i8 = self._st["mask"][0].view(np.int8)
        # A fresh episode is built in _scratch from _blank, then moved into _st, all as byte copies:
        # copying a record array of this packed dtype goes field by field (~100x slower than memcpy).
        self._blank_u8 = new_state(1).view(np.uint8)
        self._scratch_u8 = self._scratch.view(np.uint8)
        self._st_u8 = self._st.view(np.uint8)
        # the step kernel's compiled entry point at the env's argument types (fixed: see KernelEntry)
        self._step = _aec_step.at(self._st, self._words, self._cards, 0)

    # ---- reset ---------------------------------------------------------------------------------
    def reset(self, seed=None, options=None):
        seed_before, self._seed = self._seed, seed
        aux_saved = None if self._aux is None else self._aux.bit_generator.state
        try:
            super().reset(seed=seed, options=options)
        except Exception:  # a failed reset changes nothing (9.6)
            self._seed = seed_before
            if self._aux is not None and aux_saved is not None:
                self._aux.bit_generator.state = aux_saved
            raise

    def _game_reset_seeded(self, seed):
        """_game_reset(default_rng(seed), None) with the decks drawn in numba (outside session mode,
        where the safeguard coins come from a second generator, default_rng([seed, 1]))."""
        if self.config.session or not nprandom.STREAM_MATCHES:
            return None
        words, nwords = np.zeros((1, 2), np.uint32), np.zeros(1, np.int64)
        nprandom.put_seed_words(seed, words, nwords)
        states = np.empty((1, nprandom.STATE_WORDS), np.uint64)  # the generator's own: kept by it
        decks = np.empty((self.R, 52), np.int8)
        _seed_rows(words, nwords, states)
        row = states[0]
        for r in range(self.R):  # deck r = the r-th permutation(52), as _decks_from draws them
            _permutation_into(row, decks[r], 52)
        self._start(decks, self._coins_from(None), None, self.config.first_dealer, {})
        return nprandom.LazyGenerator(states, 0)

    def _game_reset(self, rng, options):
        options = options or {}  # (an unknown key never gets here: the adapter warns and drops it, 9.6)
        if "deal" in options and "state" in options:
            raise ValueError("reset: options holds at most one of 'deal' and 'state'")
        fd = self.config.first_dealer
        injected = {}
        if "deal" in options:
            fd, injected = self._parse_deal(options["deal"])
        # generators (section 7.3); a failed reset restores them (the adapter restores rng). aux_rng
        # only draws the safeguard coins of LO-10.7, which exist in session mode only: without a
        # session it is never drawn from, so it is not made (creating a generator costs more than
        # a hundred kernel steps).
        if not self.config.session:
            aux = None
        elif self._seed is not None:
            aux = np.random.default_rng([int(self._seed), 1])
        else:
            aux = self._aux if self._aux is not None else np.random.default_rng()
        decks = self._decks_from(rng)
        for i, d in injected.items():
            decks[i] = d
        self._start(decks, self._coins_from(aux), aux, fd, options)

    def _start(self, decks, coins, aux, fd, options):
        """The new episode from its validated options and draws (nothing fails from here on but an
        injected state's own checks, which run on the scratch record)."""
        st = self._scratch
        self._scratch_u8[:] = self._blank_u8
        if "state" in options:
            K.start_episode(st, 0, self.cfg, self.carry, decks[None], coins[None], self.rules0, self.sw0, fd)
            phase, have_seats = inject_state(st, self.config, self.cfg, options["state"])
            if phase == "creator":
                K.enter_creator_at(st, 0, self.cfg, self.carry, decks[None], coins[None])
            elif phase == "proposal" and not have_seats:
                K.deal_at(st, 0, self.cfg, decks[int(st[0]["round"])])
            K.refresh_mask(st, 0, self.cfg)
        else:
            K.start_episode(st, 0, self.cfg, self.carry, decks[None], coins[None], self.rules0, self.sw0, fd)
        self._aux = aux
        self._st_u8[:] = self._scratch_u8
        self._decks[0] = decks
        self._coins[0] = coins
        self._round_winners = []
        self._c_phase = int(self._f_phase[0])
        self._paid_now = False

    # ---- hooks ---------------------------------------------------------------------------------
    def _game_step(self, action):
        if self._step(self._st, self._words, self._cards, action) == ILLEGAL:
            raise ValueError(f"illegal action {action} ({action_name(action)!r})")  # (the adapter checks first)
        self._absorb()

    def _game_quick_step(self, action):
        moved = self._step(self._st, self._words, self._cards, action)
        if moved == RESYNC:  # (after a quiet step _paid_now stays: only _sync reads it, after _absorb)
            self._absorb()
        return moved

    def _absorb(self):
        """Bookkeeping of a step that may have changed the phase or ended a round."""
        self._c_phase = int(self._f_phase[0])
        if int(self._f_rounds[0]) > len(self._round_winners):  # this step ended a round: rewards (section 5)
            # a session step that ended a round has already begun the next one, whose deal clears
            # `winner`: the finished round's winner is then `prev_winner` (LO-10.2, LO-9.3)
            w = int(self._st["winner" if self._c_phase == K.DONE else "prev_winner"][0])
            self._round_winners.append(w if w >= 0 else None)
            self._paid_now = True
        else:
            self._paid_now = False

    def _game_actor(self):
        return int(self._f_actor[0])

    def _game_mask(self):
        return self._mask_i8

    def _game_observation(self, seat):
        out = np.empty(OBS_SIZE, np.float32)
        # the compiled entry point, bound at the first observation (a masks-only first run compiles none)
        observe = _observe_one.fn or _observe_one.at(self._st, 0, self.cfg, seat, out)
        observe(self._st, 0, self.cfg, seat, out)
        return out

    def _game_phase(self):
        return PHASE_NAMES[self._c_phase]

    def _game_rewards(self):
        # a step that ended no round paid nothing: the adapter's rewards.any() is then a constant
        return self._f_rewards[0] if self._paid_now else self._no_rewards

    def _game_end(self):
        t = bool(self._st["truncated"][0])
        return (not t, t)

    def _game_result(self):
        if self._c_phase != K.DONE:
            return None
        return result_of(self._st[0], self.config, self._round_winners)

    def _game_render(self):
        from lopti_env.render import render_text
        return render_text(self)

    # ---- public helpers (section 9) ------------------------------------------------------------
    def action_name(self, a):
        return action_name(a)

    def action_from_name(self, s):
        return action_from_name(s)

    def hand(self, seat):
        self._check_reset("hand")
        seat = check_int("seat", seat, 0, self.num_players - 1, what="hand()")
        return _group(int(self._st["hand"][0][seat]))

    def public_state(self):
        self._check_reset("public_state")
        return public_state_of(self._st[0], self.config)


def env(**config):
    return wrap(raw_env(**config))


def compile_ahead() -> list:
    """What cardzoo.firstrun's helper process compiles while a first env() compiles its step kernel,
    as (dispatcher, arguments) pairs at the env's argument types: kernels the step reaches after its
    play rules (the sessions, the end of a turn, the masks), the observation and the seeded draws."""
    from numba import typeof, types

    from lopti_env.rules.round_end import end_turn
    from lopti_env.rules.session import session_step

    st = new_state(1)
    rec = typeof(st[0])
    i32, i8 = types.Array(types.int32, 1, "C"), types.Array(types.int8, 1, "C")
    play_args = (rec, i32, types.Array(types.int32, 2, "C"), types.Array(types.int8, 2, "C"), i8, types.int64)
    return [(session_step, play_args), (end_turn, play_args), (K.compute_mask, (rec, i32)),
            (observe_one, (st, 0, np.zeros(8, np.int32), 0, np.zeros(OBS_SIZE, np.float32))),
            (nprandom.seed_rows, (np.zeros((1, 2), np.uint32), np.zeros(1, np.int64),
                                  np.empty((1, nprandom.STATE_WORDS), np.uint64))),
            (nprandom.permutation_into, (np.empty(nprandom.STATE_WORDS, np.uint64), np.empty(52, np.int8), 52))]


# ---------------------------------------------------------------------------------------------
# public state and result (sections 9.4, 9.5)
# ---------------------------------------------------------------------------------------------


def _group(mask: int) -> str:
    out = []
    m = int(mask)
    while m:
        low = m & -m
        out.append(card_text(low.bit_length() - 1))
        m ^= low
    return " ".join(out)


def _opt(v):
    v = int(v)
    return None if v < 0 else v


def result_of(g, config, round_winners):
    n = config.num_players
    order = [int(g["out_order"][i]) for i in range(int(g["n_out"]))]
    shared = [s for s in range(n) if g["active"][s]]
    places = [None] * n
    for s in order:
        places[s] = int(g["place"][s])
    rr = [float(g["round_rewards"][s]) for s in range(n)]
    return {
        "winner": _opt(g["winner"]),
        "order": order + shared,
        "places": places,
        "round_rewards": rr,
        "scores": [float(g["scores"][s]) for s in range(n)],
        "truncated": bool(g["truncated"]),
        "round_winners": list(round_winners),
    }


def public_state_of(g, config):
    n = config.num_players
    ph = int(g["phase"])
    in_play = ph == K.PLAY
    seats = []
    for s in range(n):
        up = [card_text(int(c)) if c >= 0 else None for c in g["up"][s]]
        hand = int(g["hand"][s])
        if not g["active"][s]:
            stage = 3
        elif any(c is not None for c in up):
            stage = 0
        elif hand:
            stage = 1
        else:
            stage = 2
        seats.append({
            "hand_size": bin(hand).count("1"),
            "known": _group(int(g["known"][s])),
            "up": up,
            "down": [bool(c >= 0) for c in g["down"][s]],
            "stage": stage,
            "place": _opt(g["place"][s]),
        })
    pile = []
    pn = int(g["pile_n"])
    np_ = int(g["n_plays"]) if pn else 0
    for i in range(np_):
        start = int(g["play_start"][i])
        end = int(g["play_start"][i + 1]) if i + 1 < np_ else pn
        pile.append([int(g["play_seat"][i]), " ".join(card_text(int(c)) for c in g["pile"][start:end])])
    top = None
    if pn:
        top = {"rank": int(g["top_rank"]), "count": int(g["top_cnt"]), "run": int(g["run"])}
    last_clear = None
    if int(g["clears"]) > 0:
        last_clear = {"seat": int(g["lc_seat"]), "cause": int(g["lc_cause"]),
                      "cards": " ".join(card_text(int(c)) for c in g["lc_cards"][:int(g["lc_n"])])}
    m = config.max_made_rules
    rules = [[int(v) for v in g["rules"][i]] if g["rules"][i][5] != 0 else [0] * 8 for i in range(m)]
    pending = [int(v) for v in g["pending"]] if g["pending"][0] > 0 else None
    draft = [int(v) for v in g["draft"]] if ph == K.RULE_MAKING else None
    proposal = None
    if g["prop_on"]:
        res = int(g["prop_result"])
        proposal = {
            "proposer": int(g["proposer"]), "kind": int(g["prop_kind"]), "target": int(g["prop_target"]),
            "field": int(g["prop_field"]), "value": int(g["prop_value"]), "timing": int(g["prop_timing"]),
            "yes": _opt(g["prop_yes"]), "defender": _opt(g["defender"]),
            "result": (None, "passed", "failed")[res],
        }
    setup = None
    if g["setup_on"]:
        c = int(g["cand"])
        setup = {"candidate": c, "rule": [int(v) for v in config.carryover_rules[c]], "yes": _opt(g["setup_yes"])}
    ballots = [bool(g["ballots"][s] == 1) if g["ballots_vis"] and g["ballots"][s] >= 0 else None for s in range(n)]
    volunteers = [bool(g["volunteers"][s] == 1) if g["vol_vis"] and g["volunteers"][s] >= 0 else None
                  for s in range(n)]
    rps = None
    if ph in (K.BRACKET, K.MATCH):
        rps = {"kind": "bracket" if ph == K.BRACKET else "match", "first": int(g["rps_first"]),
               "second": int(g["rps_second"]), "score": [int(g["rps_score"][0]), int(g["rps_score"][1])],
               "decisive": int(g["rps_dec"]), "throws": int(g["rps_throws"])}
    sw = {name: int(g["sw"][i]) for i, name in enumerate(SWITCH_NAMES)}
    actor = int(g["actor"])
    return {
        "phase": PHASE_NAMES[ph],
        "substep": int(g["substep"]),
        "num_players": n,
        "round": int(g["round"]),
        "num_rounds": config.num_rounds(),
        "dealer": int(g["dealer"]),
        "leader": int(g["leader"]),
        "prev_winner": _opt(g["prev_winner"]),
        "to_act": actor if actor >= 0 else None,
        "move": ("first", "extra")[int(g["move_kind"])] if in_play else None,
        "moves": int(g["moves"]),
        "seats": seats,
        "out": [int(g["out_order"][i]) for i in range(int(g["n_out"]))],
        "pile": pile,
        "top": top,
        "chain": int(g["chain"]),
        "obligation": bool(g["chain"] > 0 and pn > 0),
        "limit": bool(pn > 0 and g["top_rank"] == g["sw"][1]),
        "gone": _group(int(g["gone"])),
        "draw_size": int(g["draw_n"]),
        "clears": int(g["clears"]),
        "last_clear": last_clear,
        "switches": sw,
        "rules": rules,
        "pending": pending,
        "draft": draft,
        "proposal": proposal,
        "setup": setup,
        "ballots": ballots,
        "volunteers": volunteers,
        "rps": rps,
        "scores": [float(g["scores"][s]) for s in range(n)],
    }


# ---------------------------------------------------------------------------------------------
# BatchGame (section 9.7)
# ---------------------------------------------------------------------------------------------


def rollout_counts(st, cfg, carry, decks, coins, seed, fast, logs, threads=1):
    """K.rollout_random on every game of st, game b with generator b of seed_generators(seed, B),
    in `threads` contiguous shards (cardzoo.batch.run_shards); the games are the same whatever the
    thread count."""
    rng = seed_generators(seed, len(st))
    if threads == 1:
        return K.rollout_random(st, cfg, carry, decks, coins, rng, fast, logs)
    return np.concatenate(run_shards(threads, len(st), lambda a, b: K.rollout_random(
        st[a:b], cfg, carry, decks[a:b], coins[a:b], rng[a:b], fast, logs[a:b])))


class BatchGame(_Game, BatchGameBase):
    """n LOPTI games stepped together by the same kernels (spec 9.7).

    For jitted tools that step the games themselves (a search agent's rollout policy): ``st`` is the
    state record array (one record per game, layout lopti_env/state.py; writing to it changes the
    games) and ``cfg``, ``carry``, ``decks[b]``, ``coins[b]`` are the further arguments of
    ``lopti_env.kernels.step_game`` for game b. ``rewards`` follows ``st`` after ``step``, ``rollout``
    and ``load_positions``; a tool that steps ``st`` itself reads ``st["rewards"]``."""

    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE

    def __init__(self, n, threads=1, **config):
        cfg = make_lopti_config(config)
        self._setup_config(cfg)
        BatchGameBase.__init__(self, n, cfg.num_players, threads)
        self.st = new_state(self.n)
        self.decks = np.zeros((self.n, self.R, 52), np.int8)
        self.coins = np.zeros((self.n, self.n_coins), np.int8)
        self._nolog = np.zeros((self.n, 0), np.int16)

    def _reset_games(self, seeds, deals):
        decks = np.zeros((self.n, self.R, 52), np.int8)
        coins = np.zeros((self.n, self.n_coins), np.int8)
        fds = np.full(self.n, self.config.first_dealer, np.int64)
        seeded = nprandom.seeds_fit(seeds)
        if seeded:
            self._seeded_draws(seeds, decks, coins)
        for b, s in enumerate(seeds if not seeded or deals is not None else ()):
            if not seeded:
                rng = np.random.default_rng(s)
                decks[b] = self._decks_from(rng)
                if self.config.session:
                    aux = np.random.default_rng([s, 1]) if s is not None else np.random.default_rng()
                    coins[b] = self._coins_from(aux)
            if deals is not None:
                try:
                    fd, inj = self._parse_deal(deals[b])
                except ValueError as e:
                    raise ValueError(f"game {b}: {e}") from None
                fds[b] = fd
                for i, d in inj.items():
                    decks[b, i] = d
        st = new_state(self.n)
        run_shards(self.threads, self.n, lambda a, b: K.start_episodes_batch(
            st[a:b], self.cfg, self.carry, decks[a:b], coins[a:b], self.rules0, self.sw0, fds[a:b]))
        self.st, self.decks, self.coins = st, decks, coins

    def _seeded_draws(self, seeds, decks, coins):
        """Section 7.3's draws of every game in jitted calls (cardzoo/nprandom.py; the decks split over
        the BatchGame's threads), exactly as _decks_from / _coins_from make them: game b's R decks are
        the first R permutation(52) of default_rng(seeds[b]); in session mode its LO-10.7 coins are the
        first n_coins integers(2) of default_rng([seeds[b], 1]). LOPTI draws nothing later, so no
        generator is kept."""
        words, nwords = nprandom.entropy_words(seeds)
        states = np.empty((self.n, nprandom.STATE_WORDS), np.uint64)
        run_shards(self.threads, self.n, lambda a, b: (nprandom.seed_rows(words[a:b], nwords[a:b], states[a:b]),
                                                       nprandom.permutation_rows(states[a:b], decks[a:b])))
        if self.config.session:
            aux = nprandom.seeded_states(seeds, (1,))
            drawn = np.empty(coins.shape, np.int64)
            nprandom.integers_rows(aux, 2, np.full(self.n, self.n_coins, np.int64), drawn)
            coins[:] = drawn

    def _kernel_current_player(self):
        return self.st["actor"].astype(np.int8)

    def _kernel_legal_mask(self, out):
        K.legal_mask_batch(self.st, out)

    def _kernel_observe(self, out):
        observe_batch(self.st, self.cfg, out)

    def _kernel_step(self, actions):
        K.step_batch(self.st, self.cfg, self.carry, self.decks, self.coins, actions.astype(np.int64))
        self.rewards[:] = self.st["rewards"][:, :self.num_players]

    def _kernel_rollout(self, policy, seed):
        n = rollout_counts(self.st, self.cfg, self.carry, self.decks, self.coins, seed, True, self._nolog,
                           self.threads)[:, 0].sum()
        self.rewards[:] = self.st["rewards"][:, :self.num_players]
        return n

    def public_state(self, b):
        self._check_reset("public_state")
        return public_state_of(self.st[self._game_index(b)], self.config)

    def hand(self, b, seat):
        """Game b's hand of `seat`, as env().hand(seat) gives it."""
        self._check_reset("hand")
        b, seat = self._game_index(b), check_int("seat", seat, 0, self.num_players - 1, what="hand()")
        return _group(int(self.st["hand"][b][seat]))

    def load_positions(self, states, rows) -> None:
        """Start games from section 7.2 positions: the games ``rows[i]`` (an index array) get
        ``states[i]``, the other games keep theirs. ``states[0]`` goes through the parser of
        ``raw_env.reset(options={"state": S})`` (ValueError as there); every later state must deal the
        same hidden cards (hands, face-down cards, draw pile) into the same places — as the sampled
        worlds of one public position do — and takes the rest of its position from ``states[0]``.
        Rewards start at 0; ``step``, ``observe`` and ``rollout`` then go on from the positions."""
        from lopti_env.positions import load_positions

        load_positions(self, states, rows)


__all__ = ["raw_env", "env", "BatchGame", "action_name", "action_from_name", "STATE_DTYPE"]
