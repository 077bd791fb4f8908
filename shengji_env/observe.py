"""The section 3 reference observation of one seat, flattened in the 9.7 layout (938 floats)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .rules.phases import BURY, FOLLOW, LEAD, NUM_ACTIONS, OVER
from .rules.step import legal_mask

__all__ = ["OBS_SIZE", "observe_seat", "batch_observe"]

OBS_SIZE = 938
OFF_HAND = 0
OFF_SEL = 54
OFF_KITTY = 108
OFF_PLAYED = 162
OFF_TRICK = 378
OFF_SHOWN = 594
OFF_SIZES = 810
OFF_PHASE = 814
OFF_LEVELS = 820
OFF_LEVEL = 822
OFF_BANKER = 823
OFF_TRUMP = 828
OFF_STANDING = 834
OFF_LEADER = 846
OFF_LEADN = 850
OFF_POINTS = 851
OFF_DEALT = 853
OFF_MASK = 854


@njit(cache=True)
def observe_seat(st, b, seat, out, mask):
    """Write seat's observation of game b into out[0:938] (out must be zeroed by the caller).
    mask: the actor's legal mask (section 4), copied in when seat is to act. The caller has it (the
    env keeps it current), so the observation does not link the mask code in again: that code is
    most of what a first run compiles."""
    s = st[b]
    ph = s.phase
    for c in range(54):
        out[OFF_HAND + c] = s.hand[seat, c]
    acting = ph <= FOLLOW and s.actor == seat
    if acting and (ph == BURY or ph == LEAD or ph == FOLLOW):
        for c in range(54):
            out[OFF_SEL + c] = s.sel[c]
    # kitty (section 3)
    if ph == OVER and s.hand_over:
        for c in range(54):
            out[OFF_KITTY + c] = s.buried[c]
    elif seat == s.banker and ph == BURY:
        for c in range(54):
            out[OFF_KITTY + c] = s.kitty_orig[c]
    elif seat == s.banker and (ph == LEAD or ph == FOLLOW):
        for c in range(54):
            out[OFF_KITTY + c] = s.buried[c]
    else:
        for j in range(s.nrev):
            out[OFF_KITTY + s.kitty_order[j]] += 1
    for r in range(4):
        q = (seat + r) % 4
        tot = 0
        for c in range(54):
            out[OFF_PLAYED + 54 * r + c] = s.played[q, c]
            out[OFF_TRICK + 54 * r + c] = s.trick_cards[q, c]
            out[OFF_SHOWN + 54 * r + c] = s.shown[q, c]
            tot += s.hand[q, c]
        out[OFF_SIZES + r] = tot
    if ph <= OVER:
        out[OFF_PHASE + ph] = 1.0
    team = seat % 2
    out[OFF_LEVELS] = s.levels[team]
    out[OFF_LEVELS + 1] = s.levels[1 - team]
    out[OFF_LEVEL] = s.hand_level
    if s.banker >= 0:
        out[OFF_BANKER + (s.banker - seat) % 4] = 1.0
    else:
        out[OFF_BANKER + 4] = 1.0
    if s.trump >= 0:
        out[OFF_TRUMP + s.trump] = 1.0
    else:
        out[OFF_TRUMP + 5] = 1.0
    nd = s.ndecl
    if nd > 0:
        out[OFF_STANDING + (s.decl_seat[nd - 1] - seat) % 4] = 1.0
        x = s.decl_card[nd - 1]
        if x == 52:
            out[OFF_STANDING + 5 + 4] = 1.0
        elif x == 53:
            out[OFF_STANDING + 5 + 5] = 1.0
        else:
            out[OFF_STANDING + 5 + x // 13] = 1.0
        out[OFF_STANDING + 11] = s.decl_cnt[nd - 1]
    else:
        out[OFF_STANDING + 4] = 1.0
    if ph == LEAD or ph == FOLLOW:
        out[OFF_LEADER + (s.leader - seat) % 4] = 1.0
        out[OFF_LEADN] = s.lead_n
    out[OFF_POINTS] = s.points[team]
    out[OFF_POINTS + 1] = s.points[1 - team]
    out[OFF_DEALT] = s.dealt
    if acting:
        for a in range(NUM_ACTIONS):
            out[OFF_MASK + a] = mask[a]


@njit(cache=True)
def batch_observe(st, cfg, out):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for b in range(st.shape[0]):
        s = st[b]
        if s.phase <= FOLLOW:
            legal_mask(st, b, cfg, mask)
            observe_seat(st, b, s.actor, out[b], mask)
