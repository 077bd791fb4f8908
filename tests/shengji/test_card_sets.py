"""The record's card sets (``card_sets``, rules.cardsets) equal the hand and selection counts after
every kernel that changes them: the deal, the kitty and the bury (SJ-5.1), composing a play
(section 4), leads and failed throws (SJ-7.3, SJ-7.4), follows (SJ-8.1), on every path (BatchGame.step,
the rollout, the AEC env) and in every deck count."""
from __future__ import annotations

import random

import numpy as np
import pytest

import shengji_env
from shengji_env import kernels as K
from shengji_env.state import CS_SEAT, CS_SEL

OPTIONS = [{}, {"throw_penalty": "per_card", "declaration_mode": "after_deal"},
           {"episode": "match", "max_hands": 2, "allow_no_trump": False}, {"auto_forced": True}]


def _planes_from_counts(st) -> np.ndarray:
    """card_sets recomputed in numpy from hand and sel."""
    want = np.zeros((len(st), 40), np.uint64)
    bit = np.uint64(1) << np.arange(54, dtype=np.uint64)
    for k in range(1, 5):
        for seat in range(4):
            want[:, CS_SEAT * seat + k] = np.bitwise_or.reduce(np.where(st["hand"][:, seat] >= k, bit, 0), axis=1)
        want[:, CS_SEL + k] = np.bitwise_or.reduce(np.where(st["sel"] >= k, bit, 0), axis=1)
    return want


def _assert_current(st, where):
    got = st["card_sets"]
    want = _planes_from_counts(st)
    bad = np.flatnonzero((got != want).any(axis=1))
    assert bad.size == 0, f"{where}: card sets differ from the counts in games {bad[:5]}"


def test_sync_card_sets_recomputes_the_planes():
    st = shengji_env.BatchGame(3, decks=3)._st
    rng = np.random.default_rng(0)
    st["hand"] = rng.integers(0, 4, st["hand"].shape)
    st["sel"] = rng.integers(0, 2, st["sel"].shape)
    st["card_sets"] = 12345
    K.sync_card_sets(st)
    _assert_current(st, "sync_card_sets")
    assert (st["card_sets"][:, CS_SEAT * 2 + 3] != 0).all()       # a seat holding some card 3 times


@pytest.mark.parametrize("D", [1, 2, 3, 4])
@pytest.mark.parametrize("oi", range(len(OPTIONS)))
def test_card_sets_follow_batch_steps_and_rollouts(D, oi):
    """After every BatchGame.step of random games and at the end of rollouts from their midpoints."""
    n = 48
    g = shengji_env.BatchGame(n, decks=D, **OPTIONS[oi])
    g.reset(seed=90 * D + oi)
    _assert_current(g._st, "reset")
    rng = np.random.default_rng(D + 7 * oi)
    steps = 0
    while not g.done.all():
        mask = g.legal_mask()
        a = (rng.random(mask.shape) * mask).argmax(1)
        a[mask.sum(axis=1) == 0] = -1
        g.step(a)
        _assert_current(g._st, f"step {steps}")
        steps += 1
        if steps == 30:
            mid = g._st.copy()
    assert steps > 30
    K.batch_rollout(mid, g._cfg, K.make_rng(D + oi, n))
    _assert_current(mid, "rollout")
    g.reset(seed=5 + D)
    g.rollout(seed=D)
    _assert_current(g._st, "rollout from the deal")


@pytest.mark.parametrize("D", [1, 2])
def test_card_sets_follow_env_steps(D):
    env = shengji_env.raw_env(decks=D, throw_penalty="per_card")
    rnd = random.Random(D)
    for seed in range(6):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            legal = np.flatnonzero(env.infos[env.agent_selection]["action_mask"])
            env.step(int(legal[rnd.randrange(len(legal))]))
            _assert_current(env.unwrapped._st, f"env seed {seed}")
