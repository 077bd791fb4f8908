"""Random rollouts: every live game played to its end (or its next deal) in one jitted call."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import nth_set_bit, popcount, random_legal, rng_below, seed_generators

from ..config import C_ALLOW_NT, C_AUTO
from ..state import CS_SEAT
from .bits import _esuit_tables_r, _legal_bits_r, lead_bits
from .cardsets import select_card
from .declare import _declare_bits
from .lead import execute_lead
from .phases import A_DONE, A_PASS, BURY, DECLARE, FOLLOW, LEAD, NUM_ACTIONS
from .score import _finish_hand
from .scratch import DS_SIZE, make_esm, make_ws, set_ws_cfg
from .step import _apply, _apply_play_r, _auto, legal_mask, step_one
from .trick import _resolve_trick, play_card


@njit(cache=True)
def _rollout_one(st, b, cfg, rng, mask, ws, esm, stk):
    """Play game b with uniformly random legal actions (each decision uniform over its legal
    mask) until it ends or needs a deal; returns the decisions played. Each action is drawn exactly
    as random_legal(rng, b, legal mask) draws it (same generator use, same action), from the
    _legal_bits set or _declare_bits where that applies (no 84-entry mask); the step is step_ws's,
    with BURY, LEAD and FOLLOW applied on the record (_apply_play_r, leads by lead.execute_lead).
    Without auto_forced, single-card follows and lead composition are drawn and applied on the
    record's card sets directly (esm: make_esm, the esuit tables; stk: the SJ-7.2 search's stack).
    ws must hold the config (set_ws_cfg). The speed twin of _rollout_one_ref."""
    s = st[b]
    auto = cfg[C_AUTO]
    cs = s.card_sets
    n = 0
    key = -1
    fast = False    # esm holds the hand's esuit tables and no forced play is automatic
    if s.phase <= FOLLOW:
        # every step clears the rewards (step_ws); only _finish_hand pays any, and it ends the
        # loop (OVER or NEED_DEAL), so clearing them before the first decision is the same
        for i in range(4):
            s.rewards[i] = 0.0
    allow_nt = cfg[C_ALLOW_NT]
    while s.phase <= FOLLOW:
        ph = s.phase
        if ph == FOLLOW and fast and s.lead_n == 1:
            # a single led (the most common decision): SJ-8.2 allows a card of the led esuit if
            # the seat holds one, else any card; drawn and played as the general path would, with
            # no selection to keep (the play completes at once)
            seat = s.actor
            held = cs[CS_SEAT * seat + 1]
            bits = held & esm[s.lead_esuit]
            if bits == 0:
                bits = held
            a = nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
            play_card(s, seat, a, 1)
            s.ntp += 1
            if s.ntp == 4:
                if _resolve_trick(s, ws):
                    _finish_hand(st, b, cfg)
            else:
                s.actor = (seat + 1) % 4
            n += 1
            continue
        if ph == LEAD and fast:
            # composing a lead without the general path's checks: ~9% of the rollout's time
            bits = lead_bits(s, esm)
            a = nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
            if a == A_DONE:
                execute_lead(s, ws, esm, stk)
            else:
                select_card(s, a)
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
            fast = not auto
            bits = _legal_bits_r(s, esm)
        if bits == 0:
            legal_mask(st, b, cfg, mask)
            a = random_legal(rng, b, mask)
        else:
            a = off + nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
        if ph == LEAD and a == A_DONE and fast:
            execute_lead(s, ws, esm, stk)
        elif ph >= BURY:
            if _apply_play_r(s, a, ws):
                _finish_hand(st, b, cfg)
        else:
            _apply(st, b, cfg, a, ws)
            fast = False
        if auto:
            _auto(st, b, cfg, mask, ws)
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
    for b in range(st.shape[0]):
        n += _rollout_one(st, b, cfg, rng, mask, ws, esm, stk)
    return n


def make_rng(seed, n):
    return seed_generators(seed, n)
