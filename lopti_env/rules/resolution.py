"""LO-5 resolving a move, LO-6 clearing and extra moves, LO-7 drawing, LO-8 face-up and face-down
cards: the PLAY phase's move pipeline (LO-5.1) with its made-rule hook points."""
from __future__ import annotations

import numpy as np
from numba import njit

from lopti_env.rules.codes import (ACT_FLIP, ACT_PICKUP, ACT_PLAY_PER_RANK, C_MAXMOVES, CAUSE_CLEAR_CARD,
                                   CAUSE_MADE, CAUSE_SET, CAUSE_THREES, EV_CLEAR, EV_FACEUP, EV_FLIPFAIL,
                                   EV_OUT, EV_PICKUP, EV_PLAY, MOVE_EXTRA, MOVE_FIRST, RANK_THREE, S_CEM, S_CR,
                                   S_DB, S_DM, S_SS, SLOTS, TM_AFTER, TM_BEFORE, TM_CHECK, U0, cbit, nbits)
from lopti_env.rules.legality import is_legal
from lopti_env.rules.made_rules import any_rule, run_hooks
from lopti_env.rules.round_end import end_turn, finish_round, go_out
from lopti_env.rules.table import (begin_play, draw_cards, empty_table, has_down, has_up, push_card, take_pile,
                                   take_rank)


@njit(inline="always", cache=True)
def clear_cause(r, chain, pile_before, run, cr, ss):
    """LO-6.1 the base causes of a clear after a play of rank r lands (or, for 3s, is set aside):
    LO-5.3 SS consecutive 3s on a pile (cause 3; on an empty table nothing is cleared and the chain
    restarts), LO-5.5 the clear rank (cause 1), a run of SS (cause 2). LO-5.2: a 2 only lands.
    Returns (cause or 0, the chain after)."""
    if r == RANK_THREE:
        if chain >= ss:
            if pile_before > 0:
                return CAUSE_THREES, chain
            return 0, 0
        return 0, chain
    if r == cr:
        return CAUSE_CLEAR_CARD, chain
    if run >= ss:
        return CAUSE_SET, chain
    return 0, chain


@njit(inline="always", cache=True)
def base_draw_count(first, hand_size, draw_n, draw_below, draw_mode):
    """LO-7.1: after a first move that was a legal play, a hand under DRAW_BELOW draws one card
    (DRAW_MODE 0) or up to DRAW_BELOW (DRAW_MODE 1) while the draw pile lasts."""
    if not first or draw_n <= 0 or hand_size >= draw_below:
        return 0
    if draw_mode == 0:
        return 1
    return draw_below - hand_size


@njit(cache=True)
def do_clear(g, a, cause):
    """LO-6.2: every pile card is gone; chain, obligation and limit end."""
    for i in range(g.pile_n):
        c = g.pile[i]
        g.lc_cards[i] = c
        g.gone |= cbit(c)
    g.lc_n = g.pile_n
    empty_table(g)
    g.clears += 1
    g.lc_seat = a
    g.lc_cause = cause


@njit(cache=True)
def take_over_faceup(g, a):
    """LO-8.1: an empty hand takes up all face-up cards at once; they stay known."""
    for j in range(SLOTS):
        c = g.up[a, j]
        if c >= 0:
            g.hand[a] |= cbit(c)
            g.known[a] |= cbit(c)
            g.up[a, j] = -1


@njit(cache=True)
def pickup_pipeline(g, cfg, a):
    """LO-5.1 PICKUP: BEFORE-PICKUP, a takes the pile (LO-3.4), AFTER-PICKUP."""
    size = g.pile_n
    hooks = any_rule(g, cfg)  # without an ACTIVE rule run_hooks does nothing
    if hooks:
        run_hooks(g, cfg, EV_PICKUP, TM_BEFORE, a, -1, 0, size, 0, -1, 0)
    take_pile(g, a)
    if hooks or any_rule(g, cfg):
        run_hooks(g, cfg, EV_PICKUP, TM_AFTER, a, -1, 0, size, 0, -1, 0)


@njit(cache=True)
def failed_flip(g, cfg, carry, dk, cn, a, card, hooks):
    """LO-8.2: an illegal face-down card joins the pile, which a picks up; AFTER-FLIPFAIL; turn over."""
    r = card % 13
    begin_play(g, a, r, 1)
    push_card(g, card)
    pickup_pipeline(g, cfg, a)
    if hooks:
        run_hooks(g, cfg, EV_FLIPFAIL, TM_AFTER, a, r, 1, 0, 0, -1, 0)
    end_turn(g, cfg, carry, dk, cn, a)


@njit(cache=True)
def lay_cards(g, a, r, k, from_hand, card):
    """LO-5.1 step 3/4: the cards leave a; LO-5.3: 3s are set aside at once (gone) and lengthen the
    chain; any other play lands on the pile as one play (LO-3.3) and ends the chain. A 7 that lands
    is the top play, which is the low limit (LO-5.4)."""
    if r == RANK_THREE:
        if from_hand:
            g.gone |= take_rank(g, a, r, k, False)
        else:
            g.gone |= cbit(card)
        g.chain += k
    else:
        g.chain = 0
        begin_play(g, a, r, k)
        if from_hand:
            take_rank(g, a, r, k, True)
        else:
            push_card(g, card)


@njit(inline="always", cache=True)
def holds_nothing(g, a):
    return g.hand[a] == U0 and not has_up(g, a) and not has_down(g, a)


@njit(cache=True)
def play_step(g, cfg, carry, dk, cn, act):
    """One PLAY-phase decision through the LO-5.1 pipeline."""
    a = g.actor
    g.moves += 1
    first = g.move_kind == MOVE_FIRST
    hooks = any_rule(g, cfg)
    if act == ACT_PICKUP:
        pickup_pipeline(g, cfg, a)
        end_turn(g, cfg, carry, dk, cn, a)
        return
    from_hand = True
    card = -1
    if act >= ACT_FLIP:  # LO-8.2: turn the face-down card; an illegal one fails
        j = act - ACT_FLIP
        card = np.int64(g.down[a, j])
        g.down[a, j] = -1
        r = card % 13
        k = 1
        from_hand = False
        if not is_legal(g, r, 1):
            failed_flip(g, cfg, carry, dk, cn, a, card, hooks)
            return
    else:
        r = act // ACT_PLAY_PER_RANK
        k = act % ACT_PLAY_PER_RANK + 1
    pile_before = g.pile_n
    prevtop = g.top_rank if pile_before > 0 else -1
    lay_cards(g, a, r, k, from_hand, card)
    # LO-9.1: out at once, except after a first move from the hand while the draw pile has cards
    went_out = False
    wait_out = False
    if holds_nothing(g, a):
        if first and from_hand and g.draw_n > 0:
            wait_out = True
        else:
            go_out(g, a)
            went_out = True
    cause, chain = clear_cause(r, g.chain, pile_before, g.run, g.sw[S_CR], g.sw[S_SS])
    g.chain = chain
    if cause == 0 and r != RANK_THREE and hooks:  # step 5: CHECK
        if run_hooks(g, cfg, EV_PLAY, TM_CHECK, a, r, k, g.pile_n, 0, prevtop, 0) == 1:
            cause = CAUSE_MADE
    psize = g.pile_n
    if cause > 0:  # step 6
        do_clear(g, a, cause)
        if hooks:
            run_hooks(g, cfg, EV_CLEAR, TM_AFTER, a, r, k, psize, cause, prevtop, 0)
    if hooks:  # step 7
        run_hooks(g, cfg, EV_PLAY, TM_AFTER, a, r, k, psize, cause, prevtop, 0)
    if went_out:  # step 8; LO-9.2: the last cards' effects above stand, no extra move
        if hooks:
            run_hooks(g, cfg, EV_OUT, TM_AFTER, a, r, k, psize, cause, prevtop, 1 if g.n_out == 1 else 0)
        end_turn(g, cfg, carry, dk, cn, a)
        return
    # step 9: the draw (LO-7.1), then going out if it waited and nothing came
    draw_cards(g, a, base_draw_count(first, nbits(g.hand[a]), g.draw_n, g.sw[S_DB], g.sw[S_DM]))
    if wait_out and g.hand[a] == U0:
        go_out(g, a)
        if hooks:
            run_hooks(g, cfg, EV_OUT, TM_AFTER, a, r, k, psize, cause, prevtop, 1 if g.n_out == 1 else 0)
        end_turn(g, cfg, carry, dk, cn, a)
        return
    # step 10: takeover (LO-8.1)
    if g.hand[a] == U0 and has_up(g, a):
        take_over_faceup(g, a)
        if hooks:
            run_hooks(g, cfg, EV_FACEUP, TM_AFTER, a, r, k, psize, cause, prevtop, 0)
    # step 11: the extra move after a clear (LO-6.3), no draw, same turn; truncation still applies
    if cause > 0 and g.sw[S_CEM] == 1:
        g.move_kind = MOVE_EXTRA
        if g.moves >= cfg[C_MAXMOVES]:
            finish_round(g, cfg, carry, dk, cn, True)
        return
    end_turn(g, cfg, carry, dk, cn, a)
