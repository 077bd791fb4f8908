"""SJ-1 to SJ-3: card points, effective suit and position, and the per-game tables of both."""
from __future__ import annotations

import numpy as np
from numba import njit

TRUMP = 4          # the effective suit TRUMP (SJ-3.3); trump value 4 = NT
NPOS = 16          # positions 0..15 (SJ-3.4)


@njit(cache=True, inline="always")
def next_seat(p):
    """SJ-1.1: turn order is ascending, next(p) = (p + 1) mod 4; teams are the seats of one
    parity (team = seat % 2), partner(p) = (p + 2) mod 4."""
    return (p + 1) % 4


@njit(cache=True, inline="always")
def card_points(c):
    """SJ-2.1: 5 -> 5, 10 and K -> 10, else 0 (jokers too). Without branches: a trick's cards are
    random, and a branch on them is mispredicted about one time in three."""
    r = c % 13
    return np.int64(c < 52) * (5 * np.int64(r == 3) + 10 * np.int64((r == 8) | (r == 11)))


@njit(cache=True)
def card_esuit(c, lvl, trump):
    """SJ-3.3: 4 (TRUMP) for the trump cards of SJ-3.2 (jokers, level cards, the trump suit in a suit
    game), else the printed suit."""
    if c >= 52:
        return TRUMP
    if c % 13 == lvl or c // 13 == trump:
        return TRUMP
    return c // 13


@njit(cache=True)
def card_pos(c, lvl, trump):
    """SJ-3.4 position: strength inside an esuit and tractor adjacency."""
    if c == 53:
        return 15
    if c == 52:
        return 14
    r = c % 13
    if r == lvl:
        if trump == 4 or c // 13 == trump:
            return 13
        return 12
    if r < lvl:
        return r
    return r - 1


@njit(cache=True)
def esuit_table(e, lvl, trump, pc, pn):
    """Cards of esuit e by position: pc[p, :pn[p]] are the card indices at position p."""
    for p in range(NPOS):
        pn[p] = 0
    for c in range(54):
        if card_esuit(c, lvl, trump) == e:
            p = card_pos(c, lvl, trump)
            pc[p, pn[p]] = c
            pn[p] += 1


def _card_tables():
    """ESUIT_TABLE[lvl, trump + 1, c] = card_esuit(c, lvl, trump) and POS_TABLE[...] = card_pos(...)
    for every level 0..12 and trump -1 (undecided) .. 4 (NT) (SJ-3.3/3.4), from the rule functions."""
    esuit = getattr(card_esuit, "py_func", card_esuit)    # plain Python (no dispatch; JIT disabled too)
    pos = getattr(card_pos, "py_func", card_pos)
    es = np.empty((13, 6, 54), np.int8)
    ps = np.empty((13, 6, 54), np.int8)
    for lvl in range(13):
        for t in range(-1, 5):
            for c in range(54):
                es[lvl, t + 1, c] = esuit(c, lvl, t)
                ps[lvl, t + 1, c] = pos(c, lvl, t)
    return es, ps


ESUIT_TABLE, POS_TABLE = _card_tables()


@njit(cache=True, inline="always")
def set_tables(st, b):
    """Fill the per-game esuit/position tables once trump is fixed: copies of the level's and trump's
    rows of ESUIT_TABLE and POS_TABLE."""
    s = st[b]
    lvl = s.hand_level
    t = s.trump
    for c in range(54):  # a loop, not a slice copy: that one compiles a shape check with messages
        s.es_tab[c] = ESUIT_TABLE[lvl, t + 1, c]
        s.pos_tab[c] = POS_TABLE[lvl, t + 1, c]
