"""Cards, seats and the action bits every Court Piece rule kernel shares (CP-1).

A card is suit * 13 + rank (rank 0 = two .. 12 = ace); a hand is a uint64 with bit c set for card c.
Legal actions travel as (card bits, extras), extras bit k standing for action 52 + k.
"""
from __future__ import annotations

import numpy as np
from numba import njit

ZERO = np.uint64(0)
ONE = np.uint64(1)
RANK_TEN = 8
RANK_ACE = 12
X_PASS = 1 << 4          # action 56
X_ASK = 1 << 5           # action 57
X_LEAD = 1 << 6          # action 58
X_CHANGE = 1 << 7        # action 59
ALL_SUITS = 15           # extras bits 0..3: the four suits (actions 52..55)


@njit(inline="always", cache=True, error_model="numpy")
def card_bit(c):
    return ONE << np.uint64(c)


@njit(inline="always", cache=True, error_model="numpy")
def rank_value(c, suit):
    """CP-1.1: one 52-card pack, ranks A K Q J T 9 .. 2 high to low in every suit, no suit above another."""
    return c - 13 * suit


@njit(inline="always", cache=True, error_model="numpy")
def next_seat(seat):
    """CP-1.2: seats 0..3 take turns in ascending order; teams are (0, 2) and (1, 3), i.e. seat & 1."""
    return (seat + 1) & 3
