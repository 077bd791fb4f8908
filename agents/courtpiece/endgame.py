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
  trick is won by rank and the score counts tricks; only one of each such run (its highest) is searched.
  This does not hold in Mendi Coat, where tens are scored, so there every card is searched.

- **a transposition table** at trick boundaries: the same cards left in the same hands with the same
  leader and score are reached by playing earlier tricks in other orders, and from another candidate
  card in the same world. A position's key hashes its whole state record but the trick history
  (``trick_cards``, ``trick_leader``, ``trick_winner``: the rules read only the current trick's) and
  the last step's rewards, so the table knows no rule either; it holds alpha-beta bounds.

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


HISTORY = ("trick_cards", "trick_leader", "trick_winner", "rewards")   # left out of a position's key
TABLE_BITS = 16


def solver_scratch(dtype, table_bits: int = TABLE_BITS) -> tuple:
    """Scratch for ``solve_after``: one state record per ply of a bazi and the same memory as words (a
    ply's copy is a copy of 42 words instead of 336 bytes), the words of a record a position's key
    hashes, and the transposition table of 2**table_bits entries (keys, lower and upper bounds; none
    when ``table_bits`` is None, the plain alpha-beta the tests compare the table against)."""
    stack = np.zeros(4 * 13 + 2, dtype)
    history = np.zeros(dtype.itemsize, bool)
    for name in HISTORY:
        field, offset = dtype.fields[name][:2]
        history[offset:offset + field.itemsize] = True
    words = np.flatnonzero(~history.reshape(-1, 8).all(axis=1)).astype(np.int64)
    size = 0 if table_bits is None else 1 << table_bits
    return (stack, stack.view(np.uint64).reshape(len(stack), dtype.itemsize // 8), words,
            np.zeros(size, np.uint64), np.zeros(size, np.float64), np.zeros(size, np.float64))


@njit(cache=True)
def position_key(row, words):
    """A non-zero 64-bit hash of the record words ``row[words]``."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for i in words:
        h = (h ^ row[i]) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
    return h | ONE


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
def _solve(stack, raw, d, cfg, seat, alpha, beta, nodes, budget, prune, dummy, words, keys, lows, highs):
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
    key = ZERO
    slot = 0
    alpha0, beta0 = alpha, beta
    if s.npos == 0 and keys.shape[0] > 0:
        key = position_key(raw[d], words)
        slot = np.int64(key & np.uint64(keys.shape[0] - 1))
        if keys[slot] == key:
            lo, hi = lows[slot], highs[slot]
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            alpha, beta = max(alpha, lo), min(beta, hi)
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
        v = _solve(stack, raw, d + 1, cfg, seat, alpha - r, beta - r, nodes, budget, prune, dummy, words, keys,
                   lows, highs)
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
    if key != ZERO:                      # what this search proved: a bound where it was cut off
        keys[slot] = key
        lows[slot] = best if best > alpha0 else -np.inf
        highs[slot] = best if best < beta0 else np.inf
    return best


@njit(cache=True)
def solve_after(raw_st, stack, raw, words, keys, lows, highs, cfg, first, seat, budget, out):
    """For each game b: apply its action first[b], then solve the rest exactly; out[b] = ``seat``'s
    reward from first[b] on (that step's reward included), or NaN where the solve ran over ``budget``
    nodes. Returns the nodes visited. ``raw_st``: the games' state records as words (uint64[n,
    itemsize / 8]); the rest after it is ``solver_scratch``'s."""
    n = raw_st.shape[0]
    dummy = np.zeros((4, 13), np.int8)
    nodes = np.zeros(1, np.int64)
    prune = cfg[C_VARIANT] != MENDI_COAT
    keys[:] = ZERO                       # values are `seat`'s: a table serves one call
    total = 0
    for b in range(n):
        raw[0, :] = raw_st[b, :]
        s = stack[0]
        for i in range(4):
            s.rewards[i] = 0.0
        apply_action(s, cfg, first[b], dummy)
        nodes[0] = 0
        v = _solve(stack, raw, 0, cfg, seat, -np.inf, np.inf, nodes, budget, prune, dummy, words, keys, lows, highs)
        out[b] = v + s.rewards[seat]
        total += nodes[0]
    return total
