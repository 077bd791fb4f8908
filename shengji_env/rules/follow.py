"""SJ-8: follow obligations, the match-value assignment search and the FOLLOW mask."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import popcount

from ..config import C_DECKS
from ..state import CS_SEAT, CS_SEL
from .cardsets import available_bits, set_bits
from .order import NPOS, card_esuit, esuit_table


MAXA_R = 17


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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
def follow_bits(s, em):
    """The FOLLOW decisions that need no assignment search, as the bit set of the cards allowed next
    (bit c = card c; em: the cards of the led esuit s as a bit set); 0 where the search must decide
    (a format with a tractor or several tuples, or one tuple the follower can match from several
    shapes). SJ-8.1: n cards; SJ-8.2(a) with SJ-8.5, h <= n: every held card of s, then any cards
    (trumps included, trumping is never compulsory) while fewer than n - h others are selected;
    SJ-8.2(b), h > n: cards of s only, and with a tuple led, t = min(k, largest count of s) copies
    of one card (SJ-8.3, the first rows of SJ-8.4)."""
    one = np.uint64(1)
    hp = s.hand[s.actor]
    sel = s.sel
    e = s.lead_esuit
    n = s.lead_n
    est = s.es_tab
    cs = s.card_sets
    base = CS_SEAT * s.actor
    av = available_bits(s, s.actor)
    h = 0        # cards of the led esuit held, and selected (copies counted: one plane per copy)
    ssel = 0
    for k in range(1, 5):
        h += popcount(cs[base + k] & em)
        ssel += popcount(cs[CS_SEL + k] & em)
    if h <= n:
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
        # the optimal assignments are "t copies of x" for every x of s with >= t copies: a card is
        # allowed iff some x leaves room for it (base + 1 <= n), or it is x itself completing t
        t = _tuple_follow_size(hp, est, e, s.fk[0])
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


@njit(cache=True, inline="always")
def _follow_mask(st, b, cfg, out):
    """The FOLLOW mask (section 4): follow_bits where it decides, else the SJ-8.3 assignment search:
    a card is allowed iff some optimal assignment fits with the selection plus that card."""
    s = st[b]
    p = s.actor
    lvl = s.hand_level
    trump = s.trump
    e = s.lead_esuit
    n = s.lead_n
    est = s.es_tab
    em = np.uint64(0)
    for c in range(54):
        em |= np.uint64(est[c] == e) << np.uint64(c)
    bits = follow_bits(s, em)
    if bits != 0:
        set_bits(out, bits)
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
