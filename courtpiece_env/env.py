"""Court Piece environments: the PettingZoo AEC env (raw_env / env) and BatchGame (spec section 9)."""
from __future__ import annotations

import numbers

import numpy as np
from numba import njit

from cardzoo import aec, nprandom
from cardzoo.fastpath import ILLEGAL, PHASE_STEP, RESYNC, KernelEntry
from cardzoo.batch import BatchGameBase, copy_records, run_shards
from cardzoo.cards import card_text, mask_to_cards, seed_generators
from cardzoo.options import check_int, check_seed, int_array
from courtpiece_env import config as cfgmod
from courtpiece_env import deals as dealmod
from courtpiece_env import rules as K
from courtpiece_env.observe import OBS_SIZE, observe_batch, observe_one
from courtpiece_env.render import action_from_name as _action_from_name
from courtpiece_env.render import action_name as _action_name
from courtpiece_env.render import render_text
from courtpiece_env.state import (
    BAND_HIDE, CALL, CHANGE_CARDS, CHANGE_TRUMP, HIDE, KINDS, NEED_DEAL, OVER, PHASE_NAMES, PLAY, new_state,
)

NUM_ACTIONS = 60


def _card(c):
    return None if c < 0 else card_text(int(c))


def _opt(x):
    x = int(x)
    return None if x < 0 else x


def result_dict(r) -> dict | None:
    """9.4 result of the bazi held in record r (None before it is decided)."""
    if not r["decided"]:
        return None
    return _result_from((int(r["bazi_index"]), int(r["res_winner"]), int(r["res_kind"]), int(r["res_points"]),
                         int(r["res_kots"]), int(r["res_bonus"]), int(r["res_next_dealer"]), int(r["res_at"]),
                         int(r["res_match_winner"])))


def _result_from(f) -> dict:
    return {
        "bazi_index": f[0],
        "winner_team": f[1],
        "kind": KINDS[f[2]],
        "points": f[3],
        "kots": f[4],
        "bonus": f[5],
        "next_dealer": f[6],
        "decided_at_trick": f[7],
        "match_winner": None if f[8] < 0 else f[8],
    }


def public_state_of(r, config) -> dict:
    """9.3 public record of the bazi held in record r."""
    phase = int(r["phase"])
    variant = config.variant
    in_play = phase == PLAY
    nt = int(r["ntrick"])
    npos = int(r["npos"])
    tricks = []
    for t in range(nt):
        ld = int(r["trick_leader"][t])
        tricks.append({"leader": ld,
                       "cards": [[(ld + i) % 4, card_text(int(r["trick_cards"][t, i]))] for i in range(4)],
                       "winner": int(r["trick_winner"][t])})
    current = []
    if in_play and npos > 0:
        ld = int(r["trick_leader"][nt])
        current = [[(ld + i) % 4, card_text(int(r["trick_cards"][nt, i]))] for i in range(npos)]
    double = variant == "double_sar"
    pile = int(r["pile"])
    streak = [None, 0]
    if config.streak_active and r["streak_team"] >= 0:
        streak = [int(r["streak_team"]), int(r["streak_count"])]
    return {
        "variant": variant,
        "phase": PHASE_NAMES[phase],
        "actor": _opt(r["actor"]),
        "dealer": int(r["dealer"]),
        "first_chooser": int(r["fc"]),
        "passed": bool(r["passed"]),
        "caller": _opt(r["caller"]) if variant not in ("be_rang", "mendi_coat") else None,
        "trump": _opt(r["trump"]),
        "turned_card": _card(r["turned"]),
        "hidden_owner": _opt(r["hidden_owner"]),
        "shown_card": _card(r["shown_card"]),
        "shown_at": [int(r["shown_trick"]), int(r["shown_pos"])] if r["shown_card"] >= 0 else None,
        "trump_changed": bool(r["trump_changed"]),
        "trump_set_by": [int(r["set_seat"]), card_text(int(r["set_card"]))] if r["set_card"] >= 0 else None,
        "leader": int(r["leader"]) if in_play else None,
        "hand_sizes": [int(r["hands"][s]).bit_count() for s in range(4)],
        "trick_number": nt,
        "current_trick": current,
        "tricks": tricks,
        "tricks_won": [int(r["tricks_won"][0]), int(r["tricks_won"][1])],
        "pile": [t + 1 for t in range(13) if (pile >> t) & 1] if double else [],
        "run_holder": _opt(r["run_holder"]) if double else None,
        "taken": [int(r["taken"][0]), int(r["taken"][1])] if double else [0, 0],
        "tens": [int(r["tens"][0]), int(r["tens"][1])] if variant == "mendi_coat" else [0, 0],
        "change_cards_used": [int(x) for x in r["cc_used"]],
        "decided": bool(r["decided"]),
        "result": result_dict(r),
        "score": [int(r["score"][0]), int(r["score"][1])],
        "streak": streak,
        "target": config.target,
        "bazi_index": int(r["bazi_index"]),
    }


def _redeal(st, b, cfg, ep):
    """A match bazi finished: deal the next one at once (CP-9.4 / CP-11.10)."""
    dealer = int(st["res_next_dealer"][b])
    order = ep.next_bazi(dealer)
    st["bazi_index"][b] += 1
    K.start_bazi_at(st, b, cfg, order, dealer)


@njit(cache=True, error_model="numpy")
def aec_step(st, cfg, a, neworder, mask_out):
    """The AEC env's step of game 0 in one call: the actor's legal actions checked first (the
    same legal_bits its mask was written from), then K.step_one's work, reported in the terms of
    the one step report of cardzoo.fastpath: ILLEGAL when `a` is not legal (nothing
    changed); else the next actor's mask (zeros when none) is in mask_out and the return is that
    actor when the phase stayed the same, PHASE_STEP - actor - 8 * phase when only the phase changed,
    RESYNC when no seat acts any more (the bazi was decided: CP-9.4, rewards paid; phase
    OVER, or NEED_DEAL in a match). Only a decided bazi pays or changes the result, so every
    other step is quiet. For change cards (59) `neworder` holds the new deal order drawn by the caller."""
    s = st[0]
    cards, ex = K.legal_bits(s, cfg)
    if a < 52:
        if cards & (K.ONE << np.uint64(a)) == K.ZERO:
            return ILLEGAL
    elif (ex >> (a - 52)) & 1 == 0:
        return ILLEGAL
    phase = s.phase
    for i in range(4):
        s.rewards[i] = 0.0
    K.apply_action(s, cfg, a, neworder)
    actor = s.actor
    if actor < 0:  # nobody's mask: all zero (as K.mask_one leaves it)
        for i in range(mask_out.shape[0]):
            mask_out[i] = 0
        return RESYNC
    cards, ex = K.legal_bits(s, cfg)
    K.write_mask(cards, ex, mask_out)
    if s.phase != phase:
        return PHASE_STEP - actor - 8 * s.phase
    return actor


_AEC_STEP = KernelEntry(aec_step)


class raw_env(aec.CardGameEnv):
    """Court Piece / Mendi Coat as a PettingZoo AEC env (rules: docs/rules/courtpiece.md)."""

    metadata = {"name": "courtpiece_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    version = 0
    phase_names = PHASE_NAMES
    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE
    observation_bounds = (-1.0, 1.0)
    reset_options = dealmod.OPTION_KEYS
    _derived = ("_f_actor", "_f_phase", "_step")

    def __init__(self, render_mode=None, **config):
        self.config = cfgmod.make(**config)
        self._cfg = self.config.to_array()
        super().__init__(4, render_mode)
        self._st = new_state(1)  # one record for the env's whole life: reset rewrites it in place
        self._ep = None
        self._bazi_result = None  # (not _result: the adapter keeps its own _result, the last one it synced)
        self._neworder = np.zeros((4, 13), np.int8)
        # the actor's legal mask, rewritten in place by every step (the adapter hands out copies)
        self._next_mask = np.zeros(NUM_ACTIONS, np.int8)
        # work arrays of _game_reset_seeded (a seed's entropy words, the draw's dealer and deal order)
        self._seed_words = np.zeros((1, 2), np.uint32)
        self._seed_nwords = np.zeros(1, np.int64)
        self._seed_orders = np.zeros((1, 4, 13), np.int8)
        self._seed_dealers = np.zeros(1, np.int64)
        self._zero_rewards = _NO_REWARDS
        self._rewards_now = self._zero_rewards
        self._bind()

    def _bind(self):
        _Kernels.load(self._cfg)
        self._f_actor = self._st["actor"]  # field views, read by the hooks that sync everything
        self._f_phase = self._st["phase"]
        # the step kernel's compiled entry point at the env's argument types (fixed: see KernelEntry)
        self._step = _AEC_STEP.at(self._st, self._cfg, 0, self._neworder, self._next_mask)

    # ---- hooks -------------------------------------------------------------------------------
    def _game_reset_seeded(self, seed):
        """Section 7 steps 1-2 of an option-free reset in one jitted call (BatchGame's seeded reset
        for one game): the env then holds exactly what _game_reset(default_rng(seed), None) leaves."""
        if not nprandom.STREAM_MATCHES:
            return None
        nprandom.put_seed_words(seed, self._seed_words, self._seed_nwords)
        states = np.empty((1, nprandom.STATE_WORDS), np.uint64)  # the generator's own: kept by it
        if not _Kernels.seeded_begin_one(self._st, 0, self._cfg, self._seed_words, self._seed_nwords, states,
                                         self._seed_orders, self._seed_dealers):
            return None
        rng = nprandom.LazyGenerator(states, 0)
        self._ep = dealmod.Episode(rng, [], None, None, [])
        self._bazi_result = None
        self._refresh()
        return rng

    def _game_reset(self, rng, options):
        ep, dealer, order, score, streak, bazi_index = dealmod.prepare_episode(self.config, rng, options)
        # validated: from here nothing can fail, so the state array is reused in place
        _Kernels.begin_one(self._st, 0, self._cfg, order, dealer, score[0], score[1], streak[0], streak[1],
                           bazi_index)
        self._ep = ep
        self._bazi_result = None
        self._refresh()

    def _refresh(self):
        _Kernels.mask_one(self._st, 0, self._cfg, self._next_mask)
        self._rewards_now = self._zero_rewards

    def _timeout_card(self, card):
        """A card event of CP-12.2 (K.timeout_card_one) with the bookkeeping of a step."""
        code = _Kernels.timeout_card_one(self._st, 0, self._cfg, card, self._next_mask)
        if code & 7:  # actor + 1: a seat still acts
            self._rewards_now = self._zero_rewards
        else:
            self._finished()

    def _finished(self):
        """The bazi was decided (CP-9.4): its result and rewards; in a match the next deal at once."""
        st = self._st
        buf = np.empty(13, np.int64)
        _Kernels.result_fields(st, 0, buf)
        f = buf.tolist()
        self._bazi_result = _result_from(f)
        rewards = np.array(f[9:13], np.float32)
        if int(self._f_phase[0]) == NEED_DEAL:
            _redeal(st, 0, self._cfg, self._ep)
            self._refresh()
        self._rewards_now = rewards

    def _game_step(self, action):
        if action == 59:  # the adapter checked the mask: change cards is legal, so it may draw
            st = self._st
            self._neworder = self._ep.change_cards_order(st["order"][0], int(st["actor"][0]), int(st["dealer"][0]))
        moved = self._step(self._st, self._cfg, action, self._neworder, self._next_mask)
        if moved == -2:  # never from the adapter, which checks the mask first
            raise ValueError(f"illegal action {action} ({_action_name(action)!r})")
        if moved == -1:
            self._finished()
        else:
            self._rewards_now = self._zero_rewards

    def _game_quick_step(self, action):
        """The adapter's fast path: aec_step's report (cardzoo.fastpath); after RESYNC (the bazi was
        decided) the adapter syncs the result, rewards and ends from the hooks."""
        if action == 59:  # change cards (CP-3.6): draws the new deal order first; rare, the plain way
            if not self._next_mask[59]:  # (the env's own mask: a refused 59 draws nothing)
                return ILLEGAL
            self._game_step(59)
            return RESYNC
        moved = self._step(self._st, self._cfg, action, self._neworder, self._next_mask)
        if moved == RESYNC:
            self._finished()
        # (_rewards_now: a quiet step follows a step that paid nobody -- else the adapter takes the
        # slow path -- so it already holds what this step paid: nothing)
        return moved

    def _game_actor(self):
        return int(self._f_actor[0])

    def _game_mask(self):
        return self._next_mask

    def _game_observation(self, seat):
        out = np.empty(OBS_SIZE, np.float32)
        _Kernels.observe_one(self._st, 0, self._cfg, seat, out)
        return out

    def _game_phase(self):
        return PHASE_NAMES[self._f_phase[0]]

    def _game_rewards(self):
        return self._rewards_now

    def _game_end(self):
        return True, False

    def _game_result(self):
        return self._bazi_result

    def _game_render(self):
        hands = [mask_to_cards(int(h)) for h in self._st["hands"][0]]
        return render_text(self.public_state(), hands)

    # ---- public surface (9.1) ------------------------------------------------------------------
    def timeout(self) -> None:
        """CP-12.2: the seat to act ran out of time."""
        self._check_reset("timeout")
        st = self._st
        r = st[0]
        phase = int(self._f_phase[0])
        if phase in (OVER, NEED_DEAL) or int(self._f_actor[0]) < 0:
            raise ValueError("timeout(): no seat is to act (phase 'over')")
        # a timeout ends the seat's turn as a step does (CP-12.2, 9.1): counted like one, so the
        # wrapper's agent_iter, which requires each turn to end in step() or reset(), accepts it
        self._steps += 1
        agent = self.agent_selection
        actor = int(r["actor"])
        fc = int(r["fc"])
        if phase in (CHANGE_CARDS, CHANGE_TRUMP) or (phase in (CALL, HIDE) and actor == fc and not r["passed"]):
            self._cumulative_rewards[agent] = 0.0
            self._game_step(56)
        elif phase in (CALL, HIDE):
            card = self._ep.turned_card(r["order"], fc)
            self._cumulative_rewards[agent] = 0.0
            self._timeout_card(card)
        elif phase == BAND_HIDE:
            card = self._ep.band_card(r["order"], fc)
            self._cumulative_rewards[agent] = 0.0
            self._timeout_card(card)
        else:
            legal = np.flatnonzero(self._next_mask)
            cards = legal[legal < 52]
            if len(cards):
                a = int(cards[int(self._ep.rng.integers(len(cards)))])
            else:
                a = int(legal[0])
            self._cumulative_rewards[agent] = 0.0
            self._game_step(a)
        self._sync()

    def public_state(self) -> dict:
        self._check_reset("public_state")
        return public_state_of(self._st[0], self.config)

    def hand(self, seat) -> list[str]:
        if isinstance(seat, bool) or not isinstance(seat, numbers.Integral) or not 0 <= int(seat) <= 3:
            raise ValueError(f"hand(seat): seat must be 0..3, got {seat!r}")
        self._check_reset("hand")
        return [card_text(c) for c in mask_to_cards(int(self._st["hands"][0, int(seat)]))]

    @staticmethod
    def action_name(a) -> str:
        return _action_name(a)

    @staticmethod
    def action_from_name(name) -> int:
        return _action_from_name(name)


class _Kernels:
    """Compiled entry points of the per-call kernels at B = 1 (typing a record array on every call
    costs more than the kernel itself)."""
    ready = False

    @classmethod
    def load(cls, cfg):
        if cls.ready:
            return
        st = new_state(1)
        order = np.zeros((4, 13), np.int8)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        cls.mask_one = KernelEntry(K.mask_one).at(st, 0, cfg, mask)
        cls.observe_one = KernelEntry(observe_one).at(st, 0, cfg, 0, np.zeros(OBS_SIZE, np.float32))
        cls.begin_one = KernelEntry(K.begin_one).at(st, 0, cfg, order, 0, 0, 0, 0, 0, 0)
        cls.seeded_begin_one = KernelEntry(K.seeded_begin_one).at(
            st, 0, cfg, np.zeros((1, 2), np.uint32), np.zeros(1, np.int64),
            np.zeros((1, nprandom.STATE_WORDS), np.uint64), np.zeros((1, 4, 13), np.int8), np.zeros(1, np.int64))
        cls.start_bazi_at = KernelEntry(K.start_bazi_at).at(st, 0, cfg, order, 0)
        cls.result_fields = KernelEntry(K.result_fields).at(st, 0, np.zeros(13, np.int64))
        cls.ready = True

    @classmethod
    def timeout_card_one(cls, st, b, cfg, card, mask_out):
        """K.timeout_card_one, compiled on the first timeout: most envs never time out, and a first
        run compiles seconds less without it."""
        cls.timeout_card_one = KernelEntry(K.timeout_card_one).at(st, 0, cfg, 0, mask_out)
        return cls.timeout_card_one(st, b, cfg, card, mask_out)


class _NoRewards:
    """What a step that pays nobody gave (the adapter asks `.any()` on every step)."""
    __slots__ = ()

    def any(self):
        return False

    def __getitem__(self, seat):
        return 0.0

    def __len__(self):
        return 4

    def __array__(self, dtype=None, copy=None):
        return np.zeros(4, np.float32 if dtype is None else dtype)


_NO_REWARDS = _NoRewards()


def env(**config):
    """The public AEC env: raw_env inside PettingZoo's OrderEnforcingWrapper only."""
    return aec.wrap(raw_env(**config))


class _SeededEpisodes:
    """BatchGame's episodes after a seeded reset: game b's Episode (no injected deals), with the
    numpy Generator continuing from its state row, made when the game first needs it."""

    __slots__ = ("states", "eps")

    def __init__(self, states):
        self.states = states
        self.eps = [None] * len(states)

    def __len__(self):
        return len(self.eps)

    def __getitem__(self, b):
        b = int(b)
        ep = self.eps[b]
        if ep is None:
            ep = self.eps[b] = dealmod.Episode(nprandom.LazyGenerator(self.states, b), [], None, None, [])
        return ep


class BatchGame(BatchGameBase):
    """n Court Piece games stepped together by the same kernels (spec 9.8)."""

    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE

    def __init__(self, n, threads=1, **config):
        self.config = cfgmod.make(**config)
        super().__init__(n, 4, threads)
        self._cfg = self.config.to_array()
        self._st = new_state(self.n)
        self._eps = [None] * self.n
        self._neworders = np.zeros((self.n, 4, 13), np.int8)

    def _reset_games(self, seeds, deals):
        if deals is None and nprandom.seeds_fit(seeds) and self._reset_seeded(seeds):
            return
        n = self.n
        prepared = []
        for b in range(n):
            rng = np.random.default_rng(seeds[b])
            opts = None if deals is None else {"deal": deals[b]}
            try:
                prepared.append(dealmod.prepare_episode(self.config, rng, opts))
            except ValueError as e:
                raise ValueError(f"game {b}: {e}") from None
        st = new_state(n)
        orders = np.zeros((n, 4, 13), np.int8)
        dealers = np.zeros(n, np.int64)
        for b, (ep, dealer, order, score, streak, bazi_index) in enumerate(prepared):
            orders[b] = order
            dealers[b] = dealer
            st["score"][b] = score
            st["streak_team"][b] = streak[0]
            st["streak_count"][b] = streak[1]
            st["bazi_index"][b] = bazi_index
        K.start_bazi_batch(st, self._cfg, orders, dealers)
        self._st = st
        self._eps = [p[0] for p in prepared]

    def _reset_seeded(self, seeds):
        """Section 7 steps 1-2 of every game in nogil kernels (over the BatchGame's threads): game b
        draws from the exact state of default_rng(seeds[b]) (cardzoo/nprandom.py), so it deals what
        _reset_games' Python path deals; its numpy Generator is built from the state left after the
        deal only when the game draws again (change cards, a match's next bazi)."""
        n = self.n
        words, nwords = nprandom.entropy_words(seeds)
        states = np.empty((n, nprandom.STATE_WORDS), np.uint64)
        orders = np.zeros((n, 4, 13), np.int8)
        dealers = np.zeros(n, np.int64)
        st = new_state(n)
        st["score"] = 0
        st["streak_team"] = -1
        st["streak_count"] = 0
        st["bazi_index"] = 0
        cfg = self._cfg

        def shard(a, b):  # the draw's permutation(52), then the deal's, then the bazi (nogil kernels)
            if K.seeded_deals(words[a:b], nwords[a:b], states[a:b], orders[a:b], dealers[a:b]) >= 0:
                return False  # a draw ran out of cards: the Python path raises as it always did
            K.start_bazi_batch(st[a:b], cfg, orders[a:b], dealers[a:b])
            return True

        if not all(run_shards(self.threads, n, shard)):
            return False
        self._st = st
        self._eps = _SeededEpisodes(states)
        return True

    def reset(self, seed=None, deals=None, *, hands=None, dealers=None) -> None:
        """9.8 reset; or, with ``hands``, the fast array deal injection (no Python per game).

        ``hands``: int array [n, 4, 13] (or [4, 13] for every game): each seat's 13 card ids in deal
        order (first five, second packet, third packet), all 52 cards once per game; ``dealers``: the
        dealer of each game (int, or int array [n]), required with ``hands``. Game b then starts
        exactly as ``reset(deals=[{"hands": hands[b], "dealer": dealers[b]}, ...])`` would leave it
        (section 7: the deal and dealer are fixed, so no draw from the generator). Events drawn later
        (change cards stock, a match's next deals) come from one generator seeded with ``seed`` that
        all n games share (the ``deals`` path seeds game b with seed + b). Bad input raises ValueError
        and leaves the games as they were."""
        if hands is None:
            if dealers is not None:
                raise ValueError("reset(dealers=...) needs hands=...")
            return super().reset(seed, deals)
        if deals is not None:
            raise ValueError("give either deals=... or hands=..., not both")
        seed = check_seed(seed)
        orders = int_array(hands, "hands")
        if orders.ndim == 2:
            orders = np.broadcast_to(orders, (self.n,) + orders.shape)
        if orders.shape != (self.n, 4, 13) or not np.issubdtype(orders.dtype, np.integer):
            raise ValueError(f"hands must be an int array of shape ({self.n}, 4, 13) or (4, 13), "
                             f"got {orders.dtype} {orders.shape}")
        if dealers is None:
            raise ValueError("reset(hands=...) needs dealers= (an int or an int array of n seats)")
        d = int_array(dealers, "dealers")
        if d.ndim == 0:
            d = np.broadcast_to(d, (self.n,))
        if d.shape != (self.n,) or not np.issubdtype(d.dtype, np.integer) or d.dtype == np.bool_:
            raise ValueError(f"dealers must be an int or an int array of shape ({self.n},), got {d.dtype} {d.shape}")
        if ((d < 0) | (d > 3)).any():
            raise ValueError(f"dealers must be seats 0..3, got {int(d[(d < 0) | (d > 3)][0])}")
        orders = np.ascontiguousarray(orders, dtype=np.int64)
        bad = int(K.check_orders(orders))
        if bad >= 0:
            raise ValueError(f"game {bad}: hands must hold each of the 52 cards (0..51) exactly once")
        st = new_state(self.n)
        K.inject_batch(st, self._cfg, orders, np.ascontiguousarray(d, dtype=np.int64))
        ep = dealmod.Episode(np.random.default_rng(seed), [], None, None, [])
        self._st = st
        self._eps = [ep] * self.n
        self.rewards[:] = 0.0
        self._is_reset = True

    def replay(self, actions) -> None:
        """Apply the same action sequence to every game in one jitted call: actions[0] to every live
        game, then actions[1], ... (games that are done skip the rest), as that many ``step`` calls
        with a constant action would. Change cards (59) and a match's next deal need the generator and
        are refused (use ``step``). An illegal action raises ValueError naming the game and the step;
        then no game moves. ``rewards`` holds what the last action gave."""
        acts = int_array(actions, "actions")
        if acts.ndim != 1 or not (np.issubdtype(acts.dtype, np.integer) or acts.size == 0):
            raise ValueError(f"actions must be a 1-d int sequence, got {acts.dtype} {acts.shape}")
        self._check_reset("replay")
        work = copy_records(self._st)
        k, b, why = K.replay_batch(work, self._cfg, np.ascontiguousarray(acts, dtype=np.int64))
        if why:
            a = int(acts[k])
            reason = {1: "is illegal", 2: "(change cards) needs the generator: use step()",
                      3: "ends the bazi into the next deal of the match: use step()"}[int(why)]
            raise ValueError(f"game {b}: replayed action {k} ({a}) {reason}; no game was stepped")
        self._st = work
        if acts.size:
            self.rewards[:] = work["rewards"]

    @property
    def records(self) -> np.ndarray:
        """The state record array (one record per game, layout courtpiece_env/state.py), for jitted
        tools such as search rollouts. Writing to it changes the games."""
        return self._st

    @property
    def config_array(self) -> np.ndarray:
        """The games' options as the int64 array the kernels read (indices ``C_*`` of
        courtpiece_env/config.py), to pass with ``records`` to jitted tools. A copy: the options of a
        BatchGame are fixed when it is made."""
        return self._cfg.copy()

    def _kernel_current_player(self):
        return self._st["actor"].copy()

    def _kernel_legal_mask(self, out):
        K.legal_mask_batch(self._st, self._cfg, out)

    def _kernel_observe(self, out):
        observe_batch(self._st, self._cfg, out)

    def _kernel_step(self, actions):
        st = self._st
        for b in np.flatnonzero(actions == 59):
            self._neworders[b] = self._eps[b].change_cards_order(st["order"][b], int(st["actor"][b]),
                                                                 int(st["dealer"][b]))
        K.step_batch(st, self._cfg, actions, self._neworders)
        for b in np.flatnonzero(st["phase"] == NEED_DEAL):
            _redeal(st, int(b), self._cfg, self._eps[b])
        self.rewards[:] = st["rewards"]

    def _kernel_rollout(self, policy, seed):
        if self.threads == 1:
            n = K.rollout(self._st, self._cfg, seed)
        else:
            st, cfg, rng = self._st, self._cfg, seed_generators(seed, self.n)
            n = sum(run_shards(self.threads, self.n, lambda a, b: K.rollout_rows(st[a:b], cfg, rng[a:b])))
        self.rewards[:] = self._st["rewards"]
        return n

    # read-only helpers for tests and tools
    def public_state(self, b: int) -> dict:
        self._check_reset("public_state")
        return public_state_of(self._st[self._game_index(b)], self.config)

    def hand(self, b: int, seat: int) -> list[str]:
        self._check_reset("hand")
        b, seat = self._game_index(b), check_int("seat", seat, 0, 3, what="hand()")
        return [card_text(c) for c in mask_to_cards(int(self._st["hands"][b, seat]))]
