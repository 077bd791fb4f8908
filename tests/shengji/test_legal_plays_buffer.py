"""BatchGame.legal_plays / raw_env.legal_plays reuse one output buffer per object (the kernel writes
every listed row in full, so the buffer is never cleared between calls): a buffer left dirty by
earlier, longer listings must give exactly the plays, in the same order, that a fresh object gives."""
import numpy as np
import pytest

import shengji_env
from shengji_env import kernels as K


def _positions(D, n=32, seed=3):
    """(BatchGame, [(b, phase)]) snapshots of random play: BURY (long listings), LEAD, FOLLOW."""
    g = shengji_env.BatchGame(n, decks=D)
    g.reset(seed=seed)
    rng = np.random.default_rng(seed)
    states = []
    while not g.done.all() and len(states) < 40:
        states.append(g._st.copy())
        mask = g.legal_mask()
        u = rng.random(mask.shape) * mask
        a = u.argmax(axis=1)
        a[mask.sum(axis=1) == 0] = -1
        g.step(a)
    return g, states


@pytest.mark.parametrize("D", [2, 3])
def test_batch_legal_plays_reused_buffer_equals_fresh(D):
    g, states = _positions(D)
    fresh = shengji_env.BatchGame(g.n, decks=D)
    fresh.reset(seed=0)  # started (legal_plays needs a reset); its records are overwritten below
    checked = 0
    for st in states:
        for b in range(g.n):
            if int(st[b]["phase"]) not in (K.BURY, K.LEAD, K.FOLLOW):
                continue
            g._st[:] = st
            fresh._st[:] = st
            fresh._plays_buf = None   # a new buffer each time: the reference
            try:
                want = fresh.legal_plays(b, max_plays=20000)
            except ValueError:
                with pytest.raises(ValueError):
                    g.legal_plays(b, max_plays=20000)
                continue
            got = g.legal_plays(b, max_plays=20000)
            assert got.dtype == np.uint8 and got.shape == want.shape and (got == want).all()
            # a smaller max_plays on the same (larger, dirty) buffer: the same answer or the same error
            small = max(1, len(want) // 2)
            if len(want) > small:
                with pytest.raises(ValueError, match="max_plays"):
                    g.legal_plays(b, max_plays=small)
            else:
                assert (g.legal_plays(b, max_plays=small) == want).all()
            checked += 1
    assert checked > 200


def test_raw_env_legal_plays_reused_buffer_equals_fresh():
    raw = shengji_env.raw_env(decks=2)
    raw.reset(seed=11)
    rng = np.random.default_rng(11)
    checked = 0
    while not raw.terminations[raw.agent_selection] and checked < 150:
        if int(raw._st[0]["phase"]) in (K.LEAD, K.FOLLOW):
            got = raw.legal_plays(max_plays=100000)
            raw._plays_buf = np.full_like(raw._plays_buf, 7)   # dirty on purpose
            again = raw.legal_plays(max_plays=100000)
            raw._plays_buf = None
            assert got == again == raw.legal_plays(max_plays=100000)
            checked += 1
        mask = raw.infos[raw.agent_selection]["action_mask"]
        raw.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 50


@pytest.mark.parametrize("bad", [-1, 2.5, True, "10"])
def test_legal_plays_bad_max_plays_raises(bad):
    g = shengji_env.BatchGame(2, decks=1)
    g.reset(seed=0)
    with pytest.raises(ValueError, match="max_plays"):
        g.legal_plays(0, max_plays=bad)


def test_legal_plays_bad_game_index_raises():
    g = shengji_env.BatchGame(2, decks=1)
    g.reset(seed=0)
    with pytest.raises(ValueError, match="game index"):
        g.legal_plays(2)
