"""The residual policy (agents.residual) in Court Piece (agents.courtpiece.residual): search labels, the fit,
the agent, its checkpoints, the CLI."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.arena import duplicate_match  # noqa: E402
from agents.courtpiece.heuristic import CourtPieceHeuristic  # noqa: E402
from agents.courtpiece.residual import CARDS, GAME  # noqa: E402
from agents.residual import (FORMAT, ResidualAgent, build_residual_model, canonical_labels, fit,  # noqa: E402
                             held_out_gain, label_positions, load_residual, save_residual)


@pytest.fixture(scope="module")
def labels():
    return label_positions("courtpiece", {}, seed=0, worker=0, games=3)


def test_labels_are_the_searched_card_plays(labels):
    n = len(labels["obs"])
    assert labels["games"] == 3 and 3 * 20 < n <= 3 * 52      # card plays with a choice, of 3 deals
    rows = np.arange(n)
    assert labels["obs"].shape == (n, 916) and labels["mask"].shape == (n, 60)
    assert not labels["mask"][:, CARDS:].any()                # card play only: calls stay the heuristic's
    assert labels["mask"][rows, labels["prior"]].all()        # the heuristic's card is legal
    assert (labels["adv"][rows, labels["prior"]] == 0).all()  # advantages are relative to it
    assert (labels["adv"][labels["mask"] == 0] == 0).all() and (labels["se"] >= 0).all()
    assert (labels["mask"].sum(axis=1) > 1).all()             # forced plays are not searched
    assert np.abs(labels["adv"]).max() <= 2 * 4 + 1e-6         # rewards are game points
    again = label_positions("courtpiece", {}, seed=0, worker=0, games=1)
    k = len(again["obs"])
    np.testing.assert_array_equal(again["adv"], labels["adv"][:k])   # same seed, same labels


def _planted(labels, reps=20):
    """Labels in which the lowest legal card is worth +0.5 over the heuristic's (0 when it is the same)."""
    data = canonical_labels(GAME, {k: np.concatenate([labels[k]] * reps) for k in ("obs", "mask", "prior", "adv", "se")})
    low = data["mask"][:, :CARDS].argmax(axis=1)
    data["adv"][:] = 0.0
    data["se"][:] = 0.0
    rows = np.arange(len(low))
    data["adv"][rows, low] = np.where(low == data["prior"], 0.0, 0.5)
    return data, low


def test_fit_learns_a_planted_advantage_and_picks_a_margin(labels):
    data, low = _planted(labels)
    torch.set_num_threads(1)
    model, facts = fit(GAME, data, hidden=64, epochs=8, held_out=0.1, log=lambda *_: None)
    assert facts["held_out_loss"] < 0.5 * facts["held_out_loss_zero"]
    assert facts["held_out_gain"] > 0.0 and 0.0 < facts["changed"] <= 1.0
    with torch.no_grad():
        onehot = np.zeros((len(low), 60), np.float32)
        onehot[np.arange(len(low)), data["prior"]] = 1
        pred = model(torch.as_tensor(data["obs"]), torch.as_tensor(onehot)).numpy()
    gain, changed = held_out_gain(pred, data["mask"], data["adv"], facts["margin"])
    assert gain > 0.9 * 0.5 * (low != data["prior"]).mean()


def test_held_out_gain_counts_only_changed_decisions():
    pred = np.array([[0.0, 0.2, -1.0], [0.0, 0.01, 0.0]])
    mask = np.array([[1, 1, 1], [1, 1, 0]])
    label = np.array([[0.0, -0.4, 0.0], [0.0, 1.0, 0.0]])
    assert held_out_gain(pred, mask, label, 0.05) == (-0.2, 0.5)      # row 0 changes and loses 0.4
    assert held_out_gain(pred, mask, label, 0.0) == (0.3, 1.0)


def _zero_agent(tmp_path, margin=0.0):
    model = build_residual_model(916, 60, hidden=8, layers=1)
    for p in model.parameters():
        torch.nn.init.zeros_(p)
    path, _ = save_residual(model, tmp_path / "zero.pt", {"game": "courtpiece", "hidden": 8, "layers": 1,
                                                          "margin": margin})
    return path


def test_a_zero_network_plays_the_heuristic_exactly(tmp_path):
    agent = make_agent(f"learned:{_zero_agent(tmp_path)}", "courtpiece", seed=0)
    assert isinstance(agent, ResidualAgent)
    res = duplicate_match("courtpiece", agent, CourtPieceHeuristic("courtpiece", 1), deals=20, seed=3)
    assert (res.wins, res.losses, res.ties) == (0, 0, 20)


def test_the_network_overrides_card_play_only(tmp_path, labels):
    model = build_residual_model(916, 60, hidden=8, layers=1)
    for p in model.parameters():
        torch.nn.init.zeros_(p)
    with torch.no_grad():                              # every canonical card worth more the lower it is
        model.adv.bias[:CARDS] = torch.as_tensor(0.2 - (np.arange(CARDS) % 13) * 0.01, dtype=torch.float32)
    agent = ResidualAgent("courtpiece", 0, model=model, meta={"margin": 0.0})
    acts = agent.act_batch(labels["obs"], labels["mask"])
    assert labels["mask"][np.arange(len(acts)), acts].all()
    lowest_rank = np.array([min(np.flatnonzero(m[:CARDS]) % 13) for m in labels["mask"]])
    np.testing.assert_array_equal(acts % 13, lowest_rank)       # suits renamed back: a legal lowest card
    assert (acts != labels["prior"]).any()
    call = np.zeros((1, 60), np.uint8)
    call[0, 52:57] = 1                                   # a trump call: the heuristic decides
    obs = np.zeros((1, 916), np.float32)
    assert agent.act_batch(obs, call)[0] == CourtPieceHeuristic("courtpiece", 0).act_batch(obs, call)[0]


def test_checkpoint_round_trip_and_errors(tmp_path):
    path = _zero_agent(tmp_path, margin=0.05)
    model, meta = load_residual(path)
    assert meta["format"] == FORMAT and meta["margin"] == 0.05
    state = torch.load(path, weights_only=True)
    assert set(state) == set(model.state_dict())
    meta_path = path.with_suffix(".json")
    bad = dict(meta, margin="high")
    meta_path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="margin"):
        load_residual(path)
    meta_path.write_text(json.dumps(dict(meta, hidden=9)))
    with pytest.raises(ValueError, match="do not fit"):
        load_residual(path)
    meta_path.write_text(json.dumps(dict(meta, game="chess")))
    with pytest.raises(ValueError, match="play courtpiece, lopti, shengji, not 'chess'"):
        load_residual(path)
    meta_path.write_text(json.dumps(dict(meta, game="lopti")))
    with pytest.raises(ValueError, match="do not fit"):
        load_residual(path)
    meta_path.write_text(json.dumps(dict(meta, scaled="yes")))
    with pytest.raises(ValueError, match="scaled"):
        load_residual(path)
    path.write_bytes(b"not torch")
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="unreadable"):
        load_residual(path)


def test_train_residual_command_writes_a_playable_checkpoint(tmp_path, capsys):
    from cardzoo.cli import main

    out = tmp_path / "run"
    assert main(["train", "courtpiece", "--algo", "residual", "--label-games", "2", "--workers", "1", "--epochs", "1",
                 "--hidden", "16", "--eval-deals", "4", "--out", str(out)]) == 0
    card = (out / "model_card.md").read_text()
    assert "--algo residual" in card and "| heuristic | 4 |" in card and "labelled:" in card
    meta = json.loads((out / "model.json").read_text())
    assert meta["format"] == FORMAT and meta["labelled"]["games"] == 2 and meta["train_config"]["seed"] == 0
    assert isinstance(make_agent(str(out / "model.pt"), "courtpiece", seed=0), ResidualAgent)
    assert not (out / "labels").exists()                       # without --keep-labels, nothing is left


def test_every_game_has_a_residual_trainer_and_others_are_refused():
    from agents.residual import GAMES, residual_game
    from cardzoo.registry import list_games

    assert set(GAMES) == set(list_games())
    with pytest.raises(ValueError, match="residual policies play courtpiece, lopti, shengji, not 'chess'"):
        residual_game("chess")


def test_a_teacher_that_searches_calls_labels_them_and_the_policy_changes_them(tmp_path):
    d = label_positions("courtpiece", {}, seed=0, worker=0, games=6, search="call_samples=16", against="heuristic")
    calls = d["obs"][:, 840] > 0.5                                  # the CALL phase (spec 3.4)
    assert calls.any() and (~calls).any()
    assert not d["mask"][calls][:, :52].any() and not d["mask"][calls][:, 57:].any()   # CP-3: a suit or pass
    assert GAME.decision_kinds({"call_samples": 16}) == ("play", "call")
    assert GAME.decision_kinds({"call_samples": 0}) == ("play",)
    model = build_residual_model(916, 60, hidden=8, layers=1)
    for p in model.parameters():
        torch.nn.init.zeros_(p)
    with torch.no_grad():
        model.adv.bias[56] = 1.0                                    # passing looks best wherever it is legal
    obs, mask = d["obs"][calls].astype(np.float32), d["mask"][calls]
    heuristic = CourtPieceHeuristic("courtpiece", 0).act_batch(obs, mask)
    both = ResidualAgent("courtpiece", 0, model=model, meta={"margin": 0.5, "decisions": ["play", "call"]})
    play_only = ResidualAgent("courtpiece", 0, model=model, meta={"margin": 0.5})
    np.testing.assert_array_equal(both.act_batch(obs, mask), np.where(mask[:, 56] == 1, 56, heuristic))
    np.testing.assert_array_equal(play_only.act_batch(obs, mask), heuristic)   # old checkpoints: calls untouched
    path, _ = save_residual(model, tmp_path / "m.pt", {"game": "courtpiece", "hidden": 8, "layers": 1,
                                                       "decisions": ["play", "bid"]})
    with pytest.raises(ValueError, match="decisions must be a list of play, call"):
        load_residual(path)


def test_the_search_with_a_learned_prior(tmp_path):
    """pimc:prior=<checkpoint>: the prior's move is the default the search must beat; a zero network's
    prior is the heuristic, so every decision and result equals plain pimc's."""
    from agents.arena import play_aec, random_deal

    deal = random_deal("courtpiece", np.random.default_rng(4))
    plain = make_agent("pimc:samples=8,call_samples=0", "courtpiece", seed=1)
    zero = make_agent(f"pimc:samples=8,call_samples=0,prior={_zero_agent(tmp_path)}", "courtpiece", seed=1)
    assert isinstance(zero.prior, ResidualAgent) and plain.prior is plain.fallback
    r_plain, _ = play_aec("courtpiece", [plain, CourtPieceHeuristic("courtpiece", 0)] * 2, {}, deal, seed=2)
    r_zero, _ = play_aec("courtpiece", [zero, CourtPieceHeuristic("courtpiece", 0)] * 2, {}, deal, seed=2)
    np.testing.assert_array_equal(r_plain, r_zero)
    counts = lambda stats: {k: v for k, v in stats.items() if k != "seconds"}  # noqa: E731
    assert counts(plain.stats) == counts(zero.stats) and zero.stats["searched"] > 10
    with pytest.raises(ValueError, match="needs both"):
        make_agent(f"pimc:prior={tmp_path / 'missing.pt'}", "courtpiece", seed=0)


def test_the_searchs_networks_must_be_of_the_game_options_it_plays():
    """pimc:prior= and pimc:policy= checkpoints play the options they were trained on, as learned:
    does: the Mendi Coat network is refused as the prior of a single_sar search, the single_sar
    networks as the prior or rollout policy of a Mendi Coat or Double Sar search."""
    ckpt = "agents/checkpoints/"
    for spec, cfg in ((f"pimc:prior={ckpt}mendi_coat.pt", {}),
                      (f"pimc:prior={ckpt}courtpiece.pt", {"variant": "mendi_coat"}),
                      (f"pimc:policy={ckpt}courtpiece_rollout.pt", {"variant": "double_sar"})):
        with pytest.raises(ValueError, match="was trained on courtpiece with"):
            make_agent(spec, "courtpiece", seed=0, env_config=cfg)
    # the options they were trained on (spelled out or left to the defaults) are accepted
    make_agent(f"pimc:prior={ckpt}mendi_coat.pt", "courtpiece", seed=0, env_config={"variant": "mendi_coat"})
    make_agent(f"pimc:prior={ckpt}courtpiece.pt,policy={ckpt}courtpiece_rollout.pt", "courtpiece", seed=0,
               env_config={"variant": "single_sar"})


def test_a_search_with_a_learned_prior_labels_advantages_over_the_heuristics_move():
    # the search's baseline is its prior's move, but the residual policy starts from the heuristic's:
    # the labels must be relative to the heuristic's move wherever the prior plays another card
    d = label_positions("courtpiece", {}, seed=0, worker=0, games=3,
                        search="prior=agents/checkpoints/courtpiece.pt,samples=8,call_samples=0", against="heuristic")
    obs, mask = d["obs"].astype(np.float32), d["mask"]          # every legal card is searched
    rows = np.arange(len(obs))
    heuristic = CourtPieceHeuristic("courtpiece", 0).act_batch(obs, mask)
    np.testing.assert_array_equal(d["prior"], heuristic)
    assert (d["adv"][rows, d["prior"]] == 0).all()
    prior = make_agent("learned:agents/checkpoints/courtpiece.pt", "courtpiece", 0).act_batch(obs, mask)
    assert (prior != heuristic).any()          # the case the relabelling is for occurs in these deals
