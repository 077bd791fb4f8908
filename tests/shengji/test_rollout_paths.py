"""Differential tests of the rollout's bit-set paths against the kernels they stand in for.

- _decomp_ns (the allocation-free SJ-7.2 search) against the plain-Python brute force on random one-esuit card sets,
  ambiguous positions (several level cards at one position, SJ-3.4) included;
- the fast rollout (incremental card sets, lead.execute_lead) against the plain loop on throw-heavy
  random games of every deck count and throw penalty mode (byte-identical states, SJ-7.4 penalties).
"""
import numpy as np
import pytest

import shengji_env
from shengji_env import kernels as K
from shengji_env.rules import combos, declare, scratch


@pytest.mark.parametrize("D", [2, 3, 4])
@pytest.mark.parametrize("trump", [0, 4])
def test_decomp_search_matches_reference(D, trump):
    """SJ-7.2: the kernel's search (_decomp_ns, allocation-free) gives the plain-Python brute force's
    components (k, L, top, cards) in the same order, ambiguous positions (several level cards at one
    position, SJ-3.4) included."""
    import shengji_reference as R

    rng = np.random.default_rng(10 * D + trump)
    lvl = 5
    pc = np.empty((K.NPOS, 4), np.int64)
    pn = np.empty(K.NPOS, np.int64)
    K.esuit_table(K.TRUMP, lvl, trump, pc, pn)
    cards = [c for c in range(54) if K.card_esuit(c, lvl, trump) == K.TRUMP]
    level_cards = [c for c in cards if c < 52 and c % 13 == lvl]
    stk = np.zeros(scratch.DS_SIZE, np.int64)
    ambiguous = 0
    rounds = 120 // (D - 1)                 # the brute force grows fast with the copies
    for _ in range(rounds):
        cnt = np.zeros(54, np.int64)
        for c in rng.choice(cards, size=int(rng.integers(2, 8 - D)), replace=False):
            cnt[c] = rng.integers(1, D + 1)
        for c in level_cards:               # favour several level cards at one position
            if rng.random() < 0.6:
                cnt[c] = rng.integers(1, D + 1)
        ambiguous += sum(cnt[c] > 0 for c in level_cards) > 1
        ok = np.zeros(64, np.int64)
        oL = np.zeros(64, np.int64)
        ot = np.zeros(64, np.int64)
        oc = np.zeros((64, K.NPOS), np.int64)
        c2 = cnt.copy()
        m = combos._decomp_ns(c2, pc, pn, np.int64(D), ok, oL, ot, oc, stk, np.int64(0))
        assert (c2 == cnt).all()
        got = [(int(ok[j]), int(oL[j]), int(ot[j]), tuple(sorted(int(c) for c in oc[j, :oL[j]] for _ in range(ok[j]))))
               for j in range(m)]
        held = [c for c in range(54) for _ in range(cnt[c])]
        assert got == R.decompose(held, lvl, trump, D), cnt
    assert ambiguous > rounds // 3


@pytest.mark.parametrize("D", [2, 3, 4])
@pytest.mark.parametrize("penalty", ["none", "per_card"])
def test_bit_rollout_matches_plain_loop(D, penalty):
    """Random games played by the fast rollout and by legal_mask + random_legal + step_one end in the
    same states byte for byte (every throw executed, forced, logged and penalised alike)."""
    n = 96
    cfg = {"throw_penalty": penalty, "episode": "match", "max_hands": 2}
    g1 = shengji_env.BatchGame(n, decks=D, **cfg)
    g2 = shengji_env.BatchGame(n, decks=D, **cfg)
    g1.reset(seed=31 * D)
    g2.reset(seed=31 * D)
    rng1 = K.make_rng(D, n)
    rng2 = K.make_rng(D, n)
    n1 = K.batch_rollout(g1._st, g1._cfg, rng1)
    n2 = K.batch_rollout_ref(g2._st, g2._cfg, rng2)
    assert n1 == n2 > 0
    assert (rng1 == rng2).all()
    assert g1._st.tobytes() == g2._st.tobytes()
    assert int(g1._st["nft"].sum()) > 0           # forced throws happened


@pytest.mark.parametrize("D", [1, 2, 4])
@pytest.mark.parametrize("allow_nt", [True, False])
def test_declare_bits_equal_legal_mask(D, allow_nt):
    """On every DECLARE decision of random deals, _declare_bits (bit a - A_PASS) is exactly the
    section 4 mask: PASS and the declarations SJ-4.3/4.5 allow."""
    n = 48
    g = shengji_env.BatchGame(n, decks=D, allow_no_trump=allow_nt)
    g.reset(seed=7 * D + allow_nt)
    rng = np.random.default_rng(D)
    checked = 0
    while not g.done.all():
        mask = g.legal_mask()
        st = g._st
        for b in range(n):
            if int(st[b]["phase"]) != K.DECLARE:
                continue
            bits = int(declare._declare_bits(st[b:b + 1][0], g._cfg[K.C_ALLOW_NT]))
            want = np.zeros(K.NUM_ACTIONS, np.uint8)
            for i in range(K.NUM_ACTIONS - K.A_PASS):
                want[K.A_PASS + i] = (bits >> i) & 1
            assert (want == mask[b]).all(), f"game {b}"
            checked += 1
        u = rng.random(mask.shape) * mask
        a = u.argmax(axis=1)
        a[mask.sum(axis=1) == 0] = -1
        g.step(a)
    assert checked > n


@pytest.mark.parametrize("D", [3, 4])
def test_bit_rollout_single_tractor_lead_is_no_throw(D):
    """SJ-7.4 checks throws only (two or more components): a lead of one tractor stands even when a
    follower holds a higher one. 1000 random 3- and 4-deck games include such leads (the bit-set lead
    once recorded them as failed throws); the fast rollout matches the plain loop byte for byte."""
    n = 1000
    g1 = shengji_env.BatchGame(n, decks=D)
    g2 = shengji_env.BatchGame(n, decks=D)
    g1.reset(seed=0)
    g2.reset(seed=0)
    rng1 = K.make_rng(0, n)
    rng2 = K.make_rng(0, n)
    assert K.batch_rollout(g1._st, g1._cfg, rng1) == K.batch_rollout_ref(g2._st, g2._cfg, rng2)
    assert g1._st.tobytes() == g2._st.tobytes()


@pytest.mark.parametrize("D", [2, 3])
def test_rollout_trick_winners_match_reference(D):
    """SJ-9.3: every trick winner the kernel records in random games (throws that stood, ruffs and
    over-ruffs of them included) is the plain-Python reference's winner of the logged plays."""
    import shengji_reference as R

    n = 40
    g = shengji_env.BatchGame(n, decks=D)
    g.reset(seed=7 * D)
    K.batch_rollout(g._st, g._cfg, K.make_rng(D + 100, n))
    throws = 0
    for b in range(n):
        s = g._st[b]
        lvl, trump = int(s["hand_level"]), int(s["trump"])
        log = list(zip(s["log_seat"][: s["nlog"]], s["log_card"][: s["nlog"]], s["log_trick"][: s["nlog"]]))
        for t in range(int(s["ntricks"])):
            cards = [(int(seat), int(c)) for seat, c, lt in log if lt == t]
            per = len(cards) // 4
            plays = [[c for _, c in cards[i * per:(i + 1) * per]] for i in range(4)]
            leader = int(s["tr_leader"][t])
            assert cards[0][0] == leader
            throws += len(R.decompose(plays[0], lvl, trump, D)) > 1
            assert int(s["tr_winner"][t]) == (leader + R.winner(plays, lvl, trump, D)) % 4, (b, t, plays)
    assert throws > 0
