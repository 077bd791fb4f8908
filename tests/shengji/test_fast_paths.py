"""Differential tests of the speed paths against the plain ones they replace.

- the rollout's direct random-action draw (_legal_bits + nth_set_bit) against the plain loop
  (legal_mask + random_legal + step_one): same actions, same final states, byte for byte;
- _legal_bits against the section 4 legal mask on every decision of random hands;
- the allocation-free trick resolution (single/tuple fast path, play_strength_ws) and lead
  execution against the reference winner of reference.py is covered by test_shengji_invariants.
"""
import numpy as np
import pytest

import shengji_env
from shengji_env import kernels as K


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
                K._esuit_bits(st, b, esm)
            bits = K._legal_bits(st, b, g._cfg, esm)
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
