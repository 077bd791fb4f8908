"""The rule functions by name in plain Python (tests, tools, the section 8 "(kernel)" cases)."""
from __future__ import annotations

import numpy as np

from ..config import C_K
from .cardsets import sync_card_sets
from .combos import decompose_counts
from .declare import decl_options
from .kitty import _kitty_flip
from .lead import execute_lead_of_game
from .order import NPOS, card_esuit, card_pos, set_tables
from .phases import FOLLOW, LEAD, NUM_ACTIONS
from .plays import legal_plays
from .score import advance_team, kitty_mult, table_result
from .step import legal_mask
from .trick import beats, play_strength


_TRUMPS = ("C", "D", "H", "S", "NT")


ESUIT_NAMES = ("C", "D", "H", "S", "TRUMP")


def _trump_id(trump) -> int:
    if isinstance(trump, str) and trump.upper() in _TRUMPS:
        return _TRUMPS.index(trump.upper())
    raise ValueError(f"trump {trump!r} is not one of C, D, H, S, NT")


def _level_id(level) -> int:
    from cardzoo.cards import rank_index
    if isinstance(level, str):
        return rank_index(level)
    if isinstance(level, (int, np.integer)) and not isinstance(level, bool) and 0 <= int(level) <= 12:
        return int(level)
    raise ValueError(f"level {level!r} is not a rank '2'..'A' or 0..12")


def _counts(cards) -> np.ndarray:
    from cardzoo.cards import parse_cards
    out = np.zeros(54, np.int64)
    for c in parse_cards(cards, jokers=True):
        out[c] += 1
    return out


def _text(counts) -> str:
    from cardzoo.cards import card_text
    return " ".join(card_text(c) for c in range(54) for _ in range(int(counts[c])))


def esuit_pos(card, level, trump):
    """SJ-3.3/3.4: (effective suit name, position) of one card."""
    from cardzoo.cards import card_index
    c = card_index(card, jokers=True) if isinstance(card, str) else int(card)
    lvl = _level_id(level)
    t = _trump_id(trump)
    return ESUIT_NAMES[card_esuit(c, lvl, t)], int(card_pos(c, lvl, t))


def decompose(cards, level, trump, decks=2):
    """SJ-7.2 canonical decomposition of a one-esuit lead: [(k, L, top, card set text), ...]."""
    cnt = _counts(cards)
    lvl = _level_id(level)
    t = _trump_id(trump)
    es = {card_esuit(c, lvl, t) for c in range(54) if cnt[c]}
    if len(es) != 1:
        raise ValueError("a lead must be non-empty and of one effective suit (SJ-7.1)")
    ok = np.empty(64, np.int64)
    oL = np.empty(64, np.int64)
    ot = np.empty(64, np.int64)
    oc = np.empty((64, NPOS), np.int64)
    m = decompose_counts(cnt, lvl, t, decks, ok, oL, ot, oc)
    out = []
    for j in range(m):
        cc = np.zeros(54, np.int64)
        for w in range(int(oL[j])):
            cc[oc[j, w]] += ok[j]
        out.append((int(ok[j]), int(oL[j]), int(ot[j]), _text(cc)))
    return out


def _rec(st):
    """Attribute access to record 0 of a state array (writes go through)."""
    return st.view(np.recarray)[0]


def _blank_state(decks, level, trump):
    from ..config import make as make_cfg
    from ..state import make_state
    cfg = make_cfg(decks=decks).to_array()
    st = make_state(1)
    r = _rec(st)
    r.hand_level = level
    r.trump = trump
    r.levels[0] = level
    r.levels[1] = level
    if trump >= 0:
        set_tables(st, 0)
    return st, cfg


def declaration_options(hand, level, seat=0, standing=None, decks=2, allow_no_trump=True):
    """SJ-4.5: sorted action ids (56..79) of the legal declarations of `seat` holding `hand`
    against `standing` = None or (seat, card text, count)."""
    from cardzoo.cards import card_index
    from ..config import make as make_cfg
    from ..state import make_state
    cfg = make_cfg(decks=decks, allow_no_trump=allow_no_trump).to_array()
    st = make_state(1)
    s = _rec(st)
    s.hand_level = _level_id(level)
    s.hand[seat, :] = _counts(hand)
    if standing is not None:
        q, x, j = standing
        s.ndecl = 1
        s.decl_seat[0] = q
        s.decl_card[0] = card_index(x, jokers=True) if isinstance(x, str) else int(x)
        s.decl_cnt[0] = j
    out = np.zeros(NUM_ACTIONS, np.int8)
    decl_options(st, 0, cfg, seat, out)
    return [int(a) for a in np.flatnonzero(out)]


def _follow_state(lead, hand, level, trump, decks, selection=None):
    lvl = _level_id(level)
    t = _trump_id(trump)
    st, cfg = _blank_state(decks, lvl, t)
    s = _rec(st)
    comps = decompose(lead, lvl, _TRUMPS[t], decks)
    s.fm = len(comps)
    for j, (k, L, top, _) in enumerate(comps):
        s.fk[j] = k
        s.fL[j] = L
        s.ftop[j] = top
    lc = _counts(lead)
    s.lead_n = int(lc.sum())
    s.lead_esuit = card_esuit(int(np.flatnonzero(lc)[0]), lvl, t)
    s.trick_cards[0, :] = lc
    s.leader = 0
    s.ntp = 1
    s.phase = FOLLOW
    s.actor = 1
    s.banker = 0
    s.hand[1, :] = _counts(hand)
    if selection is not None:
        sc = _counts(selection)
        s.sel[:] = sc
        s.nsel = int(sc.sum())
    sync_card_sets(st)
    return st, cfg


def follow_plays(lead, hand, level, trump, decks=2, selection=None):
    """SJ-8: the set of legal follows (card set texts) of a follower holding `hand` to a
    successful `lead` (plays containing `selection`)."""
    st, cfg = _follow_state(lead, hand, level, trump, decks, selection)
    buf = np.zeros((200000, 54), np.int8)
    n = legal_plays(st, 0, cfg, buf)
    return {_text(buf[i]) for i in range(min(n, buf.shape[0]))}


def follow_mask(lead, hand, level, trump, decks=2, selection=None):
    """Section 4 FOLLOW mask: the card ids allowed next, given the cards selected so far."""
    st, cfg = _follow_state(lead, hand, level, trump, decks, selection)
    out = np.zeros(NUM_ACTIONS, np.int8)
    legal_mask(st, 0, cfg, out)
    return {int(a) for a in np.flatnonzero(out)}


def throw_check(lead, others, level, trump, decks=2):
    """SJ-7.4: `others` = hands of seats leader+1..+3 (texts). Returns (success, played card set);
    on failure the played set is the forced component."""
    lvl = _level_id(level)
    t = _trump_id(trump)
    st, cfg = _blank_state(decks, lvl, t)
    s = _rec(st)
    lc = _counts(lead)
    s.hand[0, :] = lc
    for i, h in enumerate(others):
        s.hand[1 + i, :] = _counts(h)
        s.hand[1 + i, :] += 0
    s.sel[:] = lc
    s.nsel = int(lc.sum())
    s.phase = LEAD
    s.actor = 0
    s.banker = 0
    sync_card_sets(st)
    execute_lead_of_game(st, 0, cfg)
    played = s.trick_cards[0].astype(np.int64)
    return bool(s.nft == 0), _text(played)


def trick_winner(plays, level, trump, decks=2):
    """SJ-9: plays = card set texts in play order, the first being the (successful) lead.
    Returns the index into plays of the winner."""
    lvl = _level_id(level)
    t = _trump_id(trump)
    comps = decompose(plays[0], lvl, _TRUMPS[t], decks)
    fk = np.array([c[0] for c in comps], np.int64)
    fL = np.array([c[1] for c in comps], np.int64)
    lc = _counts(plays[0])
    s_es = card_esuit(int(np.flatnonzero(lc)[0]), lvl, t)
    be, bs = play_strength(lc, fk, fL, len(comps), s_es, lvl, t)
    best = 0
    for i in range(1, len(plays)):
        e, sv = play_strength(_counts(plays[i]), fk, fL, len(comps), s_es, lvl, t)
        if sv < 0:
            continue
        if beats(e, sv, be, bs):
            best, be, bs = i, e, sv
    return best


def level_result(p, decks=2):
    """SJ-11.1: ("hold" | "takeover", d) for opponents' points p."""
    o, d = table_result(int(p), int(decks))
    return ("hold", "takeover")[o], int(d)


def kitty_flip(kitty, level, mode="first_card"):
    """SJ-4.9: (trump, revealed card texts) of a kitty flip."""
    from cardzoo.cards import card_text, parse_cards
    cards = parse_cards(kitty, jokers=True)
    lvl = _level_id(level)
    from ..config import make as make_cfg
    decks = 2 if len(cards) == 8 else 1
    cfg = make_cfg(decks=decks, kitty_flip=mode).to_array()
    cfg[C_K] = len(cards)
    st, _ = _blank_state(decks, lvl, -1)
    r = _rec(st)
    for j, c in enumerate(cards):
        r.kitty_order[j] = c
    _kitty_flip(st, 0, cfg)
    return _TRUMPS[int(r.trump)], [card_text(c) for c in cards[: int(r.nrev)]]


def kitty_multiplier(last_format, mode="flat"):
    """SJ-10.2: m for a last trick whose format has components of shapes [(k, L), ...]."""
    from ..config import KITTY_MULTIPLIERS
    if mode not in KITTY_MULTIPLIERS:
        raise ValueError(f"unknown kitty_multiplier {mode!r}")
    z = max(k * L for k, L in last_format)
    single = len(last_format) == 1 and z == 1
    return int(kitty_mult(z, single, KITTY_MULTIPLIERS.index(mode)))


def advance_levels(level, d, declared, must_defend=("A",)):
    """SJ-11.3: (new level, steps taken, passed A) for a team at `level` gaining d levels;
    declared = the team declared this hand (at `level`)."""
    from cardzoo.cards import rank_index
    md = 0
    for r in must_defend:
        md |= 1 << rank_index(r)
    r, steps, passed = advance_team(_level_id(level), int(d), bool(declared), md)
    return int(r), int(steps), bool(passed)
