"""The section 9 surface beyond the scenario cases: factories and config errors (9.1, 9.6), reset
errors and reproducibility (9.2, 7.3), action names (9.6), observation layout (3.5), rendering."""
from __future__ import annotations

import re

import numpy as np
import pytest

import lopti_env
from lopti_env.render import rule_sentence


@pytest.mark.parametrize("bad", [
    {"num_players": 1}, {"num_players": 6}, {"max_made_rules": 0}, {"max_made_rules": 9},
    {"reward_scheme": "points"}, {"base_rules": {"CLEAR": 8}}, {"base_rules": {"SET_SIZE": 5}},
    {"base_rules": {"CLEAR_RANK": 5}}, {"initial_rules": [[9, 1, 0, 2]]}, {"initial_rules": [[1, 0, 0, 1],
                                                                                          [1, 0, 0, 1]]},
    {"carryover_rules": [[1, 0, 0, 1]]}, {"carryover_rules": [[1, 0, 0, 1, 7]]}, {"colour": 1},
    {"first_dealer": 4}, {"session": 1}, {"max_moves": 0},
])
def test_lopti_factory_rejects_bad_config(bad):
    with pytest.raises(ValueError):
        lopti_env.env(**bad)
    with pytest.raises(ValueError):
        lopti_env.BatchGame(2, **bad)


def test_lopti_action_names_are_inverse():
    u = lopti_env.raw_env(num_players=2)
    names = [u.action_name(a) for a in range(140)]
    assert len(set(names)) == 140
    for a, s in enumerate(names):
        assert u.action_from_name(s) == a
    assert names[:5] == ["play 2", "play 2 2", "play 2 2 2", "play 2 2 2 2", "play 3"]
    assert names[52:56] == ["pickup", "flip 0", "flip 1", "flip 2"]
    assert u.action_name(56 + 3 * 7 + 1) == "swap 9 up1"
    assert names[95:108] == ["keep", "pass", "yes", "no", "rock", "paper", "scissors", "propose remove",
                             "propose amend", "propose base", "propose restore", "timing now", "timing next"]
    assert names[108] == "select 0" and names[139] == "select 31"
    assert u.action_from_name("play 10 10") == 33 and u.action_from_name("swap 10 up2") == 56 + 24 + 2
    for bad in (-1, 140, 3.0, "7", None, True):
        with pytest.raises(ValueError):
            u.action_name(bad)
    for bad in ("play", "play 9 8", "play 9 9 9 9 9", "swap 9 up3", "select 32", "flip 3", "", 5, "Pickup x"):
        with pytest.raises(ValueError):
            u.action_from_name(bad)


def test_lopti_reset_errors_leave_env_unchanged():
    e = lopti_env.env(num_players=2)
    e.reset(seed=3)
    u = e.unwrapped
    before = u.public_state()
    deck = list(range(52))
    for opts in ({"deal": {"deck": deck[:51]}}, {"deal": {"deck": deck[:51] + [0]}}, {"deal": {"deck": deck + ["XX"]}},
                 {"deal": {"deck": deck}, "state": {}}, {"deals": 1, "deal": "x"}, {"deal": {"seats": [], "draw": []}},
                 {"state": {"seats": [{"hand": "AS"}, {"hand": "AS"}]}},
                 {"state": {"seats": [{"hand": "AS"}, {"hand": ""}]}},
                 {"state": {"seats": [{"hand": "AS"}, {"hand": "KS"}], "pile": [[0, "9C 9D"], [1, "9H 9S"]]}},
                 {"state": {"seats": [{"hand": "AS"}, {"hand": "KS"}], "chain": 4}},
                 {"state": {"seats": [{"hand": "", "up": "2C 3C 4C"}, {"hand": "KS"}]}},
                 {"state": {"seats": [{"hand": "AS"}, {"hand": "KS"}], "out": [1]}},
                 {"state": {"seats": [{"hand": "AS"}, {"hand": "KS"}], "phase": "proposal"}},
                 {"state": {"seats": [{"hand": "AS"}, {"hand": "KS"}], "colour": 1}}):
        with pytest.raises(ValueError):
            e.reset(seed=9, options=opts)
        assert u.public_state() == before


def test_lopti_session_deals_take_one_first_dealer():
    """7.1: a dealer beside "deals" or in round 0's deal sets the first dealer (LO-2.5: round i's dealer
    follows from it); one in a later round's deal, or two different ones, is a ValueError, the env as it was."""
    e = lopti_env.env(num_players=3, session=True, session_rounds=3)
    e.reset(seed=3)
    u = e.unwrapped
    before = u.public_state()
    deck = list(range(52))
    for bad, words in (({"deals": [{"deck": deck}, {"deck": deck, "dealer": 2}]}, "round 1: 'dealer' is for round 0"),
                       ({"dealer": 1, "deals": [{"deck": deck, "dealer": 2}]}, "two first dealers")):
        with pytest.raises(ValueError, match=words):
            e.reset(seed=9, options={"deal": bad})
        assert u.public_state() == before
    for deal in ({"dealer": 2, "deals": [{"deck": deck}]}, {"deals": [{"deck": deck, "dealer": 2}]},
                 {"dealer": 2, "deals": [{"deck": deck, "dealer": 2}, {"deck": deck[::-1]}]}):
        e.reset(seed=9, options={"deal": deal})
        assert u.public_state()["dealer"] == 2


@pytest.mark.parametrize("phase, session", [("swap", False), ("proposal", True), ("creator", True)])
def test_lopti_state_before_play_rejects_out_seats(phase, session):
    """§7.2 rejects impossible positions: nobody is out before a round's play starts (LO-2.6's swap
    phase follows the deal, LO-9.1), so a pre-play position with `out` is one. Accepted, it made the
    out seat answer the swap phase and then lead the round with no legal action."""
    e = lopti_env.env(num_players=3, session=session)
    e.reset(seed=3)
    before = e.unwrapped.public_state()
    S = {"phase": phase, "out": [0], "seats": [{"hand": ""}, {"hand": "4C 5C 6C", "up": "7C 8C 9C"},
                                                 {"hand": "4D 5D 6D", "up": "7D 8D 9D"}]}
    with pytest.raises(ValueError, match="out"):
        e.reset(seed=9, options={"state": S})
    assert e.unwrapped.public_state() == before


@pytest.mark.parametrize("phase", ["proposal", "creator", "rule_making"])
@pytest.mark.parametrize("table", [{"pile": [[1, "KS"]]}, {"chain": 2}])
def test_lopti_session_state_before_play_needs_an_empty_table(phase, table):
    """LO-2.5: a round's play starts on an empty table with no 3s played yet (as §7.2 already asks of a
    "swap" position); a session position before the play whose seats are given is played as it is, so
    a pile or a chain there is impossible. Accepted, the round started on the injected pile."""
    e = lopti_env.env(num_players=3, session=True)
    e.reset(seed=3)
    before = e.unwrapped.public_state()
    S = {"phase": phase, "round": 1, "prev_winner": 1, "seats": [{"hand": "4C 5C 6C", "up": "7C 8C 9C"},
                                                                 {"hand": "4D 5D 6D", "up": "7D 8D 9D"},
                                                                 {"hand": "4H 5H 6H", "up": "7H 8H 9H"}], **table}
    with pytest.raises(ValueError, match="pile" if "pile" in table else "chain"):
        e.reset(seed=9, options={"state": S})
    assert e.unwrapped.public_state() == before


@pytest.mark.parametrize("phase", ["play", "rule_making"])
def test_lopti_state_round_0_has_no_previous_winner(phase):
    """LO-2.5, LO-10.2: round 0 has no previous round, so no previous winner and no rule making (it
    starts at phase 2 only for rounds i >= 1). Accepted, round 0 let a winner make a rule recorded
    with made_round -1, the mark of a configured or carried-over rule (LO-11.1)."""
    e = lopti_env.env(num_players=3, session=True)
    e.reset(seed=3)
    before = e.unwrapped.public_state()
    S = {"phase": phase, "round": 0, "prev_winner": 1}
    if phase == "play":
        S["seats"] = [{"hand": "4C"}, {"hand": "4D"}, {"hand": "4H"}]
    with pytest.raises(ValueError, match="prev_winner"):
        e.reset(seed=9, options={"state": S})
    assert e.unwrapped.public_state() == before


def test_lopti_same_seed_same_game_and_deals_reproduce():
    e1, e2 = lopti_env.env(num_players=4, session=True, session_rounds=2), lopti_env.env(num_players=4,
                                                                                       session=True,
                                                                                       session_rounds=2)
    e1.reset(seed=12)
    e2.reset(seed=12)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if e1.terminations[e1.agent_selection]:
            break
        assert e1.unwrapped.public_state() == e2.unwrapped.public_state()
        m = e1.observe(e1.agent_selection)["action_mask"]
        a = int(rng.choice(np.flatnonzero(m)))
        e1.step(a)
        e2.step(a)
    # section 7.3: an injected deal does not shift later rounds
    e3 = lopti_env.env(num_players=4, session=True, session_rounds=2)
    e3.reset(seed=12, options={"deal": {"deck": list(range(52))}})
    assert e3.unwrapped._decks[0, 1].tolist() == e1.unwrapped._decks[0, 1].tolist()


def test_lopti_observation_padding_and_layout():
    e = lopti_env.env(num_players=2, max_made_rules=3)
    e.reset(seed=1)
    ob = e.observe("player_1")["observation"]
    assert ob.shape == (309,)
    assert ob[3] == 2 and ob[4] == 1  # num_players, seat
    hand_size = ob[18:23]
    assert (hand_size[2:] == -1).all() and (hand_size[:2] == 3).all()
    assert ob[5:18].sum() == 3  # own hand counts per rank


def test_lopti_render_sentences():
    assert rule_sentence(7, 1, 1, 1) == "When a pile is cleared by a 10, the next player draws one card."
    e = lopti_env.env(num_players=3, render_mode="ansi", initial_rules=[[1, 7, 1, 1], [8, 1, 8, 2]])
    e.reset(seed=2)
    text = e.render()
    assert "P0" in text and "pile" in text and "When a 9 is played" in text
    # cards by suit symbol, as every game's ansi render shows them
    assert re.search(r"P0: hand \[(10|[2-9JQKA])[♣♦♥♠]", text) and not re.search(r"\b(T|[2-9JQKA])[CDHS]\b", text)
    for t in range(1, 17):
        assert rule_sentence(t, 0 if t not in (4, 5, 6, 10, 16) else 6, 1, 1).endswith(".")
