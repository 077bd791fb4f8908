"""Random-play rollout: every live game to its end with uniformly random legal actions, drawn from the
in-kernel xorshift generator of cardzoo.cards (also for the events inside a rollout: the change-cards
stock and the next deal of a match)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo._jit import NO_REFCOUNT
from cardzoo.cards import SUIT_MASKS, nth_set_bit, popcount, rng_below, seed_generators, shuffle_prefix
from courtpiece_env.config import C_BAND
from courtpiece_env.rules.actions import apply_action, legal_bits, start_bazi
from courtpiece_env.rules.cards import ZERO, card_bit
from courtpiece_env.rules.deal import change_order, order_from_perm
from courtpiece_env.rules.play import play_card, set_trump, void_sets_trump
from courtpiece_env.rules.trick import card_value, resolve_trick
from courtpiece_env.state import NEED_DEAL, OVER, PLAY


@njit(cache=True, error_model="numpy")
def kernel_perm(rng, g, n, out):
    for i in range(n):
        out[i] = i
    shuffle_prefix(out, n, rng, g)


@njit(inline="always", cache=True, error_model="numpy")
def random_action(s, cfg, rng, b):
    """A uniformly random legal action: cards first, then the extras in action order."""
    cards, ex = legal_bits(s, cfg)
    pc = np.int64(popcount(cards))
    if ex == 0:
        return nth_set_bit(cards, rng_below(rng, b, pc))
    r = rng_below(rng, b, pc + np.int64(popcount(np.uint64(ex))))
    if r < pc:
        return nth_set_bit(cards, r)
    return 52 + nth_set_bit(np.uint64(ex), r - pc)


@njit(inline="always", cache=True, error_model="numpy")
def plain_trick(s, cfg, katte):
    """In the play phase: a trick about to be led in which nothing but CP-4.2, CP-4.3 and (with `katte`) CP-8.2 applies:
    no face-down card, no duty, Band's first void already past, and trump known or settable by a void."""
    return s.npos == 0 and (s.trump >= 0 or katte) and s.hidden_card < 0 \
        and s.duty == 0 and (cfg[C_BAND] == 0 or s.void_used == 1)


@njit(cache=True, error_model="numpy", **NO_REFCOUNT)
def random_trick(s, cfg, rng, b, katte):
    """Speed twin of four random_action + play_card calls on a plain_trick (rules.TWINS): the same
    draws, cards and state, without the phase dispatch and state writes between the cards. Its
    follow rule is CP-4.3's plain case (no ask, no duty); card_value, set_trump and resolve_trick are
    the reference's."""
    t = s.ntrick
    leader = s.actor
    trump = s.trump
    led = 0
    best = -1
    bpos = 0
    for k in range(4):
        p = (leader + k) & 3
        h = s.hands[p]
        void = False
        if k == 0:
            legal = h
        else:
            legal = h & SUIT_MASKS[led]
            if legal == ZERO:
                legal = h
                void = True
        c = nth_set_bit(legal, rng_below(rng, b, popcount(legal)))
        s.hands[p] = h ^ card_bit(c)
        s.trick_cards[t, k] = c
        suit = c // 13
        if void and katte and trump < 0:
            set_trump(s, p, c)
            trump = suit
        if k == 0:
            led = suit
        val = card_value(c, suit, led, trump)
        if val > best:
            best = val
            bpos = k
    s.trick_leader[t] = leader
    s.led = led
    s.best_val = best
    s.best_pos = bpos
    s.duty = 0
    resolve_trick(s, cfg)


@njit(cache=True, error_model="numpy")
def rollout(st, cfg, seed):
    """Play every live game to its end, game b with generator b of seed_generators(seed, B);
    returns the decisions played."""
    return rollout_rows(st, cfg, seed_generators(seed, st.shape[0]))


@njit(cache=True, nogil=True, error_model="numpy")
def rollout_rows(st, cfg, rng):
    """rollout with the generators given (game b draws from rng[b]). nogil: BatchGame(threads=n)
    runs contiguous slices of a batch in threads (cardzoo.batch.run_shards)."""
    n_games = st.shape[0]
    perm = np.empty(52, np.int64)
    order = np.empty((4, 13), np.int8)
    neworder = np.empty((4, 13), np.int8)
    katte = void_sets_trump(cfg)
    n = 0
    for b in range(n_games):
        s = st[b]
        for i in range(4):
            s.rewards[i] = 0.0
        if s.phase == OVER:
            continue
        while True:
            ph = s.phase
            if ph == PLAY:
                if plain_trick(s, cfg, katte):
                    random_trick(s, cfg, rng, b, katte)
                    n += 4
                    continue
                a = random_action(s, cfg, rng, b)
                if a < 52:
                    play_card(s, cfg, a)
                else:
                    apply_action(s, cfg, a, neworder)
                n += 1
            elif ph == OVER:
                break
            elif ph == NEED_DEAL:
                kernel_perm(rng, b, 52, perm)
                order_from_perm(perm, s.res_next_dealer, order)
                s.bazi_index += 1
                start_bazi(s, cfg, order, s.res_next_dealer)
            else:
                a = random_action(s, cfg, rng, b)
                if a == 59:
                    kernel_perm(rng, b, 37, perm)
                    change_order(s.order, s.actor, s.dealer, perm, neworder)
                apply_action(s, cfg, a, neworder)
                n += 1
    return n
