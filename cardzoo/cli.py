"""The `cardzoo` command line: games, demo, bench, warmup, and (from agents/) train, arena, play.

Every bad argument ends the same way: one line on stderr, ``cardzoo <command>: error: <what is
wrong>``, and exit status 2, never a traceback. argparse refuses what it can see from the text
(``type=`` functions below, ``choices``); a ``ValueError`` the library raises for what only it can
judge (an unknown option, a bad agent spec, a checkpoint of another game) is turned into the same
line in one place, ``main``.
"""
from __future__ import annotations

import argparse
import importlib
import math
import sys
import time

from cardzoo.registry import list_games

EXIT_USAGE = 2  # argparse's exit status for a bad command line


class CliParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block): ``prog: error: message``.
    Sub-parsers made by add_subparsers are of the same class, so every command answers alike."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)}\n")


def one_line(message) -> str:
    return " ".join(str(message).split())


def _number(text: str, kind, accept, what: str):
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if not (math.isfinite(value) and accept(value)):
        raise argparse.ArgumentTypeError(f"{text!r} must be {what}")
    return value


def positive_int(text: str) -> int:
    return _number(text, int, lambda v: v > 0, "an integer >= 1")


def nonnegative_int(text: str) -> int:
    return _number(text, int, lambda v: v >= 0, "an integer >= 0")


def int_in(lo: int, hi: int, what: str = "an integer"):
    """An argparse type: an int in lo..hi."""
    def parse(text: str) -> int:
        return _number(text, int, lambda v: lo <= v <= hi, f"{what} in {lo}..{hi}")
    return parse


port_number = int_in(0, 65535, "a port number")


def positive_float(text: str) -> float:
    return _number(text, float, lambda v: v > 0, "a number > 0")


def game_name(text: str) -> str:
    games = list_games()
    if text not in games:
        raise argparse.ArgumentTypeError(f"unknown game {text!r} (installed: {', '.join(games)})")
    return text


def _cmd_games(args) -> int:
    for game in list_games():
        print(game)
    return 0


def _cmd_bench(args) -> int:
    from benchmarks.throughput import run

    return run(args)


def _no_benchmarks(args) -> int:
    raise ValueError("this installation has no benchmarks package")


def _cmd_demo(args) -> int:
    from cardzoo.demo import run_demo

    return run_demo(args.game, seed=args.seed, variant=args.variant)


def _cmd_warmup(args) -> int:
    """Compile each game's kernels now (or load them from the cache), with a progress bar and the
    seconds each game took."""
    from tqdm import tqdm

    from cardzoo.firstrun import warm_up_stages

    stages = {game: warm_up_stages(game) for game in args.games or list_games()}
    seconds = {}
    with tqdm(total=sum(map(len, stages.values())), desc="warmup", unit="stage", file=sys.stderr) as bar:
        for game, todo in stages.items():
            start = time.perf_counter()
            for name, run in todo:
                bar.set_postfix_str(f"{game}: {name}")
                run()
                bar.update()
            seconds[game] = time.perf_counter() - start
    for game, s in seconds.items():
        print(f"{game}: {s:.1f} s")
    return 0


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
    parser = CliParser(prog="cardzoo", description="Fast, exact card-game environments for RL.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("games", help="list the installed games")
    p.set_defaults(func=_cmd_games)

    p = sub.add_parser("demo", help="play and print one full game between agents")
    p.add_argument("game", nargs="?", default="courtpiece", type=game_name)
    p.add_argument("--variant", default=None, help="Court Piece variant (e.g. double_sar)")
    p.add_argument("--seed", type=nonnegative_int, default=0)
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("bench", help="throughput benchmark, cardzoo and its peers side by side")
    try:
        from benchmarks.throughput import add_arguments
    except ModuleNotFoundError as e:  # a build without the benchmarks package
        if e.name != "benchmarks":
            raise
        p.set_defaults(func=_no_benchmarks)
    else:
        add_arguments(p)
        p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("warmup", help="compile the games' kernels ahead of their first use (cached on disk)")
    p.add_argument("games", nargs="*", type=game_name, help="games to compile (default: all)")
    p.set_defaults(func=_cmd_warmup)

    p = sub.add_parser("replay", help="replay game records through the env (docs/records.md)")
    p.add_argument("files", nargs="+", help="record files (JSON)")
    p.add_argument("--check", action="store_true", help="only confirm each record reproduces exactly")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("serve", help="the web table: play and replay in a browser (needs the web extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    p.add_argument("--port", type=port_number, default=8000, help="port to listen on (0: any free port)")
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


# Optional dependencies a command may need, and the extra that installs each.
_EXTRAS = {"torch": "train", "openskill": "train", "matplotlib": "train", "ray": "ray", "pyspiel": "bench",
           "rlcard": "bench"}


def run_command(parser: argparse.ArgumentParser, args) -> int:
    """Run the parsed command; a ValueError from the library (or a missing optional dependency)
    becomes the one-line error every bad argument gets."""
    prog = f"{parser.prog} {args.command}"
    try:
        return int(args.func(args) or 0)
    except ValueError as e:
        parser.exit(EXIT_USAGE, f"{prog}: error: {one_line(e)}\n")
    except ModuleNotFoundError as e:
        top = (e.name or "").split(".")[0]
        if top not in _EXTRAS:
            raise
        parser.exit(EXIT_USAGE, f'{prog}: error: needs {top}: pip install "cardzoo[{_EXTRAS[top]}]"\n')
    except KeyboardInterrupt:
        parser.exit(130, f"{prog}: interrupted\n")


def main(argv=None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    args.argv = argv          # the command line as given, for what a command records of itself (model cards)
    return run_command(parser, args)


if __name__ == "__main__":
    sys.exit(main())
