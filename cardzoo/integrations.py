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

from pettingzoo.utils.wrappers import BaseWrapper

from cardzoo.registry import make


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
