"""What the web page draws, per game, from the env's public surface only (public_state, hand,
observe, infos): a table view (seats, the cards on the table, the last trick, labelled facts) and, for
the seat the page plays, its hand with the action each card triggers.

A view is plain JSON: {"phase", "actor", "seats": [{"seat", "count", "cards", "up", "down", "shown",
"tags"}], "table": [[seat, [cards]]], "last": {"title", "plays": [[seat, [cards]]]} or None, "facts":
[[label, value]]}. `cards` is the seat's hand as card texts when the viewer may see it, else None;
`shown` the cards of the seat that every seat knows of, in display order (Sheng Ji: declared copies and
retracted throw cards not yet played, shengji.md 9.3; LOPTI: its known cards, lopti.md 3.2), and
"shown_as" ("known" for LOPTI) names them.
"""
from __future__ import annotations

import numpy as np

from cardzoo.cards import RANKS, SUIT_SYMBOLS, SUITS, card_index, card_symbol
ALTERNATE = {"S": 0, "H": 1, "C": 2, "D": 3}  # a hand's suits in alternating colours


def _by_suit(card: str) -> tuple:
    return (ALTERNATE[card[1]], RANKS.index(card[0])) if card not in ("LJ", "BJ") else (4, card == "BJ")


def _trump_text(trump) -> str:
    """A Sheng Ji trump by its suit symbol, "NT" for no trump."""
    return "not fixed" if trump is None else "NT" if trump == "NT" else SUIT_SYMBOLS[SUITS.index(trump)]


def _by_rank(card: str) -> tuple:
    return RANKS.index(card[0]), ALTERNATE[card[1]]


def _cards(group) -> list[str]:
    """Card texts from a list or a space-separated card group."""
    if group is None:
        return []
    return list(group) if isinstance(group, list) else group.split()


def _team(pair) -> str:
    return f"{pair[0]} : {pair[1]}"


# ---- Court Piece (courtpiece.md 9.3) ------------------------------------------------------------
def _courtpiece(raw, ps: dict) -> dict:
    seats = []
    for s in range(4):
        tags = []
        if s == ps["dealer"]:
            tags.append("dealer")
        if ps["caller"] == s:
            tags.append("caller")
        if ps["hidden_owner"] == s:
            tags.append("face-down card")
        seats.append({"seat": s, "count": ps["hand_sizes"][s], "tags": tags,
                      "down": 1 if ps["hidden_owner"] == s else 0})
    trump = ps["trump"]
    facts = [["Variant", ps["variant"].replace("_", " ")],
             ["Trump", SUIT_SYMBOLS[trump] if trump is not None else "face down" if ps["hidden_owner"] is not None
              else "none: nobody failed to follow" if ps["phase"] == "over" else "not yet"],   # CP-8.3
             ["Tricks (team 0 : 1)", _team(ps["tricks_won"])], ["Score", _team(ps["score"])]]
    if ps["turned_card"]:     # CP-3.5
        facts.append(["Turned card", _symbols([ps["turned_card"]])])
    if ps["shown_card"]:      # the face-down card once shown (CP-7.4, CP-11.6) and when
        facts.append(["Face-down card shown", f"{_symbols([ps['shown_card']])} (trick {ps['shown_at'][0]})"])
    if ps["trump_set_by"]:    # Be-Rang, Katte: the first off-suit card (CP-8.2, CP-11.4)
        facts.append(["Trump set by", f"player_{ps['trump_set_by'][0]}'s {_symbols([ps['trump_set_by'][1]])}"])
    if ps["variant"] == "double_sar":   # the pile, who takes it with the next trick (CP-6.3, CP-6.4) and what was taken
        holder = ps["run_holder"]
        facts += [["Pile", str(len(ps["pile"]))], ["Run holder", "none" if holder is None else f"player_{holder}"],
                  ["Taken", _team(ps["taken"])]]
    if ps["variant"] == "mendi_coat":
        facts.append(["Tens", _team(ps["tens"])])
    done = raw.infos.get(raw.possible_agents[0], {}).get("result")
    if done and done["bazi_index"] < ps["bazi_index"]:   # a match's previous bazi, told until the next ends
        facts.append([f"Bazi {done['bazi_index'] + 1}", _bazi_outcome(done)])
    last = None
    if ps["tricks"]:
        t = ps["tricks"][-1]
        last = {"title": f"Trick {len(ps['tricks'])}, won by player_{t['winner']}",
                "plays": [[s, [c]] for s, c in t["cards"]]}
    return {"seats": seats, "table": [[s, [c]] for s, c in ps["current_trick"]], "last": last, "facts": facts,
            "actor": ps["actor"]}


def _bazi_outcome(result: dict) -> str:
    from courtpiece_env.render import bazi_outcome  # a Court Piece table has imported the game already
    return bazi_outcome(result)


def _courtpiece_hand(raw, seat: int, legal: set[str]):
    return [{"card": c, "action": f"play {c}" if f"play {c}" in legal else None, "selected": False}
            for c in sorted(raw.hand(seat), key=_by_suit)]


def _suit(suit: int | str) -> str:
    """A Court Piece suit (0..3 or its letter) by its symbol."""
    return SUIT_SYMBOLS[suit if isinstance(suit, int) else SUITS.index(suit)]


def _courtpiece_label(raw, seat: int, action: str) -> str:
    """A Court Piece decision in words (courtpiece.md section 4): what a suit, "pass" or a card means in
    the phase it is taken in: "call trump S" -> "call trump ♠", "pass" -> "pass: partner calls" or "keep the
    five cards", a card in the hide phase -> "hide 7♠ face down", else "play 7♠"."""
    ps = raw.public_state()
    phase, words = ps["phase"], action.split()
    if words[:2] == ["call", "trump"]:
        return f"change trump to {_suit(words[2])}" if phase == "change_trump" else f"call trump {_suit(words[2])}"
    if words[0] == "play" and phase in ("hide", "band_hide", "change_trump"):
        return f"hide {card_symbol(card_index(words[1]))} face down"
    if words[0] == "play":
        return f"play {card_symbol(card_index(words[1]))}"
    # the words serve as buttons and as the log's words for any seat's move: no "my"
    return {("call", "pass"): "pass: partner calls", ("hide", "pass"): "pass: partner hides",
            ("change_cards", "pass"): "keep the five cards", ("change_cards", "change cards"): "change the five cards",
            ("play", "ask reveal"): "ask to see the face-down trump", ("play", "lead reveal"): "show the face-down card",
            ("change_trump", "pass"): "keep the face-down card" if ps["variant"] == "chhupa_rang" else
            f"keep trump {_suit(ps['trump'])}" if ps["trump"] is not None else "keep trump"}.get((phase, action), action)


def _courtpiece_hint(raw, seat: int) -> str | None:
    """What a Court Piece decision asks for where the buttons do not say it: calling and hiding
    trump from the first five (CP-3, CP-7.1, CP-11.5), changing cards or trump (CP-10), the duties that
    come with asking for or showing the face-down card (CP-7.5, CP-7.7)."""
    ps = raw.public_state()
    phase, legal = ps["phase"], set(legal_names(raw))
    partner_passed = ps["passed"] and seat != ps["first_chooser"]
    if phase == "call":
        return ("your partner passed: you must call trump" if partner_passed else
                "call trump, or pass and your partner must call it")
    if phase == "hide":
        return ("your partner passed: click one of your first five to hide it face down; its suit is the "
                "secret trump" if partner_passed else "click one of your first five to hide it face down (its "
                "suit is the secret trump), or pass and your partner must hide one")
    if phase == "band_hide":
        return "click one of your first five to hide it face down: its suit becomes trump when it is turned up"
    if phase == "change_cards":
        return "keep your first five cards, or change them for five new ones"
    if phase == "change_trump":
        if ps["variant"] == "chhupa_rang":
            return "you may hide another of your first five face down instead (click it), or keep the card"
        return "you may change trump now that you hold all 13 cards, or keep it"
    if phase == "play":
        if "ask reveal" in legal:
            return "no card of the led suit: play any card, or ask to see the face-down trump (then you must " \
                   "play a trump if you hold one)"
        if "lead reveal" in legal:
            return "lead a card, or show your face-down card (then you must lead a trump)"
        shown = ps["shown_at"]
        if shown and shown == [ps["trick_number"] + 1, len(ps["current_trick"])] and ps["shown_card"]:
            return f"the face-down card was {card_symbol(card_index(ps['shown_card']))}: trump is {_suit(ps['trump'])}"
    return None


# ---- Sheng Ji (shengji.md 9.3) ------------------------------------------------------------------
def _shengji(raw, ps: dict) -> dict:
    seats = []
    for s in range(4):
        tags = []
        if ps["banker"] == s:
            tags.append("banker")
        if ps["leader"] == s:
            tags.append("leads")
        seats.append({"seat": s, "count": ps["hand_sizes"][s], "tags": tags, "down": 0,
                      # declared copies and retracted throw cards, not yet played (SJ-4.3, SJ-7.4)
                      "shown": sorted(_cards(ps["shown"][s]), key=_by_suit)})
    standing = ps["standing"]
    facts = [["Trump", _trump_text(ps["trump"]) if ps["trump"] else "not yet"], ["Level", RANKS[ps["hand_level"]]],
             ["Levels (team 0 : 1)", _team([RANKS[x] for x in ps["levels"]])],
             ["Points (team 0 : 1)", _team(ps["points"])]]
    if standing:
        facts.append(["Declared", f"player_{standing[0]}: {_symbols([standing[1]])} ×{standing[2]}"])
    if ps["kitty_revealed"]:     # nobody declared: kitty cards turned to fix trump, public (SJ-4.9)
        facts.append(["Kitty turned", _symbols(ps["kitty_revealed"])])
    if ps["kitty"]:
        facts.append(["Kitty", _symbols(_cards(ps["kitty"]))])
    done = ps["result"]
    if done and done["hand_index"] < ps["hand_index"]:   # a match's previous hand and its kitty (SJ-10.3)
        facts.append([f"Hand {done['hand_index'] + 1}", shengji_outcome(done)])
        kitty = f"{_symbols(_cards(done['kitty']))} ({done['kitty_points']} points)"
        facts.append([f"Hand {done['hand_index'] + 1} kitty", kitty])
    for ft in ps["failed_throws"]:     # SJ-7.4, while its trick is on the table or the last one
        if ft["trick"] >= len(ps["tricks"]) - 1:
            told = (f"player_{ft['seat']}'s throw {_symbols(_cards(ft['attempted']))} failed: "
                    f"plays {_symbols(_cards(ft['played']))}")
            facts.append([f"Failed throw (trick {ft['trick'] + 1})", told])
    last = None
    if ps["tricks"]:
        t = ps["tricks"][-1]
        last = {"title": f"Trick {len(ps['tricks'])}, won by player_{t['winner']} ({t['points']} points)",
                "plays": [[s, _cards(c)] for s, c in t["plays"]]}
    return {"seats": seats, "table": [[s, _cards(c)] for s, c in ps["trick"]], "last": last, "facts": facts,
            "actor": ps["current_player"]}


def _shengji_hand(raw, seat: int, legal: set[str]):
    """Every copy of every card; the copies being composed (the observation's selection, 4) come
    first and are marked selected, the others trigger "card <c>" while it is legal."""
    selection = raw.observe(raw.possible_agents[seat])["observation"][54:108]
    ps = raw.public_state()
    trump, level = ps["trump"], RANKS[ps["hand_level"]]

    def order(c: str) -> tuple:
        """Plain suits first, then the trumps (SJ-3): trump suit, level cards, trump-suit level cards, jokers."""
        if c in ("LJ", "BJ"):
            return (1, 5 + (c == "BJ"), 0)
        if c[0] == level:
            return (1, 4 if c[1] == trump else 3, ALTERNATE[c[1]])
        return (1, 2, RANKS.index(c[0])) if c[1] == trump else (0, ALTERNATE[c[1]], RANKS.index(c[0]))

    out = []
    held = _cards(raw.hand(seat))
    for c in sorted(set(held), key=order):
        n = held.count(c)
        k = int(selection[card_index(c, jokers=True)])
        action = f"card {c}" if f"card {c}" in legal else None
        out += [{"card": c, "action": None, "selected": True}] * k
        out += [{"card": c, "action": action, "selected": False}] * (n - k)
    return out


# ---- LOPTI (lopti.md 9.4) -----------------------------------------------------------------------
PILE_PLAYS_DRAWN = 6   # the pile's newest plays drawn on the table; the others lie under them, counted
def _lopti(raw, ps: dict) -> dict:
    seats = []
    for s, st in enumerate(ps["seats"]):
        tags = []
        if s == ps["dealer"]:
            tags.append("dealer")
        if st["place"] is not None:
            tags.append(f"place {st['place'] + 1}")
        seats.append({"seat": s, "count": st["hand_size"], "tags": tags, "down": sum(st["down"]),
                      "up": [c for c in st["up"] if c],
                      # its known cards: picked up, taken from the face-up row, swapped in... (lopti.md 3.2)
                      "shown": sorted(_cards(st["known"]), key=_by_rank)})
    top = ps["top"]
    pile = [[s, _cards(c)] for s, c in ps["pile"]]
    size = sum(len(c) for _, c in pile)
    facts = [["Round", f"{ps['round'] + 1} of {ps['num_rounds']}"], ["Draw pile", str(ps["draw_size"])],
             ["Pile", f"{size} card{'s' if size != 1 else ''}" if size else "empty"],
             ["Top", f"{top['count']} x {RANKS[top['rank']]}" if top else "empty table"],
             ["Scores", " : ".join(f"{x:g}" for x in ps["scores"])]]
    if ps["obligation"]:
        facts.append(["Obligation", "play or pick up"])
    facts += _lopti_session_facts(ps)
    last = None
    if ps["last_clear"]:
        lc = ps["last_clear"]
        last = {"title": f"Last clear, by player_{lc['seat']}", "plays": [[lc["seat"], _cards(lc["cards"])]]}
    # the newest plays are drawn; the ones under them are counted (all are public, lopti.md 3.2)
    under = pile[:-PILE_PLAYS_DRAWN]
    return {"seats": seats, "table": pile[-PILE_PLAYS_DRAWN:], "last": last, "facts": facts, "actor": ps["to_act"],
            "pile": True, "shown_as": "known", "under": {"plays": len(under), "cards": [c for _, cs in under for c in cs]}}


def _lopti_hand(raw, seat: int, legal: set[str]):
    """A card of rank r plays one card of that rank ("play r") when that is legal; plays of several
    cards, swaps and the rest are buttons."""
    return [{"card": c, "action": f"play {c[0]}" if f"play {c[0]}" in legal else None, "selected": False}
            for c in sorted(_cards(raw.hand(seat)), key=_by_rank)]


SHENGJI_CARD_VERBS = {"LEAD": "add {} to the lead", "FOLLOW": "play {}", "BURY": "bury {}"}
"""What choosing a card does in each phase (shengji.md section 4): a lead is composed card by card and
played on DONE, a follow plays its cards one by one, the banker buries one card at a time."""


def _shengji_label(raw, seat: int, action: str) -> str:
    """"declare level D x2" -> "declare 2♦ ×2", "declare BJ x2" -> "declare BJ ×2", "name trump S" ->
    "name trump ♠", "card 7H" -> "play 7♥" (by phase), DONE -> "lead the chosen cards", a window's PASS
    -> "pass: no declaration"."""
    words = action.split()
    if words[0] == "declare":
        card = RANKS[raw.public_state()["hand_level"]] + words[2] if words[1] == "level" else words[1]
        return f"declare {_symbols([card])} ×{words[-1][1:]}"
    if words[:2] == ["name", "trump"]:
        return f"name trump {_trump_text(words[2])}"
    if words[0] == "card":
        verb = SHENGJI_CARD_VERBS.get(raw.public_state()["phase"])
        return verb.format(_symbols([words[1]])) if verb else action
    return {"done": "lead the chosen cards", "pass": "pass: no declaration"}.get(action, action)


def _shengji_hint(raw, seat: int) -> str | None:
    """The BURY prompt: how many cards the banker buries (SJ-5.1), and how many are still to choose."""
    ps = raw.public_state()
    if ps["phase"] != "BURY" or ps["banker"] != seat:
        return None
    kitty = ps["hand_sizes"][seat] - ps["hand_sizes"][(seat + 1) % 4]
    chosen = int(raw.observe(raw.possible_agents[seat])["observation"][54:108].sum())
    return f"bury {kitty} cards: click {kitty - chosen} more" + (f" ({chosen} chosen)" if chosen else "")


# ---- LOPTI session mode (lopti.md LO-10 to LO-12): its decisions and its public state in words -----
KIND_WORDS = {1: "remove", 2: "change", 3: "change a base rule", 4: "bring back"}


def _lopti_words():
    """lopti_env.render, LOPTI's words, imported when a LOPTI table first needs them (the game's import
    is heavy)."""
    from lopti_env import render

    return render


def _rule_sentence(t: int, x: int, g: int, n: int) -> str:
    return _lopti_words().rule_sentence(t, x, g, n)


FIELD_WORDS = {1: "the condition", 2: "who", 3: "how many"}


def _change_text(ps: dict, kind: int, target: int, field: int, value: int) -> str:
    """A proposed or pending change (LO-10.5, 10.8) in words; -1: not chosen yet."""
    if kind == 3:
        if target < 0:
            return "change a base rule"
        name, word = _lopti_words().SWITCH_WORDS[target]
        return f"set '{name}' to {word(value)}" if value >= 0 else f"change '{name}'"
    if target < 0:
        return f"{KIND_WORDS[kind]} a rule"
    rule = list(ps["rules"][target][:4])
    if kind == 2 and field > 0 and value >= 0:
        rule[field] = value
        return f"change rule {target + 1} to: {_rule_sentence(*rule).rstrip('.')}"
    return f"{KIND_WORDS[kind]} rule {target + 1}: {_rule_sentence(*rule).rstrip('.')}"


def _lopti_session_facts(ps: dict) -> list:
    """The rulebook, the base rules changed, the pending change, the vote being held (proposal or
    setup candidate, ballots and volunteers once all are in), the rock-paper-scissors score."""
    from lopti_env.config import SWITCH_DEFAULTS

    lw = _lopti_words()
    facts = []
    for slot, row in enumerate(ps["rules"]):
        t, x, g, n, maker, status = row[:6]
        if t:
            label = f"Rule {slot + 1}" + (f" (player_{maker})" if maker >= 0 else "") + (" removed" if status == 2 else "")
            facts.append([label, _rule_sentence(t, x, g, n)])
    changed = [f"{lw.SWITCH_WORDS[i][0]}: {lw.SWITCH_WORDS[i][1](ps['switches'][name])}"
               for i, name in enumerate(lw.SWITCH_NAMES) if ps["switches"][name] != SWITCH_DEFAULTS[i]]
    if changed:
        facts.append(["Base rules changed", "; ".join(changed)])
    if ps["pending"]:
        facts.append(["Pending (next round)", _change_text(ps, *ps["pending"])])
    draft = ps["draft"]
    if draft and ps["phase"] == "rule_making":
        t = draft[0]
        parts = [f"{FIELD_WORDS[f]}: {lw.field_value(t, f, draft[f])}" for f in (1, 2, 3)
                 if t > 0 and draft[f] >= 0 and lw.template_uses(t, f)]
        facts.append(["Rule being made", (f"{lw.TEMPLATE_WORDS[t]}" if t > 0 else "its kind not chosen yet")
                      + (f" ({', '.join(parts)})" if parts else "")])
    if ps["setup"]:
        su = ps["setup"]
        facts.append(["Setup vote", f"bring back: {_rule_sentence(*su['rule'][:4])}"
                      + (f" ({su['yes']} yes)" if su["yes"] is not None else "")])
    prop = ps["proposal"]
    if prop:
        text = _change_text(ps, prop["kind"], prop["target"], prop["field"], prop["value"])
        if prop["timing"] >= 0:
            text += ", now" if prop["timing"] == 0 else ", from the next round"
        if prop["yes"] is not None:
            text += f"; {prop['yes']} yes"
        if prop["defender"] is not None:
            text += f"; defended by player_{prop['defender']}"
        if prop["result"]:
            text += f"; {prop['result']}"
        facts.append([f"Proposal (player_{prop['proposer']})", text])
    for key, label in (("ballots", "Votes"), ("volunteers", "Defenders")):   # of the vote being held
        if (prop or ps["setup"]) and any(b is not None for b in ps[key]):
            facts.append([label, ", ".join(f"player_{s} {'yes' if b else 'no'}"
                                           for s, b in enumerate(ps[key]) if b is not None)])
    rps = ps["rps"]
    if rps:
        a, b = rps["score"]
        kind = "match" if rps["kind"] == "match" else "bracket"
        score = (f"player_{rps['first']} {a} : {b} player_{rps['second']}"
                 f" ({rps['decisive']} decisive of {rps['throws']} throws)")
        facts.append([f"Rock-paper-scissors ({kind})", score])
    return facts


THROWS = {0: "rock", 1: "paper", 2: "scissors"}
_OBS_RPS = 296   # the observation's rps block (lopti.md 3.5)


def _lopti_last_throws(raw, seat: int) -> list:
    """The seat's and its opponent's last throw, once both have thrown (the seat's observation)."""
    obs = raw.observe(raw.possible_agents[seat])["observation"]
    role, mine, theirs = int(obs[_OBS_RPS]), int(obs[_OBS_RPS + 5]), int(obs[_OBS_RPS + 6])
    if role == 0 or mine < 0 or theirs < 0:
        return []
    return [["Last throw", f"you {THROWS[mine]}, they {THROWS[theirs]}"]]


def _lopti_label(raw, seat: int, action: str) -> str:
    """A LOPTI decision in words: "swap 2 up0" -> "swap 2 for 9♠" (the face-up card in slot 0); in a
    session, "select v" by what it selects at that sub-step (a kind of rule, a value, a rule to delete
    or to vote on, a base rule), the proposal's, ballot's and volunteer's choices."""
    words = action.split()
    ps = raw.public_state()
    if words[0] == "swap":
        up = ps["seats"][seat]["up"][int(words[2][2:])]
        return f"swap {'10' if words[1] == 'T' else words[1]} for {_symbols([up])}" if up else action
    phase, sub = ps["phase"], ps["substep"]
    if words[0] == "select":
        v = int(words[1])
        lw = _lopti_words()
        if phase == "rule_making":
            t = ps["draft"][0]
            if sub == 0:
                return f"a rule for: {lw.TEMPLATE_WORDS[v]}"
            if sub == 3:
                return _rule_sentence(t, ps["draft"][1], ps["draft"][2], v)
            return f"{FIELD_WORDS[sub]}: {lw.field_value(t, sub, v)}"
        if phase == "creator":
            return f"delete rule {v + 1}: {_rule_sentence(*ps['rules'][v][:4])}"
        if phase == "proposal":
            prop = ps["proposal"]
            if sub == 1:
                if prop["kind"] == 3:
                    name, word = lw.SWITCH_WORDS[v]
                    return f"'{name}' (now {word(ps['switches'][lw.SWITCH_NAMES[v]])})"
                return f"rule {v + 1}: {_rule_sentence(*ps['rules'][v][:4])}"
            if sub == 2:
                t = ps["rules"][prop["target"]][0]
                return f"change {FIELD_WORDS[v]} (now {lw.field_value(t, v, ps['rules'][prop['target']][v])})"
            if sub == 3:
                if prop["kind"] == 3:
                    return f"to {lw.SWITCH_WORDS[prop['target']][1](v)}"
                rule = list(ps["rules"][prop["target"]][:4])
                rule[prop["field"]] = v
                return f"to: {_rule_sentence(*rule)}"
        return action
    if phase == "proposal":
        return {"pass": "no proposal", "propose remove": "propose: remove a rule",
                "propose amend": "propose: change a rule", "propose base": "propose: change a base rule",
                "propose restore": "propose: bring back a removed rule", "timing now": "apply it now",
                "timing next": "apply it from the next round"}.get(action, action)
    if phase == "creator" and action == "pass":
        return "keep my rules"
    if action in ("yes", "no"):
        return {("ballot", "yes"): "yes: make the change", ("setup_vote", "yes"): "yes: bring the rule back",
                ("volunteer", "yes"): "yes: I defend the rule", ("volunteer", "no"): "no: I don't"}.get(
            (phase, action), action)
    return action


LOPTI_HINTS = {
    ("rule_making", 0): "you won the round: make a rule. What should it be about?",
    ("rule_making", 1): "make a rule: choose its condition", ("rule_making", 2): "make a rule: who does it affect?",
    ("rule_making", 3): "make a rule: how many?", ("creator", 0): "you may delete a rule you made",
    ("proposal", 0): "propose a change to the rules (the table votes on it), or not",
    ("proposal", 1): "your proposal: which one?", ("proposal", 2): "your proposal: what to change?",
    ("proposal", 3): "your proposal: the new value", ("proposal", 4): "your proposal: when does it apply?",
    ("ballot", 0): "vote on the proposal (see the facts)", ("setup_vote", 0): "vote: bring the rule back?",
    ("volunteer", 0): "the change is tied: will you defend the rule at rock-paper-scissors?",
    ("bracket", 0): "rock-paper-scissors: who defends the rule?",
    ("match", 0): "rock-paper-scissors: the vote is decided by this match"}


def _lopti_hint(raw, seat: int) -> str | None:
    ps = raw.public_state()
    return LOPTI_HINTS.get((ps["phase"], ps["substep"]))


_VIEWS = {"courtpiece": (_courtpiece, _courtpiece_hand), "shengji": (_shengji, _shengji_hand),
          "lopti": (_lopti, _lopti_hand)}
_LABELS = {"courtpiece": (_courtpiece_label, _courtpiece_hint), "shengji": (_shengji_label, _shengji_hint),
           "lopti": (_lopti_label, _lopti_hint)}


# Court Piece's observation block of the seat's own face-down card (courtpiece.md 3.4), set while the
# seat has hidden a card it has seen (CP-7.3; not the unseen card of CP-7.8 or a Band timeout)
_CP_OWN_HIDDEN = slice(104, 156)


def _courtpiece_hidden(raw, ps: dict, show) -> list:
    """The fact naming a face-down trump card for a seat in `show` that hid it and knows it."""
    owner = ps["hidden_owner"]
    if owner is None or not (show == "all" or owner in show):
        return []
    block = raw.observe(raw.possible_agents[owner])["observation"][_CP_OWN_HIDDEN]
    known = np.flatnonzero(block)
    return [[f"Face-down card (player_{owner})", card_symbol(int(known[0]))]] if known.size else []


def table_view(game: str, raw, show: set[int] | str = frozenset()) -> dict:
    """The table as every seat sees it, with the hands of the seats in `show` ("all": every seat)."""
    ps = raw.public_state()
    view = _VIEWS[game][0](raw, ps)
    view["phase"] = ps["phase"]
    for st in view["seats"]:
        visible = show == "all" or st["seat"] in show
        st["cards"] = _cards(raw.hand(st["seat"])) if visible else None
        st.setdefault("up", [])
        st.setdefault("shown", [])
    if game == "courtpiece":
        view["facts"] += _courtpiece_hidden(raw, ps, show)
    if game == "lopti" and ps["rps"] and show != "all":
        for seat in sorted(show):     # a contestant's own last throw and its opponent's, both public now
            view["facts"] += _lopti_last_throws(raw, seat)
    if show != "all" and view["phase"] in PRIVATE_WINDOWS.get(game, ()) and view["actor"] not in show:
        view["actor"] = None     # another seat's private window (a Sheng Ji declaration window)
    return view


def hand_view(game: str, raw, seat: int, legal: list[str]) -> tuple[list[dict], list[str]]:
    """(the seat's cards in the order to show them, each with the action a click sends or None; the
    legal actions no card triggers, as buttons)."""
    legal_set = set(legal)
    hand = _VIEWS[game][1](raw, seat, legal_set)
    on_cards = {h["action"] for h in hand if h["action"]}
    return hand, [a for a in legal if a not in on_cards]


def button_labels(game: str, raw, seat: int, buttons: list[str]) -> dict[str, str]:
    """What each button says where that differs from the action's name: the card a Sheng Ji
    declaration shows ("declare 2♦ ×1"), the face-up card a LOPTI swap takes ("swap 2 for 9♠")."""
    label = _LABELS.get(game, (None, None))[0]
    if label is None:
        return {}
    return {a: text for a in buttons if (text := label(raw, seat, a)) != a}


def move_label(game: str, raw, seat: int, action: str) -> str | None:
    """What the log says for `seat` making `action` now (before it is made), where that differs from
    the action's name; None for a name that is not legal now (a bad record's step)."""
    label = _LABELS.get(game, (None, None))[0]
    if label is None or not raw.agents or raw.seat_of(raw.agent_selection) != seat or action not in legal_names(raw):
        return None
    text = label(raw, seat, action)
    return text if text != action else None


def turn_hint(game: str, raw, seat: int) -> str | None:
    """What the person's decision asks for, where the buttons and cards do not say it: a Sheng Ji
    banker's burial ("bury 8 cards: click 5 more (3 chosen)")."""
    hint = _LABELS.get(game, (None, None))[1]
    return hint(raw, seat) if hint is not None else None


# Moves the other seats do not see when they are made (each spec's hidden information): a Sheng Ji
# banker's buried kitty cards (SJ-5), a Court Piece trump card hidden face down (Chhupa Rang, Band),
# LOPTI's ballots, volunteer answers and rock-paper-scissors throws (lopti.md 3.4). What they were
# shows in the table once the rules make it public.
HIDDEN_MOVES = {
    "shengji": {"BURY": "buries a card"},
    "lopti": {"setup_vote": "votes", "ballot": "votes", "volunteer": "answers", "bracket": "throws",
              "match": "throws"},
}


# Moves the other seats do not see at all, not even that a decision was made: a Sheng Ji seat is given
# a declaration window only while it holds a legal declaration (SJ-4.6), so another seat's pass there
# would show that it holds a level card or a joker pair, which no observation shows (shengji.md 3).
SILENT_MOVES = {"shengji": {("DECLARE", "pass")}}

# Phases in which whether a seat is asked at all is private: while another seat decides in one, the
# page names no actor, and the table it shows is the one at the last public moment (tables.Table).
PRIVATE_WINDOWS = {"shengji": {"DECLARE"}}


# Card moves that put a card face down in a phase whose other moves are public: Court Piece's hidden
# trump (Chhupa Rang, Band) and Chhupa Rang's change of it (CP-10.2: "others see that a swap happened",
# not the new card). A pass there is public (courtpiece.md 3.1: whether the first chooser passed), as
# are a Single or Double Sar switch of suit and keeping (pass).
HIDDEN_CARD_MOVES = {"courtpiece": {"hide": "hides a card", "band_hide": "hides a card",
                                    "change_trump": "swaps its face-down card"}}


def public_move(game: str, phase: str, action: str) -> str | None:
    """How another seat sees `action`, made in `phase`: its name, for a hidden move what kind it was,
    and None for a silent move (the others see nothing)."""
    if (phase, action) in SILENT_MOVES.get(game, ()):
        return None
    if action.startswith("play ") and phase in HIDDEN_CARD_MOVES.get(game, {}):
        return HIDDEN_CARD_MOVES[game][phase]
    return HIDDEN_MOVES.get(game, {}).get(phase, action)


def private_window(game: str, phase: str, actor, viewer) -> bool:
    """Whether `actor`, deciding in `phase`, is being asked something `viewer` must not learn of."""
    return actor is not None and actor != viewer and phase in PRIVATE_WINDOWS.get(game, ())


def legal_names(raw) -> list[str]:
    """The acting seat's legal actions by name ([] once the game is over)."""
    if not raw.agents:
        return []
    mask = raw.infos[raw.agent_selection]["action_mask"]
    return [raw.action_name(int(a)) for a in np.flatnonzero(mask)]


def _symbols(cards: list[str]) -> str:
    return " ".join(card_symbol(card_index(c, jokers=True)) for c in cards) or "-"


def view_text(view: dict) -> str:
    """A table_view as text for a terminal (suit symbols): the facts, each seat's count and tags (its
    cards where the view shows them), the cards on the table and the last trick or clear."""
    lines = [f"phase {view['phase']}, player_{view['actor']} to act" if view.get("actor") is not None
             else f"phase {view['phase']}"]
    lines += [f"  {label}: {value}" for label, value in view["facts"]]
    for st in view["seats"]:
        tags = f" [{', '.join(st['tags'])}]" if st["tags"] else ""
        up = f", face up {_symbols(st['up'])}" if st["up"] else ""
        down = f", {st['down']} face down" if st["down"] else ""
        up += f", shown {_symbols(st['shown'])}" if st["shown"] else ""
        held = _symbols(st["cards"]) if st["cards"] is not None else f"{st['count']} cards"
        lines.append(f"  player_{st['seat']}{tags}: {held}{up}{down}")
    if view["table"]:
        under = view.get("under", {}).get("cards")
        lines.append("  on the table: " + (f"{_symbols(under)} (earlier plays), " if under else "")
                     + ", ".join(f"player_{s} {_symbols(c)}" for s, c in view["table"]))
    if view["last"]:
        plays = ", ".join(f"player_{s} {_symbols(c)}" for s, c in view["last"]["plays"])
        lines.append(f"  {view['last']['title']}: {plays}")
    return "\n".join(lines)


# ---- the result, as the page's result box shows it ---------------------------------------------
def _num(x: float) -> str:
    """A number to 3 decimals without trailing zeros (float32 rewards: -0.3333333432674408 -> -0.333)."""
    r = round(float(x), 3)
    return f"{r:g}" if r != 0 else "0"


def _signed(x: float) -> str:
    return ("+" if round(float(x), 3) > 0 else "") + _num(x)


def ordinal(n: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _you(seat: int, viewer) -> str:
    return f"player_{seat}" + (" (you)" if seat == viewer else "")


def _standing(values: list[float], seat: int) -> tuple[int, int]:
    """(1-based rank of `seat` by `values`, how many seats share that value)."""
    mine = round(float(values[seat]), 6)
    rounded = [round(float(v), 6) for v in values]
    return 1 + sum(v > mine for v in rounded), rounded.count(mine)


def _lopti_result(result: dict, rewards: list[float], viewer) -> tuple[str | None, list]:
    places, n = result["places"], len(result["places"])
    settled = sum(p is not None for p in places)      # the others share places settled+1 .. n (LO-9.6)
    shared = f"{ordinal(settled + 1)}–{ordinal(n)}" if settled + 1 < n else ordinal(n)

    def place(s: int) -> str:
        return ordinal(places[s] + 1) if places[s] is not None else f"shared {shared}"

    session = len(result["round_winners"]) > 1
    rows = []
    for s in range(n):
        text = f"{place(s)} place" + (" in the last round" if session else "")
        text += f" ({_signed(result['round_rewards'][s])})"
        rows.append([_you(s, viewer), text + (f", total {_signed(result['scores'][s])}" if session else "")])
    if session:
        rows.append(["Round winners", ", ".join("nobody" if w is None else f"player_{w}"
                                                for w in result["round_winners"])])
    if result["truncated"]:
        rows.append(["Last round", "cut short at the move limit (LO-9.5)"])
    headline = None
    if viewer is not None:
        if session:
            rank, ties = _standing(result["scores"], viewer)
            headline = (f"You finished {ordinal(rank)} of {n}" if ties == 1 else
                        f"You shared {ordinal(rank)} of {n}") + f" on points ({_signed(rewards[viewer])})"
        elif places[viewer] is not None:
            headline = f"You finished {ordinal(places[viewer] + 1)} of {n} ({_signed(rewards[viewer])})"
        else:
            headline = f"You shared places {shared} of {n} ({_signed(rewards[viewer])})"
    return headline, rows




def shengji_outcome(result: dict) -> str:
    """A finished hand in words (SJ-11): "team 1 took over, up 1 level: opponents 85 points"."""
    held = result["outcome"] == "hold"
    winners = result["declarers"] if held else 1 - result["declarers"]
    gained = result["levels_gained"][winners]
    return (f"team {winners} {'held' if held else 'took over'}, up {gained} level{'s' if gained != 1 else ''}: "
            f"opponents {result['opponent_points']} points")


def _shengji_result(result: dict, rewards: list[float], viewer, match: bool) -> tuple[str | None, list]:
    declarers = result["declarers"]
    held = result["outcome"] == "hold"
    winners = declarers if held else 1 - declarers
    gained = result["levels_gained"][winners]
    parts = [f"tricks {result['trick_points'][1 - declarers]}"]
    if result["kitty_bonus"]:
        parts.append(f"kitty {result['kitty_bonus']} = {result['kitty_points']} x {result['multiplier']}")
    if result["penalty"]:
        parts.append(f"penalty {result['penalty']:+d}")
    rows = [["Outcome", f"team {winners} {'held' if held else 'took over'}, up {gained} level{'s' if gained != 1 else ''}"],
            ["Opp. points", f"{result['opponent_points']} ({', '.join(parts)})"],
            ["Kitty", f"{_symbols(_cards(result['kitty']))} ({result['kitty_points']} points)"],
            ["Level, trump", f"{RANKS[result['hand_level']]}, {_trump_text(result['trump'])}"],
            ["New levels", f"{' : '.join(RANKS[x] for x in result['new_levels'])} (team 0 : 1)"],
            ["Banker", _you(result["banker"], viewer)], ["Next banker", _you(result["next_banker"], viewer)],
            ["Last trick", _you(result["last_trick_winner"], viewer)]]
    hands, champion = result["hand_index"] + 1, result["match_winner"]
    if match:     # the rows above are the last hand's; the rewards are the whole match's (shengji.md 5)
        rows[0][0] = f"Hand {hands}"
        rows.insert(0, ["Match", f"won by team {champion} in {hands} hand{'s' if hands != 1 else ''}"
                        if champion is not None else
                        f"stopped after {hands} hand{'s' if hands != 1 else ''} (max_hands): no team passed A"])
    elif champion is not None:
        rows.append(["Match", f"won by team {champion}"])
    headline = None
    if viewer is not None and match:
        levels = result["new_levels"]
        headline = (f"{'Your team' if viewer % 2 == champion else 'The other team'} won the match" if champion is not None
                    else f"The match stopped after {hands} hands: your team at {RANKS[levels[viewer % 2]]}, "
                         f"the other at {RANKS[levels[1 - viewer % 2]]}") + f" ({_signed(rewards[viewer])})"
    elif viewer is not None:
        who = "Your team" if viewer % 2 == winners else "The other team"
        verb = "won" if rewards[viewer] > 0 else "lost" if rewards[viewer] < 0 else "drew"
        headline = f"{who} {'held the bank' if held else 'took over'}: you {verb} ({_signed(rewards[viewer])})"
    return headline, rows


def _courtpiece_result(result: dict, rewards: list[float], viewer, match: bool) -> tuple[str | None, list]:
    """A bazi (or a match's last bazi) in words: who won and how (CP-9.1, CP-11.9), the next dealer
    (CP-9.4, CP-11.10), the match's winner; the headline from the viewer's team."""
    winner, champion = result["winner_team"], result.get("match_winner")
    rows = [["Bazi" + (f" {result['bazi_index'] + 1}" if match else ""), _bazi_outcome(result)],
            ["Decided at trick", str(result["decided_at_trick"])], ["Next dealer", _you(result["next_dealer"], viewer)]]
    if champion is not None:
        rows.insert(0, ["Match", f"won by team {champion}"])
    headline = None
    if viewer is not None:
        mine = viewer % 2
        if match and champion is not None:
            headline = f"{'Your team' if mine == champion else 'The other team'} won the match"
        else:
            headline = f"{'Your team' if mine == winner else 'The other team'} won the bazi"
        headline += f" ({_signed(rewards[viewer])})"
    return headline, rows


def _generic_result(result: dict) -> list:
    def text(v) -> str:
        if v is None:
            return "-"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, (int, float)):
            return _num(v)
        if isinstance(v, list):
            return " : ".join(map(text, v))
        return str(v).replace("_", " ")

    return [[k.replace("_", " ").capitalize(), text(v)] for k, v in result.items()]


def result_view(game: str, result: dict | None, rewards: list[float] | None, viewer: int | None = None,
                match: bool = False) -> dict:
    """The finished game's result for the page: {"headline", "tone" ("won", "lost" or "even", for
    `viewer`'s seat; "even" without one), "rows": [[label, text]]}: places as ordinals by player,
    levels and trump by name, the reward of every seat. `match`: the game was a match of several hands
    or bazis (config episode="match"), so `result` is its last one's and `rewards` the totals."""
    rewards = [float(r) for r in rewards] if rewards else None
    if viewer is not None and (rewards is None or not 0 <= viewer < len(rewards)):
        viewer = None
    headline, rows = None, []
    if result and game == "lopti":
        headline, rows = _lopti_result(result, rewards or [0.0] * len(result["places"]), viewer)
    elif result and game == "shengji":
        headline, rows = _shengji_result(result, rewards or [0.0] * 4, viewer, match)
    elif result and game == "courtpiece":
        headline, rows = _courtpiece_result(result, rewards or [0.0] * 4, viewer, match)
    elif result:
        rows = _generic_result(result)
    if rewards and game != "lopti":
        rows.append(["Rewards", " / ".join(map(_signed, rewards)) + " (by player)"])
    mine = rewards[viewer] if viewer is not None else None
    if headline is None:
        headline = ("Game over" if mine is None else f"You won ({_signed(mine)})" if mine > 0 else
                    f"You lost ({_signed(mine)})" if mine < 0 else "A draw")
    tone = "even" if mine is None or round(mine, 6) == 0 else "won" if mine > 0 else "lost"
    return {"headline": headline, "tone": tone, "rows": rows}
