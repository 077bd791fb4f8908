"""Self-play rollout collection speed: in-process (``cardzoo train``) vs Ray actors (``--ray``).

    pip install "cardzoo[train,ray]"
    NUMBA_NUM_THREADS=1 python examples/ray_throughput.py --game courtpiece --envs 256 --workers 1 2

Times ``collect`` — one iteration's games (``--envs``) played to the end by the learner network
(``--hidden``, 2 layers, one torch thread per process) against a frozen copy — for the local collector
(one ``BatchGame`` in this process) and for Ray with each ``--workers`` count (a local Ray with that
many CPUs, one ``BatchGame`` of ``envs / workers`` games per actor; the time includes broadcasting
the weights and gathering the batches). One untimed warm-up iteration each, then the median of
``--repeats``. Prints decisions (all seats' moves) per second of wall clock, the CPU seconds the
collecting processes spent per iteration (decisions per CPU-second: what one free core does) and the
driver's own CPU per iteration (broadcast, gather, merge).
"""
from __future__ import annotations

import statistics
import sys
import time


def _worker_cpu(collector) -> float:
    if collector.backend == "local":
        return sum(w.cpu_seconds() for w in collector.workers)
    import ray

    return sum(ray.get([a.cpu_seconds.remote() for a in collector.actors]))


def _time(collector, weights, repeats: int, cfg) -> tuple[float, int, float, float]:
    """(median wall s, decisions per iteration, workers' CPU s and driver's CPU s per iteration)."""
    from agents.train import game_seed

    collector.collect(weights, weights, 0, game_seed(cfg, 0))          # warm-up (kernel cache, actors)
    times, decisions = [], 0
    w0, d0 = _worker_cpu(collector), time.process_time()
    for it in range(1, repeats + 1):
        t = time.perf_counter()
        _, _, decisions = collector.collect(weights, weights, it, game_seed(cfg, it))
        times.append(time.perf_counter() - t)
    driver = time.process_time() - d0
    worker = _worker_cpu(collector) - w0
    if collector.backend == "local":
        driver -= worker                    # the workers ran in this process
    return statistics.median(times), decisions, worker / repeats, driver / repeats


def main(argv=None) -> int:
    from cardzoo.cli import CliParser, nonnegative_int, positive_int

    # cardzoo's parser: a bad argument is one line and exit status 2, before anything is timed
    parser = CliParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="courtpiece", choices=["courtpiece", "lopti", "shengji"])
    parser.add_argument("--envs", type=positive_int, default=256)
    parser.add_argument("--hidden", type=positive_int, default=256)
    parser.add_argument("--workers", type=positive_int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=positive_int, default=3)
    parser.add_argument("--seed", type=nonnegative_int, default=0)
    args = parser.parse_args(argv)
    if max(args.workers) > args.envs:  # every actor plays at least one of the iteration's games
        parser.error(f"--workers must be in 1..--envs ({args.envs}), got {max(args.workers)}")

    import ray
    import torch

    from agents.distributed import RayCollector, init_ray
    from agents.learned import build_model
    from agents.train import LocalCollector, TrainConfig, _weights

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    cfg = TrainConfig(game=args.game, seed=args.seed, n_envs=args.envs, hidden=args.hidden, workers=1)
    local = LocalCollector(cfg)
    g = local.workers[0].g
    weights = _weights(build_model(g.observe().shape[1], g.legal_mask().shape[1], args.hidden, 2))
    secs, dec, wcpu, dcpu = _time(local, weights, args.repeats, cfg)
    base = dec / secs
    print(f"{args.game}: {args.envs} games/iteration, {dec} decisions, hidden {args.hidden}; wall-clock rates "
          f"depend on free cores, CPU columns do not")
    print(f"local (1 process)   {secs:7.3f} s/iteration  {base:9.0f} decisions/s  x1.00   "
          f"collect CPU {wcpu:.3f} s ({dec / wcpu:.0f} decisions/CPU-s), driver overhead CPU {dcpu:.3f} s")
    for n in args.workers:
        cfg_n = TrainConfig(game=args.game, seed=args.seed, n_envs=args.envs, hidden=args.hidden, workers=n, ray=True)
        t0 = time.perf_counter()
        init_ray(None, n)
        try:
            col = RayCollector(cfg_n, log=lambda *a: None)
            start = time.perf_counter() - t0
            try:
                secs, dec, wcpu, dcpu = _time(col, weights, args.repeats, cfg_n)
            finally:
                col.close()
        finally:
            ray.shutdown()
        print(f"ray, {n} actor(s)     {secs:7.3f} s/iteration  {dec / secs:9.0f} decisions/s  "
              f"x{dec / secs / base:.2f}   collect CPU {wcpu:.3f} s ({dec / wcpu:.0f} decisions/CPU-s), "
              f"driver CPU {dcpu:.3f} s; ray start + actors {start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
