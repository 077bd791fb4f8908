"""Throughput of cardzoo's environments side by side with peer libraries, in one run, one core.

    python -m benchmarks.throughput            # everything installed, ~1 s per measurement
    python -m benchmarks.throughput --quick    # fewer configurations (the README's main command)

    cardzoo bench --quick                      # the same, installed as the `cardzoo bench` command

Reports steps (player decisions) per second and games per second, with ratios to the limit probe
(benchmarks/limit_probe.py: a minimal numba kernel of a plain 52-card trick-taking game) and to
OpenSpiel, measured in the same run: machines are noisy, ratios are not. Peers (open-spiel, rlcard)
are optional: `pip install cardzoo[bench]`; a peer that is not installed is left out of the table
with a note.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time

import numpy as np

from cardzoo.registry import list_games, make, make_batch


def _one_core() -> None:
    """Every measurement runs on one core unless the caller set NUMBA_NUM_THREADS. Done with
    ``numba.set_num_threads`` when the benchmark runs, never by changing the variable: numba rereads it
    at each compile and refuses a new value once its threads run (`cardzoo bench` can run inside a
    process that goes on compiling, such as a test session or `cardzoo train`)."""
    if "NUMBA_NUM_THREADS" not in os.environ:
        import numba

        numba.set_num_threads(1)


# (game, label, config) of every cardzoo configuration measured
CONFIGS = [
    ("courtpiece", "single_sar", {"variant": "single_sar"}),
    ("courtpiece", "double_sar", {"variant": "double_sar"}),
    ("courtpiece", "chhupa_rang", {"variant": "chhupa_rang"}),
    ("courtpiece", "be_rang", {"variant": "be_rang"}),
    ("courtpiece", "mendi_coat", {"variant": "mendi_coat"}),
    ("lopti", "N=2", {"num_players": 2}),
    ("lopti", "N=3", {"num_players": 3}),
    ("lopti", "N=4", {"num_players": 4}),
    ("lopti", "N=5", {"num_players": 5}),
    ("shengji", "decks=1", {"decks": 1}),
    ("shengji", "decks=2", {"decks": 2}),
    ("shengji", "decks=3", {"decks": 3}),
    ("shengji", "decks=4", {"decks": 4}),
]
QUICK = {("courtpiece", "single_sar"), ("lopti", "N=4"), ("shengji", "decks=2")}


def _timed(fn, budget: float, windows: int = 5):
    """Run fn() (returning a count) repeatedly for about `budget` seconds in `windows` equal windows:
    (count, seconds) whose ratio is the median window's rate, so a short stall of the shared machine
    moves one window, not the result."""
    rates, total = [], 0.0
    for _ in range(windows):
        count, start = 0, time.perf_counter()
        while True:
            count += fn()
            elapsed = time.perf_counter() - start
            if elapsed >= budget / windows:
                break
        rates.append(count / elapsed)
        total += elapsed
    return float(np.median(rates)) * total, total


# ---- cardzoo ------------------------------------------------------------------------------------


def bench_rollout(game, config, batch, budget, threads=1):
    """BatchGame.rollout: decisions/s of the jitted rollout alone, and games/s including reset
    (threads: BatchGame(threads=...), the rollout and the seeded reset split over that many cores)."""
    g = make_batch(game, batch, threads=threads, **config)
    g.reset(seed=0)
    g.rollout(seed=0)  # compile
    seeds = iter(range(1, 10**9))
    spent, per_call = 0.0, []  # (reset s, rollout s, decisions) of each call
    while spent < budget:
        s = next(seeds)
        t0 = time.perf_counter()
        g.reset(seed=s * batch)
        t1 = time.perf_counter()
        decisions = g.rollout(seed=s)
        t2 = time.perf_counter()
        per_call.append((t1 - t0, t2 - t1, decisions))
        spent += t2 - t0
    # medians over the calls: a stall of the shared machine moves one call, not the result
    reset_s, roll_s, dec = (np.array(c, np.float64) for c in zip(*per_call))
    return {"decisions_per_s": float(np.median(dec / roll_s)),
            "games_per_s": float(np.median(batch / (reset_s + roll_s))),
            "rollout_games_per_s": float(np.median(batch / roll_s))}


def bench_batch_step(game, config, batch, budget):
    """BatchGame driven from Python (the trainer's loop): each step the batch's legal masks, then
    `step` with a random legal action per game, whole batches of episodes at a time (a batch's steps
    get cheaper per live game as its games end). The rate counts the time in the env's calls
    (`legal_mask`, `done`, `step`, the resets) only: picking the actions is the benchmark's own
    numpy work, which on a 4096 x A mask costs more than the step and moves with the allocator."""
    g = make_batch(game, batch, **config)
    rng = np.random.default_rng(0)
    draws = np.empty((batch, g.num_actions))

    def run():
        clock = time.perf_counter
        t0 = clock()
        g.reset(seed=int(rng.integers(1 << 30)))
        spent = clock() - t0
        decisions = 0
        while True:
            t0 = clock()
            live = ~g.done
            if not live.any():
                spent += clock() - t0
                return decisions, spent
            mask = g.legal_mask()
            spent += clock() - t0
            rng.random(out=draws)  # argmax of uniform draws on the legal actions: a uniform legal action
            actions = np.multiply(draws, mask, out=draws).argmax(1)
            t0 = clock()
            g.step(actions)
            spent += clock() - t0
            decisions += int(live.sum())

    g.reset(seed=0)  # compiled (or loaded) before the clock starts
    g.step(g.legal_mask().argmax(1))
    decisions, seconds, start = 0, 0.0, time.perf_counter()
    while True:  # whole batch episodes until the budget is spent
        count, spent = run()
        decisions += count
        seconds += spent
        if time.perf_counter() - start >= budget:
            return {"decisions_per_s": decisions / seconds}


def bench_legal_plays(config, budget, positions: int = 3000):
    """Sheng Ji legal-play enumeration (the kernel behind BatchGame.legal_plays) on follow positions
    reached by random play: positions/s, every complete play of each position listed."""
    from shengji_env import kernels as K

    g = make_batch("shengji", 512, **config)
    rng = np.random.default_rng(5)
    g.reset(seed=5)
    found = []
    while sum(len(f) for f in found) < positions:
        if g.done.all():
            g.reset(seed=int(rng.integers(1 << 30)))
        st = g._st
        found.append(st[(st["phase"] == K.FOLLOW) & (st["nsel"] == 0)].copy())
        mask = g.legal_mask().astype(np.float64)
        mask[mask.sum(1) == 0, 0] = 1.0
        g.step((rng.random(mask.shape) * mask).argmax(1))
    st = np.concatenate(found)[:positions]
    counts = np.zeros(len(st), np.int64)
    buf = np.zeros((100000, 54), np.int8)
    K.batch_legal_plays_count(st, g._cfg, counts, buf)  # compile
    n, dt = _timed(lambda: (K.batch_legal_plays_count(st, g._cfg, counts, buf), len(st))[1], budget)
    return {"decisions_per_s": n / dt, "mean_plays": float(counts.mean())}


def _agent_iter_episode(env, rnd) -> int:
    """The rest of a reset PettingZoo AEC episode in the full RL loop: agent_iter, env.last() every
    decision, a uniformly random legal action from its mask. Returns the decisions made."""
    steps = 0
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rnd.randrange(len(legal))]))
        steps += 1
    return steps


def bench_aec_full(game, config, budget):
    """The full RL loop: PettingZoo's agent_iter with env.last() (observation and mask) every
    decision, a random legal action from the mask (OpenSpiel's counterpart: bench_openspiel observe)."""
    env = make(game, **config)
    rnd = random.Random(0)
    state = {"games": 0}

    def episode():
        env.reset(seed=rnd.randrange(1 << 30))
        steps = _agent_iter_episode(env, rnd)
        state["games"] += 1
        return steps

    episode()
    state["games"] = 0
    n, dt = _timed(episode, budget)
    return {"decisions_per_s": n / dt, "games_per_s": state["games"] / dt, "loop": "full"}


def bench_aec(game, config, wrapped: bool, budget):
    env = make(game, raw=not wrapped, **config)
    rnd = random.Random(0)
    state = {"games": 0}

    def episode():
        env.reset(seed=rnd.randrange(1 << 30))
        steps = 0
        raw = env.unwrapped
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            legal = env.infos[agent]["action_mask"].nonzero()[0]
            env.step(int(legal[rnd.randrange(len(legal))]))
            steps += 1
        state["games"] += 1
        del raw
        return steps

    episode()
    state["games"] = 0
    n, dt = _timed(episode, budget)
    return {"decisions_per_s": n / dt, "games_per_s": state["games"] / dt}


# ---- peers --------------------------------------------------------------------------------------


def bench_probe(batch, budget):
    from benchmarks import limit_probe

    out = np.zeros(batch, np.int8)
    limit_probe.play_games(0, batch, out)  # compile
    seed = iter(range(1, 10**9))
    n, dt = _timed(lambda: (limit_probe.play_games(next(seed) * batch, batch, out), batch)[1], budget)
    return {"decisions_per_s": n * limit_probe.CARD_PLAYS_PER_GAME / dt, "games_per_s": n / dt}


def bench_openspiel(name, budget, observe=False):
    """Random play through pyspiel's State API: legal_actions() per decision, or with observe (the
    full RL loop) observation_tensor() and legal_actions_mask(), the action drawn from the mask."""
    import pyspiel

    game = pyspiel.load_game(name)
    rnd = random.Random(0)
    counter = {"games": 0}
    bridge = name.startswith("bridge")

    def episode():
        s = game.new_initial_state()
        steps = 0
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                s.apply_action(outcomes[rnd.randrange(len(outcomes))][0])
                continue
            if observe:
                s.observation_tensor()
                legal = np.asarray(s.legal_actions_mask()).nonzero()[0]
            else:
                legal = s.legal_actions()
            if bridge and steps < 4:  # play phase: a quick auction (one bid, three passes)
                a = legal[1] if steps == 0 else legal[0]
            else:
                a = legal[rnd.randrange(len(legal))]
            s.apply_action(int(a))
            steps += 1
        counter["games"] += 1
        return steps

    episode()
    counter["games"] = 0
    n, dt = _timed(episode, budget)
    return {"decisions_per_s": n / dt, "games_per_s": counter["games"] / dt, "loop": "full" if observe else "mask"}


def cardzoo_through_pyspiel(games):
    """Jobs measuring cardzoo's games played through pyspiel (cardzoo.openspiel: every step goes
    through pyspiel's State API into the AEC env), uniformly random, timed like OpenSpiel's games."""
    import cardzoo.openspiel  # noqa: F401  (registers the cardzoo_* games)

    return [("cardzoo via OpenSpiel", f"cardzoo_{g} (pyspiel State API)",
             lambda budget, n=f"cardzoo_{g}": bench_openspiel(n, budget)) for g in games]


def bench_rlcard(name, budget):
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make(name, config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    counter = {"games": 0}

    def episode():
        trajectories, _ = env.run(is_training=False)
        counter["games"] += 1
        return sum((len(t) - 1) // 2 for t in trajectories)

    episode()
    counter["games"] = 0
    n, dt = _timed(episode, budget)
    return {"decisions_per_s": n / dt, "games_per_s": counter["games"] / dt}


def bench_pettingzoo_leduc(budget):
    from pettingzoo.classic import leduc_holdem_v4

    env = leduc_holdem_v4.env()
    rnd = random.Random(0)

    def episode():
        env.reset(seed=rnd.randrange(1 << 30))
        return _agent_iter_episode(env, rnd)

    n, dt = _timed(episode, budget)
    return {"decisions_per_s": n / dt}


# ---- report -------------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    from cardzoo.cli import positive_int

    return positive_int(text)


def _positive_seconds(text: str) -> float:
    from cardzoo.cli import positive_float

    return positive_float(text)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The benchmark's options, on its own parser or on `cardzoo bench`."""
    ap.add_argument("--quick", action="store_true", help="one configuration per game")
    ap.add_argument("--budget", type=_positive_seconds, default=1.0, help="seconds per measurement")
    ap.add_argument("--passes", type=_positive_int, default=3,
                    help="rounds over every measurement, each with budget / passes seconds; a row reports "
                         "the median round, so a slow spell of the machine meets every row alike")
    ap.add_argument("--games", nargs="*", default=None, choices=list_games(),
                    help="cardzoo games to measure (default: all)")
    ap.add_argument("--no-peers", action="store_true", help="cardzoo and the limit probe only")
    ap.add_argument("--threads", type=_positive_int, default=1,
                    help="BatchGame(threads=N) for the rollout rows: each rollout split over N cores")


def main(argv=None) -> int:
    from cardzoo.cli import CliParser

    ap = CliParser(prog="python -m benchmarks.throughput", description=__doc__,
                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap)
    return run(ap.parse_args(argv))


def peer_jobs() -> tuple[list, list]:
    """(jobs, notes): a job per installed peer measurement (a function of the seconds it may take), a
    note per peer that is not installed."""
    jobs, notes = [], []
    if importlib.util.find_spec("pyspiel"):
        bridge = "bridge(use_double_dummy_result=false)"
        for name, label in [(bridge, "bridge, play phase"), ("hearts", "hearts")]:
            jobs.append(("OpenSpiel", label, lambda budget, n=name: bench_openspiel(n, budget)))
        jobs.append(("OpenSpiel", "bridge, play phase, observation_tensor() + legal_actions_mask()",
                     lambda budget: bench_openspiel(bridge, budget, observe=True)))
    else:
        notes.append("OpenSpiel skipped: not installed (pip install \"cardzoo[bench]\")")
    if importlib.util.find_spec("rlcard"):  # PettingZoo's leduc_holdem runs on RLCard too
        jobs.append(("RLCard", "bridge", lambda budget: bench_rlcard("bridge", budget)))
        jobs.append(("PettingZoo classic", "leduc_holdem AEC", bench_pettingzoo_leduc))
    else:
        notes.append("RLCard and PettingZoo's leduc_holdem skipped: rlcard not installed "
                     "(pip install \"cardzoo[bench]\")")
    return jobs, notes


def _median_round(results: list) -> dict:
    """One row from a job's rounds: each rate the median over the rounds that ran (an error only when
    every round failed)."""
    ok = [r for r in results if "error" not in r]
    if not ok:
        return results[0]
    out = dict(ok[0])
    for key, value in ok[0].items():
        if isinstance(value, float):
            out[key] = float(np.median([r[key] for r in ok]))
    return out


def run(args) -> int:
    """Measure and print the table (args: the options of add_arguments)."""
    _one_core()
    from tqdm import tqdm

    # (system, what, fn): fn(seconds) measures and returns the row's rates
    jobs = [("limit probe", "B=4096", lambda budget: bench_probe(4096, budget)),
            ("limit probe", "B=1", lambda budget: bench_probe(1, budget))]
    notes = []
    if not args.no_peers:
        peers, notes = peer_jobs()
        jobs += peers
    games = args.games or list_games()
    if importlib.util.find_spec("pyspiel"):
        jobs += cardzoo_through_pyspiel(games)
    for game, label, config in CONFIGS:
        if game not in games or (args.quick and (game, label) not in QUICK):
            continue
        threads = f" threads={args.threads}" if args.threads > 1 else ""
        for batch in (4096, 64, 1):
            jobs.append((f"cardzoo {game}", f"{label} rollout B={batch}{threads}",
                         lambda budget, g=game, c=config, b=batch: bench_rollout(g, c, b, budget, args.threads)))
        jobs.append((f"cardzoo {game}", f"{label} BatchGame legal_mask + step B=4096 (env time)",
                     lambda budget, g=game, c=config: bench_batch_step(g, c, 4096, budget)))
        jobs.append((f"cardzoo {game}", f"{label} raw_env",
                     lambda budget, g=game, c=config: bench_aec(g, c, False, budget)))
        jobs.append((f"cardzoo {game}", f"{label} env()",
                     lambda budget, g=game, c=config: bench_aec(g, c, True, budget)))
        jobs.append((f"cardzoo {game}", f"{label} env(), env.last() every decision",
                     lambda budget, g=game, c=config: bench_aec_full(g, c, budget)))
        if game == "shengji":
            jobs.append((f"cardzoo {game}", f"{label} legal_plays, follow positions/s",
                         lambda budget, c=config: bench_legal_plays(c, budget)))

    # every job once per pass, the passes one after the other: the machine's speed drifts over a run,
    # and a row made of rounds spread over the whole run is compared with references spread alike
    rounds = [[] for _ in jobs]
    with tqdm(total=len(jobs) * args.passes, desc="benchmarks", unit="run", file=sys.stderr) as bar:
        for _ in range(args.passes):
            for k, (system, what, fn) in enumerate(jobs):
                try:
                    rounds[k].append(fn(args.budget / args.passes))
                except Exception as e:  # a peer that fails to run is reported, not fatal
                    rounds[k].append({"error": f"{type(e).__name__}: {e}"})
                bar.update()
    rows = [(system, what, _median_round(r)) for (system, what, _), r in zip(jobs, rounds)]

    base = {what: r for s, what, r in rows if s == "limit probe"}
    probe_plays = base.get("B=4096", {}).get("decisions_per_s")
    # each loop against OpenSpiel's bridge doing the same work per decision: masks only, or the full
    # RL loop (observation and mask)
    bridge_steps = {r.get("loop"): r.get("decisions_per_s") for s, w, r in rows
                    if s == "OpenSpiel" and w.startswith("bridge")}

    def fmt(x):
        return "—" if x is None else f"{x:,.0f}"

    print("| system | measurement | steps/s | games/s | × probe plays/s | × OpenSpiel bridge steps/s |")
    print("|---|---|---:|---:|---:|---:|")
    for system, what, r in rows:
        if "error" in r:
            print(f"| {system} | {what} | failed: {r['error'][:60]} | | | |")
            continue
        d = r.get("decisions_per_s")
        ratio_p = f"{d / probe_plays:.2f}" if d and probe_plays else "—"
        peer = bridge_steps.get(r.get("loop", "mask"))
        ratio_b = f"{d / peer:.2f}" if d and peer else "—"
        gps = r.get("games_per_s")
        extra = ""
        if "rollout_games_per_s" in r:
            extra = f" ({fmt(r['rollout_games_per_s'])} without reset)"
        print(f"| {system} | {what} | {fmt(d)} | {fmt(gps)}{extra} | {ratio_p} | {ratio_b} |")
    for note in notes:
        print(f"\n{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
