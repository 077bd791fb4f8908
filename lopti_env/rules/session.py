"""LO-10 the session layer: setup votes, rule making, the creator window, the rules vote and its
tie-breaks, applying changes. A session (LO-10.1) starts from the configured rulebook and switches
(engine.start_episode) and runs session_rounds rounds with the same players."""
from __future__ import annotations

from numba import njit

from lopti_env.rules.codes import (ACT_NOW, ACT_PASS, ACT_PROPOSE, ACT_SELECT, ACT_YES, ACTIVE, BALLOT, C_MAXRULES,
                                   C_N, C_NCARRY, CREATOR, EMPTY, KIND_AMEND, KIND_BASE, KIND_REMOVE, KIND_RESTORE,
                                   MAX_SEATS, P_FIELD, P_KIND, P_TARGET, P_VALUE, PROPOSAL, R_MADE_ROUND, R_MAKER,
                                   R_RESERVED, R_STATUS, REMOVED, RESULT_FAILED, RESULT_NONE, RESULT_PASSED,
                                   RPS_MATCH, RPS_NONE, RULE_MAKING, SETUP_VOTE, SUB_FIELD, SUB_KIND, SUB_TARGET,
                                   SUB_TIMING, SUB_VALUE, T_USES, TIMING_NEXT, TPL, VOLUNTEER)
from lopti_env.rules.made_rules import amend_value_ok, rule_valid
from lopti_env.rules.rps import bracket_next, rps_throw, start_rps
from lopti_env.rules.setup import deal, enter_swap, set_dealer_and_leader
from lopti_env.rules.switches import base_value_ok


@njit(cache=True)
def free_slot(g, cfg):
    """LO-11.1: the lowest EMPTY slot (slots are never reused), or -1."""
    for s in range(cfg[C_MAXRULES]):
        if g.rules[s, R_STATUS] == EMPTY:
            return s
    return -1


@njit(cache=True)
def clear_batch(g):
    for s in range(MAX_SEATS):
        g.ballots[s] = -1
        g.volunteers[s] = -1
    g.ballots_vis = 0
    g.vol_vis = 0


@njit(cache=True)
def reset_proposal(g):
    g.prop_on = 0
    g.prop_kind = 0
    g.prop_target = -1
    g.prop_field = -1
    g.prop_value = -1
    g.prop_timing = -1
    g.proposer = -1
    g.prop_yes = -1
    g.defender = -1
    g.prop_result = RESULT_NONE
    g.rps_kind = RPS_NONE


@njit(cache=True)
def apply_change(g, cfg, kind, target, field, value):
    """LO-10.8: apply a passed change (returns False when it lapses: target not in the needed state,
    an AMEND that would duplicate, a BASE value no longer new)."""
    m = cfg[C_MAXRULES]
    if kind == KIND_REMOVE:
        if g.rules[target, R_STATUS] != ACTIVE:
            return False
        g.rules[target, R_STATUS] = REMOVED
    elif kind == KIND_AMEND:
        if g.rules[target, R_STATUS] != ACTIVE or not amend_value_ok(g.rules, m, target, field, value):
            return False
        g.rules[target, field] = value
    elif kind == KIND_BASE:
        if not base_value_ok(g.sw, target, value):
            return False
        g.sw[target] = value
    elif kind == KIND_RESTORE:
        if g.rules[target, R_STATUS] != REMOVED:
            return False
        g.rules[target, R_STATUS] = ACTIVE
    return True


@njit(cache=True)
def begin_round(g, cfg, carry, dk, cn):
    """LO-10.2 phases 1-3 of round g.round: the pending change, rule making by the previous winner
    when a slot is free, the creator window (the deal follows it)."""
    n = cfg[C_N]
    set_dealer_and_leader(g, n)
    reset_proposal(g)
    g.setup_on = 0
    for i in range(4):
        g.draft[i] = -1
    if g.round >= 1:
        if g.pending[P_KIND] > 0:
            apply_change(g, cfg, g.pending[P_KIND], g.pending[P_TARGET], g.pending[P_FIELD], g.pending[P_VALUE])
            for i in range(4):
                g.pending[i] = 0
        if g.prev_winner >= 0 and free_slot(g, cfg) >= 0:
            g.phase = RULE_MAKING
            g.substep = 0
            g.actor = g.prev_winner
            return
    enter_creator(g, cfg, carry, dk, cn)


@njit(cache=True)
def enter_creator(g, cfg, carry, dk, cn):
    g.pos = 0
    creator_next(g, cfg, carry, dk, cn)


@njit(cache=True)
def has_own_rule(g, cfg, s):
    for i in range(cfg[C_MAXRULES]):
        if g.rules[i, R_STATUS] == ACTIVE and g.rules[i, R_MAKER] == s:
            return True
    return False


@njit(cache=True)
def creator_next(g, cfg, carry, dk, cn):
    """LO-10.4: the next seat clockwise from the dealer's left that made an ACTIVE rule decides; after
    the last, the deal (LO-10.2 phase 4) and the proposal phase of the rules vote."""
    n = cfg[C_N]
    while g.pos < n:
        s = (g.dealer + 1 + g.pos) % n
        if has_own_rule(g, cfg, s):
            g.phase = CREATOR
            g.substep = 0
            g.actor = s
            return
        g.pos += 1
    if g.skip_deal == 1:
        g.skip_deal = 0
    else:
        deal(g, cfg, dk[g.round])
    for i in range(4):
        g.draft[i] = -1
    g.phase = PROPOSAL
    g.substep = SUB_KIND
    g.pos = 0
    g.actor = (g.dealer + 1) % n


@njit(cache=True)
def vote_result(g, cfg, carry, dk, cn, passed):
    """LO-10.8: a passed change applies NOW or is stored for the next round (NEXT); then the swaps."""
    g.prop_result = RESULT_PASSED if passed else RESULT_FAILED
    g.rps_kind = RPS_NONE
    if passed:
        if g.prop_timing == TIMING_NEXT:
            g.pending[P_KIND] = g.prop_kind
            g.pending[P_TARGET] = g.prop_target
            g.pending[P_FIELD] = g.prop_field
            g.pending[P_VALUE] = g.prop_value
        else:
            apply_change(g, cfg, g.prop_kind, g.prop_target, g.prop_field, g.prop_value)
    enter_swap(g, cfg)


@njit(cache=True)
def enter_setup(g, cfg, carry, dk, cn):
    """LO-10.9: the next carry-over candidate that is valid, new and fits goes to a vote; after the
    last, round 0 begins."""
    n = cfg[C_N]
    m = cfg[C_MAXRULES]
    while g.cand < cfg[C_NCARRY]:
        c = g.cand
        if free_slot(g, cfg) >= 0 and rule_valid(g.rules, m, carry[c, 0], carry[c, 1], carry[c, 2],
                                                 carry[c, 3], -1):
            g.setup_on = 1
            g.setup_yes = -1
            clear_batch(g)
            g.pos = 0
            for i in range(4):
                g.draft[i] = carry[c, i]
            g.phase = SETUP_VOTE
            g.substep = 0
            g.actor = (g.fdealer + 1) % n
            return
        g.cand += 1
    g.cand = -1
    g.setup_on = 0
    begin_round(g, cfg, carry, dk, cn)


@njit(cache=True)
def setup_done(g, cfg, carry, dk, cn, enters):
    """LO-10.9: an approved candidate enters the next EMPTY slot, ACTIVE, made_round -1."""
    if enters:
        c = g.cand
        s = free_slot(g, cfg)
        for i in range(4):
            g.rules[s, i] = carry[c, i]
        g.rules[s, R_MAKER] = carry[c, 4]
        g.rules[s, R_STATUS] = ACTIVE
        g.rules[s, R_MADE_ROUND] = -1
        g.rules[s, R_RESERVED] = 0
    g.setup_on = 0
    g.rps_kind = RPS_NONE
    g.cand += 1
    enter_setup(g, cfg, carry, dk, cn)


@njit(cache=True)
def setup_vote_step(g, cfg, carry, dk, cn, act):
    """LO-10.9: every player votes from first_dealer's left; a majority decides, a tie goes to a main
    match between the first YES voter and the first NO voter."""
    n = cfg[C_N]
    g.ballots[g.actor] = 1 if act == ACT_YES else 0
    g.pos += 1
    if g.pos < n:
        g.actor = (g.fdealer + 1 + g.pos) % n
        return
    g.ballots_vis = 1
    y = 0
    fy = -1
    fn = -1
    for i in range(n):
        s = (g.fdealer + 1 + i) % n
        if g.ballots[s] == 1:
            y += 1
            if fy < 0:
                fy = s
        elif fn < 0:
            fn = s
    g.setup_yes = y
    if 2 * y > n:
        setup_done(g, cfg, carry, dk, cn, True)
    elif 2 * y < n:
        setup_done(g, cfg, carry, dk, cn, False)
    else:
        g.rps_setup = 1
        start_rps(g, RPS_MATCH, fy, fn)


@njit(cache=True)
def rule_making_step(g, cfg, carry, dk, cn, act):
    """LO-10.3: SELECT(template), then X, G, N for the fields the template uses (the others stored as
    0); the rule enters the lowest EMPTY slot, maker = the winner, ACTIVE, made in the last round."""
    v = act - ACT_SELECT
    sub = g.substep
    g.draft[sub] = v
    uses = TPL[g.draft[0], T_USES]
    nxt = sub + 1
    while nxt <= 3 and ((uses >> (nxt - 1)) & 1) == 0:
        g.draft[nxt] = 0
        nxt += 1
    if nxt <= 3:
        g.substep = nxt
        return
    s = free_slot(g, cfg)
    for i in range(4):
        g.rules[s, i] = g.draft[i]
    g.rules[s, R_MAKER] = g.actor
    g.rules[s, R_STATUS] = ACTIVE
    g.rules[s, R_MADE_ROUND] = g.round - 1
    g.rules[s, R_RESERVED] = 0
    for i in range(4):
        g.draft[i] = -1
    g.substep = 0
    enter_creator(g, cfg, carry, dk, cn)


@njit(cache=True)
def creator_step(g, cfg, carry, dk, cn, act):
    """LO-10.4: PASS ends the seat's window; SELECT(slot) removes its own rule at once, no vote."""
    if act == ACT_PASS:
        g.pos += 1
    else:
        g.rules[act - ACT_SELECT, R_STATUS] = REMOVED
        if not has_own_rule(g, cfg, g.actor):
            g.pos += 1
    creator_next(g, cfg, carry, dk, cn)


@njit(cache=True)
def proposal_step(g, cfg, act):
    """LO-10.5 proposal: seats from the dealer's left PASS or PROPOSE(kind); the proposer then
    chooses target, field, value (as the kind needs) and TIMING, and the ballot starts."""
    n = cfg[C_N]
    sub = g.substep
    if sub == SUB_KIND:
        if act == ACT_PASS:
            g.pos += 1
            if g.pos >= n:
                enter_swap(g, cfg)  # all passed: no vote this round
            else:
                g.actor = (g.dealer + 1 + g.pos) % n
            return
        kind = act - ACT_PROPOSE + 1
        g.prop_on = 1
        g.prop_kind = kind
        g.proposer = g.actor
        g.prop_target = -1
        g.prop_field = -1 if kind == KIND_AMEND else 0
        g.prop_value = -1 if (kind == KIND_AMEND or kind == KIND_BASE) else 0
        g.prop_timing = -1
        g.prop_yes = -1
        g.defender = -1
        g.prop_result = RESULT_NONE
        g.substep = SUB_TARGET
    elif sub == SUB_TARGET:
        g.prop_target = act - ACT_SELECT
        kind = g.prop_kind
        g.substep = SUB_FIELD if kind == KIND_AMEND else (SUB_VALUE if kind == KIND_BASE else SUB_TIMING)
    elif sub == SUB_FIELD:
        g.prop_field = act - ACT_SELECT
        g.substep = SUB_VALUE
    elif sub == SUB_VALUE:
        g.prop_value = act - ACT_SELECT
        g.substep = SUB_TIMING
    else:
        g.prop_timing = act - ACT_NOW
        clear_batch(g)
        g.phase = BALLOT
        g.substep = 0
        g.pos = 0
        g.actor = (g.proposer + 1) % n


@njit(cache=True)
def ballot_step(g, cfg, carry, dk, cn, act):
    """LO-10.5 ballot: everyone but the proposer votes (the proposer counts YES); Y > N/2 passes,
    Y < N/2 fails, a tie goes to LO-10.6: the first NO voter defends a BASE or RESTORE, the rule's
    maker a REMOVE or AMEND when present, not the proposer and voting NO (ruling a), else the NO
    voters are asked to volunteer."""
    n = cfg[C_N]
    g.ballots[g.actor] = 1 if act == ACT_YES else 0
    g.pos += 1
    if g.pos < n - 1:
        g.actor = (g.proposer + 1 + g.pos) % n
        return
    g.ballots[g.proposer] = 1
    g.ballots_vis = 1
    y = 0
    for s in range(n):
        if g.ballots[s] == 1:
            y += 1
    g.prop_yes = y
    if 2 * y > n:
        vote_result(g, cfg, carry, dk, cn, True)
        return
    if 2 * y < n:
        vote_result(g, cfg, carry, dk, cn, False)
        return
    kind = g.prop_kind
    if kind == KIND_BASE or kind == KIND_RESTORE:
        for i in range(n - 1):
            s = (g.proposer + 1 + i) % n
            if g.ballots[s] == 0:
                g.defender = s
                break
        start_rps(g, RPS_MATCH, g.proposer, g.defender)
        return
    mk = g.rules[g.prop_target, R_MAKER]
    if mk >= 0 and mk != g.proposer and g.ballots[mk] == 0:
        g.defender = mk
        start_rps(g, RPS_MATCH, g.proposer, mk)
        return
    g.phase = VOLUNTEER
    g.substep = 0
    g.pos = 0
    volunteer_next(g, cfg, carry, dk, cn)


@njit(cache=True)
def volunteer_next(g, cfg, carry, dk, cn):
    """LO-10.6: the next NO voter in ballot order answers; when all have: no volunteer -> the change
    passes, one -> that one defends, more -> the bracket (rulings b, c)."""
    n = cfg[C_N]
    while g.pos < n - 1:
        s = (g.proposer + 1 + g.pos) % n
        if g.ballots[s] == 0:
            g.actor = s
            return
        g.pos += 1
    g.vol_vis = 1
    g.br_n = 0
    for i in range(n - 1):
        s = (g.proposer + 1 + i) % n
        if g.volunteers[s] == 1:
            g.br_ent[g.br_n] = s
            g.br_n += 1
    if g.br_n == 0:
        vote_result(g, cfg, carry, dk, cn, True)
    elif g.br_n == 1:
        g.defender = g.br_ent[0]
        start_rps(g, RPS_MATCH, g.proposer, g.defender)
    else:
        g.br_pos = 0
        g.br_nwin = 0
        bracket_next(g)


@njit(cache=True)
def session_step(g, cfg, carry, dk, cn, act):
    """One decision of a session phase (everything but SWAP and PLAY)."""
    ph = g.phase
    if ph == SETUP_VOTE:
        setup_vote_step(g, cfg, carry, dk, cn, act)
    elif ph == RULE_MAKING:
        rule_making_step(g, cfg, carry, dk, cn, act)
    elif ph == CREATOR:
        creator_step(g, cfg, carry, dk, cn, act)
    elif ph == PROPOSAL:
        proposal_step(g, cfg, act)
    elif ph == BALLOT:
        ballot_step(g, cfg, carry, dk, cn, act)
    elif ph == VOLUNTEER:
        g.volunteers[g.actor] = 1 if act == ACT_YES else 0
        g.pos += 1
        volunteer_next(g, cfg, carry, dk, cn)
    else:  # BRACKET or MATCH
        side = rps_throw(g, cfg, cn, act)
        if side < 0:
            return
        if g.rps_setup == 1:
            g.rps_setup = 0
            setup_done(g, cfg, carry, dk, cn, side == 0)
        else:
            vote_result(g, cfg, carry, dk, cn, side == 0)
