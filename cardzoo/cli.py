"""The `cardzoo` command line: demo, bench, and (from agents/) train, arena, play."""
from __future__ import annotations

import argparse
import importlib
import sys

from cardzoo.registry import list_games


def _cmd_games(args) -> int:
    for game in list_games():
        print(game)
    return 0


def _cmd_bench(args) -> int:
    """benchmarks/ lives beside the packages in a source checkout (it is not installed)."""
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "throughput.py"
    if not script.is_file():
        print("cardzoo bench runs benchmarks/throughput.py from a source checkout of cardzoo", file=sys.stderr)
        return 2
    sys.argv = [str(script), *args.rest]
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def _cmd_demo(args) -> int:
    from cardzoo.demo import run_demo

    return run_demo(args.game, seed=args.seed, variant=args.variant)


def _cmd_replay(args) -> int:
    """Replay records through the env; a bad record is one line naming its first wrong step."""
    from cardzoo import records

    failed = 0
    for path in args.files:
        try:
            record = records.load(path)
            if args.check:
                records.check(record)
                print(f"{path}: ok ({record['game']}, {len(record['steps'])} steps reproduce, result equal)")
                continue
            lines = []
            rec = records.replay(record, on_step=lambda i, st, env: lines.append(
                f"{i:4d}. player_{st['actor']}: {st.get('action', 'timeout')}"))
        except records.RecordError as e:
            print(f"{path}: {e}", file=sys.stderr)
            failed += 1
            continue
        print("\n".join(lines))
        print(rec.unwrapped.render())
        print("rewards:", rec.record()["rewards"], " result:", rec.record()["result"])
    return 1 if failed else 0


def _cmd_serve(args) -> int:
    try:
        from cardzoo.web.server import serve
    except ImportError as e:
        print(f"cardzoo serve needs the web extra (pip install \"cardzoo[web]\"): {e}", file=sys.stderr)
        return 2
    return serve(host=args.host, port=args.port)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardzoo", description="Fast, exact card-game environments for RL.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("games", help="list the installed games")
    p.set_defaults(func=_cmd_games)

    p = sub.add_parser("demo", help="play and print one full game between random agents")
    p.add_argument("game", nargs="?", default="courtpiece")
    p.add_argument("--variant", default=None, help="Court Piece variant (e.g. double_sar)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("bench", help="throughput benchmark (benchmarks/throughput.py); extra args are passed on")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("replay", help="replay game records through the env (docs/records.md)")
    p.add_argument("files", nargs="+", help="record files (JSON)")
    p.add_argument("--check", action="store_true", help="only confirm each record reproduces exactly")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("serve", help="the web table: play and replay in a browser (needs the web extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(func=_cmd_serve)

    # Commands that need the agents package (train, arena, play) register themselves here.
    try:
        agents_cli = importlib.import_module("agents.cli")
    except ModuleNotFoundError as e:
        if e.name not in ("agents", "agents.cli"):
            raise
    else:
        agents_cli.add_commands(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command == "bench":  # its options belong to benchmarks/throughput.py
        args.rest = unknown + list(args.rest)
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
