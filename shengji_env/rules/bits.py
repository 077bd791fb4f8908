"""The section 4 legal sets as uint64 bit sets (bit a = action a), for the random rollout's draw
without the 84-entry mask."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit

from ..state import CS_SEL
from .cardsets import available_bits
from .follow import follow_bits
from .order import NPOS
from .phases import A_DONE, BURY, FOLLOW, LEAD
from .scratch import ESM_ABOVE, ESM_SIZE


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
    # first the cards at each position, then a suffix OR turns them into the cards above it
    for c in range(54):
        esm[ESM_ABOVE + NPOS * est[c] + pst[c]] |= np.uint64(1) << np.uint64(c)
    for e in range(5):
        base = ESM_ABOVE + NPOS * e
        above = np.uint64(0)
        for p in range(NPOS - 1, -1, -1):
            at = esm[base + p]
            esm[base + p] = above
            above |= at


@njit(cache=True)
def _legal_bits(st, b, cfg, esm):
    """The acting seat's legal actions as a uint64 bit set (bit a = action a, a <= 54) where that
    is cheap: BURY, LEAD and every FOLLOW except formats with a tractor or several tuples; there it
    returns 0 (use legal_mask). Agrees with legal_mask (section 4) bit for bit; esm: _esuit_bits."""
    return _legal_bits_r(st[b], esm)


@njit(cache=True, inline="always")
def lead_bits(s, esm):
    """The LEAD set of section 4: any held card; once cards are selected, a further held card of
    the first selected card's esuit, or DONE (esm: _esuit_tables_r's)."""
    av = available_bits(s, s.actor)
    if s.nsel == 0:
        return av
    es = s.es_tab[lowest_bit(s.card_sets[CS_SEL + 1])]
    return (av & esm[es]) | (np.uint64(1) << np.uint64(A_DONE))


@njit(cache=True)
def _legal_bits_r(s, esm):
    """_legal_bits on the record s: the BURY and LEAD masks of section 4 (any held card; then cards of
    the first selected card's esuit, or DONE) and follow_bits. A speed twin of legal_mask."""
    ph = s.phase
    if ph == BURY:
        return available_bits(s, s.banker)
    if ph == LEAD:
        return lead_bits(s, esm)
    if ph != FOLLOW:
        return np.uint64(0)
    return follow_bits(s, esm[s.lead_esuit])
