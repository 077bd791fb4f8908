"""Self-play PPO with rollouts on Ray actors, from Python: ``agents.train`` with ``ray=True``.

    pip install "cardzoo[train,ray]"
    python examples/ray_selfplay.py --game courtpiece --variant single_sar --workers 4 --iterations 50
    python examples/ray_selfplay.py --address auto ...        (join a cluster started with `ray start`)

What ``cardzoo train <game> --ray --workers N --iterations M`` runs, with this script's defaults
(``--envs`` here is games per actor, the iteration plays ``envs * workers``; learning rate 3e-4). First,
in the driver process, the policy is distilled from the heuristic: 3 rounds of 4096 games (the
heuristic's games, then the student's labelled by it), which takes a few minutes before the first Ray
iteration. Then each Ray actor is an ``agents.train.RolloutWorker`` that owns a ``BatchGame`` of
``--envs`` games and plays whole episodes with the learner on one side (a team in Court Piece and
Sheng Ji, one seat in LOPTI) and, alternating game by game, the two default opponents (``TrainConfig``'s
``opponents="self,heuristic"``) on the other: one drawn from the pool (the uniform random policy, then
frozen snapshots of the learner) and the heuristic. The reward is the learner's return minus the
heuristic's in the same seats of the same deal (the heuristic in every seat). The driver broadcasts
the weights once per iteration, merges the actors' batches and runs clipped PPO. Here the script starts Ray itself and hands the trainer a collector, so
several runs could share the actors. The checkpoint is in the agents' format:
``cardzoo arena <game> learned:<out>/model.pt heuristic``.
"""
from __future__ import annotations

import sys


def main(argv=None) -> int:
    from cardzoo.cli import CliParser, nonnegative_int, positive_float, positive_int

    # cardzoo's parser: a bad argument is one line and exit status 2, before Ray starts
    parser = CliParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="courtpiece", choices=["courtpiece", "lopti", "shengji"])
    parser.add_argument("--variant", default=None, help="Court Piece variant (default: the game's default)")
    parser.add_argument("--address", default=None, help="Ray cluster address (default: a new local Ray)")
    parser.add_argument("--workers", type=positive_int, default=2, help="Ray actors")
    parser.add_argument("--envs", type=positive_int, default=128, help="games per actor per iteration")
    parser.add_argument("--iterations", type=positive_int, default=20)
    parser.add_argument("--hidden", type=positive_int, default=256)
    parser.add_argument("--layers", type=positive_int, default=2)
    parser.add_argument("--lr", type=positive_float, default=3e-4)
    parser.add_argument("--snapshot-every", type=positive_int, default=5)
    parser.add_argument("--pool-size", type=positive_int, default=8)
    parser.add_argument("--seed", type=nonnegative_int, default=0)
    parser.add_argument("--out", default="runs/ray_selfplay")
    args = parser.parse_args(argv)
    env_config = {} if args.variant is None else {"variant": args.variant}
    try:
        from cardzoo.registry import make

        make(args.game, raw=True, **env_config)   # the game's own check of its options
    except ValueError as e:
        parser.error(str(e))

    import ray

    from agents.distributed import RayCollector, init_ray
    from agents.train import TrainConfig, train

    cfg = TrainConfig(game=args.game, env_config=env_config,
                      seed=args.seed, max_iterations=args.iterations, n_envs=args.envs * args.workers,
                      hidden=args.hidden, layers=args.layers, lr=args.lr, snapshot_every=args.snapshot_every,
                      pool_size=args.pool_size, workers=args.workers, ray=True, ray_address=args.address)
    started = init_ray(args.address, None if args.address else args.workers)
    try:
        collector = RayCollector(cfg)
        try:
            res = train(cfg, args.out, collector=collector)
        finally:
            collector.close()
    finally:
        if started:
            ray.shutdown()
    for row in res["rows"]:
        print(f"iter {row['iteration']}: vs {row['opponent']:12s} mean return {row['mean_return']:+.3f}  "
              f"loss {row['loss']:.3f}  entropy {row['entropy']:.3f}  collect {row['collect_s']:.2f} s")
    print(f"{res['decisions']} decisions, {res['collect_decisions_per_s']:.0f} decisions/s collected on "
          f"{args.workers} actors; checkpoint: {res['checkpoint']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
