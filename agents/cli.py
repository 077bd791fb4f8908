"""`cardzoo train | arena | play`: the agents' commands, registered by ``add_commands(subparsers)``.

    cardzoo train courtpiece --variant double_sar --minutes 10 --seed 0 --out runs/cp
    cardzoo train courtpiece --minutes 10 --ray --workers 4                (rollouts on a local Ray)
    cardzoo train courtpiece --minutes 60 --ray --address auto            (an existing Ray cluster)
    cardzoo arena courtpiece heuristic random --deals 200
    cardzoo arena courtpiece heuristic random --deals 200 --json    (last line: the result as JSON)
    cardzoo arena courtpiece random heuristic pimc:samples=8,rollouts=4 --deals 20   (ratings)
    cardzoo play courtpiece --seat 0 --opponents heuristic         (you play seat 0 and 2's partner is an agent)
    cardzoo play lopti --auto --set num_players=3                  (watch agents play)

Game options: ``--variant`` (Court Piece) and ``--set key=value`` (any option of the game's spec).
A bad argument is one line on stderr and exit status 2 (see cardzoo/cli.py).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
from pathlib import Path

from cardzoo.cli import CliParser, int_in, nonnegative_int, positive_float, positive_int, run_command


def _value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def key_value(text: str) -> tuple:
    """--set KEY=VALUE: (key, value) with the value read as bool, None, int, float or text."""
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), _value(value.strip())


def env_config(args) -> dict:
    """The game options of --set and --variant, checked by the game itself (an unknown option or a
    bad value is its ValueError, before any game is played)."""
    from cardzoo.registry import make

    cfg = {}
    for key, value in args.set or []:
        if key in cfg:   # one value an option: a second one is a typo more often than a wish
            raise ValueError(f"--set {key} given twice ({cfg[key]!r} and {value!r})")
        cfg[key] = value
    if getattr(args, "variant", None):
        if "variant" in cfg:
            raise ValueError(f"the variant given twice: --variant {args.variant} and --set variant={cfg['variant']}")
        cfg["variant"] = args.variant
    make(args.game, raw=True, **cfg)
    return cfg


def _game_options(p):
    p.add_argument("game", choices=["courtpiece", "lopti", "shengji"])
    p.add_argument("--variant", default=None, help="Court Piece variant (single_sar, double_sar, chhupa_rang, "
                                                   "be_rang, mendi_coat)")
    p.add_argument("--set", action="append", type=key_value, metavar="KEY=VALUE",
                   help="a game option (repeatable)")
    p.add_argument("--seed", type=nonnegative_int, default=0)


def add_commands(sub) -> None:
    """Register every agents command on cardzoo's sub-parsers (one add_<command> each)."""
    add_train(sub)
    add_arena(sub)
    add_play(sub)


def add_train(sub) -> None:
    p = sub.add_parser("train", help="self-play PPO training on BatchGame (needs torch)")
    _game_options(p)
    p.add_argument("--algo", choices=["ppo", "residual"], default="ppo",
                   help="ppo: distil the heuristic, then masked PPO; residual (Court Piece, LOPTI, Sheng Ji): label "
                        "decisions with the search agent, fit the heuristic's overrides (agents/residual.py)")
    p.add_argument("--minutes", type=positive_float, default=5.0,
                   help="wall time (residual: of labelling; fitting follows). ppo: distillation included, but "
                        "its first round always runs in full (4096 games: 3-7 minutes on 2 cores); "
                        "--distill-games 256 or --teacher none for a quick run")
    p.add_argument("--label-games", type=positive_int, default=None,
                   help="residual: label exactly this many deals per worker instead of --minutes (reproducible)")
    p.add_argument("--epochs", type=positive_int, default=None,
                   help="passes over each iteration's samples (PPO, default 2) or over the labels (residual, default 6)")
    p.add_argument("--search", default=None, metavar="K=V,...",
                   help="residual: options of the labelling search agent (default: the game's; Court Piece "
                        "call_samples=0, card play only; call_samples=256 labels the trump calls too)")
    p.add_argument("--label-against", choices=["search", "heuristic"], default=None,
                   help="residual: the labelling search plays every seat (search, the default), or half the seats "
                        "against the heuristic (the match the policy is judged by)")
    p.add_argument("--labels-from", default=None, metavar="RUN",
                   help="residual: fit on the labels an earlier run kept (--keep-labels) instead of labelling")
    p.add_argument("--distill-from", default=None, metavar="CKPT",
                   help="residual: fit to this residual checkpoint's advantages over --label-games deals of its "
                        "own play instead of search labels (a smaller network, e.g. a search's rollout policy)")
    p.add_argument("--keep-labels", action="store_true", default=None,
                   help="residual: keep <out>/labels/labels_<w>.npz (by default deleted after the fit)")
    p.add_argument("--out", default=None, help="output folder (default runs/<game>-<variant>-s<seed>)")
    p.add_argument("--envs", type=positive_int, default=None, help="ppo: games per iteration (default 512)")
    p.add_argument("--hidden", type=positive_int, default=256)
    p.add_argument("--layers", type=positive_int, default=None, help="residual: hidden layers (default 2)")
    p.add_argument("--ensemble", type=int_in(1, 64), default=None, metavar="K",
                   help="residual: fit K networks (1..64) on the same labels and play their mean (fitting takes "
                        "K times as long)")
    p.add_argument("--lr", type=positive_float, default=None, help="ppo: learning rate (default 1e-4)")
    p.add_argument("--threads", type=positive_int, default=1, help="torch threads (the CPU is shared)")
    p.add_argument("--eval-deals", type=nonnegative_int, default=0,
                   help="duplicate deals of the final arena vs random and the heuristic (the model card's "
                        "table); the curve's evaluations play TrainConfig.eval_deals (100) each")
    p.add_argument("--opponents", default=None,
                   help="ppo: opponents dealt game by game (default self,heuristic): self (past snapshots), "
                        "heuristic, random, mirror (the learner as it is now in every seat; every decision is a "
                        "sample)")
    p.add_argument("--teacher", default=None,
                   help="ppo: agent spec whose decisions are distilled before PPO (expert iteration; default "
                        "heuristic); 'none' to skip")
    p.add_argument("--distill-games", type=positive_int, default=None,
                   help="ppo: games the teacher plays (or labels) in each distillation round (default 4096)")
    p.add_argument("--distill-rounds", type=positive_int, default=None,
                   help="ppo: distillation rounds: the teacher's games, then the student's games labelled (DAgger; "
                        "default 3)")
    p.add_argument("--eval-every", type=nonnegative_int, default=None,
                   help="ppo: iterations between evaluations (duplicate deals vs random and heuristic, on the "
                        "curve; default 10)")
    p.add_argument("--iterations", type=positive_int, default=None,
                   help="ppo: stop after this many iterations (not --minutes)")
    p.add_argument("--ray", action="store_true", default=None,
                   help="ppo: collect rollouts on Ray actors, one BatchGame each (pip install \"cardzoo[ray]\"); "
                        "a local Ray without --address")
    p.add_argument("--address", default=None, help="ppo: Ray cluster to join (auto, host:6379, ray://host:10001); "
                                                   "implies --ray")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="ppo: rollout shards (default: 1 locally, every CPU of the Ray cluster with --ray); same "
                        "seed and workers give the same run locally and on Ray. residual: search-labelling processes "
                        "(default: 2; 1 labels in the training process)")
    p.set_defaults(func=cmd_train)


def add_arena(sub) -> None:
    p = sub.add_parser("arena", help="duplicate-deal matches between agents (2 agents) or ratings (3+)")
    _game_options(p)
    p.add_argument("agents", nargs="+", help="agent specs: random, heuristic, pimc[:samples=..,rollouts=..], "
                                             "learned:<ckpt.pt>")
    p.add_argument("--deals", type=positive_int, default=100)
    p.add_argument("--engine", choices=["auto", "batch", "aec"], default="auto")
    p.add_argument("--time-limits", action="store_true",
                   help="apply Court Piece's timeout rules (CP-12; the other games have none)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object on the last line")
    p.add_argument("--save-records", metavar="DIR", default=None,
                   help="save every game played as a record file in DIR (replay: cardzoo replay FILE --check)")
    p.set_defaults(func=cmd_arena)


def add_play(sub) -> None:
    p = sub.add_parser("play", help="play against agents in the terminal (or watch with --auto)")
    _game_options(p)
    p.add_argument("--seat", type=nonnegative_int, default=0, help="your seat")
    p.add_argument("--opponents", default="heuristic", help="agent spec for every other seat")
    p.add_argument("--auto", action="store_true", help="no human: every seat is an agent; print the game")
    p.set_defaults(func=cmd_play)


def _table(rows):
    from agents.arena import format_table

    return format_table(rows)


# the largest --seed of a training run: game and sample seeds are seed * 1_000_003 + ... (agents.train)
TRAIN_SEED_MAX = 10**12

# Options only one --algo reads, with their defaults (their parser default is None, so a given one is
# seen): the other algo would drop them without a word, so naming one there is an error instead.
RESIDUAL_ONLY = {"label_games": None, "ensemble": 1, "search": None, "label_against": "search",
                 "labels_from": None, "distill_from": None, "keep_labels": False, "layers": 2}
PPO_ONLY = {"envs": 512, "lr": 1e-4, "opponents": "self,heuristic", "teacher": "heuristic",
            "distill_games": 4096, "distill_rounds": 3, "eval_every": 10, "iterations": None, "ray": False,
            "address": None}


def output_folder(out: str) -> str:
    """``out``, checked before any training starts: a path that cannot be a folder (a file, or under
    one) or lies where nothing can be written is the one-line error, not a traceback after minutes of
    work. Nothing is made here: a run refused later leaves no folder behind."""
    there = Path(out).absolute()
    while not there.exists():
        there = there.parent
    if not there.is_dir():
        raise ValueError(f"--out {out}: cannot make the output folder ({there} is a file)")
    if not os.access(there, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: cannot make the output folder ({there} is not writable)")
    return out


def _algo_options(args) -> None:
    """Refuse the options of the other --algo, then fill in the defaults of this one's."""
    mine, other = (RESIDUAL_ONLY, PPO_ONLY) if args.algo == "residual" else (PPO_ONLY, RESIDUAL_ONLY)
    given = [f"--{k.replace('_', '-')}" for k in other if getattr(args, k, None) is not None]
    if given:
        hint = " (residual training stops by --minutes or --label-games)" if "--iterations" in given else ""
        raise ValueError(f"{', '.join(sorted(given))} {'is' if len(given) == 1 else 'are'} for --algo "
                         f"{'ppo' if args.algo == 'residual' else 'residual'}, not {args.algo}{hint}")
    for k, default in {**mine, **other}.items():
        if getattr(args, k, None) is None:
            setattr(args, k, default)


def cmd_train(args) -> int:
    from tqdm import tqdm

    from agents.train import TrainConfig, train

    cfg = env_config(args)
    if args.seed > TRAIN_SEED_MAX:
        raise ValueError(f"--seed must be in 0..{TRAIN_SEED_MAX} for training (the seeds of its games and "
                         f"samples are derived from it and must stay inside numpy's range), got {args.seed}")
    _algo_options(args)
    if args.algo == "residual":
        return cmd_train_residual(args, cfg)
    out = args.out or f"runs/{args.game}-{cfg.get('variant', 'default')}-s{args.seed}"
    use_ray = args.ray or bool(args.address)
    if use_ray:
        from agents.distributed import INSTALL_HINT

        try:
            import ray  # noqa: F401
        except ImportError:
            raise ValueError(f"--ray: {INSTALL_HINT}") from None
    if args.workers is not None and args.workers > args.envs:
        raise ValueError(f"--workers must be in 1..--envs ({args.envs}), got {args.workers}")
    from agents import make_agent
    from agents.train import opponent_kinds

    opponent_kinds(args.opponents)
    teacher = None if args.teacher.lower() == "none" else args.teacher
    if teacher is not None:
        make_agent(teacher, args.game, seed=0, env_config=cfg)
    output_folder(out)
    tc = TrainConfig(game=args.game, env_config=cfg, seed=args.seed, minutes=args.minutes, n_envs=args.envs,
                     hidden=args.hidden, lr=args.lr, threads=args.threads, max_iterations=args.iterations,
                     workers=args.workers, ray=use_ray, ray_address=args.address, opponents=args.opponents,
                     teacher=teacher, distill_games=args.distill_games, distill_rounds=args.distill_rounds,
                     eval_every=args.eval_every, epochs=args.epochs or 2)
    total = args.iterations if args.iterations is not None else int(args.minutes * 60)
    with tqdm(total=total, unit="it" if args.iterations is not None else "s", desc=f"train {args.game}") as bar:
        res = train(tc, out, progress=bar, log=bar.write)
    last = res["rows"][-1] if res["rows"] else {}
    evals = [r["eval_vs_random"] for r in res["rows"] if r["eval_vs_random"] != ""]
    evals_h = [r["eval_vs_heuristic"] for r in res["rows"] if r["eval_vs_heuristic"] != ""]
    col = res["meta"]["collection"]
    rows = [{"game": args.game, "config": str(cfg or "{}"), "seed": args.seed, "iterations": res["iterations"],
             "collection": f"{col['backend']} x{col['workers']}",
             "wall s": round(res["wall_seconds"], 1), "self-play s": round(res["ppo_seconds"], 1),
             "decisions": res["decisions"],
             "decisions/s": round(res["decisions_per_s"], 1),
             "collected/s": round(res["collect_decisions_per_s"], 1), "samples": res["samples"],
             "learner decisions/s": round(res["samples"] / max(1e-9, res["ppo_seconds"]), 1),
             "last loss": last.get("loss", ""), "greedy vs random": evals[-1] if evals else "",
             "greedy vs heuristic": evals_h[-1] if evals_h else "",
             "checkpoint": res["checkpoint"]}]
    print(_table(rows))
    results = final_arena(args, res["checkpoint"], cfg)
    card = write_model_card(Path(out) / "model_card.md", "cardzoo " + " ".join(map(shlex.quote, argv_of(args))),
                            rows[0], res["meta"].get("distilled"), results, res["curve"])
    print(f"log: {res['log']}  curve: {res['curve']}  model card: {card}")
    return 0


def cmd_train_residual(args, cfg: dict) -> int:
    """`cardzoo train <game> --algo residual`: search labels, a residual fit, the model card."""
    from tqdm import tqdm

    from agents.residual import GAMES, ResidualConfig, margin_text, train_residual

    if args.game not in GAMES:
        raise ValueError(f"--algo residual trains {' and '.join(GAMES)} policies, not {args.game!r}")
    out = output_folder(args.out or f"runs/{args.game}-{cfg.get('variant', 'default')}-residual-s{args.seed}")
    rc = ResidualConfig(game=args.game, env_config=cfg, seed=args.seed, workers=args.workers or 2,
                        hidden=args.hidden, members=args.ensemble, epochs=args.epochs or 6,
                        threads=max(args.threads, 2),
                        keep_labels=args.keep_labels, label_against=args.label_against, search=args.search,
                        labels_from=args.labels_from, distill_from=args.distill_from, layers=args.layers,
                        label_minutes=None if args.label_games else args.minutes, label_games=args.label_games)
    # two bars: the labelling's clock (its budget in seconds, or open-ended for --label-games), then the fit
    label_total = None if rc.label_minutes is None or args.labels_from or args.distill_from else int(rc.label_minutes * 60)
    with tqdm(total=label_total, unit="s", desc=f"label {args.game}", position=0) as label_bar, \
            tqdm(total=rc.epochs * rc.members, unit="epoch", desc=f"fit {args.game}", position=1) as bar:
        def tick(seconds: float) -> None:
            label_bar.update(int(seconds) - label_bar.n)

        res = train_residual(rc, out, log=bar.write, progress=bar, label_tick=tick)
    meta = res["meta"]
    results = final_arena(args, res["checkpoint"], cfg)
    lab = meta["labelled"]
    lines = [f"# {args.game} residual checkpoint", "",
             f"- command: `cardzoo {' '.join(map(shlex.quote, argv_of(args)))}`",
             f"- seed: {args.seed}; config: {cfg or {}}; teacher: `{meta['teacher']}`; prior: the heuristic",
             f"- labelled: {lab['decisions']} decisions of {lab.get('games')} deals in {lab.get('seconds')} s "
             + (f"({lab.get('decisions_per_s')}/s, the teacher's advantages over its own play)"
                if lab.get("distilled_from") else
                f"({lab.get('decisions_per_s')}/s, {(lab.get('label_config') or {}).get('workers', rc.workers)} processes)")
             + (f", by the run in {lab['labels_from']}" if lab.get("labels_from") else ""),
             f"- fit: {rc.epochs} epochs" + (f" for each of {rc.members} networks (the policy plays their mean)"
                                             if rc.members > 1 else "") +
             f" in {meta['fit_seconds']} s; held-out loss {meta['fit']['held_out_loss']} "
             f"(zero advantage: {meta['fit']['held_out_loss_zero']}); margin {margin_text(meta['margin'])}; the policy changes "
             f"{meta['fit']['changed']} of held-out decisions, gaining {meta['fit']['held_out_gain']:+} per decision "
             "by the held-out labels",
             f"- wall time: {meta['wall_seconds']} s"]
    lines += arena_lines(results)
    card = Path(out) / "model_card.md"
    card.write_text("\n".join(lines) + "\n")
    print(f"checkpoint: {res['checkpoint']}  model card: {card}")
    return 0


def final_arena(args, checkpoint: str, cfg: dict) -> list[dict]:
    """`--eval-deals N`: the trained checkpoint against random and the heuristic (printed, and returned
    as the arena's table rows)."""
    if not args.eval_deals:
        return []
    from agents import make_agent
    from agents.arena import duplicate_match

    results = []
    for opp in ("random", "heuristic"):
        a = make_agent(checkpoint, args.game, seed=args.seed)
        b = make_agent(opp, args.game, seed=args.seed + 1)
        results.append(duplicate_match(args.game, a, b, args.eval_deals, cfg, seed=args.seed + 7).row())
    print(_table(results))
    return results


def arena_lines(results: list[dict]) -> list[str]:
    """A model card's arena table (markdown lines; none without results)."""
    if not results:
        return []
    return (["", "| opponent | deals | W-T-L | win rate [95% CI] | score learned − opponent [95% CI] |",
             "|---|---|---|---|---|"]
            + [f"| {r['B']} | {r['deals']} | {r['W-T-L']} | {r['win rate A']} | {r['score A-B']} |" for r in results])


def argv_of(args) -> list[str]:
    """The command line this run was started with, after `cardzoo` (for its model card)."""
    return list(getattr(args, "argv", None) or sys.argv[1:])


def write_model_card(path: Path, command: str, facts: dict, distilled: dict | None, arena: list[dict],
                     curve: str | None) -> Path:
    """A markdown model card: how to reproduce the checkpoint, what it cost, how strong it is."""
    lines = [f"# {facts['game']} checkpoint", "", f"- command: `{command}`",
             f"- seed: {facts['seed']}; config: {facts['config']}; iterations: {facts['iterations']}",
             f"- wall time: {facts['wall s']} s, of which self-play {facts['self-play s']} s; decisions played: "
             f"{facts['decisions']} ({facts['decisions/s']}/s of self-play, all seats); learner decisions: "
             f"{facts['samples']} ({facts['learner decisions/s']}/s)"]
    if distilled:
        lines.append(f"- distilled from `{distilled['teacher']}`: {distilled['rounds']} rounds of "
                     f"{distilled['games']} games, {distilled['decisions']} decisions, agreement "
                     f"{distilled['agreement']} (student's own games by round: {distilled['student_agreement_by_round']}), "
                     f"{distilled['seconds']} s")
    if curve:
        lines.append(f"- training curve: `{Path(curve).name}`")
    lines += arena_lines(arena)
    path.write_text("\n".join(lines) + "\n")
    return path


def _finite(x: float):
    """x for JSON, or None where it is infinite (the score interval of a single deal)."""
    return float(x) if math.isfinite(x) else None


def match_json(res, config: dict) -> dict:
    """One duplicate match as the machine-readable record `arena --json` prints."""
    lo, hi = res.win_rate_ci
    dlo, dhi = res.mean_diff_ci
    return {"game": res.game, "config": config, "agents": [res.a, res.b], "deals": res.deals,
            "wins": res.wins, "ties": res.ties, "losses": res.losses, "win_rate": res.win_rate,
            "ci95": [lo, hi], "score_diff": res.mean_diff, "score_ci95": [_finite(dlo), _finite(dhi)]}


def one_torch_thread() -> None:
    """Learned agents run one small forward pass per decision, which torch's default thread pool makes
    7-9 times slower on a busy 2-core machine than one thread: one thread, unless the user set
    OMP_NUM_THREADS (torch is only set when an agent imported it)."""
    torch = sys.modules.get("torch")
    if torch is not None and "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(1)


def make_agents(specs, game: str, seed: int, cfg: dict) -> dict:
    """label -> agent for the arena; a spec given twice gets a #index suffix."""
    from agents import make_agent

    agents = {}
    for i, spec in enumerate(specs):
        if spec.partition(":")[0] == "learned" and not spec.partition(":")[2].partition(",")[0]:
            raise ValueError(f"agent {spec!r} names no checkpoint: use learned:<path.pt>")
        name = spec if spec not in agents else f"{spec}#{i}"
        agents[name] = make_agent(spec, game, seed=seed + 101 * i, env_config=cfg)
        agents[name].label = name
    one_torch_thread()
    return agents


def cmd_arena(args) -> int:
    from tqdm import tqdm

    from agents.arena import duplicate_match, rate

    if len(args.agents) < 2:
        raise ValueError("arena needs at least two agents")
    if args.time_limits and args.game != "courtpiece":
        raise ValueError(f"--time-limits applies Court Piece's timeout rules (CP-12); {args.game} has none")
    if args.engine == "batch" and args.time_limits:
        raise ValueError("--time-limits are timed per decision, which only --engine aec does")
    cfg = env_config(args)
    agents = make_agents(args.agents, args.game, args.seed, cfg)
    t0 = time.perf_counter()
    on_record = None
    if args.save_records:
        from cardzoo.records import RecordWriter

        on_record = RecordWriter(args.save_records)
    if len(agents) == 2:
        a, b = agents.values()
        with tqdm(total=args.deals, unit="deal", desc=f"{args.game} duplicate") as bar:
            res = duplicate_match(args.game, a, b, args.deals, cfg, seed=args.seed, engine=args.engine,
                                  time_limits=args.time_limits, progress=bar, on_record=on_record)
        print(_table([res.row()]))
        secs = ", ".join(f"{k}: {v * 1e3:.2f} ms" for k, v in res.seconds.items())
        print(f"games played: {res.games_played}  timeouts: {res.timeouts}  time per decision: {secs}  "
              f"wall: {time.perf_counter() - t0:.1f} s")
        for ag in agents.values():
            if hasattr(ag, "rollouts_per_s") and ag.stats.get("games"):
                print(f"{ag.label}: {ag.stats['games']} rollouts, {ag.rollouts_per_s:.0f} rollouts/s, "
                      f"{ag.stats['searched']} searched decisions, {ag.stats['fallbacks']} fallbacks")
        if args.json:
            print(json.dumps(match_json(res, cfg)))
        return 0
    pairs = len(agents) * (len(agents) - 1) // 2
    with tqdm(total=args.deals * pairs, unit="deal", desc=f"{args.game} round robin") as bar:
        table, results = rate(args.game, agents, args.deals, cfg, seed=args.seed, engine=args.engine, progress=bar,
                              on_record=on_record)
    print(_table([r.row() for r in results]))
    print()
    print(_table(table))
    if args.json:  # a round robin: every pair's record and the ratings
        print(json.dumps({"game": args.game, "config": cfg, "agents": list(agents), "deals": args.deals,
                          "matches": [match_json(r, cfg) for r in results], "ratings": table}))
    return 0


def _typed_action(text: str, raw, legal: list) -> int:
    """The legal action the player typed: its id, its name, or a unique legal action whose name holds
    the typed words in order ("QS" for "play QS", "call H" for "call trump H"); ValueError otherwise."""
    if text.isdigit():
        return int(text)
    names = {a: raw.action_name(a) for a in legal}
    for a, name in names.items():
        if name.lower() == text.lower():
            return a

    def holds(name: str) -> bool:
        rest = iter(name.lower().split())
        return all(word in rest for word in text.lower().split())  # `in` consumes: words in order

    found = [a for a, name in names.items() if holds(name)]
    if len(found) == 1:
        return found[0]
    if found:
        raise ValueError(f"{text!r} could be any of: {', '.join(names[a] for a in found)}")
    # no legal action: an action of the game by those words (the caller says it is not legal now)
    found = [a for a in range(raw.num_actions) if holds(raw.action_name(a))]
    return found[0] if len(found) == 1 else int(raw.action_from_name(text))


def _ask_move(name: str, raw, legal: list):
    """The human's next action from stdin (see _typed_action); None to quit."""
    while True:
        try:
            text = input(f"{name}> ").strip()
        except EOFError:
            raise ValueError("no more input on stdin before the game ended (use --auto to watch agents play)") \
                from None
        if text in ("q", "quit", "exit"):
            return None
        if not text:
            continue
        try:
            action = _typed_action(text, raw, legal)
        except ValueError as e:
            print(e)
            continue
        if action in legal:
            return action
        print("not legal now")


def cmd_play(args) -> int:
    from agents import make_agent
    from cardzoo.registry import make
    from cardzoo.web.views import move_label, public_move, result_view, table_view, view_text

    cfg = env_config(args)
    env = make(args.game, render_mode="ansi", **cfg)
    raw = env.unwrapped
    n = len(raw.possible_agents)
    if not args.auto and not 0 <= args.seat < n:
        raise ValueError(f"--seat must be 0..{n - 1}, got {args.seat}")
    agents = [None if (s == args.seat and not args.auto) else
              make_agent(args.opponents, args.game, seed=args.seed + s, env_config=cfg) for s in range(n)]
    one_torch_thread()
    env.reset(seed=args.seed)
    totals = [0.0] * n
    result = None
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            result = info.get("result", result)   # the infos go with the agents' last steps
            env.step(None)
            continue
        seat = raw.possible_agents.index(name)
        ag = agents[seat]
        if ag is None:  # what this seat may see: its own cards and the table (render() shows every hand)
            print(view_text(table_view(args.game, raw, {seat})))
            legal = [int(a) for a in obs["action_mask"].nonzero()[0]]
            print("legal:", ", ".join(f"{a}={raw.action_name(a)}" for a in legal))
            action = _ask_move(name, raw, legal)
            if action is None:
                return 0
        else:
            if ag.needs_env:
                ag.observe_env(env, seat)
            action = ag.act(obs["observation"], obs["action_mask"])
            told = raw.action_name(action)
            if not args.auto:  # the person sees another seat's move as the web table logs it: a hidden
                # one by its kind ("buries a card"), a silent one (a Sheng Ji window's pass) not at all
                shown = public_move(args.game, raw.infos[name]["phase"], told)
                told = shown if shown != told else move_label(args.game, raw, seat, told) or told
            if told is not None:
                print(f"{name}: {told}")
        env.step(int(action))
        for s, nm in enumerate(raw.possible_agents):
            totals[s] += env.rewards.get(nm, 0.0)
    print(env.render())
    print("rewards:", {f"player_{s}": round(r, 3) for s, r in enumerate(totals)})
    if result is not None:
        summary = result_view(args.game, result, totals, None if args.auto else args.seat,
                              cfg.get("episode") == "match")
        print(summary["headline"])
        for label, text in summary["rows"]:
            print(f"  {label}: {text}")
    return 0


def main(argv=None) -> int:
    parser = CliParser(prog="agents")
    sub = parser.add_subparsers(dest="command", required=True)
    add_commands(sub)
    return run_command(parser, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
