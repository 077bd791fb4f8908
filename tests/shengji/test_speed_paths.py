"""The legal-play enumerator's loop (plays._ms_iter, no recursion) against a plain-Python listing.

legal_plays lists, for BURY, LEAD and every FOLLOW whose format has no tuple (or whose follower
cannot fill the led esuit, SJ-8.2(a)), the multisets lo <= x <= hi of a card list in lexicographic
order (a follow that one card of the led esuit completes: those cards in ascending order; a follow
to one led tuple: the n-card plays of the esuit that hold the tuple SJ-8.3 asks for); here
itertools.product gives that listing from the spec's description of the decision (section 4: every
complete play containing the selection), on random positions of random hands, with and without a
selection. The order is part of the check: agents index plays by it. The output buffer starts dirty:
its prior contents must not matter (BatchGame.legal_plays reuses one).
"""
import itertools

import numpy as np
import pytest

import shengji_env
from shengji_env import kernels as K
from shengji_env.rules import by_name


class _TooMany(Exception):
    pass


def _listing(hand_of, sel, cards, base, size):
    """lo = sel <= x <= hand_of over cards, lexicographic (itertools.product), with
    sum(x - sel) = size (size None: any size but the all-zero play), each added to base."""
    ranges = [range(sel[c], hand_of[c] + 1) for c in cards]
    if np.prod([float(len(r)) for r in ranges]) > 20000:
        raise _TooMany
    rows = []
    lo = sum(sel[c] for c in cards)
    for xs in itertools.product(*ranges):
        if size is None:
            if sum(xs) == 0:
                continue
        elif sum(xs) - lo != size:
            continue
        row = base.copy()
        for c, x in zip(cards, xs):
            row[c] += x
        rows.append(row)
    return rows


def _reference(s, cfg):
    """The plays of record s in the enumerator's order, or None where this listing does not cover
    the decision (a follow to a tractor or a throw with tuples) or is too long to build here."""
    try:
        return _plays(s, cfg)
    except _TooMany:
        return None


def _lists_like_reference(st, b, cfg, rng, buf):
    """Whether game b's legal_plays, written over a garbage-filled buffer, were checked against
    _reference (False where the reference does not cover the decision); asserts they agree."""
    ref = _reference(st[b], cfg)
    if ref is None or len(ref) > buf.shape[0]:
        return False
    buf[:] = rng.integers(-128, 128, buf.shape).astype(np.int8)
    m = K.legal_plays(st, b, cfg, buf)
    assert m == len(ref)
    assert (buf[:m].astype(int) == np.array(ref, int).reshape(m, 54)).all()
    return True


def _plays(s, cfg):
    ph = int(s["phase"])
    hand = s["hand"].astype(int)
    sel = s["sel"].astype(int)
    est = s["es_tab"].astype(int)
    if ph == K.BURY:
        hand_of = hand[int(s["banker"])]
        cards = [c for c in range(54) if hand_of[c] > 0]
        return _listing(hand_of, sel, cards, np.zeros(54, int), int(cfg[K.C_K]) - int(s["nsel"]))
    hand_of = hand[int(s["actor"])]
    if ph == K.LEAD:
        es = est[np.flatnonzero(sel)[0]] if sel.any() else -1
        rows = []
        for e in range(5):
            if es >= 0 and e != es:
                continue
            cards = [c for c in range(54) if hand_of[c] > 0 and est[c] == e]
            if cards:
                rows += _listing(hand_of, sel, cards, np.zeros(54, int), None)
        return rows
    if ph != K.FOLLOW:
        return None
    e = int(s["lead_esuit"])
    n = int(s["lead_n"])
    h = sum(hand_of[c] for c in range(54) if est[c] == e)
    if h <= n:
        # SJ-8.2(a): every card of the led esuit, the rest from the other cards
        base = np.where(est == e, hand_of, 0)
        cards = [c for c in range(54) if hand_of[c] > 0 and est[c] != e]
        return _listing(hand_of, sel, cards, base, n - h - sum(sel[c] for c in cards))
    fm = int(s["fm"])
    cards = [c for c in range(54) if hand_of[c] > 0 and est[c] == e]
    ns = sum(sel[c] for c in cards)
    if (s["fk"][:fm] >= 2).any():
        if fm != 1 or int(s["fL"][0]) != 1:
            return None
        # SJ-8.3, a led tuple of k: holding t = min(k, most copies of one card of s) >= 2, a legal
        # follow holds t copies of one card; with t < 2, any n cards of s. Listed as the n-card
        # plays of s in product order, filtered
        t = min(int(s["fk"][0]), max(hand_of[c] for c in cards))
        rows = _listing(hand_of, sel, cards, np.zeros(54, int), n - ns)
        return [r for r in rows if t < 2 or max(r[c] for c in cards) >= t]
    if n - ns == 1:
        # one card completes the play (SJ-8.1): selection + each card of s with a spare copy, in
        # ascending card order (not the product order of the general listing)
        lo = np.zeros(54, int)
        lo[cards] = sel[cards]
        return [lo + np.eye(54, dtype=int)[c] for c in cards if hand_of[c] > sel[c]]
    return _listing(hand_of, sel, cards, np.zeros(54, int), n - ns)


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_enumerator_order_matches_product_listing(D):
    n = 24
    g = shengji_env.BatchGame(n, decks=D)
    g.reset(seed=900 + D)
    rng = np.random.default_rng(D)
    buf = np.zeros((4096, 54), np.int8)
    dirty = np.random.default_rng(D).integers(-128, 128, buf.shape).astype(np.int8)
    checked = 0
    while not g.done.all() and checked < 600:
        st = g._st
        for b in range(n):
            if int(st[b]["phase"]) > K.FOLLOW:
                continue
            ref = _reference(st[b], g._cfg)
            if ref is None or len(ref) > buf.shape[0] or len(ref) > 2000:
                continue
            buf[:] = dirty
            m = K.legal_plays(st, b, g._cfg, buf)
            assert m == len(ref), f"phase {int(st[b]['phase'])}"
            got = buf[:m].astype(int)
            assert (got == np.array(ref, int).reshape(m, 54)).all()
            checked += 1
        mask = g.legal_mask()
        u = rng.random(mask.shape) * mask
        a = u.argmax(axis=1)
        a[mask.sum(axis=1) == 0] = -1
        g.step(a)
    assert checked > 100


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_follow_positions_match_product_listing(D):
    """The benchmark's positions (benchmarks/throughput.py:bench_legal_plays): FOLLOW with nothing
    selected, reached by random play. Single leads and SJ-8.2(a) short follows take the enumerator's
    fast exits; every listing must still be the plain one, in the same order, on a dirty buffer."""
    n = 64
    g = shengji_env.BatchGame(n, decks=D)
    g.reset(seed=40 + D)
    rng = np.random.default_rng(10 + D)
    buf = np.empty((4096, 54), np.int8)
    checked = 0
    while not g.done.all() and checked < 600:
        st = g._st
        for b in np.flatnonzero((st["phase"] == K.FOLLOW) & (st["nsel"] == 0)):
            checked += _lists_like_reference(st, b, g._cfg, rng, buf)
        mask = g.legal_mask()
        u = rng.random(mask.shape) * mask
        a = u.argmax(axis=1)
        a[mask.sum(axis=1) == 0] = -1
        g.step(a)
    assert checked > 100


def _short_follow(rng, D):
    """A FOLLOW record (nothing selected) whose follower holds at most n cards of the led esuit
    (SJ-8.2(a)), often none, with a few or many other cards."""
    from cardzoo.cards import card_text
    lvl = int(rng.integers(13))
    trump = int(rng.integers(5))
    est = np.array([K.card_esuit(c, lvl, trump) for c in range(54)])
    e = int(rng.choice(np.unique(est)))   # the trump suit's own esuit is TRUMP (SJ-3.3)
    pool = np.full(54, D)
    n = int(rng.integers(1, 5))
    h = int(rng.integers(0, n + 1)) if rng.random() < 0.5 else 0

    def draw(cards, k):
        got = []
        while len(got) < k:
            c = int(rng.choice(cards))
            if pool[c] > 0:
                pool[c] -= 1
                got.append(c)
        return got

    scards = np.flatnonzero(est == e)
    lead = draw(scards, n)
    hand = draw(scards, h) + draw(np.flatnonzero(est != e), n - h + int(rng.integers(0, 12)))
    text = lambda cs: " ".join(card_text(c) for c in sorted(cs))
    return by_name._follow_state(text(lead), text(hand), lvl, by_name._TRUMPS[trump], D)


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_short_follows_match_product_listing(D):
    """SJ-8.2(a) follows (every held card of the led esuit, the rest from the others): the fast
    exits (n <= h + 1) and the general listing, same plays in the same order, on a dirty buffer."""
    rng = np.random.default_rng(70 + D)
    buf = np.empty((4096, 54), np.int8)
    checked = 0
    for _ in range(300):
        st, cfg = _short_follow(rng, D)
        checked += _lists_like_reference(st, 0, cfg, rng, buf)
    assert checked > 200


def _tuple_follow(rng, D):
    """A FOLLOW record to one led tuple of k (2 <= k <= D) whose follower holds more than k cards of
    the led esuit, in copies of 1..D (so holding k copies, fewer, or no pair), sometimes with some of
    them selected."""
    from cardzoo.cards import card_text
    lvl = int(rng.integers(13))
    trump = int(rng.integers(5))
    est = np.array([K.card_esuit(c, lvl, trump) for c in range(54)])
    e = int(rng.choice(np.unique(est)))
    scards = np.flatnonzero(est == e)
    k = int(rng.integers(2, D + 1))
    x = int(rng.choice(scards))
    pool = np.full(54, D)
    pool[x] -= k
    hand = []
    cap = int(rng.integers(1, D + 1))   # the most copies of one card the follower gets
    while len(hand) <= k + int(rng.integers(0, 6)):
        c = int(rng.choice(scards))
        m = min(int(rng.integers(1, cap + 1)), pool[c])
        hand += [c] * m
        pool[c] -= m
    others = np.flatnonzero((est != e) & (pool > 0))
    hand += [int(c) for c in rng.choice(others, int(rng.integers(0, 6)))]
    sel = None
    if rng.random() < 0.3:
        held = sorted(c for c in hand if est[c] == e)
        sel = [held[int(i)] for i in rng.choice(len(held), int(rng.integers(1, k)), replace=False)]
    text = lambda cs: " ".join(card_text(c) for c in sorted(cs))
    return by_name._follow_state(text([x] * k), text(hand), lvl, by_name._TRUMPS[trump], D,
                           None if sel is None else text(sel))


@pytest.mark.parametrize("D", [2, 3, 4])
def test_led_tuple_follows_match_filtered_listing(D):
    """SJ-8.3 against one led tuple: the fast exit (k copies held, nothing selected: those k-tuples),
    the no-pair shortcut and the assignment filter all give the filtered product listing."""
    rng = np.random.default_rng(170 + D)
    buf = np.empty((4096, 54), np.int8)
    checked = 0
    for _ in range(300):
        st, cfg = _tuple_follow(rng, D)
        if int(st[0]["fm"]) != 1:
            continue
        checked += _lists_like_reference(st, 0, cfg, rng, buf)
    assert checked > 200
