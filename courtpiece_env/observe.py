"""Court Piece observation encoder (spec 3.4): state -> float32[916] for one seat (numba).

Seats are relative to the observer: r = (seat - observer) mod 4 (0 self, 1 next, 2 partner, 3 previous).
Teams are (own, other).  Layout and scaling, entry by entry (every entry lies in [-1, 1]):

  offset  size  block                                                   value
       0    52  own hand (playable cards; never a face-down card)       1.0 per card
      52    52  own first five (first packet, CP-2.5)                   1.0
     104    52  own face-down card, if this seat hid it and has seen it  1.0 (CP-7.8 unseen card: 0)
     156    52  cards this seat gave back by CHANGE_CARDS (CP-10.1)     1.0
     208  4x52  cards played so far by relative seat r (all tricks)     1.0 at 208 + 52r + card
     416  4x52  the current trick, by relative seat r                   1.0 at 416 + 52r + card
     624    52  card turned by the dealer (CP-3.5)                      1.0
     676    52  face-down card once shown                               1.0
     728    52  card that set trump (Be-Rang / Katte, CP-8.2)           1.0
     780    52  trick of each played card                               (trick index + 1) / 13
     832     5  variant one-hot (single, double, chhupa, be_rang, mendi)
     837     2  mendi_trump one-hot (katte, band); zeros outside mendi_coat
     839     7  phase one-hot (change_cards, call, hide, band_hide, change_trump, play, over)
     846     4  public trump suit one-hot (C, D, H, S); zeros while none / face down
     850  7x4  relative-seat one-hots: dealer, first chooser, actor, caller, hidden owner,
               leader, run holder (zeros when none)
     878     3  passed, trump changed, decided                          0 / 1
     881     4  change-cards uses by relative seat                      uses / change_cards_limit
     885     4  hand sizes by relative seat                             cards / 13
     889     6  tricks won, taken, tens: (own team, other team)         /13, /13, /4
     895    13  Double Sar pile flag of tricks 1..13                    0 / 1
     908     1  completed tricks                                        / 13
     909     2  shown at: trick, cards already played                   trick / 14, pos / 4 (0 if not shown)
     911     2  score (own, other)                                      min(score / target, 1)
     913     2  streak: team (+1 own, -1 other, 0 none), count          count / 7
     915     1  match target                                            min(target, 100) / 100
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo._jit import NO_REFCOUNT
from cardzoo.cards import lowest_bit, popcount
from courtpiece_env.config import C_BAND, C_CC_LIMIT, C_TARGET, C_VARIANT, MENDI_COAT
from courtpiece_env.state import NEED_DEAL, OVER

OBS_SIZE = 916
ZERO = np.uint64(0)
ONE = np.uint64(1)


# The encoder is written once (``encode``) and writes through ``_put``: into a dense float32[916]
# (``observe_into``, what the env and BatchGame return), or as a list of the entries that are set
# (``observe_entries``: a network that reads the observation in a rollout adds up only those rows).
@njit(cache=True, **NO_REFCOUNT)
def _put(out, entries, values, n, i, v):
    if entries.shape[0] == 0:
        out[i] = v
        return n
    if v != 0.0:
        entries[n] = i
        values[n] = v
        n += 1
    return n


@njit(cache=True, **NO_REFCOUNT)
def _bits(m, out, entries, values, n, off):
    while m != ZERO:
        n = _put(out, entries, values, n, off + np.int64(lowest_bit(m)), 1.0)
        m &= m - ONE
    return n


@njit(cache=True, **NO_REFCOUNT)
def _rel_onehot(seat, viewer, out, entries, values, n, off):
    if seat >= 0:
        n = _put(out, entries, values, n, off + ((seat - viewer) & 3), 1.0)
    return n


@njit(cache=True, **NO_REFCOUNT)
def encode(s, cfg, viewer, out, entries, values):
    """The observation of ``viewer`` (spec 3.4), each entry once, the card blocks (offsets below 832)
    before the scalars: dense into ``out`` when
    ``entries`` is empty (``out`` must be zeros), else the entries that are set into ``entries`` and
    ``values``; returns how many were listed."""
    n = 0
    n = _bits(s.hands[viewer], out, entries, values, n, 0)
    n = _bits(s.first5[viewer], out, entries, values, n, 52)
    if s.hidden_card >= 0 and s.hidden_owner == viewer and s.hidden_unseen == 0:
        n = _put(out, entries, values, n, 104 + s.hidden_card, 1.0)
    n = _bits(s.gave_back[viewer], out, entries, values, n, 156)
    nt = s.ntrick
    for t in range(nt + 1):  # CP-4.7: every played card is public and remembered
        if t == 13:
            break
        k = 4 if t < nt else s.npos
        for i in range(k):
            c = s.trick_cards[t, i]
            r = (s.trick_leader[t] + i - viewer) & 3
            n = _put(out, entries, values, n, 208 + 52 * r + c, 1.0)
            n = _put(out, entries, values, n, 780 + c, (t + 1) / 13.0)
            if t == nt:
                n = _put(out, entries, values, n, 416 + 52 * r + c, 1.0)
    if s.turned >= 0:
        n = _put(out, entries, values, n, 624 + s.turned, 1.0)
    if s.shown_card >= 0:
        n = _put(out, entries, values, n, 676 + s.shown_card, 1.0)
    if s.set_card >= 0:
        n = _put(out, entries, values, n, 728 + s.set_card, 1.0)
    v = cfg[C_VARIANT]
    n = _put(out, entries, values, n, 832 + v, 1.0)
    if v == MENDI_COAT:
        n = _put(out, entries, values, n, 837 + cfg[C_BAND], 1.0)
    ph = s.phase
    if ph == NEED_DEAL:
        ph = OVER
    n = _put(out, entries, values, n, 839 + ph, 1.0)
    if s.trump >= 0:
        n = _put(out, entries, values, n, 846 + s.trump, 1.0)
    n = _rel_onehot(s.dealer, viewer, out, entries, values, n, 850)
    n = _rel_onehot(s.fc, viewer, out, entries, values, n, 854)
    n = _rel_onehot(s.actor, viewer, out, entries, values, n, 858)
    n = _rel_onehot(s.caller, viewer, out, entries, values, n, 862)
    n = _rel_onehot(s.hidden_owner, viewer, out, entries, values, n, 866)
    if ph == 5:
        n = _rel_onehot(s.leader, viewer, out, entries, values, n, 870)
    n = _rel_onehot(s.run_holder, viewer, out, entries, values, n, 874)
    n = _put(out, entries, values, n, 878, s.passed)
    n = _put(out, entries, values, n, 879, s.trump_changed)
    n = _put(out, entries, values, n, 880, s.decided)
    lim = cfg[C_CC_LIMIT]
    for seat in range(4):
        n = _put(out, entries, values, n, 881 + ((seat - viewer) & 3), s.cc_used[seat] / lim)
    for seat in range(4):
        n = _put(out, entries, values, n, 885 + ((seat - viewer) & 3), popcount(s.hands[seat]) / 13.0)
    own = viewer & 1
    oth = 1 - own
    n = _put(out, entries, values, n, 889, s.tricks_won[own] / 13.0)
    n = _put(out, entries, values, n, 890, s.tricks_won[oth] / 13.0)
    n = _put(out, entries, values, n, 891, s.taken[own] / 13.0)
    n = _put(out, entries, values, n, 892, s.taken[oth] / 13.0)
    n = _put(out, entries, values, n, 893, s.tens[own] / 4.0)
    n = _put(out, entries, values, n, 894, s.tens[oth] / 4.0)
    for t in range(13):
        if (s.pile >> t) & 1:
            n = _put(out, entries, values, n, 895 + t, 1.0)
    n = _put(out, entries, values, n, 908, nt / 13.0)
    if s.shown_card >= 0:
        n = _put(out, entries, values, n, 909, s.shown_trick / 14.0)
        n = _put(out, entries, values, n, 910, s.shown_pos / 4.0)
    tgt = cfg[C_TARGET]
    n = _put(out, entries, values, n, 911, min(s.score[own] / tgt, 1.0))
    n = _put(out, entries, values, n, 912, min(s.score[oth] / tgt, 1.0))
    if s.streak_team >= 0:
        n = _put(out, entries, values, n, 913, 1.0 if s.streak_team == own else -1.0)
        n = _put(out, entries, values, n, 914, s.streak_count / 7.0)
    n = _put(out, entries, values, n, 915, min(tgt, 100) / 100.0)
    return n


@njit(cache=True)
def observe_into(s, cfg, viewer, out):
    for i in range(OBS_SIZE):
        out[i] = 0.0
    encode(s, cfg, viewer, out, out[:0], out[:0])     # no entry list: dense


@njit(cache=True)
def observe_entries(s, cfg, viewer, entries, values):
    """The entries of ``viewer``'s observation that are set: their offsets into ``entries`` and values
    into ``values`` (each at least 916 long), in ``encode``'s order; returns how many."""
    return encode(s, cfg, viewer, values, entries, values)


@njit(cache=True)
def observe_one(st, b, cfg, viewer, out):
    observe_into(st[b], cfg, viewer, out)


@njit(cache=True)
def observe_batch(st, cfg, out):
    """Row b: the observation of game b's seat to act (zeros once the game is done)."""
    for b in range(st.shape[0]):
        s = st[b]
        if s.actor >= 0:
            observe_into(s, cfg, s.actor, out[b])
