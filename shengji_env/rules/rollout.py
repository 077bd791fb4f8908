"""Random rollouts: every live game played to its end (or its next deal) in one jitted call."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit, nth_set_bit, popcount, random_legal, rng_below, seed_generators

from ..config import C_ALLOW_NT, C_AUTO, C_DECKS
from .bits import _bb_take_played, _esuit_tables_r, _hand_bits_all, _hand_bits_seat, _legal_bits_r
from .declare import _declare_bits
from .lead import execute_lead
from .phases import A_DONE, A_PASS, BURY, DECLARE, FOLLOW, LEAD, NUM_ACTIONS
from .score import _finish_hand
from .scratch import BB_SEAT, BB_SEL, DS_SIZE, make_bb, make_esm, make_ws, set_ws_cfg
from .step import _apply, _apply_play_r, _auto, legal_mask, step_one
from .trick import _resolve_trick, play_card


@njit(cache=True)
def _rollout_one(st, b, cfg, rng, mask, ws, esm, stk, bb):
    """Play game b with uniformly random legal actions (each decision uniform over its legal
    mask) until it ends or needs a deal; returns the decisions played. Each action is drawn exactly
    as random_legal(rng, b, legal mask) draws it (same generator use, same action), from the
    _legal_bits set or _declare_bits where that applies (no 84-entry mask); the step is step_ws's,
    with BURY, LEAD and FOLLOW applied on the record (_apply_play_r, leads by lead.execute_lead).
    Without auto_forced, card sets kept up to date across the plays (bb: make_bb; esm: make_esm;
    stk: the SJ-7.2 search's stack) let single-card follows and lead composition be drawn and applied
    on those sets directly. ws must hold the
    config (set_ws_cfg). The speed twin of _rollout_one_ref."""
    s = st[b]
    auto = cfg[C_AUTO]
    D = cfg[C_DECKS]
    one = np.uint64(1)
    n = 0
    key = -1
    fresh = False    # bb holds the record's card sets (rebuilt after declaring or naming trump)
    if s.phase <= FOLLOW:
        # every step clears the rewards (step_ws); only _finish_hand pays any, and it ends the
        # loop (OVER or NEED_DEAL), so clearing them before the first decision is the same
        for i in range(4):
            s.rewards[i] = 0.0
    allow_nt = cfg[C_ALLOW_NT]
    while s.phase <= FOLLOW:
        ph = s.phase
        if ph == FOLLOW and fresh and s.lead_n == 1:
            # a single led (the most common decision): SJ-8.2 allows a card of the led esuit if
            # the seat holds one, else any card; drawn and played as the general path would, with
            # no selection to keep (the play completes at once) and one card set bit to clear
            seat = s.actor
            held = bb[BB_SEAT * seat + 1]
            bits = held & esm[s.lead_esuit]
            if bits == 0:
                bits = held
            a = nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
            bb[BB_SEAT * seat + s.hand[seat, a]] &= ~(one << np.uint64(a))
            play_card(s, seat, a, 1)
            s.ntp += 1
            if s.ntp == 4:
                if _resolve_trick(s, ws):
                    _finish_hand(st, b, cfg)
            else:
                s.actor = (seat + 1) % 4
            n += 1
            continue
        if ph == LEAD and fresh:
            # composing a lead (section 4): the first card is any held card, each later one a
            # further held card of the first card's esuit, or DONE (bits as _legal_bits_r's)
            seat = s.actor
            if s.nsel == 0:
                bits = bb[BB_SEAT * seat + 1]
            else:
                bits = np.uint64(0)
                for k in range(1, D + 1):
                    bits |= bb[BB_SEAT * seat + k] & ~bb[BB_SEL + k]
                bits = (bits & esm[s.es_tab[lowest_bit(bb[BB_SEL + 1])]]) | (one << np.uint64(A_DONE))
            a = nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
            if a == A_DONE:
                nlog0 = s.nlog
                execute_lead(s, ws, esm, bb, stk)
                for k in range(1, D + 1):
                    bb[BB_SEL + k] = 0
                _bb_take_played(s, bb, nlog0, D)
            else:
                v = s.sel[a] + 1
                s.sel[a] = v
                s.nsel += 1
                bb[BB_SEL + v] |= one << np.uint64(a)
            n += 1
            continue
        bits = np.uint64(0)
        off = 0          # bit i of bits is action off + i
        if ph == DECLARE:
            bits = _declare_bits(s, allow_nt)
            off = A_PASS
        elif ph >= BURY:
            k2 = s.hand_index * 128 + s.trump * 16 + s.hand_level
            if k2 != key:
                _esuit_tables_r(s, esm)
                key = k2
            if not auto and not fresh:
                _hand_bits_all(s, bb)
                fresh = True
            bits = _legal_bits_r(s, esm)
        if bits == 0:
            legal_mask(st, b, cfg, mask)
            a = random_legal(rng, b, mask)
        else:
            a = off + nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
        nlog0 = s.nlog
        if ph == LEAD and a == A_DONE and fresh:
            execute_lead(s, ws, esm, bb, stk)
        elif ph >= BURY:
            if _apply_play_r(s, a, ws):
                _finish_hand(st, b, cfg)
        else:
            _apply(st, b, cfg, a, ws)
            fresh = False
        if auto:
            _auto(st, b, cfg, mask, ws)
        elif fresh and s.phase <= FOLLOW:
            # keep bb equal to the record: the selection grew by a or was cleared by a play or
            # the bury; a play took the logged cards from its seat's hand
            if s.nsel == 0:
                for k in range(1, D + 1):
                    bb[BB_SEL + k] = 0
            else:
                bb[BB_SEL + s.sel[a]] |= one << np.uint64(a)
            if ph == BURY and s.phase != BURY:
                _hand_bits_seat(s, bb, s.banker)
            _bb_take_played(s, bb, nlog0, D)
        n += 1
    return n


@njit(cache=True)
def _rollout_one_ref(st, b, cfg, rng, mask):
    """The plain rollout loop (legal_mask, random_legal, step_one): the reference the fast one is
    tested against."""
    s = st[b]
    n = 0
    while s.phase <= FOLLOW:
        legal_mask(st, b, cfg, mask)
        a = random_legal(rng, b, mask)
        step_one(st, b, cfg, a)
        n += 1
    return n


@njit(cache=True)
def batch_rollout_ref(st, cfg, rng):
    """batch_rollout with the plain loop (tests)."""
    n = 0
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for b in range(st.shape[0]):
        n += _rollout_one_ref(st, b, cfg, rng, mask)
    return n


@njit(cache=True, nogil=True)
def batch_rollout(st, cfg, rng):
    """Play every live game with uniformly random legal actions until it ends or needs a deal
    (each game has its own kernel generator rng[b]; every decision is uniform over the legal mask
    of section 4, CARD by CARD while composing). Runs without the GIL: BatchGame calls it on
    slices of the batch from several threads."""
    n = 0
    mask = np.zeros(NUM_ACTIONS, np.int8)
    ws = make_ws()
    set_ws_cfg(ws, cfg)
    esm = make_esm()
    stk = np.zeros(DS_SIZE, np.int64)
    bb = make_bb()
    for b in range(st.shape[0]):
        n += _rollout_one(st, b, cfg, rng, mask, ws, esm, stk, bb)
    return n


def make_rng(seed, n):
    return seed_generators(seed, n)
