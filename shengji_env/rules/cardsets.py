"""The record's card sets (``card_sets``, layout ``CS_*`` in ``shengji_env.state``): every seat's hand
and the selection as uint64 planes, "the cards held at least k times", kept equal to the count
vectors ``hand`` and ``sel`` through these functions by every kernel that changes the counts (the
deal, the kitty and the bury, composing a play, ``trick.play_card``). The counts answer "how many copies of c"
(the rules' questions); the planes answer "which cards" in a few word operations (the legal sets of
section 4 and the SJ-7.4 throw check)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit

from ..state import CS_SEAT, CS_SEL

ONE = np.uint64(1)


@njit(cache=True, inline="always")
def add_to_hand(s, seat, c, k):
    """Seat's count of card c grows by k >= 0 (a dealt or picked-up card)."""
    v = s.hand[seat, c]
    s.hand[seat, c] = v + k
    cb = ONE << np.uint64(c)
    for j in range(v + 1, v + k + 1):
        s.card_sets[CS_SEAT * seat + j] |= cb


@njit(cache=True, inline="always")
def take_from_hand(s, seat, c, k):
    """Seat's count of card c falls by k >= 0 (a played or buried card)."""
    v = s.hand[seat, c]
    s.hand[seat, c] = v - k
    nb = ~(ONE << np.uint64(c))
    for j in range(v - k + 1, v + 1):
        s.card_sets[CS_SEAT * seat + j] &= nb


@njit(cache=True, inline="always")
def select_card(s, c):
    """One more copy of card c in the selection (section 4: a card action while composing)."""
    v = s.sel[c] + 1
    s.sel[c] = v
    s.nsel += 1
    s.card_sets[CS_SEL + v] |= ONE << np.uint64(c)


@njit(cache=True, inline="always")
def clear_selection_sets(s):
    """The selection's planes after its counts were all set to 0."""
    for j in range(1, 5):
        s.card_sets[CS_SEL + j] = 0


@njit(cache=True, inline="always")
def available_bits(s, seat):
    """The cards seat holds more often than the selection has them (hand[c] > sel[c]: some k with
    c held k times and selected fewer than k times), from the record's card sets."""
    cs = s.card_sets
    base = CS_SEAT * seat
    return ((cs[base + 1] & ~cs[CS_SEL + 1]) | (cs[base + 2] & ~cs[CS_SEL + 2]) |
            (cs[base + 3] & ~cs[CS_SEL + 3]) | (cs[base + 4] & ~cs[CS_SEL + 4]))


@njit(cache=True, inline="always")
def set_bits(out, bits):
    """out[c] = 1 for every card c of the uint64 set bits (out already zero there)."""
    while bits != 0:
        out[lowest_bit(bits)] = 1
        bits &= bits - ONE


@njit(cache=True)
def sync_seat_sets(s, seat):
    """Seat's planes rebuilt from its counts (at most D <= 4 copies of a card: SJ-1.2)."""
    hp = s.hand[seat]
    for k in range(1, 5):
        held = np.uint64(0)
        for c in range(54):
            held |= np.uint64(hp[c] >= k) << np.uint64(c)
        s.card_sets[CS_SEAT * seat + k] = held


@njit(cache=True)
def sync_card_sets(st):
    """Every plane of every record rebuilt from the counts: for records whose counts were written
    from outside the kernels (positions built by hand, ``by_name``)."""
    for b in range(st.shape[0]):
        s = st[b]
        s.card_sets[:] = 0
        for seat in range(4):
            sync_seat_sets(s, seat)
        sel = s.sel
        for k in range(1, 5):
            chosen = np.uint64(0)
            for c in range(54):
                chosen |= np.uint64(sel[c] >= k) << np.uint64(c)
            s.card_sets[CS_SEL + k] = chosen
