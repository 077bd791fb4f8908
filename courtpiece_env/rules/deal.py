"""The deal (CP-2): the draw for the first dealer, the 5-4-4 packets and what each seat holds before
and after packets 2 and 3; the change-cards re-deal of CP-10.1; deal injection checks."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo import nprandom
from courtpiece_env.rules.cards import ZERO, card_bit


@njit(cache=True, error_model="numpy")
def order_from_perm(p, dealer, out):
    """CP-2.5: the dealer deals from d+1 in turn order a packet of 5, then two packets of 4, to each
    seat; p is the shuffled pack (a permutation of 52), out[seat, 13] the seat's cards in deal order."""
    for k in range(4):
        seat = (dealer + 1 + k) & 3
        for i in range(5):
            out[seat, i] = p[5 * k + i]
        for i in range(4):
            out[seat, 5 + i] = p[20 + 4 * k + i]
            out[seat, 9 + i] = p[36 + 4 * k + i]


@njit(cache=True, error_model="numpy")
def draw_winner(draw, contenders, rank):
    """CP-2.3: seats 0..3 each draw a card, the highest rank wins; tied seats draw again in ascending
    seat order. Returns the winning seat, or -1 when the 52 cards ran out."""
    n_cont = 4
    for s in range(4):
        contenders[s] = s
    k = 0
    while True:
        if k + n_cont > 52:
            return -1
        best = -1
        for i in range(n_cont):
            rank[i] = draw[k] % 13
            k += 1
            if rank[i] > best:
                best = rank[i]
        n_tied = 0
        for i in range(n_cont):
            if rank[i] == best:
                contenders[n_tied] = contenders[i]
                n_tied += 1
        if n_tied == 1:
            return contenders[0]
        n_cont = n_tied


@njit(cache=True, nogil=True, error_model="numpy")
def seeded_deals(words, nwords, states, orders, dealers):
    """Every seeded game's first bazi as deals.prepare_episode draws it from default_rng(seed), in one
    pass: game b's generator from its entropy words (nprandom.seed_row into states[b]), then the
    draw (CP-2.3: its first permutation(52), draw_winner; the dealer sits before the winner, so the
    winner is the first chooser d+1) and the deal (CP-2.5: the second, order_from_perm) into
    dealers[b] and orders[b], games b and b + 1 side by side (nprandom._permutation_pair). Returns
    -1, or the first game whose draw ran out of cards (the caller then takes the Python path, which
    raises as it always did)."""
    rank = np.empty(4, np.int64)
    contenders = np.empty(4, np.int64)
    pa = np.empty(52, np.int8)
    pb = np.empty(52, np.int8)
    nb = states.shape[0]
    for b in range(0, nb - 1, 2):
        ra = states[b]
        rb = states[b + 1]
        nprandom.seed_row(words[b], nwords[b], ra)
        nprandom.seed_row(words[b + 1], nwords[b + 1], rb)
        nprandom._permutation_pair(ra, pa, rb, pb, 52)
        wa = draw_winner(pa, contenders, rank)
        wb = draw_winner(pb, contenders, rank)
        if wa < 0:
            return b
        if wb < 0:
            return b + 1
        dealers[b] = (wa + 3) & 3
        dealers[b + 1] = (wb + 3) & 3
        nprandom._permutation_pair(ra, pa, rb, pb, 52)
        order_from_perm(pa, dealers[b], orders[b])
        order_from_perm(pb, dealers[b + 1], orders[b + 1])
    if nb % 2:
        b = nb - 1
        row = states[b]
        nprandom.seed_row(words[b], nwords[b], row)
        nprandom.permutation_into(row, pa, 52)
        w = draw_winner(pa, contenders, rank)
        if w < 0:
            return b
        dealers[b] = (w + 3) & 3
        nprandom.permutation_into(row, pa, 52)
        order_from_perm(pa, dealers[b], orders[b])
    return -1


@njit(cache=True, error_model="numpy")
def hand13(s, seat):
    m = ZERO
    for i in range(13):
        m |= card_bit(s.order[seat, i])
    return m


@njit(cache=True, error_model="numpy")
def deal_first_packet(s):
    """CP-2.6: before packets 2 and 3 each seat holds (and sees) only its own first five."""
    for seat in range(4):
        m = ZERO
        for i in range(5):
            m |= card_bit(s.order[seat, i])
        s.first5[seat] = m
        s.hands[seat] = m


@njit(cache=True, error_model="numpy")
def deal_rest(s):
    """CP-2.5 packets 2 and 3; a face-down card stays out of its owner's hand (CP-7.3)."""
    for seat in range(4):
        h = hand13(s, seat)
        if seat == s.hidden_owner:
            h &= ~card_bit(s.hidden_card)
        s.hands[seat] = h


@njit(cache=True, error_model="numpy")
def change_order(order, seat, dealer, q, out):
    """CP-10.1: stock = the 32 undealt cards in deal order + the seat's five; its new five =
    stock[q[0:5]]; stock[q[5:37]] is dealt as packets 2 and 3 in the usual order (CP-2.5)."""
    stock = np.empty(37, np.int8)
    k = 0
    for pk in range(2):
        for j in range(4):
            sj = (dealer + 1 + j) & 3
            for i in range(4):
                stock[k] = order[sj, 5 + 4 * pk + i]
                k += 1
    for i in range(5):
        stock[k] = order[seat, i]
        k += 1
    for s2 in range(4):
        for i in range(13):
            out[s2, i] = order[s2, i]
    for i in range(5):
        out[seat, i] = stock[q[i]]
    k = 5
    for pk in range(2):
        for j in range(4):
            sj = (dealer + 1 + j) & 3
            for i in range(4):
                out[sj, 5 + 4 * pk + i] = stock[q[k]]
                k += 1


@njit(cache=True, error_model="numpy")
def check_orders(orders):
    """CP-1.1 for injected deals: -1 when every orders[b] (int [4, 13]) holds each of the 52 cards
    once, else the first bad b."""
    for b in range(orders.shape[0]):
        m = ZERO
        for seat in range(4):
            for i in range(13):
                c = orders[b, seat, i]
                if c < 0 or c > 51:
                    return b
                m |= card_bit(c)
        if m != np.uint64((1 << 52) - 1):
            return b
    return -1
