"""The section 4 legal sets as uint64 bit sets (bit a = action a), for the random rollout's draw
without the 84-entry mask."""
from __future__ import annotations

import numpy as np
from numba import njit


from .follow import follow_bits
from .order import NPOS
from .phases import A_DONE, BURY, FOLLOW, LEAD
from .scratch import BB_SEAT, BB_SEL, ESM_ABOVE, ESM_SIZE


@njit(cache=True)
def _esuit_bits(st, b, esm):
    """esm[e] := the cards of esuit e as a uint64 bit set (from the game's es_tab)."""
    _esuit_bits_r(st[b], esm)


@njit(cache=True)
def _esuit_bits_r(s, esm):
    """_esuit_bits on the record s."""
    est = s.es_tab
    for e in range(5):
        esm[e] = 0
    for c in range(54):
        esm[est[c]] |= np.uint64(1) << np.uint64(c)


@njit(cache=True)
def _esuit_tables_r(s, esm):
    """make_esm's tables for the record's trump and level (es_tab, pos_tab)."""
    _esuit_bits_r(s, esm)
    for i in range(ESM_ABOVE, ESM_SIZE):
        esm[i] = 0
    est = s.es_tab
    pst = s.pos_tab
    for c in range(54):
        cb = np.uint64(1) << np.uint64(c)
        base = ESM_ABOVE + NPOS * est[c]
        for p in range(pst[c]):
            esm[base + p] |= cb


@njit(cache=True)
def _legal_bits(st, b, cfg, esm):
    """The acting seat's legal actions as a uint64 bit set (bit a = action a, a <= 54) where that
    is cheap: BURY, LEAD and every FOLLOW except formats with a tractor or several tuples; there it
    returns 0 (use legal_mask). Agrees with legal_mask (section 4) bit for bit; esm: _esuit_bits."""
    return _legal_bits_r(st[b], esm)


@njit(cache=True)
def _legal_bits_r(s, esm):
    """_legal_bits on the record s: the BURY and LEAD masks of section 4 (any held card; then cards of
    the first selected card's esuit, or DONE) and follow_bits. A speed twin of legal_mask."""
    ph = s.phase
    one = np.uint64(1)
    sel = s.sel
    if ph == BURY:
        hp = s.hand[s.banker]
        av = np.uint64(0)
        for c in range(54):
            if hp[c] > sel[c]:
                av |= one << np.uint64(c)
        return av
    if ph == LEAD:
        hp = s.hand[s.actor]
        av = np.uint64(0)
        for c in range(54):
            if hp[c] > sel[c]:
                av |= one << np.uint64(c)
        if s.nsel == 0:
            return av
        es = -1
        for c in range(54):
            if sel[c] > 0:
                es = s.es_tab[c]
                break
        return (av & esm[es]) | (one << np.uint64(A_DONE))
    if ph != FOLLOW:
        return np.uint64(0)
    return follow_bits(s, esm[s.lead_esuit])


@njit(cache=True)
def _hand_bits_seat(s, bb, seat):
    """bb's sets of one seat from its hand counts (at most D <= 4 copies of a card: SJ-1.2)."""
    hp = s.hand[seat]
    bb[BB_SEAT * seat] = 0
    for k in range(1, 5):
        held = np.uint64(0)
        for c in range(54):
            held |= np.uint64(hp[c] >= k) << np.uint64(c)
        bb[BB_SEAT * seat + k] = held
    for k in range(5, 8):
        bb[BB_SEAT * seat + k] = 0


@njit(cache=True)
def _hand_bits_all(s, bb):
    """bb from the record: every seat's sets and the selection's."""
    for seat in range(4):
        _hand_bits_seat(s, bb, seat)
    sel = s.sel
    bb[BB_SEL] = 0
    for k in range(1, 5):
        chosen = np.uint64(0)
        for c in range(54):
            chosen |= np.uint64(sel[c] >= k) << np.uint64(c)
        bb[BB_SEL + k] = chosen
    for k in range(5, 8):
        bb[BB_SEL + k] = 0


@njit(cache=True)
def _bb_take_played(s, bb, nlog0, D):
    """Bring bb's card sets of the seats that played the log entries nlog0.. up to their hands."""
    one = np.uint64(1)
    for i in range(nlog0, s.nlog):
        seat = s.log_seat[i]
        c = s.log_card[i]
        v = s.hand[seat, c]
        cb = one << np.uint64(c)
        for k in range(1, D + 1):
            if v >= k:
                bb[BB_SEAT * seat + k] |= cb
            else:
                bb[BB_SEAT * seat + k] &= ~cb
