"""env.reset(seed=s) without options makes section 7's first draws in numba (the adapter's hook
``_game_reset_seeded``, cardzoo/nprandom.py) and keeps the generator as an nprandom.LazyGenerator. The
env must be the one ``_game_reset(numpy.random.default_rng(s), None)`` makes, and so must everything
drawn later: Court Piece's change cards and a match's next bazi, Sheng Ji's redeals and next hands, the
next reset() without a seed, and the same in a pickled or deep-copied clone."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import courtpiece_env
import lopti_env
import shengji_env
from cardzoo.options import SEED_MAX

CASES = [
    (courtpiece_env, dict(variant="single_sar")),
    (courtpiece_env, dict(variant="mendi_coat", mendi_trump="band")),
    (courtpiece_env, dict(variant="single_sar", change_cards=True, change_cards_limit=2, change_trump=True)),
    (courtpiece_env, dict(variant="chhupa_rang", episode="match", match_target=2, change_cards=True)),
    (shengji_env, dict(decks=1)),
    (shengji_env, dict(decks=4, declaration_mode="preset")),
    (shengji_env, dict(decks=2, declaration_mode="preset", episode="match", max_hands=3)),
    (shengji_env, dict(decks=1, episode="match", max_hands=3, no_declaration_first_hand="redeal")),
    (lopti_env, dict(num_players=2)),
    (lopti_env, dict(num_players=5)),
]
CHANGE_CARDS = 59  # Court Piece's change-cards action: taken whenever offered, so the generator draws again


def same_fields(a, b) -> bool:
    """Equal records field by field (a copy need not copy the padding bytes between fields)."""
    return all(np.array_equal(a[name], b[name]) for name in a.dtype.names)


def play(envs, rng, steps):
    """Step every env with the same random legal actions (up to `steps`, or the end); the first is the
    reference whose masks the others must show."""
    lead = envs[0]
    for _ in range(steps):
        agent = lead.agent_selection
        if lead.terminations[agent] or lead.truncations[agent]:
            return
        mask = lead.infos[agent]["action_mask"]
        for e in envs[1:]:
            assert np.array_equal(mask, e.infos[agent]["action_mask"])
        legal = np.flatnonzero(mask)
        a = CHANGE_CARDS if lead.metadata["name"].startswith("courtpiece") and mask[CHANGE_CARDS] \
            else int(rng.choice(legal))
        for e in envs:
            e.step(a)


@pytest.mark.parametrize("module, config", CASES, ids=[f"{m.__name__}-{c}" for m, c in CASES])
def test_seeded_env_reset_equals_numpy_path(module, config):
    for seed in (0, 5, 2**32 + 9, SEED_MAX):
        slow, fast = module.env(**config), module.env(**config)
        slow.unwrapped._game_reset_seeded = lambda s: None  # the plain path: numpy's Generator
        slow.reset(seed=seed)
        fast.reset(seed=seed)
        assert fast.unwrapped._st.tobytes() == slow.unwrapped._st.tobytes(), seed
        assert type(fast.unwrapped._rng).__name__ == "LazyGenerator"
        twin = pickle.loads(pickle.dumps(fast)) if seed % 2 else copy.deepcopy(fast)
        rng = np.random.default_rng(seed % 1000)
        for _ in range(2):
            play([slow, fast, twin], rng, 3000)
            assert fast.unwrapped._st.tobytes() == slow.unwrapped._st.tobytes()
            assert same_fields(twin.unwrapped._st, slow.unwrapped._st)
            for e in (slow, fast, twin):
                e.reset()  # no seed: the episode's generator draws on
            assert fast.unwrapped._st.tobytes() == slow.unwrapped._st.tobytes()
            assert same_fields(twin.unwrapped._st, slow.unwrapped._st)
