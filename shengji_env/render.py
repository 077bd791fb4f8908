"""ANSI text rendering: hands grouped trump-first with level cards marked, the current trick,
points per team and levels. Suit symbols: ♣♦♥♠."""
from __future__ import annotations

from cardzoo.cards import RANKS, SUIT_SYMBOLS

from . import kernels as K

_TRUMP_TEXT = ("♣", "♦", "♥", "♠", "NT")


def _sym(c: int, lvl: int) -> str:
    if c == 52:
        return "LJ"
    if c == 53:
        return "BJ"
    r = c % 13
    t = ("10" if RANKS[r] == "T" else RANKS[r]) + SUIT_SYMBOLS[c // 13]
    return ("*" + t) if r == lvl else t


def _group(counts, lvl: int, trump: int) -> str:
    """Cards grouped by effective suit, trump first, strongest first inside a group."""
    groups = {}
    for c in range(54):
        for _ in range(int(counts[c])):
            e = K.card_esuit(c, lvl, trump) if trump >= 0 else (4 if (c >= 52 or c % 13 == lvl) else c // 13)
            groups.setdefault(e, []).append(c)
    parts = []
    for e in (4, 3, 2, 1, 0):
        if e in groups:
            cards = sorted(groups[e], key=lambda c: (K.card_pos(c, lvl, trump), c), reverse=True)
            label = "T" if e == 4 else SUIT_SYMBOLS[e]
            parts.append(label + ": " + " ".join(_sym(c, lvl) for c in cards))
    return " | ".join(parts) if parts else "-"


def render_text(s, cfg) -> str:
    ph = int(s["phase"])
    lvl = int(s["hand_level"])
    trump = int(s["trump"])
    banker = int(s["banker"])
    lines = []
    phase = K.PHASE_NAMES[ph] if ph <= K.OVER else "OVER"
    lv = [RANKS[int(x)] for x in s["levels"]]
    lines.append(f"Sheng Ji, {cfg.decks} deck(s) | hand {int(s['hand_index'])} | phase {phase} | "
                 f"levels team0 {lv[0]} team1 {lv[1]} | hand level {RANKS[lvl]} | "
                 f"trump {_TRUMP_TEXT[trump] if trump >= 0 else '?'} | banker "
                 f"{banker if banker >= 0 else '?'}")
    lines.append(f"points: team0 {int(s['points'][0])}  team1 {int(s['points'][1])}")
    actor = int(s["actor"]) if ph <= K.FOLLOW else -1
    for q in range(4):
        mark = ">" if q == actor else " "
        lines.append(f"{mark} player_{q}: {_group(s['hand'][q], lvl, trump)}")
    if ph in (K.LEAD, K.FOLLOW):
        ldr = int(s["leader"])
        plays = []
        for d in range(4):
            q = (ldr + d) % 4
            if s["trick_cards"][q].sum():
                cards = [c for c in range(54) for _ in range(int(s["trick_cards"][q][c]))]
                plays.append(f"p{q}: " + " ".join(_sym(c, lvl) for c in cards))
        lines.append("trick: " + ("  ".join(plays) if plays else "(leader composing)"))
        if s["nsel"]:
            sel = [c for c in range(54) for _ in range(int(s["sel"][c]))]
            lines.append("selected: " + " ".join(_sym(c, lvl) for c in sel))
    return "\n".join(lines)
