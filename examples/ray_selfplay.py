"""Self-play PPO with rollouts collected on Ray workers: agents.train's pieces, scaled out.

    pip install "cardzoo[train]" "ray==2.60.0"
    python examples/ray_selfplay.py --game courtpiece --variant single_sar --workers 4 --iterations 50

Each Ray actor owns a `BatchGame` of `--envs` games and plays whole episodes with
`agents.train.play_episodes` (the same routine `cardzoo train` uses): the learner holds one side —
a team in Court Piece and Sheng Ji, one seat in LOPTI — and an opponent from the pool the rest (the
uniform random policy, then frozen snapshots of the learner). The driver broadcasts the weights with
`ray.put` once per iteration, merges the workers' buffers, computes advantages with
`agents.train.gae` and runs clipped PPO. The checkpoint is in the agents' format, so
`agents.make_agent("learned:<out>/model.pt", game)` and `cardzoo arena` play it.

Ray core only (no RLlib): the per-game work stays in the numba kernels, Ray just multiplies it by the
number of cores (or machines: `ray.init(address="auto")`).
"""
from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np


def learner_seats(game: str, n_players: int, n_envs: int, iteration: int) -> np.ndarray:
    """bool[n_envs, n_players]: the learner's seats in each game (sides alternate by game and iteration)."""
    from agents.arena import TEAM_GAMES

    seats = np.zeros((n_envs, n_players), bool)
    for b in range(n_envs):
        if game in TEAM_GAMES:
            k = (b + iteration) % 2
            seats[b, [s for s in range(n_players) if s % 2 == k]] = True
        else:
            seats[b, (b + iteration) % n_players] = True
    return seats


class RolloutWorker:
    """One Ray actor: a BatchGame and CPU copies of the learner and opponent networks."""

    def __init__(self, game: str, env_config: dict, n_envs: int, hidden: int, layers: int, seed: int):
        import torch

        from agents.arena import num_players
        from agents.learned import build_model
        from cardzoo.registry import make_batch

        torch.set_num_threads(1)
        self.torch = torch
        self.game, self.n_envs = game, n_envs
        self.n_players = num_players(game, env_config)
        self.g = make_batch(game, n_envs, **env_config)
        self.g.reset(seed=seed)
        obs_size, num_actions = self.g.observe().shape[1], self.g.legal_mask().shape[1]
        self.model = build_model(obs_size, num_actions, hidden, layers)
        self.opponent = build_model(obs_size, num_actions, hidden, layers)
        self.gen = torch.Generator().manual_seed(seed)
        self.rng = np.random.default_rng(seed)

    def collect(self, weights, opponent_weights, iteration: int, seed: int):
        from agents.train import play_episodes

        self.model.load_state_dict(weights)
        opponent = None
        if opponent_weights is not None:
            self.opponent.load_state_dict(opponent_weights)
            opponent = self.opponent
        learner = learner_seats(self.game, self.n_players, self.n_envs, iteration)
        return play_episodes(self.torch, self.g, self.model, opponent, learner, seed, self.gen, self.rng)


def merge(results, n_envs: int) -> tuple[dict, np.ndarray, int]:
    """Concatenate the workers' buffers; game ids made distinct so GAE never joins two games."""
    parts, rets, decisions = [], [], 0
    for w, (data, ret, dec) in enumerate(results):
        rets.append(ret)
        decisions += dec
        if data is not None:
            data = dict(data)
            data["game"] = data["game"] + w * n_envs
            parts.append(data)
    merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return merged, np.concatenate(rets), decisions


def ppo_update(torch, model, opt, data, adv, rets, gen, epochs=4, minibatch=1024, clip=0.2,
               ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5) -> dict:
    obs = torch.as_tensor(data["obs"])
    mask = torch.as_tensor(data["mask"].astype(np.int8))
    act = torch.as_tensor(data["act"])
    old_logp = torch.as_tensor(data["logp"])
    adv_t, ret_t = torch.as_tensor(adv), torch.as_tensor(rets)
    n = len(adv)
    stats = {"loss": 0.0, "entropy": 0.0}
    steps = 0
    for _ in range(epochs):
        perm = torch.randperm(n, generator=gen)
        for s in range(0, n, minibatch):
            mb = perm[s:s + minibatch]
            logits, v = model(obs[mb], mask[mb])
            logp_all = torch.log_softmax(logits, 1)
            lp = logp_all.gather(1, act[mb, None]).squeeze(1)
            ratio = torch.exp(lp - old_logp[mb])
            a = adv_t[mb]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(mb) > 1 else a
            pl = -torch.min(ratio * a, torch.clamp(ratio, 1 - clip, 1 + clip) * a).mean()
            vl = 0.5 * ((v - ret_t[mb]) ** 2).mean()
            ent = -(torch.softmax(logits, 1) * logp_all.clamp(min=-1e8)).masked_fill(mask[mb] == 0, 0.0).sum(1).mean()
            loss = pl + vf_coef * vl - ent_coef * ent
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            opt.step()
            stats["loss"] += loss.item()
            stats["entropy"] += ent.item()
            steps += 1
    return {k: v / max(1, steps) for k, v in stats.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="courtpiece")
    parser.add_argument("--variant", default=None, help="Court Piece variant (default: the game's default)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--envs", type=int, default=128, help="games per worker per iteration")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--snapshot-every", type=int, default=5)
    parser.add_argument("--pool-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/ray_selfplay")
    args = parser.parse_args(argv)

    import ray
    import torch

    from agents.learned import build_model, save_checkpoint
    from agents.train import gae

    env_config = {} if args.variant is None else {"variant": args.variant}
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    try:
        module = sys.modules.get(RolloutWorker.__module__)   # None when loaded from a file path: by value anyway
        if module is not None and module.__name__ != "__main__":   # workers cannot import this file: ship it
            import cloudpickle

            cloudpickle.register_pickle_by_value(module)
        Worker = ray.remote(num_cpus=1)(RolloutWorker)
        workers = [Worker.remote(args.game, env_config, args.envs, args.hidden, args.layers, args.seed + 7919 * w)
                   for w in range(args.workers)]
        torch.manual_seed(args.seed)
        torch.set_num_threads(1)
        gen = torch.Generator().manual_seed(args.seed)
        rng = np.random.default_rng(args.seed)
        probe = RolloutWorker(args.game, env_config, 1, 8, 1, args.seed)
        obs_size, num_actions = probe.g.observe().shape[1], probe.g.legal_mask().shape[1]
        model = build_model(obs_size, num_actions, args.hidden, args.layers)
        opt = torch.optim.Adam(model.parameters(), lr=args.lr, eps=1e-5)
        pool, names = [None], ["random"]
        t0 = time.perf_counter()
        decisions_total = 0
        for it in range(args.iterations):
            k = len(pool) - 1 if (len(pool) > 1 and rng.random() < 0.5) else int(rng.integers(len(pool)))
            weights = ray.put({k2: v.detach().clone() for k2, v in model.state_dict().items()})
            opp = None if pool[k] is None else ray.put(pool[k])
            seed = args.seed * 1_000_003 + (it + 1) * args.envs * args.workers
            results = ray.get([w.collect.remote(weights, opp, it, seed + i * args.envs)
                               for i, w in enumerate(workers)])
            data, ret, dec = merge(results, args.envs)
            if it == 0:   # observation scale from the first sample, as agents.train does
                peak = np.abs(data["obs"]).max(axis=0)
                model.obs_scale.copy_(torch.as_tensor(1.0 / np.maximum(peak, 1.0), dtype=torch.float32))
                data["logp"], data["val"] = _relabel(torch, model, data)
            adv, rets = gae(data, 1.0, 0.95)
            stats = ppo_update(torch, model, opt, data, adv, rets, gen)
            decisions_total += dec
            if (it + 1) % args.snapshot_every == 0:
                pool.append({k2: v.detach().clone() for k2, v in model.state_dict().items()})
                names.append(f"snapshot_{it + 1}")
                if len(pool) > args.pool_size:
                    del pool[1], names[1]
            wall = time.perf_counter() - t0
            print(f"iter {it + 1}: vs {names[k]:12s} mean return {ret.mean():+.3f}  loss {stats['loss']:.3f}  "
                  f"entropy {stats['entropy']:.3f}  {decisions_total / wall:.0f} decisions/s", flush=True)
        meta = {"game": args.game, "env_config": env_config, "obs_size": int(obs_size),
                "num_actions": int(num_actions), "hidden": args.hidden, "layers": args.layers,
                "iterations": args.iterations, "decisions": decisions_total, "trainer": "examples/ray_selfplay.py"}
        ckpt, _ = save_checkpoint(copy.deepcopy(model), Path(args.out) / "model.pt", meta)
        print("checkpoint:", ckpt)
    finally:
        if started:
            ray.shutdown()
    return 0


def _relabel(torch, model, data):
    """log-probabilities and values of the recorded actions under the rescaled model."""
    with torch.no_grad():
        logits, v = model(torch.as_tensor(data["obs"]), torch.as_tensor(data["mask"].astype(np.int8)))
        logp = torch.log_softmax(logits, 1).gather(1, torch.as_tensor(data["act"])[:, None]).squeeze(1)
    return logp.numpy(), v.numpy()


if __name__ == "__main__":
    sys.exit(main())
