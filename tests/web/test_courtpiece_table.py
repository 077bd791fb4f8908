"""The web table's Court Piece (courtpiece.md): what another seat's moves show, the words of every
decision, the facts and the result, in every variant."""
from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from cardzoo.web.tables import Table  # noqa: E402


def test_a_bots_new_face_down_card_stays_hidden():
    """CP-10.2, Chhupa Rang with change_trump: the hider may put another of his first five face down;
    the others see that a swap happened, never the new card (courtpiece.md 3.3)."""
    # seed 0, human player_1: player_0 passes, player_2 hides 3S, then swaps it for 3C (the record says so)
    table = Table("courtpiece", {"variant": "chhupa_rang", "change_trump": True}, 1, "random", 0)
    steps = [(st["actor"], st["action"]) for st in table.env.record()["steps"][:3]]
    assert steps == [(0, "pass"), (2, "play 3S"), (2, "play 3C")]
    state = table.state()
    assert [(m["seat"], m["action"]) for m in state["moves"][1:3]] == [(2, "hides a card"), (2, "swaps its face-down card")]
    assert [f["move"] for f in state["frames"]] == state["moves"]
    text = repr([state["moves"], state["frames"], state["view"]])
    assert "3C" not in text and "3S" not in text
