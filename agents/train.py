"""Self-play training on ``BatchGame``: distillation of a teacher (expert iteration), then masked PPO
against a mix of opponents.

**Distillation** (``teacher``, default the game's heuristic; any agent spec, the search agents
``pimc`` included): round 0 fits the policy to the teacher's decisions in games it plays in every seat
(cross-entropy over the legal actions) and the value head to the returns its seats got; each later
round (DAgger) lets the student play and the teacher label the positions the student reaches, and
refits on all the data gathered. ``teacher=None`` starts PPO from a fresh network.

**PPO.** One iteration plays ``n_envs`` whole episodes in lockstep on ``BatchGame`` (one per shard,
below). In every game the learner holds one side — a team in Court Piece and Sheng Ji (both partners'
seats, one policy), one seat in LOPTI — alternating with the game index and iteration; the other
seats are played by the opponent that game was dealt: ``opponents`` lists kinds dealt game by game
(global game b gets kind b mod k): ``self`` (the pool of past snapshots: it starts with the uniform
random policy, a frozen copy of the learner joins every ``snapshot_every`` iterations, at most
``pool_size``, and each iteration plays the latest with probability 1/2, otherwise a uniformly drawn
member), ``heuristic`` (the rule-based agent) and ``random``. Rewards (paid at episode ends) are
credited to the learner's latest decision in that game; advantages by GAE(gamma, lambda) over the
learner's decisions of each game (one jitted pass); then ``epochs`` passes of clipped PPO over shuffled
minibatches, illegal actions masked out of the softmax. The observation scale (1 / max |x| over a first
sample) is stored in the model, so checkpoints are self-contained.

**Both cores.** With ``overlap`` (default) iteration i + 1 is collected in a second thread, by the
weights before update i, while update i runs (torch and the kernels' batched calls release the GIL for
most of their time); the run stays reproducible, as the weights each collection uses do not depend on
timing.

**Evaluation.** Every ``eval_every`` iterations the greedy learner plays ``eval_deals`` duplicate
deals (the arena's format, the same deals each time) against random and the heuristic; the win rates
and their Wilson 95% intervals go to the log and the curve.

Collection is sharded: the ``n_envs`` games of an iteration are split into ``workers`` contiguous
shards, each played by a ``RolloutWorker`` (its own ``BatchGame`` and copies of the learner and
opponent networks) through ``RolloutWorker.collect`` — the one collection routine. Without Ray the
shards run one after another in this process; with ``ray=True`` (or a ``ray_address``) each is a Ray
actor (``agents.distributed``), the weights are broadcast once per iteration and the batches merged on
the driver, where the learning happens. Game ``b`` of iteration ``it`` is dealt from seed
``seed * 1_000_003 + (it + 1) * n_envs + b`` whatever the sharding, and shard ``k`` samples from
``numpy.random.SeedSequence([seed, it + 1, k])``, so a run is reproduced exactly by the same seed and
``workers``, local or on Ray, with ``max_iterations`` (a ``minutes`` budget stops wherever the clock
says).

Everything is seeded (torch, numpy, game seeds); the log is a CSV with one row per iteration and the
training curve a PNG (``matplotlib``, Agg backend).
"""
from __future__ import annotations

import csv
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from agents.arena import TEAM_GAMES, num_players
from agents.learned import build_model, save_checkpoint
from cardzoo.registry import make_batch

LOG_FIELDS = ["iteration", "wall_s", "episodes", "decisions", "samples", "opponent", "mean_return",
              "eval_vs_random", "eval_vs_random_lo", "eval_vs_random_hi", "eval_vs_heuristic", "eval_vs_heuristic_lo",
              "eval_vs_heuristic_hi", "loss", "policy_loss", "value_loss", "entropy", "approx_kl", "decisions_per_s",
              "collect_s", "game_seed"]


@dataclass
class TrainConfig:
    game: str = "courtpiece"
    env_config: dict = field(default_factory=dict)
    seed: int = 0
    minutes: float = 1.0
    max_iterations: int | None = None
    n_envs: int = 128
    hidden: int = 256
    layers: int = 2
    lr: float = 1e-4                 # small: PPO refines the distilled policy rather than overwrite it
    epochs: int = 2
    minibatch: int = 2048
    clip: float = 0.2
    ent_coef: float = 0.003
    vf_coef: float = 0.5
    gamma: float = 1.0
    lam: float = 0.95
    max_grad_norm: float = 0.5
    snapshot_every: int = 5
    pool_size: int = 8
    eval_every: int = 10
    threads: int = 1
    workers: int | None = None      # collection shards; None: 1 locally, the cluster's CPUs on Ray
    ray: bool = False               # collect on Ray actors (a local ray.init() unless ray_address)
    ray_address: str | None = None  # an existing cluster ("auto", "host:6379", "ray://host:10001"); implies ray
    opponents: str = "self,heuristic"   # opponent kinds, dealt game by game: self (the pool), heuristic, random
    teacher: str | None = "heuristic"  # expert whose decisions are distilled before PPO (None: from scratch)
    distill_games: int = 4096        # games the teacher plays (every seat) for distillation
    distill_epochs: int = 4          # passes over the gathered data after each round
    distill_rounds: int = 3          # round 0: the teacher's games; later rounds: the student's (DAgger)
    distill_lr: float = 1e-3
    distill_minibatch: int = 512
    activation: str = "relu"
    eval_deals: int = 100            # duplicate deals against random and the heuristic at each evaluation
    overlap: bool = True             # collect iteration i + 1 (one update behind) while learning on i
    baseline: str | None = "heuristic"  # agent whose return on the same deal is subtracted from the reward


def _learner_seats(game: str, n_players: int, n_envs: int, iteration: int) -> np.ndarray:
    """bool[n_envs, n_players]: seats the learner plays in each game."""
    seats = np.zeros((n_envs, n_players), bool)
    for b in range(n_envs):
        k = (b + iteration) % (2 if game in TEAM_GAMES else n_players)
        if game in TEAM_GAMES:
            seats[b, [s for s in range(n_players) if s % 2 == k]] = True
        else:
            seats[b, k] = True
    return seats


def game_seed(cfg: TrainConfig, iteration: int) -> int:
    """Seed of game 0 of an iteration (game b: + b); iteration -1 is the observation-scale pass."""
    return cfg.seed if iteration < 0 else cfg.seed * 1_000_003 + (iteration + 1) * cfg.n_envs


def sample_seed(seed: int, iteration: int, shard: int) -> int:
    """Seed of shard `shard`'s action sampling (torch and numpy) in `iteration` (-1: the scale pass)."""
    return int(np.random.SeedSequence([seed % 2**63, iteration + 1, shard]).generate_state(1, np.uint64)[0] >> 1)


def shard_bounds(n_envs: int, workers: int) -> list[tuple[int, int]]:
    """(start, size) of each shard: contiguous, sizes differing by at most one."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= n_envs:
        raise ValueError(f"workers must be an int in 1..n_envs={n_envs}, got {workers!r}")
    base, extra = divmod(n_envs, workers)
    bounds, start = [], 0
    for k in range(workers):
        size = base + (k < extra)
        bounds.append((start, size))
        start += size
    return bounds


def _policy_actions(torch, model, obs, mask, gen, greedy=False):
    with torch.no_grad():
        logits, value = model(torch.as_tensor(obs), torch.as_tensor(mask.astype(np.int8)))
        if greedy:
            a = logits.argmax(1)
        else:
            a = torch.multinomial(torch.softmax(logits, 1), 1, generator=gen).squeeze(1)
        logp = torch.log_softmax(logits, 1).gather(1, a[:, None]).squeeze(1)
    return a.numpy().astype(np.int64), logp.numpy(), value.numpy()


OPPONENT_KINDS = ("self", "heuristic", "random", "mirror")
MIRROR = "mirror"      # the learner itself, as it is now, in every seat: every decision is a sample


def _is_mirror(entry) -> bool:
    return isinstance(entry, str) and entry == MIRROR


def opponent_kinds(text: str) -> list[str]:
    """``"self,heuristic"`` -> ["self", "heuristic"]: the opponents of each iteration, dealt game by game."""
    kinds = [k.strip() for k in str(text).split(",") if k.strip()]
    bad = [k for k in kinds if k not in OPPONENT_KINDS]
    if not kinds or bad:
        raise ValueError(f"opponents must be a comma list of {', '.join(OPPONENT_KINDS)}; got {text!r}")
    return kinds


def teacher_games(game: str, env_config: dict, teacher, n_games: int, seed: int, chunk: int = 512,
                  student=None) -> dict:
    """Every decision of ``n_games`` games (dealt from seed, seed + 1, ...) labelled by the teacher:
    observations, masks, the teacher's actions and the return the acting seat got in the end. The
    teacher plays every seat, or with a ``student`` (a model) the student plays (greedily) and the
    teacher only labels, so the data covers the positions the student reaches (DAgger)."""
    import torch

    if getattr(teacher, "needs_env", False):
        return _teacher_games_aec(game, env_config, teacher, n_games, seed, student)
    parts = {k: [] for k in ("obs", "mask", "act", "ret")}
    for start in range(0, n_games, chunk):
        n = min(chunk, n_games - start)
        g = make_batch(game, n, **env_config)
        g.reset(seed=seed + start)
        seats, games = [], []
        obs_l, mask_l, act_l = [], [], []
        total = np.zeros((n, g.rewards.shape[1]))
        while True:
            cp = np.asarray(g.current_player, dtype=np.int64)
            live = np.flatnonzero(cp >= 0)
            if not live.size:
                break
            obs, mask = g.observe()[live], g.legal_mask()[live]
            label = teacher.act_batch(obs, mask)
            act = np.zeros(n, np.int64)
            if student is None:
                act[live] = label
            else:
                with torch.no_grad():
                    logits, _ = student(torch.as_tensor(obs), torch.as_tensor(mask.astype(np.int8)))
                act[live] = logits.argmax(1).numpy()
            obs_l.append(obs); mask_l.append(mask); act_l.append(label)
            games.append(live); seats.append(cp[live])
            g.step(act)
            total += g.rewards
        games, seats = np.concatenate(games), np.concatenate(seats)
        parts["obs"].append(np.concatenate(obs_l)); parts["mask"].append(np.concatenate(mask_l))
        parts["act"].append(np.concatenate(act_l)); parts["ret"].append(total[games, seats].astype(np.float32))
    return {k: np.concatenate(v) for k, v in parts.items()}


def _teacher_games_aec(game: str, env_config: dict, teacher, n_games: int, seed: int, student=None) -> dict:
    """``teacher_games`` for a teacher that reads the env (``needs_env``: the search agents), game by
    game on the AEC env; game i is dealt from seed + i, as game i of a BatchGame reset with seed."""
    import torch

    from cardzoo.registry import make

    obs_l, mask_l, act_l, ret_l = [], [], [], []
    for i in range(n_games):
        env = make(game, raw=True, **env_config)
        env.reset(seed=seed + i)
        names = list(env.possible_agents)
        seats = []
        total = np.zeros(len(names))
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                seat = names.index(name)
                teacher.observe_env(env, seat)
                label = int(teacher.act(obs["observation"], obs["action_mask"]))
                act = label
                if student is not None:
                    with torch.no_grad():
                        logits, _ = student(torch.as_tensor(obs["observation"][None]),
                                            torch.as_tensor(obs["action_mask"][None].astype(np.int8)))
                    act = int(logits.argmax(1)[0])
                obs_l.append(np.array(obs["observation"], np.float32)); mask_l.append(np.array(obs["action_mask"]))
                act_l.append(label); seats.append(seat)
                env.step(act)
                total += [env.rewards.get(nm, 0.0) for nm in names]
        ret_l.append(total[seats].astype(np.float32))
    return {"obs": np.stack(obs_l), "mask": np.stack(mask_l).astype(np.uint8), "act": np.asarray(act_l, np.int64),
            "ret": np.concatenate(ret_l)}


def distill(torch, cfg: TrainConfig, model, gen, log=print, until: float | None = None) -> dict:
    """Expert iteration's first step: fit the policy to the teacher's decisions (cross-entropy over
    the legal actions) and the value head to the returns its seats got, before self-play improves on
    it. Round 0 learns from the teacher's own games; each later round (DAgger) adds the teacher's
    labels of the positions the current student reaches, and refits on everything gathered.
    ``until`` (a perf_counter time): no further round starts after it (round 0 always runs), so a
    minutes budget leaves time for PPO."""
    from agents import make_agent

    t0 = time.perf_counter()
    teacher = make_agent(cfg.teacher, cfg.game, seed=cfg.seed, env_config=cfg.env_config)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.distill_lr, eps=1e-5)
    pool: dict[str, list] = {k: [] for k in ("obs", "mask", "act", "ret")}
    acc = loss_v = 0.0
    rounds = []
    done_rounds = epochs = 0

    def late() -> bool:
        return until is not None and time.perf_counter() >= until

    for rnd in range(max(1, cfg.distill_rounds)):
        if rnd and late():
            break
        done_rounds += 1
        model.eval()
        part = teacher_games(cfg.game, cfg.env_config, teacher, cfg.distill_games, cfg.seed * 7_919 + 10**8
                             + rnd * cfg.distill_games, student=model if rnd else None)
        model.train()
        if rnd:       # how often the student already chose as the teacher would, on its own games
            with torch.no_grad():
                logits, _ = model(torch.as_tensor(part["obs"]), torch.as_tensor(part["mask"].astype(np.int8)))
            rounds.append(round(float((logits.argmax(1).numpy() == part["act"]).mean()), 4))
        for k in pool:
            pool[k].append(part[k])
        obs_t = torch.as_tensor(np.concatenate(pool["obs"]))
        mask_t = torch.as_tensor(np.concatenate(pool["mask"]).astype(np.int8))
        act_t, ret_t = torch.as_tensor(np.concatenate(pool["act"])), torch.as_tensor(np.concatenate(pool["ret"]))
        n = len(act_t)
        for _ in range(cfg.distill_epochs):
            epochs += 1
            perm = torch.randperm(n, generator=gen)
            hits = 0
            for s in range(0, n, cfg.distill_minibatch):
                mb = perm[s:s + cfg.distill_minibatch]
                logits, v = model(obs_t[mb], mask_t[mb])
                ce = torch.nn.functional.cross_entropy(logits, act_t[mb])
                vl = 0.5 * ((v - ret_t[mb]) ** 2).mean()
                loss = ce + cfg.vf_coef * vl
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                opt.step()
                hits += int((logits.argmax(1) == act_t[mb]).sum())
                loss_v = float(vl.detach())
            acc = hits / max(1, n)
        del obs_t, mask_t
    facts = {"teacher": cfg.teacher, "games": cfg.distill_games, "rounds": done_rounds,
             "decisions": int(n), "epochs": epochs, "agreement": round(acc, 4),
             "student_agreement_by_round": rounds, "value_loss": round(loss_v, 4),
             "seconds": round(time.perf_counter() - t0, 1)}
    cut = " (no further round: half the minutes budget was spent)" if done_rounds < max(1, cfg.distill_rounds) else ""
    log(f"distilled {cfg.teacher}: {n} decisions of {facts['rounds']} x {cfg.distill_games} games, "
        f"{epochs} epochs in all, agreement {acc:.3f} (student's own games: {rounds}), "
        f"{facts['seconds']} s{cut}")
    return facts


def _as_list(opponents) -> list:
    return list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]


def _opponent_actions(torch, opp, obs, mask, gen, rng):
    """One opponent's actions: None plays uniformly at random, an Agent its ``act_batch``, a model samples."""
    if opp is None:
        u = rng.random(mask.shape)
        u[mask == 0] = -1
        return u.argmax(1)
    if hasattr(opp, "act_batch"):
        return opp.act_batch(obs, mask)
    return _policy_actions(torch, opp, obs, mask, gen)[0]


def baseline_returns(g, agent, learner, seed) -> np.ndarray:
    """The return ``agent`` gets in the learner's seats of each game of `g` (reset with `seed`) when it
    plays every seat: a baseline that depends on the deal only, not on the learner's actions, so
    subtracting it from the learner's reward keeps the policy gradient unbiased while it removes most
    of the luck of the deal (the duplicate idea, inside training)."""
    g.reset(seed=seed)
    total = np.zeros(learner.shape, np.float64)
    while True:
        live = np.flatnonzero(np.asarray(g.current_player) >= 0)
        if not live.size:
            break
        act = np.zeros(len(learner), np.int64)
        act[live] = agent.act_batch(g.observe()[live], g.legal_mask()[live])
        g.step(act)
        total += g.rewards
    return (total * learner).sum(1) / learner.sum(1)


def side_ids(game: str, n_players: int) -> np.ndarray:
    """int[n_players]: each seat's side when the learner plays all of them (MIRROR): its team in a team
    game, else the seat itself."""
    seats = np.arange(n_players)
    return seats % 2 if game in TEAM_GAMES else seats


def play_episodes(torch, g, model, opponents, learner, seed, gen, rng, record=True, greedy=False, offset=0,
                  baseline=None, sides=None, n_sides=None):
    """Run every game of `g` (reset with `seed`) to its end. Returns the buffers and the learner's
    return per game. `opponents`: one opponent or a list, game b playing opponents[(offset + b) % len]
    (``offset``: the shard's first global game, so the assignment does not depend on the sharding);
    an opponent is None (uniform random), an Agent (``act_batch``) or a model. ``baseline`` (per game,
    optional) is subtracted from the reward the buffers credit (not from the returned returns).

    ``sides`` (int[n, seats], optional; default: the ``learner`` seats are side 0, the rest -1): the
    learner plays every seat of side >= 0, and each side of a game is its own trajectory, credited
    with the mean reward of its seats (``buf["game"]`` = game * sides + side). Returns and the baseline
    are side 0's; ``n_sides`` (default: the largest side + 1) is the stride of the trajectory ids."""
    opponents = _as_list(opponents)
    n, _ = learner.shape
    if sides is None:
        sides = np.where(learner, 0, -1)
    n_sides = int(sides.max()) + 1 if n_sides is None else int(n_sides)
    seats_of = [sides == k for k in range(n_sides)]          # bool[n, seats] per side
    g.reset(seed=seed)
    rows = np.arange(n)
    opp_of = (rows + offset) % len(opponents)
    buf = {k: [] for k in ("obs", "mask", "act", "logp", "val", "game")}
    n_rec = 0
    last = np.full(n * n_sides, -1, np.int64)
    final = []                     # (sample index, reward) credited when a game pays out
    ret = np.zeros(n)
    owed = np.ones(n, bool)
    decisions = 0
    while True:
        cp = np.asarray(g.current_player, dtype=np.int64)
        live = cp >= 0
        if not live.any():
            break
        obs = g.observe()
        mask = g.legal_mask()
        side = sides[rows, np.maximum(cp, 0)]
        mine = live & (side >= 0)
        actions = np.zeros(n, np.int64)
        li = np.flatnonzero(mine)
        if li.size:
            a, lp, v = _policy_actions(torch, model, obs[li], mask[li], gen, greedy)
            actions[li] = a
            if record:
                traj = li * n_sides + side[li]
                buf["obs"].append(obs[li]); buf["mask"].append(mask[li]); buf["act"].append(a)
                buf["logp"].append(lp); buf["val"].append(v); buf["game"].append(traj)
                last[traj] = n_rec + np.arange(li.size)
                n_rec += li.size
        for k, opp in enumerate(opponents):
            oi = np.flatnonzero(live & ~mine & (opp_of == k))
            if oi.size:
                actions[oi] = _opponent_actions(torch, opp, obs[oi], mask[oi], gen, rng)
        decisions += int(live.sum())
        g.step(actions)
        r = np.asarray(g.rewards, dtype=np.float64)
        got = np.flatnonzero(live & r.any(axis=1))
        for k in range(n_sides) if got.size else ():
            on = seats_of[k][got]
            count = on.sum(1)
            here = got[count > 0]
            side_r = (r[here] * on[count > 0]).sum(1) / count[count > 0]
            credit = side_r
            if k == 0:
                ret[here] += side_r
                if baseline is not None:    # the whole baseline at a game's first payout
                    credit = side_r - np.where(owed[here], baseline[here], 0.0)
                    owed[here] = False
            idx = last[here * n_sides + k]
            paid = idx >= 0
            final.append(np.stack([idx[paid], credit[paid]], 1))
    if record and buf["obs"]:
        data = {k: np.concatenate(v) for k, v in buf.items()}
        data["rew"] = np.zeros(n_rec, np.float32)
        if final:
            paid = np.concatenate(final)
            np.add.at(data["rew"], paid[:, 0].astype(np.int64), paid[:, 1].astype(np.float32))
    else:
        data = None
    return data, ret, decisions


@njit(cache=True)
def _gae_by_game(game, val, rew, n_games, gamma, lam, adv):
    """GAE over each game's samples, which lie in time order within `game` (terminal after the last)."""
    nxt = np.zeros(n_games, np.float32)
    run = np.zeros(n_games, np.float32)
    for i in range(len(game) - 1, -1, -1):
        b = game[i]
        delta = rew[i] + gamma * nxt[b] - val[i]
        run[b] = delta + gamma * lam * run[b]
        adv[i] = run[b]
        nxt[b] = val[i]


def gae(data, gamma, lam):
    """Advantages and returns over each game's learner decisions (terminal after its last one)."""
    games = np.asarray(data["game"], np.int64)
    adv = np.zeros(len(games), np.float32)
    if len(games):
        _gae_by_game(games, np.asarray(data["val"], np.float32), np.asarray(data["rew"], np.float32),
                     int(games.max()) + 1, np.float32(gamma), np.float32(lam), adv)
    return adv, adv + data["val"]


class RolloutWorker:
    """Games [start, start + size) of every iteration on one ``BatchGame``, with its own copies of the
    learner and opponent networks. ``collect`` is the trainer's only collection routine: called in this
    process by ``LocalCollector`` and inside Ray actors by ``agents.distributed.RayCollector``."""

    def __init__(self, game: str, env_config: dict, n_envs: int, shard: int, start: int, size: int,
                 hidden: int, layers: int, seed: int, threads: int | None = None, activation: str = "tanh",
                 baseline: str | None = None):
        import torch

        from agents.arena import num_players

        if threads:
            torch.set_num_threads(threads)
        self.torch = torch
        self.game, self.n_envs, self.shard, self.start, self.size, self.seed = game, n_envs, shard, start, size, seed
        self.n_players = num_players(game, env_config)
        self.g = make_batch(game, size, **env_config)
        self.g.reset(seed=seed)
        obs_size, num_actions = self.g.observe().shape[1], self.g.legal_mask().shape[1]
        self.sizes = (obs_size, num_actions, hidden, layers, activation)
        self.model = build_model(*self.sizes)
        self.opponent_models = [build_model(*self.sizes)]
        self.env_config = dict(env_config)
        self.agents: dict = {}
        self.baseline, self.g_base = baseline, None
        self.cpu_s = 0.0

    def ready(self) -> int:
        return self.size

    def cpu_seconds(self) -> float:
        """CPU time this worker's process spent in ``collect`` so far."""
        return self.cpu_s

    def _opponents(self, opponent_weights, sample_seed_: int) -> list:
        """The opponent list for ``play_episodes``: each entry None (random), an agent spec string
        ("heuristic") or a state dict (a frozen network)."""
        out, models = [], iter(self.opponent_models)
        for entry in _as_list(opponent_weights):
            if entry is None or _is_mirror(entry):       # MIRROR: no seat is an opponent
                out.append(None)
            elif isinstance(entry, str):
                if entry not in self.agents:
                    from agents import make_agent

                    self.agents[entry] = make_agent(entry, self.game, seed=0, env_config=self.env_config)
                agent = self.agents[entry]
                agent.reset(seed=sample_seed_)
                out.append(agent)
            else:
                model = next(models, None)
                if model is None:
                    model = build_model(*self.sizes)
                    self.opponent_models.append(model)
                model.load_state_dict(entry)
                out.append(model)
        return out

    def collect(self, weights, opponent_weights, iteration: int, seed0: int, all_seats: bool = False):
        """Play this shard's games of `iteration` (game b dealt from seed0 + b) with the learner's
        `weights` against `opponent_weights`: None (uniform random), a state dict, an agent spec
        ("heuristic"), or a list of those dealt game by game (global game b plays entry b % len).
        `all_seats`: the learner plays every seat. A game dealt MIRROR is played by the learner in
        every seat, each side a trajectory of its own (``play_episodes``' ``sides``). Returns (buffers
        with global trajectory ids, learner return per game, decisions played)."""
        torch = self.torch
        cpu0 = time.process_time()
        self.model.load_state_dict(weights)
        s = sample_seed(self.seed, iteration, self.shard)
        opponents = self._opponents(opponent_weights, s)
        if all_seats:
            learner = np.ones((self.size, self.n_players), bool)
        else:
            learner = _learner_seats(self.game, self.n_players, self.n_envs, iteration)[self.start:self.start + self.size]
        gen = torch.Generator().manual_seed(s)
        rng = np.random.default_rng(s)
        listed = _as_list(opponent_weights)
        mirror = np.array([_is_mirror(listed[(self.start + b) % len(listed)]) for b in range(self.size)])
        sides, n_sides = None, 1
        if any(_is_mirror(e) for e in listed):       # the stride of every shard's trajectory ids alike
            ids = side_ids(self.game, self.n_players)
            sides = np.where(learner, 0, -1)
            sides[mirror] = ids
            n_sides = int(ids.max()) + 1
        baseline = None
        if self.baseline and not all_seats and not mirror.all():
            if self.g_base is None:
                self.g_base = make_batch(self.game, self.size, **self.env_config)
            agent = self._opponents(self.baseline, s)[0]
            baseline = np.where(mirror, 0.0, baseline_returns(self.g_base, agent, learner, seed0 + self.start))
        data, ret, dec = play_episodes(torch, self.g, self.model, opponents, learner, seed0 + self.start, gen, rng,
                                       offset=self.start, baseline=baseline, sides=sides, n_sides=n_sides)
        if data is not None:
            data["game"] = data["game"] + self.start * n_sides
        self.cpu_s += time.process_time() - cpu0
        return data, ret, dec


def merge(results) -> tuple[dict | None, np.ndarray, int]:
    """The shards' results (in shard order) as one: buffers concatenated, returns in game order."""
    parts = [r[0] for r in results if r[0] is not None]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]} if parts else None
    return data, np.concatenate([r[1] for r in results]), sum(int(r[2]) for r in results)


def _worker_args(cfg: TrainConfig, workers: int) -> list[tuple]:
    return [(cfg.game, cfg.env_config, cfg.n_envs, k, start, size, cfg.hidden, cfg.layers, cfg.seed)
            for k, (start, size) in enumerate(shard_bounds(cfg.n_envs, workers))]


def _worker_kwargs(cfg: TrainConfig) -> dict:
    return {"activation": cfg.activation, "baseline": cfg.baseline}


class LocalCollector:
    """The shards in this process, one after another."""

    backend = "local"

    def __init__(self, cfg: TrainConfig):
        self.workers = [RolloutWorker(*args, **_worker_kwargs(cfg)) for args in _worker_args(cfg, cfg.workers or 1)]
        self.shards = [(w.start, w.size) for w in self.workers]

    def collect(self, weights, opponent_weights, iteration, seed0, all_seats=False):
        return merge([w.collect(weights, opponent_weights, iteration, seed0, all_seats) for w in self.workers])

    def describe(self) -> dict:
        w = self.workers[0]
        return {"backend": self.backend, "workers": len(self.workers), "shards": self.shards, "game": w.game,
                "seed": w.seed}

    def close(self) -> None:
        pass


def make_collector(cfg: TrainConfig, log=print):
    """LocalCollector, or agents.distributed.RayCollector when cfg.ray or cfg.ray_address."""
    if cfg.ray or cfg.ray_address:
        from agents.distributed import RayCollector

        return RayCollector(cfg, log=log)
    return LocalCollector(cfg)


def _timed(fn, args):
    t0 = time.perf_counter()
    return fn(*args), time.perf_counter() - t0


class _Done:
    """A finished job, shaped like a Future (collection without overlap)."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def _weights(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def train(cfg: TrainConfig, out_dir, progress=None, log=print, collector=None) -> dict:
    """Train, write <out_dir>/{model.pt, model.json, log.csv, curve.png}; returns the run's facts.
    `collector`: one made by ``make_collector(cfg)`` to reuse (its Ray actors, say) across runs of the
    same game, sizes, seed and workers; it is left open. By default one is made and closed here."""
    import torch

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(max(1, cfg.threads))
    rng = np.random.default_rng(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    n_players = num_players(cfg.game, cfg.env_config)
    probe = make_batch(cfg.game, 1, **cfg.env_config)
    probe.reset(seed=cfg.seed)
    obs_size, num_actions = probe.observe().shape[1], probe.legal_mask().shape[1]
    if cfg.workers is not None:
        shard_bounds(cfg.n_envs, cfg.workers)          # bad counts fail before any Ray start
    model = build_model(obs_size, num_actions, cfg.hidden, cfg.layers, cfg.activation)   # before in-process workers draw
    if collector is not None:
        desc = collector.describe()
        shards = desc["shards"]
        if [tuple(b) for b in shards] != shard_bounds(cfg.n_envs, len(shards)):
            raise ValueError(f"the collector's shards {shards} do not split n_envs={cfg.n_envs}")
        if (desc["game"], desc["seed"]) != (cfg.game, cfg.seed):
            raise ValueError(f"the collector plays {desc['game']} with seed {desc['seed']}, "
                             f"not {cfg.game} with seed {cfg.seed}")
        return _train(torch, cfg, out, collector, model, n_players, obs_size, num_actions, rng, gen, progress, log)
    collector = make_collector(cfg, log=log)
    try:
        return _train(torch, cfg, out, collector, model, n_players, obs_size, num_actions, rng, gen, progress, log)
    finally:
        collector.close()


def _train(torch, cfg, out, collector, model, n_players, obs_size, num_actions, rng, gen, progress, log) -> dict:
    collection = dict(collector.describe(), game_seed="seed * 1_000_003 + (iteration + 1) * n_envs + game",
                      sample_seed="SeedSequence([seed, iteration + 1, shard])")
    log(f"collection: {collection['backend']}, {collection['workers']} worker(s), shards (start, size) "
        f"{collection['shards']}; seed {cfg.seed}: game b of iteration i dealt from seed*1_000_003 + (i+1)*n_envs + b, "
        f"shard k samples from SeedSequence([seed, i+1, k])")
    t_start = time.perf_counter()          # the minutes budget covers distillation too
    deadline = t_start + 60.0 * cfg.minutes
    # observation scale from a first sample: the initial network in every seat
    data, _, _ = collector.collect(_weights(model), None, -1, game_seed(cfg, -1), all_seats=True)
    peak = np.abs(data["obs"]).max(axis=0)
    model.obs_scale.copy_(torch.as_tensor(1.0 / np.maximum(peak, 1.0), dtype=torch.float32))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=1e-5)
    kinds = opponent_kinds(cfg.opponents)
    distilled = None
    if cfg.teacher:  # with a minutes budget, distillation starts no new round past half of it
        half = None if cfg.max_iterations is not None else t_start + 30.0 * cfg.minutes
        distilled = distill(torch, cfg, model, gen, log, until=half)
    t_ppo = time.perf_counter()            # rates are of the self-play phase, distillation apart
    pool: list = [None]
    names = ["random"]
    meta = {"game": cfg.game, "env_config": cfg.env_config, "obs_size": int(obs_size),
            "num_actions": int(num_actions), "hidden": cfg.hidden, "layers": cfg.layers, "activation": cfg.activation,
            "train_config": asdict(cfg), "collection": collection, "distilled": distilled}
    csv_path = out / "log.csv"
    rows = []
    total_dec = total_samples = total_eps = 0
    total_collect = 0.0
    losses = []
    it = 0
    executor = ThreadPoolExecutor(1, thread_name_prefix="collect") if cfg.overlap else None
    with open(csv_path, "w", newline="") as fh, (executor or nullcontext()):
        writer = csv.DictWriter(fh, fieldnames=LOG_FIELDS)
        writer.writeheader()
        def runs(i: int) -> bool:
            if cfg.max_iterations is not None:
                return i < cfg.max_iterations
            return i == 0 or time.perf_counter() < deadline  # at least one iteration: a log, a curve

        def start(i: int):
            """Draw iteration i's opponents and start collecting it with the weights as they are now."""
            k = len(pool) - 1 if (len(pool) > 1 and rng.random() < 0.5) else int(rng.integers(len(pool)))
            plan = [pool[k] if kind == "self" else (None if kind == "random" else kind) for kind in kinds]
            name = "+".join(names[k] if kind == "self" else kind for kind in kinds)
            seed0 = game_seed(cfg, i)
            args = (_weights(model), plan if len(plan) > 1 else plan[0], i, seed0)
            job = executor.submit(_timed, collector.collect, args) if executor else _Done(_timed(collector.collect, args))
            return job, name, seed0

        pending = start(0) if runs(0) else None
        while pending is not None:
            t_it = time.perf_counter()
            job, opp_name, seed0 = pending
            (data, ret, dec), collect_s = job.result()
            if executor:    # iteration it + 1 is collected by the weights before this update, while it learns
                pending = start(it + 1) if runs(it + 1) else None
            adv, rets = gae(data, cfg.gamma, cfg.lam)
            obs_t = torch.as_tensor(data["obs"])
            mask_t = torch.as_tensor(data["mask"].astype(np.int8))
            act_t = torch.as_tensor(data["act"])
            logp_t = torch.as_tensor(data["logp"])
            adv_t = torch.as_tensor(adv)
            ret_t = torch.as_tensor(rets)
            n_s = len(adv)
            stats = {"loss": 0.0, "policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0}
            n_mb = 0
            for _ in range(cfg.epochs):
                perm = torch.randperm(n_s, generator=gen)
                for s in range(0, n_s, cfg.minibatch):
                    mb = perm[s:s + cfg.minibatch]
                    logits, v = model(obs_t[mb], mask_t[mb])
                    logp_all = torch.log_softmax(logits, 1)
                    lp = logp_all.gather(1, act_t[mb, None]).squeeze(1)
                    ratio = torch.exp(lp - logp_t[mb])
                    a = adv_t[mb]
                    a = (a - a.mean()) / (a.std() + 1e-8) if len(mb) > 1 else a
                    pl = -torch.min(ratio * a, torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip) * a).mean()
                    vl = 0.5 * ((v - ret_t[mb]) ** 2).mean()
                    p = torch.softmax(logits, 1)
                    ent = -(p * logp_all.clamp(min=-1e8)).masked_fill(mask_t[mb] == 0, 0.0).sum(1).mean()
                    loss = pl + cfg.vf_coef * vl - cfg.ent_coef * ent
                    opt.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                    opt.step()
                    with torch.no_grad():
                        kl = (logp_t[mb] - lp).mean().item()
                    for key, val in (("loss", loss.item()), ("policy_loss", pl.item()), ("value_loss", vl.item()),
                                     ("entropy", ent.item()), ("approx_kl", kl)):
                        stats[key] += val
                    n_mb += 1
            for key in stats:
                stats[key] /= max(1, n_mb)
            losses.append(stats["loss"])
            total_dec += dec
            total_collect += collect_s
            total_samples += n_s
            total_eps += cfg.n_envs
            ev = {}
            if cfg.eval_every and (it + 1) % cfg.eval_every == 0:
                ev = evaluate(cfg, model, it)
            it += 1
            if it % cfg.snapshot_every == 0:
                pool.append(_weights(model))
                names.append(f"snapshot_{it}")
                if len(pool) > cfg.pool_size:
                    del pool[1], names[1]
            wall = time.perf_counter() - t_start
            row = {"iteration": it, "wall_s": round(wall, 2), "episodes": total_eps, "decisions": total_dec,
                   "samples": total_samples, "opponent": opp_name, "mean_return": round(float(ret.mean()), 4),
                   **{f: ev.get(f, "") for f in LOG_FIELDS if f.startswith("eval_")},
                   **{k: round(v, 5) for k, v in stats.items()},
                   "decisions_per_s": round(dec / max(1e-9, time.perf_counter() - t_it), 1),
                   "collect_s": round(collect_s, 3), "game_seed": seed0}
            writer.writerow(row)
            fh.flush()
            rows.append(row)
            if progress is not None:
                progress.set_postfix(it=it, ret=f"{row['mean_return']:+.3f}", loss=f"{stats['loss']:.3f}")
                done = it if cfg.max_iterations is not None else int(wall)   # iterations, else seconds
                progress.update(max(0, min(done, progress.total or 10**9) - progress.n))
            if not executor:
                pending = start(it) if runs(it) else None
    wall = time.perf_counter() - t_start
    ppo = time.perf_counter() - t_ppo
    meta.update({"seed": cfg.seed, "iterations": it, "wall_seconds": round(wall, 1), "ppo_seconds": round(ppo, 1),
                 "decisions": total_dec,
                 "samples": total_samples, "episodes": total_eps,
                 "collect_seconds": round(total_collect, 2),
                 "collect_decisions_per_s": round(total_dec / max(1e-9, total_collect), 1)})
    ckpt, jpath = save_checkpoint(model, out / "model.pt", meta)
    png = plot_curve(rows, out / "curve.png")
    return {"checkpoint": str(ckpt), "config": str(jpath), "log": str(csv_path), "curve": png,
            "iterations": it, "wall_seconds": wall, "decisions": total_dec, "samples": total_samples,
            "ppo_seconds": ppo, "decisions_per_s": total_dec / max(1e-9, ppo), "collect_seconds": total_collect,
            "collect_decisions_per_s": total_dec / max(1e-9, total_collect), "losses": losses, "model": model,
            "meta": meta, "rows": rows}


EVAL_OPPONENTS = ("random", "heuristic")


def evaluate(cfg: TrainConfig, model, it: int) -> dict:
    """The greedy learner against each of EVAL_OPPONENTS on ``cfg.eval_deals`` duplicate deals (the
    arena's format; the same deals at every evaluation): win rates with Wilson 95% intervals."""
    from agents import make_agent
    from agents.arena import duplicate_match
    from agents.learned import LearnedAgent

    model.eval()
    learner = LearnedAgent(cfg.game, seed=cfg.seed, model=model, meta={"game": cfg.game})
    out = {}
    for name in EVAL_OPPONENTS:
        opp = make_agent(name, cfg.game, seed=cfg.seed + 1, env_config=cfg.env_config)
        r = duplicate_match(cfg.game, learner, opp, cfg.eval_deals, cfg.env_config, seed=10**9 + cfg.seed)
        lo, hi = r.win_rate_ci
        out[f"eval_vs_{name}"], out[f"eval_vs_{name}_lo"], out[f"eval_vs_{name}_hi"] = (
            round(r.win_rate, 4), round(lo, 4), round(hi, 4))
    model.train()
    return out


def trailing_mean(values, w: int) -> np.ndarray:
    """Each value's mean with the w - 1 before it (fewer at the start: no zeros padded in)."""
    csum = np.concatenate([[0.0], np.cumsum(np.asarray(values, float))])
    end = np.arange(1, len(values) + 1)
    start = np.maximum(end - w, 0)
    return (csum[end] - csum[start]) / (end - start)


def plot_curve(rows, path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    if not rows:
        return None
    x = [r["wall_s"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
    ret = np.array([r["mean_return"] for r in rows], float)
    w = max(1, len(ret) // 20)
    axes[0].plot(x, ret, alpha=0.3, label="each iteration (its opponents)")
    axes[0].plot(x, trailing_mean(ret, w), label=f"mean of the last {w}")
    axes[0].set_title("learner mean return (training games)")
    axes[0].legend(fontsize=7)
    for name, colour in zip(EVAL_OPPONENTS, ("tab:green", "tab:red")):
        ev = [(r["wall_s"], r[f"eval_vs_{name}"], r[f"eval_vs_{name}_lo"], r[f"eval_vs_{name}_hi"])
              for r in rows if r.get(f"eval_vs_{name}", "") != ""]
        if ev:
            t, w, lo, hi = (np.array(c, float) for c in zip(*ev))
            axes[1].plot(t, w, "o-", color=colour, label=f"greedy vs {name}")
            axes[1].fill_between(t, lo, hi, color=colour, alpha=0.2)
    axes[1].axhline(0.5, color="grey", lw=0.8, ls="--")
    axes[1].set_ylim(0, 1)
    axes[1].set_title("duplicate win rate, 95% CI")
    if axes[1].get_legend_handles_labels()[0]:
        axes[1].legend(fontsize=7)
    axes[2].plot(x, [r["entropy"] for r in rows])
    axes[2].set_title("policy entropy")
    for ax in axes:
        ax.set_xlabel("wall seconds")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return str(path)
