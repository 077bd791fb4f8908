"""The web table's Court Piece (courtpiece.md): what another seat's moves show, the words of every
decision, the facts and the result, in every variant."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("starlette")

from cardzoo.web.tables import Table  # noqa: E402


def test_a_bots_new_face_down_card_stays_hidden():
    """CP-10.2, Chhupa Rang with change_trump: the hider may put another of his first five face down;
    the others see that a swap happened, never the new card (courtpiece.md 3.3). A pass in the hide
    phase is public and logged as a pass (CP-7.1)."""
    # seed 0, human player_1: player_0 passes, player_2 hides 3S, then swaps it for 3C (the record says so)
    table = Table("courtpiece", {"variant": "chhupa_rang", "change_trump": True}, 1, "random", 0)
    steps = [(st["actor"], st["action"]) for st in table.env.record()["steps"][:3]]
    assert steps == [(0, "pass"), (2, "play 3S"), (2, "play 3C")]
    state = table.state()
    # player_0's pass is public (courtpiece.md 3.1), not a hidden card: player_2 is the one who hides
    assert [(m["seat"], m["action"]) for m in state["moves"][:3]] == [
        (0, "pass"), (2, "hides a card"), (2, "swaps its face-down card")]
    assert [f["move"] for f in state["frames"]] == state["moves"]
    text = repr([state["moves"], state["frames"], state["view"]])
    assert "3C" not in text and "3S" not in text


def _decide(table: Table, action: str) -> dict:
    table.act(action)
    return table.state()


def test_every_court_piece_decision_says_what_it_chooses():
    """Section 4's actions mean different things by phase: the buttons and the prompt say which (suits
    by symbol; a pass hands the call to the partner, CP-3.1, or keeps, CP-10; a card in the hide phase
    goes face down, CP-7.1), and the log tells the person's own decisions in the same words. The
    actions sent stay the env's names."""
    state = Table("courtpiece", {"variant": "single_sar"}, 0, "heuristic", 0).state()   # player_0 calls first
    assert state["phase"] == "call" and "pass" in state["legal"]
    suits = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
    assert state["labels"] == {**{b: f"call trump {suits[b[-1]]}" for b in state["buttons"] if b != "pass"},
                               "pass": "pass: partner calls"}
    assert state["hint"] == "call trump, or pass and your partner must call it"
    state = Table("courtpiece", {"variant": "single_sar"}, 0, "heuristic", 6).state()   # the partner passed
    assert state["phase"] == "call" and "pass" not in state["legal"]
    assert state["hint"] == "your partner passed: you must call trump"

    table = Table("courtpiece", {"variant": "chhupa_rang", "change_cards": True, "change_trump": True}, 0, "heuristic", 0)
    state = table.state()
    assert state["phase"] == "change_cards"
    assert state["labels"] == {"pass": "keep the five cards", "change cards": "change the five cards"}
    assert state["hint"] == "keep your first five cards, or change them for five new ones"
    state = _decide(table, "change cards")
    # the log tells every seat's decision in the same words, none of them in the first person
    assert state["moves"][0] == {"seat": 0, "action": "change cards", "label": "change the five cards"}
    assert all(m["label"] in ("keep the five cards", "change the five cards") for m in state["moves"][1:4])
    while state["phase"] == "change_cards":
        state = _decide(table, "pass")
    assert state["labels"] == {"pass": "pass: partner hides"} and len(state["hand"]) == 5
    assert state["hint"].startswith("click one of your first five to hide it face down")
    card = state["hand"][0]["action"]
    state = _decide(table, card)
    symbol = ("10" if card[5] == "T" else card[5]) + suits[card[6]]
    assert state["moves"][0] == {"seat": 0, "action": card, "label": f"hide {symbol} face down"}
    assert state["phase"] == "change_trump" and state["labels"] == {"pass": "keep the face-down card"}
    assert state["hint"] == "you may hide another of your first five face down instead (click it), or keep the card"

    table = Table("courtpiece", {"variant": "double_sar", "change_trump": True}, 0, "heuristic", 0)
    state = _decide(table, "call trump S" if "call trump S" in table.state()["legal"] else table.state()["legal"][0])
    assert state["phase"] == "change_trump"
    trump = "♣♦♥♠"[table.raw.public_state()["trump"]]
    assert state["labels"]["pass"] == f"keep trump {trump}"
    assert sorted(v for k, v in state["labels"].items() if k != "pass") == sorted(
        f"change trump to {s}" for s in "♣♦♥♠" if s != trump)

    state = Table("courtpiece", {"variant": "mendi_coat", "mendi_trump": "band"}, 0, "heuristic", 0).state()
    assert state["phase"] == "band_hide" and state["buttons"] == []
    assert state["hint"] == "click one of your first five to hide it face down: its suit becomes trump when it is turned up"


def test_asking_for_and_showing_the_face_down_card_are_explained():
    """CP-7.4: a void follower may ask for the face-down card (and must then trump, CP-7.5), the hider on
    lead may show it (and must then lead a trump, CP-7.7); the buttons and the prompt say so."""
    import random

    asked = showed = False
    for seed in range(40):
        table = Table("courtpiece", {"variant": "chhupa_rang"}, 0, "heuristic", seed)
        rng = random.Random(seed)
        state = table.state()
        while not state["over"] and not (asked and showed):
            if "ask reveal" in state["legal"]:
                assert state["labels"]["ask reveal"] == "ask to see the face-down trump"
                assert state["hint"].startswith("no card of the led suit: play any card, or ask to see the face-down trump")
                state = _decide(table, "ask reveal")
                shown = table.raw.public_state()["shown_card"]
                assert state["hint"].startswith("the face-down card was ") and shown[1] in "CDHS"
                asked = True
                continue
            if "lead reveal" in state["legal"]:
                assert state["labels"]["lead reveal"] == "show the face-down card"
                assert state["hint"] == "lead a card, or show your face-down card (then you must lead a trump)"
                showed = True
            state = _decide(table, rng.choice(state["legal"]))
        if asked and showed:
            break
    assert asked and showed


def test_the_facts_name_trump_by_symbol_and_show_what_is_public():
    """courtpiece.md 3.1: the trump suit (by symbol, as the buttons), the card that set it in Be-Rang
    (CP-8.2), the face-down card once shown (CP-7.4), Double Sar's pile, run holder and taken counts
    (CP-6.3, CP-6.8) are public, so the facts show them."""
    import random

    def facts_over(variant, seed, until):
        table = Table("courtpiece", {"variant": variant}, 0, "random", seed)
        rng = random.Random(seed)
        while True:
            state = table.state()
            ps = table.raw.public_state()
            if until(ps) or state["over"]:
                return dict(state["view"]["facts"]), ps
            table.act(rng.choice(state["legal"]))

    facts, ps = facts_over("single_sar", 1, lambda ps: ps["phase"] == "play")
    assert facts["Trump"] == "♣♦♥♠"[ps["trump"]]
    facts, ps = facts_over("be_rang", 1, lambda ps: ps["trump_set_by"] is not None)
    seat, card = ps["trump_set_by"]
    symbol = ("10" if card[0] == "T" else card[0]) + "♣♦♥♠"["CDHS".index(card[1])]
    assert facts["Trump set by"] == f"player_{seat}'s {symbol}" and facts["Trump"] == symbol[-1]
    facts, ps = facts_over("chhupa_rang", 1, lambda ps: ps["shown_card"] is not None)
    card = ps["shown_card"]
    symbol = ("10" if card[0] == "T" else card[0]) + "♣♦♥♠"["CDHS".index(card[1])]
    assert facts["Face-down card shown"] == f"{symbol} (trick {ps['shown_at'][0]})"
    facts, ps = facts_over("double_sar", 1, lambda ps: ps["run_holder"] is not None)
    assert facts["Run holder"] == f"player_{ps['run_holder']}" and facts["Pile"] == str(len(ps["pile"]))
    assert facts["Taken"] == f"{ps['taken'][0]} : {ps['taken'][1]}"


def test_a_match_tells_each_finished_bazi():
    """episode="match": the next bazi is dealt at once (courtpiece.md 9.2), so the page tells the bazi
    just finished among the facts: the winning team, the kind of win in words (CP-9.1, CP-11.9) and what
    it scored."""
    import random

    for variant, seed, told in (("single_sar", 3, "team 1 won (the dealer's team won): +2 points"),
                                ("mendi_coat", 3, "team 1 won (Mendi, three tens): +1 point")):
        table = Table("courtpiece", {"variant": variant, "episode": "match", "match_target": 3}, 0, "heuristic", seed)
        rng = random.Random(1)
        state = table.state()
        while table.raw.public_state()["bazi_index"] == 0:
            assert not any(label.startswith("Bazi") for label, _ in state["view"]["facts"])
            table.act(rng.choice(state["legal"]))
            state = table.state()
        facts = dict(state["view"]["facts"])
        assert facts["Bazi 1"] == told
        assert facts["Score"] == ("0 : 2" if variant == "single_sar" else "0 : 1")


def test_the_result_says_who_won_and_how_in_words():
    """The result box: the headline from the person's team, the kind of win in words (CP-9.1: kot and
    gone kot, CP-11.9: Mendi Coat's tens), what it scored, the next dealer by player; a match's headline
    is the match's. Its replay says the same."""
    from cardzoo.web.tables import replay_frames
    from cardzoo.web.views import result_view

    gone = {"bazi_index": 0, "winner_team": 1, "kind": "gone_kot", "points": 4, "kots": 3, "bonus": 0,
            "next_dealer": 2, "decided_at_trick": 7, "match_winner": None}
    view = result_view("courtpiece", gone, [-4, 4, -4, 4], 2)
    assert view["headline"] == "The other team won the bazi (-4)" and view["tone"] == "lost"
    assert view["rows"] == [["Bazi", "team 1 won (gone kot by the dealer's team): +4 points, +3 kots"],
                            ["Decided at trick", "7"], ["Next dealer", "player_2 (you)"],
                            ["Rewards", "-4 / +4 / -4 / +4 (by player)"]]
    assert result_view("courtpiece", gone, [-4, 4, -4, 4], 1)["headline"] == "Your team won the bazi (+4)"
    streak = dict(gone, winner_team=0, kind="trump_win", points=1, kots=0, bonus=2, bazi_index=8, match_winner=0)
    view = result_view("courtpiece", streak, [3, -3, 3, -3], 0, match=True)
    assert view["headline"] == "Your team won the match (+3)"
    assert view["rows"][:2] == [["Match", "won by team 0"],
                                ["Bazi 9", "team 0 won (the trump team won): +1 point, streak bonus +2"]]
    mendi = dict(gone, kind="mendi_coat", points=2, kots=0)
    assert dict(result_view("courtpiece", mendi, [-2, 2, -2, 2], 0)["rows"])["Bazi"] == \
        "team 1 won (Mendi Coat, all four tens): +2 points"

    table = Table("courtpiece", {"variant": "double_sar"}, 0, "heuristic", 3)
    while not table.env.over:
        table.act(table.state()["legal"][0])
    state = table.state()
    mine = state["rewards"][0]
    team = "Your team" if state["result"]["winner_team"] == 0 else "The other team"
    assert state["summary"]["headline"] == f"{team} won the bazi ({'+' if mine > 0 else ''}{mine:g})"
    assert replay_frames(state["record"])["summary"] == state["summary"]


def test_a_be_rang_bazi_without_trump_says_so_at_its_end():
    """CP-8.3: if nobody ever fails to follow, the Be-Rang bazi is played without trump; once it is over
    the facts say so instead of "not yet"."""
    table = Table("courtpiece", {"variant": "be_rang"}, 0, "random", 57)
    rng = random.Random(57)
    while not table.env.over:
        assert dict(table.state()["view"]["facts"])["Trump"] == "not yet"
        table.act(rng.choice(table.state()["legal"]))
    assert table.raw.public_state()["trump"] is None
    assert dict(table.state()["view"]["facts"])["Trump"] == "none: nobody failed to follow"
