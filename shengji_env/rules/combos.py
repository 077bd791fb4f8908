"""SJ-6 and SJ-7.2: components (singles, tuples, tractors) and the canonical decomposition of a lead."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..state import MAX_COMP
from .order import NPOS, card_esuit, esuit_table
from .scratch import (DS_BLK, DS_CAND_CARDS, DS_CAND_K, DS_CAND_L, DS_CAND_TOP, DS_CARDS, DS_CHOSEN, DS_K, DS_L,
                      DS_SIZE, DS_SORT, DS_TOP)


@njit(cache=True, inline="always")
def _greatest_key(cnt, pc, pn, D):
    """SJ-7.2: the greatest component key of cnt: (size, copies k, top position, length L); size -1
    when cnt is empty. A component (SJ-6.3) is k copies of L cards on consecutive positions (a
    tractor needs k >= 2; L = 1 for singles), size k L, top its highest position; runs are counted on
    positions, so the level rank is skipped and equal-position cards never chain (SJ-6.4). Larger
    size first, then more copies, then the higher top position."""
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
    stk = np.empty(DS_SIZE, np.int64)
    return _decomp_ns(cnt, pc, pn, np.int64(D), ok, oL, otop, ocards, stk, np.int64(0))


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


@njit(cache=True, inline="always")
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
    tk = stk[base + DS_K:base + DS_K + MAX_COMP]
    tL = stk[base + DS_L:base + DS_L + MAX_COMP]
    tt = stk[base + DS_TOP:base + DS_TOP + MAX_COMP]
    tc = stk[base + DS_CARDS:base + DS_CARDS + MAX_COMP * NPOS].reshape((MAX_COMP, NPOS))
    nk = stk[base + DS_CAND_K:base + DS_CAND_K + MAX_COMP + 1]
    nL = stk[base + DS_CAND_L:base + DS_CAND_L + MAX_COMP + 1]
    nt = stk[base + DS_CAND_TOP:base + DS_CAND_TOP + MAX_COMP + 1]
    ncs = stk[base + DS_CAND_CARDS:base + DS_CAND_CARDS + (MAX_COMP + 1) * NPOS].reshape((MAX_COMP + 1, NPOS))
    cc = stk[base + DS_CHOSEN:base + DS_CHOSEN + NPOS]
    tmp = stk[base + DS_SORT:base + DS_SORT + 32]
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
    return _decomp(cnt, pc, pn, np.int64(D), ok, oL, otop, ocards)
