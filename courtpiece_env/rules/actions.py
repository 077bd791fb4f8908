"""The bazi as a state machine over the phases of spec 9.2: a fresh deal up to its first decision,
the legal actions of each phase (spec section 4), applying an action or a card event (CP-12.2).
Each phase's rules live in deal, choice and play; this module only dispatches on the phase."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import nth_set_bit
from courtpiece_env.config import C_CHANGE_CARDS
from courtpiece_env.rules.cards import ONE, ZERO
from courtpiece_env.rules.choice import (
    band_hide, band_hide_legal, begin_choice, call_legal, call_trump, change_cards, change_cards_legal,
    change_trump, change_trump_legal, hide_card, hide_legal, hide_unseen, pass_to_partner, turn_card,
)
from courtpiece_env.rules.deal import deal_first_packet
from courtpiece_env.rules.play import ask_reveal, lead_reveal, play_card, play_legal
from courtpiece_env.state import BAND_HIDE, CALL, CHANGE_CARDS, CHANGE_TRUMP, HIDE, PLAY


@njit(cache=True, error_model="numpy")
def start_bazi(s, cfg, order, dealer):
    """Deal a bazi from `order` (deal.order_from_perm) with dealer `dealer` (CP-2.3 for the first of a
    match, CP-2.4 later), packet 1 only (CP-2.5, CP-2.6), the first chooser d+1 (CP-2.1), and run to
    its first decision: change cards (CP-10.1) or the choice. Score, streak, bazi_index and rewards
    are left as they are."""
    s.dealer = dealer
    fc = (dealer + 1) & 3
    s.fc = fc
    for seat in range(4):
        for i in range(13):
            s.order[seat, i] = order[seat, i]
        s.gave_back[seat] = ZERO
        s.cc_used[seat] = 0
    deal_first_packet(s)
    for t in range(13):
        s.trick_leader[t] = -1
        s.trick_winner[t] = -1
        for i in range(4):
            s.trick_cards[t, i] = -1
    s.passed = 0
    s.caller = -1
    s.trump = -1
    s.turned = -1
    s.hidden_card = -1
    s.hidden_owner = -1
    s.hidden_unseen = 0
    s.shown_card = -1
    s.shown_trick = 0
    s.shown_pos = 0
    s.trump_changed = 0
    s.set_seat = -1
    s.set_card = -1
    s.leader = -1
    s.ntrick = 0
    s.npos = 0
    s.led = -1
    s.best_val = -1
    s.best_pos = 0
    s.duty = 0
    s.void_used = 0
    s.run_holder = -1
    s.last_win_card = -1
    s.decided = 0
    s.res_winner = -1
    s.res_kind = -1
    s.res_next_dealer = -1
    s.res_at = -1
    s.res_match_winner = -1
    s.res_points = 0
    s.res_kots = 0
    s.res_bonus = 0
    s.finished = 0
    s.pile = 0
    for team in range(2):
        s.tricks_won[team] = 0
        s.taken[team] = 0
        s.tens[team] = 0
    if cfg[C_CHANGE_CARDS]:
        s.phase = CHANGE_CARDS
        s.actor = fc
    else:
        begin_choice(s, cfg)


@njit(cache=True, error_model="numpy", inline="always")
def legal_bits(s, cfg):
    """The actor's legal actions as (card bitmask uint64, extras int64 with bit k = action 52+k)."""
    ph = s.phase
    a = s.actor
    if ph == PLAY:
        return play_legal(s, cfg)
    if ph == CHANGE_CARDS:
        return change_cards_legal(s, cfg, a)
    if ph == CALL:
        return call_legal(s, cfg, a)
    if ph == HIDE:
        return hide_legal(s, a)
    if ph == BAND_HIDE:
        return band_hide_legal(s, a)
    if ph == CHANGE_TRUMP:
        return change_trump_legal(s, cfg, a)
    return ZERO, np.int64(0)


@njit(cache=True, error_model="numpy")
def write_mask(cards, ex, row):
    for i in range(row.shape[0]):
        row[i] = 0
    m = cards
    while m != ZERO:
        c = nth_set_bit(m, 0)
        row[c] = 1
        m &= m - ONE
    for k in range(8):
        if (ex >> k) & 1:
            row[52 + k] = 1


@njit(cache=True, error_model="numpy")
def apply_action(s, cfg, a, neworder):
    """Apply the actor's legal action a.  For CHANGE_CARDS (59) `neworder` holds the new deal
    order (deal.change_order) drawn by the caller."""
    ph = s.phase
    if ph == PLAY:
        if a < 52:
            play_card(s, cfg, a)
        elif a == 57:
            ask_reveal(s)
        else:
            lead_reveal(s)
    elif ph == CHANGE_CARDS:
        change_cards(s, cfg, a == 59, neworder)
    elif ph == CALL:
        if a == 56:
            pass_to_partner(s)
        else:
            call_trump(s, cfg, a - 52)
    elif ph == HIDE:
        if a == 56:
            pass_to_partner(s)
        else:
            hide_card(s, cfg, a)
    elif ph == BAND_HIDE:
        band_hide(s, a, s.actor)
    elif ph == CHANGE_TRUMP:
        change_trump(s, cfg, a)


@njit(cache=True, error_model="numpy")
def apply_timeout_card(s, cfg, card):
    """The card events of CP-12.2 (the env draws the card, CP-12.3): CP-3.5 (call), CP-7.8 (hide),
    the Band hide timeout (CP-11.5). The other timeouts are plain actions (PASS, a random legal
    card), chosen by the env."""
    ph = s.phase
    if ph == CALL:
        turn_card(s, cfg, card)
    elif ph == HIDE:
        hide_unseen(s, cfg, card)
    else:
        band_hide(s, card, s.fc)
