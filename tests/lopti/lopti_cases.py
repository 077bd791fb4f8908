"""Shared helpers for the LOPTI scenario cases (docs/rules/lopti.md section 8).

Everything here goes through the pinned public surface of section 9 only: `lopti_env.env`,
`reset(seed, options={"deal": ...} | {"state": ...})` (§7.1, §7.2, §9.2), `step`, `observe`,
`infos`, `rewards`, `terminations` / `truncations`, and on `env.unwrapped`: `public_state()`,
`hand(seat)`, `action_name`, `action_from_name` (§9.4, §9.6).

Section 8 conventions (applied by `state()` below): N = 2, dealer P0, default switches, no made
rules, first move of the turn, face-up and face-down empty, draw pile empty, every card not listed
gone (§7.2).

The test modules import it as `lopti_cases` (pytest puts each test folder on the path; the game in
the name keeps it apart from the other games' helpers).
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

RANKS = "23456789TJQKA"
SUITS = "CDHS"
ALL_CARDS = frozenset(range(52))

# Action numbers (§4.1), for readability in the cases.
PICKUP = 52
KEEP = 95
PASS = 96
YES, NO = 97, 98
ROCK, PAPER, SCISSORS = 99, 100, 101
PROPOSE_REMOVE, PROPOSE_AMEND, PROPOSE_BASE, PROPOSE_RESTORE = 102, 103, 104, 105
TIMING_NOW, TIMING_NEXT = 106, 107

# Rulebook status codes (LO-11.1).
ACTIVE, REMOVED = 1, 2


def PLAY(r: int, k: int) -> int:
    """PLAY(r, k) = 4r + (k - 1) (§4.1)."""
    return 4 * r + (k - 1)


def FLIP(j: int) -> int:
    return 53 + j


def SWAP(r: int, j: int) -> int:
    return 56 + 3 * r + j


def SELECT(v: int) -> int:
    return 108 + v


# ---------------------------------------------------------------------------------------------
# cards (project conventions: index = suit*13 + rank; an own tiny parser keeps the tests
# independent of the engine and of cardzoo internals)
# ---------------------------------------------------------------------------------------------


def card(text) -> int:
    if isinstance(text, (int, np.integer)):
        return int(text)
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    assert len(t) == 2 and t[0] in RANKS and t[1] in SUITS, f"bad card text in a test: {text!r}"
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


def cards(group) -> list[int]:
    """A card group ("9C 9D", list of texts/ints, "" or None) -> list of indices, in given order."""
    if group is None:
        return []
    if isinstance(group, str):
        return [card(t) for t in group.split()]
    return [card(t) for t in group]


def text(c: int) -> str:
    return RANKS[c % 13] + SUITS[c // 13]


def cg(group) -> str:
    """The canonical card group of §9.4: card texts in ascending card index, single spaces."""
    return " ".join(text(c) for c in sorted(cards(group)))


def cset(group) -> frozenset:
    cs = cards(group)
    assert len(cs) == len(set(cs)), f"duplicate card in {group!r}"
    return frozenset(cs)


# ---------------------------------------------------------------------------------------------
# building envs and §7.2 positions
# ---------------------------------------------------------------------------------------------


def seat(hand: str = "", up: str | None = None, down: str | None = None) -> dict:
    """One §7.2 seat: hand card group; up / down as three slot entries ("-" = empty slot)."""
    s = {"hand": hand}
    s["up"] = up if up is not None else "- - -"
    s["down"] = down if down is not None else "- - -"
    return s


def state(seats, pile=(), draw: str = "", chain: int = 0, to_act: int = 0, **extra) -> dict:
    """A §7.2 position with the section 8 defaults (dealer P0, first move, nothing else)."""
    S = {
        "seats": [seat(**s) if isinstance(s, dict) and set(s) <= {"hand", "up", "down"} else s
                  for s in seats],
        "pile": [[p, g] for p, g in pile],
        "draw": draw,
        "chain": chain,
        "to_act": to_act,
        "move": "first",
        "dealer": 0,
    }
    S.update(extra)
    return S


def make_env(num_players: int = 2, **config):
    import lopti_env  # imported here so that the cases are collected even before the engine exists

    return lopti_env.env(num_players=num_players, **config)


def from_state(S: dict, num_players: int = 2, seed: int = 0, **config):
    env = make_env(num_players=num_players, **config)
    env.reset(seed=seed, options={"state": copy.deepcopy(S)})
    check_surface(env)
    return env


def from_deal(D: dict, num_players: int = 2, seed: int = 0, **config):
    env = make_env(num_players=num_players, **config)
    env.reset(seed=seed, options={"deal": copy.deepcopy(D)})
    check_surface(env)
    return env


# ---------------------------------------------------------------------------------------------
# reading the env
# ---------------------------------------------------------------------------------------------


def ps(env) -> dict:
    return env.unwrapped.public_state()


def hand(env, s: int) -> str:
    return env.unwrapped.hand(s)


def agent(s: int) -> str:
    return f"player_{s}"


def actor(env) -> int:
    a = env.agent_selection
    assert a.startswith("player_"), a
    return int(a.split("_")[1])


def legal(env) -> list[int]:
    """The legal set of `agent_selection` from `observe`, cross-checked with `infos` (§9.1):
    the same mask in infos, and every other agent's mask all zeros."""
    sel = env.agent_selection
    mask = np.asarray(env.observe(sel)["action_mask"])
    assert mask.shape == (140,)
    info_mask = np.asarray(env.infos[sel]["action_mask"])
    assert np.array_equal(mask, info_mask), "observe() and infos disagree on the action mask"
    for a in env.agents:
        if a != sel:
            assert not np.asarray(env.observe(a)["action_mask"]).any(), f"{a} is not to act but has a mask"
    return [int(i) for i in np.flatnonzero(mask)]


def assert_legal(env, expected, s: int | None = None):
    """Exact legal set of the agent to act (and, if given, that the agent is seat s)."""
    if s is not None:
        assert env.agent_selection == agent(s), f"expected player_{s} to act, got {env.agent_selection}"
        assert ps(env)["to_act"] == s
    assert legal(env) == sorted(expected)


def assert_hand(env, s: int, group: str):
    assert hand(env, s) == cg(group), f"hand of P{s}"
    assert ps(env)["seats"][s]["hand_size"] == len(cards(group))


def assert_known(env, s: int, group: str):
    assert ps(env)["seats"][s]["known"] == cg(group), f"known cards of P{s}"


def assert_pile(env, plays):
    """Pile plays bottom first as (seat, cards); cards of a play compared as a set (the engine's
    order inside a play is §4.3's, which these cases never need)."""
    got = ps(env)["pile"]
    assert [p[0] for p in got] == [p[0] for p in plays], f"pile seats {got}"
    assert [cset(p[1]) for p in got] == [cset(p[1]) for p in plays], f"pile cards {got}"
    if plays:
        assert ps(env)["top"] is not None
    else:
        assert ps(env)["top"] is None


def assert_top(env, rank, count=None, run=None):
    top = ps(env)["top"]
    if rank is None:
        assert top is None
    else:
        assert top == {"rank": rank, "count": count, "run": run}


def gone(env) -> frozenset:
    return cset(ps(env)["gone"])


def assert_gone_has(env, group: str):
    g = gone(env)
    missing = cset(group) - g
    assert not missing, f"not gone: {cg(sorted(missing))}"


def up(env, s: int) -> list:
    return ps(env)["seats"][s]["up"]


def down(env, s: int) -> list:
    return ps(env)["seats"][s]["down"]


def check_accounting(env):
    """Every card is exactly once in a hand, a face-up slot, the pile, gone, or (unseen) the draw
    pile or a face-down slot (§3.2, §9.4: gone includes cards not listed in a state)."""
    p = ps(env)
    n = p["num_players"]
    seen: list[int] = []
    hidden = p["draw_size"]
    for s in range(n):
        h = cards(hand(env, s))
        assert len(h) == p["seats"][s]["hand_size"]
        assert cset(p["seats"][s]["known"]) <= cset(h), f"P{s} known cards not in hand"
        seen += h
        seen += [card(c) for c in p["seats"][s]["up"] if c is not None]
        hidden += sum(bool(d) for d in p["seats"][s]["down"])
    for play in p["pile"]:
        seen += cards(play[1])
    seen += cards(p["gone"])
    assert len(seen) == len(set(seen)), "a card is in two places"
    assert len(seen) + hidden == 52, f"{len(seen)} visible + {hidden} hidden cards != 52"


def check_surface(env):
    """Light consistency of the surface after every step: phase in infos = public_state phase."""
    p = ps(env)
    for a in env.agents:
        assert env.infos[a]["phase"] == p["phase"]
    if p["phase"] in ("swap", "play", "done"):
        check_accounting(env)


def act(env, action: int, name: str | None = None):
    """Step `action` for `agent_selection`; with `name`, first check §9.6's name both ways."""
    if name is not None:
        assert env.unwrapped.action_name(action) == name
        assert env.unwrapped.action_from_name(name) == action
    env.step(action)
    check_surface(env)


def snapshot(env):
    """Everything observable, to prove that a rejected step left the env as it was."""
    return (
        ps(env),
        [hand(env, s) for s in range(ps(env)["num_players"])],
        env.agent_selection,
        {a: np.asarray(env.observe(a)["observation"]).tolist() for a in env.agents},
        {a: np.asarray(env.observe(a)["action_mask"]).tolist() for a in env.agents},
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
    )


def assert_rejected(env, action):
    """`step(action)` raises ValueError and changes nothing (§9.6)."""
    before = snapshot(env)
    with pytest.raises(ValueError):
        env.step(action)
    assert snapshot(env) == before


def assert_rewards(env, expected: dict):
    for s, r in expected.items():
        assert env.rewards[agent(s)] == pytest.approx(r), f"reward of P{s}"


def step_lowest_legal(env):
    """One decision by the lowest-numbered legal action (a fixed, reproducible policy)."""
    act(env, legal(env)[0])


def play_out_round(env, on_step=None, limit: int = 5000) -> int:
    """Play the current round to its end by `step_lowest_legal`; stop at the first decision of the
    next round (or at the end of the episode). `on_step(before, after)` sees the public states
    around every decision. Returns the number of decisions made."""
    r0 = ps(env)["round"]
    n = 0
    while True:
        before = ps(env)
        if before["round"] != r0 or before["phase"] == "done":
            return n
        step_lowest_legal(env)
        if on_step is not None:
            on_step(before, ps(env))
        n += 1
        assert n < limit, "the round did not end (max_moves should have truncated it)"


# §3.5 observation layout: (key, shape) in table order; 309 entries in all.
OBS_LAYOUT = [
    ("phase", ()), ("substep", ()), ("actor", ()), ("num_players", ()), ("seat", ()),
    ("hand", (13,)), ("hand_size", (5,)), ("stage", (5,)), ("place", (5,)),
    ("known", (5, 13)), ("up", (5, 3)), ("down", (5, 3)), ("pile_counts", (13,)), ("gone", (13,)),
    ("pile_size", ()), ("draw_size", ()), ("chain", ()), ("obligation", ()), ("limit", ()),
    ("move_kind", ()), ("top", (3,)), ("history", (8, 3)),
    ("dealer", ()), ("leader", ()), ("round", ()), ("num_rounds", ()), ("switches", (9,)),
    ("rules", (8, 8)), ("fired", (8,)), ("pending", (4,)), ("draft", (4,)), ("proposal", (6,)),
    ("ballots", (5,)), ("volunteers", (5,)), ("rps", (8,)), ("scores", (5,)),
]


def obs_fields(env, s: int) -> dict:
    """`observe(player_s)["observation"]` split into the §3.5 fields (as int lists / ints,
    scores as floats)."""
    vec = np.asarray(env.observe(agent(s))["observation"])
    assert vec.dtype == np.float32 and vec.shape == (309,)
    out, i = {}, 0
    for key, shape in OBS_LAYOUT:
        size = int(np.prod(shape)) if shape else 1
        part = vec[i:i + size]
        i += size
        if key == "scores":
            out[key] = [float(x) for x in part]
        elif shape:
            out[key] = part.reshape(shape).astype(int).tolist()
        else:
            out[key] = int(part[0])
    assert i == 309
    return out
