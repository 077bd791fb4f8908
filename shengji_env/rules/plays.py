"""The legal-play enumerator (section 9, `legal_plays`): every complete legal play of a decision."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..config import C_DECKS, C_K
from .follow import _fits, _follow_ctx
from .order import NPOS, esuit_table
from .phases import BURY, FOLLOW, LEAD


# legal_plays_ws's int64 work w: the listing's count, card list, bounds, fixed counts, the follow
# filter's dummies and the follower's esuit cards, then _enum's work (LP_ENUM: its offsets EN_*)
LP_FAST_LIST = 0       # (64,): _follow_fast's card list (it returns before the listing uses w)
LP_COUNT = 0           # (1,)
LP_CARDS = 1           # (54,): the cards the family ranges over
LP_LO = 55             # (54,): least copies of each card (the selection)
LP_HI = 109            # (54,): most copies of each card (the hand)
LP_BASE = 163          # (54,): counts added to every play (the led esuit's cards when h <= n)
LP_DUMMY5 = 217        # (5,): stands in for the follow filter's small arrays when there is no filter
LP_DUMMYQ = 222        # (17,): ... for its value vector
LP_DUMMY54 = 239       # (54,): ... for its hand
LP_HAND_E = 293        # (54,): the follower's cards of the led esuit
LP_ENUM = 347          # (EN_SIZE,): _enum's work
EN_SUF = 0             # (64,): suffix room of the levels
EN_CUR = 64            # (64,): the current play
EN_COUNT = 128         # (165,): the counting of _count_ms (extra <= 164)
EN_XS = 293            # (64,): the copies added at each level
EN_RM = 357            # (64,): the cards still to add at each level
EN_SIZE = 421
LP_WS = LP_ENUM + EN_SIZE   # 768


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
    w2: int64 work of length EN_SIZE (offsets EN_*)."""
    total = _count_ms(cl, L, lo, hi, extra, anysize, w2[EN_COUNT:EN_XS])
    if total == 0:
        return
    if not filt and count[0] + total > out.shape[0]:
        count[0] += total
        return
    if filt and total > 4 * out.shape[0] + 100000:
        count[0] = -(np.int64(1) << np.int64(62))
        return
    suf = w2[EN_SUF:EN_SUF + 64]
    suf[L] = 0
    for i in range(L - 1, -1, -1):
        suf[i] = suf[i + 1] + hi[cl[i]] - lo[cl[i]]
    if not anysize and extra > suf[0]:
        return
    cur = w2[EN_CUR:EN_CUR + 64]
    for c in range(54):
        cur[c] = base[c]
    for i in range(L):
        cur[cl[i]] += lo[cl[i]]
    _ms_iter(np.int64(L), cl, lo, hi, suf, np.int64(extra), 1 if anysize else 0, cur, w2[EN_XS:EN_RM],
             w2[EN_RM:EN_SIZE], out, count, np.int64(1 if filt else 0), hand_e, ctarget, bt_, br_, bc_, ls, le, ck,
             crem, np.int64(ncomp), best_q, np.int64(D), np.int64(n))


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
    in the same order as _legal_plays_listed (its speed twin). Returns the count, or -1 where the
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
    if s.phase == FOLLOW and s.nsel == 0:
        k = _follow_fast(s, out, w[LP_FAST_LIST:LP_FAST_LIST + 64])
        if k >= 0:
            return k
    return _legal_plays_listed(st, b, cfg, out, w)


@njit(cache=True)
def _legal_plays_listed(st, b, cfg, out, w):
    """legal_plays_ws by listing the multisets of each decision (section 4; FOLLOW: SJ-8.2, with the
    SJ-8.3 assignment filter where tuples are led): the reference _follow_fast is tested against."""
    s = st[b]
    ph = s.phase
    lvl = s.hand_level
    trump = s.trump
    D = cfg[C_DECKS]
    est = s.es_tab   # esuits (SJ-3.3); trump is fixed in BURY, LEAD and FOLLOW
    # one work array, carved into views; only count, lo, base and hand_e are read before being
    # written (cl/hi are read for listed cards only, the rest is scratch)
    w[LP_COUNT:LP_HI] = 0
    w[LP_BASE:LP_DUMMY5] = 0
    w[LP_HAND_E:LP_ENUM] = 0
    count = w[LP_COUNT:LP_COUNT + 1]
    cl = w[LP_CARDS:LP_CARDS + 54]
    lo = w[LP_LO:LP_LO + 54]
    hi = w[LP_HI:LP_HI + 54]
    base = w[LP_BASE:LP_BASE + 54]
    # dummies for the follow filter (zb: any int8 matrix; out is one)
    z1 = w[LP_DUMMY5:LP_DUMMYQ]
    zq = w[LP_DUMMYQ:LP_DUMMY54]
    z54 = w[LP_DUMMY54:LP_HAND_E]
    zb = out
    hand_e = w[LP_HAND_E:LP_ENUM]
    w2 = w[LP_ENUM:LP_WS]
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
                if na >= 0 and _count_ms(cl, L, lo, hi, n - ns, False, w2[EN_COUNT:EN_XS]) <= out.shape[0]:
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
