"""The bazi result and the match (CP-5.3, CP-6.10, CP-9, CP-11.8 .. CP-11.11, CP-13.2): what a
decided bazi is worth, who deals next, the streak, the score and the rewards."""
from __future__ import annotations

from numba import njit

from courtpiece_env.config import C_KOTS, C_MATCH, C_SPLIT_WIN, C_STREAK, C_TARGET, C_VARIANT, C_WINLOSS, DOUBLE_SAR, MENDI_COAT
from courtpiece_env.rules.hidden import show_hidden
from courtpiece_env.state import (
    NEED_DEAL, OVER, K_GONE_KOT, K_KOT, K_MENDI, K_MENDI_COAT, K_OPP_WIN, K_SPLIT, K_TRUMP_WIN, K_WHITEWASH,
)


@njit(inline="always", cache=True, error_model="numpy")
def mendi_result(s, cfg, w):
    """CP-11.9: the winner's row, the highest that applies (whitewash 3, all four tens 2, three tens 1,
    a 2-2 split won on tricks `split_win_points`), and CP-11.10: the dealer's team won -> d+1; lost
    having won a trick -> d again; whitewashed -> d+2. Returns (kind, points, next dealer)."""
    d = s.dealer
    if s.tricks_won[w] == 13:
        kind = K_WHITEWASH
        pts = 3
    elif s.tens[w] == 4:
        kind = K_MENDI_COAT
        pts = 2
    elif s.tens[w] == 3:
        kind = K_MENDI
        pts = 1
    else:
        kind = K_SPLIT
        pts = cfg[C_SPLIT_WIN]
    if w == (d & 1):
        nd = d + 1
    elif s.tricks_won[d & 1] > 0:
        nd = d
    else:
        nd = d + 2
    return kind, pts, nd


@njit(inline="always", cache=True, error_model="numpy")
def is_kot(s, cfg, w):
    """CP-5.3: the winners reached 7 while the others had no trick (CP-5.4: any 7-k with k >= 1 is an
    ordinary win); Double Sar CP-6.10: one team took all 13."""
    if cfg[C_VARIANT] == DOUBLE_SAR:
        return s.taken[w] == 13
    return s.tricks_won[1 - w] == 0


@njit(inline="always", cache=True, error_model="numpy")
def court_piece_result(s, cfg, w):
    """CP-9.1 (points / kots columns) and CP-9.4 (next dealer) for the winning team w; the trump team
    is the first chooser's, (d+1) & 1 (CP-2.2). Returns (kind, points, kots, next dealer)."""
    d = s.dealer
    kot = is_kot(s, cfg, w)
    if w == ((d + 1) & 1):
        if kot:
            return K_KOT, 3, 1, d + 2
        return K_TRUMP_WIN, 1, 0, d
    if kot:
        return K_GONE_KOT, 4, 3, d + 1
    return K_OPP_WIN, 2, 0, d + 1


@njit(inline="always", cache=True, error_model="numpy")
def streak_bonus(s, cfg, w, kind):
    """CP-9.2: a team's 7th non-kot win in a row earns 1 kot or 2 points more."""
    if cfg[C_STREAK] and kind != K_KOT and kind != K_GONE_KOT:
        cnt = s.streak_count + 1 if s.streak_team == w else 1
        if cnt >= 7:
            return 1 if cfg[C_KOTS] else 2
    return 0


@njit(inline="always", cache=True, error_model="numpy")
def gain_of(s, cfg):
    """CP-9.1: a match counts one column (kots or points), plus the streak bonus."""
    return (s.res_kots if cfg[C_KOTS] else s.res_points) + s.res_bonus


@njit(cache=True, error_model="numpy")
def decide(s, cfg, w):
    """Fix the bazi result for team w the moment it is decided (CP-5.2, CP-6.9, CP-11.8): it never
    changes after (CP-13.2), and a card still face down is shown then (CP-7.4(d))."""
    s.decided = 1
    s.res_winner = w
    s.res_at = s.ntrick
    kots = 0
    if cfg[C_VARIANT] == MENDI_COAT:
        kind, pts, nd = mendi_result(s, cfg, w)
    else:
        kind, pts, kots, nd = court_piece_result(s, cfg, w)
    s.res_kind = kind
    s.res_points = pts
    s.res_kots = kots
    s.res_bonus = streak_bonus(s, cfg, w, kind)
    s.res_next_dealer = nd & 3
    s.res_match_winner = -1
    if cfg[C_MATCH] and s.score[w] + gain_of(s, cfg) >= cfg[C_TARGET]:   # CP-9.3, CP-11.11
        s.res_match_winner = w
    if s.hidden_card >= 0:
        show_hidden(s, s.ntrick + 1, 0)


@njit(inline="always", cache=True, error_model="numpy")
def update_streak(s, cfg, w, kind):
    """CP-9.2: a kot or gone kot breaks every streak; a bonus starts the count again."""
    if kind == K_KOT or kind == K_GONE_KOT:
        s.streak_team = -1
        s.streak_count = 0
        return
    if s.streak_team == w:
        s.streak_count += 1
    else:
        s.streak_team = w
        s.streak_count = 1
    if s.streak_count >= 7:
        s.streak_team = -1
        s.streak_count = 0


@njit(cache=True, error_model="numpy")
def finish(s, cfg):
    """Pay the decided bazi: score and streak; rewards (spec section 5: the gain to the winners and its
    negation to the others, or +-1 at the end of the episode under win_loss); end the episode, or ask
    for the next deal of the match (CP-9.3)."""
    w = s.res_winner
    gain = gain_of(s, cfg)
    if cfg[C_STREAK]:
        update_streak(s, cfg, w, s.res_kind)
    s.score[w] += gain
    end = cfg[C_MATCH] == 0 or s.res_match_winner >= 0
    for seat in range(4):
        if cfg[C_WINLOSS]:
            r = (1.0 if (seat & 1) == w else -1.0) if end else 0.0
        else:
            r = float(gain) if (seat & 1) == w else float(-gain)
        s.rewards[seat] = r
    s.finished = 1
    s.actor = -1
    s.phase = OVER if end else NEED_DEAL
