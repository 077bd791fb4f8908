"""Entry points over the state array `st` (state.py): one kernel serves B = 1 (the AEC env, game b)
and B = 4096 (BatchGame). Each applies the rules of actions.py and writes what the caller reads."""
from __future__ import annotations

import numpy as np
from numba import njit

from courtpiece_env.rules.actions import apply_action, apply_timeout_card, legal_bits, start_bazi, write_mask
from courtpiece_env.rules.cards import ONE
from courtpiece_env.rules.deal import seeded_deals
from courtpiece_env.state import NEED_DEAL


@njit(cache=True, error_model="numpy")
def step_one(st, b, cfg, a, neworder, mask_out):
    """One AEC step of game b: apply a, then write the next actor's mask; returns
    phase * 8 + actor + 1."""
    s = st[b]
    for i in range(4):
        s.rewards[i] = 0.0
    apply_action(s, cfg, a, neworder)
    if s.actor >= 0:
        cards, ex = legal_bits(s, cfg)
        write_mask(cards, ex, mask_out)
    return s.phase * 8 + s.actor + 1


@njit(cache=True, error_model="numpy")
def timeout_card_one(st, b, cfg, card, mask_out):
    s = st[b]
    for i in range(4):
        s.rewards[i] = 0.0
    apply_timeout_card(s, cfg, card)
    if s.actor >= 0:
        cards, ex = legal_bits(s, cfg)
        write_mask(cards, ex, mask_out)
    return s.phase * 8 + s.actor + 1


@njit(cache=True, error_model="numpy")
def mask_one(st, b, cfg, mask_out):
    s = st[b]
    for i in range(mask_out.shape[0]):
        mask_out[i] = 0
    if s.actor >= 0:
        cards, ex = legal_bits(s, cfg)
        write_mask(cards, ex, mask_out)


@njit(cache=True, error_model="numpy")
def legal_mask_batch(st, cfg, out):
    for b in range(st.shape[0]):
        s = st[b]
        if s.actor < 0:
            for i in range(out.shape[1]):
                out[b, i] = 0
            continue
        cards, ex = legal_bits(s, cfg)
        write_mask(cards, ex, out[b])


@njit(cache=True, error_model="numpy")
def step_batch(st, cfg, actions, neworders):
    """Step every game b with actions[b] >= 0 (already checked legal); rewards are what this step
    gave (0 for a game that is done)."""
    for b in range(st.shape[0]):
        s = st[b]
        for i in range(4):
            s.rewards[i] = 0.0
        a = actions[b]
        if a >= 0:
            apply_action(s, cfg, a, neworders[b])


@njit(cache=True, error_model="numpy")
def current_player_batch(st, out):
    for b in range(st.shape[0]):
        out[b] = st[b].actor


@njit(cache=True, error_model="numpy")
def start_bazi_at(st, b, cfg, order, dealer):
    start_bazi(st[b], cfg, order, dealer)


@njit(cache=True, nogil=True, error_model="numpy")
def start_bazi_batch(st, cfg, orders, dealers):
    for b in range(st.shape[0]):
        start_bazi(st[b], cfg, orders[b], dealers[b])


@njit(cache=True, error_model="numpy")
def seeded_begin_one(st, b, cfg, words, nwords, states, orders, dealers):
    """A fresh episode (no options) of game b from default_rng(seed), the seed as entropy words[0]:
    section 7's draw and deal (deal.seeded_deals, the generator's state left in states[0]), then
    the first bazi. Returns False, nothing started, when the draw ran out of cards."""
    if seeded_deals(words, nwords, states, orders, dealers) >= 0:
        return False
    begin_one(st, b, cfg, orders[0], dealers[0], 0, 0, -1, 0, 0)
    return True


@njit(cache=True, error_model="numpy")
def begin_one(st, b, cfg, order, dealer, score0, score1, streak_team, streak_count, bazi_index):
    """First bazi of an episode for game b: match state, then the deal."""
    s = st[b]
    s.score[0] = score0
    s.score[1] = score1
    s.streak_team = streak_team
    s.streak_count = streak_count
    s.bazi_index = bazi_index
    for i in range(4):
        s.rewards[i] = 0.0
    start_bazi(s, cfg, order, dealer)


@njit(cache=True, error_model="numpy")
def result_fields(st, b, out):
    """The 9.4 result fields and the rewards of game b as ints (rewards: exact small integers)."""
    s = st[b]
    out[0] = s.bazi_index
    out[1] = s.res_winner
    out[2] = s.res_kind
    out[3] = s.res_points
    out[4] = s.res_kots
    out[5] = s.res_bonus
    out[6] = s.res_next_dealer
    out[7] = s.res_at
    out[8] = s.res_match_winner
    for i in range(4):
        out[9 + i] = np.int64(s.rewards[i])


@njit(cache=True, error_model="numpy")
def inject_batch(st, cfg, orders, dealers):
    """Game b: a fresh bazi episode dealt from orders[b] with dealer dealers[b] (the state a
    deal-injected reset leaves: score 0, no streak, bazi 0, no rewards)."""
    order = np.empty((4, 13), np.int8)
    for b in range(st.shape[0]):
        s = st[b]
        s.score[0] = 0
        s.score[1] = 0
        s.streak_team = -1
        s.streak_count = 0
        s.bazi_index = 0
        for i in range(4):
            s.rewards[i] = 0.0
        for seat in range(4):
            for i in range(13):
                order[seat, i] = orders[b, seat, i]
        start_bazi(s, cfg, order, dealers[b])


@njit(cache=True, error_model="numpy")
def replay_batch(st, cfg, actions):
    """Apply actions[0], actions[1], ... to every live game in turn (one action for all games per
    step; games that are done ignore the rest). Returns (k, b, why): (-1, -1, 0) when all went well,
    else the first action k that failed in game b, why = 1 illegal, 2 change cards (needs the
    generator: use step()), 3 the bazi ended into a match's next deal (use step()). The state is
    then partly stepped, so callers run this on a copy."""
    n = st.shape[0]
    dummy = np.zeros((4, 13), np.int8)
    for k in range(actions.shape[0]):
        a = actions[k]
        for b in range(n):
            s = st[b]
            for i in range(4):
                s.rewards[i] = 0.0
            if s.actor < 0:
                continue
            if a == 59:
                return k, b, 2
            if a < 0 or a >= 60:
                return k, b, 1
            cards, ex = legal_bits(s, cfg)
            if a < 52:
                ok = np.int64((cards >> np.uint64(a)) & ONE)
            else:
                ok = (ex >> (a - 52)) & 1
            if ok == 0:
                return k, b, 1
            apply_action(s, cfg, a, dummy)
            if s.phase == NEED_DEAL:
                return k, b, 3
    return -1, -1, 0
