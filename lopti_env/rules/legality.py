"""LO-4 legal plays and the PLAY phase's legal actions (section 4.2)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit
from lopti_env.rules.codes import (ACT_FLIP, ACT_PICKUP, RANK_THREE, RANK_TWO, S_CR, S_LBC, S_LR, S_SS, S_VP,
                                   SLOTS, U0, U1, play_action, rank_bits, rcount)


@njit(inline="always", cache=True)
def play_is_legal(r, k, pile_n, chain, t, tc, run, cr, lr, lbc, ss):
    """LO-4.1: is PLAY(r, k) (or a flipped card r with k = 1) legal on a table with pile_n cards, chain
    of 3s, top play (rank t, count tc) and run L, under switches CR, LR, LOW_BLOCKS_CLEAR and SS?
    The first matching line decides. LO-4.3's rulings follow from the order: the count rule compares k
    with the top play's count, completing SS needs a legal rank first, a 7 goes on anything but an
    obligation, 2 and 3 count as "7 or lower", a 10 is refused only under a low limit or an obligation.
    """
    if pile_n == 0:
        return True  # line 2 (an obligation needs a non-empty pile)
    if chain > 0:
        return r == RANK_THREE  # line 1
    if r == RANK_THREE:
        return True  # line 3
    if t == lr:  # line 4: the low limit of a 7 on top (LO-5.4)
        if r == cr:
            return lbc == 0
        return r <= lr
    if r == cr or r == lr:  # line 5
        return True
    if r == RANK_TWO:  # line 6
        if t == RANK_TWO:
            return k > tc or run + k >= ss
        return True
    if r > t:  # line 7
        return True
    if r == t:  # line 8
        return k > tc or run + k >= ss
    return False  # line 9


@njit(inline="always", cache=True)
def is_legal(g, r, k):
    """LO-4.1 on the current table of game g."""
    return play_is_legal(r, k, g.pile_n, g.chain, g.top_rank, g.top_cnt, g.run, g.sw[S_CR], g.sw[S_LR],
                         g.sw[S_LBC], g.sw[S_SS])


@njit(inline="always", cache=True)
def put(g, off, n, a):
    """Append action a to the legal list (and the mask unless off); returns the new list length."""
    if off == 0:
        g.mask[a] = 1
    g.legal[n] = a
    return n + 1


@njit(cache=True)
def play_mask(g):
    """Section 4.2, PLAY phase: the actor's legal actions in action order (ranks ascending, counts
    ascending, flips by slot, pickup last). LO-3.2: a move is a PLAY from the hand, a FLIP (blind stage
    only) or a PICKUP. LO-4.2 (the quick reference) is what LO-4.1 gives for each table."""
    a = g.actor
    h = g.hand[a]
    pile_n = g.pile_n
    off = g.mask_off
    n = g.n_legal
    if h != U0:
        if pile_n > 0 and g.chain > 0:  # LO-4.1 line 1: only 3s
            c = rcount(h, RANK_THREE)
            for k in range(1, c + 1):
                n = put(g, off, n, play_action(RANK_THREE, k))
            n = put(g, off, n, ACT_PICKUP)
            g.n_legal = n
            return
        rb = rank_bits(h)  # ranks present, visited in ascending order (same order as a 0..12 scan)
        if pile_n == 0:  # LO-4.1 line 2: everything is legal, no pickup
            while rb != U0:
                r = np.int64(lowest_bit(rb))
                rb &= rb - U1
                c = rcount(h, r)
                for k in range(1, c + 1):
                    n = put(g, off, n, play_action(r, k))
            g.n_legal = n
            return
        anyplay = False
        t = g.top_rank
        while rb != U0:
            r = np.int64(lowest_bit(rb))
            rb &= rb - U1
            c = rcount(h, r)
            if r != t and not (r == RANK_TWO and t == RANK_TWO):
                if is_legal(g, r, 1):  # legality does not depend on the count here
                    for k in range(1, c + 1):
                        n = put(g, off, n, play_action(r, k))
                    anyplay = True
            else:
                for k in range(1, c + 1):
                    if is_legal(g, r, k):
                        n = put(g, off, n, play_action(r, k))
                        anyplay = True
        if pickup_allowed(g, anyplay):
            n = put(g, off, n, ACT_PICKUP)
    else:
        # LO-8.3: FLIP only once the hand (and the face-up cards, LO-8.1) are gone
        for j in range(SLOTS):
            if g.down[a, j] >= 0:
                n = put(g, off, n, ACT_FLIP + j)
        if pickup_allowed(g, True):  # a FLIP always counts as an available play (LO-3.4 ruling)
            n = put(g, off, n, ACT_PICKUP)
    g.n_legal = n


@njit(inline="always", cache=True)
def pickup_allowed(g, any_play):
    """LO-3.4: PICKUP needs a non-empty pile and a 3 obligation, VOLUNTARY_PICKUP or no legal play."""
    return g.pile_n > 0 and (g.chain > 0 or g.sw[S_VP] == 1 or not any_play)
