"""Trick play (CP-4 with the additions of CP-7, CP-8 and CP-11): who leads, which cards are legal,
playing a card, the trump set by a void (CP-8.2), the hidden-trump duties and reveals."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import SUIT_MASKS
from courtpiece_env.config import C_BAND, C_VARIANT, BE_RANG, CHHUPA_RANG, MENDI_COAT
from courtpiece_env.rules.cards import X_ASK, X_LEAD, ZERO, card_bit, next_seat
from courtpiece_env.rules.hidden import show_hidden
from courtpiece_env.rules.trick import card_value, resolve_trick
from courtpiece_env.state import PLAY

DUTY_FOLLOW_ELSE_TRUMP = 1   # CP-7.5, CP-11.6(d)
DUTY_LEAD_TRUMP = 2          # CP-7.7, CP-11.6(b)


@njit(cache=True, error_model="numpy")
def start_play(s):
    """CP-4.1: trick 1 is led by the first chooser d+1, whoever called (CP-8.1, CP-11.1 likewise)."""
    s.phase = PLAY
    s.leader = s.fc
    s.actor = s.fc
    s.ntrick = 0
    s.npos = 0
    s.duty = 0


@njit(inline="always", cache=True, error_model="numpy")
def void_sets_trump(cfg):
    """CP-8.2 applies: Be-Rang, and Mendi Coat Katte (CP-11.3, CP-11.4); with nobody void the bazi
    goes without trump (CP-8.3)."""
    v = cfg[C_VARIANT]
    return v == BE_RANG or (v == MENDI_COAT and cfg[C_BAND] == 0)


@njit(inline="always", cache=True, error_model="numpy")
def set_trump(s, seat, c):
    """CP-8.2: the first card played by a follower void in the led suit sets trump; it counts as a
    trump in this very trick (card_value reads the new trump)."""
    s.trump = c // 13
    s.set_seat = seat
    s.set_card = c


@njit(inline="always", cache=True, error_model="numpy")
def lead_legal(s, h, a):
    """CP-4.2: the leader may lead any card in his hand (a face-down card is not in it, CP-7.3);
    after a lead reveal he must lead a trump (CP-7.7, CP-11.6(b)); the hider may reveal on lead
    (CP-7.4(b), CP-11.6(b))."""
    if s.duty == DUTY_LEAD_TRUMP:
        return h & SUIT_MASKS[s.trump], np.int64(0)
    ex = np.int64(0)
    if s.hidden_card >= 0 and s.hidden_owner == a:
        ex = np.int64(X_LEAD)
    return h, ex


@njit(inline="always", cache=True, error_model="numpy")
def trump_duty_legal(s, h, fol):
    """CP-7.5 (after an ask) and CP-11.6(d) (Band's first void): follow suit if possible, else a trump
    if he holds one, else any card."""
    if fol != ZERO:
        return fol
    if s.trump >= 0:
        tr = h & SUIT_MASKS[s.trump]
        if tr != ZERO:
            return tr
    return h


@njit(inline="always", cache=True, error_model="numpy")
def follow_legal(s, cfg, h):
    """CP-4.3: a follower holding the led suit must play it, otherwise any card (trumping is never
    compulsory), save the duties of CP-7.5 and CP-11.6(d); a Chhupa Rang follower without the led
    suit may ask for the hidden card (CP-7.4(a))."""
    fol = h & SUIT_MASKS[s.led]
    if s.duty == DUTY_FOLLOW_ELSE_TRUMP:
        return trump_duty_legal(s, h, fol), np.int64(0)
    if fol != ZERO:
        return fol, np.int64(0)
    ex = np.int64(0)
    if s.hidden_card >= 0 and cfg[C_VARIANT] == CHHUPA_RANG:
        ex = np.int64(X_ASK)
    return h, ex


@njit(inline="always", cache=True, error_model="numpy")
def play_legal(s, cfg):
    h = s.hands[s.actor]
    if s.npos == 0:
        return lead_legal(s, h, s.actor)
    return follow_legal(s, cfg, h)


@njit(inline="always", cache=True, error_model="numpy")
def band_first_void(s, cfg, nxt, led, t, pos):
    """CP-11.6(a), (d): the first player of the bazi due to follow without the led suit in hand takes
    the trump duty, and a card still face down is turned up before he plays."""
    if cfg[C_BAND] and s.void_used == 0 and (s.hands[nxt] & SUIT_MASKS[led]) == ZERO:
        s.void_used = 1
        s.duty = DUTY_FOLLOW_ELSE_TRUMP
        if s.hidden_card >= 0:
            show_hidden(s, t + 1, pos)


@njit(cache=True, error_model="numpy", inline="always")
def play_card(s, cfg, c):
    """The actor plays card c (legal): the trick records it and its value (card_value, with a trump
    that CP-8.2 may set by this very card), the next seat plays, or the trick is resolved.
    rollout.random_trick is its speed twin for whole plain tricks (rules.TWINS)."""
    a = s.actor
    t = s.ntrick
    pos = s.npos
    suit = c // 13
    if pos == 0:
        s.trick_leader[t] = a
        s.led = suit
        led = suit
    else:
        led = s.led
        if s.trump < 0 and void_sets_trump(cfg) and s.hands[a] & SUIT_MASKS[led] == ZERO:
            set_trump(s, a, c)
    s.hands[a] &= ~card_bit(c)
    s.trick_cards[t, pos] = c
    val = card_value(c, suit, led, s.trump)
    if pos == 0 or val > s.best_val:
        s.best_val = val
        s.best_pos = pos
    s.duty = 0
    pos += 1
    if pos < 4:
        s.npos = pos
        nxt = next_seat(a)
        s.actor = nxt
        band_first_void(s, cfg, nxt, led, t, pos)
        return
    resolve_trick(s, cfg)


@njit(inline="always", cache=True, error_model="numpy")
def ask_reveal(s):
    """CP-7.4(a): a follower without the led suit asks; the card is shown now and he must then play
    a trump if he holds one (CP-7.5)."""
    show_hidden(s, s.ntrick + 1, s.npos)
    s.duty = DUTY_FOLLOW_ELSE_TRUMP


@njit(inline="always", cache=True, error_model="numpy")
def lead_reveal(s):
    """CP-7.4(b), CP-11.6(b): the hider on lead shows the card and must lead a trump (CP-7.7)."""
    show_hidden(s, s.ntrick + 1, 0)
    s.duty = DUTY_LEAD_TRUMP
