"""Ray RLlib: Court Piece as an RLlib MultiAgentEnv (RLlib's PettingZooEnv + cardzoo.integrations'
mask-key mapping), and one PPO iteration of examples/rllib_courtpiece.py on a local Ray (slow).
Skips when ray[rllib] is absent (extra: cardzoo[rllib], which pins gymnasium==1.2.2)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("courtpiece_env")
pytest.importorskip("ray.rllib", reason='ray[rllib] is not importable (pip install "cardzoo[rllib]", which pins '
                                       'gymnasium==1.2.2; plain ray lacks its dependencies)')
pytest.importorskip("torch")

from cardzoo.integrations import rllib_env  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_courtpiece.py"


def test_rllib_multi_agent_env_episode():
    env = rllib_env("courtpiece", variant="double_sar")
    space = env.observation_space["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(1000):
        (agent, o), = obs.items()                        # one seat acts at a time
        assert space.contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, term, trunc, _ = env.step({agent: action})
        for a, r in rew.items():
            totals[a] += r
        if term["__all__"]:
            break
    assert term["__all__"] and not trunc["__all__"]
    assert set(obs) == set(env.possible_agents)         # the final step reports every seat
    assert totals["player_0"] == totals["player_2"] == -totals["player_1"] == -totals["player_3"] != 0


@pytest.mark.parametrize("game,config", [("lopti", {"num_players": 5}), ("shengji", {})])
def test_rllib_env_other_games(game, config):
    pytest.importorskip(f"{game}_env")
    env = rllib_env(game, **config)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(20000):
        (agent, o), = obs.items()
        obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if term["__all__"] or trunc["__all__"]:
            break
    assert term["__all__"] or trunc["__all__"]


@pytest.mark.slow
def test_rllib_ppo_shared_policy_one_iteration(monkeypatch):
    import ray

    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")

    spec = importlib.util.spec_from_file_location("rllib_courtpiece", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    try:
        algo = example.build_config("single_sar", smoke=True).build_algo()
        result = algo.train()
        algo.stop()
    finally:
        ray.shutdown()
    assert result["env_runners"]["num_episodes_lifetime"] > 0
    assert set(result["env_runners"]["agent_episode_returns_mean"]) == {f"player_{i}" for i in range(4)}
    assert "shared" in result["learners"]
    assert np.isfinite(result["learners"]["shared"]["total_loss"])
