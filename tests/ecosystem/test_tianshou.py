"""Tianshou: Court Piece through tianshou.env.PettingZooEnv, by hand and through a Collector with
masked random multi-agent policies. Skips when tianshou is absent (extra: cardzoo[tianshou])."""
from __future__ import annotations

import numpy as np
import pytest

courtpiece_env = pytest.importorskip("courtpiece_env")
pytest.importorskip("tianshou")

from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402


def make_env():
    return PettingZooEnv(courtpiece_env.env(variant="single_sar"))


def test_episode_through_tianshou_wrapper():
    env = make_env()
    obs, info = env.reset(seed=0)
    assert set(obs) == {"agent_id", "obs", "mask"}
    assert env.agents == ["player_0", "player_1", "player_2", "player_3"]
    rng = np.random.default_rng(0)
    for _ in range(1000):
        assert obs["agent_id"] in env.agents
        assert obs["obs"].shape == (916,)
        legal = np.flatnonzero(obs["mask"])
        assert legal.size > 0
        obs, rew, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            break
    assert term and not trunc
    result = info["result"]
    winner = result["winner_team"]
    gain = result["points"] + result["bonus"]
    assert rew[winner] == gain and rew[1 - winner] == -gain           # seats 0, 2 are team 0
    assert rew[0] == rew[2] and rew[1] == rew[3] and sum(rew) == 0


def test_collector_with_masked_random_policies():
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer

    env = make_env()
    algo = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents],
        env=env,
    )
    venv = DummyVectorEnv([make_env, make_env])
    venv.seed(0)
    collector = Collector(algo, venv, VectorReplayBuffer(4000, 2))
    stats = collector.collect(n_episode=2, reset_before_collect=True)
    assert stats.n_collected_episodes >= 2
    returns = np.asarray(stats.returns)
    assert returns.shape[1] == 4
    np.testing.assert_array_equal(returns[:, 0], returns[:, 2])
    np.testing.assert_array_equal(returns.sum(axis=1), 0)
    # every action the collector stored was legal where it was taken
    batch, _ = collector.buffer.sample(0)
    masks = np.asarray(batch.obs.mask, bool)
    assert masks[np.arange(len(batch)), batch.act].all()


@pytest.mark.parametrize("game,config", [("lopti", {"num_players": 3}), ("shengji", {})])
def test_episode_other_games(game, config):
    mod = pytest.importorskip(f"{game}_env")
    env = PettingZooEnv(mod.env(**config))
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(20000):
        legal = np.flatnonzero(obs["mask"])
        assert legal.size > 0 and obs["agent_id"] in env.agents
        obs, rew, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            break
    assert term or trunc
    assert "result" in info and len(rew) == len(env.agents)
