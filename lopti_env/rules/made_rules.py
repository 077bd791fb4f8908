"""LO-11 the made-rule model: roles, effects and the hook scan, rule validity and the catalogue search
that rule making and AMEND offer from (LO-10.3, LO-10.5)."""
from __future__ import annotations

import numpy as np
from numba import njit

from lopti_env.rules.codes import (ACTIVE, ANY_RANK, C_MAXRULES, C_N, COND_CAUSE, COND_COUNT_GE, COND_HAND_GE,
                                   COND_OUT_WHICH, COND_PILE_AFTER_GE, COND_PILE_GE, COND_RANK_EQ, COND_SET,
                                   COND_STEP, FX_CLEAR, FX_DRAW, FX_GIFT, FX_RETURN, FX_REVEAL, MAX_FIELD_VALUE,
                                   MAX_SEATS, NUM_TEMPLATES, R_G, R_N, R_STATUS, R_TEMPLATE, R_X, RANK_THREE,
                                   REMOVED, ROLE_ACTOR, ROLE_ALL, ROLE_DEALER, ROLE_DRAWPILE, ROLE_FEWEST,
                                   ROLE_MOST, ROLE_NEXT, ROLE_OTHERS, ROLE_PREV, SET_CLEAR, T_COND, T_EFFECT,
                                   T_EVENT, T_GMASK, T_NMAX, T_NMIN, T_TIMING, T_USES, T_XMAX, T_XMIN, TPL, U0,
                                   USES_G, USES_N, USES_X, cbit, nbits, rcount)
from lopti_env.rules.table import draw_append_bottom, draw_cards, next_active, prev_active, take_rank


@njit(cache=True)
def role_targets(g, n, role, a, out):
    """LO-11.4 roles -> active target seats in role order (players who went out are never targets,
    LO-10.10's least-change reading); returns the count."""
    k = 0
    if role == ROLE_ACTOR:
        if g.active[a]:
            out[0] = a
            k = 1
    elif role == ROLE_NEXT:
        t = next_active(g, n, a)
        if t >= 0:
            out[0] = t
            k = 1
    elif role == ROLE_PREV:
        t = prev_active(g, n, a)
        if t >= 0:
            out[0] = t
            k = 1
    elif role == ROLE_OTHERS or role == ROLE_ALL:
        start = 1 if role == ROLE_OTHERS else 0
        for i in range(start, n):
            t = (a + i) % n
            if g.active[t]:
                out[k] = t
                k += 1
    elif role == ROLE_DEALER:
        if g.active[g.dealer]:
            out[0] = g.dealer
            k = 1
    elif role == ROLE_MOST or role == ROLE_FEWEST:
        best = -1
        bv = 0
        for i in range(n):
            t = (a + i) % n
            if g.active[t]:
                v = nbits(g.hand[t])
                if best < 0 or (role == ROLE_MOST and v > bv) or (role == ROLE_FEWEST and v < bv):
                    best = t
                    bv = v
        if best >= 0:
            out[0] = best
            k = 1
    return k


@njit(cache=True)
def effect_gift(g, n, role, amount, a):
    """LO-11.4 GIFT: a gives its m lowest hand cards (known first within a rank) to NEXT/PREV, keeping
    at least one (LO-11.6: a gift never takes the giver's last card)."""
    if not g.active[a]:
        return
    t = next_active(g, n, a) if role == ROLE_NEXT else prev_active(g, n, a)
    if t < 0:
        return
    m = min(amount, nbits(g.hand[a]) - 1)
    if m <= 0:
        return
    for r in range(13):
        if m <= 0:
            break
        c = rcount(g.hand[a], r)
        if c == 0:
            continue
        kk = min(c, m)
        taken = take_rank(g, a, r, kk, False)
        g.hand[t] |= taken
        g.known[t] |= taken
        m -= kk


@njit(cache=True)
def effect_return(g, n, role, amount, a):
    """LO-11.4 RETURN: the first `amount` cleared cards (in the order placed) leave the gone set. A
    card among them that an earlier RETURN of the same clear took back stays where it went, and no
    later card of the pile is returned in its place (docs/RULINGS.md, LOPTI 9)."""
    t = -1
    if role == ROLE_NEXT:
        t = next_active(g, n, a)
    elif role == ROLE_PREV:
        t = prev_active(g, n, a)
    if role != ROLE_DRAWPILE and t < 0:
        return
    for i in range(min(amount, g.lc_n)):
        c = np.int64(g.lc_cards[i])
        b = cbit(c)
        if g.gone & b == U0:
            continue
        g.gone &= ~b
        if role == ROLE_DRAWPILE:
            draw_append_bottom(g, c)
        else:
            g.hand[t] |= b
            g.known[t] |= b


@njit(cache=True)
def target_effect(g, n, role, amount, a, fx):
    """LO-11.4 DRAW and REVEAL on the role's target seats (the array is allocated here, so hook scans
    that fire nothing allocate nothing)."""
    tg = np.empty(MAX_SEATS, np.int64)
    k = role_targets(g, n, role, a, tg)
    for i in range(k):
        if fx == FX_DRAW:
            draw_cards(g, tg[i], amount)
        else:
            g.known[tg[i]] = g.hand[tg[i]]


@njit(inline="always", cache=True)
def condition_holds(g, cond, x, amount, a, rank, count, psize, cause, prevtop, firstout):
    """LO-11.3 the template conditions on the event context (LO-11.2)."""
    if cond == COND_RANK_EQ:
        return rank == x
    if cond == COND_COUNT_GE:
        return count >= x
    if cond == COND_PILE_GE or cond == COND_PILE_AFTER_GE:
        return psize >= x
    if cond == COND_CAUSE:
        return x == 0 or cause == x
    if cond == COND_SET:
        return (x == ANY_RANK or rank == x) and g.run >= amount
    if cond == COND_STEP:
        return prevtop >= 0 and rank == prevtop + 1 and count >= amount
    if cond == COND_OUT_WHICH:
        return x == 1 or firstout != 0
    if cond == COND_HAND_GE:
        return nbits(g.hand[a]) >= x
    return True


@njit(cache=True)
def run_hooks(g, cfg, ev, tm, a, rank, count, psize, cause, prevtop, firstout):
    """LO-11.5: scan ACTIVE rules in slot order; fire each whose event and timing match, whose
    condition holds and that has not fired this turn, applying its effect at once. At CHECK, return 1
    when a made clear-rule fires (the caller clears, cause 4) and stop the scan. LO-11.6: effects only
    add (draw, reveal, gift, return, clear) and raise no events; nothing here changes which moves are
    legal, and no code reads the vote or RPS state."""
    n = cfg[C_N]
    for s in range(cfg[C_MAXRULES]):
        if g.rules[s, R_STATUS] != ACTIVE or g.fired[s] != 0:
            continue
        t = g.rules[s, R_TEMPLATE]
        if TPL[t, T_EVENT] != ev or TPL[t, T_TIMING] != tm:
            continue
        role = g.rules[s, R_G]
        amount = g.rules[s, R_N]
        if not condition_holds(g, TPL[t, T_COND], g.rules[s, R_X], amount, a, rank, count, psize, cause,
                               prevtop, firstout):
            continue
        g.fired[s] = 1
        fx = TPL[t, T_EFFECT]
        if fx == FX_CLEAR:
            return 1
        if fx == FX_DRAW or fx == FX_REVEAL:
            target_effect(g, n, role, amount, a, fx)
        elif fx == FX_GIFT:
            effect_gift(g, n, role, amount, a)
        elif fx == FX_RETURN:
            effect_return(g, n, role, amount, a)
    return 0


@njit(inline="always", cache=True)
def any_rule(g, cfg):
    """Is any made rule ACTIVE? (without one no hook can fire)"""
    for s in range(cfg[C_MAXRULES]):
        if g.rules[s, R_STATUS] == ACTIVE:
            return True
    return False


@njit(cache=True)
def rule_valid(rules, m, t, x, gg, nn, exclude):
    """LO-11.7: (t, X, G, N) is valid against the first m slots of rules (slot `exclude` ignored;
    -1 for none): template, field domains, unused fields 0, LO-11.3's extra validity, no duplicate of
    an ACTIVE or REMOVED entry."""
    if t < 1 or t > NUM_TEMPLATES:
        return False
    uses = TPL[t, T_USES]
    if uses & USES_X:
        if x < TPL[t, T_XMIN] or x > TPL[t, T_XMAX]:
            return False
    elif x != 0:
        return False
    if uses & USES_G:
        if gg < 0 or gg > ROLE_DRAWPILE or ((TPL[t, T_GMASK] >> gg) & 1) == 0:
            return False
    elif gg != 0:
        return False
    if uses & USES_N:
        if nn < TPL[t, T_NMIN] or nn > TPL[t, T_NMAX]:
            return False
    elif nn != 0:
        return False
    if t == SET_CLEAR and (x == RANK_THREE or (x == ANY_RANK and nn < 3)):
        return False
    for s in range(m):
        if s == exclude:
            continue
        status = rules[s, R_STATUS]
        if (status == ACTIVE or status == REMOVED) and rules[s, R_TEMPLATE] == t and rules[s, R_X] == x \
                and rules[s, R_G] == gg and rules[s, R_N] == nn:
            return False
    return True


@njit(cache=True)
def completion_exists(rules, m, t, x, gg, nn):
    """LO-10.3: is there a valid rule of template t extending the fixed fields (-1 = free)?"""
    uses = TPL[t, T_USES]
    xlo, xhi = 0, 0
    if uses & USES_X:
        xlo, xhi = TPL[t, T_XMIN], TPL[t, T_XMAX]
    if x >= 0:
        xlo, xhi = x, x
    glo, ghi = 0, 0
    if uses & USES_G:
        glo, ghi = 0, ROLE_DRAWPILE
    if gg >= 0:
        glo, ghi = gg, gg
    nlo, nhi = 0, 0
    if uses & USES_N:
        nlo, nhi = TPL[t, T_NMIN], TPL[t, T_NMAX]
    if nn >= 0:
        nlo, nhi = nn, nn
    for xv in range(xlo, xhi + 1):
        for gv in range(glo, ghi + 1):
            for nv in range(nlo, nhi + 1):
                if rule_valid(rules, m, t, xv, gv, nv, -1):
                    return True
    return False


@njit(cache=True)
def amend_value_ok(rules, m, slot, field, v):
    """LO-10.5 ruling: an AMEND value differs from the field's value and gives a valid rule that
    duplicates no other entry (the rule itself excluded)."""
    t = rules[slot, R_TEMPLATE]
    if v == rules[slot, field]:
        return False
    x, gg, nn = rules[slot, R_X], rules[slot, R_G], rules[slot, R_N]
    if field == R_X:
        x = v
    elif field == R_G:
        gg = v
    else:
        nn = v
    return rule_valid(rules, m, t, x, gg, nn, slot)


@njit(cache=True)
def field_amendable(rules, m, slot, field):
    """LO-10.5: the template uses the field and another value gives a valid rule."""
    t = rules[slot, R_TEMPLATE]
    if (TPL[t, T_USES] >> (field - 1)) & 1 == 0:
        return False
    for v in range(0, MAX_FIELD_VALUE + 1):
        if amend_value_ok(rules, m, slot, field, v):
            return True
    return False


@njit(cache=True)
def slot_amendable(rules, m, slot):
    if rules[slot, R_STATUS] != ACTIVE:
        return False
    for f in range(R_X, R_N + 1):
        if field_amendable(rules, m, slot, f):
            return True
    return False
