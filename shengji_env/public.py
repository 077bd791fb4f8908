"""Sheng Ji's public record as JSON-able Python (spec 9.3, 9.4, 9 "Card text"): card sets as text,
a hand's result and the public state, read from a state record."""
from __future__ import annotations

import numpy as np

from cardzoo.cards import card_text

from . import config as cfgmod
from . import kernels as K
from .state import STATE_DTYPE

TRUMP_NAMES = ("C", "D", "H", "S", "NT")

# ---- card text helpers (section 9 "Card text") ----------------------------------------------

_CARD_TEXT = [card_text(c) for c in range(54)]
_CARD_IDS = np.arange(54)


def card_set_text(counts) -> str:
    """Copies per card id (54 counts) -> card text, each copy once, in id order."""
    return " ".join([_CARD_TEXT[c] for c in _CARD_IDS.repeat(np.asarray(counts)[:54]).tolist()])


def _cards_text_from_list(cards) -> str:
    return " ".join(_CARD_TEXT[c] for c in sorted(int(c) for c in cards))


# ---- public state / result (9.3, 9.4) ------------------------------------------------------

def _decomp_texts(counts, lvl, trump, decks):
    ok = np.empty(64, np.int64)
    oL = np.empty(64, np.int64)
    ot = np.empty(64, np.int64)
    oc = np.empty((64, K.NPOS), np.int64)
    m = K.decompose_counts(np.asarray(counts, np.int64), lvl, trump, decks, ok, oL, ot, oc)
    out = []
    for j in range(m):
        cards = []
        for w in range(int(oL[j])):
            cards.extend([int(oc[j, w])] * int(ok[j]))
        out.append(_cards_text_from_list(cards))
    return out


def _result_block():
    """The state's hand-result fields (r_valid .. r_winner) as one structured dtype at their offsets,
    and its offset: a finished hand's result is read with one getfield call, not field by field
    (each field of a record scalar costs about as much as the whole block)."""
    d = STATE_DTYPE
    names = [n for n in d.names if n.startswith("r_")]
    if tuple(names) != RESULT_FIELDS:  # result_dict unpacks the block in RESULT_FIELDS' order
        raise RuntimeError(f"the state's result fields {names} are not RESULT_FIELDS")
    start = min(d.fields[n][1] for n in names)
    end = max(d.fields[n][1] + d.fields[n][0].itemsize for n in names)
    block = np.dtype({"names": names, "formats": [d.fields[n][0] for n in names],
                      "offsets": [d.fields[n][1] - start for n in names], "itemsize": end - start})
    return block, start


RESULT_FIELDS = ("r_valid", "r_hand_index", "r_banker", "r_level", "r_trump", "r_tp", "r_kitty", "r_kpts", "r_last",
                 "r_mult", "r_bonus", "r_pen", "r_p", "r_outcome", "r_table", "r_score", "r_gain", "r_newlev",
                 "r_next_banker", "r_winner")
_RESULT_BLOCK, _RESULT_AT = _result_block()


def result_dict(s) -> dict | None:
    r = s.getfield(_RESULT_BLOCK, _RESULT_AT)
    if not r["r_valid"]:
        return None
    (_, hand_index, banker, level, trump, tp, kitty, kpts, last, mult, bonus, pen, p, outcome, table, score,
     gain, newlev, next_banker, winner) = r.item()
    return {
        "hand_index": hand_index,
        "banker": banker,
        "declarers": banker % 2,
        "hand_level": level,
        "trump": TRUMP_NAMES[trump],
        "trick_points": tp.tolist(),
        "kitty": card_set_text(kitty),
        "kitty_points": kpts,
        "last_trick_winner": last,
        "multiplier": mult,
        "kitty_bonus": bonus,
        "penalty": pen,
        "opponent_points": p,
        "outcome": "hold" if outcome == 0 else "takeover",
        "table_levels": table,
        "hand_score": score,
        "levels_gained": gain.tolist(),
        "new_levels": newlev.tolist(),
        "next_banker": next_banker,
        "match_winner": None if winner < 0 else winner,
    }


def _log_plays(s) -> dict:
    """The play log grouped once per call: {trick: [[seat, [cards]], ...]} in play order, a run of
    one seat's cards being one play (public_state used to rescan the whole log for every trick)."""
    n = int(s["nlog"])
    out: dict = {}
    for q, c, t in zip(s["log_seat"][:n].tolist(), s["log_card"][:n].tolist(), s["log_trick"][:n].tolist()):
        plays = out.setdefault(t, [])
        if plays and plays[-1][0] == q:
            plays[-1][1].append(c)
        else:
            plays.append([q, [c]])
    return out


def _trick_plays(s, t, log=None):
    """[[seat, card set], ...] of trick t in play order, from the play log."""
    log = _log_plays(s) if log is None else log
    return [[q, _cards_text_from_list(cs)] for q, cs in log.get(t, [])]


def _leader_counts(s, t, leader, log=None):
    """Count vector of the cards seat `leader` played to trick t."""
    log = _log_plays(s) if log is None else log
    cards = [c for q, cs in log.get(t, []) if q == leader for c in cs]
    return np.bincount(np.asarray(cards, np.int64), minlength=54)


def public_state_dict(s, cfg: cfgmod.Config, result_cache=None) -> dict:
    ph = int(s["phase"])
    D = cfg.decks
    lvl = int(s["hand_level"])
    trump = int(s["trump"])
    banker = int(s["banker"])
    nd = int(s["ndecl"])
    decls = [[int(s["decl_seat"][i]), card_text(int(s["decl_card"][i])), int(s["decl_cnt"][i])] for i in range(nd)]
    ntr = int(s["ntricks"])
    log = _log_plays(s)
    tricks = []
    for t in range(ntr):
        ldr = int(s["tr_leader"][t])
        tricks.append({
            "leader": ldr,
            "plays": _trick_plays(s, t, log),
            "format": _decomp_texts(_leader_counts(s, t, ldr, log), lvl, trump, D),
            "winner": int(s["tr_winner"][t]),
            "points": int(s["tr_points"][t]),
        })
    in_play = ph in (K.LEAD, K.FOLLOW)
    cur_trick = _trick_plays(s, ntr, log) if in_play else []
    fmt = []
    if ph == K.FOLLOW:
        ldr = int(s["leader"])
        fmt = _decomp_texts(_leader_counts(s, ntr, ldr, log), lvl, trump, D)
    fts = []
    for i in range(int(s["nft"])):
        t = int(s["ft_trick"][i])
        seat = int(s["ft_seat"][i])
        fts.append({"seat": seat, "trick": t, "attempted": card_set_text(s["ft_att"][i]),
                    "played": card_set_text(_leader_counts(s, t, seat, log))})
    over = ph == K.OVER
    return {
        "phase": K.PHASE_NAMES[ph] if ph <= K.OVER else "OVER",
        "current_player": int(s["actor"]) if ph <= K.FOLLOW else None,
        "decks": D,
        "hand_index": int(s["hand_index"]),
        "levels": [int(s["levels"][0]), int(s["levels"][1])],
        "hand_level": lvl,
        "first_drawer": int(s["f"]),
        "banker": None if banker < 0 else banker,
        "declarers": None if banker < 0 else banker % 2,
        "void_deals": int(s["void_deals"]),
        "dealt": int(s["dealt"]),
        "hand_sizes": [int(s["hand"][q].sum()) for q in range(4)],
        "declarations": decls,
        "standing": list(decls[-1]) if decls else None,
        "trump": None if trump < 0 else TRUMP_NAMES[trump],
        "kitty_revealed": [card_text(int(c)) for c in s["kitty_order"][: int(s["nrev"])]],
        "leader": int(s["leader"]) if in_play else None,
        "trick": cur_trick,
        "trick_format": fmt,
        "tricks": tricks,
        "points": [int(s["points"][0]), int(s["points"][1])],
        "failed_throws": fts,
        "shown": [card_set_text(s["shown"][q]) for q in range(4)],
        "kitty": card_set_text(s["buried"]) if (over and s["hand_over"]) else None,
        "result": result_dict(s),
    }
