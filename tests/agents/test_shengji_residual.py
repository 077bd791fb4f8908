"""The residual policy (agents.residual) in Sheng Ji (agents.shengji.residual): search labels over whole
candidate plays, the card grid by effective suit and position (SJ-3.3, SJ-3.4), the play-feature
network, the agent that emits its chosen play card by card, the CLI."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.arena import duplicate_match  # noqa: E402
from agents.residual import build_residual_model, canonical_labels, fit, label_positions, load_residual, save_residual  # noqa: E402
from agents.shengji.heuristic import HAND, HAND_LEVEL, LEAD_COUNT, PHASE, SEL, TRUMP, ShengJiHeuristic  # noqa: E402
from agents.shengji.residual import (CELLS, GAME, PLAY_FEATURES, SLOTS, ShengJiResidualAgent,  # noqa: E402
                                     card_cells)
from cardzoo.cards import card_index  # noqa: E402

LEAD, FOLLOW = 3, 4
SMALL_SEARCH = "samples=2,rollouts=1"


@pytest.fixture(scope="module")
def labels():
    return label_positions("shengji", {}, seed=0, worker=0, games=1, search=SMALL_SEARCH, against="heuristic")


def test_labels_are_whole_plays_at_the_first_step_of_leads_and_follows(labels):
    n = len(labels["obs"])
    rows = np.arange(n)
    assert labels["games"] == 1 and n > 20
    assert labels["plays"].shape == (n, SLOTS, 54) and labels["mask"].shape == (n, SLOTS)
    obs = labels["obs"].astype(np.float32)
    phase = np.argmax(obs[:, PHASE:PHASE + 6], axis=1)
    assert set(phase) == {LEAD, FOLLOW}
    assert (obs[:, SEL:SEL + 54].sum(axis=1) == 0).all()               # no composition started
    assert labels["mask"][rows, labels["prior"]].all()                 # the heuristic's play is searched
    assert (labels["mask"].sum(axis=1) > 1).all()
    assert (labels["adv"][rows, labels["prior"]] == 0).all()
    assert (labels["adv"][labels["mask"] == 0] == 0).all() and (labels["se"] >= 0).all()
    plays = labels["plays"].astype(np.int64)
    size = plays.sum(axis=2)
    assert ((size > 0) == (labels["mask"] == 1)).all()                 # a searched slot holds a play, the rest none
    assert (plays <= np.rint(obs[:, None, HAND:HAND + 54]).astype(np.int64)).all()   # from the hand
    follow = phase == FOLLOW
    led = np.rint(obs[follow, LEAD_COUNT]).astype(np.int64)
    assert ((size[follow] == led[:, None]) | (labels["mask"][follow] == 0)).all()   # SJ-8.1: as many cards as led
    for s in range(SLOTS):                                             # the slots hold different plays
        same = (plays == plays[:, s:s + 1]).all(axis=2) & (labels["mask"] == 1)
        assert (same.sum(axis=1)[labels["mask"][:, s] == 1] == 1).all()
    again = label_positions("shengji", {}, seed=0, worker=0, games=1, search=SMALL_SEARCH, against="heuristic")
    np.testing.assert_array_equal(again["adv"], labels["adv"])         # same seed, same labels
    np.testing.assert_array_equal(again["plays"], labels["plays"])


def _obs(level: str, trump: int) -> np.ndarray:
    """An observation row with the hand level (a rank) and trump (0..3 a suit, 4 NT)."""
    o = np.zeros((1, 938), np.float32)
    o[0, HAND_LEVEL] = "23456789TJQKA".index(level)
    o[0, TRUMP + trump] = 1.0
    return o


def test_card_cells_follow_effective_suit_and_position():
    cells = card_cells(_obs("T", 3))[0]              # level 10, spades trump
    c = {t: cells[card_index(t, jokers=True)] for t in ("TH", "TS", "TC", "AS", "9S", "JS", "AH", "9H", "JH", "2C",
                                                       "LJ", "BJ")}
    trump = 4 * 16
    assert c["TH"] == c["TC"] == trump + 12                 # SJ-3.4: off-suit level cards, equal
    assert c["TS"] == trump + 13                            # the trump suit's level card
    assert (c["LJ"], c["BJ"]) == (trump + 14, trump + 15)
    assert (c["9S"], c["JS"], c["AS"]) == (trump + 7, trump + 8, trump + 11)    # the level rank left out
    assert (c["9H"], c["JH"], c["AH"]) == (2 * 16 + 7, 2 * 16 + 8, 2 * 16 + 11)  # SJ-3.3: hearts stay hearts
    assert c["2C"] == 0
    nt = card_cells(_obs("2", 4))[0]                        # level 2, no trump
    level_cells = {nt[card_index(t)] for t in ("2C", "2D", "2H", "2S")}
    assert level_cells == {trump + 13}                      # every level card in NT: 13
    assert nt[card_index("3S")] == 3 * 16 + 0 and nt[card_index("AS")] == 3 * 16 + 11


def test_model_inputs_put_the_plays_and_the_table_on_the_grid(labels):
    x, feats = GAME.model_inputs(labels, np.arange(len(labels["obs"])))
    assert x.shape == (len(labels["obs"]), GAME.obs_size) and feats.shape == (len(labels["obs"]), SLOTS, PLAY_FEATURES)
    obs = labels["obs"].astype(np.float32)
    np.testing.assert_array_equal(x[:, :938], obs)
    hand_grid = x[:, 938:938 + CELLS]
    np.testing.assert_allclose(hand_grid.sum(axis=1), obs[:, HAND:HAND + 54].sum(axis=1))
    np.testing.assert_allclose(feats[:, :, :CELLS].sum(axis=2), labels["plays"].sum(axis=2))
    np.testing.assert_allclose(feats[:, :, CELLS + 1], labels["plays"].sum(axis=2) / 4.0)


def _model(points_weight: float = 0.0):
    """A play-feature network that scores a play by its points (zero: no play beats another)."""
    model = build_residual_model(GAME.obs_size, SLOTS, hidden=8, layers=1, scaled=True, play_features=PLAY_FEATURES)
    for p in model.parameters():
        torch.nn.init.zeros_(p)
    with torch.no_grad():
        model.from_play.weight[0, CELLS] = points_weight
        model.value.weight[0, 0] = 1.0
    return model


def _meta(margin=0.0):
    return {"game": "shengji", "hidden": 8, "layers": 1, "scaled": True, "margin": margin}


def test_a_zero_network_plays_the_heuristic_exactly(tmp_path):
    path, _ = save_residual(_model(), tmp_path / "zero.pt", _meta())
    agent = make_agent(f"learned:{path}", "shengji", seed=0)
    assert isinstance(agent, ShengJiResidualAgent)
    res = duplicate_match("shengji", agent, ShengJiHeuristic("shengji", 1), deals=2, seed=3)
    assert res.wins == res.losses == 0 and res.ties == 2


def test_the_network_picks_among_the_candidates_above_the_margin():
    agent = ShengJiResidualAgent("shengji", 0, model=_model(points_weight=1.0), meta=_meta())
    obs = np.zeros(938, np.float32)
    obs[TRUMP + 0] = 1.0
    plays = np.zeros((3, 54), np.int64)
    plays[0, card_index("3D")] = 1            # the heuristic's: no points
    plays[1, card_index("KD")] = 1            # 10 points
    plays[2, card_index("5D")] = 1            # 5 points
    assert agent.pick(obs, list(plays), 0) == 1
    assert agent.pick(obs, list(plays), 1) == 1                       # nothing beats the heuristic's
    cautious = ShengJiResidualAgent("shengji", 0, model=_model(points_weight=1.0), meta=_meta(margin=1.0))
    assert cautious.pick(obs, list(plays), 0) == 0                    # 0.4 does not clear the margin 1.0


def test_a_changed_play_is_emitted_card_by_card_and_legally():
    greedy = ShengJiResidualAgent("shengji", 0, model=_model(points_weight=1.0), meta=_meta())
    res = duplicate_match("shengji", greedy, ShengJiHeuristic("shengji", 1), deals=3, seed=5)
    zero = duplicate_match("shengji", ShengJiResidualAgent("shengji", 0, model=_model(), meta=_meta()),
                           ShengJiHeuristic("shengji", 1), deals=3, seed=5)
    assert res.deals == 3 and zero.ties == 3
    assert (res.wins, res.ties, res.losses) != (0, 3, 0)              # feeding points changed some games
    fresh = ShengJiResidualAgent("shengji", 0, model=_model(), meta=_meta())
    with pytest.raises(ValueError, match="plays in the AEC env"):
        fresh.act(np.zeros(938, np.float32), np.ones(84, np.uint8))


def test_the_fit_and_the_checkpoint(labels, tmp_path):
    data = canonical_labels(GAME, dict(labels))
    assert data["obs"].dtype == np.float16                            # inputs are built per minibatch
    torch.set_num_threads(1)
    model, facts = fit(GAME, data, hidden=16, epochs=1, held_out=0.2, log=lambda *_: None)
    assert model.obs_scale.shape == (GAME.obs_size,) and model.obs_scale.min() >= 1.0
    path, _ = save_residual(model, tmp_path / "m.pt", dict(_meta(facts["margin"]), hidden=16, layers=2))
    again, _ = load_residual(path)
    x, feats = GAME.model_inputs(labels, np.arange(5))
    prior = torch.as_tensor(np.eye(SLOTS, dtype=np.float32)[labels["prior"][:5]])
    with torch.no_grad():
        a = model(torch.as_tensor(x), prior, torch.as_tensor(feats))
        torch.testing.assert_close(again(torch.as_tensor(x), prior, torch.as_tensor(feats)), a)
    assert (a[torch.arange(5), torch.as_tensor(labels["prior"][:5])] == 0).all()   # A(s, h) = 0


def test_the_search_beats_the_residual_policys_pick_when_given_as_prior(tmp_path):
    from agents.arena import play_aec, random_deal

    zero, _ = save_residual(_model(), tmp_path / "zero.pt", _meta())
    greedy, _ = save_residual(_model(points_weight=1.0), tmp_path / "greedy.pt", _meta())
    deal = random_deal("shengji", np.random.default_rng(4))
    games = {}
    for name, spec in (("plain", SMALL_SEARCH), ("zero", f"{SMALL_SEARCH},prior={zero}"),
                       ("greedy", f"{SMALL_SEARCH},prior={greedy}")):
        searches = [make_agent(f"pimc:{spec}", "shengji", seed=9), make_agent(f"pimc:{spec}", "shengji", seed=9)]
        defaults = []
        for s in searches:
            act = s.act

            def keep(obs, mask, s=s, act=act):
                a = act(obs, mask)
                defaults.append((s.last.get("heuristic"), s.last.get("default")))
                s.last = {}
                return a
            s.act = keep
        heur = ShengJiHeuristic("shengji", 1)
        rewards, _ = play_aec("shengji", [searches[0], heur, searches[1], heur], {}, deal, seed=2)
        games[name] = (list(rewards), [d for d in defaults if d[0] is not None])
    assert games["plain"][1] and all(h == d for h, d in games["plain"][1])
    assert games["zero"] == games["plain"]                              # a zero network picks the heuristic's play
    assert any(h != d for h, d in games["greedy"][1])                   # the points-greedy prior changes defaults


def test_search_options_beyond_the_slots_are_refused():
    with pytest.raises(ValueError, match="at most 16 plays"):
        GAME.search_agent(0, {}, max_leads=20)


def test_train_residual_shengji_command(tmp_path):
    from cardzoo.cli import main

    out = tmp_path / "run"
    assert main(["train", "shengji", "--algo", "residual", "--label-games", "1", "--workers", "1", "--epochs", "1",
                 "--hidden", "16", "--search", SMALL_SEARCH, "--out", str(out)]) == 0
    meta = json.loads((out / "model.json").read_text())
    assert meta["game"] == "shengji" and meta["teacher"] == f"pimc:{SMALL_SEARCH}"
    assert isinstance(make_agent(str(out / "model.pt"), "shengji", seed=0), ShengJiResidualAgent)


def test_follows_with_more_plays_than_listed_keep_the_heuristics_play(monkeypatch, tmp_path):
    """A follow whose legal plays exceed the listing limit (a long multi-deck throw led) is not
    searched or scored: the heuristic plays it, and the game goes on legally."""
    import agents.shengji.residual as residual_mod
    import agents.shengji.search as search_mod

    monkeypatch.setattr(residual_mod, "MAX_PLAYS", 1)
    monkeypatch.setattr(search_mod, "MAX_PLAYS", 1)
    greedy = ShengJiResidualAgent("shengji", 0, model=_model(points_weight=1.0), meta=_meta())
    search = make_agent(f"pimc:{SMALL_SEARCH}", "shengji", seed=0)
    for agent in (greedy.chooser, search):
        before = agent.stats["fallbacks"]
        res = duplicate_match("shengji", greedy if agent is greedy.chooser else search,
                              ShengJiHeuristic("shengji", 1), deals=1, seed=6)
        assert res.deals == 1 and agent.stats["fallbacks"] > before


def test_a_search_prior_must_be_of_the_deck_count_it_plays():
    """pimc:prior= plays the options it was trained on, as learned: does (the shipped policy: 2 decks)."""
    with pytest.raises(ValueError, match="was trained on shengji with the default options, not with {'decks': 1}"):
        make_agent("pimc:prior=agents/checkpoints/shengji.pt", "shengji", seed=0, env_config={"decks": 1})
    make_agent("pimc:prior=agents/checkpoints/shengji.pt", "shengji", seed=0, env_config={"decks": 2})
