"""LOPTI kernels (numba): legality (LO-4), the move pipeline (LO-5..LO-9), made-rule hooks (LO-11),
the session layer (LO-10, LO-12) and random rollouts.

Every entry point takes (st, b, ...) with st the record array of state.py, so one kernel serves B = 1
(the AEC env) and B = 4096 (BatchGame). Inside, a game is the record `g = st[b]`; the transition
helpers take (g, cfg, carry, dk, cn): cfg the config int array (config.py), carry the carryover rules,
dk this game's deck orders per round (int8[R, 52], section 7.3), cn its safeguard coins (LO-10.7).
After every transition the actor's legal mask is rebuilt into g.mask / g.legal.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit, popcount, rng_below
from lopti_env.config import TPL

# phase codes (section 4.4)
SWAP, PLAY, SETUP_VOTE, RULE_MAKING, CREATOR, PROPOSAL, BALLOT, VOLUNTEER, BRACKET, MATCH, DONE = range(11)
# cfg layout (config.py)
C_N, C_FD, C_SESSION, C_ROUNDS, C_MAXRULES, C_PTE, C_REWARD, C_MAXMOVES, C_EARLY, C_RPSMAX, C_BRMAX, C_NCARRY = \
    range(12)
# switch ids (LO-12)
S_CR, S_LR, S_LBC, S_SS, S_DB, S_DM, S_VP, S_CEM, S_SWAPS = range(9)
# events / timings (LO-11.2)
EV_PLAY, EV_PICKUP, EV_CLEAR, EV_FACEUP, EV_FLIPFAIL, EV_OUT, EV_ROUNDSTART, EV_TURNSTART = 1, 2, 3, 4, 5, 6, 7, 8
TM_BEFORE, TM_AFTER, TM_CHECK = 0, 1, 2

SW_LO = np.array([2, 2, 0, 3, 1, 0, 0, 0, 0], np.int32)
SW_HI = np.array([12, 12, 1, 4, 5, 1, 1, 1, 3], np.int32)

U0 = np.uint64(0)
U1 = np.uint64(1)
RANK_MASK = np.array([sum(1 << (r + 13 * s) for s in range(4)) for r in range(13)], np.uint64)
ACT_PICKUP = 52
ACT_KEEP, ACT_PASS, ACT_YES, ACT_NO = 95, 96, 97, 98
ACT_ROCK = 99
ACT_PROPOSE = 102
ACT_NOW = 106
ACT_SELECT = 108


@njit(inline="always", cache=True)
def cbit(c):
    return U1 << np.uint64(c)


@njit(inline="always", cache=True)
def rcount(mask, r):
    return np.int64(popcount(mask & RANK_MASK[r]))


@njit(inline="always", cache=True)
def nbits(mask):
    return np.int64(popcount(mask))


@njit(inline="always", cache=True)
def has_up(g, s):
    return g.up[s, 0] >= 0 or g.up[s, 1] >= 0 or g.up[s, 2] >= 0


@njit(inline="always", cache=True)
def has_down(g, s):
    return g.down[s, 0] >= 0 or g.down[s, 1] >= 0 or g.down[s, 2] >= 0


@njit(inline="always", cache=True)
def next_active(g, n, s):
    for i in range(1, n):
        t = s + i  # (s + i) % n without a division (0 <= s < n)
        if t >= n:
            t -= n
        if g.active[t]:
            return t
    return -1


@njit(cache=True)
def prev_active(g, n, s):
    for i in range(1, n):
        t = (s - i + n) % n
        if g.active[t]:
            return t
    return -1


@njit(inline="always", cache=True)
def n_active(g, n):
    k = 0
    for s in range(n):
        if g.active[s]:
            k += 1
    return k


# ---------------------------------------------------------------------------------------------
# LO-4 legality
# ---------------------------------------------------------------------------------------------


@njit(inline="always", cache=True)
def is_legal(g, r, k):
    """LO-4.1: is PLAY(r, k) (or a flipped card r with k = 1) legal on the current table?"""
    if g.pile_n == 0:
        return True  # line 2 (an obligation needs a non-empty pile)
    if g.chain > 0:
        return r == 1  # line 1
    if r == 1:
        return True  # line 3
    cr = g.sw[S_CR]
    lr = g.sw[S_LR]
    t = g.top_rank
    if t == lr:  # line 4
        if r == cr:
            return g.sw[S_LBC] == 0
        return r <= lr
    if r == cr or r == lr:  # line 5
        return True
    if r == 0:  # line 6
        if t == 0:
            return k > g.top_cnt or g.run + k >= g.sw[S_SS]
        return True
    if r > t:  # line 7
        return True
    if r == t:  # line 8
        return k > g.top_cnt or g.run + k >= g.sw[S_SS]
    return False


# ---------------------------------------------------------------------------------------------
# card movement
# ---------------------------------------------------------------------------------------------


@njit(inline="always", cache=True)
def push_card(g, c):
    g.pile[g.pile_n] = c
    g.pile_n += 1


@njit(inline="always", cache=True)
def begin_play(g, seat, r, k):
    """Record a play of k cards of rank r by seat on the pile (cards pushed by the caller after)."""
    i = g.n_plays
    g.play_start[i] = g.pile_n
    g.play_rank[i] = r
    g.play_cnt[i] = k
    g.play_seat[i] = seat
    g.n_plays = i + 1
    if g.pile_n > 0 and g.top_rank == r:
        g.run += k
    else:
        g.run = k
    g.top_rank = r
    g.top_cnt = k


@njit(cache=True)
def take_rank(g, s, r, k, to_pile):
    """Take k cards of rank r from seat s's hand, known first then ascending suit (section 4.3).
    With to_pile they are pushed on the pile in that order. Returns the mask taken."""
    m = g.hand[s] & RANK_MASK[r]
    kn = m & g.known[s]
    taken = U0
    cnt = 0
    for p in range(2):
        src = kn if p == 0 else (m & ~kn)
        while src != U0 and cnt < k:
            c = np.int64(lowest_bit(src))
            src &= src - U1
            taken |= cbit(c)
            if to_pile:
                push_card(g, c)
            cnt += 1
    g.hand[s] &= ~taken
    g.known[s] &= ~taken
    return taken


@njit(inline="always", cache=True)
def draw_top(g):
    c = g.draw[g.draw_pos]
    g.draw_pos += 1
    g.draw_n -= 1
    return np.int64(c)


@njit(cache=True)
def draw_append_bottom(g, c):
    if g.draw_pos + g.draw_n >= 52:
        for i in range(g.draw_n):
            g.draw[i] = g.draw[g.draw_pos + i]
        g.draw_pos = 0
    g.draw[g.draw_pos + g.draw_n] = c
    g.draw_n += 1


@njit(cache=True)
def draw_cards(g, s, n):
    for _ in range(n):
        if g.draw_n <= 0:
            return
        g.hand[s] |= cbit(draw_top(g))


@njit(inline="always", cache=True)
def empty_table(g):
    g.pile_n = 0
    g.n_plays = 0
    g.top_rank = -1
    g.top_cnt = 0
    g.run = 0
    g.chain = 0


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
def take_pile(g, a):
    """LO-3.4: the pile goes into a's hand, public (known)."""
    for i in range(g.pile_n):
        c = cbit(g.pile[i])
        g.hand[a] |= c
        g.known[a] |= c
    empty_table(g)


@njit(cache=True)
def go_out(g, a):
    g.active[a] = 0
    g.place[a] = g.n_out
    g.out_order[g.n_out] = a
    g.n_out += 1
    if g.winner < 0:
        g.winner = a


# ---------------------------------------------------------------------------------------------
# LO-11 made-rule hooks
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def role_targets(g, n, role, a, out):
    """LO-11.4 roles -> active target seats in role order; returns the count."""
    k = 0
    if role == 0:
        if g.active[a]:
            out[0] = a
            k = 1
    elif role == 1:
        t = next_active(g, n, a)
        if t >= 0:
            out[0] = t
            k = 1
    elif role == 2:
        t = prev_active(g, n, a)
        if t >= 0:
            out[0] = t
            k = 1
    elif role == 3 or role == 4:
        start = 1 if role == 3 else 0
        for i in range(start, n):
            t = (a + i) % n
            if g.active[t]:
                out[k] = t
                k += 1
    elif role == 5:
        if g.active[g.dealer]:
            out[0] = g.dealer
            k = 1
    elif role == 6 or role == 7:
        best = -1
        bv = 0
        for i in range(n):
            t = (a + i) % n
            if g.active[t]:
                v = nbits(g.hand[t])
                if best < 0 or (role == 6 and v > bv) or (role == 7 and v < bv):
                    best = t
                    bv = v
        if best >= 0:
            out[0] = best
            k = 1
    return k


@njit(cache=True)
def effect_gift(g, n, role, amount, a):
    """LO-11.4 GIFT: a gives its m lowest hand cards (known first within a rank) to NEXT/PREV."""
    if not g.active[a]:
        return
    t = next_active(g, n, a) if role == 1 else prev_active(g, n, a)
    if t < 0:
        return
    m = min(amount, nbits(g.hand[a]) - 1)
    if m <= 0:
        return
    for r in range(13):
        if m <= 0:
            break
        c = rcount(g.hand[a], r)
        if c == 0:
            continue
        kk = min(c, m)
        taken = take_rank(g, a, r, kk, False)
        g.hand[t] |= taken
        g.known[t] |= taken
        m -= kk


@njit(cache=True)
def effect_return(g, n, role, amount, a):
    """LO-11.4 RETURN: the first `amount` cleared cards (in the order placed) leave the gone set."""
    t = -1
    if role == 1:
        t = next_active(g, n, a)
    elif role == 2:
        t = prev_active(g, n, a)
    if role != 8 and t < 0:
        return
    left = amount
    for i in range(g.lc_n):
        if left <= 0:
            break
        c = np.int64(g.lc_cards[i])
        b = cbit(c)
        if g.gone & b == U0:
            continue
        g.gone &= ~b
        if role == 8:
            draw_append_bottom(g, c)
        else:
            g.hand[t] |= b
            g.known[t] |= b
        left -= 1


@njit(cache=True)
def target_effect(g, n, role, amount, a, fx):
    """Effects 1 (draw) and 2 (reveal) on the role's target seats (the array is allocated here, so
    hook scans that fire nothing allocate nothing)."""
    tg = np.empty(5, np.int64)
    k = role_targets(g, n, role, a, tg)
    for i in range(k):
        if fx == 1:
            draw_cards(g, tg[i], amount)
        else:
            g.known[tg[i]] = g.hand[tg[i]]


@njit(cache=True)
def run_hooks(g, cfg, ev, tm, a, rank, count, psize, cause, prevtop, firstout):
    """LO-11.5: scan ACTIVE rules in slot order; fire those that match. At CHECK, return 1 when a
    made clear-rule fires (the caller clears, cause 4) and stop the scan."""
    n = cfg[C_N]
    for s in range(cfg[C_MAXRULES]):
        if g.rules[s, 5] != 1 or g.fired[s] != 0:
            continue
        t = g.rules[s, 0]
        if TPL[t, 0] != ev or TPL[t, 1] != tm:
            continue
        x = g.rules[s, 1]
        role = g.rules[s, 2]
        amount = g.rules[s, 3]
        cond = TPL[t, 3]
        ok = True
        if cond == 1:
            ok = rank == x
        elif cond == 2:
            ok = count >= x
        elif cond == 3 or cond == 6:
            ok = psize >= x
        elif cond == 4:
            ok = x == 0 or cause == x
        elif cond == 5:
            ok = (x == 13 or rank == x) and g.run >= amount
        elif cond == 7:
            ok = prevtop >= 0 and rank == prevtop + 1 and count >= amount
        elif cond == 8:
            ok = x == 1 or firstout != 0
        elif cond == 9:
            ok = nbits(g.hand[a]) >= x
        if not ok:
            continue
        g.fired[s] = 1
        fx = TPL[t, 2]
        if fx == 5:
            return 1
        if fx == 1 or fx == 2:
            target_effect(g, n, role, amount, a, fx)
        elif fx == 3:
            effect_gift(g, n, role, amount, a)
        elif fx == 4:
            effect_return(g, n, role, amount, a)
    return 0


@njit(inline="always", cache=True)
def any_rule(g, cfg):
    for s in range(cfg[C_MAXRULES]):
        if g.rules[s, 5] == 1:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# rule validity (LO-11.7) and the catalogue search of rule making / AMEND
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def rule_valid(rules, m, t, x, gg, nn, exclude):
    if t < 1 or t > 16:
        return False
    uses = TPL[t, 9]
    if uses & 1:
        if x < TPL[t, 4] or x > TPL[t, 5]:
            return False
    elif x != 0:
        return False
    if uses & 2:
        if gg < 0 or gg > 8 or ((TPL[t, 6] >> gg) & 1) == 0:
            return False
    elif gg != 0:
        return False
    if uses & 4:
        if nn < TPL[t, 7] or nn > TPL[t, 8]:
            return False
    elif nn != 0:
        return False
    if t == 9 and (x == 1 or (x == 13 and nn < 3)):
        return False
    for s in range(m):
        if s == exclude:
            continue
        st_ = rules[s, 5]
        if (st_ == 1 or st_ == 2) and rules[s, 0] == t and rules[s, 1] == x and rules[s, 2] == gg \
                and rules[s, 3] == nn:
            return False
    return True


@njit(cache=True)
def completion_exists(rules, m, t, x, gg, nn):
    """Is there a valid rule of template t extending the fixed fields (-1 = free)?"""
    uses = TPL[t, 9]
    xlo, xhi = 0, 0
    if uses & 1:
        xlo, xhi = TPL[t, 4], TPL[t, 5]
    if x >= 0:
        xlo, xhi = x, x
    glo, ghi = 0, 0
    if uses & 2:
        glo, ghi = 0, 8
    if gg >= 0:
        glo, ghi = gg, gg
    nlo, nhi = 0, 0
    if uses & 4:
        nlo, nhi = TPL[t, 7], TPL[t, 8]
    if nn >= 0:
        nlo, nhi = nn, nn
    for xv in range(xlo, xhi + 1):
        for gv in range(glo, ghi + 1):
            for nv in range(nlo, nhi + 1):
                if rule_valid(rules, m, t, xv, gv, nv, -1):
                    return True
    return False


@njit(cache=True)
def amend_value_ok(rules, m, slot, field, v):
    t = rules[slot, 0]
    if v == rules[slot, field]:
        return False
    x, gg, nn = rules[slot, 1], rules[slot, 2], rules[slot, 3]
    if field == 1:
        x = v
    elif field == 2:
        gg = v
    else:
        nn = v
    return rule_valid(rules, m, t, x, gg, nn, slot)


@njit(cache=True)
def field_amendable(rules, m, slot, field):
    t = rules[slot, 0]
    if (TPL[t, 9] >> (field - 1)) & 1 == 0:
        return False
    for v in range(0, 21):
        if amend_value_ok(rules, m, slot, field, v):
            return True
    return False


@njit(cache=True)
def slot_amendable(rules, m, slot):
    if rules[slot, 5] != 1:
        return False
    for f in range(1, 4):
        if field_amendable(rules, m, slot, f):
            return True
    return False


@njit(cache=True)
def base_value_ok(sw, sid, v):
    if v < SW_LO[sid] or v > SW_HI[sid] or v == sw[sid]:
        return False
    if sid == S_CR and v == sw[S_LR]:
        return False
    if sid == S_LR and v == sw[S_CR]:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# legal masks (section 4.2)
# ---------------------------------------------------------------------------------------------


@njit(inline="always", cache=True)
def allow(g, a):
    if g.mask_off == 0:
        g.mask[a] = 1
    g.legal[g.n_legal] = a
    g.n_legal += 1


@njit(inline="always", cache=True)
def clear_mask(g):
    if g.mask_off == 0:
        for i in range(g.n_legal):
            g.mask[g.legal[i]] = 0
    g.n_legal = 0


@njit(inline="always", cache=True)
def rank_bits(h):
    """13-bit set of the ranks present in card mask h (bit r = some card of rank r)."""
    x = h | (h >> np.uint64(13)) | (h >> np.uint64(26)) | (h >> np.uint64(39))
    return x & np.uint64(0x1FFF)


@njit(inline="always", cache=True)
def put(g, off, n, a):
    """allow() with the list length and mask_off kept in locals by the caller; returns the new length."""
    if off == 0:
        g.mask[a] = 1
    g.legal[n] = a
    return n + 1


@njit(cache=True)
def play_mask(g):
    a = g.actor
    h = g.hand[a]
    pile_n = g.pile_n
    off = g.mask_off
    n = g.n_legal
    if h != U0:
        if pile_n > 0 and g.chain > 0:  # LO-4.1 line 1: only 3s
            c = rcount(h, 1)
            for k in range(1, c + 1):
                n = put(g, off, n, 4 + k - 1)
            n = put(g, off, n, ACT_PICKUP)
            g.n_legal = n
            return
        rb = rank_bits(h)  # ranks present, visited in ascending order (same order as a 0..12 scan)
        if pile_n == 0:  # LO-4.1 line 2: everything is legal, no pickup
            while rb != U0:
                r = np.int64(lowest_bit(rb))
                rb &= rb - U1
                c = rcount(h, r)
                for k in range(c):
                    n = put(g, off, n, 4 * r + k)
            g.n_legal = n
            return
        anyplay = False
        t = g.top_rank
        while rb != U0:
            r = np.int64(lowest_bit(rb))
            rb &= rb - U1
            c = rcount(h, r)
            if r != t and not (r == 0 and t == 0):
                if is_legal(g, r, 1):  # legality does not depend on the count here
                    for k in range(c):
                        n = put(g, off, n, 4 * r + k)
                    anyplay = True
            else:
                for k in range(1, c + 1):
                    if is_legal(g, r, k):
                        n = put(g, off, n, 4 * r + k - 1)
                        anyplay = True
        if g.sw[S_VP] == 1 or not anyplay:
            n = put(g, off, n, ACT_PICKUP)
    else:
        for j in range(3):
            if g.down[a, j] >= 0:
                n = put(g, off, n, 53 + j)
        if pile_n > 0 and (g.chain > 0 or g.sw[S_VP] == 1):
            n = put(g, off, n, ACT_PICKUP)
    g.n_legal = n


@njit(cache=True)
def compute_mask(g, cfg):
    clear_mask(g)
    a = g.actor
    if a < 0:
        return
    ph = g.phase
    m = cfg[C_MAXRULES]
    if ph == PLAY:
        play_mask(g)
    elif ph == SWAP:
        if g.swaps_used[a] < g.sw[S_SWAPS]:
            h = g.hand[a]
            for r in range(13):
                if rcount(h, r) == 0:
                    continue
                for j in range(3):
                    c = g.up[a, j]
                    if c >= 0 and c % 13 != r:
                        allow(g, 56 + 3 * r + j)
        allow(g, ACT_KEEP)
    elif ph == SETUP_VOTE or ph == BALLOT or ph == VOLUNTEER:
        allow(g, ACT_YES)
        allow(g, ACT_NO)
    elif ph == BRACKET or ph == MATCH:
        allow(g, ACT_ROCK)
        allow(g, ACT_ROCK + 1)
        allow(g, ACT_ROCK + 2)
    elif ph == CREATOR:
        allow(g, ACT_PASS)
        for s in range(m):
            if g.rules[s, 5] == 1 and g.rules[s, 4] == a:
                allow(g, ACT_SELECT + s)
    elif ph == RULE_MAKING:
        sub = g.substep
        d = g.draft
        if sub == 0:
            for t in range(1, 17):
                if completion_exists(g.rules, m, t, -1, -1, -1):
                    allow(g, ACT_SELECT + t)
        else:
            t = d[0]
            for v in range(0, 32):
                x, gg, nn = d[1], d[2], d[3]
                if sub == 1:
                    x = v
                elif sub == 2:
                    gg = v
                else:
                    nn = v
                if v > 20:
                    break
                if completion_exists(g.rules, m, t, x, gg, nn):
                    allow(g, ACT_SELECT + v)
    elif ph == PROPOSAL:
        sub = g.substep
        kind = g.prop_kind
        if sub == 0:
            any_act = False
            any_am = False
            any_rem = False
            for s in range(m):
                if g.rules[s, 5] == 1:
                    any_act = True
                    if not any_am and slot_amendable(g.rules, m, s):
                        any_am = True
                elif g.rules[s, 5] == 2:
                    any_rem = True
            allow(g, ACT_PASS)
            if any_act:
                allow(g, ACT_PROPOSE)
            if any_am:
                allow(g, ACT_PROPOSE + 1)
            allow(g, ACT_PROPOSE + 2)
            if any_rem:
                allow(g, ACT_PROPOSE + 3)
        elif sub == 1:
            if kind == 3:
                for sid in range(9):
                    allow(g, ACT_SELECT + sid)
            else:
                for s in range(m):
                    stt = g.rules[s, 5]
                    if (kind == 1 and stt == 1) or (kind == 4 and stt == 2) or \
                            (kind == 2 and slot_amendable(g.rules, m, s)):
                        allow(g, ACT_SELECT + s)
        elif sub == 2:
            for f in range(1, 4):
                if field_amendable(g.rules, m, g.prop_target, f):
                    allow(g, ACT_SELECT + f)
        elif sub == 3:
            for v in range(0, 21):
                if kind == 2:
                    if amend_value_ok(g.rules, m, g.prop_target, g.prop_field, v):
                        allow(g, ACT_SELECT + v)
                elif base_value_ok(g.sw, g.prop_target, v):
                    allow(g, ACT_SELECT + v)
        else:
            allow(g, ACT_NOW)
            allow(g, ACT_NOW + 1)


# ---------------------------------------------------------------------------------------------
# round flow: deal, swap, turns, round end
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def reset_round_fields(g, n):
    for s in range(5):
        g.hand[s] = U0
        g.known[s] = U0
        for j in range(3):
            g.up[s, j] = -1
            g.down[s, j] = -1
        g.active[s] = 1 if s < n else 0
        g.place[s] = -1
        g.out_order[s] = -1
        g.swaps_used[s] = 0
    g.n_out = 0
    empty_table(g)
    g.gone = U0
    g.draw_pos = 0
    g.draw_n = 0
    g.clears = 0
    g.lc_seat = -1
    g.lc_cause = 0
    g.lc_n = 0
    g.winner = -1
    g.truncated = 0
    g.round_over = 0
    g.moves = 0
    g.move_kind = 0
    g.swap_turns = 0
    for s in range(8):
        g.fired[s] = 0


@njit(cache=True)
def deal(g, cfg, deck):
    """LO-2.4: deal deck[0..51] from the dealer's left."""
    n = cfg[C_N]
    reset_round_fields(g, n)
    d = g.dealer
    for i in range(3 * n):
        s = (d + 1 + i % n) % n
        g.down[s, i // n] = deck[i]
        g.up[s, i // n] = deck[3 * n + i]
        g.hand[s] |= cbit(deck[6 * n + i])
    k = 52 - 9 * n
    for i in range(k):
        g.draw[i] = deck[9 * n + i]
    g.draw_pos = 0
    g.draw_n = k


@njit(cache=True)
def start_turn(g, cfg, s):
    g.actor = s
    g.move_kind = 0
    for i in range(8):
        g.fired[i] = 0
    if any_rule(g, cfg):
        run_hooks(g, cfg, EV_TURNSTART, TM_BEFORE, s, -1, 0, g.pile_n, 0, -1, 0)


@njit(cache=True)
def start_play(g, cfg):
    """Start of a round's play: flags reset, AFTER-ROUNDSTART (actor = leader), leader's turn."""
    g.phase = PLAY
    g.substep = 0
    for i in range(8):
        g.fired[i] = 0
    if any_rule(g, cfg):
        run_hooks(g, cfg, EV_ROUNDSTART, TM_AFTER, g.leader, -1, 0, 0, 0, -1, 0)
    start_turn(g, cfg, g.leader)


@njit(cache=True)
def enter_swap(g, cfg):
    if g.sw[S_SWAPS] == 0:
        start_play(g, cfg)
        return
    g.phase = SWAP
    g.substep = 0
    g.swap_turns = 0
    for s in range(5):
        g.swaps_used[s] = 0
    g.actor = g.leader


@njit(cache=True)
def place_value(cfg, p):
    n = cfg[C_N]
    if cfg[C_REWARD] == 0:
        return (n - 1 - 2 * p) / (n - 1)
    return 1.0 if p == 0 else -1.0 / (n - 1)


@njit(cache=True)
def finish_round(g, cfg, carry, dk, cn, trunc):
    """LO-9.4..9.6 and section 5: places, round rewards, then the next round or the end."""
    n = cfg[C_N]
    if not trunc and cfg[C_PTE] == 1:
        for s in range(n):
            if g.active[s]:
                go_out(g, s)  # the player left last takes the last place
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
def end_turn(g, cfg, carry, dk, cn, a):
    """LO-3.5: round-end test, truncation (LO-9.5), else the next active player's turn."""
    n = cfg[C_N]
    if cfg[C_PTE] == 1:
        if n_active(g, n) <= 1:
            finish_round(g, cfg, carry, dk, cn, False)
            return
    elif g.n_out >= 1:
        finish_round(g, cfg, carry, dk, cn, False)
        return
    if g.moves >= cfg[C_MAXMOVES]:
        finish_round(g, cfg, carry, dk, cn, True)
        return
    start_turn(g, cfg, next_active(g, n, a))


@njit(cache=True)
def pickup_pipeline(g, cfg, a):
    size = g.pile_n
    hooks = any_rule(g, cfg)  # without an ACTIVE rule run_hooks does nothing
    if hooks:
        run_hooks(g, cfg, EV_PICKUP, TM_BEFORE, a, -1, 0, size, 0, -1, 0)
    take_pile(g, a)
    if hooks or any_rule(g, cfg):
        run_hooks(g, cfg, EV_PICKUP, TM_AFTER, a, -1, 0, size, 0, -1, 0)


@njit(cache=True)
def play_step(g, cfg, carry, dk, cn, act):
    """One PLAY-phase decision through the LO-5.1 pipeline."""
    a = g.actor
    g.moves += 1
    first = g.move_kind == 0
    hooks = any_rule(g, cfg)
    if act == ACT_PICKUP:
        pickup_pipeline(g, cfg, a)
        end_turn(g, cfg, carry, dk, cn, a)
        return
    from_hand = True
    card = -1
    if act >= 53:  # FLIP (LO-8.2)
        j = act - 53
        card = np.int64(g.down[a, j])
        g.down[a, j] = -1
        r = card % 13
        k = 1
        from_hand = False
        if not is_legal(g, r, 1):  # failed flip: onto the pile, then the pickup pipeline
            begin_play(g, a, r, 1)
            push_card(g, card)
            pickup_pipeline(g, cfg, a)
            if hooks:
                run_hooks(g, cfg, EV_FLIPFAIL, TM_AFTER, a, r, 1, 0, 0, -1, 0)
            end_turn(g, cfg, carry, dk, cn, a)
            return
    else:
        r = act // 4
        k = act % 4 + 1
    pile_before = g.pile_n
    prevtop = g.top_rank if pile_before > 0 else -1
    # step 3/4: the cards leave a and land (3s are set aside)
    if r == 1:
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
    went_out = False
    wait_out = False
    if g.hand[a] == U0 and not has_up(g, a) and not has_down(g, a):
        if first and from_hand and g.draw_n > 0:
            wait_out = True
        else:
            go_out(g, a)
            went_out = True
    cause = 0
    if r == 1:
        if g.chain >= g.sw[S_SS]:
            if pile_before > 0:
                cause = 3
            else:
                g.chain = 0  # LO-5.3 ruling: nothing beneath, nothing cleared
    elif r == g.sw[S_CR]:
        cause = 1
    elif g.run >= g.sw[S_SS]:
        cause = 2
    elif hooks:
        if run_hooks(g, cfg, EV_PLAY, TM_CHECK, a, r, k, g.pile_n, 0, prevtop, 0) == 1:
            cause = 4
    psize = g.pile_n
    if cause > 0:
        do_clear(g, a, cause)
        if hooks:
            run_hooks(g, cfg, EV_CLEAR, TM_AFTER, a, r, k, psize, cause, prevtop, 0)
    if hooks:
        run_hooks(g, cfg, EV_PLAY, TM_AFTER, a, r, k, psize, cause, prevtop, 0)
    if went_out:
        if hooks:
            run_hooks(g, cfg, EV_OUT, TM_AFTER, a, r, k, psize, cause, prevtop, 1 if g.n_out == 1 else 0)
        end_turn(g, cfg, carry, dk, cn, a)
        return
    # step 9: the one draw after a first legal move (LO-7.1)
    if first and g.draw_n > 0:
        hs = nbits(g.hand[a])
        db = g.sw[S_DB]
        if hs < db:
            if g.sw[S_DM] == 0:
                draw_cards(g, a, 1)
            else:
                draw_cards(g, a, db - hs)
    if wait_out and g.hand[a] == U0:
        go_out(g, a)
        if hooks:
            run_hooks(g, cfg, EV_OUT, TM_AFTER, a, r, k, psize, cause, prevtop, 1 if g.n_out == 1 else 0)
        end_turn(g, cfg, carry, dk, cn, a)
        return
    # step 10: takeover (LO-8.1)
    if g.hand[a] == U0 and has_up(g, a):
        for j in range(3):
            c = g.up[a, j]
            if c >= 0:
                g.hand[a] |= cbit(c)
                g.known[a] |= cbit(c)
                g.up[a, j] = -1
        if hooks:
            run_hooks(g, cfg, EV_FACEUP, TM_AFTER, a, r, k, psize, cause, prevtop, 0)
    # step 11: extra move after a clear (LO-6.3)
    if cause > 0 and g.sw[S_CEM] == 1:
        g.move_kind = 1
        if g.moves >= cfg[C_MAXMOVES]:
            finish_round(g, cfg, carry, dk, cn, True)
        return
    end_turn(g, cfg, carry, dk, cn, a)


@njit(cache=True)
def swap_step(g, cfg, act):
    a = g.actor
    if act != ACT_KEEP:
        r = (act - 56) // 3
        j = (act - 56) % 3
        taken = take_rank(g, a, r, 1, False)
        c = np.int64(lowest_bit(taken))
        old = np.int64(g.up[a, j])
        g.up[a, j] = c
        g.hand[a] |= cbit(old)
        g.known[a] |= cbit(old)
        g.swaps_used[a] += 1
        if g.swaps_used[a] < g.sw[S_SWAPS]:
            return
    g.swap_turns += 1
    if g.swap_turns >= cfg[C_N]:
        start_play(g, cfg)
    else:
        g.actor = (g.leader + g.swap_turns) % cfg[C_N]


# ---------------------------------------------------------------------------------------------
# session layer (LO-10)
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def free_slot(g, cfg):
    for s in range(cfg[C_MAXRULES]):
        if g.rules[s, 5] == 0:
            return s
    return -1


@njit(cache=True)
def clear_batch(g):
    for s in range(5):
        g.ballots[s] = -1
        g.volunteers[s] = -1
    g.ballots_vis = 0
    g.vol_vis = 0


@njit(cache=True)
def reset_proposal(g):
    g.prop_on = 0
    g.prop_kind = 0
    g.prop_target = -1
    g.prop_field = -1
    g.prop_value = -1
    g.prop_timing = -1
    g.proposer = -1
    g.prop_yes = -1
    g.defender = -1
    g.prop_result = 0
    g.rps_kind = 0


@njit(cache=True)
def apply_change(g, cfg, kind, target, field, value):
    """LO-10.8 (returns False when the change lapses)."""
    m = cfg[C_MAXRULES]
    if kind == 1:
        if g.rules[target, 5] != 1:
            return False
        g.rules[target, 5] = 2
    elif kind == 2:
        if g.rules[target, 5] != 1 or not amend_value_ok(g.rules, m, target, field, value):
            return False
        g.rules[target, field] = value
    elif kind == 3:
        if not base_value_ok(g.sw, target, value):
            return False
        g.sw[target] = value
    elif kind == 4:
        if g.rules[target, 5] != 2:
            return False
        g.rules[target, 5] = 1
    return True


@njit(cache=True)
def begin_round(g, cfg, carry, dk, cn):
    """LO-10.2 phases 1-3 of round g.round (the deal follows the creator window)."""
    n = cfg[C_N]
    g.dealer = (g.fdealer + g.round) % n
    g.leader = g.prev_winner if g.prev_winner >= 0 else g.dealer
    reset_proposal(g)
    g.setup_on = 0
    for i in range(4):
        g.draft[i] = -1
    if g.round >= 1:
        if g.pending[0] > 0:
            apply_change(g, cfg, g.pending[0], g.pending[1], g.pending[2], g.pending[3])
            for i in range(4):
                g.pending[i] = 0
        if g.prev_winner >= 0 and free_slot(g, cfg) >= 0:
            g.phase = RULE_MAKING
            g.substep = 0
            g.actor = g.prev_winner
            return
    enter_creator(g, cfg, carry, dk, cn)


@njit(cache=True)
def enter_creator(g, cfg, carry, dk, cn):
    g.pos = 0
    creator_next(g, cfg, carry, dk, cn)


@njit(cache=True)
def has_own_rule(g, cfg, s):
    for i in range(cfg[C_MAXRULES]):
        if g.rules[i, 5] == 1 and g.rules[i, 4] == s:
            return True
    return False


@njit(cache=True)
def creator_next(g, cfg, carry, dk, cn):
    n = cfg[C_N]
    while g.pos < n:
        s = (g.dealer + 1 + g.pos) % n
        if has_own_rule(g, cfg, s):
            g.phase = CREATOR
            g.substep = 0
            g.actor = s
            return
        g.pos += 1
    # deal (LO-10.2 phase 4), then the rules vote
    if g.skip_deal == 1:
        g.skip_deal = 0
    else:
        deal(g, cfg, dk[g.round])
    for i in range(4):
        g.draft[i] = -1
    g.phase = PROPOSAL
    g.substep = 0
    g.pos = 0
    g.actor = (g.dealer + 1) % n


@njit(cache=True)
def start_rps(g, kind, first, second):
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
    g.phase = MATCH if kind == 2 else BRACKET
    g.substep = 0
    g.actor = first


@njit(cache=True)
def bracket_next(g):
    """Start the next bracket match (LO-10.7), advancing unpaired entrants; set the defender when
    one entrant remains, then start the main match."""
    while True:
        if g.br_pos >= g.br_n:
            for i in range(g.br_nwin):
                g.br_ent[i] = g.br_win[i]
            g.br_n = g.br_nwin
            g.br_pos = 0
            g.br_nwin = 0
            if g.br_n == 1:
                g.defender = g.br_ent[0]
                start_rps(g, 2, g.proposer, g.defender)
                return
        if g.br_pos + 1 < g.br_n:
            start_rps(g, 1, g.br_ent[g.br_pos], g.br_ent[g.br_pos + 1])
            return
        g.br_win[g.br_nwin] = g.br_ent[g.br_pos]
        g.br_nwin += 1
        g.br_pos += 1


@njit(cache=True)
def vote_result(g, cfg, carry, dk, cn, passed):
    g.prop_result = 1 if passed else 2
    g.rps_kind = 0
    if passed:
        if g.prop_timing == 1:
            g.pending[0] = g.prop_kind
            g.pending[1] = g.prop_target
            g.pending[2] = g.prop_field
            g.pending[3] = g.prop_value
        else:
            apply_change(g, cfg, g.prop_kind, g.prop_target, g.prop_field, g.prop_value)
    enter_swap(g, cfg)


@njit(cache=True)
def enter_setup(g, cfg, carry, dk, cn):
    """LO-10.9: the next carry-over candidate that is valid, new and fits; else round 0."""
    n = cfg[C_N]
    m = cfg[C_MAXRULES]
    while g.cand < cfg[C_NCARRY]:
        c = g.cand
        if free_slot(g, cfg) >= 0 and rule_valid(g.rules, m, carry[c, 0], carry[c, 1], carry[c, 2],
                                                 carry[c, 3], -1):
            g.setup_on = 1
            g.setup_yes = -1
            clear_batch(g)
            g.pos = 0
            for i in range(4):
                g.draft[i] = carry[c, i]
            g.phase = SETUP_VOTE
            g.substep = 0
            g.actor = (g.fdealer + 1) % n
            return
        g.cand += 1
    g.cand = -1
    g.setup_on = 0
    begin_round(g, cfg, carry, dk, cn)


@njit(cache=True)
def setup_done(g, cfg, carry, dk, cn, enters):
    if enters:
        c = g.cand
        s = free_slot(g, cfg)
        for i in range(4):
            g.rules[s, i] = carry[c, i]
        g.rules[s, 4] = carry[c, 4]
        g.rules[s, 5] = 1
        g.rules[s, 6] = -1
        g.rules[s, 7] = 0
    g.setup_on = 0
    g.rps_kind = 0
    g.cand += 1
    enter_setup(g, cfg, carry, dk, cn)


@njit(cache=True)
def rps_step(g, cfg, carry, dk, cn, act):
    x = act - ACT_ROCK
    if g.actor == g.rps_first:
        g.rps_pend = x
        g.actor = g.rps_second
        return
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
    if g.rps_kind == 1:  # bracket: one decisive throw
        if w >= 0:
            side = w
        elif g.rps_throws >= cfg[C_BRMAX]:
            side = coin(g, cn)
        if side < 0:
            g.actor = g.rps_first
            return
        g.br_win[g.br_nwin] = g.rps_first if side == 0 else g.rps_second
        g.br_nwin += 1
        g.br_pos += 2
        bracket_next(g)
        return
    s0 = g.rps_score[0]
    s1 = g.rps_score[1]
    if cfg[C_EARLY] == 1 and (s0 >= 16 or s1 >= 16):
        side = 0 if s0 >= 16 else 1
    elif g.rps_dec >= 30 and s0 != s1:
        side = 0 if s0 > s1 else 1
    elif g.rps_throws >= cfg[C_RPSMAX]:
        if s0 != s1:
            side = 0 if s0 > s1 else 1
        else:
            side = coin(g, cn)
    if side < 0:
        g.actor = g.rps_first
        return
    if g.rps_setup == 1:
        g.rps_setup = 0
        setup_done(g, cfg, carry, dk, cn, side == 0)
    else:
        vote_result(g, cfg, carry, dk, cn, side == 0)


@njit(cache=True)
def coin(g, cn):
    i = g.coin_idx
    g.coin_idx += 1
    if i < cn.shape[0]:
        return np.int64(cn[i])
    return 0


@njit(cache=True)
def session_step(g, cfg, carry, dk, cn, act):
    n = cfg[C_N]
    m = cfg[C_MAXRULES]
    ph = g.phase
    a = g.actor
    if ph == SETUP_VOTE:
        g.ballots[a] = 1 if act == ACT_YES else 0
        g.pos += 1
        if g.pos < n:
            g.actor = (g.fdealer + 1 + g.pos) % n
            return
        g.ballots_vis = 1
        y = 0
        fy = -1
        fn = -1
        for i in range(n):
            s = (g.fdealer + 1 + i) % n
            if g.ballots[s] == 1:
                y += 1
                if fy < 0:
                    fy = s
            elif fn < 0:
                fn = s
        g.setup_yes = y
        if 2 * y > n:
            setup_done(g, cfg, carry, dk, cn, True)
        elif 2 * y < n:
            setup_done(g, cfg, carry, dk, cn, False)
        else:
            g.rps_setup = 1
            start_rps(g, 2, fy, fn)
    elif ph == RULE_MAKING:
        v = act - ACT_SELECT
        sub = g.substep
        g.draft[sub] = v
        t = g.draft[0]
        uses = TPL[t, 9]
        nxt = sub + 1
        while nxt <= 3 and ((uses >> (nxt - 1)) & 1) == 0:
            g.draft[nxt] = 0
            nxt += 1
        if nxt <= 3:
            g.substep = nxt
            return
        s = free_slot(g, cfg)
        for i in range(4):
            g.rules[s, i] = g.draft[i]
        g.rules[s, 4] = a
        g.rules[s, 5] = 1
        g.rules[s, 6] = g.round - 1
        g.rules[s, 7] = 0
        for i in range(4):
            g.draft[i] = -1
        g.substep = 0
        enter_creator(g, cfg, carry, dk, cn)
    elif ph == CREATOR:
        if act == ACT_PASS:
            g.pos += 1
        else:
            g.rules[act - ACT_SELECT, 5] = 2
            if not has_own_rule(g, cfg, a):
                g.pos += 1
        creator_next(g, cfg, carry, dk, cn)
    elif ph == PROPOSAL:
        sub = g.substep
        if sub == 0:
            if act == ACT_PASS:
                g.pos += 1
                if g.pos >= n:
                    enter_swap(g, cfg)
                else:
                    g.actor = (g.dealer + 1 + g.pos) % n
                return
            kind = act - ACT_PROPOSE + 1
            g.prop_on = 1
            g.prop_kind = kind
            g.proposer = a
            g.prop_target = -1
            g.prop_field = -1 if kind == 2 else 0
            g.prop_value = -1 if (kind == 2 or kind == 3) else 0
            g.prop_timing = -1
            g.prop_yes = -1
            g.defender = -1
            g.prop_result = 0
            g.substep = 1
        elif sub == 1:
            g.prop_target = act - ACT_SELECT
            kind = g.prop_kind
            g.substep = 2 if kind == 2 else (3 if kind == 3 else 4)
        elif sub == 2:
            g.prop_field = act - ACT_SELECT
            g.substep = 3
        elif sub == 3:
            g.prop_value = act - ACT_SELECT
            g.substep = 4
        else:
            g.prop_timing = act - ACT_NOW
            clear_batch(g)
            g.phase = BALLOT
            g.substep = 0
            g.pos = 0
            g.actor = (g.proposer + 1) % n
    elif ph == BALLOT:
        g.ballots[a] = 1 if act == ACT_YES else 0
        g.pos += 1
        if g.pos < n - 1:
            g.actor = (g.proposer + 1 + g.pos) % n
            return
        g.ballots[g.proposer] = 1
        g.ballots_vis = 1
        y = 0
        for s in range(n):
            if g.ballots[s] == 1:
                y += 1
        g.prop_yes = y
        if 2 * y > n:
            vote_result(g, cfg, carry, dk, cn, True)
            return
        if 2 * y < n:
            vote_result(g, cfg, carry, dk, cn, False)
            return
        # tie (LO-10.6)
        kind = g.prop_kind
        if kind == 3 or kind == 4:
            for i in range(n - 1):
                s = (g.proposer + 1 + i) % n
                if g.ballots[s] == 0:
                    g.defender = s
                    break
            start_rps(g, 2, g.proposer, g.defender)
            return
        mk = g.rules[g.prop_target, 4]
        if mk >= 0 and mk != g.proposer and g.ballots[mk] == 0:
            g.defender = mk
            start_rps(g, 2, g.proposer, mk)
            return
        g.phase = VOLUNTEER
        g.substep = 0
        g.pos = 0
        volunteer_next(g, cfg, carry, dk, cn)
    elif ph == VOLUNTEER:
        g.volunteers[a] = 1 if act == ACT_YES else 0
        g.pos += 1
        volunteer_next(g, cfg, carry, dk, cn)
    else:
        rps_step(g, cfg, carry, dk, cn, act)


@njit(cache=True)
def volunteer_next(g, cfg, carry, dk, cn):
    n = cfg[C_N]
    while g.pos < n - 1:
        s = (g.proposer + 1 + g.pos) % n
        if g.ballots[s] == 0:
            g.actor = s
            return
        g.pos += 1
    g.vol_vis = 1
    g.br_n = 0
    for i in range(n - 1):
        s = (g.proposer + 1 + i) % n
        if g.volunteers[s] == 1:
            g.br_ent[g.br_n] = s
            g.br_n += 1
    if g.br_n == 0:
        vote_result(g, cfg, carry, dk, cn, True)
    elif g.br_n == 1:
        g.defender = g.br_ent[0]
        start_rps(g, 2, g.proposer, g.defender)
    else:
        g.br_pos = 0
        g.br_nwin = 0
        bracket_next(g)


# ---------------------------------------------------------------------------------------------
# random rollouts: a dedicated PLAY-phase loop (no made rule ACTIVE), state in locals
# ---------------------------------------------------------------------------------------------

M13 = np.uint64(0x1FFF)


@njit(inline="always", cache=True)
def legal_one(r, k, pile_n, chain, t, tc, run, cr, lr, lbc, ss):
    """is_legal (LO-4.1) on table values held in locals."""
    if pile_n == 0:
        return True
    if chain > 0:
        return r == 1
    if r == 1:
        return True
    if t == lr:
        if r == cr:
            return lbc == 0
        return r <= lr
    if r == cr or r == lr:
        return True
    if r == 0:
        if t == 0:
            return k > tc or run + k >= ss
        return True
    if r > t:
        return True
    if r == t:
        return k > tc or run + k >= ss
    return False


@njit(cache=True)
def fast_play(g, cfg, rng, log, pos):
    """Random legal moves of the PLAY phase until the round ends (the round end itself is left to
    the caller: returns (moves made, 1 = the round ends / 2 = it ends truncated, next log position)).

    The same game as step_game + play_mask with no made rule ACTIVE (no hook can fire): the legal
    actions are counted in play_mask's order (ranks ascending, counts ascending, flips by slot, pickup
    last) from bit-sliced rank counts, the same generator draw picks the same index, and the move
    runs the LO-5.1 pipeline without hooks. Hands, table and counters live in locals; the record is
    written back on exit. tests/lopti/test_lopti_fast_rollout.py checks the equivalence game by game.
    """
    maxm = cfg[C_MAXMOVES]
    pte = cfg[C_PTE]
    cr = np.int64(g.sw[S_CR])
    lr = np.int64(g.sw[S_LR])
    lbc = np.int64(g.sw[S_LBC])
    ss = np.int64(g.sw[S_SS])
    db = np.int64(g.sw[S_DB])
    dm = g.sw[S_DM]
    vp = g.sw[S_VP]
    cem = g.sw[S_CEM]
    logging = log.shape[0] > 0
    hand = np.empty(5, np.uint64)
    known = np.empty(5, np.uint64)
    upb = 0  # bit s: seat s has a face-up card
    downb = 0  # bit 3s+j: face-down slot j of seat s holds a card
    actb = 0  # bit s: seat s is active
    for s in range(5):
        hand[s] = g.hand[s]
        known[s] = g.known[s]
        if has_up(g, s):
            upb |= 1 << s
        for j in range(3):
            if g.down[s, j] >= 0:
                downb |= 1 << (3 * s + j)
        if g.active[s]:
            actb |= 1 << s
    a = np.int64(g.actor)
    first = g.move_kind == 0
    moves = np.int64(g.moves)
    pile_n = np.int64(g.pile_n)
    n_plays = np.int64(g.n_plays)
    t = np.int64(g.top_rank)
    tc = np.int64(g.top_cnt)
    run = np.int64(g.run)
    chain = np.int64(g.chain)
    gone = g.gone
    pilem = U0
    for i in range(pile_n):
        pilem |= cbit(g.pile[i])
    draw_pos = np.int64(g.draw_pos)
    draw_n = np.int64(g.draw_n)
    clears = np.int64(g.clears)
    lc_seat = np.int64(g.lc_seat)
    lc_cause = np.int64(g.lc_cause)
    lc_n = np.int64(g.lc_n)
    n_out = np.int64(g.n_out)
    winner = np.int64(g.winner)
    for s in range(5):
        g.rewards[s] = 0.0
    count = 0
    turned = False
    result = 0
    while True:
        # ---- the legal actions, counted (section 4.2) -------------------------------------
        h = hand[a]
        if h != U0:
            ha = h & M13
            hb = (h >> np.uint64(13)) & M13
            hc = (h >> np.uint64(26)) & M13
            hd = (h >> np.uint64(39)) & M13
            ab = ha & hb
            cd = hc & hd
            aob = ha | hb
            cod = hc | hd
            ge1 = aob | cod
            ge2 = ab | cd | (aob & cod)
            ge3 = (ab & cod) | (cd & aob)
            ge4 = ab & cd
            sp = -1
            if pile_n == 0:  # LO-4.1 line 2
                fr = M13
            elif chain > 0:  # line 1
                fr = np.uint64(2)
            elif t == lr:  # line 4 (3s by line 3)
                fr = ((U1 << np.uint64(lr + 1)) - U1) & ~(U1 << np.uint64(cr))
                if lbc == 0:
                    fr |= U1 << np.uint64(cr)
            else:  # lines 3, 5, 6, 7; line 8 (and 6 on a 2) for rank t by count
                fr = (M13 >> np.uint64(t + 1)) << np.uint64(t + 1)
                fr |= np.uint64(2) | (U1 << np.uint64(cr)) | (U1 << np.uint64(lr))
                if t != 0:
                    fr |= U1
                if t != cr:
                    sp = t
            nplay = np.int64(popcount(fr & ge1) + popcount(fr & ge2) + popcount(fr & ge3) + popcount(fr & ge4))
            kmin = 0
            csp = 0
            if sp >= 0:
                csp = rcount(h, sp)
                kmin = min(tc + 1, ss - run)
                if csp >= kmin:
                    nplay += csp - kmin + 1
                else:
                    sp = -1
            pick = pile_n > 0 and (chain > 0 or vp == 1 or nplay == 0)
            idx = rng_below(rng, 0, nplay + (1 if pick else 0))
            if idx >= nplay:
                act = ACT_PICKUP
            else:
                lst = fr & ge1
                if sp >= 0:
                    lst |= U1 << np.uint64(sp)
                act = -1
                while True:
                    r = np.int64(lowest_bit(lst))
                    lst &= lst - U1
                    if r == sp:
                        lo = kmin
                        nr = csp - kmin + 1
                    else:
                        lo = 1
                        nr = rcount(h, r)
                    if idx < nr:
                        act = 4 * r + lo + idx - 1
                        break
                    idx -= nr
        else:  # blind stage: flips by slot, then pickup
            ds = (downb >> (3 * a)) & 7
            nfl = (ds & 1) + ((ds >> 1) & 1) + ((ds >> 2) & 1)
            pick = pile_n > 0 and (chain > 0 or vp == 1)
            idx = rng_below(rng, 0, nfl + (1 if pick else 0))
            if idx >= nfl:
                act = ACT_PICKUP
            else:
                j = 0
                while True:
                    if (ds >> j) & 1:
                        if idx == 0:
                            break
                        idx -= 1
                    j += 1
                act = 53 + j
        if logging and pos < log.shape[0]:
            log[pos] = act
            pos += 1
        count += 1
        moves += 1
        # ---- the move (LO-5.1, no hooks) -------------------------------------------------
        end = True
        pickup = act == ACT_PICKUP
        if not pickup:
            from_hand = act < 52
            card = -1
            ok = True
            if from_hand:
                r = act >> 2
                k = (act & 3) + 1
            else:
                j = act - 53
                card = np.int64(g.down[a, j])
                g.down[a, j] = -1
                downb &= ~(1 << (3 * a + j))
                r = card % 13
                k = 1
                ok = legal_one(r, 1, pile_n, chain, t, tc, run, cr, lr, lbc, ss)
            pile_before = pile_n
            if not ok or r != 1:
                if ok:
                    chain = 0
                g.play_start[n_plays] = pile_n
                g.play_rank[n_plays] = r
                g.play_cnt[n_plays] = k
                g.play_seat[n_plays] = a
                n_plays += 1
                if pile_n > 0 and t == r:
                    run += k
                else:
                    run = k
                t = r
                tc = k
            if not ok:  # failed flip (LO-8.2): onto the pile, then the pickup below
                g.pile[pile_n] = card
                pilem |= cbit(card)
                pickup = True
            else:
                if from_hand:  # take_rank: known cards first, then ascending suit (section 4.3)
                    m = hand[a] & RANK_MASK[r]
                    kn = m & known[a]
                    taken = U0
                    cnt = 0
                    for p in range(2):
                        src = kn if p == 0 else (m & ~kn)
                        while src != U0 and cnt < k:
                            c = np.int64(lowest_bit(src))
                            src &= src - U1
                            taken |= cbit(c)
                            if r != 1:
                                g.pile[pile_n] = c
                                pile_n += 1
                            cnt += 1
                    hand[a] &= ~taken
                    known[a] &= ~taken
                else:
                    taken = cbit(card)
                    if r != 1:
                        g.pile[pile_n] = card
                        pile_n += 1
                if r == 1:
                    gone |= taken
                    chain += k
                else:
                    pilem |= taken
                went_out = False
                wait_out = False
                if hand[a] == U0 and (upb >> a) & 1 == 0 and (downb >> (3 * a)) & 7 == 0:
                    if first and from_hand and draw_n > 0:
                        wait_out = True
                    else:
                        went_out = True
                cause = 0
                if r == 1:
                    if chain >= ss:
                        if pile_before > 0:
                            cause = 3
                        else:
                            chain = 0  # LO-5.3 ruling
                elif r == cr:
                    cause = 1
                elif run >= ss:
                    cause = 2
                if cause > 0:  # LO-6.2
                    for i in range(pile_n):
                        g.lc_cards[i] = g.pile[i]
                    gone |= pilem
                    lc_n = pile_n
                    pilem = U0
                    pile_n = 0
                    n_plays = 0
                    t = -1
                    tc = 0
                    run = 0
                    chain = 0
                    clears += 1
                    lc_seat = a
                    lc_cause = cause
                if not went_out:
                    if first and draw_n > 0:  # LO-7.1
                        hs = np.int64(popcount(hand[a]))
                        if hs < db:
                            nd = 1 if dm == 0 else db - hs
                            for _ in range(nd):
                                if draw_n <= 0:
                                    break
                                hand[a] |= cbit(g.draw[draw_pos])
                                draw_pos += 1
                                draw_n -= 1
                    if wait_out and hand[a] == U0:
                        went_out = True
                if went_out:  # LO-9.1
                    actb &= ~(1 << a)
                    g.active[a] = 0
                    g.place[a] = n_out
                    g.out_order[n_out] = a
                    n_out += 1
                    if winner < 0:
                        winner = a
                else:
                    if hand[a] == U0 and (upb >> a) & 1:  # LO-8.1 takeover
                        for j in range(3):
                            c = g.up[a, j]
                            if c >= 0:
                                hand[a] |= cbit(c)
                                known[a] |= cbit(c)
                                g.up[a, j] = -1
                        upb &= ~(1 << a)
                    if cause > 0 and cem == 1:  # LO-6.3 extra move
                        first = False
                        end = False
                        if moves >= maxm:
                            result = 2
                            break
        if pickup:  # LO-5.1 pickup, or the one a failed flip forces
            hand[a] |= pilem
            known[a] |= pilem
            pilem = U0
            pile_n = 0
            n_plays = 0
            t = -1
            tc = 0
            run = 0
            chain = 0
        if end:  # LO-3.5
            if pte == 1:
                if popcount(np.uint64(actb)) <= 1:
                    result = 1
                    break
            elif n_out >= 1:
                result = 1
                break
            if moves >= maxm:
                result = 2
                break
            others = actb & ~(1 << a)
            above = others >> (a + 1)
            if above != 0:
                a = a + 1 + np.int64(lowest_bit(np.uint64(above)))
            else:
                a = np.int64(lowest_bit(np.uint64(others)))
            first = True
            turned = True
    # write back
    for s in range(5):
        g.hand[s] = hand[s]
        g.known[s] = known[s]
    if turned:
        for i in range(8):
            g.fired[i] = 0
    g.actor = a
    g.move_kind = 0 if first else 1
    g.moves = moves
    g.pile_n = pile_n
    g.n_plays = n_plays
    g.top_rank = t
    g.top_cnt = tc
    g.run = run
    g.chain = chain
    g.gone = gone
    g.draw_pos = draw_pos
    g.draw_n = draw_n
    g.clears = clears
    g.lc_seat = lc_seat
    g.lc_cause = lc_cause
    g.lc_n = lc_n
    g.n_out = n_out
    g.winner = winner
    return count, result, pos


# ---------------------------------------------------------------------------------------------
# entry points
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def step_game(g, cfg, carry, dk, cn, act):
    for s in range(5):
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
            for s in range(5):
                st[b].rewards[s] = 0.0


@njit(cache=True)
def start_episode(st, b, cfg, carry, decks, coins, rules0, sw0, fdealer):
    """A fresh episode (section 7): round 0 dealt from decks[b, 0]; sessions run setup votes first."""
    g = st[b]
    n = cfg[C_N]
    for s in range(5):
        g.scores[s] = 0.0
        g.rewards[s] = 0.0
        g.round_rewards[s] = 0.0
    for i in range(8):
        for j in range(8):
            g.rules[i, j] = rules0[i, j]
        g.fired[i] = 0
    for i in range(9):
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
    for i in range(140):
        g.mask[i] = 0
    clear_batch(g)
    reset_proposal(g)
    g.dealer = fdealer
    g.leader = fdealer
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
    for i in range(140):
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
            finish_round(g, cfg, carry, dk, cn, res == 2)
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
    for i in range(140):
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


@njit(cache=True)
def start_episodes_batch(st, cfg, carry, decks, coins, rules0, sw0, fdealers):
    """start_episode for every game b (first dealer fdealers[b]) in one call: BatchGame.reset."""
    for b in range(st.shape[0]):
        start_episode(st, b, cfg, carry, decks, coins, rules0, sw0, fdealers[b])
