"""Strength table: duplicate-deal matches between cardzoo's agents, with 95% confidence intervals.

    python -m benchmarks.strength                       # every installed game, default sizes
    python -m benchmarks.strength --game courtpiece --game mendi_coat --deals 2000 --search-deals 2000
    python -m benchmarks.strength --json out.json

Row sets (``--game``): ``courtpiece`` (Court Piece, default config: Single Sar), ``mendi_coat``
(Court Piece with ``variant="mendi_coat"``), ``lopti``, ``shengji``. For each it plays, on duplicate
deals (agents/arena.py: every deal replayed with the teams' seats swapped; LOPTI in every seat
rotation):

* heuristic vs random (the rule-based agent against the uniform baseline);
* search vs heuristic: the game's determinized search agent (``make_agent("pimc")``, i.e.
  ``agents.search_class(game)``), in every row set whose game has one (``--pimc`` spec);
* for each shipped checkpoint ``agents/checkpoints/*.pt`` trained on the row set's game and config:
  learned vs heuristic and learned vs random.

Columns: deals, wins-ties-losses of A, A's duplicate win rate (a tie counts one half) with a Wilson
95% interval, and A's mean duplicate score minus B's (per deal, in the game's reward units) with a
normal 95% interval. Search rows play on the AEC env (the search reads the public record): they use
``--search-deals`` deals (``--chunk N``: in chunks of N, with running totals printed).

Long search rows can be split and resumed. Chunk i is dealt from ``seed + i`` and every agent is
re-seeded at the start of each chunk, so a chunk's result does not depend on which chunks ran
before it: ``--log FILE`` appends each finished chunk (its per-deal score differences) as a JSON
line and, when rerun, skips the chunks the file already holds and pools them into the totals;
``--first-chunk K`` starts at chunk K (e.g. a second process taking the other half).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from agents import make_agent, search_class
from agents.arena import MatchResult, duplicate_match, format_table
from cardzoo.registry import list_games

CHECKPOINTS = Path(__file__).resolve().parent.parent / "agents" / "checkpoints"
# row set -> (game, env config)
ROW_SETS = {
    "courtpiece": ("courtpiece", {}),
    "mendi_coat": ("courtpiece", {"variant": "mendi_coat"}),
    "lopti": ("lopti", {}),
    "shengji": ("shengji", {}),
}


def has_search(game: str) -> bool:
    try:
        search_class(game)
    except ValueError:
        return False
    return True


def _checkpoint_plays(ckpt: Path) -> tuple[str | None, dict]:
    """(game, env config) a checkpoint was trained on, from its JSON (None when unreadable)."""
    try:
        meta = json.loads(ckpt.with_suffix(".json").read_text())
        return meta.get("game"), dict(meta.get("env_config") or {})
    except (OSError, ValueError, AttributeError):
        return None, {}


def matchups(game: str, pimc: str, config: dict | None = None, search: bool = True,
             learned: bool = True) -> list[tuple[str, str, bool]]:
    """(A spec, B spec, slow?) for one row set."""
    config = config or {}
    rows = [("heuristic", "random", False)]
    if search and has_search(game):
        rows.append((pimc, "heuristic", True))
    if learned:
        for ckpt in sorted(CHECKPOINTS.glob("*.pt")):       # e.g. mendi_coat.pt plays courtpiece
            if _checkpoint_plays(ckpt) != (game, config):
                continue
            rows.append((str(ckpt), "heuristic", False))
            rows.append((str(ckpt), "random", False))
    return rows


def _merge(parts: list) -> MatchResult:
    """One MatchResult from consecutive chunks of the same pairing."""
    first = parts[0]
    n = [p.deals for p in parts]
    seconds = {k: sum(p.seconds[k] * m for p, m in zip(parts, n)) / max(1, sum(n)) for k in first.seconds}
    return MatchResult(first.game, first.a, first.b, np.concatenate([p.diffs for p in parts]), seconds,
                       sum(p.timeouts for p in parts), sum(p.games_played for p in parts))


def _row(res: MatchResult, name: str, a, t0: float) -> dict:
    row = res.row()
    row["game"] = name
    row["s/decision A"] = f"{res.seconds[a.label] * 1e3:.2f} ms"
    row["wall s"] = round(time.perf_counter() - t0, 1)
    if hasattr(a, "rollouts_per_s"):
        row["A rollouts/s"] = round(a.rollouts_per_s)
    return row


def _read_log(path) -> dict:
    """Finished chunks in a --log file: (row set, A, B, seed, deals) -> MatchResult."""
    out = {}
    if path and Path(path).exists():
        for line in Path(path).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                out[(r["row_set"], r["A"], r["B"], r["seed"], len(r["diffs"]))] = MatchResult(
                    r["game"], r["A"], r["B"], np.array(r["diffs"], dtype=float), r["seconds"],
                    r["timeouts"], r["games_played"])
    return out


def _append_log(path, key, res: MatchResult) -> None:
    row_set, a, b, seed, _ = key
    rec = {"row_set": row_set, "game": res.game, "A": a, "B": b, "seed": seed, "diffs": res.diffs.tolist(),
           "seconds": res.seconds, "timeouts": res.timeouts, "games_played": res.games_played}
    with open(path, "a") as f:
        f.write(json.dumps(rec) + "\n")


def main(argv=None) -> int:
    from cardzoo.cli import CliParser, nonnegative_int, positive_int

    p = CliParser(prog="python -m benchmarks.strength", description=__doc__.split("\n")[0])
    p.add_argument("--game", action="append", choices=list(ROW_SETS),
                   help="row set(s) to measure (default: every one whose game is installed)")
    p.add_argument("--deals", type=positive_int, default=200)
    p.add_argument("--search-deals", type=positive_int, default=200)
    p.add_argument("--pimc", default="pimc", help="search agent spec (default: the agent's own defaults)")
    p.add_argument("--seed", type=nonnegative_int, default=0)
    p.add_argument("--no-search", action="store_true", help="skip the (slow) search rows")
    p.add_argument("--no-learned", action="store_true", help="skip the learned-checkpoint rows")
    p.add_argument("--only-search", action="store_true", help="only the search rows")
    p.add_argument("--chunk", type=nonnegative_int, default=0,
                   help="play search rows in chunks of this many deals (chunk i from seed + i), printing "
                        "the running totals after each")
    p.add_argument("--json", default=None, help="also write the rows as JSON")
    p.add_argument("--log", default=None,
                   help="JSON-lines file of finished search chunks: appended to, and read to resume")
    p.add_argument("--first-chunk", type=nonnegative_int, default=0, help="first search chunk to play (default 0)")
    args = p.parse_args(argv)
    logged = _read_log(args.log)
    installed = set(list_games())
    sets = args.game or [name for name, (game, _) in ROW_SETS.items() if game in installed]
    if not args.no_search:  # the search rows' agent
        for game, cfg in {ROW_SETS[name][0]: ROW_SETS[name][1] for name in sets}.items():
            try:  # a bad --pimc spec is refused before any row is played
                make_agent(args.pimc, game, seed=0, env_config=cfg)
            except ValueError as e:
                p.error(f"--pimc {args.pimc!r}: {e}")
    rows = []
    for name in sets:
        game, cfg = ROW_SETS[name]
        for a_spec, b_spec, slow in matchups(game, args.pimc, cfg, search=not args.no_search,
                                             learned=not args.no_learned):
            if args.only_search and not slow:
                continue
            a = make_agent(a_spec, game, seed=args.seed + 1, env_config=cfg)
            b = make_agent(b_spec, game, seed=args.seed + 2, env_config=cfg)
            a.label = Path(a_spec).name if a_spec.endswith(".pt") else a_spec
            b.label = b_spec
            t0 = time.perf_counter()
            total = args.search_deals if slow else args.deals
            step = args.chunk if args.chunk and slow else total
            parts = []
            for i, start in enumerate(range(0, total, step)):
                # chunk i: deals drawn from seed + i (chunk 0 = the first deals of an unchunked run)
                size = min(step, total - start)
                key = (name, a.label, b.label, args.seed + i, size)
                if key in logged:
                    parts.append(logged[key])
                    continue
                if slow and i < args.first_chunk:
                    continue
                part = duplicate_match(game, a, b, size, cfg, seed=args.seed + i)
                parts.append(part)
                if slow and args.log:
                    _append_log(args.log, key, part)
                row = _row(_merge(parts), name, a, t0)
                if start + step < total:
                    print("partial:", format_table([row]).splitlines()[-1], flush=True)
            if not parts:
                continue
            row = _row(_merge(parts), name, a, t0)
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
