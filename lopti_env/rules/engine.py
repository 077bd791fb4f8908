"""Entry points of the LOPTI kernels: one decision, a fresh episode, masks, random rollouts, and the
small wrappers env.py and the tests call.

Every entry point takes (st, b, ...) with st the record array of state.py, so one kernel serves B = 1
(the AEC env) and B = 4096 (BatchGame). Inside, a game is the record `g = st[b]`; the transition
functions take (g, cfg, carry, dk, cn): cfg the config int array (config.py), carry the carryover rules,
dk this game's deck orders per round (int8[R, 52], section 7.3), cn its safeguard coins (LO-10.7).
After every transition the actor's legal mask is rebuilt into g.mask / g.legal.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import rng_below
from lopti_env.rules.codes import (C_N, C_SESSION, MAX_RULES, MAX_SEATS, NUM_ACTIONS, NUM_SWITCHES, PLAY, S_LBC,
                                   S_CR, S_LR, S_SS, S_VP, SLOTS, SWAP)
from lopti_env.rules.legality import is_legal
from lopti_env.rules.made_rules import any_rule
from lopti_env.rules.masks import compute_mask
from lopti_env.rules.resolution import play_step
from lopti_env.rules.round_end import finish_round
from lopti_env.rules.rollout import ROUND_TRUNCATED, fast_play, legal_action
from lopti_env.rules.session import clear_batch, enter_creator, enter_setup, reset_proposal, session_step
from lopti_env.rules.setup import deal, enter_swap, reset_round_fields, set_dealer_and_leader, swap_step


@njit(cache=True)
def step_game(g, cfg, carry, dk, cn, act):
    for s in range(MAX_SEATS):
        g.rewards[s] = 0.0
    ph = g.phase
    if ph == PLAY:
        play_step(g, cfg, carry, dk, cn, act)
    elif ph == SWAP:
        swap_step(g, cfg, act)
    else:
        session_step(g, cfg, carry, dk, cn, act)
    compute_mask(g, cfg)


@njit(cache=True)
def step_one(st, b, cfg, carry, decks, coins, act):
    """One decision of game b; returns (actor + 1) | phase << 4 | rounds_done << 8 for the AEC env."""
    g = st[b]
    step_game(g, cfg, carry, decks[b], coins[b], act)
    return (g.actor + 1) | (g.phase << 4) | (g.rounds_done << 8)


@njit(cache=True)
def step_batch(st, cfg, carry, decks, coins, acts):
    for b in range(st.shape[0]):
        if acts[b] >= 0 and st[b].actor >= 0:
            step_game(st[b], cfg, carry, decks[b], coins[b], acts[b])
        else:
            for s in range(MAX_SEATS):
                st[b].rewards[s] = 0.0


@njit(cache=True)
def start_episode(st, b, cfg, carry, decks, coins, rules0, sw0, fdealer):
    """A fresh episode (section 7): round 0 dealt from decks[b, 0]; LO-10.1: a session starts from the
    configured rulebook and switches and runs its setup votes first."""
    g = st[b]
    n = cfg[C_N]
    for s in range(MAX_SEATS):
        g.scores[s] = 0.0
        g.rewards[s] = 0.0
        g.round_rewards[s] = 0.0
    for i in range(MAX_RULES):
        for j in range(MAX_RULES):
            g.rules[i, j] = rules0[i, j]
        g.fired[i] = 0
    for i in range(NUM_SWITCHES):
        g.sw[i] = sw0[i]
    for i in range(4):
        g.pending[i] = 0
        g.draft[i] = -1
    g.fdealer = fdealer
    g.round = 0
    g.rounds_done = 0
    g.prev_winner = -1
    g.skip_deal = 0
    g.coin_idx = 0
    g.rps_setup = 0
    g.rps_kind = 0
    g.n_legal = 0
    for i in range(NUM_ACTIONS):
        g.mask[i] = 0
    clear_batch(g)
    reset_proposal(g)
    set_dealer_and_leader(g, n)
    reset_round_fields(g, n)
    if cfg[C_SESSION] == 1:
        g.cand = 0
        enter_setup(g, cfg, carry, decks[b], coins[b])
    else:
        g.cand = -1
        deal(g, cfg, decks[b, 0])
        enter_swap(g, cfg)
    compute_mask(g, cfg)


@njit(cache=True)
def refresh_mask(st, b, cfg):
    g = st[b]
    g.n_legal = 0
    for i in range(NUM_ACTIONS):
        g.mask[i] = 0
    compute_mask(g, cfg)


@njit(cache=True)
def rollout_game(g, cfg, carry, dk, cn, rng0, b, fast, log):
    """Random legal play to the end of game b. With fast, PLAY phases without an ACTIVE made rule run
    in fast_play (the same game, move for move); the rest goes through step_game. A non-empty log
    receives the actions played (tests)."""
    rng = np.empty(1, np.uint64)  # a private generator: no cache line shared between threads
    rng[0] = rng0[b]
    total = 0
    fast_moves = 0
    pos = 0
    logging = log.shape[0] > 0
    g.mask_off = 1  # the random policy reads only the legal list
    while g.actor >= 0:
        if fast and g.phase == PLAY and not any_rule(g, cfg):
            k, res, pos = fast_play(g, cfg, rng, log, pos)
            total += k
            fast_moves += k
            finish_round(g, cfg, carry, dk, cn, res == ROUND_TRUNCATED)
            compute_mask(g, cfg)
            continue
        a = g.legal[rng_below(rng, 0, g.n_legal)]
        if logging and pos < log.shape[0]:
            log[pos] = a
            pos += 1
        step_game(g, cfg, carry, dk, cn, a)
        total += 1
    g.mask_off = 0
    g.n_legal = 0
    for i in range(NUM_ACTIONS):
        g.mask[i] = 0
    compute_mask(g, cfg)
    return total, fast_moves


@njit(cache=True, nogil=True)
def rollout_random(st, cfg, carry, decks, coins, rng, fast, logs):
    """Play every live game of st to its end with uniformly random legal actions, game b with
    generator rng[b] (cardzoo.cards.seed_generators). nogil: BatchGame runs slices of a batch in
    threads (env.rollout_counts). fast: PLAY phases run in fast_play (off only for tests, which check
    that it plays the same games). logs (B, L) receives each game's actions when L > 0. Returns
    int64[B, 2]: actions played, and how many of them fast_play chose."""
    n_games = st.shape[0]
    counts = np.zeros((n_games, 2), np.int64)
    for b in range(n_games):
        total, fast_moves = rollout_game(st[b], cfg, carry, decks[b], coins[b], rng, b, fast, logs[b])
        counts[b, 0] = total
        counts[b, 1] = fast_moves
    return counts


@njit(cache=True)
def legal_mask_batch(st, out):
    for b in range(st.shape[0]):
        g = st[b]
        if g.actor >= 0:
            for i in range(g.n_legal):
                out[b, g.legal[i]] = 1


@njit(cache=True)
def legal_of(st, b, r, k):
    """LO-4.1 legality for tests (differential checks)."""
    return is_legal(st[b], r, k)


@njit(cache=True)
def fast_legal_actions(st, b, out):
    """The PLAY-phase legal actions of game b as fast_play enumerates them, into out; returns their
    number (tests compare them with play_mask's list)."""
    g = st[b]
    a = g.actor
    slots = 0
    for j in range(SLOTS):
        if g.down[a, j] >= 0:
            slots |= 1 << j
    no_rng = np.zeros(1, np.uint64)
    h = g.hand[a]
    pile_n, chain, t, tc, run = np.int64(g.pile_n), np.int64(g.chain), np.int64(g.top_rank), np.int64(g.top_cnt), \
        np.int64(g.run)
    cr, lr, lbc, ss, vp = np.int64(g.sw[S_CR]), np.int64(g.sw[S_LR]), np.int64(g.sw[S_LBC]), np.int64(g.sw[S_SS]), \
        g.sw[S_VP]
    total, _ = legal_action(no_rng, NUM_ACTIONS, h, slots, pile_n, chain, t, tc, run, cr, lr, lbc, ss, vp)
    for i in range(total):
        _, act = legal_action(no_rng, i, h, slots, pile_n, chain, t, tc, run, cr, lr, lbc, ss, vp)
        out[i] = act
    return total


@njit(cache=True)
def reset_fields_at(st, b, cfg):
    g = st[b]
    reset_round_fields(g, cfg[C_N])
    g.setup_on = 0
    g.cand = -1
    g.rps_kind = 0
    g.rps_setup = 0
    for i in range(4):
        g.draft[i] = -1
    clear_batch(g)
    reset_proposal(g)


@njit(cache=True)
def enter_creator_at(st, b, cfg, carry, decks, coins):
    enter_creator(st[b], cfg, carry, decks[b], coins[b])


@njit(cache=True)
def deal_at(st, b, cfg, deck):
    deal(st[b], cfg, deck)


@njit(cache=True, nogil=True)
def start_episodes_batch(st, cfg, carry, decks, coins, rules0, sw0, fdealers):
    """start_episode for every game b (first dealer fdealers[b]) in one call: BatchGame.reset."""
    for b in range(st.shape[0]):
        start_episode(st, b, cfg, carry, decks, coins, rules0, sw0, fdealers[b])
