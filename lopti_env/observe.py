"""LOPTI observation (spec section 3.5): state -> float32[309] for one seat, information set only.

Seats are relative (0 = the observer); the 5 seat entries of seats that do not exist are -1.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from lopti_env.kernels import (BRACKET, C_MAXRULES, C_N, C_ROUNDS, MATCH, PLAY, RULE_MAKING, SETUP_VOTE,
                               has_up, nbits, rcount)

OBS_SIZE = 309


@njit(cache=True)
def _rel(seat, s, n):
    if s < 0:
        return -1
    return (s - seat + n) % n


@njit(cache=True)
def observe_game(g, cfg, seat, out):
    n = cfg[C_N]
    m = cfg[C_MAXRULES]
    o = 0
    out[0] = g.phase
    out[1] = g.substep
    out[2] = _rel(seat, g.actor, n)
    out[3] = n
    out[4] = seat
    o = 5
    for r in range(13):
        out[o + r] = rcount(g.hand[seat], r)
    o += 13
    # hand_size, stage, place (5 each)
    for i in range(5):
        if i < n:
            s = (seat + i) % n
            out[o + i] = nbits(g.hand[s])
            if not g.active[s]:
                st = 3
            elif has_up(g, s):
                st = 0
            elif g.hand[s] != 0:
                st = 1
            else:
                st = 2
            out[o + 5 + i] = st
            out[o + 10 + i] = g.place[s]
        else:
            out[o + i] = -1
            out[o + 5 + i] = -1
            out[o + 10 + i] = -1
    o += 15
    for i in range(5):
        for r in range(13):
            if i < n:
                s = (seat + i) % n
                out[o + 13 * i + r] = rcount(g.known[s], r)
            else:
                out[o + 13 * i + r] = -1
    o += 65
    for i in range(5):
        for j in range(3):
            if i < n:
                s = (seat + i) % n
                c = g.up[s, j]
                out[o + 3 * i + j] = c % 13 + 1 if c >= 0 else 0
                out[o + 15 + 3 * i + j] = 1 if g.down[s, j] >= 0 else 0
            else:
                out[o + 3 * i + j] = -1
                out[o + 15 + 3 * i + j] = -1
    o += 30
    for r in range(13):
        out[o + r] = 0
    for i in range(g.pile_n):
        out[o + g.pile[i] % 13] += 1
    o += 13
    for r in range(13):
        out[o + r] = rcount(g.gone, r)
    o += 13
    out[o] = g.pile_n
    out[o + 1] = g.draw_n
    out[o + 2] = g.chain
    out[o + 3] = 1 if (g.chain > 0 and g.pile_n > 0) else 0
    out[o + 4] = 1 if (g.pile_n > 0 and g.top_rank == g.sw[1]) else 0
    out[o + 5] = g.move_kind if g.phase == PLAY else 0  # a move's kind exists only in PLAY (9.4 "move")
    o += 6
    if g.pile_n > 0:
        out[o] = g.top_rank + 1
        out[o + 1] = g.top_cnt
        out[o + 2] = g.run
    else:
        out[o] = 0
        out[o + 1] = 0
        out[o + 2] = 0
    o += 3
    for h in range(8):
        i = g.n_plays - 1 - h
        if i >= 0 and g.pile_n > 0:
            out[o + 3 * h] = g.play_rank[i] + 1
            out[o + 3 * h + 1] = g.play_cnt[i]
            out[o + 3 * h + 2] = _rel(seat, g.play_seat[i], n) + 1
        else:
            out[o + 3 * h] = 0
            out[o + 3 * h + 1] = 0
            out[o + 3 * h + 2] = 0
    o += 24
    out[o] = _rel(seat, g.dealer, n)
    out[o + 1] = _rel(seat, g.leader, n)
    out[o + 2] = g.round
    out[o + 3] = cfg[C_ROUNDS]
    o += 4
    for i in range(9):
        out[o + i] = g.sw[i]
    o += 9
    for s in range(8):
        for j in range(8):
            v = 0
            if s < m and g.rules[s, 5] != 0:
                v = g.rules[s, j]
                if j == 4:
                    v = _rel(seat, v, n)
            out[o + 8 * s + j] = v
    o += 64
    for s in range(8):
        out[o + s] = g.fired[s] if s < m else 0
    o += 8
    for i in range(4):
        out[o + i] = g.pending[i]
    o += 4
    show_draft = g.phase == RULE_MAKING or g.phase == SETUP_VOTE or (g.phase == MATCH and g.rps_setup == 1)
    for i in range(4):
        out[o + i] = g.draft[i] if show_draft else -1
    o += 4
    if g.prop_on == 1:
        out[o] = g.prop_kind
        out[o + 1] = g.prop_target
        out[o + 2] = g.prop_field
        out[o + 3] = g.prop_value
        out[o + 4] = g.prop_timing
        out[o + 5] = _rel(seat, g.proposer, n)
    else:
        out[o] = 0
        for i in range(1, 6):
            out[o + i] = -1
    o += 6
    for i in range(5):
        if i < n:
            s = (seat + i) % n
            out[o + i] = g.ballots[s] if g.ballots_vis == 1 else -1
            out[o + 5 + i] = g.volunteers[s] if g.vol_vis == 1 else -1
        else:
            out[o + i] = -1
            out[o + 5 + i] = -1
    o += 10
    # rps: own role, own wins, opponent wins, decisive, throws, own last, opponent last, opponent seat
    role = 0
    me = -1
    if g.phase == MATCH or g.phase == BRACKET:
        if seat == g.rps_first:
            me = 0
        elif seat == g.rps_second:
            me = 1
        if me >= 0:
            role = 3 if g.phase == BRACKET else me + 1
    out[o] = role
    if me >= 0:
        out[o + 1] = g.rps_score[me]
        out[o + 2] = g.rps_score[1 - me]
        out[o + 3] = g.rps_dec
        out[o + 4] = g.rps_throws
        out[o + 5] = g.rps_last[me]
        out[o + 6] = g.rps_last[1 - me]
        out[o + 7] = _rel(seat, g.rps_second if me == 0 else g.rps_first, n)
    else:
        for i in range(1, 5):
            out[o + i] = 0
        for i in range(5, 8):
            out[o + i] = -1
    o += 8
    for i in range(5):
        if i < n:
            out[o + i] = g.scores[(seat + i) % n]
        else:
            out[o + i] = -1
    o += 5
    return o


@njit(cache=True)
def observe_one(st, b, cfg, seat, out):
    observe_game(st[b], cfg, seat, out)


@njit(cache=True)
def observe_batch(st, cfg, out):
    for b in range(st.shape[0]):
        g = st[b]
        if g.actor < 0:  # done: the row stays zeros, as in the other games' BatchGame
            continue
        observe_game(g, cfg, g.actor, out[b])
