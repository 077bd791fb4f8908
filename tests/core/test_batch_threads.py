"""BatchGame(B, threads=n) (cardzoo.batch.run_shards): a seeded reset and a rollout split over n
threads deal and play exactly the games of threads=1 (rewards, done, decisions, every byte of the state records), because game b
draws from generator b of the rollout seed whatever the split; a bad `threads` is a ValueError."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import courtpiece_env
import lopti_env
import shengji_env

CASES = [
    ("courtpiece", courtpiece_env, {"variant": "single_sar"}),
    ("courtpiece", courtpiece_env, {"variant": "double_sar", "episode": "match"}),
    ("lopti", lopti_env, {"num_players": 4}),
    ("lopti", lopti_env, {"num_players": 3, "session": True}),
    ("shengji", shengji_env, {}),
]
GAMES = 301  # not a multiple of 2 or 3: the shards differ in size


def state_records(g) -> np.ndarray:
    return g.st if isinstance(g, lopti_env.BatchGame) else g._st


def generator_rows(g):
    """The per-game generator states a seeded reset leaves (Court Piece, Sheng Ji; LOPTI keeps none)."""
    holder = getattr(g, "_eps", None) if isinstance(g, courtpiece_env.BatchGame) else getattr(g, "_rngs", None)
    rows = getattr(holder, "states", None)
    return None if rows is None else rows.tobytes()


def play(mod, config, threads):
    """Two rounds of reset + rollout; what each reset and each rollout left. The seeded reset is
    split over the threads too (its draws, the deal and the start of every game)."""
    g = mod.BatchGame(GAMES, threads=threads, **config)
    out = []
    for seed, rseed in ((11, 5), (2**63 - GAMES, 2**63 - 1)):
        g.reset(seed=seed)
        after_reset = (state_records(g).tobytes(), generator_rows(g))
        n = g.rollout(seed=rseed)
        out.append((n, g.rewards.copy(), g.done.copy(), state_records(g).tobytes(), after_reset))
    return out


@pytest.mark.parametrize("name,mod,config", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_threaded_rollout_plays_the_same_games(name, mod, config):
    one = play(mod, config, 1)
    for threads in (2, 3):
        many = play(mod, config, threads)
        for (n1, r1, d1, s1, reset1), (n2, r2, d2, s2, reset2) in zip(one, many):
            assert reset1 == reset2, f"{name}: threads={threads} reset other games than threads=1"
            assert n1 == n2 and n1 > 0
            np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(d1, d2)
            assert d1.all()
            assert s1 == s2, f"{name}: threads={threads} left other state records than threads=1"


@pytest.mark.parametrize("mod", [courtpiece_env, lopti_env, shengji_env])
@pytest.mark.parametrize("bad", [0, -1, 1.0, 2.5, True, "2", None])
def test_bad_threads_raise(mod, bad):
    with pytest.raises(ValueError, match="threads"):
        mod.BatchGame(4, threads=bad)


@pytest.mark.parametrize("mod", [courtpiece_env, lopti_env, shengji_env])
def test_threads_kept_by_copies(mod):
    g = mod.BatchGame(8, threads=2)
    assert g.threads == 2 and mod.BatchGame(8).threads == 1
    assert copy.deepcopy(g).threads == 2 and pickle.loads(pickle.dumps(g)).threads == 2


def test_shengji_take_keeps_threads():
    g = shengji_env.BatchGame(8, threads=2)
    g.reset(seed=0)
    assert g.take([0, 3]).threads == 2
