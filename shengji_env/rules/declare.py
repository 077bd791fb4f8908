"""SJ-4: the deal, declarations, declaration windows and the end of declaring."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import C_ALLOW_NT, C_DECKS, C_DECL_MODE, C_FIRST_BANKER, C_H, C_K, C_MAX_REDEALS, C_NODECL
from .cardsets import add_to_hand
from .kitty import _kitty_flip, _pick_up
from .phases import A_BJ, A_DECL, A_LJ, A_PASS, DEAL, DECLARE, FINAL, NAME_TRUMP, NEED_DEAL


@njit(cache=True)
def _decl_ok(ndecl, q, x, jS, p, y, j):
    """SJ-4.5: may seat p declare j copies of y against the standing (q, x, jS)? With one deck every
    count is 1, so the first declaration stands (SJ-4.12: no overcall, no reinforcement, no NT)."""
    if ndecl == 0:
        return True
    if q == p:
        return y == x and j > jS
    ty = 0 if y < 52 else (1 if y == 52 else 2)
    tx = 0 if x < 52 else (1 if x == 52 else 2)
    return j > jS or (j == jS and ty > tx)


@njit(cache=True)
def decl_action(y, j):
    if y == 52:
        return A_LJ + j - 1
    if y == 53:
        return A_BJ + j - 1
    return A_DECL + 4 * (y // 13) + j - 1


@njit(inline="always", cache=True)
def _standing_declaration(s):
    """The declaration a new one must beat (SJ-4.5): its seat, card and count; (-1, -1, 0) when none."""
    nd = s.ndecl
    if nd == 0:
        return np.int64(-1), np.int64(-1), np.int64(0)
    return np.int64(s.decl_seat[nd - 1]), np.int64(s.decl_card[nd - 1]), np.int64(s.decl_cnt[nd - 1])


@njit(cache=True, inline="always")
def decl_options(st, b, cfg, p, out):
    """The legal declarations of seat p (SJ-4.3/4.5): returns how many, and sets out[a] = 1 for each
    when out is a mask (length > 0; an empty out only counts)."""
    s = st[b]
    lvl = s.hand_level
    nd = s.ndecl
    q, x, jS = _standing_declaration(s)
    write = out.shape[0] > 0
    n = 0
    for yi in range(6):
        if yi < 4:
            y = yi * 13 + lvl
            jmin = 1
        else:
            if cfg[C_ALLOW_NT] == 0:
                continue
            y = 48 + yi  # 52, 53
            jmin = 2
        cy = s.hand[p, y]
        for j in range(jmin, cy + 1):
            if _decl_ok(nd, q, x, jS, p, y, j):
                if write:
                    out[decl_action(y, j)] = 1
                n += 1
    return n


@njit(cache=True)
def _decl_low(nd, q, x, jS, p, y, jmin):
    """The least count j >= jmin with _decl_ok(nd, q, x, jS, p, y, j) (127: none). Every SJ-4.5 test
    is monotone in j (no standing declaration: any j; a reinforcement, q = p: y = x and j > j_S; an
    overcall: (j, tau(y)) > (j_S, tau(x))), so the legal counts of card y are exactly
    _decl_low .. c(y), the copies the seat holds."""
    if nd == 0:
        return jmin
    if q == p:
        if y != x:
            return 127
        return max(jmin, jS + 1)
    ty = 0 if y < 52 else (1 if y == 52 else 2)
    tx = 0 if x < 52 else (1 if x == 52 else 2)
    return max(jmin, jS if ty > tx else jS + 1)


@njit(cache=True)
def _declare_bits(s, allow_nt):
    """The DECLARE mask of section 4 (PASS and decl_options' declarations, SJ-4.3/4.5) as a bit set
    of a - A_PASS (every such action is 55..83), for the rollout's draw without the 84-entry mask.
    The legal counts of card y are the run _decl_low .. c(y), and DECLARE_y(j) are consecutive ids,
    so each card adds one run of bits."""
    one = np.uint64(1)
    p = s.actor
    lvl = s.hand_level
    nd = s.ndecl
    q, x, jS = _standing_declaration(s)
    bits = one    # PASS
    for yi in range(6):
        if yi < 4:
            y = yi * 13 + lvl
            jmin = 1
        else:
            if allow_nt == 0:
                break
            y = 48 + yi  # 52, 53
            jmin = 2
        cy = s.hand[p, y]
        lo = _decl_low(nd, q, x, jS, p, y, jmin)
        if cy >= lo:
            run = (one << np.uint64(cy - lo + 1)) - one
            bits |= run << np.uint64(decl_action(y, lo) - A_PASS)
    return bits


@njit(cache=True)
def _has_decl(s, allow_nt, p):
    """decl_options(...) > 0 without listing: does seat p of record s have a legal declaration
    (SJ-4.3/4.5)? The legal counts of a card run from _decl_low up to the copies held, so only
    the most copies of each card count, and level cards of all suits are equal (SJ-4.4): one test
    on the most copies of one level card and one per joker, without branches on the holding."""
    hp = s.hand[p]
    lvl = s.hand_level
    m = max(max(hp[lvl], hp[13 + lvl]), max(hp[26 + lvl], hp[39 + lvl]))
    lj = hp[52] if allow_nt != 0 else 0      # jokers declare only NT (SJ-4.3)
    bj = hp[53] if allow_nt != 0 else 0
    nd = s.ndecl
    if nd == 0:
        # SJ-4.5(a): any level card, or a pair of one joker
        return (m >= 1) | (lj >= 2) | (bj >= 2)
    x = s.decl_card[nd - 1]
    jS = s.decl_cnt[nd - 1]
    if s.decl_seat[nd - 1] == p:
        # SJ-4.5(b): only more copies of x
        cx = hp[x] if (x < 52 or allow_nt != 0) else 0
        return cx > jS
    # SJ-4.5(c): (j, tau) > (j_S, tau(x)), tau = 0 level card, 1 LJ, 2 BJ
    tx = 0 if x < 52 else (1 if x == 52 else 2)
    return (m > jS) | ((lj >= 2) & ((lj > jS) | ((lj == jS) & (tx < 1)))) | \
        ((bj >= 2) & ((bj > jS) | ((bj == jS) & (tx < 2))))


@njit(cache=True, inline="always")
def _finish_declaring(st, b, cfg):
    """The declaring is over. A standing declaration fixes trump (SJ-4.7: suit(x) for a level card,
    NT for jokers) and, in a first hand, the banker (SJ-4.8: the final or the first declarer, option
    first_banker). Nobody declared: after_deal mode's NAME_TRUMP by partner(banker) (SJ-4.10), else
    the kitty flip, or in a first hand a redeal until max_redeals (SJ-4.9)."""
    s = st[b]
    nd = s.ndecl
    if nd > 0:
        x = s.decl_card[nd - 1]
        s.trump = 4 if x >= 52 else x // 13
        if s.banker < 0:
            if cfg[C_FIRST_BANKER] == 0:
                s.banker = s.decl_seat[nd - 1]
            else:
                s.banker = s.decl_seat[0]
        _pick_up(st, b, cfg)
        return
    if s.banker >= 0:
        if cfg[C_DECL_MODE] == 1:
            s.phase = NAME_TRUMP
            s.actor = (s.banker + 2) % 4
            return
        _kitty_flip(st, b, cfg)
        _pick_up(st, b, cfg)
        return
    if cfg[C_NODECL] == 0 and s.void_deals < cfg[C_MAX_REDEALS]:
        s.void_deals += 1
        s.phase = NEED_DEAL
        s.need_kind = 1
        s.actor = -1
        return
    s.banker = s.f
    _kitty_flip(st, b, cfg)
    _pick_up(st, b, cfg)


@njit(cache=True, inline="always")
def _deal_to_window(s, H4, allow_nt):
    """SJ-4.6 during the deal: hand out cards o[dealt], o[dealt + 1], ... until one opens a window
    (returns True: phase DECLARE, its receiver acting) or all 4H are dealt (False). Nothing in here
    changes `count`, and a seat's legal set changes only with its level cards and jokers, so a seat
    found without a declaration stays so until it receives one of those: after one check a plain
    card (no level card, no joker) to it needs none even when count != seen[p]."""
    lvl = s.hand_level
    nd = s.ndecl
    # cards that may open a window by themselves: the level cards of the 4 suits and the jokers
    trig = (1 << 52) | (1 << 53) | (1 << lvl) | (1 << (13 + lvl)) | (1 << (26 + lvl)) | (1 << (39 + lvl))
    # seats a plain card may open a window for: count != seen[p], not yet found without options
    watch = 0
    for p in range(4):
        if s.seen[p] != nd:
            watch |= 1 << p
    hand = s.hand
    order = s.order
    i = s.dealt
    p = (s.f + i) % 4
    while i < H4:
        c = order[i]
        add_to_hand(s, p, c, 1)
        i += 1
        if ((trig >> c) & 1) != 0 or ((watch >> p) & 1) != 0:
            if _has_decl(s, allow_nt, p):
                s.dealt = i
                s.phase = DECLARE
                s.actor = p
                s.in_final = 0
                return True
            watch &= ~(1 << p)
        p = (p + 1) & 3
    s.dealt = i
    return False


@njit(cache=True)
def _advance(st, b, cfg):
    """Run every automatic step (dealing, skipped windows, final round, flips) up to a decision."""
    s = st[b]
    H4 = 4 * cfg[C_H]
    allow_nt = cfg[C_ALLOW_NT]
    while True:
        ph = s.phase
        if ph == DEAL:
            if _deal_to_window(s, H4, allow_nt):
                return
            s.phase = FINAL
            s.fr_next = s.f
            s.fr_skips = 0
        elif ph == FINAL:
            if s.fr_skips >= 4:
                _finish_declaring(st, b, cfg)
                continue
            p = s.fr_next
            s.fr_next = (p + 1) % 4
            if _has_decl(s, allow_nt, p):
                s.phase = DECLARE
                s.actor = p
                s.in_final = 1
                return
            s.fr_skips += 1
        else:
            return


@njit(cache=True)
def start_deal(st, b, cfg, order, trump_preset):
    """Begin a deal from `order` (54*D card ids). st[b] must already hold levels, banker (or -1),
    f, void_deals and hand_index. SJ-4.1: the first drawer f is the banker when known; card o[i],
    i < 4H, goes to seat (f + i) mod 4 and the last K cards form the kitty. SJ-3.1: the hand level
    is the banker's team level (both teams share it in a first hand, SJ-4.2). By declaration_mode:
    "draw" deals card by card with windows (SJ-4.6); "after_deal" deals everything, then one round
    from partner(banker) (SJ-4.10); "preset" deals everything with trump_preset as trump and the
    banker known or f (SJ-4.11)."""
    s = st[b]
    D = cfg[C_DECKS]
    H = cfg[C_H]
    K = cfg[C_K]
    for i in range(54 * D):
        s.order[i] = order[i]
    # whole-array stores (memsets), several times cheaper than element loops over the record
    s.hand[:, :] = 0
    s.card_sets[:] = 0
    s.shown[:, :] = 0
    s.played[:, :] = 0
    s.trick_cards[:, :] = 0
    s.sel[:] = 0
    s.kitty_orig[:] = 0
    s.buried[:] = 0
    for j in range(K):
        s.kitty_order[j] = order[4 * H + j]
        s.kitty_orig[order[4 * H + j]] += 1
    s.nsel = 0
    s.dealt = 0
    s.ndecl = 0
    for p in range(4):
        s.seen[p] = 0
    s.in_final = 0
    s.fr_next = 0
    s.fr_skips = 0
    s.nrev = 0
    s.leader = -1
    s.lead_n = 0
    s.ntp = 0
    s.fm = 0
    s.points[0] = 0
    s.points[1] = 0
    s.ntricks = 0
    s.nlog = 0
    s.nft = 0
    s.penalty = 0
    s.hand_over = 0
    s.trump = -1
    s.need_kind = 0
    if s.banker >= 0:
        s.f = s.banker
        s.hand_level = s.levels[s.banker % 2]
    else:
        s.hand_level = s.levels[0]
    mode = cfg[C_DECL_MODE]
    if mode == 2 or mode == 1:
        for i in range(4 * H):
            add_to_hand(s, (s.f + i) % 4, order[i], 1)
        s.dealt = 4 * H
    if mode == 2:
        s.trump = trump_preset
        if s.banker < 0:
            s.banker = s.f
        _pick_up(st, b, cfg)
    elif mode == 1:
        s.phase = FINAL
        s.fr_next = (s.banker + 2) % 4 if s.banker >= 0 else s.f
        s.fr_skips = 0
    else:
        s.phase = DEAL
    _advance(st, b, cfg)
