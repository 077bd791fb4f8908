"""SJ-5 and SJ-4.9: the kitty flip, the banker's pick-up and the bury."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit

from ..config import C_FLIP, C_K
from ..state import CS_SEL
from .cardsets import add_to_hand, clear_selection_sets, select_card, take_from_hand
from .order import card_pos, set_tables
from .phases import BURY, LEAD


@njit(cache=True)
def _pick_up(st, b, cfg):
    """SJ-5.1: the banker adds the kitty (its K cards) to his hand and starts burying."""
    s = st[b]
    set_tables(st, b)
    for j in range(cfg[C_K]):
        add_to_hand(s, s.banker, s.kitty_order[j], 1)
    s.phase = BURY
    s.actor = s.banker
    s.nsel = 0
    for c in range(54):
        s.sel[c] = 0
    clear_selection_sets(s)


@njit(cache=True, inline="always")
def _kitty_flip(st, b, cfg):
    """SJ-4.9 kitty flip: sets trump and the revealed prefix."""
    s = st[b]
    K = cfg[C_K]
    lvl = s.hand_level
    if cfg[C_FLIP] == 0:
        j = 0
        while j < K and s.kitty_order[j] >= 52:
            j += 1
        if j == K:
            s.trump = 4
            s.nrev = K
        else:
            s.trump = s.kitty_order[j] // 13
            s.nrev = j + 1
    else:
        for j in range(K):
            c = s.kitty_order[j]
            if c < 52 and c % 13 == lvl:
                s.trump = c // 13
                s.nrev = j + 1
                return
        s.nrev = K
        best = -1
        bp = -1
        for j in range(K):
            c = s.kitty_order[j]
            if c < 52:
                p = card_pos(c, lvl, -1)
                if p > bp:
                    bp = p
                    best = c
        s.trump = 4 if best < 0 else best // 13


@njit(cache=True, inline="always")
def bury_card(s, c, K):
    """SJ-5.1: the banker buries one card c per action; after K the buried cards leave his hand and
    are the kitty, and the banker leads the first trick (SJ-5.2)."""
    select_card(s, c)
    if s.nsel == K:
        s.buried[:] = 0
        x = s.card_sets[CS_SEL + 1]
        while x != 0:
            y = np.int64(lowest_bit(x))
            x &= x - np.uint64(1)
            k = s.sel[y]
            take_from_hand(s, s.banker, y, k)
            s.buried[y] = k
            s.sel[y] = 0
        clear_selection_sets(s)
        s.nsel = 0
        s.phase = LEAD
        s.leader = s.banker
        s.actor = s.banker
