"""Text rendering of a LOPTI table (ansi): hands, face-up/face-down counts, the pile with the 3-chain,
the active limit or obligation, and the made rules as plain English sentences."""
from __future__ import annotations

from cardzoo.cards import RANKS, card_index, card_symbol

from .config import SWITCH_NAMES, TPL

RANK_WORDS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King", "Ace"]
ROLE_WORDS = ["the player who played", "the next player", "the previous player", "every other player",
              "every player", "the dealer", "the player with the most cards", "the player with the fewest cards",
              "the draw pile"]
ROLE_SUBJ_EVENT = {5: "the player who picked up", 12: "the player who took up their face-up cards",
                   13: "the player whose flip failed", 15: "the leader", 16: "the player starting the turn"}
CAUSE_WORDS = ["any clear", "a clear by the clear card", "a clear by a set of one rank",
               "a clear by a chain of 3s", "a clear by a made rule"]


def _rank(x):
    return "a " + RANK_WORDS[x] if x not in (5, 12) else ("a 7" if x == 5 else "an Ace")


def _role(t, g):
    if g == 0 and t in ROLE_SUBJ_EVENT:
        return ROLE_SUBJ_EVENT[t]
    return ROLE_WORDS[g]


NUM_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


def _cards(n):
    return f"{NUM_WORDS.get(n, n)} card" + ("" if n == 1 else "s")


def rule_sentence(t, x, g, n) -> str:
    """One made rule (LO-11.3) as an English sentence."""
    def draws(who):
        return f"{who} draws {_cards(n)}"

    if t == 1:
        return f"When {_rank(x)} is played, {draws(_role(t, g))}."
    if t == 2:
        return f"When {_rank(x)} is played, {_role(t, g)} shows their hand."
    if t == 3:
        return f"When {_rank(x)} is played, the player passes up to {_cards(n)} of their lowest to {_role(t, g)}."
    if t == 4:
        return f"When {x} or more cards are played at once, {draws(_role(t, g))}."
    if t == 5:
        return f"When a pile of {x} or more cards is picked up, {draws(_role(t, g))}."
    if t == 6:
        return f"Before a pile of {x} or more cards is picked up, {_role(t, g)} shows their hand."
    if t == 7:
        what = "a pile is cleared" if x == 0 else {1: "a pile is cleared by a 10", 2: "a pile is cleared by a set",
                                                  3: "a pile is cleared by a chain of 3s",
                                                  4: "a pile is cleared by a made rule"}[x]
        return f"When {what}, {draws(_role(t, g))}."
    if t == 8:
        what = "a pile is cleared" if x == 0 else CAUSE_WORDS[x].replace("a clear", "a pile is cleared")
        dest = "to the bottom of the draw pile" if g == 8 else f"into the hand of {ROLE_WORDS[g]}"
        return f"When {what}, the first {_cards(n)} cleared come back {dest}."
    if t == 9:
        what = "cards of any one rank" if x == 13 else f"{RANK_WORDS[x]}s"
        return f"{n} or more {what} lying together on top of the pile clear it."
    if t == 10:
        return f"A pile that reaches {x} cards is cleared."
    if t == 11:
        return f"A play of {n} or more cards one rank above the previous play clears the pile."
    if t == 12:
        return f"When a player takes up their face-up cards, {draws(_role(t, g))}."
    if t == 13:
        return f"After a failed blind flip, {draws(_role(t, g))}."
    if t == 14:
        which = "the first player goes out" if x == 0 else "a player goes out"
        return f"When {which}, {draws(ROLE_WORDS[g])}."
    if t == 15:
        return f"At the start of the round, {draws(_role(t, g))}."
    if t == 16:
        return f"When a player starts a turn with {x} or more cards, {_role(t, g)} shows their hand."
    return f"Unknown rule {t}."


def _symbols(cards: str) -> str:
    """Cards as the env names them ("9C TD") by suit symbol ("9♣ 10♦")."""
    return " ".join(card_symbol(card_index(c)) for c in cards.split())


def render_text(env) -> str:
    """The table for render_mode "ansi": every seat's hand (all of them: the all-seeing view), face-up
    cards, the pile, and the rules in play; cards by suit symbol."""
    ps = env.public_state()
    n = ps["num_players"]
    lines = [f"LOPTI  round {ps['round'] + 1}/{ps['num_rounds']}  phase {ps['phase']}  dealer P{ps['dealer']}"
             f"  to act: {'-' if ps['to_act'] is None else 'P' + str(ps['to_act'])}"]
    for s in range(n):
        seat = ps["seats"][s]
        up = " ".join(card_symbol(card_index(c)) if c else "--" for c in seat["up"])
        down = sum(seat["down"])
        place = "" if seat["place"] is None else f"  place {seat['place']}"
        lines.append(f"  P{s}: hand [{_symbols(env.hand(s))}] ({seat['hand_size']})  up [{up}]  down {down}{place}"
                     f"  score {ps['scores'][s]:+.2f}")
    pile = "  ".join(f"P{s}:{_symbols(cards)}" for s, cards in ps["pile"]) or "(empty)"
    chain = f"   3-chain: {ps['chain']}" if ps["chain"] else ""
    lines.append(f"  pile: {pile}{chain}")
    if ps["obligation"]:
        lines.append("  obligation: the player to act must play a 3 or pick up the pile")
    elif ps["limit"]:
        low = RANK_WORDS[ps["switches"]["LOW_RANK"]]
        lines.append(f"  limit: the next play must be {low} or lower")
    lines.append(f"  draw pile: {ps['draw_size']}   gone: {len(ps['gone'].split())}   clears: {ps['clears']}")
    for i, r in enumerate(ps["rules"]):
        if r[0]:
            status = "" if r[5] == 1 else " (removed)"
            maker = "" if r[4] < 0 else f" [P{r[4]}]"
            lines.append(f"  rule {i}{maker}{status}: {rule_sentence(r[0], r[1], r[2], r[3])}")
    return "\n".join(lines)


# ---- a made rule's parts and the base rules in words (the web table's session labels and facts) --
TEMPLATE_WORDS = {   # LO-11.3, what each kind of made rule does
    1: "a rank is played: someone draws", 2: "a rank is played: someone shows their hand",
    3: "a rank is played: the player passes low cards", 4: "several cards played at once: someone draws",
    5: "a pile is picked up: someone draws", 6: "before a pile is picked up: someone shows their hand",
    7: "a pile is cleared: someone draws", 8: "a pile is cleared: cleared cards come back",
    9: "a set of one rank on top clears the pile", 10: "a pile that grows big clears",
    11: "a play one rank above the last clears", 12: "face-up cards are taken up: someone draws",
    13: "a blind flip fails: someone draws", 14: "a player goes out: someone draws",
    15: "the round starts: someone draws", 16: "a turn starts with a big hand: someone shows their hand"}
SWITCH_WORDS = {   # LO-12, by switch id: what it sets, and its values in words
    0: ("clear card", lambda v: rank_word(v)), 1: ("low card", lambda v: rank_word(v)),
    2: ("low limit blocks the clear card", lambda v: "yes" if v else "no"),
    3: ("cards of one rank that clear", str), 4: ("draw while the hand holds fewer than", lambda v: f"{v} cards"),
    5: ("drawing", lambda v: "refill the hand" if v else "one card"),
    6: ("pick up the pile at will", lambda v: "yes" if v else "no"),
    7: ("extra move after a clear", lambda v: "yes" if v else "no"), 8: ("swaps per player", str)}


def rank_word(x: int) -> str:
    """A rank as a card shows it: 2..10, J, Q, K, A."""
    return "10" if x == 8 else RANKS[x]


def template_uses(t: int, field: int) -> bool:
    """Whether template t uses field 1 X, 2 G, 3 N (LO-11.3; an unused field is stored as 0)."""
    return bool(int(TPL[t][9]) >> (field - 1) & 1)


def field_value(t: int, field: int, v: int) -> str:
    """A made rule's field (1 X, 2 G, 3 N) value in words, for template t (LO-11.3)."""
    if field == 2:   # as the rule's sentence names the role (rule_sentence)
        return ROLE_SUBJ_EVENT[t] if v == 0 and t in ROLE_SUBJ_EVENT else ROLE_WORDS[v]
    if field == 3:
        return f"{v} or more together" if t in (9, 11) else f"{v} card{'s' if v != 1 else ''}"
    if t in (1, 2, 3):
        return f"{'an' if v in (6, 12) else 'a'} {rank_word(v)}"     # an 8, an A
    if t == 9:
        return "any rank" if v == 13 else f"{rank_word(v)}s"
    if t in (7, 8):
        return CAUSE_WORDS[v]
    if t == 14:
        return "the first player out only" if v == 0 else "every player out"
    return {4: f"{v} or more cards played", 5: f"{v} or more cards picked up", 6: f"a pile of {v} or more",
            10: f"a pile of {v} cards", 16: f"{v} or more cards in hand"}.get(t, str(v))


__all__ = ["render_text", "rule_sentence", "RANKS", "TEMPLATE_WORDS", "SWITCH_NAMES", "SWITCH_WORDS", "rank_word",
           "template_uses", "field_value"]
