"""Adapters for RL toolkits whose PettingZoo wrappers need something cardzoo's envs do not give as-is.

Nothing here changes a game: each adapter is a thin view over the public AEC env.

* `NumericInfoWrapper(env)`: `infos[agent]` holds only `"action_mask"`. TorchRL's `PettingZooWrapper`
  turns every info value into a tensor with a spec fixed at reset, so the string `"phase"` and the
  end-of-episode `"result"` dict cannot pass; read them from `env.unwrapped.public_state()` instead.
* `torchrl_env(game, **config)`: a ready TorchRL `PettingZooWrapper` (one group per seat, masks on).
* `RLlibMaskedEnv` / `rllib_env(game, **config)`: the RLlib multi-agent env for the new API stack,
  with the observation keys RLlib's action-masking modules expect (`"observations"`, `"action_mask"`).

    from cardzoo.integrations import torchrl_env
    env = torchrl_env("courtpiece", variant="single_sar", seed=0)
    rollout = env.rollout(200)
"""
from __future__ import annotations

import gymnasium
from pettingzoo.utils.wrappers import BaseWrapper

from cardzoo.registry import make

GYMNASIUM_IDS = {
    "courtpiece": "cardzoo/CourtPiece-v0",
    "lopti": "cardzoo/LOPTI-v0",
    "shengji": "cardzoo/ShengJi-v0",
}


def register_gymnasium_envs() -> list[str]:
    """Register the single-seat view of every game under GYMNASIUM_IDS (idempotent); the ids.
    Keywords of `gymnasium.make` go to SingleSeatEnv: seat, opponents, render_mode, illegal_action,
    and the game's config options."""
    for game, env_id in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="cardzoo.wrappers:SingleSeatEnv", kwargs={"game": game})
    return list(GYMNASIUM_IDS.values())


register_gymnasium_envs()


class NumericInfoWrapper(BaseWrapper):
    """A PettingZoo AEC wrapper whose `infos[agent]` is `{"action_mask": int8[A]}` only."""

    @property
    def infos(self):
        return {agent: {"action_mask": info["action_mask"].copy()} for agent, info in self.env.infos.items()}


def torchrl_env(game: str, seed: int | None = None, group_map=None, device="cpu", **config):
    """TorchRL's `PettingZooWrapper` around `game`'s AEC env: masks on (`use_mask=True`, the acting
    seat's `"action_mask"` in each group), categorical actions, one group per seat unless `group_map`
    says otherwise. Needs torchrl (extra: cardzoo[torchrl])."""
    from torchrl.envs import PettingZooWrapper

    env = NumericInfoWrapper(make(game, **config))
    return PettingZooWrapper(env, use_mask=True, categorical_actions=True, seed=seed,
                             group_map=group_map, device=device)


class RLlibObsWrapper(BaseWrapper):
    """A PettingZoo AEC wrapper with the observation layout RLlib's action-masking RLModules read:
    `{"observations": float32[obs], "action_mask": float32[A]}` (the mask as floats: the module
    takes its log)."""

    def __init__(self, env):
        super().__init__(env)
        import numpy as np

        self._np = np
        self._spaces = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            n = inner["action_mask"].shape[0]
            self._spaces[agent] = gymnasium.spaces.Dict({
                "observations": inner["observation"],
                "action_mask": gymnasium.spaces.Box(0.0, 1.0, (n,), np.float32),
            })

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = self.env.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(self._np.float32)}


def rllib_env(game: str, **config):
    """RLlib's `PettingZooEnv` (a `MultiAgentEnv`) around `game`'s AEC env with RLlib's mask keys.
    Register it with `ray.tune.registry.register_env(name, lambda cfg: rllib_env(game, **cfg))`.
    Needs ray[rllib] (extra: cardzoo[rllib])."""
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(f'rllib_env needs RLlib: pip install "cardzoo[rllib]" ({e})', name=e.name) from e

    return PettingZooEnv(RLlibObsWrapper(make(game, **config)))
