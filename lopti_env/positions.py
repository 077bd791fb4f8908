"""Loading section 7.2 positions into the games of a LOPTI ``BatchGame`` (``BatchGame.load_positions``).

A determinized search samples many worlds that share one public position and differ only in the
hidden cards (hands, face-down cards, draw order). Parsing each through the section 7.2 parser would
cost more than the search step; so the first position is parsed (every check of
``raw_env.reset(options={"state": S})`` applies to it) and the others are written into copies of its
record, field by field, after checking that they deal the same hidden cards into the same places.
"""
from __future__ import annotations

import numpy as np

from lopti_env import kernels as K
from lopti_env.deals import _cards, inject_state
from lopti_env.state import new_state


def _down_slots(spec, what) -> list[int]:
    """Three face-down slots as the section 7.2 parser reads them (-1: empty), its cards parsed at once."""

    if spec is None:
        return [-1, -1, -1]
    items = spec.split() if isinstance(spec, str) else spec
    if not isinstance(items, (list, tuple)) or len(items) != 3:
        raise ValueError(f"{what}: expected 3 slots, got {spec!r}")
    held = iter(_cards([it for it in items if it is not None and it != "-"], what))
    return [-1 if it is None or it == "-" else next(held) for it in items]


def _hidden(i: int, S, n: int):
    """(hands, face-down slots with -1 for empty, draw) of position S as card ids."""

    if not isinstance(S, dict) or not isinstance(S.get("seats"), (list, tuple)) or len(S["seats"]) != n:
        raise ValueError(f"states[{i}] must be a section 7.2 position whose 'seats' list {n} seats")
    hands, downs = [], []
    for s, seat in enumerate(S["seats"]):
        if not isinstance(seat, dict):
            raise ValueError(f"states[{i}] seat {s} must be a dict with 'hand', 'up', 'down'")
        hands.append(_cards(seat.get("hand", ""), f"states[{i}] seat {s} hand"))
        downs.append(_down_slots(seat.get("down"), f"states[{i}] seat {s} down"))
    return hands, downs, _cards(S.get("draw", []), f"states[{i}] draw")


def _same_places(i: int, mine, first) -> None:
    """ValueError unless position i deals the first position's hidden cards into the same places."""
    (hands, downs, draw), (hands0, downs0, draw0) = mine, first
    for s in range(len(hands)):
        if len(hands[s]) != len(hands0[s]):
            raise ValueError(f"states[{i}] seat {s} holds {len(hands[s])} cards, states[0] {len(hands0[s])}")
        if [c < 0 for c in downs[s]] != [c < 0 for c in downs0[s]]:
            raise ValueError(f"states[{i}] seat {s}: its face-down slots differ from states[0]'s")
    if len(draw) != len(draw0):
        raise ValueError(f"states[{i}] has {len(draw)} draw cards, states[0] {len(draw0)}")

    def pool(h, d, w):
        return sorted([c for cs in h for c in cs] + [c for cs in d for c in cs if c >= 0] + list(w))

    if pool(hands, downs, draw) != pool(hands0, downs0, draw0):
        raise ValueError(f"states[{i}]: its hand, face-down and draw cards are not states[0]'s redealt")


def load_positions(g, states, rows) -> None:
    """Put section 7.2 positions into games of the BatchGame g: the games rows[i] (an index array)
    get states[i]; the other games are left as they were. See ``BatchGame.load_positions``."""
    from lopti_env.env import _group

    if not isinstance(states, (list, tuple)) or not states:
        raise ValueError("states must be a non-empty list of section 7.2 positions")
    if not isinstance(rows, (list, tuple)) or len(rows) != len(states):
        raise ValueError(f"rows must list one index array per state ({len(states)}), got {len(rows)!r}"
                         if isinstance(rows, (list, tuple)) else "rows must be a list of index arrays")
    idx = []
    for i, r in enumerate(rows):
        r = np.asarray(r)
        if r.ndim != 1 or not np.issubdtype(r.dtype, np.integer) or ((r < 0) | (r >= g.n)).any():
            raise ValueError(f"rows[{i}] must be a 1-d array of game indices in 0..{g.n - 1}")
        idx.append(r)
    n = g.num_players
    first = _hidden(0, states[0], n)
    dealt = [first]
    for i, S in enumerate(states[1:], 1):
        dealt.append(_hidden(i, S, n))
        _same_places(i, dealt[-1], first)
    decks = np.tile(np.arange(52, dtype=np.int8), (1, g.R, 1))
    coins = np.zeros((1, g.n_coins), np.int8)
    st = new_state(1)
    K.start_episode(st, 0, g.cfg, g.carry, decks, coins, g.rules0, g.sw0, g.config.first_dealer)
    inject_state(st, g.config, g.cfg, states[0])
    K.refresh_mask(st, 0, g.cfg)
    rec = st[0]
    # known cards are public (section 3.2), so every sampled world keeps them in their seat's hand;
    # the later states take states[0]'s known masks, which must lie in their own hands
    for i, (hands, _, _) in enumerate(dealt[1:], 1):
        for s in range(n):
            missing = int(rec["known"][s]) & ~sum(1 << c for c in hands[s])
            if missing:
                raise ValueError(f"states[{i}] seat {s}: its hand lacks states[0]'s known card(s) {_group(missing)}")
    g.st[idx[0]] = rec
    for (hands, downs, draw), r in zip(dealt[1:], idx[1:]):
        for s in range(n):
            m = 0
            for c in hands[s]:
                m |= 1 << c
            rec["hand"][s] = np.uint64(m)
            rec["down"][s] = downs[s]
        rec["draw"][:len(draw)] = draw
        g.st[r] = rec
    g.rewards[:] = 0.0
    g._is_reset = True  # the games hold started positions: observe and step may read them
