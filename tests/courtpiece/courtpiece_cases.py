"""Shared helpers for the Court Piece scenario cases (spec section 8).

Everything here goes through the pinned public surface of spec section 9 only:
`courtpiece_env.env(**config)`, `reset(options={"deal": ...})`, `step`, `timeout()`, `observe`,
`infos`, `rewards`, `terminations`, `env.unwrapped.public_state()` and `env.unwrapped.hand(seat)`.
Card text <-> id is recomputed here from the CONVENTIONS (index = suit * 13 + rank) so that the
tests do not lean on engine code.

The test modules import it as `courtpiece_cases` (pytest puts each test folder on the path; the
game in the name keeps it apart from the other games' helpers).
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

RANKS = "23456789TJQKA"
SUITS = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

# Non-card action ids (spec section 4).
SUIT_ACTION = {"C": 52, "D": 53, "H": 54, "S": 55}
PASS = 56
ASK_REVEAL = 57
LEAD_REVEAL = 58
CHANGE_CARDS = 59

AGENTS = [f"player_{i}" for i in range(4)]

# Spec 9.3: public_state() has exactly these keys.
PUBLIC_STATE_KEYS = {
    "variant", "phase", "actor", "dealer", "first_chooser", "passed", "caller", "trump",
    "turned_card", "hidden_owner", "shown_card", "shown_at", "trump_changed", "trump_set_by",
    "leader", "hand_sizes", "trick_number", "current_trick", "tricks", "tricks_won", "pile",
    "run_holder", "taken", "tens", "change_cards_used", "decided", "result", "score", "streak",
    "target", "bazi_index",
}
# Spec 9.4: keys of a result dict.
RESULT_KEYS = {
    "bazi_index", "winner_team", "kind", "points", "kots", "bonus", "next_dealer",
    "decided_at_trick", "match_winner",
}

# --------------------------------------------------------------------------------------------
# Deals of spec 8.1: each seat's 13 cards in deal order (first five | second packet | third).
# --------------------------------------------------------------------------------------------
DEAL_A = [
    "AH KH 5H 9C 3D | QS 7S 4C 2D | JD 8H 6C 2S",
    "AS KS 9H 7D 4H | AD KD 8D 5S | TS 3S 6H 2H",
    "AC KC QC 6D TH | JC TC 8C QD | 7C 5C 3C 2C",
    "JH 4D 4S 9S 3H | QH 5D 6S 8S | 7H 9D TD JS",
]
DEAL_K = [
    "TH QD JC AS TS | KH 8D KS QS | AD 9S 9C TC",
    "3S 3C 6C 2S 7D | 8H 6S 2D 7C | 4S 2C 7S 7H",
    "TD 8C AH KC 9H | JS QH JD AC | KD 9D JH QC",
    "6H 3H 5H 6D 4D | 5C 5D 5S 3D | 4H 4C 2H 8S",
]
DEAL_G = [
    "6D 7C 4H 8H 2C | 4S 5C 5H 6H | 3D 6C 3H 7H",
    "TD KC JC AS TH | JD 9C AC 9S | TS QH QC KS",
    "2H 2S 5D 4D 5S | 7S 8S 3S 6S | 7D 4C 3C 2D",
    "AD 8C JH JS KH | TC KD 8D 9H | AH 9D QD QS",
]
DEAL_D = [
    "3D TS 8H 8D JH | QS KH 9C 6D | JD AH 7C JC",
    "QC QD 6S 6C 5H | KS 3S KC 4C | 7H 6H JS 4H",
    "TC QH 8S 9H 8C | 2H 2C 3H 9S | 2S KD 2D 5S",
    "TD 7D 7S AD TH | 5C 3C 5D AS | 4D AC 4S 9D",
]
DEAL_E = [
    "7S TD 7H 3C KC | 2C TC AD AC | QC 6H 9D 5D",
    "3H 9S 5H 2H 8C | 8H 3S 2D 8D | 9H 4S 8S 6C",
    "9C 4H 7D JC 5C | KD 6D 4C JD | JS AH QD TH",
    "KS 7C 2S QS KH | QH 4D TS 6S | 5S AS JH 3D",
]
DEAL_DK = [
    "AH QH 8C JS QD | AD AC KC 9S | TC JH JD KS",
    "3S 7S 8S 6H 2C | 2S 3C 6C 3D | 5D 4C 3H 2H",
    "9C 8D KD JC 9H | QC AS KH TS | TH TD 9D QS",
    "7C 4S 5S 8H 4D | 7D 2D 4H 6D | 5C 5H 7H 6S",
]
DEAL_DG = [
    "6H 5C 6C 4S 2S | 5D 7S 8S 3C | 2D 7H 3S 8H",
    "KS JS 9D 9C TD | KD TH 8D QH | QD KH TC AS",
    "6D 3D 5S 6S 2C | 3H 5H 4H 4C | 2H 4D 7D 7C",
    "AC 9H TS JC QS | JH 8C AH KC | 9S AD JD QC",
]
DEAL_W = [
    "TH AH 8C QS 9C | TC AD 9S KC | 9D QC KH TS",
    "2C 6D 7C 7H 6H | 3D 7S 4H 2H | 4S 6S 4D 6C",
    "JH 8D 9H QH QD | AS JD AC KD | JC JS KS TD",
    "5S 8S 5C 5D 3C | 4C 3H 2D 7D | 2S 8H 3S 5H",
]


# --------------------------------------------------------------------------------------------
# Cards
# --------------------------------------------------------------------------------------------
def cid(text: str) -> int:
    """Card text ("AS", "TD", "10H") -> card index (suit * 13 + rank)."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    assert len(t) == 2 and t[0] in RANKS and t[1] in SUITS, f"bad card text in test: {text!r}"
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


def ctext(card: int) -> str:
    return RANKS[card % 13] + SUITS[card // 13]


def ids(text: str) -> list[int]:
    """A group of card texts ('|' ignored) -> card ids, in the order written."""
    return [cid(tok) for tok in text.replace("|", " ").split()]


def sorted_texts(text: str) -> list[str]:
    """Card texts in ascending card index (the order `hand()` returns)."""
    return [ctext(c) for c in sorted(ids(text))]


def first_five(deal: list[str], seat: int) -> str:
    return " ".join(deal[seat].replace("|", " ").split()[:5])


def second_packet(deal: list[str], seat: int) -> list[str]:
    return deal[seat].replace("|", " ").split()[5:9]


def name(a: int) -> str:
    if a < 52:
        return ctext(a)
    return {52: "SUIT C", 53: "SUIT D", 54: "SUIT H", 55: "SUIT S", 56: "PASS", 57: "ASK_REVEAL",
            58: "LEAD_REVEAL", 59: "CHANGE_CARDS"}.get(a, str(a))


def names(actions) -> list[str]:
    return [name(a) for a in actions]


# --------------------------------------------------------------------------------------------
# Env construction and reading
# --------------------------------------------------------------------------------------------
def new_env(**config):
    import courtpiece_env  # imported lazily: collection works while the engine is being written

    return courtpiece_env.env(**config)


def start(deal, dealer=3, *, seed=None, deal_extra=None, options_extra=None, **config):
    """`reset(options={"deal": {"hands": deal, "dealer": dealer, **deal_extra}, **options_extra})`."""
    env = new_env(**config)
    d = {"hands": list(deal)}
    if dealer is not None:
        d["dealer"] = dealer
    if deal_extra:
        d.update(deal_extra)
    options = {"deal": d}
    if options_extra:
        options.update(options_extra)
    assert env.reset(seed=seed, options=options) is None
    return env


def ps(env) -> dict:
    return env.unwrapped.public_state()


def hand(env, seat: int) -> list[str]:
    return list(env.unwrapped.hand(seat))


def actor(env) -> int:
    return AGENTS.index(env.agent_selection)


def legal(env) -> list[int]:
    """Legal action ids of the seat to act, ascending; checks observe() and infos agree (9.1)."""
    agent = env.agent_selection
    mask = np.asarray(env.observe(agent)["action_mask"])
    assert mask.shape == (60,), f"action_mask shape {mask.shape}, expected (60,)"
    info_mask = np.asarray(env.infos[agent]["action_mask"])
    assert np.array_equal(mask, info_mask), "observe() mask and infos[agent]['action_mask'] differ"
    return [int(i) for i in np.flatnonzero(mask)]


def expect_legal(env, seat: int, cards: str = "", others=()):
    """Assert the seat to act is `seat` and its legal set is exactly `cards` + `others`."""
    s = ps(env)
    assert actor(env) == seat, f"agent_selection {env.agent_selection}, expected player_{seat}"
    assert s["actor"] == seat, f"public_state actor {s['actor']}, expected {seat}"
    expected = sorted(ids(cards)) + sorted(others)
    got = legal(env)
    assert got == expected, f"legal(s{seat}) = {names(got)}, expected {names(expected)}"


def act(env, action, seat: int | None = None):
    """Step one action (card text or id), checking first that `seat` is to act."""
    a = cid(action) if isinstance(action, str) else int(action)
    if seat is not None:
        assert actor(env) == seat, (
            f"expected s{seat} to act ({name(a)}), but {env.agent_selection} is to act")
    env.step(a)


def play(env, cards: str, first_seat: int | None = None):
    """Play the card texts in turn order, starting with `first_seat` (default: whoever acts)."""
    seat = actor(env) if first_seat is None else first_seat
    for tok in cards.split():
        act(env, tok, seat)
        seat = (seat + 1) % 4


def choose(policy: str, legal_ids: list[int]) -> int:
    """P_LOW / P_HIGH of spec 8.1."""
    cards = [a for a in legal_ids if a < 52]
    if cards:
        return min(cards) if policy == "low" else max(cards)
    return min(legal_ids)


TRICK_RE = re.compile(r"T(\d+)\s+s(\d):\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*(?:→|->)\s*s(\d)")


def parse_tricks(text: str) -> list[tuple[int, int, list[str], int]]:
    """'T4 s0: 2D AD 6D TD → s1' (any number per text) -> [(4, 0, ['2D', 'AD', '6D', 'TD'], 1)]."""
    out = []
    for m in TRICK_RE.finditer(text):
        out.append((int(m.group(1)), int(m.group(2)), [m.group(k) for k in range(3, 7)],
                    int(m.group(7))))
    assert out, f"no trick in {text!r}"
    return out


def run_tricks(env, text: str, policy: str | None = None, after=None):
    """Play the tricks written in spec notation and check them as they go.

    With `policy` ("low" / "high") each card must also be the P_LOW / P_HIGH choice from the legal
    mask at that moment (spec 8.1). After each completed trick: `trick_number`, the trick record in
    `tricks`, `tricks_won`, that the winner is to lead (CP-4.6) while the bazi goes on, and in
    `double_sar` the conservation len(pile) + sum(taken) = trick_number (9.3); in `mendi_coat` the
    `tens` count implied by the written tricks. `after(n, state)` is then called for extra checks.
    A trick that ends a bazi of a match episode (the next bazi is dealt in the same step, 9.2) is
    not checked against the record, which then describes the new bazi.
    """
    tricks = parse_tricks(text)
    s0 = ps(env)
    bazi = s0["bazi_index"]
    variant = s0["variant"]
    won = list(s0["tricks_won"])
    tens = list(s0["tens"])
    for n, leader, cards, winner in tricks:
        s = ps(env)
        assert s["trick_number"] == n - 1, f"T{n}: trick_number is {s['trick_number']} before it"
        assert s["current_trick"] == [], f"T{n}: current_trick {s['current_trick']} before the lead"
        assert s["leader"] == leader, f"T{n}: leader {s['leader']}, expected s{leader}"
        for i, card in enumerate(cards):
            seat = (leader + i) % 4
            assert actor(env) == seat, (
                f"T{n} card {i + 1} ({card}): {env.agent_selection} to act, expected player_{seat}")
            card_id = cid(card)
            if policy is not None:
                lg = legal(env)
                pick = choose(policy, lg)
                assert pick == card_id, (
                    f"T{n} s{seat}: P_{policy.upper()} picks {name(pick)} from {names(lg)}, "
                    f"spec says {card}")
            assert ctext(card_id) in hand(env, seat), f"T{n}: {card} not in hand of s{seat}"
            env.step(card_id)
            s = ps(env)
            if s["bazi_index"] != bazi:
                break  # match episode: the next bazi was dealt in this step
            assert ctext(card_id) not in hand(env, seat), f"T{n}: {card} still in hand of s{seat}"
            if i < 3:
                expected_cur = [[(leader + k) % 4, cards[k]] for k in range(i + 1)]
                assert s["current_trick"] == expected_cur, (
                    f"T{n}: current_trick {s['current_trick']}, expected {expected_cur}")
        if s["bazi_index"] != bazi:
            assert (n, leader, cards, winner) == tricks[-1], (
                f"a new bazi was dealt after T{n}, before the last written trick")
            return
        won[winner % 2] += 1
        if variant == "mendi_coat":
            tens[winner % 2] += sum(1 for c in cards if c[0] == "T")
        record = {"leader": leader, "cards": [[(leader + k) % 4, cards[k]] for k in range(4)],
                  "winner": winner}
        assert s["trick_number"] == n, f"after T{n}: trick_number {s['trick_number']}"
        assert len(s["tricks"]) == n, f"after T{n}: {len(s['tricks'])} tricks recorded"
        assert s["tricks"][n - 1] == record, (
            f"T{n}: recorded {s['tricks'][n - 1]}, expected {record}")
        assert s["current_trick"] == [], f"after T{n}: current_trick {s['current_trick']}"
        assert s["tricks_won"] == won, f"after T{n}: tricks_won {s['tricks_won']}, expected {won}"
        if variant == "double_sar":
            assert len(s["pile"]) + sum(s["taken"]) == n, (
                f"after T{n}: pile {s['pile']} + taken {s['taken']} != {n} tricks")
        if variant == "mendi_coat":
            assert s["tens"] == tens, f"after T{n}: tens {s['tens']}, expected {tens}"
        if s["phase"] != "over":
            assert s["actor"] == winner and actor(env) == winner, (
                f"after T{n}: s{s['actor']} to act, expected the winner s{winner} (CP-4.6)")
        if after is not None:
            after(n, s)


# --------------------------------------------------------------------------------------------
# End of a bazi
# --------------------------------------------------------------------------------------------
def team_rewards(team0: float) -> list[float]:
    """Rewards [s0, s1, s2, s3] when team 0 gets `team0` and team 1 the opposite (zero-sum)."""
    return [team0, -team0, team0, -team0]


def expect_rewards(env, rewards):
    got = [env.rewards[a] for a in AGENTS]
    assert got == pytest.approx(list(rewards)), f"rewards {got}, expected {list(rewards)}"


def expect_terminated(env, terminated: bool = True):
    assert [env.terminations[a] for a in AGENTS] == [terminated] * 4, (
        f"terminations {env.terminations}, expected all {terminated}")
    assert [env.truncations[a] for a in AGENTS] == [False] * 4, "truncations must stay False"


def expect_result(result: dict, **expected):
    assert result is not None, "no result"
    missing = RESULT_KEYS - set(result)
    assert not missing, f"result lacks keys {sorted(missing)}"
    for k, v in expected.items():
        assert result[k] == v, f"result[{k!r}] = {result[k]!r}, expected {v!r} (result {result})"


def expect_bazi_over(env, rewards, **result):
    """Bazi episode finished at the latest step: phase over, actor None, decided, the result
    (also in every infos[a]["result"], 9.4), rewards paid at once, everyone terminated (section 5)."""
    s = ps(env)
    json.dumps(s)  # 9: everything public_state returns is JSON-able
    assert s["phase"] == "over", f"phase {s['phase']}, expected 'over'"
    assert s["actor"] is None
    assert s["decided"] is True
    expect_result(s["result"], **result)
    for a in AGENTS:
        assert env.infos[a]["phase"] == "over"
        assert env.infos[a]["result"] == s["result"], f"infos[{a}]['result'] differs from public_state"
        assert not np.asarray(env.infos[a]["action_mask"]).any(), f"{a}: mask not all zeros in 'over'"
    expect_rewards(env, rewards)
    expect_terminated(env, True)
    return s
