"""LO-9 going out, the winner, places and the round's end; LO-3.5 the end of a turn."""
from __future__ import annotations

from numba import njit

from lopti_env.rules.codes import C_MAXMOVES, C_N, C_PTE, C_REWARD, C_ROUNDS, C_SESSION, DONE
from lopti_env.rules.session import begin_round
from lopti_env.rules.table import n_active, next_active
from lopti_env.rules.turns import start_turn


@njit(cache=True)
def go_out(g, a):
    """LO-9.1 (the caller decides when): a leaves the round and takes the next place (LO-9.4); the
    first player out is the round's winner (LO-9.3)."""
    g.active[a] = 0
    g.place[a] = g.n_out
    g.out_order[g.n_out] = a
    g.n_out += 1
    if g.winner < 0:
        g.winner = a


@njit(cache=True)
def place_value(cfg, p):
    """Section 5: the reward of place p."""
    n = cfg[C_N]
    if cfg[C_REWARD] == 0:
        return (n - 1 - 2 * p) / (n - 1)
    return 1.0 if p == 0 else -1.0 / (n - 1)


@njit(cache=True)
def finish_round(g, cfg, carry, dk, cn, trunc):
    """LO-9.4: with play_to_end the player left last takes the last place; LO-9.6: the players still
    in share the remaining places (each gets their mean reward); then the next round or the end."""
    n = cfg[C_N]
    if not trunc and cfg[C_PTE] == 1:
        for s in range(n):
            if g.active[s]:
                go_out(g, s)
    shared = 0
    for s in range(n):
        if g.active[s]:
            shared += 1
    mean = 0.0
    if shared > 0:
        for p in range(g.n_out, n):
            mean += place_value(cfg, p)
        mean /= shared
    for s in range(n):
        if g.active[s]:
            v = mean
        else:
            v = place_value(cfg, g.place[s])
        g.round_rewards[s] = v
        g.rewards[s] += v
        g.scores[s] += v
    g.truncated = 1 if trunc else 0
    g.round_over = 1
    g.rounds_done += 1
    if cfg[C_SESSION] == 1 and g.round + 1 < cfg[C_ROUNDS]:
        g.prev_winner = g.winner
        g.round += 1
        begin_round(g, cfg, carry, dk, cn)
    else:
        g.phase = DONE
        g.substep = 0
        g.actor = -1


@njit(cache=True)
def round_ends(g, cfg, n):
    """LO-9.4: the round ends when one active player is left (play_to_end) or the winner is out."""
    if cfg[C_PTE] == 1:
        return n_active(g, n) <= 1
    return g.n_out >= 1


@njit(cache=True)
def end_turn(g, cfg, carry, dk, cn, a):
    """LO-3.5: the round-end test (LO-9.4), truncation at max_moves (LO-9.5), else the next active
    player clockwise starts a turn."""
    n = cfg[C_N]
    if round_ends(g, cfg, n):
        finish_round(g, cfg, carry, dk, cn, False)
        return
    if g.moves >= cfg[C_MAXMOVES]:
        finish_round(g, cfg, carry, dk, cn, True)
        return
    start_turn(g, cfg, next_active(g, n, a))
