"""Winning a trick and what a won trick does in each variant: CP-4.4 .. CP-4.6, the Single Sar count
(CP-5), the Double Sar pile (CP-6), the Mendi Coat tens (CP-11.8), the early end (CP-13)."""
from __future__ import annotations

import numpy as np
from numba import njit

from courtpiece_env.config import (
    C_ACE_ON_ACE, C_CLOSED_11_12, C_PLAY_OUT, C_TRUMP_ACE_BLOCKS, C_VARIANT, DOUBLE_SAR, MENDI_COAT,
)
from courtpiece_env.rules.cards import RANK_ACE, RANK_TEN, rank_value
from courtpiece_env.rules.scoring import decide, finish


@njit(inline="always", cache=True, error_model="numpy")
def card_value(c, suit, led, trump):
    """CP-4.4 / CP-4.5 (CP-7.6, CP-11.7), for a card as it is played: a card of the led suit ranks
    16 + rank (if the led suit is or becomes trump, all its cards are trumps and still compare by
    rank); a card of another suit is a trump only if trump was fixed when it was played (32 + rank);
    any other card -1. `trump` is the trump in public at that moment, -1 none. The highest value
    wins the trick, the earlier card on a tie (only -1 ties)."""
    if suit == led:
        return 16 + rank_value(c, suit)
    if suit == trump:
        return 32 + rank_value(c, suit)
    return -1


@njit(inline="always", cache=True, error_model="numpy")
def take_blocked(s, cfg, wcard, nt):
    """CP-6.7 house options: ace on ace, the trump ace, tricks 11 and 12 closed."""
    if cfg[C_ACE_ON_ACE] and wcard % 13 == RANK_ACE and s.last_win_card >= 0 \
            and s.last_win_card % 13 == RANK_ACE:
        return True
    if cfg[C_TRUMP_ACE_BLOCKS] and s.trump >= 0 and wcard == s.trump * 13 + RANK_ACE:
        return True
    return cfg[C_CLOSED_11_12] != 0 and (nt == 11 or nt == 12)


@njit(inline="always", cache=True, error_model="numpy")
def take_pile(s, team):
    """CP-6.4 / CP-6.8: the taker's team counts every trick of the pile; the run starts again."""
    n = 0
    p = s.pile
    while p:
        p &= p - 1
        n += 1
    s.taken[team] += n
    s.pile = 0
    s.run_holder = -1


@njit(cache=True, error_model="numpy")
def double_sar_end(s, cfg, nt):
    """CP-6.9: after a take, a team with 7 or more taken while the other took at least one wins;
    after trick 13 the team with 7 or more."""
    if s.decided:
        return
    if nt == 13:
        decide(s, cfg, 0 if s.taken[0] >= 7 else 1)
    elif s.taken[0] >= 7 and s.taken[1] >= 1:
        decide(s, cfg, 0)
    elif s.taken[1] >= 7 and s.taken[0] >= 1:
        decide(s, cfg, 1)


@njit(inline="always", cache=True, error_model="numpy")
def double_sar_trick(s, cfg, t, winner, wcard):
    """CP-6.1 .. CP-6.6 for finished trick t: it goes onto the pile (CP-6.2); its winner takes the
    pile if he won the previous trick too (the run holder, CP-6.3: the same player, never his
    partner, CP-6.6) and no house option blocks it (a blocked take keeps him run holder, CP-6.7);
    trick 13's winner always takes (CP-6.5)."""
    nt = t + 1
    s.pile |= np.int32(1) << t
    take = False
    if nt == 13:
        take = True
    elif s.run_holder == winner:
        take = not take_blocked(s, cfg, wcard, nt)
    else:
        s.run_holder = winner
    s.last_win_card = wcard
    if take:
        take_pile(s, winner & 1)
        double_sar_end(s, cfg, nt)


@njit(inline="always", cache=True, error_model="numpy")
def mendi_trick(s, cfg, t, team):
    """CP-11.8: the tens in the team's won tricks decide (3 or 4 of them), else 7 tricks; all 13 tricks
    are played first (CP-11.2)."""
    nten = 0
    for i in range(4):
        if s.trick_cards[t, i] % 13 == RANK_TEN:
            nten += 1
    s.tens[team] += nten
    if t + 1 == 13:
        if s.tens[0] >= 3:
            w = 0
        elif s.tens[1] >= 3:
            w = 1
        else:
            w = 0 if s.tricks_won[0] >= 7 else 1
        decide(s, cfg, w)


@njit(inline="always", cache=True, error_model="numpy")
def single_sar_trick(s, cfg, team):
    """CP-5.1 / CP-5.2: the trick counts for the winner's team; its 7th trick wins the bazi (also the
    end of Chhupa Rang, CP-7.9, and Be-Rang, CP-8.4)."""
    if s.decided == 0 and s.tricks_won[team] == 7:
        decide(s, cfg, team)


@njit(cache=True, error_model="numpy")
def resolve_trick(s, cfg):
    """The fourth card is down: the card of best value wins (CP-4.4), its player leads next (CP-4.6,
    whatever happens to a Double Sar pile). A decided bazi ends now (CP-13.1), or after trick 13
    with `play_out` (CP-13.2)."""
    t = s.ntrick
    wi = s.best_pos
    winner = (s.trick_leader[t] + wi) & 3
    wcard = s.trick_cards[t, wi]
    team = winner & 1
    s.trick_winner[t] = winner
    s.tricks_won[team] += 1
    nt = t + 1
    s.ntrick = nt
    s.npos = 0
    s.leader = winner
    s.actor = winner
    s.duty = 0
    v = cfg[C_VARIANT]
    if v == DOUBLE_SAR:
        double_sar_trick(s, cfg, t, winner, wcard)
    elif v == MENDI_COAT:
        mendi_trick(s, cfg, t, team)
    else:
        single_sar_trick(s, cfg, team)
    if s.decided and (cfg[C_PLAY_OUT] == 0 or nt == 13):
        finish(s, cfg)
