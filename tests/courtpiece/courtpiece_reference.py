"""Plain-Python reference of Court Piece's legal actions and trick winner, written from the spec
(section 4 table "Legal mask by phase", CP-4.3, CP-4.4, CP-4.5, CP-7.5, CP-7.7, CP-11.6), and a bulk
driver that plays random games with BatchGame.  No engine code is used by the reference."""
from __future__ import annotations

import numpy as np

SUIT_BITS = [((1 << 13) - 1) << (13 * s) for s in range(4)]
PHASES = ("change_cards", "call", "hide", "band_hide", "change_trump", "play", "over")
VARIANTS = ("single_sar", "double_sar", "chhupa_rang", "be_rang", "mendi_coat")


def ref_legal(variant, band, phase, a, fc, passed, first5, hand, npos, led, trump, face_down, owner,
              cc_used, limit, tff, duty):
    """Legal actions of seat a as a set of ids.  duty: None, "ask" (right after a's ASK_REVEAL),
    "lead" (right after a's LEAD_REVEAL) or "band" (CP-11.6(d): a is the first player of the bazi
    with no card of the led suit)."""
    cards = lambda m: {c for c in range(52) if (m >> c) & 1}  # noqa: E731
    out = set()
    if phase == "change_cards":
        out = {56}
        if cc_used < limit:
            out.add(59)
    elif phase == "call":
        out = {52 + s for s in range(4) if not tff or first5 & SUIT_BITS[s]}
        if a == fc and not passed:
            out.add(56)
    elif phase == "hide":
        out = cards(first5)
        if a == fc and not passed:
            out.add(56)
    elif phase == "band_hide":
        out = cards(first5)
    elif phase == "change_trump":
        if variant == "chhupa_rang":
            out = cards(first5 & hand) | {56}
        else:
            out = {52 + s for s in range(4) if s != trump} | {56}
    elif phase == "play":
        H = cards(hand)
        trumps = {c for c in H if trump is not None and c // 13 == trump}
        if npos == 0:
            if duty == "lead":
                out = trumps
            else:
                out = set(H)
                if face_down and owner == a and (variant == "chhupa_rang" or band):
                    out.add(58)
                if not H:
                    out = {58}
        else:
            follow = {c for c in H if c // 13 == led}
            if duty in ("ask", "band"):
                out = follow or trumps or set(H)
            elif follow:
                out = follow
            else:
                out = set(H)
                if variant == "chhupa_rang" and face_down:
                    out.add(57)
                if not H:
                    out = {57}
    return out


def ref_trick_winner(cards, leader, trump, moment, t):
    """CP-4.4 with CP-4.5: cards in play order from `leader` in trick t (0-based); trump suit (or None);
    moment = (trick, position) from which trump-suit cards count as trumps (None: never)."""
    led = cards[0] // 13
    best, winner = None, None
    for i, c in enumerate(cards):
        suit, rank = divmod(c, 13)
        is_trump = trump is not None and suit == trump and (
            suit == led or (moment is not None and (t, i) >= moment))
        key = (2, rank) if is_trump else (1, rank) if suit == led else (0, 0)
        if best is None or key > best:
            best, winner = key, (leader + i) % 4
    return winner


def packed(mask):
    """uint8[B, 60] -> list of Python ints (bit k = action k)."""
    w = (np.uint64(1) << np.arange(52, dtype=np.uint64))
    lo = (mask[:, :52].astype(np.uint64) * w).sum(axis=1)
    hi = (mask[:, 52:].astype(np.int64) * (1 << np.arange(8))).sum(axis=1)
    return [int(x) | (int(y) << 52) for x, y in zip(lo.tolist(), hi.tolist())]


def to_bits(actions):
    v = 0
    for x in actions:
        v |= 1 << x
    return v


def record_bytes(st) -> bytes:
    """The bytes of Court Piece state records without the alignment padding of STATE_DTYPE: numba
    leaves those 8 bytes per record as whatever a whole-record copy carried, so raw tobytes() of
    two equal games can differ there."""
    from numpy.lib.recfunctions import repack_fields

    return repack_fields(np.asarray(st)).tobytes()
