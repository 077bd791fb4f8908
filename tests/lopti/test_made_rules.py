"""Made-rule templates (LO-11.3/LO-11.4) one by one on injected positions (section 7.2)."""
from __future__ import annotations

import numpy as np

import lopti_env


def start(n, seats, rules, **kw):
    e = lopti_env.env(num_players=n)
    state = {"seats": [{"hand": h} if isinstance(h, str) else h for h in seats],
             "rules": [r + [-1, 1] for r in rules]}
    state.update(kw)
    e.reset(seed=0, options={"state": state})
    return e, e.unwrapped


def legal(e):
    return np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()


def test_lopti_rank_reveal_others():
    e, u = start(3, ["9C 4D", "KC KD", "5S"], [[2, 7, 3, 0]], pile=[[1, "6C"]])
    e.step(28)
    ps = u.public_state()
    assert ps["seats"][1]["known"] == "KC KD" and ps["seats"][2]["known"] == "5S"
    assert ps["seats"][0]["known"] == "" and ps["rules"][0][:4] == [2, 7, 3, 0]


def test_lopti_rank_gift_lowest_keeps_one():
    e, u = start(2, ["9C 2D 4H 8S", "QC"], [[3, 7, 1, 2]], pile=[[1, "6C"]])
    e.step(28)
    assert u.hand(0) == "8S" and u.hand(1) == "QC 2D 4H"
    assert u.public_state()["seats"][1]["known"] == "2D 4H"


def test_lopti_count_draw_before_base_draw():
    e, u = start(2, ["9C 9D 5H", "QC"], [[4, 2, 0, 1]], pile=[[1, "6C"]], draw="AS KS")
    e.step(29)
    assert u.hand(0) == "5H KS AS"  # the hook draws AS, then the base draw (hand 2 < 3) KS


def test_lopti_pickup_draw_and_reveal():
    e, u = start(2, ["5H 9S", "QC"], [[6, 1, 0, 0], [5, 2, 1, 1]], pile=[[1, "6C"], [0, "8D"]], draw="AS",
                 to_act=1, known={})
    e.step(52)  # P1 picks up: BEFORE reveals P1's hand, AFTER the next player draws
    ps = u.public_state()
    assert u.hand(1) == "6C QC 8D" and ps["seats"][1]["known"] == "6C QC 8D"
    assert u.hand(0) == "5H 9S AS" and ps["draw_size"] == 0


def test_lopti_clear_draw_by_set_everyone():
    e, u = start(3, ["9C 4D", "KC", "5S"], [[7, 2, 4, 1]], pile=[[1, "9D 9H 9S"]], draw="2C 2D 2H 2S")
    e.step(28)  # four 9s: cause 2; ALL from the actor draw 1: P0 2C, P1 2D, P2 2H; base draw: P0 2S
    assert u.public_state()["last_clear"]["cause"] == 2
    assert u.hand(0) == "2C 4D 2S" and u.hand(1) == "KC 2D" and u.hand(2) == "2H 5S"
    assert u.public_state()["move"] == "extra"


def test_lopti_clear_return_to_next_player():
    e, u = start(2, ["TC 5C", "QC"], [[8, 0, 1, 2]], pile=[[1, "4C"], [0, "9D"]])
    e.step(32)
    ps = u.public_state()
    assert u.hand(1) == "4C QC 9D" and ps["seats"][1]["known"] == "4C 9D"
    assert ps["last_clear"]["cards"] == "4C 9D TC" and ps["gone"].split().count("TC") == 1
    assert "4C" not in ps["gone"].split()


def test_lopti_two_returns_of_one_clear_take_the_same_first_cards():
    """LO-11.4 RETURN twice on one clear (docs/RULINGS.md, LOPTI 9): slot 0 sends the first two
    cleared cards, 4C and 9D, under the draw pile; slot 1's first two are those same cards, no longer
    gone, so it returns nothing (JH and KH stay gone, not given to the next player instead)."""
    e, u = start(2, ["TC 5C 6C", "QC"], [[8, 0, 8, 2], [8, 0, 1, 2]],
                 pile=[[1, "4C"], [0, "9D"], [1, "JH"], [0, "KH"]])
    e.step(32)                                 # P0 plays TC: a clear by the ten (cause 1)
    ps = u.public_state()
    assert ps["last_clear"]["cards"] == "4C 9D JH KH TC"
    assert u.hand(1) == "QC" and ps["seats"][1]["known"] == ""
    assert u.hand(0) == "4C 5C 6C" and ps["draw_size"] == 1   # P0 drew 4C back to three; 9D is left
    assert {"JH", "KH", "TC"} <= set(ps["gone"].split()) and not {"4C", "9D"} & set(ps["gone"].split())


def test_lopti_pile_clear_and_step_clear():
    e, u = start(2, ["JC 5D", "QC"], [[10, 6, 0, 0]], pile=[[1, "4C"], [0, "5C"], [1, "6C 6D"], [0, "9D"]])
    e.step(36)
    assert u.public_state()["last_clear"]["cause"] == 4 and u.public_state()["move"] == "extra"
    e, u = start(2, ["6C 6D 8S", "QC"], [[11, 0, 0, 2]], pile=[[1, "5C"]])
    assert 16 in legal(e)
    e.step(16)  # one 6 on a 5: count 1 < 2, no clear
    assert u.public_state()["clears"] == 0
    e, u = start(2, ["6C 6D 8S", "QC"], [[11, 0, 0, 2]], pile=[[1, "5C"]])
    e.step(17)
    assert u.public_state()["last_clear"]["cause"] == 4 and legal(e) == [24]


def test_lopti_faceup_and_flipfail_draw():
    e, u = start(2, [{"hand": "8C", "up": "JD JH 3S"}, "QC"], [[12, 0, 1, 1]], pile=[[1, "6C"]], draw="AS")
    e.step(24)  # hand empty after the base draw? no: the base draw comes first (draw pile has AS)
    assert u.hand(0) == "AS" and u.hand(1) == "QC"
    e, u = start(2, [{"hand": "8C", "up": "JD JH 3S"}, "QC"], [[12, 0, 1, 1]], pile=[[1, "6C"]])
    e.step(24)  # no draw pile: face-up taken, AFTER-FACEUP: the next player draws (nothing left)
    assert u.hand(0) == "JD JH 3S" and u.hand(1) == "QC"
    e, u = start(2, [{"down": "4S - -"}, "QC"], [[13, 0, 0, 2]], pile=[[1, "KH"]], draw="2C 2D 2H")
    e.step(53)
    assert u.hand(0) == "2C 2D KH 4S"


def test_lopti_out_draw_first_only_and_turn_reveal():
    e, u = start(3, [{"down": "- 7S -"}, "8C 6D", "9H"], [[14, 0, 3, 1]], pile=[[2, "KD"]], draw="2C 2D")
    e.step(54)
    assert u.public_state()["out"] == [0] and u.hand(1) == "2C 8C 6D" and u.hand(2) == "2D 9H"
    e, u = start(3, ["9C 4D", "KC KD 2H 2S", "5S"], [[16, 4, 1, 0]], pile=[[1, "6C"]])
    e.step(28)  # P1's turn starts with 4 cards: NEXT (P2) shows its hand
    assert u.public_state()["seats"][2]["known"] == "5S"
    assert u.public_state()["rules"][0][:6] == [16, 4, 1, 0, -1, 1]


def test_lopti_round_draw_at_round_start():
    e = lopti_env.env(num_players=2, initial_rules=[[15, 0, 0, 1]])
    e.reset(seed=0, options={"deal": {"deck": list(range(52))}})
    e.step(95)
    e.step(95)
    assert e.unwrapped.public_state()["seats"][0]["hand_size"] == 4  # the leader drew 7D
    assert e.unwrapped.hand(0) == "2D 4D 6D 7D"
