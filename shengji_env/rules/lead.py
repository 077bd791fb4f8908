"""SJ-7: executing a lead (ordinary lead, throw check, failed throws and their penalty)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import highest_bit, lowest_bit, popcount

from ..config import C_DECKS, C_PENALTY, C_PEN_PTS
from ..state import MAX_COMP
from .combos import _decomp_any, _decomp_ns
from .order import NPOS
from .phases import FOLLOW
from .scratch import (ALL_CARDS, BB_SEAT, BB_SEL, ESM_ABOVE, RS_CARD_AT, RS_PK, RS_PM, RS_STK, WS_CFG, WS_CNT,
                      WS_COMP_CARDS, WS_COMP_K, WS_COMP_L, WS_COMP_TOP, WS_PC, WS_PLAY, WS_PN, WS_THROW_PM, make_ws,
                      set_ws_cfg)
from .trick import _play_cards, _play_cards_bits, _play_one


@njit(cache=True)
def _record_failed_throw(s, ws, ldr, play, cards):
    """SJ-7.4 failed throw of seat ldr, whose selection s.sel lies in the uint64 card set cards and
    of which play stays on the table: log the attempt, show the cards taken back, and charge the
    throw_penalty option (config in ws)."""
    nf = s.nft
    s.ft_seat[nf] = ldr
    s.ft_trick[nf] = s.ntricks
    att = s.ft_att[nf]
    for c in range(54):
        att[c] = s.sel[c]
    nret = 0
    x = cards
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - np.uint64(1)
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


@njit(cache=True)
def _execute_lead_ws(st, b, cfg, ws):
    """DONE of a lead (SJ-7): decomposition, throw check, the play. ws: make_ws work arrays."""
    set_ws_cfg(ws, cfg)
    _execute_lead_r(st[b], ws)


@njit(cache=True)
def _execute_lead_r(s, ws):
    """_execute_lead_ws on the record s; the config is read from ws (set_ws_cfg)."""
    D = ws[WS_CFG + C_DECKS]
    lvl = s.hand_level
    trump = s.trump
    ldr = s.actor
    sel = s.sel
    est = s.es_tab
    pst = s.pos_tab
    nd = 0
    one = -1
    for c in range(54):
        if sel[c] > 0:
            nd += 1
            one = c
    e = est[one]
    if nd == 1:
        # one distinct card: a single or a tuple, an ordinary lead (SJ-7.3)
        k = sel[one]
        s.fm = 1
        s.fk[0] = k
        s.fL[0] = 1
        s.ftop[0] = pst[one]
        _play_one(s, ldr, one, k)
        sel[one] = 0
        s.nsel = 0
        s.lead_n = k
        s.lead_esuit = e
        s.leader = ldr
        s.ntp = 1
        s.actor = (ldr + 1) % 4
        s.phase = FOLLOW
        return
    pc = ws[WS_PC:WS_PC + 4 * NPOS].reshape((NPOS, 4))
    pn = ws[WS_PN:WS_PN + NPOS]
    for p in range(NPOS):
        pn[p] = 0
    cnt = ws[WS_CNT:WS_CNT + 54]
    play = ws[WS_PLAY:WS_PLAY + 54]
    for c in range(54):
        if est[c] == e:
            p = pst[c]
            pc[p, pn[p]] = c
            pn[p] += 1
        cnt[c] = sel[c]
        play[c] = 0
    ok = ws[WS_COMP_K:WS_COMP_K + MAX_COMP]
    oL = ws[WS_COMP_L:WS_COMP_L + MAX_COMP]
    ot = ws[WS_COMP_TOP:WS_COMP_TOP + MAX_COMP]
    oc = ws[WS_COMP_CARDS:WS_COMP_CARDS + MAX_COMP * NPOS].reshape((MAX_COMP, NPOS))
    m = _decomp_any(cnt, pc, pn, np.int64(D), ok, oL, ot, oc)
    forced = -1
    if m >= 2:
        # SJ-7.4 throw check. pm[5 dq + k]: bit p set iff seat leader+dq holds some card of
        # position p at least k times (so "beats (k, L, top)" is a run of L bits ending above top)
        pm = ws[WS_THROW_PM:WS_THROW_PM + 20]
        for dq in range(1, 4):
            hq = s.hand[(ldr + dq) % 4]
            for k in range(5):
                pm[5 * dq + k] = 0
            for p in range(NPOS):
                for i in range(pn[p]):
                    v = hq[pc[p, i]]
                    for k in range(1, v + 1):
                        pm[5 * dq + k] |= 1 << p
        fsz = 0
        ftop = 0
        fmin = 0
        for j in range(m):
            beaten = False
            k = ok[j]
            L = oL[j]
            lo = ot[j] - L + 2
            if lo < 0:
                lo = 0
            for dq in range(1, 4):
                M = pm[5 * dq + k]
                R = M
                for i in range(1, L):
                    R &= M >> i
                if (R >> lo) != 0:
                    beaten = True
                    break
            if beaten:
                sz = ok[j] * oL[j]
                mn = 99
                for w in range(oL[j]):
                    if oc[j, w] < mn:
                        mn = oc[j, w]
                if forced < 0 or sz < fsz or (sz == fsz and (ot[j] < ftop or (ot[j] == ftop and mn < fmin))):
                    forced = j
                    fsz = sz
                    ftop = ot[j]
                    fmin = mn
    if forced >= 0:
        for w in range(oL[forced]):
            play[oc[forced, w]] += ok[forced]
        _record_failed_throw(s, ws, ldr, play, ALL_CARDS)
        s.fm = 1
        s.fk[0] = ok[forced]
        s.fL[0] = oL[forced]
        s.ftop[0] = ot[forced]
    else:
        for c in range(54):
            play[c] = s.sel[c]
        s.fm = m
        for j in range(m):
            s.fk[j] = ok[j]
            s.fL[j] = oL[j]
            s.ftop[j] = ot[j]
    n = 0
    for c in range(54):
        n += play[c]
        s.sel[c] = 0
    s.nsel = 0
    _play_cards(s, ldr, play)
    s.lead_n = n
    s.lead_esuit = e
    s.leader = ldr
    s.ntp = 1
    s.actor = (ldr + 1) % 4
    s.phase = FOLLOW


@njit(cache=True)
def _execute_lead_bits(s, ws, esm, rs, bb):
    """_execute_lead_r with the same writes (record and verdict), computed on bit sets: the rollout's
    card sets bb (make_bb, equal to the record) and 16-bit position masks. SJ-7.2: while no position
    holds two different selected cards every component key names one component, so the canonical
    decomposition is greedy (as _decomp_fast): take the greatest key (size k L, then k, then top),
    where the key of copies k is the longest run of positions holding >= k copies (L = 1 for k = 1),
    then lower the masks under the run by k. An ambiguous selection splits one component per card
    when no tractor can form, else takes the SJ-7.2 search (_decomp_ns, allocation-free). SJ-7.4:
    the throw check against esm's above-position table (make_esm), or for a tractor the followers'
    position masks of esuit e."""
    sel = s.sel
    pst = s.pos_tab
    ldr = s.actor
    one = np.uint64(1)
    sb = bb[BB_SEL + 1]
    if popcount(sb) == 1:
        # one distinct card: a single or a tuple, an ordinary lead (SJ-7.3)
        c = np.int64(lowest_bit(sb))
        k = sel[c]
        s.fm = 1
        s.fk[0] = k
        s.fL[0] = 1
        s.ftop[0] = pst[c]
        _play_one(s, ldr, c, k)
        sel[c] = 0
        s.nsel = 0
        s.lead_n = k
        s.lead_esuit = s.es_tab[c]
        s.leader = ldr
        s.ntp = 1
        s.actor = (ldr + 1) % 4
        s.phase = FOLLOW
        return
    for k in range(16):
        rs[RS_PK + k] = 0
    occ = 0
    amb = False
    x = sb
    c = 0
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - one
        p = pst[c]
        if (occ >> p) & 1:
            amb = True
        occ |= 1 << p
        rs[RS_CARD_AT + p] = c
        for k in range(1, sel[c] + 1):
            rs[RS_PK + k] |= 1 << p
    D = ws[WS_CFG + C_DECKS]
    e = s.es_tab[c]
    # canonical decomposition into ws's component arrays (k at 134, L at 198, top at 262, cards at 326)
    m = 0
    pk2 = rs[RS_PK + 2]
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
    elif amb:
        # a position holds two different selected cards: the SJ-7.2 search (_decomp_ns, as
        # _decomp_any does) on the esuit's position table, built as _execute_lead_r builds it
        pc = ws[WS_PC:WS_PC + 4 * NPOS].reshape((NPOS, 4))
        pn = ws[WS_PN:WS_PN + NPOS]
        for p in range(NPOS):
            pn[p] = 0
        x = esm[e]
        while x != 0:
            c = np.int64(lowest_bit(x))
            x &= x - one
            p = pst[c]
            pc[p, pn[p]] = c
            pn[p] += 1
        cnt = ws[WS_CNT:WS_CNT + 54]
        for c in range(54):
            cnt[c] = sel[c]
        m = _decomp_ns(cnt, pc, pn, D, ws[WS_COMP_K:WS_COMP_K + MAX_COMP], ws[WS_COMP_L:WS_COMP_L + MAX_COMP], ws[WS_COMP_TOP:WS_COMP_TOP + MAX_COMP], ws[WS_COMP_CARDS:WS_COMP_CARDS + MAX_COMP * NPOS].reshape((MAX_COMP, NPOS)),
                       rs[RS_STK:], np.int64(0))
    while not amb:
        bs = -1
        bk = 0
        bt = 0
        bL = 0
        for k in range(D, 0, -1):
            M = rs[RS_PK + k]
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
            break
        lo = bt - bL + 1
        for w in range(bL):
            ws[WS_COMP_CARDS + NPOS * m + w] = rs[RS_CARD_AT + lo + w]
        ws[WS_COMP_K + m] = bk
        ws[WS_COMP_L + m] = bL
        ws[WS_COMP_TOP + m] = bt
        m += 1
        R = ((1 << bL) - 1) << lo
        for j in range(1, D + 1):
            rs[RS_PK + j] = (rs[RS_PK + j] & ~R) | (rs[RS_PK + j + bk] & R)
    forced = -1
    if m >= 2:
        # SJ-7.4 throw check (a throw has >= 2 components) as in _execute_lead_r. A single or tuple of
        # k copies is beaten iff some follower holds k copies of a card of esuit e above its top
        # (esm's ESM_ABOVE table: no position masks); a tractor needs the followers' position masks
        # pm[5 dq + k] (bit p iff seat leader+dq holds some card of position p at least k times),
        # built the first time one is checked
        q1 = (ldr + 1) % 4
        q2 = (ldr + 2) % 4
        q3 = (ldr + 3) % 4
        have_pm = False
        fsz = 0
        ftop = 0
        fmin = 0
        for j in range(m):
            k = ws[WS_COMP_K + j]
            L = ws[WS_COMP_L + j]
            tj = ws[WS_COMP_TOP + j]
            if L == 1:
                beaten = ((bb[BB_SEAT * q1 + k] | bb[BB_SEAT * q2 + k] | bb[BB_SEAT * q3 + k]) & esm[ESM_ABOVE + NPOS * e + tj]) != 0
            else:
                if not have_pm:
                    em = esm[e]
                    for dq in range(1, 4):
                        q = (ldr + dq) % 4
                        for kk in range(1, D + 1):
                            M = 0
                            x = bb[BB_SEAT * q + kk] & em
                            while x != 0:
                                M |= 1 << pst[lowest_bit(x)]
                                x &= x - one
                            rs[RS_PM + 5 * dq + kk] = M
                    have_pm = True
                lo = tj - L + 2
                beaten = False
                for dq in range(1, 4):
                    M = rs[RS_PM + 5 * dq + k]
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
    s.nsel = 0
    _play_cards_bits(s, ldr, play, sb)
    s.lead_n = n
    s.lead_esuit = e
    s.leader = ldr
    s.ntp = 1
    s.actor = (ldr + 1) % 4
    s.phase = FOLLOW


@njit(cache=True)
def _execute_lead(st, b, cfg):
    _execute_lead_ws(st, b, cfg, make_ws())
