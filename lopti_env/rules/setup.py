"""LO-2 setup: a round's fresh table, the deal, dealer and leader, the swap phase."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit
from lopti_env.rules.codes import (ACT_KEEP, ACT_SWAP, C_N, MAX_RULES, MAX_SEATS, MOVE_FIRST, S_SWAPS, SLOTS, SWAP,
                                   U0, cbit)
from lopti_env.rules.table import clear_seats, empty_table, take_rank
from lopti_env.rules.turns import start_play


@njit(cache=True)
def reset_round_fields(g, n):
    """Everything a round starts without: cards, table, places, counters, fired flags."""
    clear_seats(g, n)
    g.n_out = 0
    empty_table(g)
    g.gone = U0
    g.draw_pos = 0
    g.draw_n = 0
    g.clears = 0
    g.lc_seat = -1
    g.lc_cause = 0
    g.lc_n = 0
    g.winner = -1
    g.truncated = 0
    g.round_over = 0
    g.moves = 0
    g.move_kind = MOVE_FIRST
    g.swap_turns = 0
    for s in range(MAX_RULES):
        g.fired[s] = 0


@njit(cache=True)
def deal(g, cfg, deck):
    """LO-2.4: deal deck[0..51] from the dealer's left: face-down, face-up, hand, the rest the draw
    pile (deck[9N] on top)."""
    n = cfg[C_N]
    reset_round_fields(g, n)
    d = g.dealer
    for i in range(SLOTS * n):
        s = (d + 1 + i % n) % n
        g.down[s, i // n] = deck[i]
        g.up[s, i // n] = deck[SLOTS * n + i]
        g.hand[s] |= cbit(deck[2 * SLOTS * n + i])
    k = 52 - 3 * SLOTS * n
    for i in range(k):
        g.draw[i] = deck[3 * SLOTS * n + i]
    g.draw_pos = 0
    g.draw_n = k


@njit(cache=True)
def set_dealer_and_leader(g, n):
    """LO-2.5: round i's dealer is (first_dealer + i) mod N; the previous round's winner leads, else
    (round 0, or no winner) the dealer."""
    g.dealer = (g.fdealer + g.round) % n
    g.leader = g.prev_winner if g.prev_winner >= 0 else g.dealer


@njit(cache=True)
def enter_swap(g, cfg):
    """LO-2.6: the swap phase from the leader clockwise (SWAPS = 0 skips it)."""
    if g.sw[S_SWAPS] == 0:
        start_play(g, cfg)
        return
    g.phase = SWAP
    g.substep = 0
    g.swap_turns = 0
    for s in range(MAX_SEATS):
        g.swaps_used[s] = 0
    g.actor = g.leader


@njit(cache=True)
def swap_step(g, cfg, act):
    """LO-2.6: swap one hand card into a face-up slot (public), asked again while swaps remain; keep
    ends the seat's turn; after every seat the play starts."""
    a = g.actor
    if act != ACT_KEEP:
        r = (act - ACT_SWAP) // SLOTS
        j = (act - ACT_SWAP) % SLOTS
        taken = take_rank(g, a, r, 1, False)
        c = np.int64(lowest_bit(taken))
        old = np.int64(g.up[a, j])
        g.up[a, j] = c
        g.hand[a] |= cbit(old)
        g.known[a] |= cbit(old)
        g.swaps_used[a] += 1
        if g.swaps_used[a] < g.sw[S_SWAPS]:
            return
    g.swap_turns += 1
    if g.swap_turns >= cfg[C_N]:
        start_play(g, cfg)
    else:
        g.actor = (g.leader + g.swap_turns) % cfg[C_N]
