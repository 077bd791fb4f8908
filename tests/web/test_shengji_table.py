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
