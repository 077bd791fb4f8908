"""The face-down trump card of Chhupa Rang (CP-7) and Mendi Coat Band (CP-11.5, CP-11.6).

While the card lies face down there is no trump (CP-7.2: `trump` stays -1, tricks go to the led
suit); the card is one of its owner's 13 but not in his hand (CP-7.3, deal.deal_rest), so it can
neither be played nor count for following.
"""
from __future__ import annotations

from numba import njit

from courtpiece_env.rules.cards import card_bit


@njit(cache=True, error_model="numpy")
def show_hidden(s, trick, pos):
    """CP-7.4 / CP-11.6 showing: the card turns face up, its suit is trump for the rest of the bazi,
    it joins the owner's hand. (trick, pos) records the moment, from which trump counts (CP-7.6)."""
    c = s.hidden_card
    s.hands[s.hidden_owner] |= card_bit(c)
    s.trump = c // 13
    s.shown_card = c
    s.shown_trick = trick
    s.shown_pos = pos
    s.hidden_card = -1
    s.hidden_owner = -1
    s.hidden_unseen = 0
