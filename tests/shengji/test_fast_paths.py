"""Differential tests of the speed paths against the plain ones they replace.

- the rollout's direct random-action draw (_legal_bits + nth_set_bit) against the plain loop
  (legal_mask + random_legal + step_one): same actions, same final states, byte for byte;
- _legal_bits against the section 4 legal mask on every decision of random hands;
- the allocation-free trick resolution (single/tuple fast path, play_strength_ws) and lead
  execution against the reference winner of shengji_reference.py is covered by test_shengji_invariants.
"""
import numpy as np
import pytest

import shengji_env
from shengji_env import kernels as K
from shengji_env.rules import bits as bitsets, by_name
import shengji_reference as R


def _bits_to_mask(bits):
    return np.array([(int(bits) >> a) & 1 for a in range(K.NUM_ACTIONS)], np.uint8)


CONFIGS = [{}, {"auto_forced": True, "declaration_mode": "after_deal"},
           {"episode": "match", "max_hands": 3, "throw_penalty": "per_card", "declaration_mode": "preset"}]


@pytest.mark.parametrize("D", [1, 2, 3, 4])
@pytest.mark.parametrize("ci", range(len(CONFIGS)))
def test_fast_rollout_matches_plain_loop(D, ci):
    """Every decision of the fast rollout is the one random_legal draws from the full legal mask
    with the same generator (uniform over the mask, section 4), so both end in identical states."""
    n = 120
    cfg = CONFIGS[ci]
    g1 = shengji_env.BatchGame(n, decks=D, **cfg)
    g2 = shengji_env.BatchGame(n, decks=D, **cfg)
    g1.reset(seed=100 * D + ci)
    g2.reset(seed=100 * D + ci)
    rng1 = K.make_rng(7 + ci, n)
    rng2 = K.make_rng(7 + ci, n)
    n1 = K.batch_rollout(g1._st, g1._cfg, rng1)
    n2 = K.batch_rollout_ref(g2._st, g2._cfg, rng2)
    assert n1 == n2 > 0
    assert (rng1 == rng2).all()
    assert g1._st.tobytes() == g2._st.tobytes()


@pytest.mark.parametrize("D", [1, 2, 3, 4])
def test_legal_bits_equal_legal_mask(D):
    """On every decision of random hands, _legal_bits is either 0 (the caller falls back to
    legal_mask: declaring, naming trump, follows to a tractor or to several tuples) or exactly the
    legal mask."""
    n = 32
    g = shengji_env.BatchGame(n, decks=D)
    g.reset(seed=40 + D)
    rng = np.random.default_rng(D)
    esm = np.zeros(5, np.uint64)
    checked = fallback = 0
    while not g.done.all():
        mask = g.legal_mask()
        st = g._st
        for b in range(n):
            ph = int(st[b]["phase"])
            if ph > K.FOLLOW:
                continue
            if ph >= K.BURY:
                bitsets._esuit_bits(st, b, esm)
            bits = bitsets._legal_bits(st, b, g._cfg, esm)
            if bits == 0:
                assert ph in (K.DECLARE, K.NAME_TRUMP, K.FOLLOW)
                if ph == K.FOLLOW:
                    fm = int(st[b]["fm"])
                    fk = st[b]["fk"][:fm]
                    fL = st[b]["fL"][:fm]
                    assert (fk >= 2).any() and not (fm == 1 and fL[0] == 1)
                fallback += 1
                continue
            assert (_bits_to_mask(bits) == mask[b]).all(), f"game {b} phase {ph}"
            checked += 1
        u = rng.random(mask.shape) * mask
        a = u.argmax(axis=1)
        a[mask.sum(axis=1) == 0] = -1
        g.step(a)
    assert checked > 500


def _ref_beaten(k, L, top, hand, lvl, trump, e):
    """SJ-7.4 in plain Python: hand holds, in esuit e, L consecutive positions ending above top,
    each with some card held at least k times."""
    held = set()
    for c in range(54):
        if hand[c] >= k and R.esuit(c, lvl, trump) == e:
            held.add(R.pos(c, lvl, trump))
    return any(all(p in held for p in range(pe - L + 1, pe + 1)) for pe in range(top + 1, 16))




@pytest.mark.parametrize("D", [2, 3, 4])
def test_throw_check_differential(D):
    """The bit-mask throw check (SJ-7.4) against a plain-Python one on random throws: success,
    and on failure the forced component (smallest size, lowest top, lowest card)."""
    from cardzoo.cards import card_text
    rng = np.random.default_rng(70 + D)
    deck = np.repeat(np.arange(54), D)
    tried = failed = 0
    while tried < 400:
        lvl = int(rng.integers(13))
        trump = int(rng.integers(5))
        order = rng.permutation(deck)
        hands = [np.bincount(order[i::4][:26], minlength=54) for i in range(4)]
        e = int(rng.integers(5))
        cards = [c for c in range(54) if hands[0][c] and R.esuit(c, lvl, trump) == e]
        if len(cards) < 2:
            continue
        pick = rng.choice(cards, size=int(rng.integers(2, min(len(cards), 6) + 1)), replace=False)
        lead = np.zeros(54, np.int64)
        for c in pick:
            lead[c] = int(rng.integers(1, hands[0][c] + 1))
        text = lambda cnt: " ".join(card_text(c) for c in range(54) for _ in range(int(cnt[c])))
        comps = K.decompose(text(lead), lvl, "CDHSN"[trump] if trump < 4 else "NT", D)
        if len(comps) < 2:
            continue
        tried += 1
        beaten = []
        for (k, L, top, ctext) in comps:
            if any(_ref_beaten(k, L, top, hands[q], lvl, trump, e) for q in (1, 2, 3)):
                cc = by_name._counts(ctext)
                beaten.append((k * L, top, int(np.flatnonzero(cc)[0]), ctext))
        ok, played = K.throw_check(text(lead), [text(hands[q]) for q in (1, 2, 3)], lvl,
                                   "CDHSN"[trump] if trump < 4 else "NT", D)
        if not beaten:
            assert ok and sorted(played.split()) == sorted(text(lead).split())
        else:
            failed += 1
            forced = min(beaten)[3]
            assert not ok and sorted(played.split()) == sorted(forced.split())
    assert failed > 50
