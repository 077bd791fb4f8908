"""Train Court Piece with RLlib (new API stack): PPO, one policy shared by all four seats, masked.

    pip install "cardzoo[rllib]"          # ray[rllib]==2.60.0 (it pins gymnasium==1.2.2)
    python examples/rllib_courtpiece.py --iterations 20 --variant single_sar

The env is RLlib's `PettingZooEnv` around the Court Piece AEC env, seen through
`cardzoo.integrations.RLlibObsWrapper`, which renames the observation keys to the ones RLlib's
action-masking RLModule reads (`"observations"`, `"action_mask"` as float32). Every seat maps to the
policy "shared", so the policy plays itself, partners and opponents alike; rewards are zero-sum
between the teams, so the mean episode return of the shared policy stays 0 and progress shows in
the per-seat returns and against fixed opponents (see agents/ and notebooks/03).
"""
from __future__ import annotations

import argparse
import sys


def build_config(variant: str = "single_sar", smoke: bool = False, seed: int = 0):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    from cardzoo.integrations import rllib_env

    register_env("cardzoo_courtpiece", lambda cfg: rllib_env("courtpiece", **cfg))
    hidden = [64] if smoke else [256, 256]
    config = (
        PPOConfig()
        # RLlib's env pre-check steps unmasked random actions, which a cardzoo env rejects (ValueError).
        .environment("cardzoo_courtpiece", env_config={"variant": variant}, disable_env_checking=True)
        .framework("torch")
        .multi_agent(
            policies={"shared"},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared",
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={
                "shared": RLModuleSpec(
                    module_class=ActionMaskingTorchRLModule,
                    model_config={"fcnet_hiddens": hidden, "head_fcnet_hiddens": hidden},
                ),
            }),
        )
        .env_runners(num_env_runners=0 if smoke else 1, num_envs_per_env_runner=1,
                     rollout_fragment_length="auto")
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=256 if smoke else 4000,
            minibatch_size=128 if smoke else 500,
            num_epochs=1 if smoke else 5,
            lr=3e-4,
            gamma=1.0,
        )
        .debugging(seed=seed)
    )
    return config


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--variant", default="single_sar")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="tiny batch and network (tests)")
    parser.add_argument("--num-cpus", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        import ray
        import ray.rllib  # noqa: F401  (ray without its rllib extra lacks rllib's own dependencies)
    except ModuleNotFoundError as e:
        sys.exit(f'this example needs RLlib: pip install "cardzoo[rllib]" ({e})')

    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config(args.variant, args.smoke, args.seed).build_algo()
        results = []
        for it in range(args.iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            steps = result.get("num_env_steps_sampled_lifetime",
                               runners.get("num_env_steps_sampled_lifetime"))
            returns = runners.get("agent_episode_returns_mean", {})
            print(f"iter {it + 1}: env steps {steps}, episodes {runners.get('num_episodes_lifetime')}, "
                  f"episode len {runners.get('episode_len_mean')}, seat returns {returns}")
            results.append(result)
        algo.stop()
    finally:
        if started:
            ray.shutdown()
    return 0 if results or args.iterations == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
