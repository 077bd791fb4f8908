"""The random rollout's speed twin of the PLAY phase (declared in rules.TWINS).

engine.rollout_game plays uniformly random legal actions through step_game. PLAY phases without an ACTIVE
made rule (no hook can fire) run instead in fast_play, which keeps hands, table and counters in
locals and picks the action without building the legal list: about 3.6x the decisions per second of
play_step + play_mask on the same games. It calls the reference's pure rule functions (LO-4.1
legality, section 4.3 card order, the LO-3.3 run, LO-6.1 clear causes, the LO-7.1 draw); what it
re-implements is declared in TWINS and tied to the reference move for move by tests/lopti/test_lopti_twins.py.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import lowest_bit, popcount, rng_below
from lopti_env.rules.codes import (ACT_FLIP, ACT_PICKUP, ACT_PLAY_PER_RANK, C_MAXMOVES, C_PTE, MAX_RULES, MAX_SEATS,
                                   MOVE_EXTRA, MOVE_FIRST, RANK_THREE, RANK_TWO, RANKS_13, S_CEM, S_CR, S_DB, S_DM,
                                   S_LBC, S_LR, S_SS, S_VP, SLOTS, U0, U1, cbit, play_action, rcount)
from lopti_env.rules.legality import play_is_legal
from lopti_env.rules.resolution import base_draw_count, clear_cause
from lopti_env.rules.table import chosen_cards, has_up, next_run, push_in_order

ROUND_GOES_ON, ROUND_ENDS, ROUND_TRUNCATED = 0, 1, 2


@njit(inline="always", cache=True)
def rank_count_sets(h):
    """Bit-sliced rank counts of card mask h: four 13-bit sets, ranks held at least 1, 2, 3, 4 times."""
    ha = h & RANKS_13
    hb = (h >> np.uint64(13)) & RANKS_13
    hc = (h >> np.uint64(26)) & RANKS_13
    hd = (h >> np.uint64(39)) & RANKS_13
    ab = ha & hb
    cd = hc & hd
    aob = ha | hb
    cod = hc | hd
    return aob | cod, ab | cd | (aob & cod), (ab & cod) | (cd & aob), ab & cd


@njit(inline="always", cache=True)
def legal_rank_set(pile_n, chain, t, cr, lr, lbc):
    """Twin of LO-4.1 (legality.play_is_legal) for whole ranks: the 13-bit set of ranks legal at any
    count, and the rank legal only by count (line 8, or line 6 on a 2; -1 if none)."""
    if pile_n == 0:  # line 2
        return RANKS_13, -1
    if chain > 0:  # line 1
        return U1 << np.uint64(RANK_THREE), -1
    if t == lr:  # line 4 (3s by line 3)
        fr = ((U1 << np.uint64(lr + 1)) - U1) & ~(U1 << np.uint64(cr))
        if lbc == 0:
            fr |= U1 << np.uint64(cr)
        return fr, -1
    # lines 3, 5, 6, 7; rank t by count (line 8, or line 6 on a 2)
    fr = (RANKS_13 >> np.uint64(t + 1)) << np.uint64(t + 1)
    fr |= (U1 << np.uint64(RANK_THREE)) | (U1 << np.uint64(cr)) | (U1 << np.uint64(lr))
    if t != RANK_TWO:
        fr |= U1 << np.uint64(RANK_TWO)
    return fr, (t if t != cr else -1)


@njit(inline="always", cache=True)
def hand_choices(h, pile_n, chain, t, tc, run, cr, lr, ss, lbc):
    """The legal PLAYs from hand h: (ranks legal at any count, the by-count rank or -1, its smallest
    legal count, how many PLAY actions there are)."""
    ge1, ge2, ge3, ge4 = rank_count_sets(h)
    fr, sp = legal_rank_set(pile_n, chain, t, cr, lr, lbc)
    nplay = np.int64(popcount(fr & ge1) + popcount(fr & ge2) + popcount(fr & ge3) + popcount(fr & ge4))
    kmin = 0
    if sp >= 0:
        csp = rcount(h, sp)
        kmin = min(tc + 1, ss - run)
        if csp >= kmin:
            nplay += csp - kmin + 1
        else:
            sp = -1
    return fr & ge1, sp, kmin, nplay


@njit(inline="always", cache=True)
def hand_action_at(idx, h, ranks, sp, kmin):
    """The idx-th legal PLAY in play_mask's order (ranks ascending, counts ascending)."""
    lst = ranks
    if sp >= 0:
        lst |= U1 << np.uint64(sp)
    while True:
        r = np.int64(lowest_bit(lst))
        lst &= lst - U1
        if r == sp:
            lo = kmin
            nr = rcount(h, r) - kmin + 1
        else:
            lo = 1
            nr = rcount(h, r)
        if idx < nr:
            return play_action(r, lo + idx)
        idx -= nr


@njit(inline="always", cache=True)
def blind_action_at(idx, slots):
    """The idx-th FLIP of the face-down slots set (bit j = slot j holds a card), by slot."""
    j = 0
    while True:
        if (slots >> j) & 1:
            if idx == 0:
                return ACT_FLIP + j
            idx -= 1
        j += 1


@njit(inline="always", cache=True)
def pickup_offered(pile_n, chain, vp, any_play):
    """LO-3.4 (twin of legality.pickup_allowed on locals)."""
    return pile_n > 0 and (chain > 0 or vp == 1 or not any_play)


@njit(inline="always", cache=True)
def blind_slot_count(slots):
    """How many face-down slots the set holds (bit j = slot j)."""
    return np.int64((slots & 1) + ((slots >> 1) & 1) + ((slots >> 2) & 1))


@njit(inline="always", cache=True)
def legal_action(rng, idx, h, slots, pile_n, chain, t, tc, run, cr, lr, lbc, ss, vp):
    """Twin of legality.play_mask and the uniform pick from its list: (number of legal actions, the
    idx-th of them, -1 past the end); with idx < 0 a uniformly random one (one generator draw, as
    rollout_game's pick). slots: the actor's face-down slots (bit j), read only in the blind stage."""
    if h != U0:
        ranks, sp, kmin, nplay = hand_choices(h, pile_n, chain, t, tc, run, cr, lr, ss, lbc)
        total = nplay + (1 if pickup_offered(pile_n, chain, vp, nplay > 0) else 0)
        if idx < 0:
            idx = rng_below(rng, 0, total)
        if idx >= total:
            return total, -1
        if idx >= nplay:
            return total, ACT_PICKUP
        return total, hand_action_at(idx, h, ranks, sp, kmin)
    nfl = blind_slot_count(slots)
    total = nfl + (1 if pickup_offered(pile_n, chain, vp, True) else 0)
    if idx < 0:
        idx = rng_below(rng, 0, total)
    if idx >= total:
        return total, -1
    if idx >= nfl:
        return total, ACT_PICKUP
    return total, blind_action_at(idx, slots)


@njit(inline="always", cache=True)
def next_active_in(active_bits, a):
    """Twin of table.next_active on a bit set of active seats (a itself excluded)."""
    others = active_bits & ~(1 << a)
    above = others >> (a + 1)
    if above != 0:
        return a + 1 + np.int64(lowest_bit(np.uint64(above)))
    return np.int64(lowest_bit(np.uint64(others)))


@njit(cache=True)
def fast_play(g, cfg, rng, log, pos):
    """Twin of step_game's PLAY phase without made rules (resolution.play_step through the LO-5.1
    pipeline, legality.play_mask and the uniform pick of rollout_game): random legal moves until the
    round ends, which is left to the caller. Returns (moves made, ROUND_ENDS or ROUND_TRUNCATED, next
    log position). The generator draws match move for move, so the games are the same."""
    maxm = cfg[C_MAXMOVES]
    pte = cfg[C_PTE]
    cr = np.int64(g.sw[S_CR])
    lr = np.int64(g.sw[S_LR])
    lbc = np.int64(g.sw[S_LBC])
    ss = np.int64(g.sw[S_SS])
    db = np.int64(g.sw[S_DB])
    dm = g.sw[S_DM]
    vp = g.sw[S_VP]
    cem = g.sw[S_CEM]
    logging = log.shape[0] > 0
    hand = np.empty(MAX_SEATS, np.uint64)
    known = np.empty(MAX_SEATS, np.uint64)
    upb = 0  # bit s: seat s has a face-up card
    downb = 0  # bit 3s+j: face-down slot j of seat s holds a card
    actb = 0  # bit s: seat s is active
    for s in range(MAX_SEATS):
        hand[s] = g.hand[s]
        known[s] = g.known[s]
        if has_up(g, s):
            upb |= 1 << s
        for j in range(SLOTS):
            if g.down[s, j] >= 0:
                downb |= 1 << (SLOTS * s + j)
        if g.active[s]:
            actb |= 1 << s
    a = np.int64(g.actor)
    first = g.move_kind == MOVE_FIRST
    moves = np.int64(g.moves)
    pile_n = np.int64(g.pile_n)
    n_plays = np.int64(g.n_plays)
    t = np.int64(g.top_rank)
    tc = np.int64(g.top_cnt)
    run = np.int64(g.run)
    chain = np.int64(g.chain)
    gone = g.gone
    pilem = U0  # the pile's cards as a mask
    for i in range(pile_n):
        pilem |= cbit(g.pile[i])
    draw_pos = np.int64(g.draw_pos)
    draw_n = np.int64(g.draw_n)
    clears = np.int64(g.clears)
    lc_seat = np.int64(g.lc_seat)
    lc_cause = np.int64(g.lc_cause)
    lc_n = np.int64(g.lc_n)
    n_out = np.int64(g.n_out)
    winner = np.int64(g.winner)
    for s in range(MAX_SEATS):
        g.rewards[s] = 0.0
    count = 0
    turned = False
    result = ROUND_GOES_ON
    while True:
        _, act = legal_action(rng, -1, hand[a], (downb >> (SLOTS * a)) & 7, pile_n, chain, t, tc, run, cr, lr,
                              lbc, ss, vp)
        if logging and pos < log.shape[0]:
            log[pos] = act
            pos += 1
        count += 1
        moves += 1
        end = True
        pickup = act == ACT_PICKUP
        if not pickup:
            from_hand = act < ACT_PICKUP
            card = -1
            ok = True
            if from_hand:
                r = act // ACT_PLAY_PER_RANK
                k = act % ACT_PLAY_PER_RANK + 1
            else:  # LO-8.2
                j = act - ACT_FLIP
                card = np.int64(g.down[a, j])
                g.down[a, j] = -1
                downb &= ~(1 << (SLOTS * a + j))
                r = card % 13
                k = 1
                ok = play_is_legal(r, 1, pile_n, chain, t, tc, run, cr, lr, lbc, ss)
            pile_before = pile_n
            if not ok or r != RANK_THREE:  # the play (or the failed flip) lands (LO-3.3)
                if ok:
                    chain = 0
                g.play_start[n_plays] = pile_n
                g.play_rank[n_plays] = r
                g.play_cnt[n_plays] = k
                g.play_seat[n_plays] = a
                n_plays += 1
                run = next_run(pile_n, t, run, r, k)
                t = r
                tc = k
            if not ok:  # failed flip: onto the pile, then the pickup below
                g.pile[pile_n] = card
                pilem |= cbit(card)
                pickup = True
            else:
                if from_hand:
                    taken = chosen_cards(hand[a], known[a], r, k)
                    if r != RANK_THREE:
                        pile_n = push_in_order(g.pile, pile_n, taken, known[a])
                    hand[a] &= ~taken
                    known[a] &= ~taken
                else:
                    taken = cbit(card)
                    if r != RANK_THREE:
                        g.pile[pile_n] = card
                        pile_n += 1
                if r == RANK_THREE:
                    gone |= taken
                    chain += k
                else:
                    pilem |= taken
                went_out = False
                wait_out = False
                if hand[a] == U0 and (upb >> a) & 1 == 0 and (downb >> (SLOTS * a)) & 7 == 0:
                    if first and from_hand and draw_n > 0:
                        wait_out = True
                    else:
                        went_out = True
                cause, chain = clear_cause(r, chain, pile_before, run, cr, ss)
                if cause > 0:  # LO-6.2
                    for i in range(pile_n):
                        g.lc_cards[i] = g.pile[i]
                    gone |= pilem
                    lc_n = pile_n
                    pilem = U0
                    pile_n = 0
                    n_plays = 0
                    t = -1
                    tc = 0
                    run = 0
                    chain = 0
                    clears += 1
                    lc_seat = a
                    lc_cause = cause
                if not went_out:
                    nd = base_draw_count(first, np.int64(popcount(hand[a])), draw_n, db, dm)
                    for _ in range(nd):
                        if draw_n <= 0:
                            break
                        hand[a] |= cbit(g.draw[draw_pos])
                        draw_pos += 1
                        draw_n -= 1
                    if wait_out and hand[a] == U0:
                        went_out = True
                if went_out:  # LO-9.1
                    actb &= ~(1 << a)
                    g.active[a] = 0
                    g.place[a] = n_out
                    g.out_order[n_out] = a
                    n_out += 1
                    if winner < 0:
                        winner = a
                else:
                    if hand[a] == U0 and (upb >> a) & 1:  # LO-8.1
                        for j in range(SLOTS):
                            c = g.up[a, j]
                            if c >= 0:
                                hand[a] |= cbit(c)
                                known[a] |= cbit(c)
                                g.up[a, j] = -1
                        upb &= ~(1 << a)
                    if cause > 0 and cem == 1:  # LO-6.3
                        first = False
                        end = False
                        if moves >= maxm:
                            result = ROUND_TRUNCATED
                            break
        if pickup:  # LO-3.4
            hand[a] |= pilem
            known[a] |= pilem
            pilem = U0
            pile_n = 0
            n_plays = 0
            t = -1
            tc = 0
            run = 0
            chain = 0
        if end:  # LO-3.5
            if pte == 1:
                if popcount(np.uint64(actb)) <= 1:
                    result = ROUND_ENDS
                    break
            elif n_out >= 1:
                result = ROUND_ENDS
                break
            if moves >= maxm:
                result = ROUND_TRUNCATED
                break
            a = next_active_in(actb, a)
            first = True
            turned = True
    for s in range(MAX_SEATS):
        g.hand[s] = hand[s]
        g.known[s] = known[s]
    if turned:
        for i in range(MAX_RULES):
            g.fired[i] = 0
    g.actor = a
    g.move_kind = MOVE_FIRST if first else MOVE_EXTRA
    g.moves = moves
    g.pile_n = pile_n
    g.n_plays = n_plays
    g.top_rank = t
    g.top_cnt = tc
    g.run = run
    g.chain = chain
    g.gone = gone
    g.draw_pos = draw_pos
    g.draw_n = draw_n
    g.clears = clears
    g.lc_seat = lc_seat
    g.lc_cause = lc_cause
    g.lc_n = lc_n
    g.n_out = n_out
    g.winner = winner
    return count, result, pos
