"""Sheng Ji rule kernels (numba). Every kernel takes (st, b, cfg, ...): st is the state record
array of state.py with a leading batch axis, b the game, cfg the int64 config vector of config.py,
so one kernel serves B = 1 (the AEC env) and B = 4096 (BatchGame, rollouts).

Rule IDs (SJ-x.y) refer to docs/rules/shengji.md. The plain-Python wrappers at the end of the
module expose the rule functions by name for tests and tools.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import highest_bit, lowest_bit, nth_set_bit, popcount, random_legal, rng_below, seed_generators

from .config import (C_ALLOW_NT, C_AUTO, C_DECKS, C_DECL_MODE, C_EPISODE, C_FIRST_BANKER, C_FLIP, C_H, C_K,
                     C_KMULT, C_MAX_HANDS, C_MAX_REDEALS, C_MUST_DEFEND, C_NODECL, C_PEN_PTS, C_PENALTY,
                     C_REWARD)
from .state import MAX_COMP

# phases (0..5 are the section 9.2 phases; 6..8 are automatic and never visible outside a call)
DECLARE = 0
NAME_TRUMP = 1
BURY = 2
LEAD = 3
FOLLOW = 4
OVER = 5
NEED_DEAL = 6
DEAL = 7
FINAL = 8
PHASE_NAMES = ("DECLARE", "NAME_TRUMP", "BURY", "LEAD", "FOLLOW", "OVER")

NUM_ACTIONS = 84
A_DONE = 54
A_PASS = 55
A_DECL = 56
A_LJ = 72
A_BJ = 76
A_NAME = 80
TRUMP = 4          # the effective suit TRUMP (SJ-3.3); trump value 4 = NT
NPOS = 16          # positions 0..15 (SJ-3.4)
MAXA_R = 17


# ---------------------------------------------------------------------------------------------
# SJ-2, SJ-3: points, trump, effective suit, position
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def card_points(c):
    """SJ-2.1: 5 -> 5, 10 and K -> 10, else 0."""
    if c >= 52:
        return 0
    r = c % 13
    if r == 3:
        return 5
    if r == 8 or r == 11:
        return 10
    return 0


@njit(cache=True)
def card_esuit(c, lvl, trump):
    """SJ-3.3: 4 (TRUMP) for jokers, level cards and the trump suit, else the printed suit."""
    if c >= 52:
        return TRUMP
    if c % 13 == lvl or c // 13 == trump:
        return TRUMP
    return c // 13


@njit(cache=True)
def card_pos(c, lvl, trump):
    """SJ-3.4 position: strength inside an esuit and tractor adjacency."""
    if c == 53:
        return 15
    if c == 52:
        return 14
    r = c % 13
    if r == lvl:
        if trump == 4 or c // 13 == trump:
            return 13
        return 12
    if r < lvl:
        return r
    return r - 1


@njit(cache=True)
def esuit_table(e, lvl, trump, pc, pn):
    """Cards of esuit e by position: pc[p, :pn[p]] are the card indices at position p."""
    for p in range(NPOS):
        pn[p] = 0
    for c in range(54):
        if card_esuit(c, lvl, trump) == e:
            p = card_pos(c, lvl, trump)
            pc[p, pn[p]] = c
            pn[p] += 1


# ---------------------------------------------------------------------------------------------
# SJ-6, SJ-7.2: canonical decomposition
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _greatest_key(cnt, pc, pn, D):
    """SJ-7.2: the greatest component key of cnt: (size, copies k, top position, length L); size -1
    when cnt is empty. Larger size first, then more copies, then the higher top position."""
    bs = -1
    bk = 0
    bt = 0
    bL = 0
    # mx: the largest count held at each position, 4 bits a position (counts <= 4), so "position p
    # holds some card k times" is one shift per test
    mx = 0
    for p in range(NPOS):
        v = 0
        for i in range(pn[p]):
            if cnt[pc[p, i]] > v:
                v = cnt[pc[p, i]]
        mx |= v << (4 * p)
    for k in range(D, 0, -1):
        run = 0
        for p in range(NPOS):
            if ((mx >> (4 * p)) & 15) >= k:
                run += 1
            else:
                run = 0
            if run > 0:
                L = run if k >= 2 else 1
                sz = k * L
                if sz > bs or (sz == bs and (k > bk or (k == bk and p > bt))):
                    bs = sz
                    bk = k
                    bt = p
                    bL = L
    return bs, bk, bt, bL


@njit(cache=True)
def _decomp(cnt, pc, pn, D, ok, oL, otop, ocards):
    """SJ-7.2 canonical decomposition of the cards cnt (one esuit; pc/pn its position table).
    Writes the components in canonical order, returns their number. cnt is restored. The search
    is _decomp_ns on a scratch of its own."""
    stk = np.empty((MAX_COMP + 1) * DS_BLK, np.int64)
    return _decomp_ns(cnt, pc, pn, np.int64(D), ok, oL, otop, ocards, stk, np.int64(0))


# _decomp_ns scratch: one block of DS_BLK int64 a recursion depth (at most MAX_COMP deep): component
# k/L/top (64,) at 0/64/128, cards (64, 16) at 192, the candidate list k/L/top (65,) at
# 1216/1281/1346, its cards (65, 16) at 1411, the chosen cards (16,) at 2451, sort scratch at 2467
DS_BLK = 2560


@njit(cache=True)
def _cmp_comp(k1, L1, t1, c1, k2, L2, t2, c2, tmp):
    """Canonical order of two components: 1 if the first comes first (greater), -1 after, 0 equal.
    The index tuples are sorted in tmp (32,)."""
    s1 = k1 * L1
    s2 = k2 * L2
    if s1 != s2:
        return 1 if s1 > s2 else -1
    if k1 != k2:
        return 1 if k1 > k2 else -1
    if t1 != t2:
        return 1 if t1 > t2 else -1
    for i in range(L1):
        v = c1[i]
        j = i
        while j > 0 and tmp[j - 1] > v:
            tmp[j] = tmp[j - 1]
            j -= 1
        tmp[j] = v
        v = c2[i]
        j = i
        while j > 0 and tmp[16 + j - 1] > v:
            tmp[16 + j] = tmp[16 + j - 1]
            j -= 1
        tmp[16 + j] = v
    for i in range(L1):
        if tmp[i] != tmp[16 + i]:
            return 1 if tmp[i] > tmp[16 + i] else -1
    return 0


@njit(cache=True)
def _cmp_list(m1, k1, L1, t1, c1, m2, k2, L2, t2, c2, tmp):
    """Lists in canonical order: keys lexicographically (longer extends greater), then index tuples
    (tmp: _cmp_comp's scratch)."""
    mm = min(m1, m2)
    for i in range(mm):
        s1 = k1[i] * L1[i]
        s2 = k2[i] * L2[i]
        if s1 != s2:
            return 1 if s1 > s2 else -1
        if k1[i] != k2[i]:
            return 1 if k1[i] > k2[i] else -1
        if t1[i] != t2[i]:
            return 1 if t1[i] > t2[i] else -1
    if m1 != m2:
        return 1 if m1 > m2 else -1
    for i in range(m1):
        r = _cmp_comp(k1[i], L1[i], t1[i], c1[i], k2[i], L2[i], t2[i], c2[i], tmp)
        if r != 0:
            return r
    return 0


@njit(cache=True)
def _decomp_ns(cnt, pc, pn, D, ok, oL, otop, ocards, stk, d):
    """The SJ-7.2 search: the greatest key's component (every choice of card where a position holds
    several), then the rest recursively, keeping the greatest list (_cmp_list). Its arrays live
    in the scratch stk (DS_BLK int64 a depth, from block d on), so nothing is allocated. Call it
    with the argument types of its own recursive call (C arrays, d an int64 variable, not a literal):
    a second specialization calling this one breaks when numba loads it from the cache."""
    bs, bk, bt, bL = _greatest_key(cnt, pc, pn, D)
    if bs < 0:
        return 0
    pa = -1
    for p in range(bt - bL + 1, bt + 1):
        nc = 0
        for i in range(pn[p]):
            if cnt[pc[p, i]] >= bk:
                nc += 1
        if nc > 1:
            pa = p
    nchoice = pn[pa] if pa >= 0 else 1
    base = d * DS_BLK
    tk = stk[base:base + 64]
    tL = stk[base + 64:base + 128]
    tt = stk[base + 128:base + 192]
    tc = stk[base + 192:base + 1216].reshape((64, NPOS))
    nk = stk[base + 1216:base + 1281]
    nL = stk[base + 1281:base + 1346]
    nt = stk[base + 1346:base + 1411]
    ncs = stk[base + 1411:base + 2451].reshape((65, NPOS))
    cc = stk[base + 2451:base + 2467]
    tmp = stk[base + 2467:base + 2499]
    bestm = -1
    for ch in range(nchoice):
        if pa >= 0 and cnt[pc[pa, ch]] < bk:
            continue
        j = 0
        for p in range(bt - bL + 1, bt + 1):
            if p == pa:
                c = pc[pa, ch]
            else:
                c = -1
                for i in range(pn[p]):
                    if cnt[pc[p, i]] >= bk:
                        c = pc[p, i]
                        break
            cc[j] = c
            j += 1
        for j in range(bL):
            cnt[cc[j]] -= bk
        m2 = _decomp_ns(cnt, pc, pn, D, tk, tL, tt, tc, stk, d + 1)
        for j in range(bL):
            cnt[cc[j]] += bk
        # insert the chosen component at its canonical place
        ins = m2
        for i in range(m2):
            if _cmp_comp(bk, bL, bt, cc, tk[i], tL[i], tt[i], tc[i], tmp) >= 0:
                ins = i
                break
        w = 0
        for i in range(m2 + 1):
            if i == ins:
                nk[i] = bk
                nL[i] = bL
                nt[i] = bt
                for q in range(bL):
                    ncs[i, q] = cc[q]
            else:
                nk[i] = tk[w]
                nL[i] = tL[w]
                nt[i] = tt[w]
                for q in range(tL[w]):
                    ncs[i, q] = tc[w, q]
                w += 1
        if bestm < 0 or _cmp_list(m2 + 1, nk, nL, nt, ncs, bestm, ok, oL, otop, ocards, tmp) > 0:
            bestm = m2 + 1
            for i in range(bestm):
                ok[i] = nk[i]
                oL[i] = nL[i]
                otop[i] = nt[i]
                for q in range(nL[i]):
                    ocards[i, q] = ncs[i, q]
    return bestm


@njit(cache=True)
def _decomp_fast(cnt, pc, pn, D, ok, oL, otop, ocards):
    """SJ-7.2 when no position holds two different cards: then every key names one component, and
    taking the greatest key first is exact. Consumes cnt. Returns the number of components."""
    m = 0
    while True:
        bs, bk, bt, bL = _greatest_key(cnt, pc, pn, D)
        if bs < 0:
            return m
        j = 0
        for p in range(bt - bL + 1, bt + 1):
            for i in range(pn[p]):
                c = pc[p, i]
                if cnt[c] >= bk:
                    cnt[c] -= bk
                    ocards[m, j] = c
                    break
            j += 1
        ok[m] = bk
        oL[m] = bL
        otop[m] = bt
        m += 1


@njit(cache=True)
def _decomp_any(cnt, pc, pn, D, ok, oL, otop, ocards):
    """Canonical decomposition: the greedy fast path when it is exact, else the search. cnt is
    scratch: the fast path consumes it (callers pass a copy)."""
    amb = False
    for p in range(NPOS):
        if pn[p] > 1:
            k = 0
            for i in range(pn[p]):
                if cnt[pc[p, i]] > 0:
                    k += 1
            if k > 1:
                amb = True
    if not amb:
        return _decomp_fast(cnt, pc, pn, np.int64(D), ok, oL, otop, ocards)
    return _decomp(cnt, pc, pn, np.int64(D), ok, oL, otop, ocards)


@njit(cache=True)
def decompose_counts(cnt54, lvl, trump, D, ok, oL, otop, ocards):
    """Canonical decomposition of a one-esuit card count vector; returns the number of components."""
    pc = np.empty((NPOS, 4), np.int64)
    pn = np.empty(NPOS, np.int64)
    e = -1
    for c in range(54):
        if cnt54[c] > 0:
            e = card_esuit(c, lvl, trump)
            break
    if e < 0:
        return 0
    esuit_table(e, lvl, trump, pc, pn)
    cnt = np.zeros(54, np.int64)
    for c in range(54):
        cnt[c] = cnt54[c]
    return _decomp_any(cnt, pc, pn, np.int64(D), ok, oL, otop, ocards)


# ---------------------------------------------------------------------------------------------
# SJ-7.4 throw check
# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# SJ-8 follow obligations: match value search
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _q1_targets(cnt, pc, pn, fk, fL, fm, D, ctarget):
    """Q1* (tuple counts by size) of the best assignment: ctarget[t] for t = 2..D (SJ-8.3)."""
    for t in range(5):
        ctarget[t] = 0
    rem = np.zeros(54, np.int64)
    for p in range(NPOS):
        for i in range(pn[p]):
            rem[pc[p, i]] = cnt[pc[p, i]]
    used_slots = 0
    for t in range(D, 1, -1):
        slots = 0
        for j in range(fm):
            if fk[j] >= t:
                slots += fL[j]
        slots -= used_slots
        if slots <= 0:
            continue
        if t == 2:
            avail = 0
            for c in range(54):
                avail += rem[c] // 2
            take = min(slots, avail)
        else:
            # take tuples of size t from cards with the fewest spare copies first
            take = 0
            for have in range(t, D + 1):
                for c in range(54):
                    if take < slots and rem[c] == have:
                        rem[c] -= t
                        take += 1
        ctarget[t] = take
        used_slots += take


@njit(cache=True)
def _build_blocks(cnt, pc, pn, fk, fL, fm, D, ctarget, bt_, br_, bc_, lvl_start, lvl_end):
    """Blocks (runs of r tuples of size t on consecutive positions) available in cnt, grouped by
    level t descending: level t occupies [lvl_start[t], lvl_end[t])."""
    nb = 0
    for t in range(D, 1, -1):
        lvl_start[t] = nb
        maxl = 0
        for j in range(fm):
            if fk[j] >= t and fL[j] > maxl:
                maxl = fL[j]
        if ctarget[t] < maxl:
            maxl = ctarget[t]
        if maxl > 0:
            for p0 in range(NPOS):
                for r in range(1, maxl + 1):
                    pe = p0 + r - 1
                    if pe >= NPOS:
                        break
                    # position pe must hold some card with >= t copies
                    okp = False
                    for i in range(pn[pe]):
                        if cnt[pc[pe, i]] >= t:
                            okp = True
                    if not okp:
                        break
                    # ambiguous position inside [p0, pe]?
                    pa = -1
                    for p in range(p0, pe + 1):
                        ncount = 0
                        for i in range(pn[p]):
                            if cnt[pc[p, i]] >= t:
                                ncount += 1
                        if ncount > 1:
                            pa = p
                    nch = pn[pa] if pa >= 0 else 1
                    for ch in range(nch):
                        if pa >= 0 and cnt[pc[pa, ch]] < t:
                            continue
                        if nb >= bt_.shape[0]:
                            break
                        w = 0
                        for p in range(p0, pe + 1):
                            if p == pa:
                                bc_[nb, w] = pc[pa, ch]
                            else:
                                for i in range(pn[p]):
                                    if cnt[pc[p, i]] >= t:
                                        bc_[nb, w] = pc[p, i]
                                        break
                            w += 1
                        bt_[nb] = t
                        br_[nb] = r
                        nb += 1
        lvl_end[t] = nb
    return nb


@njit(cache=True)
def _cmp_q(qa, qb):
    for r in range(MAXA_R - 1, 0, -1):
        if qa[r] != qb[r]:
            return 1 if qa[r] > qb[r] else -1
    return 0


@njit(cache=True)
def _fdfs(mode, t, bi, need, cnt, ctarget, bt_, br_, bc_, lvl_start, lvl_end, ck, crem, ncomp, qr, best_q,
          cur, selp, fit, n, found, alist):
    """Assignment search (SJ-8.3). mode 0: best_q := max Q2 over assignments with Q1 = Q1*.
    mode 1: found[0] := 1 if some assignment of value (Q1*, best_q) fits with selection selp
    inside n cards (sum of elementwise max(cur, selp) <= n). In mode 0 the optimal assignments
    found so far are kept in alist[:found[1]] (deduplicated); found[2] = 1 once alist overflowed."""
    if found[0] != 0:
        return
    if need == 0:
        t2 = t - 1
        if t2 < 2:
            if mode == 0:
                cq = _cmp_q(qr, best_q)
                if cq > 0:
                    for r in range(MAXA_R):
                        best_q[r] = qr[r]
                    found[1] = 0
                    found[2] = 0
                if cq >= 0 and found[2] == 0:
                    na = found[1]
                    dup = False
                    for i in range(na):
                        same = True
                        for c in range(54):
                            if alist[i, c] != cur[c]:
                                same = False
                                break
                        if same:
                            dup = True
                            break
                    if not dup:
                        if na < alist.shape[0]:
                            for c in range(54):
                                alist[na, c] = cur[c]
                            found[1] = na + 1
                        else:
                            found[2] = 1
            else:
                if _cmp_q(qr, best_q) == 0:
                    found[0] = 1
            return
        _fdfs(mode, t2, lvl_start[t2], ctarget[t2], cnt, ctarget, bt_, br_, bc_, lvl_start, lvl_end, ck, crem,
              ncomp, qr, best_q, cur, selp, fit, n, found, alist)
        return
    for bidx in range(bi, lvl_end[t]):
        r = br_[bidx]
        if r > need:
            continue
        good = True
        for w in range(r):
            if cnt[bc_[bidx, w]] < t:
                good = False
                break
        if not good:
            continue
        delta = 0
        if mode == 1:
            for w in range(r):
                c = bc_[bidx, w]
                before = cur[c] if cur[c] > selp[c] else selp[c]
                after = cur[c] + t if cur[c] + t > selp[c] else selp[c]
                delta += after - before
            if fit + delta > n:
                continue
        for j in range(ncomp):
            if ck[j] < t or crem[j] < r:
                continue
            dup = False
            for j2 in range(j):
                if ck[j2] == ck[j] and crem[j2] == crem[j]:
                    dup = True
                    break
            if dup:
                continue
            for w in range(r):
                cnt[bc_[bidx, w]] -= t
                cur[bc_[bidx, w]] += t
            crem[j] -= r
            qr[r] += 1
            _fdfs(mode, t, bidx, need - r, cnt, ctarget, bt_, br_, bc_, lvl_start, lvl_end, ck, crem, ncomp, qr,
                  best_q, cur, selp, fit + delta, n, found, alist)
            qr[r] -= 1
            crem[j] += r
            for w in range(r):
                cnt[bc_[bidx, w]] += t
                cur[bc_[bidx, w]] -= t
            if found[0] != 0:
                return


@njit(cache=True)
def _follow_ctx(hand_e, pc, pn, fk, fL, fm, D):
    """Precompute the assignment search context for a follower holding hand_e (esuit-s cards)."""
    ctarget = np.zeros(5, np.int64)
    _q1_targets(hand_e, pc, pn, fk, fL, fm, D, ctarget)
    bt_ = np.empty(1024, np.int64)
    br_ = np.empty(1024, np.int64)
    bc_ = np.empty((1024, NPOS), np.int8)
    lvl_start = np.zeros(5, np.int64)
    lvl_end = np.zeros(5, np.int64)
    _build_blocks(hand_e, pc, pn, fk, fL, fm, D, ctarget, bt_, br_, bc_, lvl_start, lvl_end)
    ck = np.zeros(64, np.int64)
    crem = np.zeros(64, np.int64)
    ncomp = 0
    for j in range(fm):
        if fk[j] >= 2:
            ck[ncomp] = fk[j]
            crem[ncomp] = fL[j]
            ncomp += 1
    best_q = np.zeros(MAXA_R, np.int64)
    best_q[0] = -1
    qr = np.zeros(MAXA_R, np.int64)
    cur = np.zeros(54, np.int64)
    selp = np.zeros(54, np.int64)
    found = np.zeros(3, np.int64)
    cnt = hand_e.copy()
    alist = np.empty((128, 54), np.int8)
    # mode 0: the best Q2 (best_q starts below any real value via the r = 0 slot being ignored:
    # a leaf always compares >= 0 against an all-zero vector, so seed with a sentinel)
    best_q[0] = 0
    for r in range(MAXA_R):
        best_q[r] = -1
    z = np.int64(0)
    _fdfs(z, np.int64(D + 1), z, z, cnt, ctarget, bt_, br_, bc_, lvl_start, lvl_end, ck, crem, np.int64(ncomp), qr,
          best_q, cur, selp, z, z, found, alist)
    na = found[1] if found[2] == 0 else -1
    return ctarget, bt_, br_, bc_, lvl_start, lvl_end, ck, crem, ncomp, best_q, alist, na


@njit(cache=True)
def _fits(ctx_ctarget, bt_, br_, bc_, lvl_start, lvl_end, ck, crem, ncomp, best_q, hand_e, selp, D, n):
    """Is there an assignment of value V* that fits together with selp in n cards?"""
    cnt = hand_e.copy()
    cur = np.zeros(54, np.int64)
    qr = np.zeros(MAXA_R, np.int64)
    found = np.zeros(3, np.int64)
    alist = np.empty((1, 54), np.int8)
    fit = 0
    for c in range(54):
        fit += selp[c]
    if fit > n:
        return False
    crem2 = crem.copy()
    z = np.int64(0)
    _fdfs(np.int64(1), np.int64(D + 1), z, z, cnt, ctx_ctarget, bt_, br_, bc_, lvl_start, lvl_end, ck, crem2,
          np.int64(ncomp), qr, best_q, cur, selp, np.int64(fit), np.int64(n), found, alist)
    return found[0] != 0


# ---------------------------------------------------------------------------------------------
# SJ-9 matching and strength
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _mdfs(j, m, sk, sL, cnt, pc, pn, keyk, keyL, lastplace, curtop, taken2):
    """Partition the remaining cards into the shapes sk/sL[j:]; best key-shape top, -1 if none.
    taken2[j] is the scratch row of depth j."""
    if j == m:
        return curtop
    k = sk[j]
    L = sL[j]
    best = -1
    same_prev = j > 0 and sk[j - 1] == k and sL[j - 1] == L
    taken = taken2[j]
    for pe in range(L - 1, NPOS):
        p0 = pe - L + 1
        good = True
        pa = -1
        for p in range(p0, pe + 1):
            nc = 0
            for i in range(pn[p]):
                if cnt[pc[p, i]] >= k:
                    nc += 1
            if nc == 0:
                good = False
                break
            if nc > 1:
                pa = p
        if not good:
            continue
        nch = pn[pa] if pa >= 0 else 1
        for ch in range(nch):
            if pa >= 0 and cnt[pc[pa, ch]] < k:
                continue
            w = 0
            place = pe * 64
            for p in range(p0, pe + 1):
                if p == pa:
                    taken[w] = pc[pa, ch]
                else:
                    for i in range(pn[p]):
                        if cnt[pc[p, i]] >= k:
                            taken[w] = pc[p, i]
                            break
                if pn[p] > 1:
                    place = pe * 64 + taken[w]
                w += 1
            if same_prev and place < lastplace:
                continue
            for w in range(L):
                cnt[taken[w]] -= k
            t = curtop
            if k == keyk and L == keyL and pe > t:
                t = pe
            r = _mdfs(j + 1, m, sk, sL, cnt, pc, pn, keyk, keyL, place, t, taken2)
            for w in range(L):
                cnt[taken[w]] += k
            if r > best:
                best = r
    return best


WS_CFG = 2592      # ws[WS_CFG + C_x]: a copy of the config vector (set_ws_cfg)
WS_SIZE = 2624


@njit(cache=True)
def make_ws():
    """Work array of the play kernels (one per rollout/batch call, so the hot path allocates
    nothing). One flat int64 array (one argument to pass around); the users carve views: pc (16, 4)
    at 0, pn (16,) at 64, cnt (54,) at 80, component k/L/top (64,) at 134/198/262, component cards
    (64, 16) at 326, shape k/L (64,) at 1350/1414, partition scratch (65, 16) at 1478, play (54,)
    at 2518, throw-check position masks (20,) at 2572, the config vector at WS_CFG (set_ws_cfg)."""
    return np.empty(WS_SIZE, np.int64)


@njit(cache=True)
def set_ws_cfg(ws, cfg):
    """Copy cfg into ws[WS_CFG:]: the record-level play kernels (_apply_play_r and below) read the
    config there, so their hot calls take one array argument (each array argument costs reference
    counting)."""
    for i in range(cfg.shape[0]):
        ws[WS_CFG + i] = cfg[i]


@njit(cache=True)
def play_strength_ws(cnt54, fk, fL, fm, s_esuit, lvl, trump, ws):
    """SJ-9.1/9.2: (esuit, strength) of a play against format F; strength -1 if it does not match.
    ws: work arrays (make_ws), so nothing is allocated."""
    e = -1
    total = 0
    for c in range(54):
        if cnt54[c] > 0:
            ec = card_esuit(c, lvl, trump)
            if e < 0:
                e = ec
            elif ec != e:
                return -1, -1
            total += cnt54[c]
    if e < 0 or (e != s_esuit and e != TRUMP):
        return e, -1
    # key shape: largest size, ties larger k
    keyk = 0
    keyL = 0
    for j in range(fm):
        if fk[j] * fL[j] > keyk * keyL or (fk[j] * fL[j] == keyk * keyL and fk[j] > keyk):
            keyk = fk[j]
            keyL = fL[j]
    if fm == 1 and fk[0] * fL[0] == 1:
        for c in range(54):
            if cnt54[c] > 0:
                return e, card_pos(c, lvl, trump)
    pc = ws[0:64].reshape((NPOS, 4))
    pn = ws[64:80]
    esuit_table(e, lvl, trump, pc, pn)
    # shapes sorted by size desc, then k desc
    sk = ws[1350:1414]
    sL = ws[1414:1478]
    for j in range(fm):
        sk[j] = fk[j]
        sL[j] = fL[j]
    for a in range(fm):
        for b2 in range(fm - 1 - a):
            if (sk[b2] * sL[b2] < sk[b2 + 1] * sL[b2 + 1]) or (
                    sk[b2] * sL[b2] == sk[b2 + 1] * sL[b2 + 1] and sk[b2] < sk[b2 + 1]):
                tk = sk[b2]
                sk[b2] = sk[b2 + 1]
                sk[b2 + 1] = tk
                tl = sL[b2]
                sL[b2] = sL[b2 + 1]
                sL[b2 + 1] = tl
    cnt = ws[80:134]
    for c in range(54):
        cnt[c] = cnt54[c]
    z = np.int64(0)
    m1 = np.int64(-1)
    taken2 = ws[1478:2518].reshape((65, NPOS))
    return e, _mdfs(z, np.int64(fm), sk, sL, cnt, pc, pn, np.int64(keyk), np.int64(keyL), m1, m1, taken2)



@njit(cache=True)
def play_strength(cnt54, fk, fL, fm, s_esuit, lvl, trump):
    """SJ-9.1/9.2: (esuit, strength) of a play against format F; strength -1 if it does not match."""
    return play_strength_ws(cnt54, fk, fL, fm, s_esuit, lvl, trump, make_ws())


# ---------------------------------------------------------------------------------------------
# SJ-4 declarations
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _decl_ok(ndecl, q, x, jS, p, y, j):
    """SJ-4.5: may seat p declare j copies of y against the standing (q, x, jS)?"""
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


@njit(cache=True)
def decl_options(st, b, cfg, p, out):
    """The legal declarations of seat p (SJ-4.3/4.5): returns how many, and sets out[a] = 1 for each
    when out is a mask (length > 0; an empty out only counts)."""
    s = st[b]
    lvl = s.hand_level
    nd = s.ndecl
    q = -1
    x = -1
    jS = 0
    if nd > 0:
        q = s.decl_seat[nd - 1]
        x = s.decl_card[nd - 1]
        jS = s.decl_cnt[nd - 1]
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
    q = -1
    x = -1
    jS = 0
    if nd > 0:
        q = s.decl_seat[nd - 1]
        x = s.decl_card[nd - 1]
        jS = s.decl_cnt[nd - 1]
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


# ---------------------------------------------------------------------------------------------
# deal, declaring flow, kitty (SJ-4, SJ-5)
# ---------------------------------------------------------------------------------------------

def _card_tables():
    """ESUIT_TABLE[lvl, trump + 1, c] = card_esuit(c, lvl, trump) and POS_TABLE[...] = card_pos(...)
    for every level 0..12 and trump -1 (undecided) .. 4 (NT) (SJ-3.3/3.4), from the rule functions."""
    esuit = getattr(card_esuit, "py_func", card_esuit)    # plain Python (no dispatch; JIT disabled too)
    pos = getattr(card_pos, "py_func", card_pos)
    es = np.empty((13, 6, 54), np.int8)
    ps = np.empty((13, 6, 54), np.int8)
    for lvl in range(13):
        for t in range(-1, 5):
            for c in range(54):
                es[lvl, t + 1, c] = esuit(c, lvl, t)
                ps[lvl, t + 1, c] = pos(c, lvl, t)
    return es, ps


ESUIT_TABLE, POS_TABLE = _card_tables()


@njit(cache=True)
def set_tables(st, b):
    """Fill the per-game esuit/position tables once trump is fixed: copies of the level's and trump's
    rows of ESUIT_TABLE and POS_TABLE."""
    s = st[b]
    lvl = s.hand_level
    t = s.trump
    s.es_tab[:] = ESUIT_TABLE[lvl, t + 1]
    s.pos_tab[:] = POS_TABLE[lvl, t + 1]


@njit(cache=True)
def _pick_up(st, b, cfg):
    """SJ-5.1: the banker adds the kitty (its K cards) to his hand and starts burying."""
    s = st[b]
    set_tables(st, b)
    for j in range(cfg[C_K]):
        s.hand[s.banker, s.kitty_order[j]] += 1
    s.phase = BURY
    s.actor = s.banker
    s.nsel = 0
    for c in range(54):
        s.sel[c] = 0


@njit(cache=True)
def _kitty_flip(st, b, cfg):
    """SJ-4.9 kitty flip: sets trump and the revealed prefix."""
    s = st[b]
    K = cfg[C_K]
    lvl = s.hand_level
    if cfg[C_FLIP] == 0:
        j = 0
        while j < K and s.kitty_order[j] >= 52:
            j += 1
        if j == K:
            s.trump = 4
            s.nrev = K
        else:
            s.trump = s.kitty_order[j] // 13
            s.nrev = j + 1
    else:
        for j in range(K):
            c = s.kitty_order[j]
            if c < 52 and c % 13 == lvl:
                s.trump = c // 13
                s.nrev = j + 1
                return
        s.nrev = K
        best = -1
        bp = -1
        for j in range(K):
            c = s.kitty_order[j]
            if c < 52:
                p = card_pos(c, lvl, -1)
                if p > bp:
                    bp = p
                    best = c
        s.trump = 4 if best < 0 else best // 13


@njit(cache=True)
def _finish_declaring(st, b, cfg):
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


@njit(cache=True)
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
        hand[p, c] += 1
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
    f, void_deals and hand_index. trump_preset is used in declaration_mode "preset"."""
    s = st[b]
    D = cfg[C_DECKS]
    H = cfg[C_H]
    K = cfg[C_K]
    for i in range(54 * D):
        s.order[i] = order[i]
    # whole-array stores (memsets), several times cheaper than element loops over the record
    s.hand[:, :] = 0
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
            s.hand[(s.f + i) % 4, order[i]] += 1
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


# ---------------------------------------------------------------------------------------------
# legal mask (section 4)
# ---------------------------------------------------------------------------------------------

@njit(inline="always", cache=True)
def _tuple_follow_size(hp, est, e, k):
    """SJ-8.3 for a led tuple of k: the best block a follower can give is a t-tuple, t = min(k, the
    largest count hp holds of one card of effective suit e)."""
    t = 0
    for c in range(54):
        if est[c] == e and hp[c] > t:
            t = hp[c]
    return min(t, k)


@njit(cache=True)
def _follow_mask(st, b, cfg, out):
    s = st[b]
    p = s.actor
    lvl = s.hand_level
    trump = s.trump
    e = s.lead_esuit
    n = s.lead_n
    hp = s.hand[p]
    sel = s.sel
    est = s.es_tab
    h = 0
    nons_sel = 0
    for c in range(54):
        if est[c] == e:
            h += hp[c]
        else:
            nons_sel += sel[c]
    if h <= n:
        room = nons_sel < n - h
        for c in range(54):
            if hp[c] > sel[c]:
                if room or est[c] == e:
                    out[c] = 1
        return
    multi = False
    for j in range(s.fm):
        if s.fk[j] >= 2:
            multi = True
    if not multi:
        for c in range(54):
            if hp[c] > sel[c] and est[c] == e:
                out[c] = 1
        return
    if s.fm == 1 and s.fL[0] == 1:
        # F is one tuple of k: the best block is a t-tuple, t = min(k, largest count of s) (SJ-8.3);
        # the optimal assignments are "t copies of x" for every x with >= t copies
        k = s.fk[0]
        t = _tuple_follow_size(hp, est, e, k)
        nsel = 0
        for c in range(54):
            nsel += sel[c]
        if t < 2:
            for c in range(54):
                if hp[c] > sel[c] and est[c] == e:
                    out[c] = 1
            return
        for x in range(54):
            if est[x] != e or hp[x] < t:
                continue
            base = nsel + (t - sel[x] if t > sel[x] else 0)
            if base > n:
                continue
            for c in range(54):
                if hp[c] > sel[c] and est[c] == e and out[c] == 0:
                    extra = 1 if (c != x or t <= sel[x]) else 0
                    if base + extra <= n:
                        out[c] = 1
        return
    D = cfg[C_DECKS]
    pc = np.empty((NPOS, 4), np.int64)
    pn = np.empty(NPOS, np.int64)
    esuit_table(e, lvl, trump, pc, pn)
    hand_e = np.zeros(54, np.int64)
    selp = np.zeros(54, np.int64)
    for c in range(54):
        if card_esuit(c, lvl, trump) == e:
            hand_e[c] = s.hand[p, c]
            selp[c] = s.sel[c]
    fk = np.empty(s.fm, np.int64)
    fL = np.empty(s.fm, np.int64)
    for j in range(s.fm):
        fk[j] = s.fk[j]
        fL[j] = s.fL[j]
    ctarget, bt_, br_, bc_, ls, le, ck, crem, ncomp, best_q, alist, na = _follow_ctx(hand_e, pc, pn, fk, fL,
                                                                                  s.fm, D)
    if na >= 0:
        # every optimal assignment A is listed: c is allowed iff some A fits with selection + c,
        # i.e. sum(max(A, sel)) + [A[c] <= sel[c]] <= n
        nsel = 0
        for c in range(54):
            nsel += selp[c]
        for i in range(na):
            base = 0
            for c in range(54):
                a = alist[i, c]
                base += a if a > selp[c] else selp[c]
            if base > n:
                continue
            for c in range(54):
                if hand_e[c] > selp[c] and out[c] == 0:
                    if base + (1 if alist[i, c] <= selp[c] else 0) <= n:
                        out[c] = 1
        return
    for c in range(54):
        if hand_e[c] - selp[c] > 0:
            selp[c] += 1
            if _fits(ctarget, bt_, br_, bc_, ls, le, ck, crem, ncomp, best_q, hand_e, selp, D, n):
                out[c] = 1
            selp[c] -= 1


@njit(cache=True)
def legal_mask(st, b, cfg, out):
    """out[0:84] := the acting seat's mask (section 4); zeros when no decision is pending."""
    s = st[b]
    out[:] = 0
    ph = s.phase
    if ph == DECLARE:
        out[A_PASS] = 1
        decl_options(st, b, cfg, s.actor, out)
    elif ph == NAME_TRUMP:
        for t in range(4):
            out[A_NAME + t] = 1
    elif ph == BURY:
        h = s.hand[s.banker]
        sel = s.sel
        for c in range(54):
            if h[c] > sel[c]:
                out[c] = 1
    elif ph == LEAD:
        h = s.hand[s.actor]
        sel = s.sel
        est = s.es_tab
        if s.nsel > 0:
            es = -1
            for c in range(54):
                if sel[c] > 0:
                    es = est[c]
                    break
            out[A_DONE] = 1
            for c in range(54):
                if h[c] > sel[c] and est[c] == es:
                    out[c] = 1
        else:
            for c in range(54):
                if h[c] > 0:
                    out[c] = 1
    elif ph == FOLLOW:
        _follow_mask(st, b, cfg, out)


# ---------------------------------------------------------------------------------------------
# playing: leads, throws, follows, trick resolution (SJ-7, SJ-8, SJ-9)
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _play_cards(s, seat, play):
    """Move the cards play of seat from its hand to the trick and the play log (s: the record)."""
    hand = s.hand[seat]
    tc = s.trick_cards[seat]
    pl = s.played[seat]
    sh = s.shown[seat]
    ls = s.log_seat
    lc = s.log_card
    lt = s.log_trick
    nlog = s.nlog
    t = s.ntricks
    for c in range(54):
        k = play[c]
        if k > 0:
            hand[c] -= k
            tc[c] += k
            pl[c] += k
            v = sh[c] - k
            sh[c] = v if v > 0 else 0
            for _ in range(k):
                ls[nlog] = seat
                lc[nlog] = c
                lt[nlog] = t
                nlog += 1
    s.nlog = nlog


@njit(cache=True)
def _play_one(s, seat, c, k):
    """_play_cards for a play of k copies of the one card c."""
    s.hand[seat, c] -= k
    s.trick_cards[seat, c] += k
    s.played[seat, c] += k
    v = s.shown[seat, c] - k
    s.shown[seat, c] = v if v > 0 else 0
    nlog = s.nlog
    t = s.ntricks
    for _ in range(k):
        s.log_seat[nlog] = seat
        s.log_card[nlog] = c
        s.log_trick[nlog] = t
        nlog += 1
    s.nlog = nlog


ALL_CARDS = np.uint64((1 << 54) - 1)


@njit(cache=True)
def _record_failed_throw(s, ws, ldr, play, cards):
    """SJ-7.4 failed throw of seat ldr, whose selection s.sel lies in the uint64 card set cards and
    of which play stays on the table: log the attempt, show the cards taken back, and charge the
    throw_penalty option (config in ws)."""
    nf = s.nft
    s.ft_seat[nf] = ldr
    s.ft_trick[nf] = s.ntricks
    att = s.ft_att[nf]
    for c in range(54):
        att[c] = s.sel[c]
    nret = 0
    x = cards
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - np.uint64(1)
        ret = s.sel[c] - play[c]
        nret += ret
        if ret > s.shown[ldr, c]:
            s.shown[ldr, c] = ret
    s.nft = nf + 1
    pmode = ws[WS_CFG + C_PENALTY]
    if pmode != 0:
        pts = ws[WS_CFG + C_PEN_PTS] if pmode == 1 else ws[WS_CFG + C_PEN_PTS] * nret
        if ldr % 2 == s.banker % 2:
            s.penalty += pts
        else:
            s.penalty -= pts


@njit(cache=True)
def _execute_lead_ws(st, b, cfg, ws):
    """DONE of a lead (SJ-7): decomposition, throw check, the play. ws: make_ws work arrays."""
    set_ws_cfg(ws, cfg)
    _execute_lead_r(st[b], ws)


@njit(cache=True)
def _execute_lead_r(s, ws):
    """_execute_lead_ws on the record s; the config is read from ws (set_ws_cfg)."""
    D = ws[WS_CFG + C_DECKS]
    lvl = s.hand_level
    trump = s.trump
    ldr = s.actor
    sel = s.sel
    est = s.es_tab
    pst = s.pos_tab
    nd = 0
    one = -1
    for c in range(54):
        if sel[c] > 0:
            nd += 1
            one = c
    e = est[one]
    if nd == 1:
        # one distinct card: a single or a tuple, an ordinary lead (SJ-7.3)
        k = sel[one]
        s.fm = 1
        s.fk[0] = k
        s.fL[0] = 1
        s.ftop[0] = pst[one]
        _play_one(s, ldr, one, k)
        sel[one] = 0
        s.nsel = 0
        s.lead_n = k
        s.lead_esuit = e
        s.leader = ldr
        s.ntp = 1
        s.actor = (ldr + 1) % 4
        s.phase = FOLLOW
        return
    pc = ws[0:64].reshape((NPOS, 4))
    pn = ws[64:80]
    for p in range(NPOS):
        pn[p] = 0
    cnt = ws[80:134]
    play = ws[2518:2572]
    for c in range(54):
        if est[c] == e:
            p = pst[c]
            pc[p, pn[p]] = c
            pn[p] += 1
        cnt[c] = sel[c]
        play[c] = 0
    ok = ws[134:198]
    oL = ws[198:262]
    ot = ws[262:326]
    oc = ws[326:1350].reshape((64, NPOS))
    m = _decomp_any(cnt, pc, pn, np.int64(D), ok, oL, ot, oc)
    forced = -1
    if m >= 2:
        # SJ-7.4 throw check. pm[5 dq + k]: bit p set iff seat leader+dq holds some card of
        # position p at least k times (so "beats (k, L, top)" is a run of L bits ending above top)
        pm = ws[2572:2592]
        for dq in range(1, 4):
            hq = s.hand[(ldr + dq) % 4]
            for k in range(5):
                pm[5 * dq + k] = 0
            for p in range(NPOS):
                for i in range(pn[p]):
                    v = hq[pc[p, i]]
                    for k in range(1, v + 1):
                        pm[5 * dq + k] |= 1 << p
        fsz = 0
        ftop = 0
        fmin = 0
        for j in range(m):
            beaten = False
            k = ok[j]
            L = oL[j]
            lo = ot[j] - L + 2
            if lo < 0:
                lo = 0
            for dq in range(1, 4):
                M = pm[5 * dq + k]
                R = M
                for i in range(1, L):
                    R &= M >> i
                if (R >> lo) != 0:
                    beaten = True
                    break
            if beaten:
                sz = ok[j] * oL[j]
                mn = 99
                for w in range(oL[j]):
                    if oc[j, w] < mn:
                        mn = oc[j, w]
                if forced < 0 or sz < fsz or (sz == fsz and (ot[j] < ftop or (ot[j] == ftop and mn < fmin))):
                    forced = j
                    fsz = sz
                    ftop = ot[j]
                    fmin = mn
    if forced >= 0:
        for w in range(oL[forced]):
            play[oc[forced, w]] += ok[forced]
        _record_failed_throw(s, ws, ldr, play, ALL_CARDS)
        s.fm = 1
        s.fk[0] = ok[forced]
        s.fL[0] = oL[forced]
        s.ftop[0] = ot[forced]
    else:
        for c in range(54):
            play[c] = s.sel[c]
        s.fm = m
        for j in range(m):
            s.fk[j] = ok[j]
            s.fL[j] = oL[j]
            s.ftop[j] = ot[j]
    n = 0
    for c in range(54):
        n += play[c]
        s.sel[c] = 0
    s.nsel = 0
    _play_cards(s, ldr, play)
    s.lead_n = n
    s.lead_esuit = e
    s.leader = ldr
    s.ntp = 1
    s.actor = (ldr + 1) % 4
    s.phase = FOLLOW


# rollout scratch (make_rs): position -> selected card (16,) at 0, the selection's position masks by
# copies k (k = 0..15, zero above D) at RS_PK, the throw check's masks pm[5 dq + k] (20,) at RS_PM,
# the stack of _decomp_ns at RS_STK
RS_PK = 16
RS_PM = 32
RS_STK = 64
RS_SIZE = RS_STK + (MAX_COMP + 1) * DS_BLK


@njit(cache=True)
def make_rs():
    """Scratch of the rollout's bit-set lead execution (_execute_lead_bits)."""
    return np.zeros(RS_SIZE, np.int64)


# the rollout's incremental card sets (make_bb, uint64): bb[8 seat + k] = the cards seat holds at
# least k times (k = 1..D; entries above D stay 0), bb[BB_SEL + k] = the cards selected at least
# k times. hand[c] > sel[c] iff some k has c in bb[8 seat + k] and not in bb[BB_SEL + k] (k = sel+1).
BB_SEL = 32
BB_SIZE = 48


@njit(cache=True)
def make_bb():
    """The rollout's incremental card sets (_legal_bits_inc)."""
    return np.zeros(BB_SIZE, np.uint64)


@njit(cache=True)
def _play_cards_bits(s, seat, play, cards):
    """_play_cards for a play whose cards are all in the uint64 set cards (the same writes, the log
    in card order), visiting only those cards."""
    hand = s.hand[seat]
    tc = s.trick_cards[seat]
    pl = s.played[seat]
    sh = s.shown[seat]
    nlog = s.nlog
    t = s.ntricks
    x = cards
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - np.uint64(1)
        k = play[c]
        if k > 0:
            hand[c] -= k
            tc[c] += k
            pl[c] += k
            v = sh[c] - k
            sh[c] = v if v > 0 else 0
            for _ in range(k):
                s.log_seat[nlog] = seat
                s.log_card[nlog] = c
                s.log_trick[nlog] = t
                nlog += 1
    s.nlog = nlog


@njit(cache=True)
def _execute_lead_bits(s, ws, esm, rs, bb):
    """_execute_lead_r with the same writes (record and verdict), computed on bit sets: the rollout's
    card sets bb (make_bb, equal to the record) and 16-bit position masks. SJ-7.2: while no position
    holds two different selected cards every component key names one component, so the canonical
    decomposition is greedy (as _decomp_fast): take the greatest key (size k L, then k, then top),
    where the key of copies k is the longest run of positions holding >= k copies (L = 1 for k = 1),
    then lower the masks under the run by k. An ambiguous selection splits one component per card
    when no tractor can form, else takes the SJ-7.2 search (_decomp_ns, allocation-free). SJ-7.4:
    the throw check against esm's above-position table (make_esm), or for a tractor the followers'
    position masks of esuit e."""
    sel = s.sel
    pst = s.pos_tab
    ldr = s.actor
    one = np.uint64(1)
    sb = bb[BB_SEL + 1]
    if popcount(sb) == 1:
        # one distinct card: a single or a tuple, an ordinary lead (SJ-7.3)
        c = np.int64(lowest_bit(sb))
        k = sel[c]
        s.fm = 1
        s.fk[0] = k
        s.fL[0] = 1
        s.ftop[0] = pst[c]
        _play_one(s, ldr, c, k)
        sel[c] = 0
        s.nsel = 0
        s.lead_n = k
        s.lead_esuit = s.es_tab[c]
        s.leader = ldr
        s.ntp = 1
        s.actor = (ldr + 1) % 4
        s.phase = FOLLOW
        return
    for k in range(16):
        rs[RS_PK + k] = 0
    occ = 0
    amb = False
    x = sb
    c = 0
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - one
        p = pst[c]
        if (occ >> p) & 1:
            amb = True
        occ |= 1 << p
        rs[p] = c
        for k in range(1, sel[c] + 1):
            rs[RS_PK + k] |= 1 << p
    D = ws[WS_CFG + C_DECKS]
    e = s.es_tab[c]
    # canonical decomposition into ws's component arrays (k at 134, L at 198, top at 262, cards at 326)
    m = 0
    pk2 = rs[RS_PK + 2]
    if amb and (pk2 & (pk2 >> 1)) == 0:
        # a position holds two different selected cards, but no two adjacent positions hold a
        # pair, so no tractor can form (SJ-6.2): every partition's greatest key list keeps each
        # card's copies whole, one tuple or single per card (SJ-6.1), listed in canonical order
        # (SJ-7.2: key (k, k, top) descending, then card index descending), here by insertion
        x = sb
        while x != 0:
            c = np.int64(lowest_bit(x))
            x &= x - one
            k = sel[c]
            p = pst[c]
            j = m
            while j > 0:
                kj = ws[134 + j - 1]
                tj = ws[262 + j - 1]
                if kj > k or (kj == k and (tj > p or (tj == p and ws[326 + NPOS * (j - 1)] > c))):
                    break
                ws[134 + j] = kj
                ws[198 + j] = 1
                ws[262 + j] = tj
                ws[326 + NPOS * j] = ws[326 + NPOS * (j - 1)]
                j -= 1
            ws[134 + j] = k
            ws[198 + j] = 1
            ws[262 + j] = p
            ws[326 + NPOS * j] = c
            m += 1
    elif amb:
        # a position holds two different selected cards: the SJ-7.2 search (_decomp_ns, as
        # _decomp_any does) on the esuit's position table, built as _execute_lead_r builds it
        pc = ws[0:64].reshape((NPOS, 4))
        pn = ws[64:80]
        for p in range(NPOS):
            pn[p] = 0
        x = esm[e]
        while x != 0:
            c = np.int64(lowest_bit(x))
            x &= x - one
            p = pst[c]
            pc[p, pn[p]] = c
            pn[p] += 1
        cnt = ws[80:134]
        for c in range(54):
            cnt[c] = sel[c]
        m = _decomp_ns(cnt, pc, pn, D, ws[134:198], ws[198:262], ws[262:326], ws[326:1350].reshape((64, NPOS)),
                       rs[RS_STK:], np.int64(0))
    while not amb:
        bs = -1
        bk = 0
        bt = 0
        bL = 0
        for k in range(D, 0, -1):
            M = rs[RS_PK + k]
            if M == 0:
                continue
            if k == 1:
                L = 1
                top = highest_bit(np.uint64(M))
            else:
                X = M
                L = 0
                last = 0
                while X != 0:
                    L += 1
                    last = X
                    X &= X >> 1
                top = highest_bit(np.uint64(last)) + L - 1
            sz = k * L
            if sz > bs or (sz == bs and (k > bk or (k == bk and top > bt))):
                bs = sz
                bk = k
                bt = top
                bL = L
        if bs < 0:
            break
        lo = bt - bL + 1
        for w in range(bL):
            ws[326 + NPOS * m + w] = rs[lo + w]
        ws[134 + m] = bk
        ws[198 + m] = bL
        ws[262 + m] = bt
        m += 1
        R = ((1 << bL) - 1) << lo
        for j in range(1, D + 1):
            rs[RS_PK + j] = (rs[RS_PK + j] & ~R) | (rs[RS_PK + j + bk] & R)
    forced = -1
    if m >= 2:
        # SJ-7.4 throw check (a throw has >= 2 components) as in _execute_lead_r. A single or tuple of
        # k copies is beaten iff some follower holds k copies of a card of esuit e above its top
        # (esm's ESM_ABOVE table: no position masks); a tractor needs the followers' position masks
        # pm[5 dq + k] (bit p iff seat leader+dq holds some card of position p at least k times),
        # built the first time one is checked
        q1 = (ldr + 1) % 4
        q2 = (ldr + 2) % 4
        q3 = (ldr + 3) % 4
        have_pm = False
        fsz = 0
        ftop = 0
        fmin = 0
        for j in range(m):
            k = ws[134 + j]
            L = ws[198 + j]
            tj = ws[262 + j]
            if L == 1:
                beaten = ((bb[8 * q1 + k] | bb[8 * q2 + k] | bb[8 * q3 + k]) & esm[ESM_ABOVE + NPOS * e + tj]) != 0
            else:
                if not have_pm:
                    em = esm[e]
                    for dq in range(1, 4):
                        q = (ldr + dq) % 4
                        for kk in range(1, D + 1):
                            M = 0
                            x = bb[8 * q + kk] & em
                            while x != 0:
                                M |= 1 << pst[lowest_bit(x)]
                                x &= x - one
                            rs[RS_PM + 5 * dq + kk] = M
                    have_pm = True
                lo = tj - L + 2
                beaten = False
                for dq in range(1, 4):
                    M = rs[RS_PM + 5 * dq + k]
                    R = M
                    for i in range(1, L):
                        R &= M >> i
                    if (R >> lo) != 0:
                        beaten = True
                        break
            if beaten:
                sz = k * L
                mn = 99
                for w in range(L):
                    if ws[326 + NPOS * j + w] < mn:
                        mn = ws[326 + NPOS * j + w]
                if forced < 0 or sz < fsz or (sz == fsz and (tj < ftop or (tj == ftop and mn < fmin))):
                    forced = j
                    fsz = sz
                    ftop = tj
                    fmin = mn
    play = ws[2518:2572]
    if forced >= 0:
        x = sb
        while x != 0:
            play[np.int64(lowest_bit(x))] = 0
            x &= x - one
        for w in range(ws[198 + forced]):
            play[ws[326 + NPOS * forced + w]] += ws[134 + forced]
        _record_failed_throw(s, ws, ldr, play, sb)
        s.fm = 1
        s.fk[0] = ws[134 + forced]
        s.fL[0] = ws[198 + forced]
        s.ftop[0] = ws[262 + forced]
    else:
        x = sb
        while x != 0:
            c = np.int64(lowest_bit(x))
            x &= x - one
            play[c] = sel[c]
        s.fm = m
        for j in range(m):
            s.fk[j] = ws[134 + j]
            s.fL[j] = ws[198 + j]
            s.ftop[j] = ws[262 + j]
    n = 0
    x = sb
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - one
        n += play[c]
        sel[c] = 0
    s.nsel = 0
    _play_cards_bits(s, ldr, play, sb)
    s.lead_n = n
    s.lead_esuit = e
    s.leader = ldr
    s.ntp = 1
    s.actor = (ldr + 1) % 4
    s.phase = FOLLOW


@njit(cache=True)
def _execute_lead(st, b, cfg):
    _execute_lead_ws(st, b, cfg, make_ws())


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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
    s.hand_over = 1
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


@njit(cache=True)
def _resolve_trick(s, ws):
    """SJ-9: the winner of the completed trick, its points (SJ-9.4), then the next lead; returns
    True at the end of the hand (the caller scores it with _finish_hand). s: the record; ws: make_ws
    work arrays with the config (set_ws_cfg)."""
    lvl = s.hand_level
    trump = s.trump
    ldr = s.leader
    fm = s.fm
    z = 0
    for j in range(fm):
        if s.fk[j] * s.fL[j] > z:
            z = s.fk[j] * s.fL[j]
    best = ldr
    n = s.lead_n
    lc = s.log_card
    l0 = s.nlog - 4 * n   # the trick's cards in the play log: n per seat, in play order
    if fm == 1 and s.fL[0] == 1:
        # F is one single or one tuple of k = n: a play matches iff it is k copies of one card of
        # esuit s or TRUMP (SJ-9.1); its strength is that card's position (SJ-9.2)
        est = s.es_tab
        pst = s.pos_tab
        se = s.lead_esuit
        be = -1
        bs = -1
        for dq in range(4):
            i0 = l0 + dq * n
            one = lc[i0]
            ok = True
            for i in range(i0 + 1, i0 + n):
                if lc[i] != one:
                    ok = False
            e = est[one]
            if not ok or (e != se and e != TRUMP):
                continue
            v = pst[one]
            if dq == 0:
                be = e
                bs = v
            elif (e == TRUMP and be != TRUMP) or (e == be and v > bs):
                best = (ldr + dq) % 4
                be = e
                bs = v
    else:
        # SJ-9.3 with each strength search (play_strength_ws) run only where it can decide: the
        # lead matches F with esuit s; a follower's play can only become best if its cards share
        # one esuit that is the best's (a stronger play) or TRUMP over a non-trump best (a ruff).
        # A successful throw (fm >= 2) cannot be beaten inside its own esuit: a follower's
        # stronger key component would have beaten it (SJ-7.4)
        est = s.es_tab
        se = s.lead_esuit
        be = se
        bs = -1           # the best's strength, searched when a play of its esuit is compared
        for dq in range(1, 4):
            i0 = l0 + dq * n
            e = est[lc[i0]]
            for i in range(i0 + 1, i0 + n):
                if est[lc[i]] != e:
                    e = -1
                    break
            if e == be:
                if best == ldr:
                    if fm >= 2:
                        continue
                    if bs < 0:
                        _, bs = play_strength_ws(s.trick_cards[ldr], s.fk, s.fL, fm, se, lvl, trump, ws)
            elif e != TRUMP:
                continue
            q = (ldr + dq) % 4
            _, st_ = play_strength_ws(s.trick_cards[q], s.fk, s.fL, fm, se, lvl, trump, ws)
            if st_ < 0:
                continue
            if (e == TRUMP and be != TRUMP) or (e == be and st_ > bs):
                best = q
                be = e
                bs = st_
    pts = 0
    tc = s.trick_cards
    ls = s.log_seat
    for i in range(l0, l0 + 4 * n):
        c = lc[i]
        pts += card_points(c)
        tc[ls[i], c] = 0
    t = s.ntricks
    s.tr_leader[t] = ldr
    s.tr_winner[t] = best
    s.tr_points[t] = pts
    s.tr_z[t] = z
    s.tr_single[t] = 1 if (fm == 1 and z == 1) else 0
    s.ntricks = t + 1
    s.points[best % 2] += pts
    s.ntp = 0
    s.lead_n = 0
    if s.nlog == 4 * ws[WS_CFG + C_H]:
        # every seat has played its H cards (SJ-1.3): the hands are empty
        return True
    s.leader = best
    s.actor = best
    s.phase = LEAD
    s.fm = 0
    return False


@njit(cache=True)
def _apply(st, b, cfg, a, ws):
    """Apply the legal action a of game b (no automatic steps). ws: make_ws work arrays holding the
    config (set_ws_cfg)."""
    s = st[b]
    ph = s.phase
    if ph == DECLARE:
        p = s.actor
        if a != A_PASS:
            if a >= A_BJ:
                y = 53
                j = a - A_BJ + 1
            elif a >= A_LJ:
                y = 52
                j = a - A_LJ + 1
            else:
                y = ((a - A_DECL) // 4) * 13 + s.hand_level
                j = (a - A_DECL) % 4 + 1
            nd = s.ndecl
            s.decl_seat[nd] = p
            s.decl_card[nd] = y
            s.decl_cnt[nd] = j
            s.ndecl = nd + 1
            if s.shown[p, y] < j:
                s.shown[p, y] = j
        s.seen[p] = s.ndecl
        if s.in_final:
            if a == A_PASS:
                s.fr_skips += 1
            else:
                s.fr_skips = 0
            s.phase = FINAL
        else:
            s.phase = DEAL
        s.actor = -1
        _advance(st, b, cfg)
    elif ph == NAME_TRUMP:
        s.trump = a - A_NAME
        _pick_up(st, b, cfg)
    elif _apply_play_r(s, a, ws):
        _finish_hand(st, b, cfg)


@njit(cache=True)
def _apply_play_r(s, a, ws):
    """_apply for BURY, LEAD and FOLLOW on the record s (config in ws, set_ws_cfg): returns True
    when the hand is over and must be scored (_finish_hand)."""
    ph = s.phase
    if ph == BURY:
        s.sel[a] += 1
        s.nsel += 1
        if s.nsel == ws[WS_CFG + C_K]:
            for c in range(54):
                s.hand[s.banker, c] -= s.sel[c]
                s.buried[c] = s.sel[c]
                s.sel[c] = 0
            s.nsel = 0
            s.phase = LEAD
            s.leader = s.banker
            s.actor = s.banker
    elif ph == LEAD:
        if a == A_DONE:
            _execute_lead_r(s, ws)
        else:
            s.sel[a] += 1
            s.nsel += 1
    elif ph == FOLLOW:
        s.sel[a] += 1
        s.nsel += 1
        if s.nsel == s.lead_n:
            p = s.actor
            sel = s.sel
            if s.nsel == 1:
                _play_one(s, p, a, 1)
                sel[a] = 0
            else:
                _play_cards(s, p, sel)
                for c in range(54):
                    sel[c] = 0
            s.nsel = 0
            s.ntp += 1
            if s.ntp == 4:
                return _resolve_trick(s, ws)
            s.actor = (p + 1) % 4
    return False


@njit(cache=True)
def _auto(st, b, cfg, tmp, ws):
    """auto_forced (section 4): apply single-option steps of BURY/LEAD/FOLLOW by themselves."""
    s = st[b]
    while s.phase == BURY or s.phase == LEAD or s.phase == FOLLOW:
        legal_mask(st, b, cfg, tmp)
        n = 0
        last = -1
        for a in range(NUM_ACTIONS):
            if tmp[a]:
                n += 1
                last = a
        if n != 1:
            return
        _apply(st, b, cfg, last, ws)


@njit(cache=True)
def step_ws(st, b, cfg, a, ws, tmp):
    """Apply a legal action of game b (the caller checked the mask) and everything automatic.
    ws: make_ws work arrays; tmp: uint8[84] scratch for auto_forced."""
    s = st[b]
    for i in range(4):
        s.rewards[i] = 0.0
    set_ws_cfg(ws, cfg)
    _apply(st, b, cfg, a, ws)
    if cfg[C_AUTO]:
        _auto(st, b, cfg, tmp, ws)


@njit(cache=True)
def step_one(st, b, cfg, a):
    """step_ws with its own work arrays."""
    step_ws(st, b, cfg, a, make_ws(), np.zeros(NUM_ACTIONS, np.uint8))


@njit(cache=True)
def after_deal_auto(st, b, cfg):
    """Run auto_forced after a deal started (reset, redeal, next hand)."""
    if cfg[C_AUTO]:
        tmp = np.zeros(NUM_ACTIONS, np.uint8)
        ws = make_ws()
        set_ws_cfg(ws, cfg)
        _auto(st, b, cfg, tmp, ws)


# ---------------------------------------------------------------------------------------------
# batch kernels
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def batch_current_player(st, out):
    for b in range(st.shape[0]):
        ph = st[b].phase
        out[b] = st[b].actor if ph <= FOLLOW else -1


@njit(cache=True)
def batch_legal_mask(st, cfg, out):
    for b in range(st.shape[0]):
        legal_mask(st, b, cfg, out[b])


@njit(cache=True)
def batch_step(st, cfg, actions):
    ws = make_ws()
    tmp = np.zeros(NUM_ACTIONS, np.uint8)
    for b in range(st.shape[0]):
        s = st[b]
        if actions[b] < 0 or s.phase > FOLLOW:
            for i in range(4):
                s.rewards[i] = 0.0
            continue
        step_ws(st, b, cfg, actions[b], ws, tmp)


@njit(cache=True)
def _esuit_bits(st, b, esm):
    """esm[e] := the cards of esuit e as a uint64 bit set (from the game's es_tab)."""
    _esuit_bits_r(st[b], esm)


@njit(cache=True)
def _esuit_bits_r(s, esm):
    """_esuit_bits on the record s."""
    est = s.es_tab
    for e in range(5):
        esm[e] = 0
    for c in range(54):
        esm[est[c]] |= np.uint64(1) << np.uint64(c)


# the rollout's esuit tables (make_esm): esm[e] = the cards of esuit e (_esuit_bits), and
# esm[ESM_ABOVE + NPOS e + p] = the cards of esuit e at positions above p (SJ-3.4)
ESM_ABOVE = 5
ESM_SIZE = ESM_ABOVE + 5 * NPOS


@njit(cache=True)
def make_esm():
    """The rollout's esuit tables (_esuit_tables_r)."""
    return np.zeros(ESM_SIZE, np.uint64)


@njit(cache=True)
def _esuit_tables_r(s, esm):
    """make_esm's tables for the record's trump and level (es_tab, pos_tab)."""
    _esuit_bits_r(s, esm)
    for i in range(ESM_ABOVE, ESM_SIZE):
        esm[i] = 0
    est = s.es_tab
    pst = s.pos_tab
    for c in range(54):
        cb = np.uint64(1) << np.uint64(c)
        base = ESM_ABOVE + NPOS * est[c]
        for p in range(pst[c]):
            esm[base + p] |= cb


@njit(cache=True)
def _legal_bits(st, b, cfg, esm):
    """The acting seat's legal actions as a uint64 bit set (bit a = action a, a <= 54) where that
    is cheap: BURY, LEAD and every FOLLOW except formats with a tractor or several tuples; there it
    returns 0 (use legal_mask). Agrees with legal_mask (section 4) bit for bit; esm: _esuit_bits."""
    return _legal_bits_r(st[b], esm)


@njit(cache=True)
def _legal_bits_r(s, esm):
    """_legal_bits on the record s."""
    ph = s.phase
    one = np.uint64(1)
    sel = s.sel
    if ph == BURY:
        hp = s.hand[s.banker]
        av = np.uint64(0)
        for c in range(54):
            if hp[c] > sel[c]:
                av |= one << np.uint64(c)
        return av
    if ph == LEAD:
        hp = s.hand[s.actor]
        av = np.uint64(0)
        for c in range(54):
            if hp[c] > sel[c]:
                av |= one << np.uint64(c)
        if s.nsel == 0:
            return av
        es = -1
        for c in range(54):
            if sel[c] > 0:
                es = s.es_tab[c]
                break
        return (av & esm[es]) | (one << np.uint64(A_DONE))
    if ph != FOLLOW:
        return np.uint64(0)
    hp = s.hand[s.actor]
    e = s.lead_esuit
    n = s.lead_n
    est = s.es_tab
    av = np.uint64(0)
    h = 0
    ssel = 0
    for c in range(54):
        if hp[c] > sel[c]:
            av |= one << np.uint64(c)
        if est[c] == e:
            h += hp[c]
            ssel += sel[c]
    em = esm[e]
    if h <= n:
        # SJ-8.2(a): every s card, and other cards while fewer than n - h of them are selected
        if s.nsel - ssel < n - h:
            return av
        return av & em
    multi = False
    for j in range(s.fm):
        if s.fk[j] >= 2:
            multi = True
    if not multi:
        return av & em
    if s.fm == 1 and s.fL[0] == 1:
        # one tuple of k led (as in _follow_mask): t = min(k, largest count of s); the optimal
        # assignments are t copies of one card x
        k = s.fk[0]
        t = _tuple_follow_size(hp, est, e, k)
        if t < 2:
            return av & em
        nsel = s.nsel
        allow = np.uint64(0)
        for x in range(54):
            if est[x] != e or hp[x] < t:
                continue
            base = nsel + (t - sel[x] if t > sel[x] else 0)
            if base > n:
                continue
            if base + 1 <= n:
                return av & em
            if t > sel[x]:
                allow |= one << np.uint64(x)
        return allow & av
    return np.uint64(0)


@njit(cache=True)
def _hand_bits_seat(s, bb, seat):
    """bb's sets of one seat from its hand counts (at most D <= 4 copies of a card: SJ-1.2)."""
    hp = s.hand[seat]
    bb[8 * seat] = 0
    for k in range(1, 5):
        held = np.uint64(0)
        for c in range(54):
            held |= np.uint64(hp[c] >= k) << np.uint64(c)
        bb[8 * seat + k] = held
    for k in range(5, 8):
        bb[8 * seat + k] = 0


@njit(cache=True)
def _hand_bits_all(s, bb):
    """bb from the record: every seat's sets and the selection's."""
    for seat in range(4):
        _hand_bits_seat(s, bb, seat)
    sel = s.sel
    bb[BB_SEL] = 0
    for k in range(1, 5):
        chosen = np.uint64(0)
        for c in range(54):
            chosen |= np.uint64(sel[c] >= k) << np.uint64(c)
        bb[BB_SEL + k] = chosen
    for k in range(5, 8):
        bb[BB_SEL + k] = 0


@njit(cache=True)
def _legal_bits_inc(s, esm, bb, D):
    """_legal_bits_r from the incremental sets bb (the same bit set, or 0 where _legal_bits_r gives
    0): no scan of the 54 counts."""
    ph = s.phase
    one = np.uint64(1)
    seat = s.actor
    av = np.uint64(0)
    for k in range(1, D + 1):
        av |= bb[8 * seat + k] & ~bb[BB_SEL + k]
    if ph == BURY:
        return av
    if ph == LEAD:
        if s.nsel == 0:
            return av
        es = s.es_tab[lowest_bit(bb[BB_SEL + 1])]
        return (av & esm[es]) | (one << np.uint64(A_DONE))
    if ph != FOLLOW:
        return np.uint64(0)
    e = s.lead_esuit
    n = s.lead_n
    em = esm[e]
    h = 0
    ssel = 0
    top = 0
    for k in range(1, D + 1):
        he = bb[8 * seat + k] & em
        if he != 0:
            top = k
        h += np.int64(popcount(he))
        ssel += np.int64(popcount(bb[BB_SEL + k] & em))
    if h <= n:
        # SJ-8.2(a): every s card, and other cards while fewer than n - h of them are selected
        if s.nsel - ssel < n - h:
            return av
        return av & em
    multi = False
    for j in range(s.fm):
        if s.fk[j] >= 2:
            multi = True
    if not multi:
        return av & em
    if s.fm == 1 and s.fL[0] == 1:
        # one tuple of k led (as _legal_bits_r): t = min(k, largest count of s) (SJ-8.3); the
        # optimal assignments are t copies of one card x
        t = min(top, s.fk[0])
        if t < 2:
            return av & em
        nsel = s.nsel
        sel = s.sel
        allow = np.uint64(0)
        x_set = bb[8 * seat + t] & em
        while x_set != 0:
            x = lowest_bit(x_set)
            x_set &= x_set - one
            base = nsel + (t - sel[x] if t > sel[x] else 0)
            if base > n:
                continue
            if base + 1 <= n:
                return av & em
            if t > sel[x]:
                allow |= one << x
        return allow & av
    return np.uint64(0)


@njit(cache=True)
def _bb_take_played(s, bb, nlog0, D):
    """Bring bb's card sets of the seats that played the log entries nlog0.. up to their hands."""
    one = np.uint64(1)
    for i in range(nlog0, s.nlog):
        seat = s.log_seat[i]
        c = s.log_card[i]
        v = s.hand[seat, c]
        cb = one << np.uint64(c)
        for k in range(1, D + 1):
            if v >= k:
                bb[8 * seat + k] |= cb
            else:
                bb[8 * seat + k] &= ~cb


@njit(cache=True)
def _rollout_one(st, b, cfg, rng, mask, ws, esm, rs, bb):
    """Play game b with uniformly random legal actions (each decision uniform over its legal
    mask) until it ends or needs a deal; returns the decisions played. Each action is drawn exactly
    as random_legal(rng, b, legal mask) draws it (same generator use, same action), from the
    _legal_bits set or _declare_bits where that applies (no 84-entry mask); the step is step_ws's,
    with BURY, LEAD and FOLLOW applied on the record (_apply_play_r, leads by _execute_lead_bits). Without
    auto_forced the legal bits come from card sets kept up to date across the plays
    (_legal_bits_inc; bb: make_bb, rs: make_rs, esm: make_esm), and single-card follows and lead
    composition are drawn and applied on those sets directly. ws must hold the config (set_ws_cfg)."""
    s = st[b]
    auto = cfg[C_AUTO]
    D = cfg[C_DECKS]
    one = np.uint64(1)
    n = 0
    key = -1
    fresh = False    # bb holds the record's card sets (rebuilt after declaring or naming trump)
    if s.phase <= FOLLOW:
        # every step clears the rewards (step_ws); only _finish_hand pays any, and it ends the
        # loop (OVER or NEED_DEAL), so clearing them before the first decision is the same
        for i in range(4):
            s.rewards[i] = 0.0
    allow_nt = cfg[C_ALLOW_NT]
    while s.phase <= FOLLOW:
        ph = s.phase
        if ph == FOLLOW and fresh and s.lead_n == 1:
            # a single led (the most common decision): SJ-8.2 allows a card of the led esuit if
            # the seat holds one, else any card; drawn and played as the general path would, with
            # no selection to keep (the play completes at once) and one card set bit to clear
            seat = s.actor
            held = bb[8 * seat + 1]
            bits = held & esm[s.lead_esuit]
            if bits == 0:
                bits = held
            a = nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
            bb[8 * seat + s.hand[seat, a]] &= ~(one << np.uint64(a))
            _play_one(s, seat, a, 1)
            s.ntp += 1
            if s.ntp == 4:
                if _resolve_trick(s, ws):
                    _finish_hand(st, b, cfg)
            else:
                s.actor = (seat + 1) % 4
            n += 1
            continue
        if ph == LEAD and fresh:
            # composing a lead (section 4): the first card is any held card, each later one a
            # further held card of the first card's esuit, or DONE (bits as _legal_bits_inc's)
            seat = s.actor
            if s.nsel == 0:
                bits = bb[8 * seat + 1]
            else:
                bits = np.uint64(0)
                for k in range(1, D + 1):
                    bits |= bb[8 * seat + k] & ~bb[BB_SEL + k]
                bits = (bits & esm[s.es_tab[lowest_bit(bb[BB_SEL + 1])]]) | (one << np.uint64(A_DONE))
            a = nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
            if a == A_DONE:
                nlog0 = s.nlog
                _execute_lead_bits(s, ws, esm, rs, bb)
                for k in range(1, D + 1):
                    bb[BB_SEL + k] = 0
                _bb_take_played(s, bb, nlog0, D)
            else:
                v = s.sel[a] + 1
                s.sel[a] = v
                s.nsel += 1
                bb[BB_SEL + v] |= one << np.uint64(a)
            n += 1
            continue
        bits = np.uint64(0)
        off = 0          # bit i of bits is action off + i
        if ph == DECLARE:
            bits = _declare_bits(s, allow_nt)
            off = A_PASS
        elif ph >= BURY:
            k2 = s.hand_index * 128 + s.trump * 16 + s.hand_level
            if k2 != key:
                _esuit_tables_r(s, esm)
                key = k2
            if auto:
                bits = _legal_bits_r(s, esm)
            else:
                if not fresh:
                    _hand_bits_all(s, bb)
                    fresh = True
                bits = _legal_bits_inc(s, esm, bb, D)
        if bits == 0:
            legal_mask(st, b, cfg, mask)
            a = random_legal(rng, b, mask)
        else:
            a = off + nth_set_bit(bits, rng_below(rng, b, np.int64(popcount(bits))))
        nlog0 = s.nlog
        if ph == LEAD and a == A_DONE and fresh:
            _execute_lead_bits(s, ws, esm, rs, bb)
        elif ph >= BURY:
            if _apply_play_r(s, a, ws):
                _finish_hand(st, b, cfg)
        else:
            _apply(st, b, cfg, a, ws)
            fresh = False
        if auto:
            _auto(st, b, cfg, mask, ws)
        elif fresh and s.phase <= FOLLOW:
            # keep bb equal to the record: the selection grew by a or was cleared by a play or
            # the bury; a play took the logged cards from its seat's hand
            if s.nsel == 0:
                for k in range(1, D + 1):
                    bb[BB_SEL + k] = 0
            else:
                bb[BB_SEL + s.sel[a]] |= one << np.uint64(a)
            if ph == BURY and s.phase != BURY:
                _hand_bits_seat(s, bb, s.banker)
            _bb_take_played(s, bb, nlog0, D)
        n += 1
    return n


@njit(cache=True)
def _rollout_one_ref(st, b, cfg, rng, mask):
    """The plain rollout loop (legal_mask, random_legal, step_one): the reference the fast one is
    tested against."""
    s = st[b]
    n = 0
    while s.phase <= FOLLOW:
        legal_mask(st, b, cfg, mask)
        a = random_legal(rng, b, mask)
        step_one(st, b, cfg, a)
        n += 1
    return n


@njit(cache=True)
def batch_rollout_ref(st, cfg, rng):
    """batch_rollout with the plain loop (tests)."""
    n = 0
    mask = np.zeros(NUM_ACTIONS, np.uint8)
    for b in range(st.shape[0]):
        n += _rollout_one_ref(st, b, cfg, rng, mask)
    return n


@njit(cache=True, nogil=True)
def batch_rollout(st, cfg, rng):
    """Play every live game with uniformly random legal actions until it ends or needs a deal
    (each game has its own kernel generator rng[b]; every decision is uniform over the legal mask
    of section 4, CARD by CARD while composing). Runs without the GIL: BatchGame calls it on
    slices of the batch from several threads."""
    n = 0
    mask = np.zeros(NUM_ACTIONS, np.uint8)
    ws = make_ws()
    set_ws_cfg(ws, cfg)
    esm = make_esm()
    rs = make_rs()
    bb = make_bb()
    for b in range(st.shape[0]):
        n += _rollout_one(st, b, cfg, rng, mask, ws, esm, rs, bb)
    return n


@njit(cache=True)
def sync_info(st, b, cfg, mask, info, rewards):
    """The AEC adapter's view after a call: info = [actor or -1, phase, term, trunc, result valid,
    result hand index]; rewards of the latest step; the actor's mask."""
    s = st[b]
    ph = s.phase
    info[0] = s.actor if ph <= FOLLOW else -1
    info[1] = ph
    info[2] = s.term
    info[3] = s.trunc
    info[4] = s.r_valid
    info[5] = s.r_hand_index
    for i in range(4):
        rewards[i] = s.rewards[i]
    if ph <= FOLLOW:
        legal_mask(st, b, cfg, mask)
    else:
        mask[:] = 0


@njit(cache=True)
def env_step(st, b, cfg, a, mask, info, rewards):
    """One AEC step in one call: apply action a, run everything automatic, report (sync_info; info
    must hold the report of the state before the step). Returns what the step changed, in the terms of
    the AEC adapter's quick step (cardzoo.aec `_game_quick_step`): the seat to act next when the step
    was quiet (the same phase, the same result, nobody paid, a seat still to act), -3 - that seat
    (cardzoo.aec.PHASE_STEP) when it was quiet except that the phase changed, else -1."""
    phase = info[1]
    r_valid = info[4]
    r_key = info[5]
    step_one(st, b, cfg, a)
    sync_info(st, b, cfg, mask, info, rewards)
    actor = info[0]
    if actor < 0 or info[4] != r_valid or info[5] != r_key:
        return -1
    for i in range(4):
        if rewards[i] != 0.0:
            return -1
    if info[1] != phase:
        return -3 - actor
    return actor


def make_rng(seed, n):
    return seed_generators(seed, n)


# ---------------------------------------------------------------------------------------------
# legal-play enumerator: the complete legal plays of the current decision as count vectors
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _ms_iter(L, cl, lo, hi, suf, extra, anysize, cur, xs, rm, out, count, filt, hand_e, ctarget, bt_, br_, bc_,
             ls, le, ck, crem, ncomp, best_q, D, n):
    """Enumerate the multisets x over the cards cl[:L] with lo <= x <= hi and sum(x - lo) = extra
    (anysize: of any size, the all-zero play excluded) in lexicographic order of (x[cl[0]], x[cl[1]],
    ...); append those passing the follow filter to out; count[0] += 1 each. One loop, no recursion
    (no per-node calls). cur holds base + lo on entry and is restored; suf[i] = sum of hi - lo over
    cl[i:]; xs/rm: int64 work of length >= L + 1 (the added copies per level, the cards still to add)."""
    cap = out.shape[0]
    tot0 = 0
    if anysize:
        for w in range(L):
            tot0 += cur[cl[w]]
    i = 0
    rm[0] = extra
    xs[0] = -1
    dsum = 0
    while i >= 0:
        leaf = i == L or (not anysize and rm[i] == 0)
        if leaf:
            if anysize and tot0 + dsum == 0:
                pass
            elif filt == 0 or _fits(ctarget, bt_, br_, bc_, ls, le, ck, crem, ncomp, best_q, hand_e, cur, D, n):
                k = count[0]
                if k < cap:
                    for c in range(54):
                        out[k, c] = cur[c]
                count[0] = k + 1
            # back to the deepest level that still chooses
            i -= 1
            if not anysize:
                while i >= 0 and xs[i] < 0:
                    i -= 1
            continue
        c = cl[i]
        x = xs[i]
        if x >= 0:
            cur[c] -= x
            dsum -= x
        x += 1
        top = hi[c] - lo[c]
        if not anysize:
            r = rm[i]
            if top > r:
                top = r
            # the cards left after this level must fit the later levels' room
            low = r - suf[i + 1]
            if x < low:
                x = low
        if x > top:
            xs[i] = -1
            i -= 1
            continue
        xs[i] = x
        cur[c] += x
        dsum += x
        if not anysize:
            rm[i + 1] = rm[i] - x
        i += 1
        if i < L:
            xs[i] = -1


@njit(cache=True)
def _count_ms(cl, L, lo, hi, extra, anysize, dp):
    """Number of multisets lo <= x <= hi over cl of size sum(lo) + extra (anysize: of any size,
    the empty one excluded), capped at 2**62. dp: work of length >= extra + 1."""
    cap = np.int64(1) << np.int64(62)
    if anysize:
        tot = np.int64(1)
        for i in range(L):
            m = hi[cl[i]] - lo[cl[i]] + 1
            if tot > cap // m:
                return cap
            tot *= m
        empty = True
        for i in range(L):
            if lo[cl[i]] > 0:
                empty = False
        return tot - 1 if empty else tot
    if extra < 0:
        return np.int64(0)
    for a in range(extra + 1):
        dp[a] = 0
    dp[0] = 1
    for i in range(L):
        m = hi[cl[i]] - lo[cl[i]]
        if m == 0:
            continue
        # in place, high to low: dp[a] = sum of the old dp[a - x], x = 0..m
        for a in range(extra, 0, -1):
            v = dp[a]
            for x in range(1, m + 1):
                if a - x < 0:
                    break
                v += dp[a - x]
            dp[a] = v if v < cap else cap
    return dp[extra]


@njit(cache=True)
def _enum(cl, L, lo, hi, extra, anysize, base, out, count, filt, hand_e, ctarget, bt_, br_, bc_, ls, le, ck,
          crem, ncomp, best_q, D, n, w2):
    """Wrapper: extra = cards to add beyond lo (exact size), base = fixed counts added to every play.
    Without a filter, a family larger than out is only counted (count[0] += its size).
    w2: int64 work of length 421 (suffix room 0:64, current play 64:128, counting 128:293 (extra <= 164),
    enumeration levels 293:357 and 357:421)."""
    total = _count_ms(cl, L, lo, hi, extra, anysize, w2[128:293])
    if total == 0:
        return
    if not filt and count[0] + total > out.shape[0]:
        count[0] += total
        return
    if filt and total > 4 * out.shape[0] + 100000:
        count[0] = -(np.int64(1) << np.int64(62))
        return
    suf = w2[0:64]
    suf[L] = 0
    for i in range(L - 1, -1, -1):
        suf[i] = suf[i + 1] + hi[cl[i]] - lo[cl[i]]
    if not anysize and extra > suf[0]:
        return
    cur = w2[64:128]
    for c in range(54):
        cur[c] = base[c]
    for i in range(L):
        cur[cl[i]] += lo[cl[i]]
    _ms_iter(np.int64(L), cl, lo, hi, suf, np.int64(extra), 1 if anysize else 0, cur, w2[293:357], w2[357:421],
             out, count, np.int64(1 if filt else 0), hand_e, ctarget, bt_, br_, bc_, ls, le, ck, crem,
             np.int64(ncomp), best_q, np.int64(D), np.int64(n))


LP_WS = 768   # int64 work of the enumerator (legal_plays_ws)


@njit(cache=True)
def legal_plays(st, b, cfg, out):
    """Every complete legal play of the current BURY/LEAD/FOLLOW decision that contains the current
    selection, as card-count vectors in out[i, 0:54]. Returns the number of such plays; when that
    exceeds out.shape[0] the plays are not all written (a family too large for out is counted, not
    listed; a negative value means a filtered follow family too large to search). Other phases: 0.
    Rows 0..min(count, out.shape[0]) - 1 are written in full: out's prior contents never matter."""
    return legal_plays_ws(st, b, cfg, out, np.empty(LP_WS, np.int64))


@njit(cache=True)
def _follow_fast(s, out, lst):
    """The common FOLLOW decisions with nothing selected (s.nsel == 0), listed directly: the same plays
    in the same order as the general path of legal_plays_ws. Returns the count, or -1 where the
    general path must run (a led tuple/tractor/throw that the follower must match from several
    shapes of the led esuit). lst: int64 work of length >= 55 (the listed cards)."""
    p = s.actor
    e = s.lead_esuit
    n = s.lead_n
    hp = s.hand[p]
    est = s.es_tab
    cap = out.shape[0]
    # h = held cards of the led esuit (branch-free: the loop vectorizes)
    h = 0
    for c in range(54):
        h += np.int64(hp[c]) * np.int64(est[c] == e)
    if h > n:
        if n == 1:
            # SJ-8.1: a single led and the follower holds its esuit: each held card of it alone, in
            # card order (the general path's one-free-card listing)
            m = 0
            for c in range(54):
                lst[m] = c
                m += np.int64(est[c] == e) & np.int64(hp[c] > 0)
            for r in range(min(m, cap)):
                for c2 in range(54):
                    out[r, c2] = 0
                out[r, lst[r]] = 1
            return m
        if s.fm != 1 or s.fL[0] != 1:
            return -1
        # a led tuple of k = n cards. SJ-8.3: holding k copies of some card of the esuit, the follow
        # must be such a k-tuple; the general path lists them (as n-card multisets containing an
        # optimal assignment) in product order over ascending cards: the last card first
        k = n
        m = 0
        for c in range(53, -1, -1):
            lst[m] = c
            m += np.int64(est[c] == e) & np.int64(hp[c] >= k)
        if m == 0:
            return -1
        for r in range(min(m, cap)):
            for c2 in range(54):
                out[r, c2] = 0
            out[r, lst[r]] = k
        return m
    if n - h > 1:
        return -1
    # SJ-8.2(a): every held card of the led esuit, plus (n = h + 1) any one other card. The general
    # path lists the other card's choices in product order over ascending cards, i.e. the last card
    # first: descending here
    m = 0
    for c in range(53, -1, -1):
        lst[m] = c
        m += np.int64(est[c] != e) & np.int64(hp[c] > 0)
    if n == h:
        m = 1
        lst[0] = -1
    for r in range(min(m, cap)):
        for c2 in range(54):
            out[r, c2] = hp[c2] if est[c2] == e else 0
        if lst[r] >= 0:
            out[r, lst[r]] = 1
    return m


@njit(cache=True)
def legal_plays_ws(st, b, cfg, out, w):
    """legal_plays with its int64 work w (length >= LP_WS) passed in, so that batch callers allocate
    it once; w's prior contents never matter."""
    s = st[b]
    ph = s.phase
    if ph == FOLLOW and s.nsel == 0:
        k = _follow_fast(s, out, w[0:64])
        if k >= 0:
            return k
    lvl = s.hand_level
    trump = s.trump
    D = cfg[C_DECKS]
    est = s.es_tab   # esuits (SJ-3.3); trump is fixed in BURY, LEAD and FOLLOW
    # one work array, carved into views; only count, lo, base and hand_e are read before being
    # written (cl/hi are read for listed cards only, the rest is scratch)
    w[0:109] = 0
    w[163:217] = 0
    w[293:347] = 0
    count = w[0:1]
    cl = w[1:55]
    lo = w[55:109]
    hi = w[109:163]
    base = w[163:217]
    # dummies for the follow filter (zb: any int8 matrix; out is one)
    z1 = w[217:222]
    zq = w[222:239]
    z54 = w[239:293]
    zb = out
    hand_e = w[293:347]
    w2 = w[347:768]
    if ph == BURY:
        L = 0
        for c in range(54):
            if s.hand[s.banker, c] > 0:
                cl[L] = c
                L += 1
                lo[c] = s.sel[c]
                hi[c] = s.hand[s.banker, c]
        _enum(cl, L, lo, hi, cfg[C_K] - s.nsel, False, base, out, count, False, z54, z1, z1, z1, zb, z1, z1, z1,
              z1, 0, zq, D, 0, w2)
    elif ph == LEAD:
        p = s.actor
        es = -1
        for c in range(54):
            if s.sel[c] > 0:
                es = est[c]
                break
        for e in range(5):
            if es >= 0 and e != es:
                continue
            L = 0
            for c in range(54):
                if s.hand[p, c] > 0 and est[c] == e:
                    cl[L] = c
                    L += 1
                    lo[c] = s.sel[c]
                    hi[c] = s.hand[p, c]
            if L > 0:
                _enum(cl, L, lo, hi, 0, True, base, out, count, False, z54, z1, z1, z1, zb, z1, z1, z1, z1, 0, zq,
                      D, 0, w2)
    elif ph == FOLLOW:
        p = s.actor
        e = s.lead_esuit
        n = s.lead_n
        h = 0
        for c in range(54):
            if est[c] == e:
                h += s.hand[p, c]
        if h <= n:
            L = 0
            nons = 0
            for c in range(54):
                if s.hand[p, c] > 0:
                    if est[c] == e:
                        base[c] = s.hand[p, c]
                    else:
                        cl[L] = c
                        L += 1
                        lo[c] = s.sel[c]
                        hi[c] = s.hand[p, c]
                        nons += s.sel[c]
            _enum(cl, L, lo, hi, n - h - nons, False, base, out, count, False, z54, z1, z1, z1, zb, z1, z1, z1,
                  z1, 0, zq, D, 0, w2)
        else:
            L = 0
            ns = 0
            for c in range(54):
                if s.hand[p, c] > 0 and est[c] == e:
                    cl[L] = c
                    L += 1
                    lo[c] = s.sel[c]
                    hi[c] = s.hand[p, c]
                    ns += s.sel[c]
                    hand_e[c] = s.hand[p, c]
            multi = False
            for j in range(s.fm):
                if s.fk[j] >= 2:
                    multi = True
            if multi and s.fm == 1 and s.fL[0] == 1 and n - ns >= 2:
                # a led tuple and no pair of its esuit held: no tuple to match (SJ-8.3), every
                # n-card play of the esuit is legal; the same listing as the assignment filter's
                # (its one optimal assignment is empty), without building it
                t = 0
                for i in range(L):
                    if hi[cl[i]] > t:
                        t = hi[cl[i]]
                if t < 2:
                    multi = False
            if not multi and n - ns == 1:
                # one free card of s: each distinct s card with a spare copy completes a play
                k = 0
                for i in range(L):
                    c = cl[i]
                    if hi[c] > lo[c]:
                        if k < out.shape[0]:
                            for c2 in range(54):
                                out[k, c2] = lo[c2]
                            out[k, c] += 1
                        k += 1
                count[0] = k
            elif not multi:
                _enum(cl, L, lo, hi, n - ns, False, base, out, count, False, z54, z1, z1, z1, zb, z1, z1, z1, z1, 0,
                      zq, D, n, w2)
            else:
                pc = np.empty((NPOS, 4), np.int64)
                pn = np.empty(NPOS, np.int64)
                esuit_table(e, lvl, trump, pc, pn)
                fk = np.empty(s.fm, np.int64)
                fL = np.empty(s.fm, np.int64)
                for j in range(s.fm):
                    fk[j] = s.fk[j]
                    fL[j] = s.fL[j]
                ctarget, bt_, br_, bc_, ls, le, ck, crem, ncomp, best_q, alist, na = _follow_ctx(
                    hand_e, pc, pn, fk, fL, s.fm, D)
                if na >= 0 and _count_ms(cl, L, lo, hi, n - ns, False, w2[128:293]) <= out.shape[0]:
                    # every optimal assignment is listed (alist[:na]): a complete play of n cards of s
                    # is legal iff it contains one of them (SJ-8.3, "equivalently"), so list the
                    # candidates and keep those
                    _enum(cl, L, lo, hi, n - ns, False, base, out, count, False, z54, z1, z1, z1, zb, z1, z1, z1,
                          z1, 0, zq, D, n, w2)
                    k = 0
                    for r in range(count[0]):
                        keep = False
                        for i in range(na):
                            inside = True
                            for j in range(L):
                                c = cl[j]
                                if alist[i, c] > out[r, c]:
                                    inside = False
                                    break
                            if inside:
                                keep = True
                                break
                        if keep:
                            if k != r:
                                for c in range(54):
                                    out[k, c] = out[r, c]
                            k += 1
                    count[0] = k
                else:
                    _enum(cl, L, lo, hi, n - ns, False, base, out, count, True, hand_e, ctarget, bt_, br_, bc_, ls,
                          le, ck, crem, ncomp, best_q, D, n, w2)
    return count[0]


@njit(cache=True)
def batch_legal_plays_count(st, cfg, out_counts, buf):
    """Enumerate the legal plays of every game (a benchmark/search helper); out_counts[b] = count."""
    w = np.empty(LP_WS, np.int64)
    for b in range(st.shape[0]):
        out_counts[b] = legal_plays_ws(st, b, cfg, buf, w)


# ---------------------------------------------------------------------------------------------
# observation (section 3 / 9.7). It lives in this file so that numba's per-file cache of it is
# invalidated together with the kernels it calls (observe.py re-exports it).
# ---------------------------------------------------------------------------------------------

OBS_SIZE = 938
OFF_HAND = 0
OFF_SEL = 54
OFF_KITTY = 108
OFF_PLAYED = 162
OFF_TRICK = 378
OFF_SHOWN = 594
OFF_SIZES = 810
OFF_PHASE = 814
OFF_LEVELS = 820
OFF_LEVEL = 822
OFF_BANKER = 823
OFF_TRUMP = 828
OFF_STANDING = 834
OFF_LEADER = 846
OFF_LEADN = 850
OFF_POINTS = 851
OFF_DEALT = 853
OFF_MASK = 854


@njit(cache=True)
def observe_seat(st, b, cfg, seat, out, mask):
    """Write seat's observation of game b into out[0:938] (out must be zeroed by the caller).
    mask is scratch uint8[84]."""
    s = st[b]
    ph = s.phase
    for c in range(54):
        out[OFF_HAND + c] = s.hand[seat, c]
    acting = ph <= FOLLOW and s.actor == seat
    if acting and (ph == BURY or ph == LEAD or ph == FOLLOW):
        for c in range(54):
            out[OFF_SEL + c] = s.sel[c]
    # kitty (section 3)
    if ph == OVER and s.hand_over:
        for c in range(54):
            out[OFF_KITTY + c] = s.buried[c]
    elif seat == s.banker and ph == BURY:
        for c in range(54):
            out[OFF_KITTY + c] = s.kitty_orig[c]
    elif seat == s.banker and (ph == LEAD or ph == FOLLOW):
        for c in range(54):
            out[OFF_KITTY + c] = s.buried[c]
    else:
        for j in range(s.nrev):
            out[OFF_KITTY + s.kitty_order[j]] += 1
    for r in range(4):
        q = (seat + r) % 4
        tot = 0
        for c in range(54):
            out[OFF_PLAYED + 54 * r + c] = s.played[q, c]
            out[OFF_TRICK + 54 * r + c] = s.trick_cards[q, c]
            out[OFF_SHOWN + 54 * r + c] = s.shown[q, c]
            tot += s.hand[q, c]
        out[OFF_SIZES + r] = tot
    if ph <= OVER:
        out[OFF_PHASE + ph] = 1.0
    team = seat % 2
    out[OFF_LEVELS] = s.levels[team]
    out[OFF_LEVELS + 1] = s.levels[1 - team]
    out[OFF_LEVEL] = s.hand_level
    if s.banker >= 0:
        out[OFF_BANKER + (s.banker - seat) % 4] = 1.0
    else:
        out[OFF_BANKER + 4] = 1.0
    if s.trump >= 0:
        out[OFF_TRUMP + s.trump] = 1.0
    else:
        out[OFF_TRUMP + 5] = 1.0
    nd = s.ndecl
    if nd > 0:
        out[OFF_STANDING + (s.decl_seat[nd - 1] - seat) % 4] = 1.0
        x = s.decl_card[nd - 1]
        if x == 52:
            out[OFF_STANDING + 5 + 4] = 1.0
        elif x == 53:
            out[OFF_STANDING + 5 + 5] = 1.0
        else:
            out[OFF_STANDING + 5 + x // 13] = 1.0
        out[OFF_STANDING + 11] = s.decl_cnt[nd - 1]
    else:
        out[OFF_STANDING + 4] = 1.0
    if ph == LEAD or ph == FOLLOW:
        out[OFF_LEADER + (s.leader - seat) % 4] = 1.0
        out[OFF_LEADN] = s.lead_n
    out[OFF_POINTS] = s.points[team]
    out[OFF_POINTS + 1] = s.points[1 - team]
    out[OFF_DEALT] = s.dealt
    if acting:
        legal_mask(st, b, cfg, mask)
        for a in range(NUM_ACTIONS):
            out[OFF_MASK + a] = mask[a]


@njit(cache=True)
def batch_observe(st, cfg, out):
    mask = np.zeros(NUM_ACTIONS, np.uint8)
    for b in range(st.shape[0]):
        s = st[b]
        if s.phase <= FOLLOW:
            observe_seat(st, b, cfg, s.actor, out[b], mask)


# ---------------------------------------------------------------------------------------------
# plain-Python wrappers: the rule functions by name (tests, tools, section 8 "(kernel)" cases)
# ---------------------------------------------------------------------------------------------

_TRUMPS = ("C", "D", "H", "S", "NT")
ESUIT_NAMES = ("C", "D", "H", "S", "TRUMP")


def _trump_id(trump) -> int:
    if isinstance(trump, str) and trump.upper() in _TRUMPS:
        return _TRUMPS.index(trump.upper())
    raise ValueError(f"trump {trump!r} is not one of C, D, H, S, NT")


def _level_id(level) -> int:
    from cardzoo.cards import rank_index
    if isinstance(level, str):
        return rank_index(level)
    if isinstance(level, (int, np.integer)) and not isinstance(level, bool) and 0 <= int(level) <= 12:
        return int(level)
    raise ValueError(f"level {level!r} is not a rank '2'..'A' or 0..12")


def _counts(cards) -> np.ndarray:
    from cardzoo.cards import parse_cards
    out = np.zeros(54, np.int64)
    for c in parse_cards(cards, jokers=True):
        out[c] += 1
    return out


def _text(counts) -> str:
    from cardzoo.cards import card_text
    return " ".join(card_text(c) for c in range(54) for _ in range(int(counts[c])))


def esuit_pos(card, level, trump):
    """SJ-3.3/3.4: (effective suit name, position) of one card."""
    from cardzoo.cards import card_index
    c = card_index(card, jokers=True) if isinstance(card, str) else int(card)
    lvl = _level_id(level)
    t = _trump_id(trump)
    return ESUIT_NAMES[card_esuit(c, lvl, t)], int(card_pos(c, lvl, t))


def decompose(cards, level, trump, decks=2):
    """SJ-7.2 canonical decomposition of a one-esuit lead: [(k, L, top, card set text), ...]."""
    cnt = _counts(cards)
    lvl = _level_id(level)
    t = _trump_id(trump)
    es = {card_esuit(c, lvl, t) for c in range(54) if cnt[c]}
    if len(es) != 1:
        raise ValueError("a lead must be non-empty and of one effective suit (SJ-7.1)")
    ok = np.empty(64, np.int64)
    oL = np.empty(64, np.int64)
    ot = np.empty(64, np.int64)
    oc = np.empty((64, NPOS), np.int64)
    m = decompose_counts(cnt, lvl, t, decks, ok, oL, ot, oc)
    out = []
    for j in range(m):
        cc = np.zeros(54, np.int64)
        for w in range(int(oL[j])):
            cc[oc[j, w]] += ok[j]
        out.append((int(ok[j]), int(oL[j]), int(ot[j]), _text(cc)))
    return out


def _rec(st):
    """Attribute access to record 0 of a state array (writes go through)."""
    return st.view(np.recarray)[0]


def _blank_state(decks, level, trump):
    from .config import make as make_cfg
    from .state import make_state
    cfg = make_cfg(decks=decks).to_array()
    st = make_state(1)
    r = _rec(st)
    r.hand_level = level
    r.trump = trump
    r.levels[0] = level
    r.levels[1] = level
    if trump >= 0:
        set_tables(st, 0)
    return st, cfg


def declaration_options(hand, level, seat=0, standing=None, decks=2, allow_no_trump=True):
    """SJ-4.5: sorted action ids (56..79) of the legal declarations of `seat` holding `hand`
    against `standing` = None or (seat, card text, count)."""
    from cardzoo.cards import card_index
    from .config import make as make_cfg
    from .state import make_state
    cfg = make_cfg(decks=decks, allow_no_trump=allow_no_trump).to_array()
    st = make_state(1)
    s = _rec(st)
    s.hand_level = _level_id(level)
    s.hand[seat, :] = _counts(hand)
    if standing is not None:
        q, x, j = standing
        s.ndecl = 1
        s.decl_seat[0] = q
        s.decl_card[0] = card_index(x, jokers=True) if isinstance(x, str) else int(x)
        s.decl_cnt[0] = j
    out = np.zeros(NUM_ACTIONS, np.uint8)
    decl_options(st, 0, cfg, seat, out)
    return [int(a) for a in np.flatnonzero(out)]


def _follow_state(lead, hand, level, trump, decks, selection=None):
    lvl = _level_id(level)
    t = _trump_id(trump)
    st, cfg = _blank_state(decks, lvl, t)
    s = _rec(st)
    comps = decompose(lead, lvl, _TRUMPS[t], decks)
    s.fm = len(comps)
    for j, (k, L, top, _) in enumerate(comps):
        s.fk[j] = k
        s.fL[j] = L
        s.ftop[j] = top
    lc = _counts(lead)
    s.lead_n = int(lc.sum())
    s.lead_esuit = card_esuit(int(np.flatnonzero(lc)[0]), lvl, t)
    s.trick_cards[0, :] = lc
    s.leader = 0
    s.ntp = 1
    s.phase = FOLLOW
    s.actor = 1
    s.banker = 0
    s.hand[1, :] = _counts(hand)
    if selection is not None:
        sc = _counts(selection)
        s.sel[:] = sc
        s.nsel = int(sc.sum())
    return st, cfg


def follow_plays(lead, hand, level, trump, decks=2, selection=None):
    """SJ-8: the set of legal follows (card set texts) of a follower holding `hand` to a
    successful `lead` (plays containing `selection`)."""
    st, cfg = _follow_state(lead, hand, level, trump, decks, selection)
    buf = np.zeros((200000, 54), np.int8)
    n = legal_plays(st, 0, cfg, buf)
    return {_text(buf[i]) for i in range(min(n, buf.shape[0]))}


def follow_mask(lead, hand, level, trump, decks=2, selection=None):
    """Section 4 FOLLOW mask: the card ids allowed next, given the cards selected so far."""
    st, cfg = _follow_state(lead, hand, level, trump, decks, selection)
    out = np.zeros(NUM_ACTIONS, np.uint8)
    legal_mask(st, 0, cfg, out)
    return {int(a) for a in np.flatnonzero(out)}


def throw_check(lead, others, level, trump, decks=2):
    """SJ-7.4: `others` = hands of seats leader+1..+3 (texts). Returns (success, played card set);
    on failure the played set is the forced component."""
    lvl = _level_id(level)
    t = _trump_id(trump)
    st, cfg = _blank_state(decks, lvl, t)
    s = _rec(st)
    lc = _counts(lead)
    s.hand[0, :] = lc
    for i, h in enumerate(others):
        s.hand[1 + i, :] = _counts(h)
        s.hand[1 + i, :] += 0
    s.sel[:] = lc
    s.nsel = int(lc.sum())
    s.phase = LEAD
    s.actor = 0
    s.banker = 0
    _execute_lead(st, 0, cfg)
    played = s.trick_cards[0].astype(np.int64)
    return bool(s.nft == 0), _text(played)


def trick_winner(plays, level, trump, decks=2):
    """SJ-9: plays = card set texts in play order, the first being the (successful) lead.
    Returns the index into plays of the winner."""
    lvl = _level_id(level)
    t = _trump_id(trump)
    comps = decompose(plays[0], lvl, _TRUMPS[t], decks)
    fk = np.array([c[0] for c in comps], np.int64)
    fL = np.array([c[1] for c in comps], np.int64)
    lc = _counts(plays[0])
    s_es = card_esuit(int(np.flatnonzero(lc)[0]), lvl, t)
    be, bs = play_strength(lc, fk, fL, len(comps), s_es, lvl, t)
    best = 0
    for i in range(1, len(plays)):
        e, sv = play_strength(_counts(plays[i]), fk, fL, len(comps), s_es, lvl, t)
        if sv < 0:
            continue
        if (e == TRUMP and be != TRUMP) or (e == be and sv > bs):
            best, be, bs = i, e, sv
    return best


def level_result(p, decks=2):
    """SJ-11.1: ("hold" | "takeover", d) for opponents' points p."""
    o, d = table_result(int(p), int(decks))
    return ("hold", "takeover")[o], int(d)


def kitty_flip(kitty, level, mode="first_card"):
    """SJ-4.9: (trump, revealed card texts) of a kitty flip."""
    from cardzoo.cards import card_text, parse_cards
    cards = parse_cards(kitty, jokers=True)
    lvl = _level_id(level)
    from .config import make as make_cfg
    decks = 2 if len(cards) == 8 else 1
    cfg = make_cfg(decks=decks, kitty_flip=mode).to_array()
    cfg[C_K] = len(cards)
    st, _ = _blank_state(decks, lvl, -1)
    r = _rec(st)
    for j, c in enumerate(cards):
        r.kitty_order[j] = c
    _kitty_flip(st, 0, cfg)
    return _TRUMPS[int(r.trump)], [card_text(c) for c in cards[: int(r.nrev)]]


def kitty_multiplier(last_format, mode="flat"):
    """SJ-10.2: m for a last trick whose format has components of shapes [(k, L), ...]."""
    from .config import KITTY_MULTIPLIERS
    if mode not in KITTY_MULTIPLIERS:
        raise ValueError(f"unknown kitty_multiplier {mode!r}")
    z = max(k * L for k, L in last_format)
    single = len(last_format) == 1 and z == 1
    return int(kitty_mult(z, single, KITTY_MULTIPLIERS.index(mode)))


def advance_levels(level, d, declared, must_defend=("A",)):
    """SJ-11.3: (new level, steps taken, passed A) for a team at `level` gaining d levels;
    declared = the team declared this hand (at `level`)."""
    from cardzoo.cards import rank_index
    md = 0
    for r in must_defend:
        md |= 1 << rank_index(r)
    r, steps, passed = advance_team(_level_id(level), int(d), bool(declared), md)
    return int(r), int(steps), bool(passed)
