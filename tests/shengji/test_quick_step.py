"""raw_env._game_quick_step (the AEC adapter's fast path, cardzoo.aec): an env stepped through it
behaves exactly like one stepped through the full _game_step + resync, in every phase, for every
deck count, in hand and match episodes (rewards, terminations, infos, observations, masks)."""
from __future__ import annotations

import numpy as np
import pytest

import shengji_env


def _trace(env, rng, steps):
    out = []
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                break
            continue
        obs = env.observe(agent)
        legal = np.flatnonzero(obs["action_mask"])
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(),
                    dict(env.rewards), dict(env._cumulative_rewards), dict(env.terminations),
                    {a: (i.get("phase"), i["action_mask"].tobytes(), i.get("result")) for a, i in env.infos.items()}))
        env.step(int(legal[rng.integers(len(legal))]))
    return out


@pytest.mark.parametrize("config", [{"decks": 1}, {"decks": 2}, {"decks": 3, "declaration_mode": "after_deal"},
                                    {"decks": 4, "declaration_mode": "preset", "auto_forced": True},
                                    {"decks": 1, "episode": "match", "max_hands": 3}])
def test_quick_step_equals_full_step(config):
    fast = shengji_env.env(**config)

    class Full(shengji_env.raw_env):
        def _game_quick_step(self, action):        # the adapter's default: check, step, resync
            if not self._cur_mask[action]:
                return -2
            self._game_step(action)
            return -1

    from cardzoo.aec import wrap
    full = wrap(Full(**config))
    for seed in (1, 2):
        fast.reset(seed=seed)
        full.reset(seed=seed)
        assert _trace(fast, np.random.default_rng(seed), 700) == _trace(full, np.random.default_rng(seed), 700)
    fast.reset(seed=3)
    agent = fast.agent_selection
    bad = int(np.flatnonzero(fast.observe(agent)["action_mask"] == 0)[0])
    before = fast.unwrapped.public_state()
    with pytest.raises(ValueError):
        fast.step(bad)
    assert fast.unwrapped.public_state() == before
