"""The declaring fast paths against the literal rules they stand in for.

- _decl_low (the least legal count of a declaration card) against _decl_ok, the SJ-4.5 test, on
  every standing / seat / card / count: the legal counts of a card are exactly _decl_low .. c(y);
- _has_decl and _declare_bits against decl_options (the listing the section 4 mask comes from) on
  random hands and standings;
- the deal loop (_advance, which skips the check of a plain card to a seat already found without a
  declaration) against a plain-Python SJ-4.6 window walk that checks every card the rule names, on
  random deals declared at random, windows of the deal and of the final round alike;
- set_tables (row copies of precomputed tables) against card_esuit / card_pos (SJ-3.3/3.4).
"""
import numpy as np
import pytest

import shengji_env
from shengji_env import kernels as K
from shengji_env.rules import declare
from shengji_env.state import make_state


def test_decl_low_is_the_least_legal_count():
    """SJ-4.5: for every case, {j >= jmin : _decl_ok} = {j : j >= _decl_low} (counts up to 4)."""
    lvl = 3
    cards = [lvl, 13 + lvl, 39 + lvl, 52, 53]
    checked = 0
    for nd in (0, 1):
        for q in (0, 1, 2):
            for x in cards:
                for jS in range(1, 5):
                    for y in cards:
                        jmin = 2 if y >= 52 else 1
                        low = declare._decl_low(nd, q, x, jS, 0, y, jmin)
                        for j in range(jmin, 5):
                            assert declare._decl_ok(nd, q, x, jS, 0, y, j) == (j >= low), (nd, q, x, jS, y, j)
                            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("D", [1, 2, 3, 4])
@pytest.mark.parametrize("allow_nt", [0, 1])
def test_has_decl_and_declare_bits_match_decl_options(D, allow_nt):
    """SJ-4.3/4.5 on random holdings of the six declaration cards and random standings: _has_decl is
    decl_options' count > 0, and _declare_bits is PASS plus exactly the actions decl_options sets."""
    rng = np.random.default_rng(100 * D + allow_nt)
    cfg = shengji_env.BatchGame(1, decks=D, allow_no_trump=bool(allow_nt))._cfg
    st = make_state(1)
    mask = np.zeros(K.NUM_ACTIONS, np.uint8)
    empty = np.zeros(0, np.uint8)
    some = 0
    for _ in range(3000):
        st[:] = make_state(1)
        r = st.view(np.recarray)[0]
        lvl = int(rng.integers(13))
        r.hand_level = lvl
        p = int(rng.integers(4))
        r.actor = p
        for y in [u * 13 + lvl for u in range(4)] + [52, 53]:
            r.hand[p, y] = rng.integers(D + 1) if rng.random() < 0.5 else 0
        if rng.random() < 0.7:
            # a standing declaration SJ-4.3 allows: a joker pair only with NT allowed and D >= 2
            jokers = [52, 53] if allow_nt and D >= 2 else []
            x = int(rng.choice([u * 13 + lvl for u in range(4)] + jokers))
            r.ndecl = 1
            r.decl_seat[0] = rng.integers(4)
            r.decl_card[0] = x
            r.decl_cnt[0] = rng.integers(2 if x >= 52 else 1, D + 1)
        mask[:] = 0
        n = K.decl_options(st, 0, cfg, p, mask)
        assert n == K.decl_options(st, 0, cfg, p, empty)
        assert declare._has_decl(st[0], allow_nt, p) == (n > 0)
        bits = int(declare._declare_bits(st[0], allow_nt))
        want = [K.A_PASS] + [a for a in range(K.NUM_ACTIONS) if mask[a]]
        assert [K.A_PASS + i for i in range(64) if (bits >> i) & 1] == want
        some += n > 0
    assert some > 300


def _decl_of(a, lvl):
    """(card, copies) of declaration action a (section 4 ids, as _apply reads them)."""
    if a >= K.A_BJ:
        return 53, a - K.A_BJ + 1
    if a >= K.A_LJ:
        return 52, a - K.A_LJ + 1
    return ((a - K.A_DECL) // 4) * 13 + lvl, (a - K.A_DECL) % 4 + 1


class WindowWalk:
    """SJ-4.6 as written, in plain Python: after each dealt card, a window iff the receiver has a legal
    declaration (decl_options on a scratch record) and the card is a level card or joker or count !=
    seen[p]; then the final round from f until four consecutive seats skipped or passed."""

    def __init__(self, order, f, H, lvl, cfg):
        self.order, self.f, self.H, self.lvl, self.cfg = order, f, H, lvl, cfg
        self.scratch = make_state(1)
        self.r = self.scratch.view(np.recarray)[0]
        self.r.hand_level = lvl
        self.dealt = 0
        self.seen = [0] * 4
        self.in_final = 0
        self.fr_next = f
        self.fr_skips = 0

    def can_declare(self, p):
        return K.decl_options(self.scratch, 0, self.cfg, p, np.zeros(0, np.uint8)) > 0

    def next_window(self):
        """The next window's seat, or -1 when declaring is over."""
        r = self.r
        while self.dealt < 4 * self.H and not self.in_final:
            c = self.order[self.dealt]
            p = (self.f + self.dealt) % 4
            r.hand[p, c] += 1
            self.dealt += 1
            if (c >= 52 or c % 13 == self.lvl or int(r.ndecl) != self.seen[p]) and self.can_declare(p):
                return p
        self.in_final = 1
        while self.fr_skips < 4:
            p = self.fr_next
            self.fr_next = (p + 1) % 4
            if self.can_declare(p):
                return p
            self.fr_skips += 1
        return -1

    def act(self, p, a):
        r = self.r
        if a != K.A_PASS:
            y, j = _decl_of(a, self.lvl)
            nd = int(r.ndecl)
            r.decl_seat[nd], r.decl_card[nd], r.decl_cnt[nd] = p, y, j
            r.ndecl = nd + 1
        self.seen[p] = int(r.ndecl)
        if self.in_final:
            self.fr_skips = self.fr_skips + 1 if a == K.A_PASS else 0


@pytest.mark.parametrize("D, allow_nt, banker", [(1, True, None), (2, True, None), (2, False, 1),
                                                 (3, True, None), (4, True, 2)])
def test_deal_windows_match_plain_walk(D, allow_nt, banker):
    """SJ-4.6: random deals, each window answered at random (a declaration 2 times in 5 when there is
    one): every window (seat, cards dealt, deal or final round) and every hand equal the plain walk's,
    and declaring ends exactly when the walk's final round does."""
    n = 150
    g = shengji_env.BatchGame(n, decks=D, allow_no_trump=allow_nt)
    g.reset(seed=40 + D, banker=None if banker is None else [banker] * n)
    st, cfg = g._st, g._cfg
    H = int(cfg[K.C_H])
    rng = np.random.default_rng(D)
    mask = np.zeros(K.NUM_ACTIONS, np.uint8)
    windows = finals = 0
    for b in range(n):
        s = st[b]
        walk = WindowWalk([int(c) for c in s["order"]], int(s["f"]), H, int(s["hand_level"]), cfg)
        while True:
            p = walk.next_window()
            if p < 0:
                assert s["phase"] != K.DECLARE
                break
            assert (int(s["phase"]), int(s["actor"]), int(s["dealt"]), int(s["in_final"])) == \
                (K.DECLARE, p, walk.dealt, walk.in_final), f"game {b}"
            assert (s["hand"] == walk.r.hand).all(), f"game {b}"
            mask[:] = 0
            K.legal_mask(st, b, cfg, mask)
            decls = [a for a in range(K.A_DECL, K.NUM_ACTIONS) if mask[a]]
            a = int(rng.choice(decls)) if decls and rng.random() < 0.4 else K.A_PASS
            walk.act(p, a)
            K.step_one(st, b, cfg, a)
            windows += 1
            finals += walk.in_final
    assert windows > n and finals > (0 if D == 1 else n // 10)   # D = 1: the first declaration stands


def test_set_tables_match_rule_functions():
    """SJ-3.3/3.4: after set_tables every card's es_tab / pos_tab entry is card_esuit / card_pos, for
    every level and every trump (suits, NT, and -1 undecided)."""
    st = make_state(1)
    r = st.view(np.recarray)[0]
    for lvl in range(13):
        for t in range(-1, 5):
            r.hand_level = lvl
            r.trump = t
            K.set_tables(st, 0)
            assert [int(v) for v in r.es_tab] == [K.card_esuit(c, lvl, t) for c in range(54)], (lvl, t)
            assert [int(v) for v in r.pos_tab] == [K.card_pos(c, lvl, t) for c in range(54)], (lvl, t)
