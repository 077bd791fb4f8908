"""LO-10.7 rock-paper-scissors: the main match, the volunteers' bracket, the safeguard coin."""
from __future__ import annotations

import numpy as np
from numba import njit

from lopti_env.rules.codes import (ACT_ROCK, BRACKET, C_BRMAX, C_EARLY, C_RPSMAX, MATCH, MATCH_DECISIVE, MATCH_WINS,
                                   RPS_BRACKET, RPS_MATCH)


@njit(cache=True)
def start_rps(g, kind, first, second):
    """A bracket match or the main match between first (throws first, unseen by second) and second."""
    g.rps_kind = kind
    g.rps_first = first
    g.rps_second = second
    g.rps_score[0] = 0
    g.rps_score[1] = 0
    g.rps_dec = 0
    g.rps_throws = 0
    g.rps_pend = -1
    g.rps_last[0] = -1
    g.rps_last[1] = -1
    g.phase = MATCH if kind == RPS_MATCH else BRACKET
    g.substep = 0
    g.actor = first


@njit(cache=True)
def bracket_next(g):
    """The next bracket match (pairs in entrant order, an unpaired last entrant advances unplayed);
    when one entrant remains it defends in the main match against the proposer (LO-10.6 ruling b)."""
    while True:
        if g.br_pos >= g.br_n:
            for i in range(g.br_nwin):
                g.br_ent[i] = g.br_win[i]
            g.br_n = g.br_nwin
            g.br_pos = 0
            g.br_nwin = 0
            if g.br_n == 1:
                g.defender = g.br_ent[0]
                start_rps(g, RPS_MATCH, g.proposer, g.defender)
                return
        if g.br_pos + 1 < g.br_n:
            start_rps(g, RPS_BRACKET, g.br_ent[g.br_pos], g.br_ent[g.br_pos + 1])
            return
        g.br_win[g.br_nwin] = g.br_ent[g.br_pos]
        g.br_nwin += 1
        g.br_pos += 1


@njit(cache=True)
def coin(g, cn):
    """The safeguard coin (0 = the first-listed side), one per use, from the game's coin row."""
    i = g.coin_idx
    g.coin_idx += 1
    if i < cn.shape[0]:
        return np.int64(cn[i])
    return 0


@njit(cache=True)
def rps_throw(g, cfg, cn, act):
    """One choice of the current match. Returns the main match's winning side (0 first, 1 second)
    once it is decided, else -1 (the match goes on, or a bracket match was settled and the bracket
    moved on). Rock beats scissors, scissors paper, paper rock; equal signs are a tie."""
    x = act - ACT_ROCK
    if g.actor == g.rps_first:
        g.rps_pend = x
        g.actor = g.rps_second
        return -1
    f = g.rps_pend
    g.rps_pend = -1
    g.rps_last[0] = f
    g.rps_last[1] = x
    g.rps_throws += 1
    w = -1
    if f != x:
        w = 0 if (f - x + 3) % 3 == 1 else 1
        g.rps_score[w] += 1
        g.rps_dec += 1
    side = -1
    if g.rps_kind == RPS_BRACKET:  # one decisive throw; the coin after bracket_max_throws
        if w >= 0:
            side = w
        elif g.rps_throws >= cfg[C_BRMAX]:
            side = coin(g, cn)
        if side < 0:
            g.actor = g.rps_first
            return -1
        g.br_win[g.br_nwin] = g.rps_first if side == 0 else g.rps_second
        g.br_nwin += 1
        g.br_pos += 2
        bracket_next(g)
        return -1
    s0 = g.rps_score[0]
    s1 = g.rps_score[1]
    if cfg[C_EARLY] == 1 and (s0 >= MATCH_WINS or s1 >= MATCH_WINS):
        side = 0 if s0 >= MATCH_WINS else 1
    elif g.rps_dec >= MATCH_DECISIVE and s0 != s1:
        side = 0 if s0 > s1 else 1
    elif g.rps_throws >= cfg[C_RPSMAX]:  # the safeguard
        if s0 != s1:
            side = 0 if s0 > s1 else 1
        else:
            side = coin(g, cn)
    if side < 0:
        g.actor = g.rps_first
    return side
