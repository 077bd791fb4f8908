"""The choices before trick 1: changing cards (CP-10.1), calling trump (CP-3), hiding it (CP-7.1,
CP-11.5), changing it (CP-10.2), and the card events that stand in for a call or a hide when time
runs out (CP-3.5, CP-7.8, CP-12.2)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import SUIT_MASKS
from courtpiece_env.config import C_BAND, C_CC_LIMIT, C_CHANGE_TRUMP, C_TFF, C_VARIANT, CHHUPA_RANG, DOUBLE_SAR, MENDI_COAT, SINGLE_SAR
from courtpiece_env.rules.cards import ALL_SUITS, X_CHANGE, X_PASS, ZERO, card_bit, next_seat
from courtpiece_env.rules.deal import deal_first_packet, deal_rest
from courtpiece_env.rules.play import start_play
from courtpiece_env.state import BAND_HIDE, CALL, CHANGE_TRUMP, HIDE


@njit(cache=True, error_model="numpy")
def begin_choice(s, cfg):
    """CP-2.1: after the first packet the first chooser d+1 calls or passes (CP-3.1), hides or passes
    (CP-7.1), or in Band must hide (CP-11.5); Be-Rang and Katte have no call (CP-8.1, CP-11.1): the
    rest is dealt and play starts."""
    v = cfg[C_VARIANT]
    if v == SINGLE_SAR or v == DOUBLE_SAR:
        s.phase = CALL
        s.actor = s.fc
    elif v == CHHUPA_RANG:
        s.phase = HIDE
        s.actor = s.fc
    elif v == MENDI_COAT and cfg[C_BAND]:
        s.phase = BAND_HIDE
        s.actor = s.fc
    else:
        deal_rest(s)
        start_play(s)


@njit(cache=True, error_model="numpy")
def after_trump_fixed(s, cfg):
    """CP-3.4: once trump is named (or hidden) packets 2 and 3 follow; then the caller may change it
    (CP-10.2; config allows it in single_sar, double_sar and chhupa_rang only, CP-8.5, CP-11.12), the
    first chooser when nobody called (CP-3.5, CP-7.8)."""
    deal_rest(s)
    if cfg[C_CHANGE_TRUMP]:
        s.phase = CHANGE_TRUMP
        s.actor = s.caller if s.caller >= 0 else s.fc
    else:
        start_play(s)


@njit(inline="always", cache=True, error_model="numpy")
def first_chooser_may_pass(s, a):
    """CP-3.1 / CP-7.1: the first chooser may pass, once, to his partner; CP-3.3: the partner cannot."""
    return a == s.fc and s.passed == 0


@njit(inline="always", cache=True, error_model="numpy")
def call_legal(s, cfg, a):
    """CP-3.2: with `trump_from_first_five` a suit may be named only if one of the namer's own first
    five is of it; else any suit. Pass per first_chooser_may_pass."""
    ex = np.int64(0)
    if cfg[C_TFF]:
        f5 = s.first5[a]
        for su in range(4):
            if f5 & SUIT_MASKS[su] != ZERO:
                ex |= np.int64(1) << su
    else:
        ex = np.int64(ALL_SUITS)
    if first_chooser_may_pass(s, a):
        ex |= X_PASS
    return ZERO, ex


@njit(inline="always", cache=True, error_model="numpy")
def hide_legal(s, a):
    """CP-7.1: one of the hider's first five goes face down, or the first chooser passes."""
    ex = np.int64(0)
    if first_chooser_may_pass(s, a):
        ex = np.int64(X_PASS)
    return s.first5[a], ex


@njit(inline="always", cache=True, error_model="numpy")
def band_hide_legal(s, a):
    """CP-11.5: d+1 must put one of his first five face down; no pass."""
    return s.first5[a], np.int64(0)


@njit(inline="always", cache=True, error_model="numpy")
def change_cards_legal(s, cfg, a):
    """CP-10.1: keep (PASS), or change while the seat has changes left (`change_cards_limit`)."""
    ex = np.int64(X_PASS)
    if s.cc_used[a] < cfg[C_CC_LIMIT]:
        ex |= X_CHANGE
    return ZERO, ex


@njit(inline="always", cache=True, error_model="numpy")
def change_trump_legal(s, cfg, a):
    """CP-10.2: keep (PASS), or name another suit (any: he has seen all 13 cards); in Chhupa Rang
    swap the face-down card for one of his first five still in hand."""
    if cfg[C_VARIANT] == CHHUPA_RANG:
        return s.first5[a] & s.hands[a], np.int64(X_PASS)
    return ZERO, np.int64((ALL_SUITS & ~(1 << s.trump)) | X_PASS)


@njit(inline="always", cache=True, error_model="numpy")
def change_cards(s, cfg, take_new, neworder):
    """CP-10.1 in turn order from d+1 to the dealer: a change gives the seat's five back (remembered
    in gave_back) and deals from `neworder` (deal.change_order, drawn by the caller); a seat with
    changes left decides again, then the next seat; after the dealer the choice begins."""
    actor = s.actor
    if take_new:
        s.gave_back[actor] |= s.first5[actor]
        for seat in range(4):
            for i in range(13):
                s.order[seat, i] = neworder[seat, i]
        deal_first_packet(s)
        s.cc_used[actor] += 1
        if s.cc_used[actor] < cfg[C_CC_LIMIT]:
            return
    if actor == s.dealer:
        begin_choice(s, cfg)
    else:
        s.actor = next_seat(actor)


@njit(inline="always", cache=True, error_model="numpy")
def pass_to_partner(s):
    """CP-3.1 / CP-7.1: the first chooser passes; his partner must choose (CP-3.3)."""
    s.passed = 1
    s.actor = (s.fc + 2) & 3


@njit(inline="always", cache=True, error_model="numpy")
def call_trump(s, cfg, suit):
    """CP-3.4: the seat that names is the caller; the suit is public at once."""
    s.trump = suit
    s.caller = s.actor
    after_trump_fixed(s, cfg)


@njit(inline="always", cache=True, error_model="numpy")
def hide_card(s, cfg, c):
    """CP-7.1: the hider's card goes face down (CP-7.3: out of his hand once the rest is dealt); he is
    the caller."""
    s.hidden_card = c
    s.hidden_owner = s.actor
    s.hidden_unseen = 0
    s.caller = s.actor
    after_trump_fixed(s, cfg)


@njit(inline="always", cache=True, error_model="numpy")
def band_hide(s, c, owner):
    """CP-11.5: d+1's card goes face down (by choice, or at random on a timeout); no change trump
    (CP-11.12)."""
    s.hidden_card = c
    s.hidden_owner = owner
    deal_rest(s)
    start_play(s)


@njit(inline="always", cache=True, error_model="numpy")
def change_trump(s, cfg, a):
    """CP-10.2: PASS keeps trump; a suit (52..55) becomes trump; in Chhupa Rang card a (one of his
    first five in hand) goes face down and the old face-down card into his hand. A change makes him
    the caller. Then play starts."""
    actor = s.actor
    if a == 56:
        start_play(s)
        return
    if a >= 52:
        s.trump = a - 52
    else:
        old = s.hidden_card
        s.hands[actor] |= card_bit(old)
        s.hands[actor] &= ~card_bit(a)
        s.hidden_card = a
        s.hidden_owner = actor
        s.hidden_unseen = 0
    s.trump_changed = 1
    s.caller = actor
    start_play(s)


@njit(inline="always", cache=True, error_model="numpy")
def turn_card(s, cfg, card):
    """CP-3.5: nobody named: the dealer turns `card` (a random card of the first chooser's second
    packet, drawn by the caller); its suit is trump and nobody is caller."""
    s.turned = card
    s.trump = card // 13
    after_trump_fixed(s, cfg)


@njit(inline="always", cache=True, error_model="numpy")
def hide_unseen(s, cfg, card):
    """CP-7.8: nobody hid: `card`, a random card of the first chooser's second packet, goes face down
    unseen; the first chooser counts as the hider."""
    s.hidden_card = card
    s.hidden_owner = s.fc
    s.hidden_unseen = 1
    after_trump_fixed(s, cfg)
