"""cardzoo/nprandom.py's import-time check against the installed numpy, and the fallback to numpy's
own Generator when the streams differ: the games then deal exactly the same (slower) games."""
from __future__ import annotations

import numpy as np
import pytest

import courtpiece_env
import lopti_env
from cardzoo import nprandom


def test_the_installed_numpy_matches_and_the_fast_path_is_on():
    assert nprandom.STREAM_MATCHES is True
    assert nprandom.check_stream() is True
    assert nprandom.seeds_fit([0, 5])


def test_a_differing_stream_is_detected_with_a_warning():
    def shifted(seed):  # a "numpy" whose stream differs from ours
        return np.random.Generator(np.random.PCG64(seed + 1))

    with pytest.warns(RuntimeWarning, match="PCG64 stream differs"):
        assert nprandom.check_stream(shifted) is False

    def other_buffer(seed):  # same permutations, one 32-bit draw more before integers
        gen = np.random.Generator(np.random.PCG64(seed))
        real = gen.integers

        class Wrapped:
            bit_generator = gen.bit_generator
            permutation = gen.permutation

            def integers(self, high):
                return real(high + 1) % high

        return Wrapped()

    with pytest.warns(RuntimeWarning):
        assert nprandom.check_stream(other_buffer) is False


@pytest.mark.parametrize("make", [lambda: courtpiece_env.BatchGame(6, variant="double_sar"),
                                  lambda: lopti_env.BatchGame(6, num_players=3, session=True)])
def test_without_the_fast_path_resets_deal_the_same_games(make, monkeypatch):
    fast, slow = make(), make()
    fast.reset(seed=11)
    monkeypatch.setattr(nprandom, "STREAM_MATCHES", False)
    assert not nprandom.seeds_fit([11])
    slow.reset(seed=11)
    assert np.array_equal(fast.observe(), slow.observe())
    assert np.array_equal(fast.legal_mask(), slow.legal_mask())
    for _ in range(40):
        if fast.done.all():
            break
        mask = fast.legal_mask()
        actions = mask.argmax(1)
        fast.step(actions)
        slow.step(actions)
        assert np.array_equal(fast.observe(), slow.observe())
