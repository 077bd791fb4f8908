"""The residual policy (agents.residual) in LOPTI (agents.lopti.residual): search labels over the pruned
candidates (LO-5, LO-6), the scaled fit, the agent, the CLI."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.arena import duplicate_match  # noqa: E402
from agents.lopti.heuristic import PICKUP, LoptiHeuristic  # noqa: E402
from agents.lopti.residual import GAME  # noqa: E402
from agents.lopti.search import LoptiSearch, play_candidates  # noqa: E402
from agents.residual import (MARGINS, ResidualAgent, build_residual_model, canonical_labels, fit, label_positions,  # noqa: E402
                             load_residual, save_residual)

OBS, ACTIONS = 309, 140


@pytest.fixture(scope="module")
def labels():
    return label_positions("lopti", {}, seed=0, worker=0, games=2)


def test_labels_are_the_searched_play_decisions(labels):
    n = len(labels["obs"])
    rows = np.arange(n)
    assert labels["games"] == 2 and n > 50
    assert labels["obs"].shape == (n, OBS) and labels["mask"].shape == (n, ACTIONS)
    assert (np.rint(labels["obs"][:, 0]) == 1).all()              # PLAY phase only: swaps stay the heuristic's
    assert labels["mask"][rows, labels["prior"]].all()            # the heuristic's move is searched
    assert (labels["mask"].sum(axis=1) > 1).all()                 # forced moves are not searched
    assert (labels["adv"][rows, labels["prior"]] == 0).all()      # advantages are relative to it
    assert (labels["adv"][labels["mask"] == 0] == 0).all() and (labels["se"] >= 0).all()
    assert np.abs(labels["adv"]).max() <= 2 + 1e-6                 # rank rewards lie in [-1, 1] (§5)
    assert (labels["adv"] != 0).any()
    again = label_positions("lopti", {}, seed=0, worker=0, games=1)
    k = len(again["obs"])
    np.testing.assert_array_equal(again["adv"], labels["adv"][:k])   # same seed, same labels


def test_the_candidates_are_the_searched_actions(labels):
    search = LoptiSearch("lopti", seed=0)
    cand = GAME.candidates(labels["obs"].astype(np.float32), labels["mask"], labels["prior"])
    for o, m, h, c in zip(labels["obs"], labels["mask"], labels["prior"], cand):
        legal = np.flatnonzero(m)
        np.testing.assert_array_equal(np.flatnonzero(c), search.candidates(o, legal, int(h)))
        assert set(np.flatnonzero(c)) <= set(legal) and c[h]
    # per rank the fewest and the most cards and the set-completing count, one flip, the pickup
    obs = np.zeros(OBS, np.float32)
    legal = [4 * 3 + 0, 4 * 3 + 1, 4 * 3 + 2, 4 * 5 + 0, 53, 54, PICKUP]
    assert list(play_candidates(obs, legal, 4 * 3 + 0)) == [12, 14, 20, PICKUP, 53]


def test_the_fit_scales_counts_and_the_checkpoint_keeps_the_scale(labels, tmp_path):
    data = canonical_labels(GAME, {k: labels[k] for k in ("obs", "mask", "prior", "adv", "se")})
    torch.set_num_threads(1)
    model, facts = fit(GAME, data, hidden=16, epochs=1, held_out=0.2, log=lambda *_: None)
    scale = model.obs_scale.numpy()
    assert scale.min() >= 1.0 and scale.max() >= 10            # hand and pile sizes are counts
    assert facts["margin"] in MARGINS
    path, _ = save_residual(model, tmp_path / "m.pt", {"game": "lopti", "hidden": 16, "layers": 2, "scaled": True,
                                                       "margin": facts["margin"]})
    again, meta = load_residual(path)
    np.testing.assert_array_equal(again.obs_scale.numpy(), scale)
    meta_path = path.with_suffix(".json")
    meta_path.write_text(json.dumps(dict(meta, scaled=False)))
    with pytest.raises(ValueError, match="do not fit"):
        load_residual(path)


def _model(pickup_bias: float = 0.0):
    model = build_residual_model(OBS, ACTIONS, hidden=8, layers=1, scaled=True)
    for p in model.parameters():
        torch.nn.init.zeros_(p)
    with torch.no_grad():
        model.adv.bias[PICKUP] = pickup_bias
    return model


def test_a_zero_network_plays_the_heuristic_exactly(tmp_path):
    path, _ = save_residual(_model(), tmp_path / "zero.pt", {"game": "lopti", "hidden": 8, "layers": 1,
                                                             "scaled": True, "margin": 0.0})
    agent = make_agent(f"learned:{path}", "lopti", seed=0)
    assert isinstance(agent, ResidualAgent)
    res = duplicate_match("lopti", agent, LoptiHeuristic("lopti", 1), deals=5, seed=3)
    assert res.wins == res.losses == 0 and res.ties > 0
    with pytest.raises(ValueError, match="cannot play 'courtpiece'"):
        ResidualAgent("courtpiece", 0, model=_model(), meta={"game": "lopti"})


def test_the_network_changes_play_decisions_among_the_candidates_only(labels):
    agent = ResidualAgent("lopti", 0, model=_model(pickup_bias=1.0), meta={"game": "lopti", "margin": 0.5})
    obs, masks = labels["obs"].astype(np.float32), labels["mask"]
    acts = agent.act_batch(obs, masks)
    prior = LoptiHeuristic("lopti", 0).act_batch(obs, masks)
    pickup = masks[:, PICKUP] == 1
    assert pickup.any() and (~pickup).any()
    np.testing.assert_array_equal(acts, np.where(pickup, PICKUP, prior))     # a pickup is always a candidate
    swap = obs[:1].copy()
    swap[0, 0] = 0                                                            # not the PLAY phase
    m = np.zeros((1, ACTIONS), np.uint8)
    m[0, [PICKUP, 60, 95]] = 1
    assert agent.act_batch(swap, m)[0] == LoptiHeuristic("lopti", 0).act_batch(swap, m)[0]


def test_train_residual_lopti_command(tmp_path):
    from cardzoo.cli import main

    out = tmp_path / "run"
    assert main(["train", "lopti", "--algo", "residual", "--label-games", "1", "--workers", "1", "--epochs", "1",
                 "--hidden", "16", "--keep-labels", "--out", str(out)]) == 0
    meta = json.loads((out / "model.json").read_text())
    assert meta["game"] == "lopti" and meta["scaled"] is True and meta["teacher"] == "pimc"
    assert (out / "labels" / "labels_0.npz").is_file()                        # --keep-labels
    assert isinstance(make_agent(str(out / "model.pt"), "lopti", seed=0), ResidualAgent)


def test_labels_against_the_heuristic_come_from_the_search_seats_only():
    d = label_positions("lopti", {}, seed=1, worker=0, games=1, against="heuristic")
    assert set(np.rint(d["obs"][:, 4]).astype(int)) == {0, 2}        # deal 0: the search holds seats 0 and 2
    with pytest.raises(ValueError, match="label against search or heuristic, not 'random'"):
        label_positions("lopti", {}, seed=1, worker=0, games=1, against="random")


def test_a_fit_on_the_labels_an_earlier_run_kept(tmp_path):
    from cardzoo.cli import main

    first, second = tmp_path / "first", tmp_path / "second"
    assert main(["train", "lopti", "--algo", "residual", "--label-games", "1", "--workers", "1", "--epochs", "1",
                 "--hidden", "16", "--keep-labels", "--out", str(first)]) == 0
    assert main(["train", "lopti", "--algo", "residual", "--labels-from", str(first), "--epochs", "1",
                 "--hidden", "32", "--out", str(second)]) == 0
    a, b = (json.loads((d / "model.json").read_text()) for d in (first, second))
    assert b["labelled"]["decisions"] == a["labelled"]["decisions"] and b["labelled"]["labels_from"] == str(first)
    assert b["labelled"]["games"] == 1 and b["teacher"] == a["teacher"] and b["hidden"] == 32
    assert not (second / "labels").exists()
    assert "by the run in" in (second / "model_card.md").read_text()
    refused = tmp_path / "refused"
    with pytest.raises(SystemExit):
        main(["train", "lopti", "--algo", "residual", "--labels-from", str(first), "--set", "num_players=3",
              "--out", str(refused)])
    with pytest.raises(SystemExit):
        main(["train", "lopti", "--algo", "residual", "--labels-from", str(second), "--out", str(refused)])
    assert not refused.exists()                                   # a refused run leaves no folder


def test_an_ensemble_fit_plays_the_mean_of_its_members(labels, tmp_path):
    data = canonical_labels(GAME, {k: labels[k] for k in ("obs", "mask", "prior", "adv", "se")})
    torch.set_num_threads(1)
    quiet = {"hidden": 16, "epochs": 1, "held_out": 0.2, "log": lambda *_: None}
    single, _ = fit(GAME, data, **quiet)
    pair, facts = fit(GAME, data, members=2, **quiet)
    first, second = pair.members
    for name, w in single.state_dict().items():                 # member 0 is the plain fit, weight for weight
        assert torch.equal(first.state_dict()[name], w)
    assert not torch.equal(first.body[0].weight, second.body[0].weight)   # member 1 starts elsewhere
    obs = torch.as_tensor(data["obs"][:20])
    prior = torch.as_tensor(np.eye(ACTIONS, dtype=np.float32)[data["prior"][:20]])
    with torch.no_grad():
        torch.testing.assert_close(pair(obs, prior), (first(obs, prior) + second(obs, prior)) / 2)
    assert [h.get("member") for h in facts["epochs"]] == [0, 1]
    path, _ = save_residual(pair, tmp_path / "pair.pt", {"game": "lopti", "hidden": 16, "layers": 2, "scaled": True,
                                                         "members": 2, "margin": facts["margin"]})
    again, meta = load_residual(path)
    with torch.no_grad():
        torch.testing.assert_close(again(obs, prior), pair(obs, prior))
    path.with_suffix(".json").write_text(json.dumps(dict(meta, members=3)))
    with pytest.raises(ValueError, match="members=3"):
        load_residual(path)
    path.with_suffix(".json").write_text(json.dumps(dict(meta, members=0)))
    with pytest.raises(ValueError, match="members=0"):
        load_residual(path)


def test_train_residual_with_an_ensemble(tmp_path):
    from cardzoo.cli import main

    out = tmp_path / "run"
    assert main(["train", "lopti", "--algo", "residual", "--label-games", "1", "--workers", "1", "--epochs", "1",
                 "--hidden", "16", "--ensemble", "2", "--out", str(out)]) == 0
    meta = json.loads((out / "model.json").read_text())
    assert meta["members"] == 2 and meta["train_config"]["members"] == 2
    assert "for each of 2 networks" in (out / "model_card.md").read_text()
    agent = make_agent(f"learned:{out / 'model.pt'}", "lopti", seed=0)
    assert isinstance(agent, ResidualAgent) and len(agent.model.members) == 2


def test_a_fit_whose_every_margin_loses_keeps_the_heuristic():
    """Where each margin's held-out gain is negative, the fit picks NEVER: the policy changes nothing."""
    from agents.residual import NEVER, best_margin, held_out_gain

    pred = np.array([[0.0, 0.3], [0.0, 0.25]])              # the network wants the second move in both
    mask = np.ones_like(pred)
    labels = np.array([[0.0, -1.0], [0.0, -0.5]])          # and the labels say that loses
    gains = {m: held_out_gain(pred, mask, labels, m) for m in MARGINS}
    assert best_margin(gains) == NEVER and gains[NEVER] == (0.0, 0.0)
    gains[0.02] = (0.001, 0.1)                              # one margin that gains: that one
    assert best_margin(gains) == 0.02
