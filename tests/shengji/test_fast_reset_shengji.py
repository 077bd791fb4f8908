"""BatchGame.reset(seed=s) draws every game's §7.4 first-hand order and preset trump in one jitted
call (cardzoo/nprandom.py): the records must be byte-identical to the per-game numpy path (game b:
default_rng(s + b), canonical[permutation(54 D)], then integers(4) for a preset trump), and every
later draw (redeals, a match's next hands, §7.4) must come from game b's generator in exactly the
state that path leaves it in, also through ``take``."""
from __future__ import annotations

import numpy as np
import pytest

from cardzoo.options import SEED_MAX
import shengji_env
from shengji_env.env import _fill_deals, _RowRngs, _start_rows, canonical_order
from shengji_env.state import make_state


def per_game_reset(g, seed, deals=None, trumps=None):
    """The §7.4 reset game by game with numpy Generators (the path before the jitted one)."""
    bankers, levels, opt_trumps, firsts = g._parse_options(None, None, trumps, None)
    D = g.config.decks
    rngs = [np.random.default_rng(seed + b) for b in range(g.n)]
    orders = np.empty((g.n, 54 * D), np.int8)
    trumps = opt_trumps.copy()
    for b in range(g.n):
        orders[b] = canonical_order(rngs[b], D) if deals is None else deals[b]
        if g.config.declaration_mode == "preset" and trumps[b] < 0:
            trumps[b] = int(rngs[b].integers(4))
    st = make_state(g.n)
    _start_rows(st, g._cfg, orders, trumps, bankers, levels, firsts)
    _fill_deals(st, g._cfg, g.config, rngs, None)
    g._st = st
    g._rngs = _RowRngs([seed + b for b in range(g.n)])
    g._is_reset = True  # (what BatchGameBase.reset marks)
    g._rngs.gens = rngs
    g.rewards[:] = 0.0


CONFIGS = [
    dict(decks=1),
    dict(decks=2),
    dict(decks=3, declaration_mode="after_deal"),
    dict(decks=4, declaration_mode="preset"),
    dict(decks=2, declaration_mode="preset", episode="match", max_hands=3),
    dict(decks=1, episode="match", max_hands=3, no_declaration_first_hand="redeal"),
]


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_shengji_fast_reset_byte_identical_on_many_seeds(config):
    n = 47  # odd: games are shuffled in pairs (nprandom.shuffle_pair), the last one alone
    fast = shengji_env.BatchGame(n, **config)
    slow = shengji_env.BatchGame(n, **config)
    # up to the largest batch seed: seeds are 0..SEED_MAX, game b gets seed + b
    for seed in [0, 1, 48, 999, 2**31 - 3, 2**32 - 7, 2**45 + 11, 2**62 + 3, SEED_MAX - (n - 1)]:
        fast.reset(seed=seed)
        per_game_reset(slow, seed)
        assert fast._st.tobytes() == slow._st.tobytes(), seed
        for b in (0, 17, n - 1):
            assert fast._rngs[b].bit_generator.state == slow._rngs[b].bit_generator.state, (seed, b)


def test_shengji_fast_reset_with_deals_draws_only_the_trump():
    n, D = 16, 2
    fast = shengji_env.BatchGame(n, decks=D, declaration_mode="preset")
    slow = shengji_env.BatchGame(n, decks=D, declaration_mode="preset")
    deals = np.stack([canonical_order(np.random.default_rng(10**6 + b), D) for b in range(n)]).astype(np.int64)
    trumps = [None if b % 3 else "NT" for b in range(n)]
    fast.reset(seed=55, deals=deals, trump=trumps)
    per_game_reset(slow, 55, deals=deals, trumps=trumps)
    assert fast._st.tobytes() == slow._st.tobytes()
    for b in range(n):
        assert fast._rngs[b].bit_generator.state == slow._rngs[b].bit_generator.state, b


@pytest.mark.parametrize("config", CONFIGS[-2:], ids=[str(c) for c in CONFIGS[-2:]])
def test_shengji_fast_reset_later_draws_identical(config):
    n, seed = 8, 4242
    fast = shengji_env.BatchGame(n, **config)
    slow = shengji_env.BatchGame(n, **config)
    fast.reset(seed=seed)
    per_game_reset(slow, seed)
    fast.step(fast.legal_mask().argmax(axis=1))
    branch = fast.take(np.arange(n)[::-1])     # copies of not yet materialized generators too
    slow.step(slow.legal_mask().argmax(axis=1))
    rng = np.random.default_rng(3)
    while not fast.done.all():
        mask = fast.legal_mask()
        assert np.array_equal(mask, slow.legal_mask())
        # the first legal action (pass first) keeps the no-declaration redeals of §7.4 frequent
        acts = np.array([0 if not m.any() else rng.choice(np.flatnonzero(m)) if rng.random() < 0.7 else m.argmax()
                         for m in mask])
        fast.step(acts)
        slow.step(acts)
        assert fast._st.tobytes() == slow._st.tobytes()
    assert slow.done.all()
    for b in range(n):
        assert fast._rngs[b].bit_generator.state == slow._rngs[b].bit_generator.state, b
    # the branch's generators were copied before the draws above: they still continue game b's stream
    rows = np.arange(n)[::-1]
    ref = shengji_env.BatchGame(n, **config)
    per_game_reset(ref, seed)
    ref.step(ref.legal_mask().argmax(axis=1))
    ref = ref.take(rows)
    assert branch._st.tobytes() == ref._st.tobytes()
    for i in range(n):
        assert branch._rngs[i].permutation(20).tolist() == ref._rngs[i].permutation(20).tolist()
