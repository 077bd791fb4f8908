"""The web table's Sheng Ji (shengji.md): a match of several hands as the page tells it, between hands
and at the end."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("starlette")

from cardzoo.web.tables import Table  # noqa: E402

SUITS = dict(zip("CDHS", "♣♦♥♠"))


def _symbols(cards: str) -> str:
    return " ".join(c if c in ("LJ", "BJ") else ("10" if c[0] == "T" else c[0]) + SUITS[c[1]] for c in cards.split())


def test_a_match_tells_each_finished_hand_and_its_kitty():
    """episode="match": the next hand is dealt at once, so the page tells the hand just finished among the
    facts (who held or took over, the levels gained, the opponents' points) with its buried kitty, which
    every seat sees at the hand's end (SJ-10.3), and never a kitty of the hand in play."""
    table = Table("shengji", {"decks": 1, "episode": "match", "max_hands": 2}, 0, "random", 3)
    rng = random.Random(1)
    state = table.state()
    while table.raw.public_state()["hand_index"] == 0:
        assert not any(label.startswith("Hand") for label, _ in state["view"]["facts"])
        state = table.act(rng.choice(state["legal"])) or table.state()
    done = table.raw.public_state()["result"]
    facts = dict(state["view"]["facts"])
    assert done["hand_index"] == 0 and done["outcome"] == "takeover" and done["levels_gained"] == [2, 0]
    assert facts["Hand 1"] == f"team 0 took over, up 2 levels: opponents {done['opponent_points']} points"
    assert facts["Hand 1 kitty"] == f"{_symbols(done['kitty'])} ({done['kitty_points']} points)"
    assert facts["Levels (team 0 : 1)"] == "4 : 2"


def test_a_match_result_is_the_matchs_not_its_last_hands():
    """A match's rewards are its totals (shengji.md 5) and its result the last hand's (9.4): the headline
    tells the match (its winner, or where it stopped at max_hands), not the last hand's outcome with the
    match's reward ("The other team took over: you won" read as a contradiction)."""
    from cardzoo.web.tables import replay_frames
    from cardzoo.web.views import result_view

    last = {"hand_index": 2, "banker": 0, "declarers": 0, "hand_level": 2, "trump": "H", "trick_points": [60, 15],
            "kitty": "TC KC AC 2D 5H 7S", "kitty_points": 25, "last_trick_winner": 3, "multiplier": 2,
            "kitty_bonus": 50, "penalty": 0, "opponent_points": 65, "outcome": "takeover", "table_levels": 1,
            "hand_score": 2, "levels_gained": [0, 1], "new_levels": [2, 1], "next_banker": 1, "match_winner": None}
    totals = [1 / 3, -1 / 3, 1 / 3, -1 / 3]      # team 0 gained over the match, lost the last hand
    view = result_view("shengji", last, totals, 0, match=True)
    assert view["headline"] == "The match stopped after 3 hands: your team at 4, the other at 3 (+0.333)"
    assert view["rows"][:2] == [["Match", "stopped after 3 hands (max_hands): no team passed A"],
                                ["Hand 3", "team 1 took over, up 1 level"]]
    assert view["tone"] == "won"
    won = dict(last, match_winner=1, new_levels=[2, 12], levels_gained=[0, 2])
    assert result_view("shengji", won, [-1, 1, -1, 1], 1, match=True)["headline"] == "Your team won the match (+1)"
    assert result_view("shengji", won, [-1, 1, -1, 1], 0, match=True)["headline"] == "The other team won the match (-1)"
    assert result_view("shengji", last, totals, 0)["headline"].startswith("The other team took over")   # one hand

    table = Table("shengji", {"decks": 1, "episode": "match", "max_hands": 2}, 0, "random", 3)
    rng = random.Random(1)
    while not table.env.over:
        table.act(rng.choice(table.state()["legal"]))
    state = table.state()
    assert state["summary"]["headline"].startswith("The match stopped after 2 hands: your team at ")
    assert replay_frames(state["record"])["summary"] == state["summary"]


def test_a_kitty_flip_is_told():
    """SJ-4.9: when nobody declares, kitty cards are turned until one fixes trump; they are public
    (shengji.md 3), so the facts show them beside the trump they fixed."""
    table = Table("shengji", {"decks": 1, "no_declaration_first_hand": "flip"}, 0, "random", 8)
    state = table.state()
    while not table.raw.public_state()["kitty_revealed"]:
        assert state["phase"] == "DECLARE" and "pass" in state["legal"]
        table.act("pass")
        state = table.state()
    assert table.raw.public_state()["kitty_revealed"] == ["8C"]
    facts = dict(state["view"]["facts"])
    assert facts["Kitty turned"] == "8♣" and facts["Trump"] == "♣"


def test_sheng_ji_moves_say_what_they_do():
    """shengji.md section 4: CARD adds to a lead, plays a follow's card or buries one by phase, DONE plays
    the lead, PASS answers a declaration window: the log and the buttons say so, cards by suit symbol."""
    table = Table("shengji", {"decks": 1}, 0, "random", 8)
    rng = random.Random(2)
    state = table.state()
    assert state["phase"] == "DECLARE" and state["labels"]["pass"] == "pass: no declaration"
    moves = []
    while not table.env.over:
        table.act(rng.choice(state["legal"]))
        state = table.state()
        moves += table.moves
    labels = [m.get("label", m["action"]) for m in moves]
    followed = [m for m in moves if m.get("label", "").startswith("play ")]
    assert followed and all(m["action"].startswith("card ") for m in followed)
    card = followed[0]["action"].split()[1]
    assert followed[0]["label"] == f"play {_symbols(card)}"
    assert "lead the chosen cards" in labels
    assert not any(label.startswith("card ") for label in labels)
