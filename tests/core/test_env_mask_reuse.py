"""Mask arrays of env() (cardzoo/aec.py; LOPTI, Sheng Ji and Court Piece write a step's mask into the array handed
out two masks before when nothing but the env references it any more, instead of allocating one per
step): a mask a user keeps -- the array, a view of it, a memoryview, inside a container -- never
changes afterwards, every mask handed out equals the legal mask of its state, and the reuse does
happen in a loop that keeps nothing (else the saving would be gone without a failing test)."""
from __future__ import annotations

import random

import numpy as np
import pytest

from cardzoo.registry import make

CONFIGS = [("lopti", {"num_players": 2}), ("lopti", {"num_players": 5}),
           ("lopti", {"num_players": 3, "session": True, "session_rounds": 2, "max_moves": 200, "rps_max_throws": 40}),
           ("shengji", {"decks": 1}), ("shengji", {"decks": 2, "episode": "match", "max_hands": 2}),
           ("courtpiece", {"variant": "single_sar"}), ("courtpiece", {"variant": "chhupa_rang", "change_cards": True}),
           ("courtpiece", {"variant": "mendi_coat", "episode": "match", "match_target": 2})]


def _newest(raw):
    """The id of the env's current mask array and of the one before it (ids only: a reference held
    here would itself keep the array from being reused)."""
    if hasattr(raw, "_mask_now"):
        return id(raw._mask_now), id(raw._mask_before)
    if hasattr(raw, "_next_mask"):  # Court Piece
        return id(raw._next_mask), id(raw._mask_before)
    return id(raw._cur_mask), id(raw._mask_before)


@pytest.mark.parametrize("game,config", CONFIGS, ids=[f"{g}-{i}" for i, (g, _) in enumerate(CONFIGS)])
def test_kept_masks_never_change_and_free_ones_are_reused(game, config):
    env = make(game, **config)
    raw = env.unwrapped
    rnd = random.Random(5)
    kept = []
    steps = reused = 0
    for episode in range(3):
        env.reset(seed=episode)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            mask = env.infos[agent]["action_mask"]
            assert mask.dtype == np.int8 and mask.tobytes() == env.observe(agent)["action_mask"].tobytes()
            r = rnd.random()
            if r < 0.05:
                kept.append((mask, mask.tobytes()))
            elif r < 0.1:
                kept.append((mask[:], mask.tobytes()))         # a view: its base is the array
            elif r < 0.15:
                kept.append((memoryview(mask), mask.tobytes()))
            elif r < 0.2:
                kept.append(({"m": [mask]}, mask.tobytes()))
            legal = np.flatnonzero(mask)
            del mask
            before = _newest(raw)[1]
            env.step(int(legal[rnd.randrange(len(legal))]))
            steps += 1
            reused += _newest(raw)[0] == before
            if steps % 50 == 0:
                _check(kept)
    _check(kept)
    assert reused > steps // 2, (reused, steps)


def _check(kept):
    for obj, then in kept:
        arr = obj["m"][0] if isinstance(obj, dict) else obj
        assert bytes(arr) == then
