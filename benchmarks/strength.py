"""Strength table: duplicate-deal matches between cardzoo's agents, with 95% confidence intervals.

    python -m benchmarks.strength                       # every installed game, default sizes
    python -m benchmarks.strength --game courtpiece --deals 200 --search-deals 40
    python -m benchmarks.strength --json out.json

For each game it plays, on duplicate deals (agents/arena.py: every deal replayed with the teams'
seats swapped; LOPTI in every seat rotation):

* heuristic vs random (the rule-based agent against the uniform baseline);
* best vs heuristic, for every stronger candidate available: the PIMC search agent (Court Piece,
  ``--pimc`` spec) and each shipped checkpoint ``agents/checkpoints/<game>*.pt`` (learned);
* learned vs random for each checkpoint.

Columns: deals, wins-ties-losses of A, A's duplicate win rate (a tie counts one half) with a Wilson
95% interval, and A's mean duplicate score minus B's (per deal, in the game's reward units) with a
normal 95% interval. Search rows are slow (the search plays on the AEC env): they use
``--search-deals`` deals.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from agents import make_agent
from agents.arena import duplicate_match, format_table
from cardzoo.registry import list_games

CHECKPOINTS = Path(__file__).resolve().parent.parent / "agents" / "checkpoints"
CONFIGS = {"courtpiece": {}, "lopti": {}, "shengji": {}}


def matchups(game: str, pimc: str) -> list[tuple[str, str, bool]]:
    """(A spec, B spec, slow?) for one game."""
    rows = [("heuristic", "random", False)]
    if game == "courtpiece":
        rows.append((pimc, "heuristic", True))
    for ckpt in sorted(CHECKPOINTS.glob(f"{game}*.pt")):
        rows.append((str(ckpt), "heuristic", False))
        rows.append((str(ckpt), "random", False))
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", action="append", help="game(s) to measure (default: every installed game)")
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--search-deals", type=int, default=40)
    p.add_argument("--pimc", default="pimc:samples=48")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-search", action="store_true", help="skip the (slow) search rows")
    p.add_argument("--json", default=None, help="also write the rows as JSON")
    args = p.parse_args(argv)
    games = args.game or list_games()
    rows = []
    for game in games:
        cfg = CONFIGS.get(game, {})
        for a_spec, b_spec, slow in matchups(game, args.pimc):
            if slow and args.no_search:
                continue
            a = make_agent(a_spec, game, seed=args.seed + 1, env_config=cfg)
            b = make_agent(b_spec, game, seed=args.seed + 2, env_config=cfg)
            a.label = Path(a_spec).name if a_spec.endswith(".pt") else a_spec
            b.label = b_spec
            t0 = time.perf_counter()
            res = duplicate_match(game, a, b, args.search_deals if slow else args.deals, cfg, seed=args.seed)
            row = res.row()
            row["s/decision A"] = f"{res.seconds[a.label] * 1e3:.2f} ms"
            row["wall s"] = round(time.perf_counter() - t0, 1)
            if hasattr(a, "rollouts_per_s"):
                row["A rollouts/s"] = round(a.rollouts_per_s)
            rows.append(row)
            print(format_table([row]), flush=True)
    keys = ["game", "A", "B", "deals", "W-T-L", "win rate A", "score A-B", "s/decision A", "wall s"]
    print()
    print(format_table([{k: r.get(k, "") for k in keys} for r in rows]))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
