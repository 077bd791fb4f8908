"""Training throughput: end-to-end self-play PPO (collection and learning) per game, learner decisions/s.

    python -m benchmarks.training                      # every game, 12 iterations each, overlap on and off
    python -m benchmarks.training --game courtpiece --iterations 20 --envs 1024
    python -m benchmarks.training --opponents mirror --epochs 1 --no-serial   # the learner in every seat

Each run is ``agents.train.train`` with self-play opponents only (no teacher, no baseline games, no
evaluation), so every decision at the table is a network's: the learner's decisions are the samples
PPO learns from; with ``--opponents self`` (default) the other side is played by a frozen snapshot,
with ``mirror`` by the learner itself, so every decision is a sample. Reported: learner decisions/s over
the whole run (collection and PPO updates together), all decisions/s, and where the time goes
(collection, in the thread with ``overlap``, against the wall time). The first iteration (numba
compiles, torch warms up) is left out of the rates.
"""
from __future__ import annotations

import json
import tempfile
import time

GAMES = {"courtpiece": {}, "mendi_coat": {"variant": "mendi_coat"}, "lopti": {}, "shengji": {}}


def measure(game: str, config: dict, iterations: int, envs: int, overlap: bool, threads: int,
            opponents: str = "self", epochs: int = 2) -> dict:
    from agents.train import TrainConfig, train

    cfg = TrainConfig(game="courtpiece" if game == "mendi_coat" else game, env_config=config, seed=0,
                      max_iterations=iterations, n_envs=envs, teacher=None, opponents=opponents, baseline=None,
                      eval_every=0, overlap=overlap, threads=threads, epochs=epochs)
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        res = train(cfg, out, log=lambda m: None)
        wall = time.perf_counter() - t0
    rows = res["rows"][1:]
    span = rows[-1]["wall_s"] - res["rows"][0]["wall_s"]
    samples = rows[-1]["samples"] - res["rows"][0]["samples"]
    decisions = rows[-1]["decisions"] - res["rows"][0]["decisions"]
    # the span runs from iteration 0's end; with overlap, iteration 1 was collected during iteration 0's
    # update, partly before the span, so the share counts the collections that lie inside it (2 on)
    collect = sum(r["collect_s"] for r in (rows[1:] if overlap else rows))
    return {"game": game, "opponents": opponents, "ppo epochs": epochs, "overlap": overlap, "threads": threads, "envs": envs, "iterations": iterations,
            "learner decisions/s": round(samples / span), "decisions/s": round(decisions / span),
            "collect s / wall s": round(collect / span, 2), "wall s": round(wall, 1)}


def main(argv=None) -> int:
    from cardzoo.cli import CliParser, int_in, positive_int

    ap = CliParser(prog="python -m benchmarks.training", description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", choices=list(GAMES))
    ap.add_argument("--iterations", type=int_in(3, 10**6), default=12,
                    help="iterations a run (the first is warm-up, not timed)")
    ap.add_argument("--envs", type=positive_int, default=512)
    ap.add_argument("--threads", type=positive_int, default=1, help="torch threads")
    ap.add_argument("--opponents", default="self", help="self (past snapshots) or mirror (the learner in every seat)")
    ap.add_argument("--epochs", type=positive_int, default=2, help="PPO passes over each iteration's samples")
    ap.add_argument("--no-serial", action="store_true", help="only the runs with overlap")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    from agents.arena import format_table

    rows = []
    for game in args.game or list(GAMES):
        for overlap in (True,) if args.no_serial else (True, False):
            rows.append(measure(game, GAMES[game], args.iterations, args.envs, overlap, args.threads, args.opponents,
                                args.epochs))
            print(format_table([rows[-1]]), flush=True)
    print(format_table(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
