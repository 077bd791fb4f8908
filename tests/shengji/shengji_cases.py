"""Shared helpers for the Sheng Ji scenario cases (spec shengji.md section 8).

Everything here drives the game through the pinned public surface of spec section 9 only:
`shengji_env.env(**config)`, `reset(seed, options={deal, redeals, banker, levels, first_drawer,
trump})`, `step`, `observe`, `infos`, `rewards`, `terminations`, `env.unwrapped.public_state()`,
`env.unwrapped.hand(seat)`, `action_name` / `action_from_name`.  Card text <-> id, effective suits,
positions and point values are recomputed here from the spec (section 1 conventions, SJ-2.1,
SJ-3.2..3.4) so that the tests never lean on engine code.

The test modules import it as `shengji_cases` (pytest puts each test folder on the path; the game
in the name keeps it apart from the other games' helpers).

Building positions.  Cases list only the cards that matter.  Two builders give full legal deals
(section 7.1: every card exactly D times, dealt one card at a time from the first drawer f, which is
the banker when the banker is given):

* `fill_deal` - fixed holdings per seat plus filler cards, with per-seat "forbidden" predicates
  (e.g. "void in hearts"); used for positions reached in the first trick.
* `plan_hand` - a complete, legal hand: optional explicit first tricks (`prefix`), then filler
  tricks in which all four seats follow one effective suit with single cards (any card of the led
  esuit is legal for a single lead, SJ-8.2/8.4, and the unique highest card wins, SJ-9.3), then an
  explicit end of the hand (`tail_hands` / `tail` tricks, or a "solo" tail in which one seat leads
  cards of effective suits that the other seats no longer hold, so they discard, SJ-8.2(a)).  The
  filler tricks are assigned to the teams so that the opponents' trick points hit a target
  (a subset-sum), which is how the level-table cases (SJ-11.1) get their exact p.
"""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

RANKS = "23456789TJQKA"
SUITS = "CDHS"
LJ, BJ = 52, 53
AGENTS = [f"player_{i}" for i in range(4)]

# Section 4 action ids.
DONE = 54
PASS = 55
NUM_ACTIONS = 84


def DECLARE_LEVEL(suit: str, k: int) -> int:
    return 56 + 4 * SUITS.index(suit) + (k - 1)


def DECLARE_LJ(k: int) -> int:
    return 72 + (k - 1)


def DECLARE_BJ(k: int) -> int:
    return 76 + (k - 1)


def NAME_TRUMP(suit: str) -> int:
    return 80 + SUITS.index(suit)


# SJ-1.3: decks -> (cards per player H, kitty K)
DEAL_SIZES = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (52, 8)}

# Section 9.3 / 9.4 key sets.
PUBLIC_STATE_KEYS = {
    "phase", "current_player", "decks", "hand_index", "levels", "hand_level", "first_drawer",
    "banker", "declarers", "void_deals", "dealt", "hand_sizes", "declarations", "standing", "trump",
    "kitty_revealed", "leader", "trick", "trick_format", "tricks", "points", "failed_throws", "shown",
    "kitty", "result",
}
RESULT_KEYS = {
    "hand_index", "banker", "declarers", "hand_level", "trump", "trick_points", "kitty",
    "kitty_points", "last_trick_winner", "multiplier", "kitty_bonus", "penalty", "opponent_points",
    "outcome", "table_levels", "hand_score", "levels_gained", "new_levels", "next_banker",
    "match_winner",
}


# --------------------------------------------------------------------------------------------
# Cards (section 1 conventions) and the rule facts the builders need (SJ-2.1, SJ-3.2..3.4)
# --------------------------------------------------------------------------------------------
def cid(text) -> int:
    """Card text ("AS", "TD", "10H", "LJ", "BJ") or an int -> card index."""
    if isinstance(text, (int, np.integer)):
        assert 0 <= int(text) < 54, f"bad card id in test: {text}"
        return int(text)
    t = text.strip().upper()
    if t == "LJ":
        return LJ
    if t == "BJ":
        return BJ
    if t.startswith("10"):
        t = "T" + t[2:]
    assert len(t) == 2 and t[0] in RANKS and t[1] in SUITS, f"bad card text in test: {text!r}"
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


def ctext(card: int) -> str:
    if card == LJ:
        return "LJ"
    if card == BJ:
        return "BJ"
    return RANKS[card % 13] + SUITS[card // 13]


def ids(cards) -> list[int]:
    """'AH AH KH' (or a list of texts / ids) -> card ids, in the order written."""
    if isinstance(cards, str):
        return [cid(tok) for tok in cards.replace("|", " ").split()]
    return [cid(c) for c in cards]


def cset(cards) -> str:
    """The section 9 card-set text: cards in ascending index, repeats written out."""
    return " ".join(ctext(c) for c in sorted(ids(cards)))


def rank(level) -> int:
    """Rank text ("2".."A", "10") or index -> rank index 0..12."""
    if isinstance(level, (int, np.integer)):
        return int(level)
    t = str(level).upper()
    return RANKS.index("T" if t == "10" else t)


def points_of(card: int) -> int:
    """SJ-2.1: 5 -> 5, 10 and K -> 10, everything else (jokers included) 0."""
    if card >= 52:
        return 0
    r = card % 13
    return 5 if r == 3 else 10 if r in (8, 11) else 0


def sum_points(cards) -> int:
    return sum(points_of(c) for c in ids(cards))


def is_trump(card: int, level: int, trump: str) -> bool:
    """SJ-3.2: jokers, level cards and (suit game) every card of suit T."""
    if card >= 52 or card % 13 == level:
        return True
    return trump != "NT" and card // 13 == SUITS.index(trump)


def esuit(card: int, level: int, trump: str) -> str:
    """SJ-3.3: "T" for TRUMP, else the printed suit letter."""
    return "T" if is_trump(card, level, trump) else SUITS[card // 13]


def pos(card: int, level: int, trump: str) -> int:
    """SJ-3.4 position."""
    if card == BJ:
        return 15
    if card == LJ:
        return 14
    r = card % 13
    if r == level:
        return 13 if trump == "NT" or card // 13 == SUITS.index(trump) else 12
    return r if r < level else r - 1


def full_deck(decks: int) -> list[int]:
    return [c for c in range(54) for _ in range(decks)]


def multiset_minus(pool: list[int], remove) -> list[int]:
    pool = list(pool)
    for c in ids(remove):
        assert c in pool, f"test setup: card {ctext(c)} used more often than the decks hold"
        pool.remove(c)
    return pool


# --------------------------------------------------------------------------------------------
# Env access
# --------------------------------------------------------------------------------------------
def new_env(**config):
    import shengji_env  # imported lazily: collection works while the engine is being written

    return shengji_env.env(**config)


def start(config: dict | None = None, *, seed=None, **options):
    """env(**config) then reset(seed, options) with the given section 7.1 options."""
    env = new_env(**(config or {}))
    opts = {k: v for k, v in options.items() if v is not None}
    env.reset(seed=seed, options=opts or None)
    return env


def ps(env) -> dict:
    s = env.unwrapped.public_state()
    json.dumps(s)  # section 9: everything public_state() returns is JSON-able
    return s


def actor(env) -> int:
    return AGENTS.index(env.agent_selection)


def hand_ids(env, seat: int) -> list[int]:
    """A seat's private hand (env.unwrapped.hand) as sorted card ids."""
    h = env.unwrapped.hand(seat)
    if isinstance(h, str):
        return sorted(ids(h))
    return sorted(ids(list(h)))


def legal(env) -> list[int]:
    """Legal ids of the acting agent; checks observe() and infos agree (section 9.1)."""
    agent = env.agent_selection
    mask = np.asarray(env.observe(agent)["action_mask"])
    assert mask.shape == (NUM_ACTIONS,), f"action_mask shape {mask.shape}, expected (84,)"
    info_mask = np.asarray(env.infos[agent]["action_mask"])
    assert np.array_equal(mask, info_mask), "observe() mask and infos[agent]['action_mask'] differ"
    for other in AGENTS:
        if other != agent:
            assert not np.asarray(env.observe(other)["action_mask"]).any(), \
                f"{other} is not acting but has a non-zero mask"
    return [int(i) for i in np.flatnonzero(mask)]


def action_label(a: int) -> str:
    if a < 54:
        return ctext(a)
    return {54: "DONE", 55: "PASS"}.get(a, str(a))


def expect_mask(env, seat: int, expected, phase: str | None = None):
    """The seat to act is `seat` (and the phase is `phase`) and its mask is exactly `expected`."""
    assert actor(env) == seat, f"agent_selection {env.agent_selection}, expected player_{seat}"
    s = ps(env)
    assert s["current_player"] == seat
    if phase is not None:
        assert s["phase"] == phase, f"phase {s['phase']!r}, expected {phase!r}"
        assert env.infos[AGENTS[seat]]["phase"] == phase
    got = legal(env)
    want = sorted(set(int(a) for a in expected))
    assert got == want, (f"mask of s{seat} = {[action_label(a) for a in got]}, "
                         f"expected {[action_label(a) for a in want]}")


def card_mask(cards) -> list[int]:
    return sorted(set(ids(cards)))


def snapshot(env):
    s = ps(env)
    return (json.dumps(s, sort_keys=True), env.agent_selection, legal(env),
            [hand_ids(env, p) for p in range(4)], dict(env.rewards),
            dict(env.terminations))


def assert_illegal(env, action):
    """step(action) raises ValueError and leaves everything exactly as it was (section 9.6)."""
    before = snapshot(env)
    with pytest.raises(ValueError):
        env.step(action)
    assert snapshot(env) == before, "a rejected action changed the state"


def step(env, seat: int, action: int):
    assert actor(env) == seat, (f"expected player_{seat} to act for {action_label(action)}, "
                                f"agent_selection is {env.agent_selection} ({ps(env)['phase']})")
    env.step(int(action))


def compose(env, seat: int, cards, lead: bool):
    """Step the CARD actions of a play in the order given; a lead ends with DONE (section 4)."""
    for c in ids(cards):
        step(env, seat, c)
    if lead:
        step(env, seat, DONE)


def lead(env, seat, cards):
    compose(env, seat, cards, lead=True)


def follow(env, seat, cards):
    compose(env, seat, cards, lead=False)


def bury(env, seat, cards):
    assert ps(env)["phase"] == "BURY"
    for c in ids(cards):
        step(env, seat, c)


def pass_windows(env, limit: int = 400) -> list[tuple[int, int]]:
    """Answer PASS to every declaration window; returns [(seat, dealt)] of the windows seen."""
    seen = []
    for _ in range(limit):
        s = ps(env)
        if s["phase"] != "DECLARE":
            return seen
        seen.append((s["current_player"], s["dealt"]))
        step(env, s["current_player"], PASS)
    raise AssertionError("declaration windows do not end")


# --------------------------------------------------------------------------------------------
# Deals (section 7.1)
# --------------------------------------------------------------------------------------------
def order_from_hands(decks: int, first: int, hands: dict, kitty) -> list[int]:
    """The dealing order giving each seat its cards (in the listed order) and the kitty last:
    o[i] for i < 4H goes to seat (first + i) mod 4 (SJ-4.1)."""
    H, K = DEAL_SIZES[decks]
    order = [None] * (4 * H)
    for seat in range(4):
        cards = ids(hands[seat])
        assert len(cards) == H, f"test setup: seat {seat} gets {len(cards)} cards, needs {H}"
        off = (seat - first) % 4
        for k, c in enumerate(cards):
            order[4 * k + off] = c
    kit = ids(kitty)
    assert len(kit) == K, f"test setup: kitty of {len(kit)} cards, needs {K}"
    order += kit
    assert sorted(order) == full_deck(decks), "test setup: the order is not D full decks"
    return order


def fill_deal(decks: int, first: int, fixed: dict | None = None, kitty=None, forbid: dict | None = None,
              kitty_forbid=None):
    """Full hands from fixed holdings + filler.

    fixed: {seat: cards} (dealt first, in the order written); kitty: the whole kitty in kitty order,
    or None to fill it; forbid: {seat: predicate(card) -> True if the seat must not get it as filler};
    kitty_forbid: the same for filling the kitty.  Returns (hands {seat: [ids]}, kitty [ids], order)."""
    H, K = DEAL_SIZES[decks]
    fixed = {s: ids(c) for s, c in (fixed or {}).items()}
    hands = {s: list(fixed.get(s, [])) for s in range(4)}
    pool = full_deck(decks)
    for s in range(4):
        pool = multiset_minus(pool, hands[s])
    kit = ids(kitty) if kitty is not None else []
    pool = multiset_minus(pool, kit)
    forbid = forbid or {}
    cap = {s: H - len(hands[s]) for s in range(4)}
    cap["K"] = K - len(kit)
    for s in range(4):
        assert cap[s] >= 0, f"test setup: seat {s} holds more than {H} cards"

    def allowed(card):
        out = [s for s in range(4) if not (forbid.get(s) and forbid[s](card))]
        if not (kitty_forbid and kitty_forbid(card)):
            out.append("K")
        return out

    # most constrained cards first, each to the allowed target with the most room left
    for card in sorted(pool, key=lambda c: (len(allowed(c)), c)):
        targets = [t for t in allowed(card) if cap[t] > 0]
        assert targets, f"test setup: no room for filler card {ctext(card)}"
        t = max(targets, key=lambda t: (cap[t], -(4 if t == "K" else t)))
        cap[t] -= 1
        (kit if t == "K" else hands[t]).append(card)
    order = order_from_hands(decks, first, hands, kit)
    return hands, kit, order


def suits_pred(level: int, trump: str, *esuits: str):
    """Predicate: the card's effective suit is one of `esuits` ("C", "D", "H", "S", "T")."""
    return lambda c: esuit(c, level, trump) in esuits


def levels_pred(level: int):
    """Predicate: a level card or a joker (the cards that can declare, SJ-4.3)."""
    return lambda c: c >= 52 or c % 13 == level


# --------------------------------------------------------------------------------------------
# Complete hands (plan_hand) and their playthrough (run_plan)
# --------------------------------------------------------------------------------------------
class Trick:
    """One planned trick: plays [(seat, [ids])] in play order, the leader's attempted cards
    (differs from its play only for a failed throw, SJ-7.4) and the expected winner (SJ-9.3)."""

    def __init__(self, plays, winner, attempted=None, fmt=None):
        self.plays = [(s, ids(c)) for s, c in plays]
        self.leader = self.plays[0][0]
        self.attempted = ids(attempted) if attempted is not None else list(self.plays[0][1])
        self.winner = winner
        self.fmt = fmt  # expected trick_format (list of card-set texts) or None

    @property
    def points(self) -> int:
        return sum(points_of(c) for _, cs in self.plays for c in cs)

    def cards_of(self, seat):
        return [c for s, cs in self.plays if s == seat for c in cs]

    def __repr__(self):
        return f"Trick({[(s, cset(c)) for s, c in self.plays]} -> s{self.winner})"


def trick(plays: str, winner: int, attempted=None, fmt=None) -> Trick:
    """'s0: AH AH KH / s1: 3S 3S 5S / ...' -> Trick."""
    out = []
    for part in plays.split("/"):
        seat, cards = part.split(":")
        out.append((int(seat.strip()[1:]), cards))
    return Trick(out, winner, attempted, fmt)


class Plan:
    def __init__(self, decks, level, trump, banker, kitty, tricks, tail_start):
        self.decks, self.level, self.trump, self.banker = decks, level, trump, banker
        self.kitty = ids(kitty)
        self.tricks = tricks
        self.tail_start = tail_start  # index of the first explicit tail trick
        self.hands = {s: sorted(c for t in tricks for c in t.cards_of(s)) for s in range(4)}
        self.order = order_from_hands(decks, banker, self.hands, self.kitty)

    @property
    def declarers(self) -> int:
        return self.banker % 2

    @property
    def opponents(self) -> int:
        return 1 - self.banker % 2

    def team_points(self, upto=None) -> list[int]:
        pts = [0, 0]
        for t in self.tricks[:upto]:
            pts[t.winner % 2] += t.points
        return pts

    @property
    def last_winner(self) -> int:
        return self.tricks[-1].winner

    def options(self, **extra) -> dict:
        opts = {"deal": list(self.order), "banker": self.banker,
                "levels": [RANKS[self.level], RANKS[self.level]], "trump": self.trump}
        opts.update(extra)
        return opts


def _groups_for(cards: list[int], level: int, trump: str, rng: random.Random) -> list[list[int]]:
    """Split the cards of one esuit (a multiple of 4) into groups of 4 whose highest card is unique
    (so the SJ-9.3 winner is the seat given that card, whatever the play order)."""
    n = len(cards)
    assert n % 4 == 0
    if n == 0:
        return []
    srt = sorted(cards, key=lambda c: (pos(c, level, trump), c), reverse=True)
    g = n // 4
    attempt = [[srt[j + k * g] for k in range(4)] for j in range(g)]  # strided: spreads the points
    for _ in range(2000):
        ok = True
        for grp in attempt:
            ps_ = sorted((pos(c, level, trump) for c in grp), reverse=True)
            if ps_[0] == ps_[1]:
                ok = False
                break
        if ok:
            return attempt
        shuffled = list(srt)
        rng.shuffle(shuffled)
        attempt = [shuffled[4 * j:4 * j + 4] for j in range(g)]
    raise AssertionError("test setup: cannot group the filler cards with unique winners")


def _subset_for(values: list[int], target: int) -> set[int] | None:
    """Indices of a subset of `values` summing to target (all multiples of 5), or None."""
    reach = {0: ()}
    for i, v in enumerate(values):
        new = dict(reach)
        for s, chosen in reach.items():
            if s + v <= target and s + v not in new:
                new[s + v] = chosen + (i,)
        reach = new
    return set(reach[target]) if target in reach else None


def plan_hand(decks: int, level, trump: str, banker: int, kitty, *, prefix=(), tail=(),
              tail_hands=None, tail_leader=None, solo=None, opp_points=None, last_winner=None,
              seed: int = 0) -> Plan:
    """A complete legal hand (see the module docstring).

    prefix: explicit first tricks (Trick), banker leads the first.
    tail: explicit last tricks; or tail_hands {seat: cards} + tail_leader (a position to stop at,
        the rest of the tail is then played as single-card tricks by `tail_tricks_from_hands`);
    solo: (W, [lead units], {"C": n, ...} or None) - W leads the units, the others discard cards of
        the allowed non-trump esuits (counts chosen to balance the filler, or given).
    opp_points: the opponents' total trick points (prefix + filler + tail), or None.
    last_winner: the seat that must win the last filler trick when nothing follows it."""
    level = rank(level)
    H, K = DEAL_SIZES[decks]
    rng = random.Random(seed)
    opp_team = 1 - banker % 2
    pool = multiset_minus(full_deck(decks), kitty)
    prefix = list(prefix)
    for t in prefix:
        for _, cs in t.plays:
            pool = multiset_minus(pool, cs)
    tail = list(tail)
    if tail_hands is not None:
        assert not tail and solo is None
        tail = tail_tricks_from_hands(tail_hands, tail_leader, level, trump)
    for t in tail:
        for _, cs in t.plays:
            pool = multiset_minus(pool, cs)

    def count_by_esuit(cards):
        out = {}
        for c in cards:
            out.setdefault(esuit(c, level, trump), []).append(c)
        return out

    if solo is not None:
        w, units, counts = solo
        units = [ids(u) for u in units]
        for u in units:
            pool = multiset_minus(pool, u)
        lead_esuits = {esuit(c, level, trump) for u in units for c in u}
        need = 3 * sum(len(u) for u in units)
        by = count_by_esuit(pool)
        allowed = [e for e in "CDHS" if e not in lead_esuits]
        if counts is None:
            counts = {e: len(by.get(e, [])) % 4 for e in allowed}
            while sum(counts.values()) < need:
                e = max(allowed, key=lambda e: len(by.get(e, [])) - counts[e])
                counts[e] += 4
        assert sum(counts.values()) == need, f"test setup: solo tail needs {need} discards, {counts}"
        discards = []
        for e, n in counts.items():
            avail = sorted(by.get(e, []), key=lambda c: (points_of(c) > 0, pos(c, level, trump), c))
            assert len(avail) >= n, f"test setup: not enough {e} cards to discard"
            # prefer discarding cards without points, but leave a remainder that forms filler tricks
            for _ in range(500):
                try:
                    _groups_for(avail[n:], level, trump, random.Random(seed))
                    break
                except AssertionError:
                    rng.shuffle(avail)
            discards += avail[:n]
        pool = multiset_minus(pool, discards)
        followers = [(w + i) % 4 for i in (1, 2, 3)]
        di = iter(discards)
        for u in units:
            plays = [(w, u)] + [(f, [next(di) for _ in u]) for f in followers]
            tail.append(Trick(plays, w))
    # filler: all four seats follow one esuit with single cards
    by = count_by_esuit(pool)
    groups = []
    for e in sorted(by):
        assert len(by[e]) % 4 == 0, (f"test setup: {len(by[e])} filler cards of esuit {e}; "
                                     "the explicit tricks and kitty must leave multiples of 4")
        groups += _groups_for(by[e], level, trump, rng)
    first_leader = prefix[-1].winner if prefix else banker
    need_last = tail[0].leader if tail else last_winner
    pts = [sum(points_of(c) for c in g) for g in groups]
    if opp_points is None:
        owner_team = (need_last if need_last is not None else banker) % 2
        opp_set = set(range(len(groups))) if owner_team == opp_team else set()
    else:
        fixed = sum(t.points for t in prefix + tail if t.winner % 2 == opp_team)
        target = opp_points - fixed
        assert target >= 0, "test setup: the explicit tricks already give the opponents too much"
        opp_set = _subset_for(pts, target)
        assert opp_set is not None, f"test setup: no filler split gives the opponents {target}"
    team_of = {i: (opp_team if i in opp_set else 1 - opp_team) for i in range(len(groups))}
    order_idx = list(range(len(groups)))
    if need_last is not None and groups:
        cands = [i for i in order_idx if team_of[i] == need_last % 2]
        if not cands:  # move a zero-point group to the needed team
            zeros = [i for i in order_idx if pts[i] == 0]
            assert zeros, "test setup: the last filler trick cannot go to the needed team"
            team_of[zeros[0]] = need_last % 2
            cands = [zeros[0]]
        order_idx.remove(cands[-1])
        order_idx.append(cands[-1])
    seats_of_team = {banker % 2: [banker, (banker + 2) % 4], opp_team: [(banker + 1) % 4, (banker + 3) % 4]}
    filler = []
    leader = first_leader
    for k, i in enumerate(order_idx):
        grp = sorted(groups[i], key=lambda c: (pos(c, level, trump), c), reverse=True)
        if k == len(order_idx) - 1 and need_last is not None:
            w = need_last
        else:
            w = seats_of_team[team_of[i]][k % 2]
        seat_card = {w: grp[0]}
        others = [s for s in range(4) if s != w]
        for s, c in zip(others, grp[1:]):
            seat_card[s] = c
        plays = [((leader + j) % 4, [seat_card[(leader + j) % 4]]) for j in range(4)]
        filler.append(Trick(plays, w))
        leader = w
    if tail:
        assert leader == tail[0].leader, "test setup: the tail does not start with the last winner"
    plan = Plan(decks, level, trump, banker, kitty, prefix + filler + tail, len(prefix) + len(filler))
    for s in range(4):
        assert len(plan.hands[s]) == H
    if opp_points is not None:
        assert plan.team_points()[opp_team] == opp_points
    return plan


def tail_tricks_from_hands(tail_hands: dict, leader: int, level: int, trump: str) -> list[Trick]:
    """Tricks that play out the tail hands of a position reached late in a hand: single cards, each
    seat following the led esuit when it can.  The case itself takes over at the first of them
    (`run_plan(env, plan, stop_before=plan.tail_start)`); they fix the seats' hands in the deal and
    keep the planned hand complete and legal."""
    hands = {s: list(ids(c)) for s, c in tail_hands.items()}
    sizes = {len(h) for h in hands.values()}
    assert len(sizes) == 1, "test setup: tail hands of unequal sizes"
    tricks = []
    for _ in range(sizes.pop()):
        c0 = hands[leader][0]
        e = esuit(c0, level, trump)
        plays = [(leader, [c0])]
        for j in (1, 2, 3):
            s = (leader + j) % 4
            same = [c for c in hands[s] if esuit(c, level, trump) == e]
            plays.append((s, [same[0] if same else hands[s][0]]))
        for s, cs in plays:
            hands[s].remove(cs[0])
        # winner by SJ-9.3 for single cards: highest of the led esuit, trumps over a non-trump lead
        best_seat, best = plays[0][0], c0
        for s, cs in plays[1:]:
            c = cs[0]
            be, ce = esuit(best, level, trump), esuit(c, level, trump)
            if (ce == "T" and be != "T") or (ce == be and pos(c, level, trump) > pos(best, level, trump)):
                best_seat, best = s, c
        tricks.append(Trick(plays, best_seat))
        leader = best_seat
    return tricks


def run_trick(env, t: Trick, check=True):
    """Compose the planned trick (leader: attempted cards + DONE; followers: their cards)."""
    hand_index = ps(env)["hand_index"]
    lead(env, t.leader, t.attempted)
    for s, cs in t.plays[1:]:
        follow(env, s, cs)
    if check:
        s = ps(env)
        if s["hand_index"] != hand_index:
            # episode "match": the hand's last trick ended it and the next hand began (section 9.4);
            # public_state() now describes the new hand, the finished one is in `result`
            assert s["result"]["last_trick_winner"] == t.winner
            return
        rec = s["tricks"][-1] if s["tricks"] else None
        assert rec is not None, "the trick was not recorded"
        assert rec["winner"] == t.winner, f"{t}: engine says winner s{rec['winner']}"
        assert rec["points"] == t.points, f"{t}: engine says {rec['points']} points"
        assert [p[0] for p in rec["plays"]] == [p[0] for p in t.plays]
        assert [p[1] for p in rec["plays"]] == [cset(p[1]) for p in t.plays]
        if t.fmt is not None:
            assert rec["format"] == t.fmt


def start_plan(plan: Plan, config: dict | None = None, **extra_options):
    cfg = {"decks": plan.decks, "declaration_mode": "preset"}
    cfg.update(config or {})
    env = new_env(**cfg)
    env.reset(options=plan.options(**extra_options))
    return env


def record_steps(env) -> list[int]:
    """The actions env.step() takes from now on, in order (to replay them through BatchGame)."""
    taken = []
    step_env = env.step

    def recording(action):
        taken.append(action)
        step_env(action)
    env.step = recording
    return taken


def batch_replay(plan: Plan, config: dict | None, actions) -> object:
    """A BatchGame of one game, started as `start_plan` starts the env (the plan's 7.1 options) and
    played through `actions` (9.7 `play`), every one of them legal."""
    cfg = {"decks": plan.decks, "declaration_mode": "preset"}
    cfg.update(config or {})
    g = new_batch(1, **cfg)
    g.reset(deals=[plan.order], banker=plan.banker, levels=[RANKS[plan.level]] * 2, trump=plan.trump)
    assert g.play(np.array([actions], np.int64)).tolist() == [len(actions)]
    return g


def run_plan(env, plan: Plan, stop_before: int | None = None, check=True):
    """Bury the kitty, then play the planned tricks (all, or up to index stop_before)."""
    s = ps(env)
    assert s["phase"] == "BURY" and s["current_player"] == plan.banker
    assert hand_ids(env, plan.banker) == sorted(plan.hands[plan.banker] + plan.kitty)
    bury(env, plan.banker, plan.kitty)
    tricks = plan.tricks if stop_before is None else plan.tricks[:stop_before]
    H, K = DEAL_SIZES[plan.decks]
    for i, t in enumerate(tricks):
        run_trick(env, t, check=check)
        s = ps(env)
        if check and s["phase"] in ("LEAD", "FOLLOW") and s["hand_index"] == 0:
            # running points of completed tricks, and the card conservation of section 9.3
            assert s["points"] == plan.team_points(i + 1)
            assert len(s["tricks"]) == i + 1
            on_table = sum(len(ids(c)) for _, c in s["trick"])
            in_tricks = sum(len(ids(c)) for rec in s["tricks"] for _, c in rec["plays"])
            assert sum(s["hand_sizes"]) + on_table + in_tricks + K == 54 * plan.decks
    return env


def levels_of(env) -> list[int]:
    return list(ps(env)["levels"])


# --------------------------------------------------------------------------------------------
# BatchGame (section 9.7): observation row layout
# --------------------------------------------------------------------------------------------
OBS = {  # key -> (offset, length) of a g.observe() row (section 9.7 table)
    "hand": (0, 54), "selection": (54, 54), "kitty": (108, 54), "played": (162, 216),
    "trick": (378, 216), "shown": (594, 216), "hand_sizes": (810, 4), "phase": (814, 6),
    "levels": (820, 2), "hand_level": (822, 1), "banker": (823, 5), "trump": (828, 6),
    "standing": (834, 12), "leader": (846, 4), "lead_count": (850, 1), "points": (851, 2),
    "dealt": (853, 1), "action_mask": (854, 84),
}
OBS_SIZE = 938
PHASES = ["DECLARE", "NAME_TRUMP", "BURY", "LEAD", "FOLLOW", "OVER"]
TRUMPS = ["C", "D", "H", "S", "NT", None]


def new_batch(n, **config):
    import shengji_env

    return shengji_env.BatchGame(n, **config)


def obs_part(row, key):
    off, n = OBS[key]
    return np.asarray(row[off:off + n])


def counts(cards) -> np.ndarray:
    out = np.zeros(54, np.float32)
    for c in ids(cards):
        out[c] += 1
    return out


def one_hot(n, i) -> np.ndarray:
    out = np.zeros(n, np.float32)
    if i is not None:
        out[i] = 1
    return out


def batch_mask(g, b=0) -> list[int]:
    m = np.asarray(g.legal_mask())
    assert m.shape == (g.n if hasattr(g, "n") else m.shape[0], NUM_ACTIONS)
    row = g.observe()[b]
    assert np.array_equal(obs_part(row, "action_mask"), m[b].astype(np.float32)), \
        "the observation's action_mask differs from legal_mask()"
    return [int(i) for i in np.flatnonzero(m[b])]


def batch_step(g, seat, action, b=0):
    assert int(g.current_player[b]) == seat, f"current_player {int(g.current_player[b])}, expected {seat}"
    acts = np.zeros(len(g.current_player), np.int64)
    acts[b] = action
    g.step(acts)
