"""Section 4.2: the acting seat's legal actions in every phase, kept in g.legal (and g.mask unless
g.mask_off) after every transition."""
from __future__ import annotations

from numba import njit

from lopti_env.rules.codes import (ACT_KEEP, ACT_NO, ACT_NOW, ACT_PASS, ACT_PROPOSE, ACT_ROCK, ACT_SELECT,
                                   ACT_SWAP, ACT_YES, ACTIVE, BALLOT, BRACKET, C_MAXRULES, CREATOR, KIND_AMEND,
                                   KIND_BASE, KIND_REMOVE, KIND_RESTORE, MATCH, MAX_FIELD_VALUE, NUM_SELECT,
                                   NUM_SWITCHES, NUM_TEMPLATES, PLAY, PROPOSAL, R_G, R_MAKER, R_N, R_STATUS, R_X,
                                   REMOVED, RULE_MAKING, S_SWAPS, SETUP_VOTE, SLOTS, SUB_FIELD, SUB_KIND,
                                   SUB_TARGET, SUB_VALUE, SWAP, VOLUNTEER, rcount)
from lopti_env.rules.legality import play_mask
from lopti_env.rules.made_rules import amend_value_ok, completion_exists, field_amendable, slot_amendable
from lopti_env.rules.switches import base_value_ok


@njit(inline="always", cache=True)
def allow(g, a):
    if g.mask_off == 0:
        g.mask[a] = 1
    g.legal[g.n_legal] = a
    g.n_legal += 1


@njit(inline="always", cache=True)
def clear_mask(g):
    if g.mask_off == 0:
        for i in range(g.n_legal):
            g.mask[g.legal[i]] = 0
    g.n_legal = 0


@njit(cache=True)
def swap_mask(g, a):
    """LO-2.6: swap a hand card with a face-up card of another rank (same-rank swaps change nothing),
    while swaps remain; or keep."""
    if g.swaps_used[a] < g.sw[S_SWAPS]:
        h = g.hand[a]
        for r in range(13):
            if rcount(h, r) == 0:
                continue
            for j in range(SLOTS):
                c = g.up[a, j]
                if c >= 0 and c % 13 != r:
                    allow(g, ACT_SWAP + SLOTS * r + j)
    allow(g, ACT_KEEP)


@njit(cache=True)
def rule_making_mask(g, m):
    """LO-10.3: a value is offered iff some complete valid rule extends the choices so far."""
    sub = g.substep
    d = g.draft
    if sub == 0:
        for t in range(1, NUM_TEMPLATES + 1):
            if completion_exists(g.rules, m, t, -1, -1, -1):
                allow(g, ACT_SELECT + t)
        return
    t = d[0]
    for v in range(0, NUM_SELECT):
        x, gg, nn = d[R_X], d[R_G], d[R_N]
        if sub == R_X:
            x = v
        elif sub == R_G:
            gg = v
        else:
            nn = v
        if v > MAX_FIELD_VALUE:
            break
        if completion_exists(g.rules, m, t, x, gg, nn):
            allow(g, ACT_SELECT + v)


@njit(cache=True)
def proposal_mask(g, m):
    """LO-10.5: the proposal's decisions, each offering only choices that can complete."""
    sub = g.substep
    kind = g.prop_kind
    if sub == SUB_KIND:
        any_act = False
        any_am = False
        any_rem = False
        for s in range(m):
            if g.rules[s, R_STATUS] == ACTIVE:
                any_act = True
                if not any_am and slot_amendable(g.rules, m, s):
                    any_am = True
            elif g.rules[s, R_STATUS] == REMOVED:
                any_rem = True
        allow(g, ACT_PASS)
        if any_act:
            allow(g, ACT_PROPOSE + KIND_REMOVE - 1)
        if any_am:
            allow(g, ACT_PROPOSE + KIND_AMEND - 1)
        allow(g, ACT_PROPOSE + KIND_BASE - 1)
        if any_rem:
            allow(g, ACT_PROPOSE + KIND_RESTORE - 1)
    elif sub == SUB_TARGET:
        if kind == KIND_BASE:
            for sid in range(NUM_SWITCHES):
                allow(g, ACT_SELECT + sid)
        else:
            for s in range(m):
                status = g.rules[s, R_STATUS]
                if (kind == KIND_REMOVE and status == ACTIVE) or (kind == KIND_RESTORE and status == REMOVED) or \
                        (kind == KIND_AMEND and slot_amendable(g.rules, m, s)):
                    allow(g, ACT_SELECT + s)
    elif sub == SUB_FIELD:
        for f in range(R_X, R_N + 1):
            if field_amendable(g.rules, m, g.prop_target, f):
                allow(g, ACT_SELECT + f)
    elif sub == SUB_VALUE:
        for v in range(0, MAX_FIELD_VALUE + 1):
            if kind == KIND_AMEND:
                if amend_value_ok(g.rules, m, g.prop_target, g.prop_field, v):
                    allow(g, ACT_SELECT + v)
            elif base_value_ok(g.sw, g.prop_target, v):
                allow(g, ACT_SELECT + v)
    else:
        allow(g, ACT_NOW)
        allow(g, ACT_NOW + 1)


@njit(cache=True)
def compute_mask(g, cfg):
    clear_mask(g)
    a = g.actor
    if a < 0:
        return
    ph = g.phase
    m = cfg[C_MAXRULES]
    if ph == PLAY:
        play_mask(g)
    elif ph == SWAP:
        swap_mask(g, a)
    elif ph == SETUP_VOTE or ph == BALLOT or ph == VOLUNTEER:
        allow(g, ACT_YES)
        allow(g, ACT_NO)
    elif ph == BRACKET or ph == MATCH:
        allow(g, ACT_ROCK)
        allow(g, ACT_ROCK + 1)
        allow(g, ACT_ROCK + 2)
    elif ph == CREATOR:  # LO-10.4: pass, or delete one of one's own ACTIVE rules
        allow(g, ACT_PASS)
        for s in range(m):
            if g.rules[s, R_STATUS] == ACTIVE and g.rules[s, R_MAKER] == a:
                allow(g, ACT_SELECT + s)
    elif ph == RULE_MAKING:
        rule_making_mask(g, m)
    elif ph == PROPOSAL:
        proposal_mask(g, m)
