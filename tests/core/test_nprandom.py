"""cardzoo/nprandom.py against numpy itself: default_rng(seed) and default_rng([seed, 1]) states,
permutation(n), integers(k) and the state after the draws (has_uint32 / uinteger included), on
thousands of seeds: 0, small, around every 32-bit word boundary, up to 2**63 and beyond 2**64."""
import copy
import pickle

import numpy as np
import pytest

from cardzoo import nprandom as R

RNG = np.random.default_rng(20261130)
SEEDS = sorted(set(
    list(range(0, 1500))
    + [2**k + d for k in (31, 32, 33, 48, 62, 63) for d in (-2, -1, 0, 1, 2)]
    + [int(x) for x in RNG.integers(0, 2**63, 600, dtype=np.int64)]
    + [int(x) for x in RNG.integers(0, 2**32, 300, dtype=np.int64)]
    + [2**64 - 1, 2**64, 2**64 + 12345, 2**96 + 7, 3**80]
))


def test_nprandom_seeded_states_match_numpy():
    states = R.seeded_states(SEEDS)
    for s, row in zip(SEEDS, states):
        assert R.state_dict(row) == np.random.default_rng(s).bit_generator.state, s


@pytest.mark.parametrize("suffix", [(1,), (0,), (2**40,), (1, 2, 3, 4, 5)])
def test_nprandom_list_entropy_matches_numpy(suffix):
    # default_rng([s, 1]) is LOPTI's aux stream (section 7.3); longer lists pass the pool size
    seeds = SEEDS[::3]
    states = R.seeded_states(seeds, suffix)
    for s, row in zip(seeds, states):
        assert R.state_dict(row) == np.random.default_rng([s, *suffix]).bit_generator.state, (s, suffix)


def test_nprandom_entropy_words_general_path():
    # seeds past 2**64 take the word-by-word path; the array path must agree with it on small seeds
    w1, n1 = R.entropy_words([5, 2**33, 0], (1,))
    assert n1.tolist() == [2, 3, 2]
    assert w1[0, :2].tolist() == [5, 1] and w1[1, :3].tolist() == [0, 2, 1] and w1[2, :2].tolist() == [0, 1]
    w2, n2 = R.entropy_words([2**64 + 3], ())
    assert n2.tolist() == [3] and w2[0].tolist() == [3, 0, 1]
    assert not R.seeds_fit([None, 1]) and not R.seeds_fit([-1, 0]) and not R.seeds_fit([])
    assert R.seeds_fit([0, 2**70])


def test_nprandom_range_seeds_and_one_seed_words():
    # a batch's seeds come as range(seed, seed + n): the same words as the list, without one
    for start, n in [(0, 5), (2**32 - 2, 4), (2**63 - 1, 3)]:
        w1, n1 = R.entropy_words(range(start, start + n))
        w2, n2 = R.entropy_words(list(range(start, start + n)))
        assert np.array_equal(n1, n2) and all(np.array_equal(w1[b, :n1[b]], w2[b, :n2[b]]) for b in range(n))
        assert R.seeds_fit(range(start, start + n))
        words, nwords = np.zeros((1, 2), np.uint32), np.zeros(1, np.int64)
        R.put_seed_words(start, words, nwords)
        assert nwords[0] == n2[0] and words[0, :nwords[0]].tolist() == w2[0, :n2[0]].tolist()
    assert not R.seeds_fit(range(0)) and not R.seeds_fit(range(-1, 3))


@pytest.mark.parametrize("batch", [1, 2, 5])
@pytest.mark.parametrize("n", [52, 108])
def test_nprandom_permutation_rows_in_pairs(batch, n):
    # permutation_rows shuffles games b and b + 1 side by side (and an odd batch's last alone): each
    # game's K permutations and its state after them must be its own generator's
    seeds = [7 + 1000 * b for b in range(batch)]
    states = R.seeded_states(seeds)
    out = np.empty((batch, 3, n), np.int16)
    R.permutation_rows(states, out)
    for b, s in enumerate(seeds):
        g = np.random.default_rng(s)
        for k in range(3):
            assert (out[b, k] == g.permutation(n)).all(), (b, k)
        assert R.state_dict(states[b]) == g.bit_generator.state, b


@pytest.mark.parametrize("n", [1, 2, 3, 13, 37, 52, 54, 108, 162, 216, 1000, 70000])
def test_nprandom_permutation_matches_numpy(n):
    seeds = SEEDS[:: 40 if n < 1000 else 400]
    states = R.seeded_states(seeds)
    out = np.empty(n, np.int64)
    for s, row in zip(seeds, states):
        g = np.random.default_rng(s)
        for _ in range(3):
            R.permutation_into(row, out, n)
            assert (out == g.permutation(n)).all(), (s, n)
        assert R.state_dict(row) == g.bit_generator.state, (s, n)


def test_nprandom_integers_match_numpy():
    # small bounds as the resets use them, bounds where Lemire's rejection is frequent, 2**32
    highs = [1, 2, 3, 4, 5, 7, 13, 37, 52, 2**31 + 1, 3 * 2**30 + 5, 2**32 - 1, 2**32]
    seeds = SEEDS[::5]
    states = R.seeded_states(seeds)
    for s, row in zip(seeds, states):
        g = np.random.default_rng(s)
        for k in range(60):
            high = highs[(k * 7 + s) % len(highs)]
            assert R.integers_below_jit(row, high) == g.integers(high), (s, k, high)
            if k % 11 == 0:
                assert R.state_dict(row) == g.bit_generator.state, (s, k)
        assert R.state_dict(row) == g.bit_generator.state, s


def test_nprandom_mixed_draws_then_handover():
    # permutations and integers interleaved (odd counts of 32-bit draws leave a buffered half);
    # the handed-over Generator continues exactly as the original one
    seeds = SEEDS[::7]
    states = R.seeded_states(seeds, (1,))
    buf = np.empty(52, np.int64)
    for s, row in zip(seeds, states):
        g = np.random.default_rng([s, 1])
        for k in range(s % 5 + 1):
            assert R.integers_below_jit(row, 2 + k) == g.integers(2 + k)
            R.permutation_into(row, buf, 52 - k)
            assert (buf[:52 - k] == g.permutation(52 - k)).all()
        h = R.to_generator(row)
        assert h.bit_generator.state == g.bit_generator.state
        assert (h.permutation(54) == g.permutation(54)).all()
        assert h.integers(1000, size=5).tolist() == g.integers(1000, size=5).tolist()
        assert h.random() == g.random()


def test_nprandom_lazy_generator():
    states = R.seeded_states([3, 4])
    buf = np.empty(52, np.int64)
    R.permutation_into(states[1], buf, 52)
    lazy = R.LazyGenerator(states, 1)
    twin = copy.deepcopy(lazy)  # a copy before the first draw is an independent stream
    g = np.random.default_rng(4)
    g.permutation(52)
    assert lazy.integers(4) == g.integers(4)
    assert lazy.bit_generator.state == g.bit_generator.state
    again = copy.deepcopy(lazy)  # and after it
    assert again.permutation(37).tolist() == lazy.permutation(37).tolist()
    h = np.random.default_rng(4)
    h.permutation(52)
    assert twin.integers(4) == h.integers(4)


def test_nprandom_lazy_generator_pickles_and_copies():
    # BatchGames are copied and pickled by users (vector envs, checkpoints): both stay exact
    states = R.seeded_states([8])
    for materialize in (False, True):
        lazy = R.LazyGenerator(states.copy(), 0)
        if materialize:
            lazy.random()
        ref = np.random.default_rng(8)
        if materialize:
            ref.random()
        for twin in (pickle.loads(pickle.dumps(lazy)), copy.copy(lazy), copy.deepcopy(lazy)):
            assert twin.bit_generator.state == ref.bit_generator.state
