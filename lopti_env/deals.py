"""LOPTI deals and positions (section 7): parsing a section 7.1 deal into a deck order and writing a
section 7.2 position into a game record, every malformed input a ValueError naming it."""
from __future__ import annotations

import numbers

import numpy as np

from cardzoo.cards import card_text, parse_cards
from cardzoo.options import check_number
from lopti_env import kernels as K
from lopti_env.config import OBS_BOUNDS, SWITCH_HI, SWITCH_LO, SWITCH_NAMES, LoptiConfig, is_valid_rule


def _cards(spec, what):
    try:
        return parse_cards(spec)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None


def _slots(spec, what):
    """Three face-up/face-down slots: a string "c c c" ('-' = empty) or a list of 3 (None/'-')."""
    if spec is None:
        return [-1, -1, -1]
    items = spec.split() if isinstance(spec, str) else spec
    if not isinstance(items, (list, tuple)) or len(items) != 3:
        raise ValueError(f"{what}: expected 3 slots, got {spec!r}")
    out = []
    for it in items:
        if it is None or it == "-":
            out.append(-1)
        else:
            out.extend(_cards([it], what))
    return out


def deck_from_deal(d, n, dealer, what="deal"):
    """A section 7.1 deal (deck form or seats form) -> deck order int8[52]."""
    if not isinstance(d, dict):
        raise ValueError(f"{what} must be a dict with 'deck' or 'seats'")
    unknown = set(d) - {"deck", "seats", "draw", "dealer"}
    if unknown:
        raise ValueError(f"{what}: unknown key(s) {', '.join(sorted(map(repr, unknown)))}")
    if "deck" in d:
        if "seats" in d or "draw" in d:
            raise ValueError(f"{what}: give either 'deck' or 'seats' and 'draw', not both")
        deck = _cards(d["deck"], what)
    elif "seats" in d:
        seats = d["seats"]
        if not isinstance(seats, (list, tuple)) or len(seats) != n:
            raise ValueError(f"{what}: 'seats' must list {n} seats")
        parts = []
        for i, s in enumerate(seats):
            if not isinstance(s, dict) or set(s) - {"down", "up", "hand"}:
                raise ValueError(f"{what}: seat {i} must be a dict with 'down', 'up', 'hand'")
            p = {}
            for key in ("down", "up", "hand"):
                cs = _cards(s.get(key, []), f"{what} seat {i} {key}")
                if len(cs) != 3:
                    raise ValueError(f"{what}: seat {i} {key} must hold 3 cards, got {len(cs)}")
                p[key] = cs
            parts.append(p)
        draw = _cards(d.get("draw", []), f"{what} draw")
        order = [(dealer + 1 + j) % n for j in range(n)]
        deck = [0] * (9 * n)
        for i in range(3 * n):
            s = order[i % n]
            deck[i] = parts[s]["down"][i // n]
            deck[3 * n + i] = parts[s]["up"][i // n]
            deck[6 * n + i] = parts[s]["hand"][i // n]
        deck += draw
    else:
        raise ValueError(f"{what} needs 'deck' or 'seats'")
    if len(deck) != 52:
        raise ValueError(f"{what}: {len(deck)} cards; a deal needs all 52 cards (9N dealt + draw pile)")
    if len(set(deck)) != 52:
        dup = sorted({c for c in deck if deck.count(c) > 1})
        raise ValueError(f"{what}: duplicate card(s) {', '.join(card_text(c) for c in dup)}")
    return np.array(deck, np.int8)


def _dealer_of(d, n, default):
    if isinstance(d, dict) and "dealer" in d:
        v = d["dealer"]
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v < n:
            raise ValueError(f"deal dealer {v!r} is not a seat 0..{n - 1}")
        return int(v)
    return default


def _seat_int(v, n, what, allow_none=False):
    if v is None and allow_none:
        return -1
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v < n:
        raise ValueError(f"state {what}={v!r} is not a seat 0..{n - 1}")
    return int(v)


def _int(v, what, lo, hi):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not lo <= v <= hi:
        raise ValueError(f"state {what}={v!r} must be an int in {lo}..{hi}")
    return int(v)


def _pending(p, m):
    """A LO-10.8 pending change [kind, target, field, value] as the rules vote makes it: the kernels
    index rules and switches with target and field, so each must be in its domain."""
    kind = _int(p[0], "pending kind", 1, 4)
    if kind == 3:  # BASE: switch id, no field, a value of that switch's domain (LO-12)
        target = _int(p[1], "pending target (a switch id)", 0, len(SWITCH_NAMES) - 1)
        field = _int(p[2], "pending field (unused by BASE)", 0, 0)
        value = _int(p[3], f"pending value of {SWITCH_NAMES[target]}", SWITCH_LO[target], SWITCH_HI[target])
    else:  # REMOVE, AMEND, RESTORE: a rulebook slot; AMEND also a field (X, G, N) and its value
        target = _int(p[1], "pending target (a rulebook slot)", 0, m - 1)
        amend = kind == 2
        field = _int(p[2], "pending field", 1 if amend else 0, 3 if amend else 0)
        value = _int(p[3], "pending value", 0, 20 if amend else 0)
    return kind, target, field, value


_STATE_KEYS = {"seats", "pile", "chain", "draw", "out", "to_act", "move", "known", "dealer", "leader", "moves",
               "rules", "switches", "round", "prev_winner", "pending", "scores", "phase"}


def inject_state(st, cfg: LoptiConfig, cfgarr, S):
    """Write a section 7.2 position into game 0 of st; raise ValueError if impossible."""
    n = cfg.num_players
    if not isinstance(S, dict):
        raise ValueError("state must be a dict (section 7.2)")
    unknown = set(S) - _STATE_KEYS
    if unknown:
        raise ValueError(f"state: unknown key(s) {', '.join(sorted(map(repr, unknown)))}")
    phase = S.get("phase", "play")
    if phase not in ("play", "swap", "rule_making", "creator", "proposal"):
        raise ValueError(f"state phase {phase!r} is not one of play, swap, rule_making, creator, proposal")
    if phase in ("rule_making", "creator", "proposal") and not cfg.session:
        raise ValueError(f"state phase {phase!r} needs session=True")
    rnd = _int(S.get("round", 0), "round", 0, cfg.num_rounds() - 1)
    dealer = _seat_int(S.get("dealer", (cfg.first_dealer + rnd) % n), n, "dealer")
    prev_winner = _seat_int(S.get("prev_winner"), n, "prev_winner", allow_none=True)
    if prev_winner >= 0 and rnd == 0:  # LO-2.5, LO-10.2: round 0 follows no round
        raise ValueError("state prev_winner needs round >= 1 (round 0 has no previous round)")
    leader = _seat_int(S.get("leader", prev_winner if prev_winner >= 0 else dealer), n, "leader")
    # switches
    sw = cfg.switches()
    swd = S.get("switches", {})
    if not isinstance(swd, dict):
        raise ValueError("state switches must be a dict of LO-12 names")
    for name, v in swd.items():
        if name not in SWITCH_NAMES:
            raise ValueError(f"state switches: unknown switch {name!r}")
        i = SWITCH_NAMES.index(name)
        sw[i] = _int(v, f"switches[{name!r}]", SWITCH_LO[i], SWITCH_HI[i])
    if sw[0] == sw[1]:
        raise ValueError("state switches: CLEAR_RANK and LOW_RANK must differ")
    # rules
    rules = np.zeros((8, 8), np.int32)
    if "rules" in S:
        rows = S["rules"]
        if not isinstance(rows, (list, tuple)) or len(rows) > cfg.max_made_rules:
            raise ValueError(f"state rules must be a list of at most {cfg.max_made_rules} rows")
        seen = []
        for i, row in enumerate(rows):
            if not isinstance(row, (list, tuple)) or len(row) not in (6, 7) or any(
                    isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in row):
                raise ValueError(f"state rules row {row!r} must be [t, X, G, N, maker, status(, made_round)]")
            t, x, gg, nn, maker, status = (int(v) for v in row[:6])
            if status not in (1, 2):
                raise ValueError(f"state rules row {list(row)}: status must be 1 (ACTIVE) or 2 (REMOVED)")
            if not -1 <= maker < n:
                raise ValueError(f"state rules row {list(row)}: maker must be -1 or a seat")
            if not is_valid_rule(t, x, gg, nn, others=seen):
                raise ValueError(f"state rules row {list(row)} is not a valid rule (LO-11.7)")
            seen.append((t, x, gg, nn))
            made = _int(row[6], "rules made_round", -1, cfg.num_rounds() - 1) if len(row) == 7 else -1
            rules[i] = [t, x, gg, nn, maker, status, made, 0]
    else:
        rules = cfg.rules_array()
    pending = S.get("pending")
    pend = np.zeros(4, np.int32)
    if pending is not None:
        if not isinstance(pending, (list, tuple)) or len(pending) != 4 or any(
                isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in pending):
            raise ValueError("state pending must be [kind, target, field, value] or None")
        pend[:] = _pending(pending, cfg.max_made_rules)
    scores = S.get("scores")
    sc = np.zeros(5, np.float32)
    if scores is not None:
        if not isinstance(scores, (list, tuple)) or len(scores) != n:
            raise ValueError(f"state scores must be a list of {n} numbers")
        # finite and within the observation space's bounds (scores are observed)
        lo, hi = OBS_BOUNDS
        sc[:n] = [check_number(f"scores[{i}]", v, lo, hi, what="state") for i, v in enumerate(scores)]
    moves = _int(S.get("moves", 0), "moves", 0, 10 ** 9)

    have_seats = "seats" in S
    hands = [0] * 5
    ups = [[-1] * 3 for _ in range(5)]
    downs = [[-1] * 3 for _ in range(5)]
    known = [0] * 5
    pile_plays = []
    draw = []
    out = []
    used = []
    if have_seats:
        seats = S["seats"]
        if not isinstance(seats, (list, tuple)) or len(seats) != n:
            raise ValueError(f"state seats must list {n} seats")
        for i, s in enumerate(seats):
            if not isinstance(s, dict) or set(s) - {"hand", "up", "down"}:
                raise ValueError(f"state seat {i} must be a dict with 'hand', 'up', 'down'")
            h = _cards(s.get("hand", ""), f"state seat {i} hand")
            used += h
            for c in h:
                hands[i] |= 1 << c
            ups[i] = _slots(s.get("up"), f"state seat {i} up")
            downs[i] = _slots(s.get("down"), f"state seat {i} down")
            used += [c for c in ups[i] + downs[i] if c >= 0]
    elif phase in ("play", "swap"):
        raise ValueError(f"state phase {phase!r} needs 'seats'")
    pile = S.get("pile", [])
    if not isinstance(pile, (list, tuple)):
        raise ValueError("state pile must be a list of [seat, cards]")
    for entry in pile:
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise ValueError(f"state pile entry {entry!r} must be [seat, cards]")
        seat = _seat_int(entry[0], n, "pile seat")
        cs = _cards(entry[1], "state pile")
        if not 1 <= len(cs) <= 4 or len({c % 13 for c in cs}) != 1:
            raise ValueError(f"state pile entry {entry!r} must be 1-4 cards of one rank")
        if cs[0] % 13 == 1:
            raise ValueError(f"state pile entry {entry!r}: 3s never lie on the pile (LO-5.3)")
        pile_plays.append((seat, cs))
        used += cs
    draw = _cards(S.get("draw", []), "state draw")
    used += draw
    if len(set(used)) != len(used):
        dup = sorted({c for c in used if used.count(c) > 1})
        raise ValueError(f"state: duplicate card(s) {', '.join(card_text(c) for c in dup)}")
    outl = S.get("out", [])
    if not isinstance(outl, (list, tuple)):
        raise ValueError("state out must be a list of seats")
    out = [_seat_int(s, n, "out") for s in outl]
    if len(set(out)) != len(out) or len(out) >= n:
        raise ValueError(f"state out {out!r}: repeated seats, or no player left")
    if out and phase != "play":
        # nobody is out before a round's play starts (LO-2.6, LO-9.1): an out seat would answer the
        # swap phase and then be the round's leader with no legal action
        raise ValueError(f"state out {out!r}: only a 'play' position has seats out, not phase {phase!r}")
    kn = S.get("known", {})
    if not isinstance(kn, dict):
        raise ValueError("state known must be a dict {seat: cards}")
    for key, cs in kn.items():
        # a seat, or its digits as a string (JSON object keys are strings)
        seat = _seat_int(int(key) if isinstance(key, str) and key.isdigit() else key, n, "known seat")
        for c in _cards(cs, "state known"):
            if not (hands[seat] >> c) & 1:
                raise ValueError(f"state known: {card_text(c)} is not in seat {seat}'s hand")
            known[seat] |= 1 << c
    chain = _int(S.get("chain", 0), "chain", 0, 3)
    if chain >= sw[3]:
        raise ValueError(f"state chain {chain} reaches SET_SIZE {sw[3]}")
    # top and run
    top, cnt, run = -1, 0, 0
    for seat, cs in pile_plays:
        r = cs[0] % 13
        run = run + len(cs) if r == top else len(cs)
        top, cnt = r, len(cs)
    if pile_plays and run >= sw[3]:
        raise ValueError(f"state pile: a run of {run} reaches SET_SIZE {sw[3]} (it would have cleared)")
    move = S.get("move", "first")
    if move not in ("first", "extra"):
        raise ValueError("state move must be 'first' or 'extra'")
    if move == "extra" and pile_plays:
        raise ValueError("state move 'extra' needs an empty table (LO-6.3)")
    if have_seats:
        for s in range(n):
            holds = hands[s] != 0 or any(c >= 0 for c in ups[s] + downs[s])
            if s in out and holds:
                raise ValueError(f"state: seat {s} is out but holds cards")
            if s not in out and not holds:
                raise ValueError(f"state: active seat {s} holds no card")
            if s not in out and hands[s] == 0 and any(c >= 0 for c in ups[s]):
                raise ValueError(f"state: seat {s} has an empty hand while face-up cards remain (LO-8.1)")
    # LO-2.5: a round's play starts on an empty table with no 3s played yet
    if phase != "play" and pile_plays:
        raise ValueError(f"state phase {phase!r} needs an empty pile")
    if phase != "play" and chain:
        raise ValueError(f"state phase {phase!r} needs chain 0 (no 3s are played before the round's play)")
    to_act = _seat_int(S.get("to_act", leader), n, "to_act")
    if phase == "play" and to_act in out:
        raise ValueError(f"state to_act {to_act} is out")
    if phase == "rule_making":
        if prev_winner < 0:
            raise ValueError("state phase 'rule_making' needs prev_winner")
        if not any(rules[i, 5] == 0 for i in range(cfg.max_made_rules)):
            raise ValueError("state phase 'rule_making' needs an EMPTY rulebook slot")

    # ---- write the record ----
    K.reset_fields_at(st, 0, cfgarr)
    g = st[0]
    g["rules"][:] = rules
    g["sw"][:] = sw
    g["pending"][:] = pend
    g["scores"][:] = sc
    g["round"] = rnd
    g["dealer"] = dealer
    g["fdealer"] = (dealer - rnd) % n
    g["leader"] = leader
    g["prev_winner"] = prev_winner
    g["rounds_done"] = 0
    g["draft"][:] = -1
    g["cand"] = -1
    for s in range(5):
        g["hand"][s] = np.uint64(hands[s])
        g["known"][s] = np.uint64(known[s])
        g["up"][s] = ups[s]
        g["down"][s] = downs[s]
    for i, s in enumerate(out):
        g["active"][s] = 0
        g["place"][s] = i
        g["out_order"][i] = s
    g["n_out"] = len(out)
    g["winner"] = out[0] if out else -1
    k = 0
    for i, (seat, cs) in enumerate(pile_plays):
        g["play_start"][i] = k
        g["play_rank"][i] = cs[0] % 13
        g["play_cnt"][i] = len(cs)
        g["play_seat"][i] = seat
        for c in cs:
            g["pile"][k] = c
            k += 1
    g["n_plays"] = len(pile_plays)
    g["pile_n"] = k
    g["top_rank"] = top
    g["top_cnt"] = cnt
    g["run"] = run
    g["chain"] = chain
    for i, c in enumerate(draw):
        g["draw"][i] = c
    g["draw_pos"] = 0
    g["draw_n"] = len(draw)
    if have_seats:
        g["gone"] = np.uint64(((1 << 52) - 1) & ~sum(1 << c for c in set(used)))
    g["moves"] = moves
    g["move_kind"] = 1 if move == "extra" else 0
    g["skip_deal"] = 0
    if phase == "play":
        g["phase"] = K.PLAY
        g["actor"] = to_act
    elif phase == "swap":
        g["phase"] = K.SWAP
        g["actor"] = leader
        g["swap_turns"] = 0
    elif phase == "rule_making":
        g["phase"] = K.RULE_MAKING
        g["substep"] = 0
        g["actor"] = prev_winner
        g["skip_deal"] = 1 if have_seats else 0
    elif phase == "creator":
        g["skip_deal"] = 1 if have_seats else 0
        g["phase"] = K.CREATOR
    else:
        g["phase"] = K.PROPOSAL
        g["substep"] = 0
        g["pos"] = 0
        g["actor"] = (dealer + 1) % n
    return phase, have_seats
