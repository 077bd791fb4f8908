"""SJ-9: moving played cards to the trick, play strength, the trick winner and its points."""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit

from ..config import C_H
from ..state import MAX_COMP
from .cardsets import take_from_hand
from .order import NPOS, TRUMP, card_esuit, card_points, card_pos, esuit_table
from .phases import LEAD
from .scratch import WS_CFG, WS_CNT, WS_PC, WS_PN, WS_SHAPE_K, WS_SHAPE_L, WS_TAKEN, make_ws


@njit(cache=True)
def _mdfs(j, m, sk, sL, cnt, pc, pn, keyk, keyL, lastplace, curtop, taken2):
    """Partition the remaining cards into the shapes sk/sL[j:]; best key-shape top, -1 if none.
    taken2[j] is the scratch row of depth j."""
    if j == m:
        return curtop
    k = sk[j]
    L = sL[j]
    best = -1
    same_prev = j > 0 and sk[j - 1] == k and sL[j - 1] == L
    taken = taken2[j]
    for pe in range(L - 1, NPOS):
        p0 = pe - L + 1
        good = True
        pa = -1
        for p in range(p0, pe + 1):
            nc = 0
            for i in range(pn[p]):
                if cnt[pc[p, i]] >= k:
                    nc += 1
            if nc == 0:
                good = False
                break
            if nc > 1:
                pa = p
        if not good:
            continue
        nch = pn[pa] if pa >= 0 else 1
        for ch in range(nch):
            if pa >= 0 and cnt[pc[pa, ch]] < k:
                continue
            w = 0
            place = pe * 64
            for p in range(p0, pe + 1):
                if p == pa:
                    taken[w] = pc[pa, ch]
                else:
                    for i in range(pn[p]):
                        if cnt[pc[p, i]] >= k:
                            taken[w] = pc[p, i]
                            break
                if pn[p] > 1:
                    place = pe * 64 + taken[w]
                w += 1
            if same_prev and place < lastplace:
                continue
            for w in range(L):
                cnt[taken[w]] -= k
            t = curtop
            if k == keyk and L == keyL and pe > t:
                t = pe
            r = _mdfs(j + 1, m, sk, sL, cnt, pc, pn, keyk, keyL, place, t, taken2)
            for w in range(L):
                cnt[taken[w]] += k
            if r > best:
                best = r
    return best


@njit(cache=True)
def play_strength_ws(cnt54, fk, fL, fm, s_esuit, lvl, trump, ws):
    """SJ-9.1/9.2: (esuit, strength) of a play against format F; strength -1 if it does not match.
    ws: work arrays (make_ws), so nothing is allocated."""
    e = -1
    total = 0
    for c in range(54):
        if cnt54[c] > 0:
            ec = card_esuit(c, lvl, trump)
            if e < 0:
                e = ec
            elif ec != e:
                return -1, -1
            total += cnt54[c]
    if e < 0 or (e != s_esuit and e != TRUMP):
        return e, -1
    # key shape: largest size, ties larger k
    keyk = 0
    keyL = 0
    for j in range(fm):
        if fk[j] * fL[j] > keyk * keyL or (fk[j] * fL[j] == keyk * keyL and fk[j] > keyk):
            keyk = fk[j]
            keyL = fL[j]
    if fm == 1 and fk[0] * fL[0] == 1:
        for c in range(54):
            if cnt54[c] > 0:
                return e, card_pos(c, lvl, trump)
    pc = ws[WS_PC:WS_PC + 4 * NPOS].reshape((NPOS, 4))
    pn = ws[WS_PN:WS_PN + NPOS]
    esuit_table(e, lvl, trump, pc, pn)
    # shapes sorted by size desc, then k desc
    sk = ws[WS_SHAPE_K:WS_SHAPE_K + MAX_COMP]
    sL = ws[WS_SHAPE_L:WS_SHAPE_L + MAX_COMP]
    for j in range(fm):
        sk[j] = fk[j]
        sL[j] = fL[j]
    for a in range(fm):
        for b2 in range(fm - 1 - a):
            if (sk[b2] * sL[b2] < sk[b2 + 1] * sL[b2 + 1]) or (
                    sk[b2] * sL[b2] == sk[b2 + 1] * sL[b2 + 1] and sk[b2] < sk[b2 + 1]):
                tk = sk[b2]
                sk[b2] = sk[b2 + 1]
                sk[b2 + 1] = tk
                tl = sL[b2]
                sL[b2] = sL[b2 + 1]
                sL[b2 + 1] = tl
    cnt = ws[WS_CNT:WS_CNT + 54]
    for c in range(54):
        cnt[c] = cnt54[c]
    z = np.int64(0)
    m1 = np.int64(-1)
    taken2 = ws[WS_TAKEN:WS_TAKEN + (MAX_COMP + 1) * NPOS].reshape((MAX_COMP + 1, NPOS))
    return e, _mdfs(z, np.int64(fm), sk, sL, cnt, pc, pn, np.int64(keyk), np.int64(keyL), m1, m1, taken2)


@njit(cache=True)
def play_strength(cnt54, fk, fL, fm, s_esuit, lvl, trump):
    """SJ-9.1/9.2: (esuit, strength) of a play against format F; strength -1 if it does not match."""
    return play_strength_ws(cnt54, fk, fL, fm, s_esuit, lvl, trump, make_ws())


@njit(cache=True, inline="always")
def play_card(s, seat, c, k):
    """Seat plays k copies of card c: from its hand to the trick and the play log (SJ-7.1, SJ-8.1);
    copies it had shown (a declaration, SJ-4.3, or a failed throw, SJ-7.4) are no longer shown."""
    take_from_hand(s, seat, c, k)
    s.trick_cards[seat, c] += k
    s.played[seat, c] += k
    v = s.shown[seat, c] - k
    s.shown[seat, c] = v if v > 0 else 0
    nlog = s.nlog
    t = s.ntricks
    for _ in range(k):
        s.log_seat[nlog] = seat
        s.log_card[nlog] = c
        s.log_trick[nlog] = t
        nlog += 1
    s.nlog = nlog


@njit(cache=True, inline="always")
def play_cards(s, seat, play, cards):
    """Seat plays play[c] copies of every card c of the uint64 set cards (the cards outside it
    have play[c] = 0), in card order: play_card for each."""
    x = cards
    while x != 0:
        c = np.int64(lowest_bit(x))
        x &= x - np.uint64(1)
        k = play[c]
        if k > 0:
            play_card(s, seat, c, k)


@njit(cache=True, inline="always")
def beats(e, v, be, bs):
    """SJ-3.5, SJ-9.3: does a matching play of esuit e and strength v become the current best over
    one of esuit be and strength bs? A trump beats a non-trump; within one esuit only a strictly
    stronger play does (on equal strength the earlier play stays best)."""
    return (e == TRUMP and be != TRUMP) or (e == be and v > bs)


@njit(cache=True, inline="always")
def _winner_single_tuple(s, l0):
    """The winning seat of a trick whose format F is one single or one tuple of k = n cards (the
    trick's plays at l0.. of the play log, n per seat): a play matches iff it is k copies of one
    card of esuit s or TRUMP (SJ-9.1), its strength is that card's position (SJ-9.2). The speed
    twin of _winner_by_strength (no strength search). beats (SJ-3.5, SJ-9.3) as one order: a
    matching play ranks by its position, 16 higher in TRUMP (positions are 0..15), so a trump
    beats a non-trump and within an esuit the stronger play wins; ties keep the earlier play.
    Without branches on the cards, which are random in a rollout."""
    n = s.lead_n
    ldr = s.leader
    lc = s.log_card
    est = s.es_tab
    pst = s.pos_tab
    se = s.lead_esuit
    best = ldr
    bs = -1
    for dq in range(4):
        i0 = l0 + dq * n
        one = lc[i0]
        ok = True
        for i in range(i0 + 1, i0 + n):
            ok &= lc[i] == one
        e = est[one]
        rank = np.int64(pst[one]) + NPOS * np.int64(e == TRUMP)
        rank = rank if ok & ((e == se) | (e == TRUMP)) else -1
        q = (ldr + dq) & 3
        best = q if rank > bs else best
        bs = rank if rank > bs else bs
    return best


@njit(cache=True, inline="always")
def _winner_by_strength(s, ws, l0):
    """SJ-9.3: the winning seat of the completed trick (its plays at l0.. of the play log), each
    strength search (play_strength_ws) run only where it can decide: the lead matches F with esuit
    s; a follower's play can only become best if its cards share one esuit that is the best's (a
    stronger play) or TRUMP over a non-trump best (a ruff). A successful throw (fm >= 2) cannot be
    beaten inside its own esuit: a follower's stronger key component would have beaten it (SJ-7.4)."""
    lvl = s.hand_level
    trump = s.trump
    ldr = s.leader
    fm = s.fm
    n = s.lead_n
    lc = s.log_card
    est = s.es_tab
    se = s.lead_esuit
    best = ldr
    be = se
    bs = -1           # the best's strength, searched when a play of its esuit is compared
    for dq in range(1, 4):
        i0 = l0 + dq * n
        e = est[lc[i0]]
        for i in range(i0 + 1, i0 + n):
            if est[lc[i]] != e:
                e = -1
                break
        if e == be:
            if best == ldr:
                if fm >= 2:
                    continue
                if bs < 0:
                    _, bs = play_strength_ws(s.trick_cards[ldr], s.fk, s.fL, fm, se, lvl, trump, ws)
        elif e != TRUMP:
            continue
        q = (ldr + dq) % 4
        _, st_ = play_strength_ws(s.trick_cards[q], s.fk, s.fL, fm, se, lvl, trump, ws)
        if st_ < 0:
            continue
        if beats(e, st_, be, bs):
            best = q
            be = e
            bs = st_
    return best


@njit(cache=True)
def _resolve_trick(s, ws):
    """SJ-9: the winner of the completed trick takes its points and leads the next trick (SJ-9.4);
    returns True at the end of the hand (the caller scores it with _finish_hand). s: the record;
    ws: make_ws work arrays with the config (set_ws_cfg)."""
    ldr = s.leader
    fm = s.fm
    z = 0
    for j in range(fm):
        if s.fk[j] * s.fL[j] > z:
            z = s.fk[j] * s.fL[j]
    n = s.lead_n
    lc = s.log_card
    l0 = s.nlog - 4 * n   # the trick's cards in the play log: n per seat, in play order
    if fm == 1 and s.fL[0] == 1:
        best = _winner_single_tuple(s, l0)
    else:
        best = _winner_by_strength(s, ws, l0)
    pts = 0
    tc = s.trick_cards
    ls = s.log_seat
    for i in range(l0, l0 + 4 * n):
        c = lc[i]
        pts += card_points(c)
        tc[ls[i], c] = 0
    t = s.ntricks
    s.tr_leader[t] = ldr
    s.tr_winner[t] = best
    s.tr_points[t] = pts
    s.tr_z[t] = z
    s.tr_single[t] = 1 if (fm == 1 and z == 1) else 0
    s.ntricks = t + 1
    s.points[best % 2] += pts
    s.ntp = 0
    s.lead_n = 0
    if s.nlog == 4 * ws[WS_CFG + C_H]:
        # every seat has played its H cards (SJ-1.3): the hands are empty
        return True
    s.leader = best
    s.actor = best
    s.phase = LEAD
    s.fm = 0
    return False
