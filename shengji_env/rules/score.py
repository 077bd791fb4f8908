"""SJ-10 and SJ-11: the hand's points, kitty bonus, level result, advancing and the match end."""
from __future__ import annotations

from numba import njit

from ..config import C_DECKS, C_EPISODE, C_K, C_KMULT, C_MAX_HANDS, C_MUST_DEFEND, C_REWARD
from .order import card_points
from .phases import NEED_DEAL, OVER


@njit(cache=True, inline="always")
def kitty_mult(z, single, mode):
    """SJ-10.2 multiplier m: z = largest component size of the last trick's F, single = F is one
    single card; mode 0 flat, 1 times_size, 2 power_size, 3 single_or_multi."""
    if mode == 0:
        return 2
    if mode == 1:
        return 2 * z
    if mode == 2:
        return 1 << z
    return 2 if single else 4


@njit(cache=True, inline="always")
def table_result(p, D):
    """SJ-11.1: (outcome 0 hold / 1 takeover, d) for opponents' points p with D decks."""
    S = 20 * D
    T = 40 * D
    if p <= 0:
        return 0, 3
    if p < S:
        return 0, 2
    if p < T:
        return 0, 1
    return 1, (p - T) // S


@njit(cache=True, inline="always")
def advance_team(level, d, declared, md_mask):
    """SJ-11.3: a team at `level` gains d levels one step at a time; declared = it declared this
    hand (at `level`). Returns (new level, steps taken, passed A)."""
    r = level
    steps = 0
    passed = False
    for i in range(d):
        if (md_mask >> r) & 1 and not (declared and i == 0):
            break
        if r == 12:
            passed = True
            steps += 1
            break
        r += 1
        steps += 1
    return r, steps, passed


@njit(cache=True)
def _finish_hand(st, b, cfg):
    """SJ-10, SJ-11: score the hand, move levels, pay rewards, then end or start the next hand."""
    s = st[b]
    D = cfg[C_DECKS]
    K = cfg[C_K]
    banker = s.banker
    dteam = banker % 2
    oteam = 1 - dteam
    last = s.ntricks - 1
    lastw = s.tr_winner[last]
    kpts = 0
    for c in range(54):
        kpts += card_points(c) * s.buried[c]
    mult = kitty_mult(s.tr_z[last], s.tr_single[last], cfg[C_KMULT])
    bonus = kpts * mult if lastw % 2 == oteam else 0
    # SJ-10.1: only the opponents' points decide (SJ-2.2): their tricks, the kitty bonus, penalties
    p = s.points[oteam] + bonus + s.penalty
    outcome, d = table_result(p, D)
    gainer = dteam if outcome == 0 else oteam
    r, steps, passed = advance_team(s.levels[gainer], d, gainer == dteam, cfg[C_MUST_DEFEND])
    s.r_valid = 1
    s.r_hand_index = s.hand_index
    s.r_banker = banker
    s.r_level = s.hand_level
    s.r_trump = s.trump
    s.r_tp[0] = s.points[0]
    s.r_tp[1] = s.points[1]
    for c in range(54):
        s.r_kitty[c] = s.buried[c]
    s.r_kpts = kpts
    s.r_last = lastw
    s.r_mult = mult
    s.r_bonus = bonus
    s.r_pen = s.penalty
    s.r_p = p
    s.r_outcome = outcome
    s.r_table = d
    g = -d if outcome == 0 else 1 + d
    s.r_score = g
    s.r_gain[0] = 0
    s.r_gain[1] = 0
    s.r_gain[gainer] = steps
    s.levels[gainer] = r
    s.r_newlev[0] = s.levels[0]
    s.r_newlev[1] = s.levels[1]
    s.r_next_banker = (banker + 2) % 4 if outcome == 0 else (banker + 1) % 4
    s.r_winner = gainer if passed else -1
    if passed:
        s.passed[gainer] = 1
    rm = cfg[C_REWARD]
    for seat in range(4):
        if rm == 0:
            v = g / 3.0 if seat % 2 == oteam else -g / 3.0
        elif rm == 1:
            v = (s.r_gain[seat % 2] - s.r_gain[1 - seat % 2]) / 3.0
        else:
            v = 0.0
            if passed:
                v = 1.0 if seat % 2 == gainer else -1.0
        s.rewards[seat] += v
    s.hand_over = 1      # SJ-10.3: the buried kitty is shown to everybody
    # the episode is one hand, or the match ends when a team passes A (SJ-11.4), or max_hands
    if cfg[C_EPISODE] == 0 or passed or s.hand_index + 1 >= cfg[C_MAX_HANDS]:
        s.phase = OVER
        s.actor = -1
        if cfg[C_EPISODE] == 0 or passed:
            s.term = 1
        else:
            s.trunc = 1
        return
    # next hand of a match (SJ-11.2); its order comes from the Python generator
    s.hand_index += 1
    s.banker = s.r_next_banker
    s.f = s.banker
    s.phase = NEED_DEAL
    s.need_kind = 2
    s.actor = -1
