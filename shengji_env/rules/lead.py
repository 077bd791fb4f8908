"""SJ-7: executing a lead (ordinary lead, canonical decomposition, throw check, failed throws)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import highest_bit, lowest_bit, popcount

from ..config import C_DECKS, C_PENALTY, C_PEN_PTS
from ..state import CS_SEAT, CS_SEL, MAX_COMP
from .bits import _esuit_tables_r
from .cardsets import clear_selection_sets
from .combos import _decomp_ns
from .order import NPOS, next_seat
from .phases import FOLLOW
from .scratch import (DS_SIZE, ESM_ABOVE, ESM_SIZE, WS_CFG, WS_CNT, WS_COMP_CARDS, WS_COMP_K,
                      WS_COMP_L, WS_COMP_TOP, WS_PC, WS_PLAY, WS_PN, WS_SEL_AT, WS_SEL_PK, WS_THROW_PM, make_ws,
                      set_ws_cfg)
from .trick import play_card, play_cards


@njit(cache=True, inline="always")
def _record_failed_throw(s, ws, ldr, play, cards):
    """SJ-7.4 failed throw of seat ldr, whose selection s.sel lies in the uint64 card set cards and
    of which play stays on the table: log the attempt, show the cards taken back, and charge the
    throw_penalty option (config in ws): a declarer's penalty adds to the opponents' points, an
    opponent's subtracts from them."""
    nf = s.nft
    s.ft_seat[nf] = ldr
    s.ft_trick[nf] = s.ntricks
    att = s.ft_att[nf]
    att[:] = 0
    nret = 0
    x = cards
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - np.uint64(1)
        att[c] = s.sel[c]
        ret = s.sel[c] - play[c]
        nret += ret
        if ret > s.shown[ldr, c]:
            s.shown[ldr, c] = ret
    s.nft = nf + 1
    pmode = ws[WS_CFG + C_PENALTY]
    if pmode != 0:
        pts = ws[WS_CFG + C_PEN_PTS] if pmode == 1 else ws[WS_CFG + C_PEN_PTS] * nret
        if ldr % 2 == s.banker % 2:
            s.penalty += pts
        else:
            s.penalty -= pts


@njit(cache=True, inline="always")
def _lead_on_table(s, ldr, n, e):
    """The lead of n cards of esuit e by seat ldr is on the table: the other seats follow in turn
    order, each with n cards (SJ-8.1)."""
    s.nsel = 0
    s.lead_n = n
    s.lead_esuit = e
    s.leader = ldr
    s.ntp = 1
    s.actor = next_seat(ldr)
    s.phase = FOLLOW


@njit(cache=True, inline="always")
def _ordinary_lead_of_one_card(s, ldr, c):
    """SJ-7.3: k copies of one card are one component (a single or a tuple), an ordinary lead: it
    stands, and F is that component."""
    k = s.sel[c]
    s.fm = 1
    s.fk[0] = k
    s.fL[0] = 1
    s.ftop[0] = s.pos_tab[c]
    play_card(s, ldr, c, k)
    s.sel[c] = 0
    clear_selection_sets(s)
    _lead_on_table(s, ldr, k, s.es_tab[c])


@njit(cache=True, inline="always")
def _decompose_selection(s, ws, esm, stk, sb, D):
    """SJ-7.2 canonical decomposition of the selection (card set sb, two or more distinct cards of
    one esuit) into ws's component arrays (WS_COMP_*); returns the number of components. On 16-bit
    position masks: while no position holds two different selected cards every component key names
    one component, so the decomposition is greedy: take the greatest key (size k L, then k, then
    top), where the key of copies k is the longest run of positions holding >= k copies (L = 1 for
    k = 1, SJ-6.3), then lower the masks under the run by k. An ambiguous selection splits into one
    component per card when no tractor can form, else takes the SJ-7.2 search (_decomp_ns) on the
    stack stk (allocated here when stk is too short). The speed twin of _decomp_ns."""
    sel = s.sel
    pst = s.pos_tab
    one = np.uint64(1)
    for k in range(2 * D + 1):   # the planes read below: up to k + bk <= 2D
        ws[WS_SEL_PK + k] = 0
    occ = 0
    amb = False
    x = sb
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - one
        p = pst[c]
        if (occ >> p) & 1:
            amb = True
        occ |= 1 << p
        ws[WS_SEL_AT + p] = c
        for k in range(1, sel[c] + 1):
            ws[WS_SEL_PK + k] |= 1 << p
    m = 0
    pk2 = ws[WS_SEL_PK + 2]
    if pk2 == 0 and not amb:
        # single copies at distinct positions (a random lead's usual throw): the greedy order is
        # the singles by position, highest first
        P = np.uint64(occ)
        while P != 0:
            p = highest_bit(P)
            P &= ~(one << np.uint64(p))
            ws[WS_COMP_K + m] = 1
            ws[WS_COMP_L + m] = 1
            ws[WS_COMP_TOP + m] = p
            ws[WS_COMP_CARDS + NPOS * m] = ws[WS_SEL_AT + p]
            m += 1
        return m
    if amb and (pk2 & (pk2 >> 1)) == 0:
        # a position holds two different selected cards, but no two adjacent positions hold a
        # pair, so no tractor can form (SJ-6.2): every partition's greatest key list keeps each
        # card's copies whole, one tuple or single per card (SJ-6.1), listed in canonical order
        # (SJ-7.2: key (k, k, top) descending, then card index descending), here by insertion
        x = sb
        while x != 0:
            c = np.int64(lowest_bit(x))
            x &= x - one
            k = sel[c]
            p = pst[c]
            j = m
            while j > 0:
                kj = ws[WS_COMP_K + j - 1]
                tj = ws[WS_COMP_TOP + j - 1]
                if kj > k or (kj == k and (tj > p or (tj == p and ws[WS_COMP_CARDS + NPOS * (j - 1)] > c))):
                    break
                ws[WS_COMP_K + j] = kj
                ws[WS_COMP_L + j] = 1
                ws[WS_COMP_TOP + j] = tj
                ws[WS_COMP_CARDS + NPOS * j] = ws[WS_COMP_CARDS + NPOS * (j - 1)]
                j -= 1
            ws[WS_COMP_K + j] = k
            ws[WS_COMP_L + j] = 1
            ws[WS_COMP_TOP + j] = p
            ws[WS_COMP_CARDS + NPOS * j] = c
            m += 1
        return m
    if amb:
        # a position holds two different selected cards and a tractor may form: the SJ-7.2 search
        # on the esuit's position table
        pc = ws[WS_PC:WS_PC + 4 * NPOS].reshape((NPOS, 4))
        pn = ws[WS_PN:WS_PN + NPOS]
        for p in range(NPOS):
            pn[p] = 0
        x = esm[s.es_tab[lowest_bit(sb)]]
        while x != 0:
            c = np.int64(lowest_bit(x))
            x &= x - one
            p = pst[c]
            pc[p, pn[p]] = c
            pn[p] += 1
        cnt = ws[WS_CNT:WS_CNT + 54]
        for c in range(54):
            cnt[c] = sel[c]
        if stk.shape[0] < DS_SIZE:
            stk = np.empty(DS_SIZE, np.int64)
        comp_cards = ws[WS_COMP_CARDS:WS_COMP_CARDS + MAX_COMP * NPOS].reshape((MAX_COMP, NPOS))
        return _decomp_ns(cnt, pc, pn, D, ws[WS_COMP_K:WS_COMP_K + MAX_COMP], ws[WS_COMP_L:WS_COMP_L + MAX_COMP],
                          ws[WS_COMP_TOP:WS_COMP_TOP + MAX_COMP], comp_cards, stk, np.int64(0))
    while True:
        bs = -1
        bk = 0
        bt = 0
        bL = 0
        for k in range(D, 0, -1):
            M = ws[WS_SEL_PK + k]
            if M == 0:
                continue
            if k == 1:
                L = 1
                top = highest_bit(np.uint64(M))
            else:
                X = M
                L = 0
                last = 0
                while X != 0:
                    L += 1
                    last = X
                    X &= X >> 1
                top = highest_bit(np.uint64(last)) + L - 1
            sz = k * L
            if sz > bs or (sz == bs and (k > bk or (k == bk and top > bt))):
                bs = sz
                bk = k
                bt = top
                bL = L
        if bs < 0:
            return m
        lo = bt - bL + 1
        for w in range(bL):
            ws[WS_COMP_CARDS + NPOS * m + w] = ws[WS_SEL_AT + lo + w]
        ws[WS_COMP_K + m] = bk
        ws[WS_COMP_L + m] = bL
        ws[WS_COMP_TOP + m] = bt
        m += 1
        R = ((1 << bL) - 1) << lo
        for j in range(1, D + 1):
            ws[WS_SEL_PK + j] = (ws[WS_SEL_PK + j] & ~R) | (ws[WS_SEL_PK + j + bk] & R)


@njit(cache=True, inline="always")
def _forced_component(s, ws, esm, m, e, D):
    """SJ-7.4 throw check of the m >= 2 components in ws (WS_COMP_*) of a lead of esuit e: the index
    of the forced component (among those some other seat beats, the smallest size, then the lowest
    top, then the lowest card index), or -1 when the throw succeeds. A single or tuple of k copies
    is beaten iff some follower holds k copies of a card of esuit e above its top (esm's ESM_ABOVE
    table); a tractor needs the followers' position masks (WS_THROW_PM[5 dq + k]: bit p iff seat
    leader+dq holds some card of position p at least k times), built the first time one is checked."""
    ldr = s.actor
    pst = s.pos_tab
    bb = s.card_sets
    one = np.uint64(1)
    q1 = next_seat(ldr)
    q2 = next_seat(q1)
    q3 = next_seat(q2)
    have_pm = False
    forced = -1
    fsz = 0
    ftop = 0
    fmin = 0
    for j in range(m):
        k = ws[WS_COMP_K + j]
        L = ws[WS_COMP_L + j]
        tj = ws[WS_COMP_TOP + j]
        if L == 1:
            held = bb[CS_SEAT * q1 + k] | bb[CS_SEAT * q2 + k] | bb[CS_SEAT * q3 + k]
            beaten = (held & esm[ESM_ABOVE + NPOS * e + tj]) != 0
        else:
            if not have_pm:
                em = esm[e]
                for dq in range(1, 4):
                    q = (ldr + dq) % 4
                    for kk in range(1, D + 1):
                        M = 0
                        x = bb[CS_SEAT * q + kk] & em
                        while x != 0:
                            M |= 1 << pst[lowest_bit(x)]
                            x &= x - one
                        ws[WS_THROW_PM + 5 * dq + kk] = M
                have_pm = True
            # beaten iff a run of L positions held k times ends above top (SJ-6.2: a tractor may come
            # out of a longer or wider one)
            lo = tj - L + 2
            beaten = False
            for dq in range(1, 4):
                M = ws[WS_THROW_PM + 5 * dq + k]
                R = M
                for i in range(1, L):
                    R &= M >> i
                if (R >> lo) != 0:
                    beaten = True
                    break
        if beaten:
            sz = k * L
            mn = 99
            for w in range(L):
                if ws[WS_COMP_CARDS + NPOS * j + w] < mn:
                    mn = ws[WS_COMP_CARDS + NPOS * j + w]
            if forced < 0 or sz < fsz or (sz == fsz and (tj < ftop or (tj == ftop and mn < fmin))):
                forced = j
                fsz = sz
                ftop = tj
                fmin = mn
    return forced


@njit(cache=True)
def execute_lead(s, ws, esm, stk):
    """DONE of a lead (SJ-7): the selection's canonical decomposition (SJ-7.2), the throw check
    (SJ-7.4) and the play: all of it (a successful throw, SJ-7.3 ordinary leads included) or the
    forced component. Reads the record's card sets and the esuit tables esm (make_esm); the config
    is in ws (set_ws_cfg); stk: the SJ-7.2 search's stack (DS_SIZE), or an empty array to allocate
    it when needed."""
    sel = s.sel
    ldr = s.actor
    one = np.uint64(1)
    sb = s.card_sets[CS_SEL + 1]
    if popcount(sb) == 1:
        _ordinary_lead_of_one_card(s, ldr, np.int64(lowest_bit(sb)))
        return
    D = ws[WS_CFG + C_DECKS]
    e = s.es_tab[lowest_bit(sb)]
    m = _decompose_selection(s, ws, esm, stk, sb, D)
    forced = _forced_component(s, ws, esm, m, e, D) if m >= 2 else -1
    play = ws[WS_PLAY:WS_PLAY + 54]
    if forced >= 0:
        x = sb
        while x != 0:
            play[np.int64(lowest_bit(x))] = 0
            x &= x - one
        for w in range(ws[WS_COMP_L + forced]):
            play[ws[WS_COMP_CARDS + NPOS * forced + w]] += ws[WS_COMP_K + forced]
        _record_failed_throw(s, ws, ldr, play, sb)
        s.fm = 1
        s.fk[0] = ws[WS_COMP_K + forced]
        s.fL[0] = ws[WS_COMP_L + forced]
        s.ftop[0] = ws[WS_COMP_TOP + forced]
    else:
        x = sb
        while x != 0:
            c = np.int64(lowest_bit(x))
            x &= x - one
            play[c] = sel[c]
        s.fm = m
        for j in range(m):
            s.fk[j] = ws[WS_COMP_K + j]
            s.fL[j] = ws[WS_COMP_L + j]
            s.ftop[j] = ws[WS_COMP_TOP + j]
    n = 0
    x = sb
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - one
        n += play[c]
        sel[c] = 0
    clear_selection_sets(s)
    play_cards(s, ldr, play, sb)
    _lead_on_table(s, ldr, n, e)


@njit(cache=True)
def execute_lead_from_record(s, ws):
    """execute_lead on the step path, which keeps no esuit tables: built from the record for a lead
    of two or more distinct cards (execute_lead plays one card's copies without them)."""
    if popcount(s.card_sets[CS_SEL + 1]) == 1:
        _ordinary_lead_of_one_card(s, s.actor, np.int64(lowest_bit(s.card_sets[CS_SEL + 1])))
        return
    esm = np.empty(ESM_SIZE, np.uint64)
    _esuit_tables_r(s, esm)
    execute_lead(s, ws, esm, np.empty(0, np.int64))


@njit(cache=True)
def execute_lead_of_game(st, b, cfg):
    """execute_lead_from_record on game b with work arrays of its own."""
    ws = make_ws()
    set_ws_cfg(ws, cfg)
    execute_lead_from_record(st[b], ws)
