"""LO-2.1 seats and LO-3 the table: who is next, the pile and its plays, moving cards between hands,
pile, draw pile and the gone set. Every function takes the game record g (state.py)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit
from lopti_env.rules.codes import MAX_SEATS, RANK_MASK, SLOTS, U0, U1, cbit


@njit(inline="always", cache=True)
def has_up(g, s):
    """LO-3.1: seat s still has face-up cards on the table (it plays from the hand until they are taken
    over; face-up cards are never played directly)."""
    return g.up[s, 0] >= 0 or g.up[s, 1] >= 0 or g.up[s, 2] >= 0


@njit(inline="always", cache=True)
def has_down(g, s):
    """LO-3.1: seat s has face-down cards left (hand and face-up gone: the blind stage)."""
    return g.down[s, 0] >= 0 or g.down[s, 1] >= 0 or g.down[s, 2] >= 0


@njit(inline="always", cache=True)
def next_active(g, n, s):
    """LO-2.1 clockwise (ascending seat index), skipping players who went out (LO-3.5); -1 if none."""
    for i in range(1, n):
        t = s + i  # (s + i) % n without a division (0 <= s < n)
        if t >= n:
            t -= n
        if g.active[t]:
            return t
    return -1


@njit(cache=True)
def prev_active(g, n, s):
    """The first active seat counter-clockwise before s; -1 if none."""
    for i in range(1, n):
        t = (s - i + n) % n
        if g.active[t]:
            return t
    return -1


@njit(inline="always", cache=True)
def n_active(g, n):
    k = 0
    for s in range(n):
        if g.active[s]:
            k += 1
    return k


@njit(inline="always", cache=True)
def push_card(g, c):
    g.pile[g.pile_n] = c
    g.pile_n += 1


@njit(inline="always", cache=True)
def next_run(pile_n, top_rank, run, r, k):
    """LO-3.3: the run L after k cards of rank r land: it grows while the same rank lands on itself."""
    if pile_n > 0 and top_rank == r:
        return run + k
    return k


@njit(inline="always", cache=True)
def begin_play(g, seat, r, k):
    """LO-3.3: record a play of k cards of rank r by seat as the new top play (the caller pushes the
    cards after); the run L is updated."""
    i = g.n_plays
    g.play_start[i] = g.pile_n
    g.play_rank[i] = r
    g.play_cnt[i] = k
    g.play_seat[i] = seat
    g.n_plays = i + 1
    g.run = next_run(g.pile_n, g.top_rank, g.run, r, k)
    g.top_rank = r
    g.top_cnt = k


@njit(inline="always", cache=True)
def chosen_cards(hand, known, r, k):
    """Section 4.3: the k cards of rank r a seat gives up: known cards first, then ascending suit."""
    m = hand & RANK_MASK[r]
    kn = m & known
    taken = U0
    cnt = 0
    for p in range(2):
        src = kn if p == 0 else (m & ~kn)
        while src != U0 and cnt < k:
            taken |= src & (~src + U1)
            src &= src - U1
            cnt += 1
    return taken


@njit(inline="always", cache=True)
def push_in_order(pile, pile_n, taken, known):
    """Push the cards of mask taken on the pile in section 4.3's order (known first, then ascending
    suit); returns the new pile size."""
    for p in range(2):
        src = (taken & known) if p == 0 else (taken & ~known)
        while src != U0:
            pile[pile_n] = np.int8(lowest_bit(src))
            src &= src - U1
            pile_n += 1
    return pile_n


@njit(cache=True)
def take_rank(g, s, r, k, to_pile):
    """Take k cards of rank r from seat s's hand (section 4.3 order); with to_pile they are pushed on
    the pile in that order. Returns the mask taken."""
    taken = chosen_cards(g.hand[s], g.known[s], r, k)
    if to_pile:
        g.pile_n = push_in_order(g.pile, g.pile_n, taken, g.known[s])
    g.hand[s] &= ~taken
    g.known[s] &= ~taken
    return taken


@njit(inline="always", cache=True)
def draw_top(g):
    c = g.draw[g.draw_pos]
    g.draw_pos += 1
    g.draw_n -= 1
    return np.int64(c)


@njit(cache=True)
def draw_append_bottom(g, c):
    if g.draw_pos + g.draw_n >= 52:
        for i in range(g.draw_n):
            g.draw[i] = g.draw[g.draw_pos + i]
        g.draw_pos = 0
    g.draw[g.draw_pos + g.draw_n] = c
    g.draw_n += 1


@njit(cache=True)
def draw_cards(g, s, n):
    """Seat s draws n cards from the top of the draw pile, stopping when it is empty."""
    for _ in range(n):
        if g.draw_n <= 0:
            return
        g.hand[s] |= cbit(draw_top(g))


@njit(inline="always", cache=True)
def empty_table(g):
    g.pile_n = 0
    g.n_plays = 0
    g.top_rank = -1
    g.top_cnt = 0
    g.run = 0
    g.chain = 0


@njit(cache=True)
def take_pile(g, a):
    """LO-3.4: the pile goes into a's hand, public (known); the chain's 3s stay out."""
    for i in range(g.pile_n):
        c = cbit(g.pile[i])
        g.hand[a] |= c
        g.known[a] |= c
    empty_table(g)


@njit(cache=True)
def clear_seats(g, n):
    """Empty hands and slots; seats 0..n-1 active (LO-2.1: N players), the others absent."""
    for s in range(MAX_SEATS):
        g.hand[s] = U0
        g.known[s] = U0
        for j in range(SLOTS):
            g.up[s, j] = -1
            g.down[s, j] = -1
        g.active[s] = 1 if s < n else 0
        g.place[s] = -1
        g.out_order[s] = -1
        g.swaps_used[s] = 0
