"""A small plain-Python reference of Sheng Ji play rules, written from the spec (SJ-3, SJ-6..SJ-9)
by brute force, for differential tests against the numba kernels. Deliberately naive."""
from __future__ import annotations

import itertools
from collections import Counter

TRUMP = 4


def esuit(c, lvl, trump):
    if c >= 52:
        return TRUMP
    if c % 13 == lvl or c // 13 == trump:
        return TRUMP
    return c // 13


def pos(c, lvl, trump):
    if c == 53:
        return 15
    if c == 52:
        return 14
    r = c % 13
    if r == lvl:
        return 13 if (trump == 4 or c // 13 == trump) else 12
    return r if r < lvl else r - 1


def components(cnt: Counter, lvl, trump, D):
    """Every component (SJ-6.3) contained in cnt: (k, L, top, tuple of card indices by position)."""
    by_pos = {}
    for c, k in cnt.items():
        if k > 0:
            by_pos.setdefault(pos(c, lvl, trump), []).append(c)
    out = []
    for c, k in cnt.items():
        if k >= 1:
            out.append((1, 1, pos(c, lvl, trump), (c,)))
    for k in range(2, D + 1):
        for p0 in range(16):
            for L in range(1, 17):
                ps = list(range(p0, p0 + L))
                if ps[-1] > 15:
                    break
                choices = [[c for c in by_pos.get(p, []) if cnt[c] >= k] for p in ps]
                if any(not ch for ch in choices):
                    break
                for combo in itertools.product(*choices):
                    out.append((k, L, ps[-1], combo))
    return out


def decompose(cards, lvl, trump, D):
    """SJ-7.2 by brute force over all partitions."""
    cnt = Counter(cards)
    best = None

    def key_of(comp):
        k, L, top, combo = comp
        return (k * L, k, top)

    def idx_of(comp):
        k, L, top, combo = comp
        return tuple(sorted(c for c in combo for _ in range(k)))

    def rec(cnt, acc):
        nonlocal best
        if sum(cnt.values()) == 0:
            lst = sorted(acc, key=lambda x: (key_of(x), idx_of(x)), reverse=True)
            val = ([key_of(x) for x in lst], [idx_of(x) for x in lst])
            if best is None or val > best[0]:
                best = (val, lst)
            return
        # the component holding the lowest remaining card index (avoids permutations)
        first = min(c for c, k in cnt.items() if k > 0)
        for comp in components(cnt, lvl, trump, D):
            k, L, top, combo = comp
            if first not in combo:
                continue
            for c in combo:
                cnt[c] -= k
            rec(cnt, acc + [comp])
            for c in combo:
                cnt[c] += k

    rec(Counter({c: k for c, k in cnt.items() if k}), [])
    return [(k, L, top, tuple(sorted(c for c in combo for _ in range(k)))) for k, L, top, combo in best[1]]


def value(play, shapes, s, lvl, trump, D):
    """V(play) of SJ-8.3 by brute force: max (Q1, Q2) over assignments."""
    cnt = Counter(c for c in play if esuit(c, lvl, trump) == s)
    maxk = max(k for k, L in shapes)
    blocks = [b for b in components(cnt, lvl, trump, D) if 2 <= b[0] <= maxk]
    best = ([], [])
    comps = [[k, L] for k, L in shapes]

    def rec(i, used, acc):
        nonlocal best
        q1 = sorted((t for t, r in acc for _ in range(r)), reverse=True)
        q2 = sorted((r for t, r in acc), reverse=True)
        if (q1, q2) > best:
            best = (q1, q2)
        for bi in range(i, len(blocks)):
            t, r, top, combo = blocks[bi]
            if any(used[c] + t > cnt[c] for c in combo):
                continue
            for j, comp in enumerate(comps):
                if t <= comp[0] and r <= comp[1]:
                    comp[1] -= r
                    for c in combo:
                        used[c] += t
                    rec(bi, used, acc + [(t, r)])
                    for c in combo:
                        used[c] -= t
                    comp[1] += r

    rec(0, Counter(), [])
    return best


def multisets(cnt: Counter, size):
    cards = sorted(c for c in cnt if cnt[c] > 0)
    out = []

    def rec(i, rem, acc):
        if rem == 0:
            out.append(tuple(acc))
            return
        if i == len(cards):
            return
        c = cards[i]
        for x in range(min(cnt[c], rem), -1, -1):
            rec(i + 1, rem - x, acc + [c] * x)

    rec(0, size, [])
    return out


def legal_follows(lead, hand, lvl, trump, D):
    """SJ-8.2: the set of legal follows (sorted tuples)."""
    s = esuit(lead[0], lvl, trump)
    n = len(lead)
    hc = Counter(hand)
    scards = Counter({c: k for c, k in hc.items() if esuit(c, lvl, trump) == s})
    h = sum(scards.values())
    if h <= n:
        others = Counter({c: k for c, k in hc.items() if esuit(c, lvl, trump) != s})
        base = [c for c in scards for _ in range(scards[c])]
        return {tuple(sorted(base + list(m))) for m in multisets(others, n - h)}
    shapes = [(k, L) for k, L, top, cards in decompose(lead, lvl, trump, D)]
    plays = multisets(scards, n)
    vals = {p: value(p, shapes, s, lvl, trump, D) for p in plays}
    vstar = max(vals.values())
    return {tuple(sorted(p)) for p, v in vals.items() if v == vstar}


def strength(play, shapes, s, lvl, trump, D):
    """SJ-9.1/9.2: (esuit, strength) or (esuit, -1) if the play does not match F."""
    es = {esuit(c, lvl, trump) for c in play}
    if len(es) != 1:
        return -1, -1
    e = es.pop()
    if e != s and e != TRUMP:
        return e, -1
    key = max(shapes, key=lambda x: (x[0] * x[1], x[0]))
    need = Counter(shapes)
    best = -1

    def rec(cnt, need, top):
        nonlocal best
        if sum(need.values()) == 0:
            if sum(cnt.values()) == 0 and top > best:
                best = top
            return
        for comp in components(cnt, lvl, trump, D):
            k, L, t, combo = comp
            if need[(k, L)] <= 0:
                continue
            for c in combo:
                cnt[c] -= k
            need[(k, L)] -= 1
            rec(+cnt, need, max(top, t) if (k, L) == key else top)
            need[(k, L)] += 1
            for c in combo:
                cnt[c] += k

    rec(Counter(play), need, -1)
    return e, best


def winner(plays, lvl, trump, D):
    """SJ-9.3: index of the winning play; plays[0] is the (successful) lead."""
    shapes = [(k, L) for k, L, top, cards in decompose(plays[0], lvl, trump, D)]
    s = esuit(plays[0][0], lvl, trump)
    be, bs = strength(plays[0], shapes, s, lvl, trump, D)
    best = 0
    for i in range(1, len(plays)):
        e, v = strength(plays[i], shapes, s, lvl, trump, D)
        if v < 0:
            continue
        if (e == TRUMP and be != TRUMP) or (e == be and v > bs):
            best, be, bs = i, e, v
    return best
