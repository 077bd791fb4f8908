"""Exact endgames for the Court Piece search: in a determinized world (every hand known), the last
tricks are solved by minimax instead of played out by a rollout policy.

Why: near the end the result of a close bazi hangs on a few precise plays (who is left on lead, which
trump is kept for the last trick), and a rollout by the heuristic's rules judges a candidate card by
the heuristic's later mistakes. With four or five tricks left a sampled world is small enough to
solve exactly: the search then scores each candidate card by the best result its team can force in
that world, as double-dummy solvers do in bridge programs.

The solver plays the game's own rule kernels (``apply_action``, ``legal_bits``) on copies of the
state record, one per ply, so it knows no rule of its own: whatever the config (extras, play-out),
the positions it walks are the game's. Two things keep it small:

- **alpha-beta**: the searcher's team maximizes its seat's reward, the other team minimizes it;
- **equivalent cards**: two cards of one suit in the actor's legal set with no live card between them
  (every card ranked between them was played in an earlier trick) lead to the same results, because a
  trick is won by rank and the score counts tricks; only the lowest of each such run is searched.
  This does not hold in Mendi Coat, where tens are scored, so there every card is searched.

A node budget bounds the work per world; a world whose solve runs over it is reported unsolved and
the search scores it by its rollout instead.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import SUIT_MASKS, lowest_bit
from courtpiece_env.config import C_VARIANT, MENDI_COAT
from courtpiece_env.rules import apply_action, legal_bits
from courtpiece_env.state import PLAY

ZERO = np.uint64(0)
ONE = np.uint64(1)
UNSOLVED = np.float64(np.nan)


def solver_stack(dtype) -> tuple:
    """Scratch for ``solve_after``: one state record per ply of a bazi, and the same memory as words
    (a ply's copy is a copy of 41 words instead of 328 bytes)."""
    stack = np.zeros(4 * 13 + 2, dtype)
    return stack, stack.view(np.uint64).reshape(len(stack), dtype.itemsize // 8)


@njit(cache=True)
def live_cards(s):
    """Cards still in a hand or on the table in the current trick (a card in an earlier trick can no
    longer take one)."""
    live = s.hands[0] | s.hands[1] | s.hands[2] | s.hands[3]
    t = min(s.ntrick, 12)
    for p in range(s.npos):
        c = s.trick_cards[t, p]
        if c >= 0:
            live |= ONE << np.uint64(c)
    if s.hidden_card >= 0:
        live |= ONE << np.uint64(s.hidden_card)
    return live


@njit(cache=True)
def distinct_cards(cards, live):
    """One card of each run of ``cards`` that are neighbours among the live cards of their suit:
    keeps a card unless the next live card above it in its suit is also in ``cards``."""
    keep = ZERO
    m = cards
    while m != ZERO:
        c = lowest_bit(m)
        m &= m - ONE
        bit = ONE << np.uint64(c)
        above = live & SUIT_MASKS[c // 13] & ~((bit << ONE) - ONE)
        if above == ZERO or (cards & (above & (~above + ONE))) == ZERO:
            keep |= bit
    return keep


@njit(cache=True)
def _solve(stack, raw, d, cfg, seat, alpha, beta, nodes, budget, prune, dummy):
    """Minimax value (``seat``'s reward from here on) of the position stack[d], within (alpha, beta);
    NaN once more than ``budget`` nodes were visited (nodes[0] counts them)."""
    s = stack[d]
    if s.actor < 0:
        return 0.0
    nodes[0] += 1
    if nodes[0] > budget:
        return UNSOLVED
    cards, ex = legal_bits(s, cfg)
    if s.phase != PLAY or ex != 0 or cards == ZERO:
        return UNSOLVED                  # a reveal or another decision: not a plain card play
    if prune:
        cards = distinct_cards(cards, live_cards(s))
    maximize = (s.actor - seat) % 2 == 0
    best = -np.inf if maximize else np.inf
    m = cards
    while m != ZERO:
        a = lowest_bit(m)
        m &= m - ONE
        raw[d + 1, :] = raw[d, :]
        child = stack[d + 1]
        for i in range(4):
            child.rewards[i] = 0.0
        apply_action(child, cfg, np.int64(a), dummy)
        r = np.float64(child.rewards[seat])
        v = _solve(stack, raw, d + 1, cfg, seat, alpha - r, beta - r, nodes, budget, prune, dummy)
        if np.isnan(v):
            return UNSOLVED
        v += r
        if maximize:
            if v > best:
                best = v
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    return best


@njit(cache=True)
def solve_after(raw_st, stack, raw, cfg, first, seat, budget, out):
    """For each game b: apply its action first[b], then solve the rest exactly; out[b] = ``seat``'s
    reward from first[b] on (that step's reward included), or NaN where the solve ran over ``budget``
    nodes. Returns the nodes visited. ``raw_st``: the games' state records as words (uint64[n,
    itemsize / 8]); ``stack``: scratch records (``solver_stack``) and ``raw`` the same as words."""
    n = raw_st.shape[0]
    dummy = np.zeros((4, 13), np.int8)
    nodes = np.zeros(1, np.int64)
    prune = cfg[C_VARIANT] != MENDI_COAT
    total = 0
    for b in range(n):
        raw[0, :] = raw_st[b, :]
        s = stack[0]
        for i in range(4):
            s.rewards[i] = 0.0
        apply_action(s, cfg, first[b], dummy)
        nodes[0] = 0
        v = _solve(stack, raw, 0, cfg, seat, -np.inf, np.inf, nodes, budget, prune, dummy)
        out[b] = v + s.rewards[seat]
        total += nodes[0]
    return total
