"""Differential tests: the numba legality and move-resolution kernels against the plain-Python
reference of lopti_reference.py (LO-3..LO-9, LO-12 switches) on thousands of random positions."""
from __future__ import annotations

import random

import numpy as np
import pytest

import lopti_env
from lopti_env import kernels as K
from lopti_reference import random_position

KEYS = ("phase", "to_act", "move", "moves", "seats", "out", "pile", "top", "chain", "obligation", "limit", "gone",
        "draw_size", "clears", "last_clear")

_ENVS = {}


def _env(n):
    if n not in _ENVS:
        _ENVS[n] = lopti_env.env(num_players=n)
    return _ENVS[n]


def _compare(e, ref, where):
    ps = e.unwrapped.public_state()
    exp = ref.public()
    for k in KEYS:
        assert ps[k] == exp[k], f"{where}: {k}: engine {ps[k]!r} != reference {exp[k]!r}"
    for s in range(ref.n):
        assert e.unwrapped.hand(s) == ref.hand_text(s), f"{where}: hand of seat {s}"


def _run_positions(seed, count, moves_per_position):
    rng = random.Random(seed)
    checked = 0
    for i in range(count):
        n, state, ref = random_position(rng)
        e = _env(n)
        e.reset(seed=i, options={"state": state})
        where = f"seed {seed} position {i}"
        _compare(e, ref, where + " (injected)")
        for step in range(moves_per_position):
            if ref.done:
                break
            mask = e.unwrapped.observe(e.agent_selection)["action_mask"]
            legal = set(np.flatnonzero(mask).tolist())
            assert legal == ref.mask(), f"{where} step {step}: mask {sorted(legal)} != {sorted(ref.mask())}"
            a = rng.choice(sorted(legal))
            e.step(a)
            ref.step(a)
            _compare(e, ref, f"{where} step {step} after {a}")
            checked += 1
            if ref.done:
                rw = [e.unwrapped.rewards[f"player_{s}"] for s in range(n)]
                assert np.allclose(rw, ref.rewards), f"{where}: rewards {rw} != {ref.rewards}"
                assert e.unwrapped.truncations["player_0"] == ref.truncated
    return checked


def test_lopti_differential_moves():
    """2,000 random positions, up to 4 moves each, checked field by field (LO-3..LO-9)."""
    assert _run_positions(2024, 2000, 4) > 5000


@pytest.mark.slow
def test_lopti_differential_moves_long():
    assert _run_positions(77, 40000, 8) > 100000


def test_lopti_differential_legality_kernel():
    """LO-4.1 line by line: K.legal_of against the reference for every (rank, count) on random tables."""
    rng = random.Random(5)
    for i in range(1200):
        n, state, ref = random_position(rng)
        e = _env(n)
        e.reset(options={"state": state})
        st = e.unwrapped._st
        for r in range(13):
            for k in range(1, 5):
                assert bool(K.legal_of(st, 0, r, k)) == ref.legal(r, k), (i, r, k, state["pile"], state["chain"])
