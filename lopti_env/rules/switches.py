"""LO-12 base-rule switches: which values a BASE vote may set. LO-10.11: the vote and RPS procedures
are no switches (the switch table, codes.SW_LO / SW_HI, has no entry for them) and no template
touches them."""
from __future__ import annotations

from numba import njit

from lopti_env.rules.codes import S_CR, S_LR, SW_HI, SW_LO


@njit(cache=True)
def base_value_ok(sw, sid, v):
    """LO-12: v is in switch sid's domain, differs from its value, and CLEAR_RANK != LOW_RANK stays."""
    if v < SW_LO[sid] or v > SW_HI[sid] or v == sw[sid]:
        return False
    if sid == S_CR and v == sw[S_LR]:
        return False
    if sid == S_LR and v == sw[S_CR]:
        return False
    return True
