"""Text rendering of a Court Piece position (ansi, unicode suits ♣♦♥♠) and the action names of 9.5."""
from __future__ import annotations

from cardzoo.cards import SUIT_SYMBOLS, SUITS, card_index, card_symbol, card_text
from cardzoo.options import check_action

NUM_ACTIONS = 60
_SPECIAL = {56: "pass", 57: "ask reveal", 58: "lead reveal", 59: "change cards"}
_BY_NAME = {v: k for k, v in _SPECIAL.items()}


def action_name(a) -> str:
    # the ids step() takes (check_action: ints, numpy ints, 0-d int arrays); an array's own __index__
    # / __int__ would read a 0-d float or bool as an id and fail with TypeError on any other shape
    a = check_action(a, NUM_ACTIONS)
    if a < 52:
        return "play " + card_text(a)
    if a < 56:
        return "call trump " + SUITS[a - 52]
    return _SPECIAL[a]


def action_from_name(name) -> int:
    if not isinstance(name, str):
        raise ValueError(f"action name {name!r} is not a string")
    words = name.strip().split()
    text = " ".join(words).lower()
    if text in _BY_NAME:
        return _BY_NAME[text]
    if len(words) == 2 and words[0].lower() == "play":
        try:
            return card_index(words[1])
        except ValueError:
            pass
    if len(words) == 3 and words[0].lower() == "call" and words[1].lower() == "trump" \
            and len(words[2]) == 1 and words[2].upper() in SUITS:
        return 52 + SUITS.index(words[2].upper())
    raise ValueError(f"unknown action name {name!r}: expected 'play <card>', 'call trump <C|D|H|S>', "
                     "'pass', 'ask reveal', 'lead reveal' or 'change cards'")


def _cards(cards) -> str:
    return " ".join(card_symbol(c) for c in cards) or "-"


RESULT_KINDS = {"trump_win": "the trump team won", "opponents_win": "the dealer's team won",
                "kot": "kot by the trump team", "gone_kot": "gone kot by the dealer's team",
                "whitewash": "whitewash, all 13 tricks", "mendi_coat": "Mendi Coat, all four tens",
                "mendi": "Mendi, three tens", "split_win": "tens 2–2, won on tricks"}
"""A bazi's result kind in words (CP-9.1, CP-11.9)."""


def bazi_outcome(result: dict) -> str:
    """A finished bazi in words: "team 1 won (the dealer's team won): +2 points"; a kot's kots and a
    streak bonus too (CP-9.1, CP-9.2)."""
    gains = [f"+{result['points']} point{'s' if result['points'] != 1 else ''}"]
    if result["kots"]:
        gains.append(f"+{result['kots']} kot{'s' if result['kots'] != 1 else ''}")
    if result["bonus"]:
        gains.append(f"streak bonus +{result['bonus']}")
    return f"team {result['winner_team']} won ({RESULT_KINDS.get(result['kind'], result['kind'])}): {', '.join(gains)}"


def render_text(ps: dict, hands: list[list[int]], viewer: int | None = None) -> str:
    """ps: public_state(); hands: card ids per seat; viewer: show only that seat's hand (None: all)."""
    lines = [f"Court Piece [{ps['variant']}]  bazi {ps['bazi_index']}  phase {ps['phase']}  "
             f"dealer s{ps['dealer']}  first chooser s{ps['first_chooser']}"
             + (f"  to act: s{ps['actor']}" if ps["actor"] is not None else "")]
    if ps["trump"] is not None:
        trump = SUIT_SYMBOLS[ps["trump"]]
    elif ps["hidden_owner"] is not None:
        trump = f"hidden (face down, s{ps['hidden_owner']})"
    else:
        trump = "none"
    lines.append(f"trump: {trump}" + (f"  caller s{ps['caller']}" if ps["caller"] is not None else "")
                 + (f"  turned {card_symbol(card_index(ps['turned_card']))}" if ps["turned_card"] else "")
                 + (f"  shown {card_symbol(card_index(ps['shown_card']))}" if ps["shown_card"] else ""))
    for seat in range(4):
        if viewer is None or viewer == seat:
            lines.append(f"  s{seat} (team {seat % 2}): {_cards(hands[seat])}")
        else:
            lines.append(f"  s{seat} (team {seat % 2}): {ps['hand_sizes'][seat]} cards")
    trick = " ".join(f"s{s}:{card_symbol(card_index(c))}" for s, c in ps["current_trick"]) or "-"
    if ps["current_trick"] or ps["phase"] != "over":  # over, no trick is in play (nor the one after the last)
        lines.append(f"trick {ps['trick_number'] + 1}: {trick}")
    lines.append(f"tricks won (team 0, team 1): {ps['tricks_won'][0]} - {ps['tricks_won'][1]}")
    if ps["variant"] == "double_sar":
        run = f"s{ps['run_holder']}" if ps["run_holder"] is not None else "none"
        lines.append(f"Double Sar pile: tricks {ps['pile'] or '-'}  run holder {run}  "
                     f"taken {ps['taken'][0]} - {ps['taken'][1]}")
    if ps["variant"] == "mendi_coat":
        lines.append(f"tens: {ps['tens'][0]} - {ps['tens'][1]}")
    lines.append(f"score: {ps['score'][0]} - {ps['score'][1]} (target {ps['target']})")
    if ps["result"] is not None:
        r = ps["result"]
        lines.append(f"result: {bazi_outcome(r)}; next dealer s{r['next_dealer']}")
    return "\n".join(lines)
