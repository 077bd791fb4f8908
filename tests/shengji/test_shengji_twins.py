"""Every speed twin of shengji_env.rules.TWINS against its reference, move for move.

Each test plays random games (every deck count, several options) and compares the twin's output
with its reference's at every decision of the kind the twin serves: thousands of positions each.
The rollout twin is compared on whole random games: both draw every decision from the same
generator, so equal generators and byte-identical final states (the play log holds every card of
every decision) mean equal decisions throughout.
"""
import numpy as np
import pytest
from numba import njit

import shengji_env
from shengji_env import kernels as K
from shengji_env.config import C_ALLOW_NT, C_DECKS
from shengji_env.rules import bits, combos, declare, order, plays, trick
from shengji_env.rules.lead import _decompose_selection
from shengji_env.rules.cardsets import sync_card_sets
from shengji_env.rules.scratch import (DS_SIZE, WS_COMP_CARDS, WS_COMP_K, WS_COMP_L, WS_COMP_TOP, make_esm, make_ws,
                                       set_ws_cfg)
from shengji_env.state import CS_SEL

DECKS = [1, 2, 3, 4]
OPTIONS = [{}, {"throw_penalty": "per_card", "declaration_mode": "after_deal"},
           {"episode": "match", "max_hands": 2, "allow_no_trump": False}]


def _decisions(D, options, games, seed):
    """(game array, its config, b) at every decision of `games` random games, each action uniform
    over the legal mask (a whole match where the options ask for one)."""
    g = shengji_env.BatchGame(games, decks=D, **options)
    g.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not g.done.all():
        mask = g.legal_mask()
        st = g._st
        for b in range(games):
            if int(st[b]["phase"]) <= K.FOLLOW:
                yield st, g._cfg, b
        u = rng.random(mask.shape) * mask
        a = u.argmax(axis=1)
        a[mask.sum(axis=1) == 0] = -1
        g.step(a)


def _cases():
    return [(D, i) for D in DECKS for i in range(len(OPTIONS))]


@njit
def _selection_decomposed(st, b, cfg, ws, esm, stk):
    s = st[b]
    set_ws_cfg(ws, cfg)
    bits._esuit_tables_r(s, esm)
    return _decompose_selection(s, ws, esm, stk, s.card_sets[CS_SEL + 1], cfg[C_DECKS])


@pytest.mark.parametrize("D", DECKS)
def test_decompose_selection_twin(D):
    """SJ-7.2: the selection decomposed on position masks gives _decomp_ns's components (k, L, top,
    cards) in the same order, for every selection of two or more distinct cards met while composing
    leads, and for the leader's whole holding of each esuit (tractors and equal-position level cards)."""
    ws = make_ws()
    esm = make_esm()
    stk = np.zeros(DS_SIZE, np.int64)
    pc = np.empty((order.NPOS, 4), np.int64)
    pn = np.empty(order.NPOS, np.int64)
    ref = [np.zeros(64, np.int64), np.zeros(64, np.int64), np.zeros(64, np.int64), np.zeros((64, order.NPOS), np.int64)]
    checked = tractors = 0
    for st, cfg, b in _decisions(D, OPTIONS[D % 3], 40, 11 * D):
        s = st[b]
        if int(s["phase"]) != K.LEAD:
            continue
        est = s["es_tab"]
        hand = s["hand"][int(s["actor"])]
        selections = [s["sel"].astype(np.int8)] + [np.where(est == e, hand, 0).astype(np.int8) for e in range(5)]
        for sel in selections:
            if np.count_nonzero(sel) < 2:
                continue
            one = st[b:b + 1].copy()
            one[0]["sel"] = sel
            one[0]["nsel"] = int(sel.sum())
            sync_card_sets(one)
            m = _selection_decomposed(one, 0, cfg, ws, esm, stk)
            e = int(est[np.flatnonzero(sel)[0]])
            order.esuit_table(e, int(s["hand_level"]), int(s["trump"]), pc, pn)
            mr = combos._decomp_ns(sel.astype(np.int64), pc, pn, np.int64(D), *ref, stk, np.int64(0))
            got = [(int(ws[WS_COMP_K + j]), int(ws[WS_COMP_L + j]), int(ws[WS_COMP_TOP + j]),
                    tuple(int(ws[WS_COMP_CARDS + order.NPOS * j + w]) for w in range(int(ws[WS_COMP_L + j]))))
                   for j in range(m)]
            want = [(int(ref[0][j]), int(ref[1][j]), int(ref[2][j]), tuple(int(c) for c in ref[3][j, :ref[1][j]]))
                    for j in range(mr)]
            assert got == want, (D, sel)
            tractors += any(L >= 2 for _, L, _, _ in got)
            checked += 1
    assert checked > 1000
    assert tractors > 50 or D == 1          # one deck has no pairs (SJ-6.1)


@njit
def _legal_set(st, b, esm):
    bits._esuit_tables_r(st[b], esm)
    return bits._legal_bits_r(st[b], esm)


@pytest.mark.parametrize("D,oi", _cases())
def test_legal_bits_r_twin(D, oi):
    """Section 4: _legal_bits_r is the legal mask as a bit set at every BURY, LEAD and FOLLOW
    decision where it decides (0 only for follows the SJ-8.3 search decides)."""
    esm = make_esm()
    mask = np.zeros(K.NUM_ACTIONS, np.uint8)
    checked = 0
    for st, cfg, b in _decisions(D, OPTIONS[oi], 24, 5 * D + oi):
        ph = int(st[b]["phase"])
        if ph < K.BURY:
            continue
        ref = _legal_set(st, b, esm)
        K.legal_mask(st, b, cfg, mask)
        if ref == 0:
            assert ph == K.FOLLOW
            continue
        assert [(int(ref) >> a) & 1 for a in range(K.NUM_ACTIONS)] == mask.tolist(), (D, b)
        checked += 1
    assert checked > 1000


@pytest.mark.parametrize("D,oi", _cases())
@pytest.mark.parametrize("auto", [False, True])
def test_rollout_one_twin(D, oi, auto):
    """Random rollouts of 400 games: the fast loop (card sets, direct single-card follows and lead
    composition) and the plain loop (legal_mask, random_legal, step_one) use their generators alike
    and end in byte-identical states."""
    n = 400
    g1 = shengji_env.BatchGame(n, decks=D, auto_forced=auto, **OPTIONS[oi])
    g2 = shengji_env.BatchGame(n, decks=D, auto_forced=auto, **OPTIONS[oi])
    g1.reset(seed=70 * D + oi)
    g2.reset(seed=70 * D + oi)
    rng1 = K.make_rng(D + 10 * oi, n)
    rng2 = K.make_rng(D + 10 * oi, n)
    n1 = K.batch_rollout(g1._st, g1._cfg, rng1)
    n2 = K.batch_rollout_ref(g2._st, g2._cfg, rng2)
    assert n1 == n2 > 50 * n
    assert (rng1 == rng2).all()
    assert g1._st.tobytes() == g2._st.tobytes()


@njit
def _follow_listings(st, b, cfg, out1, out2, lst, w):
    k1 = plays._follow_fast(st[b], out1, lst)
    if k1 < 0:
        return k1, k1
    return k1, plays._legal_plays_listed(st, b, cfg, out2, w)


@pytest.mark.parametrize("D,oi", _cases())
def test_follow_fast_twin(D, oi):
    """SJ-8: at every FOLLOW decision with nothing selected that _follow_fast lists, it lists the
    same plays in the same order as _legal_plays_listed."""
    out1 = np.zeros((4096, 54), np.int8)
    out2 = np.zeros((4096, 54), np.int8)
    lst = np.zeros(64, np.int64)
    w = np.zeros(plays.LP_WS, np.int64)
    checked = 0
    for st, cfg, b in _decisions(D, OPTIONS[oi], 24, 9 * D + oi):
        if int(st[b]["phase"]) != K.FOLLOW or int(st[b]["nsel"]) != 0:
            continue
        k1, k2 = _follow_listings(st, b, cfg, out1, out2, lst, w)
        if k1 < 0:
            continue
        assert k1 == k2, (D, b)
        r = min(k1, out1.shape[0])
        assert (out1[:r] == out2[:r]).all(), (D, b)
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("D,games", [(2, 600), (3, 300), (4, 300)])
def test_follow_fast_twin_led_tuples(D, games):
    """SJ-8.3: _follow_fast's own tuple branch (a single led tuple, the follower holding more cards of
    the esuit than were led: it must follow with a k-tuple where he has one) against
    _legal_plays_listed. test_follow_fast_twin's random games meet this branch only a few times per
    config with two decks, so here every FOLLOW position with a led tuple of hundreds of games is
    compared, and the branch (with two or more tuples to choose from, where the order matters) is
    counted."""
    out1 = np.zeros((4096, 54), np.int8)
    out2 = np.zeros((4096, 54), np.int8)
    lst = np.zeros(64, np.int64)
    w = np.zeros(plays.LP_WS, np.int64)
    branch = several = 0
    for st, cfg, b in _decisions(D, {}, games, 101 * D):
        s = st[b]
        if int(s["phase"]) != K.FOLLOW or int(s["nsel"]) != 0 or int(s["lead_n"]) < 2 \
                or int(s["fm"]) != 1 or int(s["fL"][0]) != 1:
            continue
        k1, k2 = _follow_listings(st, b, cfg, out1, out2, lst, w)
        if k1 < 0:
            continue
        assert k1 == k2 and (out1[:k1] == out2[:k1]).all(), (D, b)
        held = int(s["hand"][int(s["actor"])][s["es_tab"] == int(s["lead_esuit"])].sum())
        if held > int(s["lead_n"]):
            branch += 1
            several += k1 >= 2
    assert branch > 100 and several > 25, (branch, several)


@pytest.mark.parametrize("D", DECKS)
@pytest.mark.parametrize("allow_nt", [True, False])
def test_declare_bits_twin(D, allow_nt):
    """SJ-4.5: at every DECLARE decision the bit set of _declare_bits (bit a - A_PASS) is PASS plus
    decl_options' declarations."""
    mask = np.zeros(K.NUM_ACTIONS, np.uint8)
    checked = 0
    for st, cfg, b in _decisions(D, {"allow_no_trump": allow_nt}, 400, 13 * D + allow_nt):
        if int(st[b]["phase"]) != K.DECLARE:
            continue
        got = int(declare._declare_bits(st[b:b + 1][0], cfg[C_ALLOW_NT]))
        mask[:] = 0
        mask[K.A_PASS] = 1
        declare.decl_options(st, b, cfg, int(st[b]["actor"]), mask)
        assert [(got >> i) & 1 for i in range(K.NUM_ACTIONS - K.A_PASS)] == mask[K.A_PASS:].tolist()
        checked += 1
    assert checked > 400


@pytest.mark.parametrize("D", DECKS)
@pytest.mark.parametrize("allow_nt", [True, False])
def test_has_decl_twin(D, allow_nt):
    """SJ-4.5/4.6: at every decision of random deals, for every seat, _has_decl says whether
    decl_options counts a legal declaration."""
    none = np.zeros(0, np.uint8)
    checked = 0
    for st, cfg, b in _decisions(D, {"allow_no_trump": allow_nt}, 200, 17 * D + allow_nt):
        if int(st[b]["phase"]) != K.DECLARE:
            continue
        rec = st[b:b + 1][0]
        for p in range(4):
            want = declare.decl_options(st, b, cfg, p, none) > 0
            assert bool(declare._has_decl(rec, cfg[C_ALLOW_NT], p)) == want, (D, b, p)
            checked += 1
    assert checked > 1000


@njit
def _tuple_trick_winners(st, cfg, out):
    """For every trick of every game whose format was one single or tuple (the leader played n
    copies of one card): the trick rebuilt from the play log, its winner by both functions and the
    recorded one. Rows of out: fast, reference, recorded, leader."""
    ws = make_ws()
    set_ws_cfg(ws, cfg)
    r = 0
    for b in range(st.shape[0]):
        s = st[b]
        end = s.nlog
        i0 = 0
        while i0 < end:
            t = s.log_trick[i0]
            i1 = i0
            while i1 < end and s.log_trick[i1] == t:
                i1 += 1
            n = (i1 - i0) // 4
            single = n * 4 == i1 - i0 and t < s.ntricks
            for i in range(i0 + 1, i0 + n):
                if s.log_card[i] != s.log_card[i0]:
                    single = False
            if single and r < out.shape[0]:
                s.trick_cards[:, :] = 0
                for i in range(i0, i1):
                    s.trick_cards[s.log_seat[i], s.log_card[i]] += 1
                s.leader = s.tr_leader[t]
                s.lead_n = n
                s.fm = 1
                s.fk[0] = n
                s.fL[0] = 1
                s.lead_esuit = s.es_tab[s.log_card[i0]]
                s.nlog = i1
                out[r, 0] = trick._winner_single_tuple(s, i0)
                out[r, 1] = trick._winner_by_strength(s, ws, i0)
                out[r, 2] = s.tr_winner[t]
                out[r, 3] = s.leader
                r += 1
            i0 = i1
        s.nlog = end
    return r


@pytest.mark.parametrize("D", DECKS)
def test_winner_single_tuple_twin(D):
    """SJ-9.2/9.3: on every trick led with a single or a tuple in 300 random games, the winner by
    card position equals the winner by the strength search (play_strength_ws)."""
    n = 300
    g = shengji_env.BatchGame(n, decks=D)
    g.reset(seed=D)
    K.batch_rollout(g._st, g._cfg, K.make_rng(D, n))
    st = g._st.copy()
    out = np.zeros((200000, 4), np.int64)
    r = _tuple_trick_winners(st, g._cfg, out)
    assert r > 2000
    assert (out[:r, 0] == out[:r, 1]).all()
    assert (out[:r, 0] == out[:r, 2]).all()
    assert (out[:r, 1] != out[:r, 3]).mean() > 0.3      # followers win often (higher cards, ruffs)
