"""`cardzoo train --ray`: self-play rollouts on Ray actors (agents.distributed), learning on the driver.

One test starts a local Ray (2 CPUs) and skips without ray (extra: cardzoo[ray]). A Ray collection is
compared with the same shards collected in-process: the batches are bitwise equal, and a
one-iteration run gives the same losses and weights as the local run with the same seed and workers.
The tests without Ray check the sharding and the install hint."""
from __future__ import annotations

import csv
import json
import sys

import numpy as np
import pytest

pytest.importorskip("courtpiece_env")
torch = pytest.importorskip("torch")

from agents.train import LocalCollector, TrainConfig, _weights, game_seed, merge, shard_bounds, train  # noqa: E402

SMALL = dict(game="courtpiece", seed=5, n_envs=6, hidden=16, epochs=1, minibatch=64, eval_every=0, teacher=None)


def test_shards_cover_the_games_once():
    assert shard_bounds(7, 3) == [(0, 3), (3, 2), (5, 2)]
    assert shard_bounds(4, 1) == [(0, 4)]
    for bad in (0, 5, 1.5, True):
        with pytest.raises(ValueError, match="workers"):
            shard_bounds(4, bad)


def test_merge_keeps_shard_order_and_game_ids():
    def part(games, ret, dec):
        n = len(games)
        return ({"obs": np.zeros((n, 2), np.float32), "act": np.arange(n), "game": np.array(games)},
                np.full(2, ret), dec)

    data, ret, dec = merge([part([0, 1, 1], 1.0, 5), (None, np.zeros(2), 0), part([4, 5], 2.0, 7)])
    assert list(data["game"]) == [0, 1, 1, 4, 5] and list(data["act"]) == [0, 1, 2, 0, 1]
    assert list(ret) == [1, 1, 0, 0, 2, 2] and dec == 12


def test_local_shards_deal_the_same_games():
    """Game b is dealt from the same seed whatever the sharding (only action sampling differs)."""
    first = None
    for workers in (1, 3):
        col = LocalCollector(TrainConfig(**SMALL, workers=workers))
        assert [(w.start, w.size) for w in col.workers] == shard_bounds(6, workers)
        for w in col.workers:
            w.g.reset(seed=game_seed(TrainConfig(**SMALL), 0) + w.start)
        hands = np.concatenate([w.g.observe() for w in col.workers])
        if first is None:
            first = hands
        assert np.array_equal(hands, first)


def test_missing_ray_gives_the_install_command(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)          # import ray -> ImportError
    with pytest.raises(ImportError, match=r"pip install \"cardzoo\[ray\]\""):
        train(TrainConfig(**SMALL, max_iterations=1, ray=True), tmp_path)
    from cardzoo.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["train", "courtpiece", "--ray", "--iterations", "1", "--envs", "4", "--out", str(tmp_path / "x")])
    assert exit_.value.code == 2 and 'pip install "cardzoo[ray]"' in capsys.readouterr().err


def test_ray_one_iteration_collects_like_local_and_checkpoints(tmp_path):
    """One local Ray, one collector of 2 actors (one test, so pytest-xdist starts one Ray): its batches
    equal the same shards collected in-process, and a one-iteration run on it gives the local run's
    losses and weights (same seed and workers) and a checkpoint that plays."""
    pytest.importorskip("ray", reason='ray is not installed (pip install "cardzoo[ray]")')
    import ray

    from agents.distributed import RayCollector, init_ray

    started = init_ray(None, num_cpus=2)
    try:
        remote = RayCollector(TrainConfig(**SMALL, workers=2, ray=True))
        try:
            _collection_equals_local(remote)
            _one_iteration_matches_local(remote, tmp_path)
        finally:
            remote.close()
        assert ray.is_initialized()                 # closing a collector leaves a Ray it did not start
    finally:
        if started:
            ray.shutdown()


def _collection_equals_local(remote):
    from agents.learned import build_model

    cfg = TrainConfig(**SMALL, workers=2, ray=True)
    local = LocalCollector(cfg)
    assert remote.describe()["shards"] == [(0, 3), (3, 3)] and remote.describe()["workers"] == 2
    obs_size, num_actions = local.workers[0].g.observe().shape[1], local.workers[0].g.legal_mask().shape[1]
    torch.manual_seed(0)
    learner = _weights(build_model(obs_size, num_actions, 16, 2))
    opponent = _weights(build_model(obs_size, num_actions, 16, 2))
    for it, opp, all_seats in ((-1, None, True), (0, None, False), (1, opponent, False)):
        a = local.collect(learner, opp, it, game_seed(cfg, it), all_seats)
        b = remote.collect(learner, opp, it, game_seed(cfg, it), all_seats)
        assert a[2] == b[2] > 0 and np.array_equal(a[1], b[1])
        assert set(a[0]) == set(b[0]) == {"obs", "mask", "act", "logp", "val", "game", "rew"}
        for k in a[0]:
            assert a[0][k].shape == b[0][k].shape and a[0][k].dtype == b[0][k].dtype, k
            assert np.array_equal(a[0][k], b[0][k]), k
        assert set(np.unique(a[0]["game"])) <= set(range(6))


def _one_iteration_matches_local(remote, tmp_path):
    from agents import make_agent
    from cardzoo.registry import make_batch

    cfg = TrainConfig(**SMALL, max_iterations=1, workers=2, ray=True)
    res = train(cfg, tmp_path / "ray", collector=remote)
    assert res["iterations"] == 1 and (tmp_path / "ray" / "model.pt").exists()
    meta = json.loads((tmp_path / "ray" / "model.json").read_text())
    assert meta["collection"]["backend"] == "ray" and meta["collection"]["workers"] == 2
    assert meta["collection"]["seed"] == 5 and "SeedSequence" in meta["collection"]["sample_seed"]
    row, = csv.DictReader(open(res["log"]))
    assert int(row["game_seed"]) == game_seed(cfg, 0) and float(row["collect_s"]) > 0

    ref = train(TrainConfig(**SMALL, max_iterations=1, workers=2), tmp_path / "local")
    assert ref["meta"]["collection"]["backend"] == "local"
    assert res["losses"] == ref["losses"] and res["decisions"] == ref["decisions"]
    a = torch.load(tmp_path / "ray" / "model.pt", weights_only=True)
    b = torch.load(tmp_path / "local" / "model.pt", weights_only=True)
    assert all(torch.equal(a[k], b[k]) for k in a)

    bot = make_agent(f"learned:{tmp_path / 'ray' / 'model.pt'}", "courtpiece", seed=0)
    g = make_batch("courtpiece", 4)
    g.reset(seed=0)
    masks = g.legal_mask()
    assert masks[np.arange(4), bot.act_batch(g.observe(), masks)].all()
    with pytest.raises(ValueError, match="shards"):
        train(TrainConfig(**dict(SMALL, n_envs=8), max_iterations=1), tmp_path / "bad", collector=remote)
    with pytest.raises(ValueError, match="seed"):
        train(TrainConfig(**dict(SMALL, seed=6), max_iterations=1), tmp_path / "bad", collector=remote)


def test_cli_train_ray_options(monkeypatch, tmp_path, capsys):
    """--ray / --address / --workers reach TrainConfig (train itself stubbed: no Ray started here)."""
    import types

    import agents.train
    from cardzoo.cli import main

    if "ray" not in sys.modules:
        try:
            import ray  # noqa: F401
        except ImportError:
            monkeypatch.setitem(sys.modules, "ray", types.ModuleType("ray"))
    seen = []

    def fake_train(cfg, out, progress=None, log=print, collector=None):
        seen.append(cfg)
        return {"rows": [], "iterations": 0, "wall_seconds": 0.0, "ppo_seconds": 0.0, "decisions": 0, "decisions_per_s": 0.0,
                "collect_decisions_per_s": 0.0, "samples": 0, "checkpoint": str(out), "log": "", "curve": None,
                "meta": {"collection": {"backend": "ray" if cfg.ray or cfg.ray_address else "local",
                                        "workers": cfg.workers}}}

    monkeypatch.setattr(agents.train, "train", fake_train)
    base = ["train", "courtpiece", "--iterations", "1", "--envs", "4", "--out", str(tmp_path)]
    assert main(base + ["--ray", "--workers", "2"]) == 0
    assert main(base + ["--address", "ray://head:10001"]) == 0
    assert main(base) == 0
    assert [(c.ray, c.ray_address, c.workers, c.max_iterations) for c in seen] == [
        (True, None, 2, 1), (True, "ray://head:10001", None, 1), (False, None, None, 1)]
    with pytest.raises(SystemExit) as exit_:
        main(base + ["--ray", "--workers", "5"])
    assert exit_.value.code == 2 and "--workers" in capsys.readouterr().err
