"""LO-5.1's start of a turn and of a round's play (fired flags, TURNSTART and ROUNDSTART hooks)."""
from __future__ import annotations

from numba import njit

from lopti_env.rules.codes import EV_ROUNDSTART, EV_TURNSTART, MAX_RULES, MOVE_FIRST, PLAY, TM_AFTER, TM_BEFORE
from lopti_env.rules.made_rules import any_rule, run_hooks


@njit(inline="always", cache=True)
def reset_fired(g):
    for i in range(MAX_RULES):
        g.fired[i] = 0


@njit(cache=True)
def start_turn(g, cfg, s):
    """LO-5.1 start of a turn (not an extra move): fired flags reset, BEFORE-TURNSTART, s decides."""
    g.actor = s
    g.move_kind = MOVE_FIRST
    reset_fired(g)
    if any_rule(g, cfg):
        run_hooks(g, cfg, EV_TURNSTART, TM_BEFORE, s, -1, 0, g.pile_n, 0, -1, 0)


@njit(cache=True)
def start_play(g, cfg):
    """LO-5.1 start of a round's play: flags reset, AFTER-ROUNDSTART (actor = leader), leader's turn."""
    g.phase = PLAY
    g.substep = 0
    reset_fired(g)
    if any_rule(g, cfg):
        run_hooks(g, cfg, EV_ROUNDSTART, TM_AFTER, g.leader, -1, 0, 0, 0, -1, 0)
    start_turn(g, cfg, g.leader)
