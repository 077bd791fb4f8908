"""The limit probe: how fast one core can play the plainest 52-card trick-taking game in numba.

A probe game is the bare skeleton every cardzoo trick-taking kernel carries: shuffle 52 cards
(Fisher-Yates) and deal 13 to each of 4 seats, draw a trump suit and a first leader, then 13 tricks
in which each seat plays a uniformly random legal card (follow the led suit if able, else any
card); the highest trump wins the trick, else the highest card of the led suit, and the winner
leads next. No bidding, no scoring beyond counting team 0's tricks, no observation, no history:
exactly 52 card plays per game. ``benchmarks/throughput.py`` reports every cardzoo rollout as a
ratio to this probe measured in the same run, because the machine's speed moves from run to run
and the ratio does not.

It is built from the primitives the game kernels use (``cardzoo.cards``: uint64 hands, follow
masks as ``hand & suit_mask``, popcount and bit scans, splitmix64 seeding and the xorshift64*
kernel generator), with one liberty a limit may take: the generator's state lives in a local
variable (a register) instead of the games' per-game state array. Game g of a call starting at
``seed`` uses generator ``splitmix64(seed + g)``: the same seed plays the same games, in one call or
one game per call. It compiles without numba's disk cache (a second or two per process), so it
never runs stale copies of those primitives.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit, popcount, splitmix64

CARDS, SEATS, TRICKS = 52, 4, 13
CARD_PLAYS_PER_GAME = CARDS
SUIT_MASKS = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=np.uint64)
_XS_MUL = np.uint64(0x2545F4914F6CDD1D)


@njit(inline="always")
def _below(s, n):
    """One xorshift64* step of state s (cardzoo.cards.rng_below's generator): (new state, a uniform
    integer in [0, n))."""
    s ^= s >> np.uint64(12)
    s ^= s << np.uint64(25)
    s ^= s >> np.uint64(27)
    return s, np.int64(((s * _XS_MUL) >> np.uint64(32)) * np.uint64(n) >> np.uint64(32))


@njit(cache=False)
def play_games(seed, n_games, out):
    """Play n_games random probe games; out[g] = tricks won by team 0 (seats 0 and 2) in game g.
    Returns the sum of out[:n_games]."""
    deck = np.empty(CARDS, np.int64)
    hands = np.zeros(SEATS, np.uint64)
    one = np.uint64(1)
    total = 0
    for g in range(n_games):
        s = splitmix64(np.uint64(seed) + np.uint64(g))
        for i in range(CARDS):
            deck[i] = i
        for i in range(CARDS - 1, 0, -1):  # Fisher-Yates from the top (cardzoo.cards.shuffle_prefix)
            s, j = _below(s, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        for p in range(SEATS):
            h = np.uint64(0)
            for k in range(TRICKS):
                h |= one << np.uint64(deck[p * TRICKS + k])
            hands[p] = h
        s, trump = _below(s, 4)
        s, leader = _below(s, 4)
        team0 = 0
        for _ in range(TRICKS):
            led, best, winner = -1, -1, leader
            for k in range(SEATS):
                p = (leader + k) & 3
                h = hands[p]
                legal = h
                if k > 0 and h & SUIT_MASKS[led]:
                    legal = h & SUIT_MASKS[led]
                s, r = _below(s, popcount(legal))
                m = legal
                for _r in range(r):
                    m &= m - one  # the r-th set bit of legal is the lowest of what remains
                card = np.int64(lowest_bit(m))
                hands[p] = h ^ (one << np.uint64(card))
                suit = card // 13
                rank = card - 13 * suit
                if k == 0:
                    led = suit
                value = 32 + rank if suit == trump else (16 + rank if suit == led else -1)
                if value > best:
                    best, winner = value, p
            if winner & 1 == 0:
                team0 += 1
            leader = winner
        out[g] = team0
        total += team0
    return total
