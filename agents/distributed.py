"""Self-play rollout collection on Ray actors: ``cardzoo train <game> --ray [--address ADDR] [--workers N]``.

``RayCollector`` is ``agents.train.LocalCollector`` with each shard in a Ray actor: every actor is an
``agents.train.RolloutWorker`` (its own ``BatchGame`` of ``n_envs / workers`` games and copies of the
learner and opponent networks, one torch thread). Each iteration the driver puts the learner's and
the opponent's weights in the object store once (``ray.put``), every actor plays its games with
``RolloutWorker.collect`` — the same routine the local trainer runs in-process — and the driver
gathers the batches, merges them (``agents.train.merge``) and learns. Shard sizes, game seeds and
sampling seeds do not depend on where a shard runs, so a Ray run and a local run with the same
``seed`` and ``workers`` collect the same batches.

No address: a new local Ray (``ray.init(address="local", num_cpus=max(workers, cores))``, on
127.0.0.1, no dashboard) started and shut down by the trainer; its workers import cardzoo as the driver does (installed, or Ray's own addition
of the driver's working directory to their ``sys.path``). With
an address (``auto``, ``host:6379`` or ``ray://host:10001``) the trainer joins that cluster, whose
nodes need cardzoo installed (``pip install "cardzoo[train,ray]"``), and leaves it running. An
already initialised Ray (``ray.init`` called by your code) is used as it is. Ray's usage-stats
reporting is off unless ``RAY_USAGE_STATS_ENABLED`` is set.
"""
from __future__ import annotations

import os

from agents.train import RolloutWorker, TrainConfig, _worker_args, _worker_kwargs, merge

INSTALL_HINT = 'Ray is not installed: pip install "cardzoo[ray]"  (Ray core, ray==2.60.0)'
READY_TIMEOUT_S = 300.0


def require_ray():
    """The ``ray`` module, or ImportError with the install command."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    return ray


def init_ray(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Start (no address) or join a Ray cluster unless Ray is initialised already; True when this call did
    it (and the caller should ``ray.shutdown()``)."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        # "local": always a new instance (not a `ray start` cluster that ray.init() would otherwise find),
        # reachable on the loopback address only
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                 _node_ip_address="127.0.0.1")
    return True


class RayCollector:
    """The shards of ``agents.train`` on Ray actors (one CPU each); same interface as LocalCollector."""

    backend = "ray"

    def __init__(self, cfg: TrainConfig, log=print):
        ray = require_ray()
        self.ray = ray
        local = not cfg.ray_address
        self.started = init_ray(cfg.ray_address, max(cfg.workers or 1, os.cpu_count() or 1) if local else None)
        self.actors = []
        try:
            cpus = int(ray.cluster_resources().get("CPU", 1))
            workers = cfg.workers or max(1, min(cpus, cfg.n_envs))
            self.address = cfg.ray_address or ("local" if self.started else "existing")
            Worker = ray.remote(num_cpus=1)(RolloutWorker)
            args = _worker_args(cfg, workers)
            self.workers, self.game, self.seed = workers, cfg.game, cfg.seed
            self.shards = [(a[4], a[5]) for a in args]
            self.actors = [Worker.remote(*a, threads=1, **_worker_kwargs(cfg)) for a in args]
            try:
                ray.get([a.ready.remote() for a in self.actors], timeout=READY_TIMEOUT_S)
            except ray.exceptions.GetTimeoutError:
                raise RuntimeError(f"Ray did not start {workers} rollout actors (1 CPU each) within "
                                   f"{READY_TIMEOUT_S:.0f} s; the cluster has {cpus} CPUs: lower --workers") from None
            log(f"ray: {workers} rollout actor(s) on {self.address} cluster ({cpus} CPUs)")
        except BaseException:
            self.close()
            raise

    def collect(self, weights, opponent_weights, iteration, seed0, all_seats=False):
        ray = self.ray
        w = ray.put(weights)
        o = None if opponent_weights is None else ray.put(opponent_weights)
        return merge(ray.get([a.collect.remote(w, o, iteration, seed0, all_seats) for a in self.actors]))

    def describe(self) -> dict:
        return {"backend": self.backend, "workers": self.workers, "shards": self.shards, "game": self.game,
                "seed": self.seed, "ray_address": self.address}

    def close(self) -> None:
        for a in self.actors:
            try:
                self.ray.kill(a)
            except Exception:  # noqa: BLE001 (an actor already gone)
                pass
        self.actors = []
        if self.started:
            self.ray.shutdown()
            self.started = False
