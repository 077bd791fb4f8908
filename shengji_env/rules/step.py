"""Section 4 masks and the step: applying one action and everything automatic after it.

The thin layers between the env's entry points and the rules (`_auto`, `step_ws`, `step_one`) are
inlined into their callers: numba links and optimizes everything a kernel calls into
that kernel's own machine code, so each layer compiled on its own cost a first run as much as the whole
step below it."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit
from cardzoo.fastpath import ILLEGAL, PHASE_STEP, RESYNC

from ..config import C_AUTO, C_K
from ..state import CS_SEL
from .cardsets import available_bits, clear_selection_sets, select_card, set_bits
from .declare import _advance, decl_options
from .follow import _follow_mask
from .kitty import _pick_up, bury_card
from .lead import execute_lead_from_record
from .phases import (A_BJ, A_DECL, A_DONE, A_LJ, A_NAME, A_PASS, BURY, DEAL, DECLARE, FINAL, FOLLOW, LEAD, NAME_TRUMP,
                     NUM_ACTIONS)
from .score import _finish_hand
from .scratch import WORK_INFO, WORK_TMP, WORK_WS, WS_CFG, WS_SIZE, make_ws, set_ws_cfg
from .trick import _resolve_trick, play_card


@njit(cache=True)
def legal_mask(st, b, cfg, out):
    """out[0:84] := the acting seat's mask (section 4); zeros when no decision is pending."""
    s = st[b]
    out[:] = 0
    ph = s.phase
    if ph == DECLARE:
        out[A_PASS] = 1
        decl_options(st, b, cfg, s.actor, out)
    elif ph == NAME_TRUMP:
        for t in range(4):
            out[A_NAME + t] = 1
    elif ph == BURY:
        set_bits(out, available_bits(s, s.banker))
    elif ph == LEAD:
        av = available_bits(s, s.actor)
        if s.nsel > 0:
            # further cards of the first selected card's esuit, or DONE
            est = s.es_tab
            es = est[lowest_bit(s.card_sets[CS_SEL + 1])]
            out[A_DONE] = 1
            while av != 0:
                c = lowest_bit(av)
                av &= av - np.uint64(1)
                if est[c] == es:
                    out[c] = 1
        else:
            set_bits(out, av)
    elif ph == FOLLOW:
        _follow_mask(st, b, cfg, out)


@njit(cache=True)
def _apply(st, b, cfg, a, ws):
    """Apply the legal action a of game b (no automatic steps). ws: make_ws work arrays holding the
    config (set_ws_cfg)."""
    s = st[b]
    ph = s.phase
    if ph == DECLARE:
        p = s.actor
        if a != A_PASS:
            if a >= A_BJ:
                y = 53
                j = a - A_BJ + 1
            elif a >= A_LJ:
                y = 52
                j = a - A_LJ + 1
            else:
                y = ((a - A_DECL) // 4) * 13 + s.hand_level
                j = (a - A_DECL) % 4 + 1
            nd = s.ndecl
            s.decl_seat[nd] = p
            s.decl_card[nd] = y
            s.decl_cnt[nd] = j
            s.ndecl = nd + 1
            if s.shown[p, y] < j:
                s.shown[p, y] = j
        s.seen[p] = s.ndecl
        if s.in_final:
            if a == A_PASS:
                s.fr_skips += 1
            else:
                s.fr_skips = 0
            s.phase = FINAL
        else:
            s.phase = DEAL
        s.actor = -1
        _advance(st, b, cfg)
    elif ph == NAME_TRUMP:
        s.trump = a - A_NAME
        _pick_up(st, b, cfg)
    elif _apply_play_r(s, a, ws):
        _finish_hand(st, b, cfg)


@njit(cache=True)
def _apply_play_r(s, a, ws):
    """_apply for BURY, LEAD and FOLLOW on the record s (config in ws, set_ws_cfg): returns True
    when the hand is over and must be scored (_finish_hand)."""
    ph = s.phase
    if ph == BURY:
        bury_card(s, a, ws[WS_CFG + C_K])
    elif ph == LEAD:
        if a == A_DONE:
            execute_lead_from_record(s, ws)
        else:
            select_card(s, a)
    elif ph == FOLLOW:
        select_card(s, a)
        if s.nsel == s.lead_n:
            p = s.actor
            sel = s.sel
            if s.nsel == 1:
                play_card(s, p, a, 1)
                sel[a] = 0
            else:
                for c in range(54):
                    k = sel[c]
                    if k > 0:
                        play_card(s, p, c, k)
                        sel[c] = 0
            clear_selection_sets(s)
            s.nsel = 0
            s.ntp += 1
            if s.ntp == 4:
                return _resolve_trick(s, ws)
            s.actor = (p + 1) % 4
    return False


@njit(cache=True, inline="always")
def _auto(st, b, cfg, tmp, ws):
    """auto_forced (section 4): apply single-option steps of BURY/LEAD/FOLLOW by themselves."""
    s = st[b]
    while s.phase == BURY or s.phase == LEAD or s.phase == FOLLOW:
        legal_mask(st, b, cfg, tmp)
        n = 0
        last = -1
        for a in range(NUM_ACTIONS):
            if tmp[a]:
                n += 1
                last = a
        if n != 1:
            return
        _apply(st, b, cfg, last, ws)


@njit(cache=True, inline="always")
def step_ws(st, b, cfg, a, ws, tmp):
    """Apply a legal action of game b (the caller checked the mask) and everything automatic.
    ws: make_ws work arrays; tmp: int8[84] scratch for auto_forced."""
    s = st[b]
    for i in range(4):
        s.rewards[i] = 0.0
    set_ws_cfg(ws, cfg)
    _apply(st, b, cfg, a, ws)
    if cfg[C_AUTO]:
        _auto(st, b, cfg, tmp, ws)


@njit(cache=True, inline="always")
def step_one(st, b, cfg, a):
    """step_ws with its own work arrays."""
    step_ws(st, b, cfg, a, make_ws(), np.zeros(NUM_ACTIONS, np.int8))


@njit(cache=True, inline="always")
def _auto_after_deal(st, b, cfg, tmp, ws):
    """auto_forced after a deal started (the caller checked cfg[C_AUTO]); tmp, ws: work arrays."""
    set_ws_cfg(ws, cfg)
    _auto(st, b, cfg, tmp, ws)


@njit(cache=True)
def after_deal_auto(st, b, cfg):
    """Run auto_forced after a deal started (reset, redeal, next hand)."""
    if cfg[C_AUTO]:
        _auto_after_deal(st, b, cfg, np.zeros(NUM_ACTIONS, np.int8), make_ws())


@njit(cache=True)
def batch_current_player(st, out):
    for b in range(st.shape[0]):
        ph = st[b].phase
        out[b] = st[b].actor if ph <= FOLLOW else -1


@njit(cache=True)
def batch_legal_mask(st, cfg, out):
    # through an int8 row: legal_mask then compiles for one mask type, the env's (int8)
    row = np.zeros(NUM_ACTIONS, np.int8)
    for b in range(st.shape[0]):
        legal_mask(st, b, cfg, row)
        for a in range(NUM_ACTIONS):
            out[b, a] = row[a]


@njit(cache=True)
def batch_step(st, cfg, actions):
    ws = make_ws()
    tmp = np.zeros(NUM_ACTIONS, np.int8)
    for b in range(st.shape[0]):
        s = st[b]
        if actions[b] < 0 or s.phase > FOLLOW:
            for i in range(4):
                s.rewards[i] = 0.0
            continue
        step_ws(st, b, cfg, actions[b], ws, tmp)


AUTO_AFTER_DEAL = -1
SYNC_ONLY = -2


@njit(cache=True, inline="always")
def _resync(s, work):
    """RESYNC, with the report the env reads then in work (WORK_INFO)."""
    info = work[WORK_INFO:WORK_INFO + 48].view(np.int64)
    ph = s.phase
    info[0] = s.actor if ph <= FOLLOW else -1
    info[1] = ph
    info[2] = s.term
    info[3] = s.trunc
    info[4] = s.r_valid
    info[5] = s.r_hand_index
    rewards = work[WORK_INFO + 48:WORK_INFO + 64].view(np.float32)
    for i in range(4):
        rewards[i] = s.rewards[i]
    return RESYNC


@njit(cache=True)
def env_step(st, b, cfg, a, work):
    """One AEC step of game b in one call: apply action a, run everything automatic, write the next
    actor's mask (zeros when no seat acts) to work[0:84] and report (cardzoo.fastpath): ILLEGAL,
    nothing done, when that mask (the actor's, as the last call left it) refuses a; the seat to act
    next when the step was quiet (the same phase and result, nobody paid, a seat still to act);
    PHASE_STEP - seat - 8 * phase when it was quiet except that the phase changed; else RESYNC, and
    the env reads the rest from work[WORK_INFO:]. work: int8[WORK_BYTES] (scratch.WORK_*), the env's.
    a = AUTO_AFTER_DEAL runs after_deal_auto instead of an action, a = SYNC_ONLY only writes the
    mask: the env makes every kernel call through this one entry point, so a first run compiles the
    step and the mask code into one piece of machine code, not into one per entry point."""
    mask = work[:NUM_ACTIONS]
    tmp = work[WORK_TMP:WORK_TMP + NUM_ACTIONS]
    ws = work[WORK_WS:WORK_WS + 8 * WS_SIZE].view(np.int64)
    s = st[b]
    phase = s.phase
    r_valid = s.r_valid
    r_key = s.r_hand_index
    if a >= 0:
        if mask[a] == 0:
            return ILLEGAL
        step_ws(st, b, cfg, a, ws, tmp)
    elif a == AUTO_AFTER_DEAL and cfg[C_AUTO]:
        _auto_after_deal(st, b, cfg, tmp, ws)
    ph = s.phase
    if ph > FOLLOW:
        mask[:] = 0
        return _resync(s, work)
    legal_mask(st, b, cfg, mask)
    if a < 0 or s.r_valid != r_valid or s.r_hand_index != r_key:
        return _resync(s, work)
    for i in range(4):
        if s.rewards[i] != 0.0:
            return _resync(s, work)
    if ph != phase:
        return PHASE_STEP - s.actor - 8 * ph
    return s.actor
