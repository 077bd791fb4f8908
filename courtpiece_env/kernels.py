"""Court Piece rule kernels (numba).  Every kernel takes the state record array `st` (state.py) and
a game index b, or a record `s = st[b]`, plus the int64 config vector of config.py; one kernel
serves B = 1 (the AEC env) and B = 4096 (BatchGame).

Random events of section 7 (deals, change-cards stock, turned / band-timeout cards, play timeouts)
are drawn in Python from numpy generators and passed in; the in-kernel xorshift generator of
cardzoo.cards drives only `rollout` (its random policy and the events inside a rollout).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import SUIT_MASKS, nth_set_bit, popcount, rng_below, seed_generators, shuffle_prefix
from courtpiece_env.config import (
    C_ACE_ON_ACE, C_BAND, C_CC_LIMIT, C_CHANGE_CARDS, C_CHANGE_TRUMP, C_CLOSED_11_12, C_KOTS, C_MATCH,
    C_PLAY_OUT, C_SPLIT_WIN, C_STREAK, C_TARGET, C_TFF, C_TRUMP_ACE_BLOCKS, C_VARIANT, C_WINLOSS,
    BE_RANG, CHHUPA_RANG, DOUBLE_SAR, MENDI_COAT, SINGLE_SAR,
)
from courtpiece_env.state import (
    BAND_HIDE, CALL, CHANGE_CARDS, CHANGE_TRUMP, HIDE, NEED_DEAL, OVER, PLAY,
    K_GONE_KOT, K_KOT, K_MENDI, K_MENDI_COAT, K_OPP_WIN, K_SPLIT, K_TRUMP_WIN, K_WHITEWASH,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)
RANK_TEN = 8
RANK_ACE = 12
# extras bits: bit k stands for action 52 + k
X_PASS = 1 << 4          # 56
X_ASK = 1 << 5           # 57
X_LEAD = 1 << 6          # 58
X_CHANGE = 1 << 7        # 59


@njit(inline="always", cache=True, error_model="numpy")
def _b(c):
    return ONE << np.uint64(c)


# ---------------------------------------------------------------------------------------------
# deals
# ---------------------------------------------------------------------------------------------

@njit(cache=True, error_model="numpy")
def order_from_perm(p, dealer, out):
    """Section 7 step 2: p = a permutation of 52 -> out[seat, 13] in deal order (5-4-4 from d+1)."""
    for k in range(4):
        seat = (dealer + 1 + k) & 3
        for i in range(5):
            out[seat, i] = p[5 * k + i]
        for i in range(4):
            out[seat, 5 + i] = p[20 + 4 * k + i]
            out[seat, 9 + i] = p[36 + 4 * k + i]


@njit(cache=True, error_model="numpy")
def change_order(order, seat, dealer, q, out):
    """CP-10.1 / section 7 step 3: stock = the 32 undealt cards in deal order + the seat's five;
    new five = stock[q[0:5]]; stock[q[5:37]] dealt as packets 2 and 3 in the usual order."""
    stock = np.empty(37, np.int8)
    k = 0
    for pk in range(2):
        for j in range(4):
            sj = (dealer + 1 + j) & 3
            for i in range(4):
                stock[k] = order[sj, 5 + 4 * pk + i]
                k += 1
    for i in range(5):
        stock[k] = order[seat, i]
        k += 1
    for s2 in range(4):
        for i in range(13):
            out[s2, i] = order[s2, i]
    for i in range(5):
        out[seat, i] = stock[q[i]]
    k = 5
    for pk in range(2):
        for j in range(4):
            sj = (dealer + 1 + j) & 3
            for i in range(4):
                out[sj, 5 + 4 * pk + i] = stock[q[k]]
                k += 1


@njit(cache=True, error_model="numpy")
def _hand13(s, seat):
    m = ZERO
    for i in range(13):
        m |= _b(s.order[seat, i])
    return m


@njit(cache=True, error_model="numpy")
def _set_first5(s):
    for seat in range(4):
        m = ZERO
        for i in range(5):
            m |= _b(s.order[seat, i])
        s.first5[seat] = m
        s.hands[seat] = m


@njit(cache=True, error_model="numpy")
def start_bazi(s, cfg, order, dealer):
    """Deal a bazi (packet 1 only; CP-2.5) from `order` with dealer `dealer` and run to its first decision.
    Score, streak, bazi_index and rewards are left as they are."""
    s.dealer = dealer
    fc = (dealer + 1) & 3
    s.fc = fc
    for seat in range(4):
        for i in range(13):
            s.order[seat, i] = order[seat, i]
        s.gave_back[seat] = ZERO
        s.cc_used[seat] = 0
    _set_first5(s)
    for t in range(13):
        s.trick_leader[t] = -1
        s.trick_winner[t] = -1
        for i in range(4):
            s.trick_cards[t, i] = -1
    s.passed = 0
    s.caller = -1
    s.trump = -1
    s.turned = -1
    s.hidden_card = -1
    s.hidden_owner = -1
    s.hidden_unseen = 0
    s.shown_card = -1
    s.shown_trick = 0
    s.shown_pos = 0
    s.trump_changed = 0
    s.set_seat = -1
    s.set_card = -1
    s.leader = -1
    s.ntrick = 0
    s.npos = 0
    s.led = -1
    s.best_val = -1
    s.best_pos = 0
    s.duty = 0
    s.void_used = 0
    s.run_holder = -1
    s.last_win_card = -1
    s.decided = 0
    s.res_winner = -1
    s.res_kind = -1
    s.res_next_dealer = -1
    s.res_at = -1
    s.res_match_winner = -1
    s.res_points = 0
    s.res_kots = 0
    s.res_bonus = 0
    s.finished = 0
    s.pile = 0
    for team in range(2):
        s.tricks_won[team] = 0
        s.taken[team] = 0
        s.tens[team] = 0
    if cfg[C_CHANGE_CARDS]:
        s.phase = CHANGE_CARDS
        s.actor = fc
    else:
        _begin_choice(s, cfg)


@njit(cache=True, error_model="numpy")
def _begin_choice(s, cfg):
    v = cfg[C_VARIANT]
    if v == SINGLE_SAR or v == DOUBLE_SAR:
        s.phase = CALL
        s.actor = s.fc
    elif v == CHHUPA_RANG:
        s.phase = HIDE
        s.actor = s.fc
    elif v == MENDI_COAT and cfg[C_BAND]:
        s.phase = BAND_HIDE
        s.actor = s.fc
    else:
        _deal_rest(s)
        _start_play(s)


@njit(cache=True, error_model="numpy")
def _deal_rest(s):
    """Packets 2 and 3 (CP-2.5); a face-down card stays out of its owner's hand (CP-7.3)."""
    for seat in range(4):
        h = _hand13(s, seat)
        if seat == s.hidden_owner:
            h &= ~_b(s.hidden_card)
        s.hands[seat] = h


@njit(cache=True, error_model="numpy")
def _start_play(s):
    s.phase = PLAY
    s.leader = s.fc          # CP-4.1
    s.actor = s.fc
    s.ntrick = 0
    s.npos = 0
    s.duty = 0


@njit(cache=True, error_model="numpy")
def _after_trump_fixed(s, cfg):
    _deal_rest(s)
    if cfg[C_CHANGE_TRUMP]:
        s.phase = CHANGE_TRUMP           # CP-10.2
        s.actor = s.caller if s.caller >= 0 else s.fc
    else:
        _start_play(s)


# ---------------------------------------------------------------------------------------------
# legal actions (section 4)
# ---------------------------------------------------------------------------------------------

@njit(cache=True, error_model="numpy", inline="always")
def legal_bits(s, cfg):
    """The actor's legal actions as (card bitmask uint64, extras int64 with bit k = action 52+k)."""
    ph = s.phase
    a = s.actor
    if ph == PLAY:
        h = s.hands[a]
        if s.npos == 0:
            if s.duty == 2:                       # CP-7.7, CP-11.6(b)
                return h & SUIT_MASKS[s.trump], np.int64(0)
            ex = np.int64(0)
            if s.hidden_card >= 0 and s.hidden_owner == a:
                ex = np.int64(X_LEAD)
            return h, ex
        fol = h & SUIT_MASKS[s.led]
        if s.duty == 1:                           # CP-7.5, CP-11.6(d)
            if fol != ZERO:
                return fol, np.int64(0)
            if s.trump >= 0:
                tr = h & SUIT_MASKS[s.trump]
                if tr != ZERO:
                    return tr, np.int64(0)
            return h, np.int64(0)
        if fol != ZERO:
            return fol, np.int64(0)
        ex = np.int64(0)
        if s.hidden_card >= 0 and cfg[C_VARIANT] == CHHUPA_RANG:
            ex = np.int64(X_ASK)
        return h, ex
    if ph == CHANGE_CARDS:
        ex = np.int64(X_PASS)
        if s.cc_used[a] < cfg[C_CC_LIMIT]:
            ex |= X_CHANGE
        return ZERO, ex
    if ph == CALL:
        ex = np.int64(0)
        if cfg[C_TFF]:
            f5 = s.first5[a]
            for su in range(4):
                if f5 & SUIT_MASKS[su] != ZERO:
                    ex |= np.int64(1) << su
        else:
            ex = np.int64(15)
        if a == s.fc and s.passed == 0:
            ex |= X_PASS
        return ZERO, ex
    if ph == HIDE:
        ex = np.int64(0)
        if a == s.fc and s.passed == 0:
            ex = np.int64(X_PASS)
        return s.first5[a], ex
    if ph == BAND_HIDE:
        return s.first5[a], np.int64(0)
    if ph == CHANGE_TRUMP:
        v = cfg[C_VARIANT]
        if v == CHHUPA_RANG:
            return s.first5[a] & s.hands[a], np.int64(X_PASS)
        return ZERO, np.int64((15 & ~(1 << s.trump)) | X_PASS)
    return ZERO, np.int64(0)


@njit(cache=True, error_model="numpy")
def _write_mask(cards, ex, row):
    for i in range(row.shape[0]):
        row[i] = 0
    m = cards
    while m != ZERO:
        c = nth_set_bit(m, 0)
        row[c] = 1
        m &= m - ONE
    for k in range(8):
        if (ex >> k) & 1:
            row[52 + k] = 1


@njit(cache=True, error_model="numpy")
def legal_mask_batch(st, cfg, out):
    for b in range(st.shape[0]):
        s = st[b]
        if s.actor < 0:
            for i in range(out.shape[1]):
                out[b, i] = 0
            continue
        cards, ex = legal_bits(s, cfg)
        _write_mask(cards, ex, out[b])


# ---------------------------------------------------------------------------------------------
# play
# ---------------------------------------------------------------------------------------------

@njit(cache=True, error_model="numpy")
def _show(s, trick, pos):
    """Turn the face-down card up (CP-7.4, CP-11.6): its suit is trump, it joins the owner's hand."""
    c = s.hidden_card
    s.hands[s.hidden_owner] |= _b(c)
    s.trump = c // 13
    s.shown_card = c
    s.shown_trick = trick
    s.shown_pos = pos
    s.hidden_card = -1
    s.hidden_owner = -1
    s.hidden_unseen = 0


@njit(cache=True, error_model="numpy", inline="always")
def _play_card(s, cfg, c):
    a = s.actor
    t = s.ntrick
    pos = s.npos
    suit = c // 13
    if pos == 0:
        s.trick_leader[t] = a
        s.led = suit
        led = suit
    else:
        led = s.led
        if s.trump < 0:
            v = cfg[C_VARIANT]
            if v == BE_RANG or (v == MENDI_COAT and cfg[C_BAND] == 0):
                if s.hands[a] & SUIT_MASKS[led] == ZERO:   # CP-8.2 / CP-11.4: sets trump, counts now
                    s.trump = suit
                    s.set_seat = a
                    s.set_card = c
    s.hands[a] &= ~_b(c)
    s.trick_cards[t, pos] = c
    # CP-4.4 / CP-4.5, tracked as the trick goes: a card of the led suit ranks 16 + rank (if the led
    # suit is or becomes trump, all its cards are trumps and still compare by rank); a card of
    # another suit is a trump only if trump was fixed when it was played (32 + rank); others -1.
    if suit == led:
        val = 16 + c - 13 * suit
    elif suit == s.trump:
        val = 32 + c - 13 * suit
    else:
        val = -1
    if pos == 0 or val > s.best_val:
        s.best_val = val
        s.best_pos = pos
    s.duty = 0
    pos += 1
    if pos < 4:
        s.npos = pos
        nxt = (a + 1) & 3
        s.actor = nxt
        if cfg[C_BAND] and s.void_used == 0 and (s.hands[nxt] & SUIT_MASKS[led]) == ZERO:
            s.void_used = 1                        # CP-11.6(a), (d)
            s.duty = 1
            if s.hidden_card >= 0:
                _show(s, t + 1, pos)
        return
    _resolve_trick(s, cfg)


@njit(cache=True, error_model="numpy")
def trick_winner_index(cards, flags, trump):
    """CP-4.4 / CP-4.5 from a finished trick: index (play order) of the winning card among 4 cards;
    flags[i]: card i was played when trump (of its suit) was already fixed in public."""
    led = cards[0] // 13
    best = -1
    wi = 0
    for i in range(4):
        c = cards[i]
        su = c // 13
        if flags[i] or (su == trump and su == led):
            v = 32 + c % 13
        elif su == led:
            v = 16 + c % 13
        else:
            v = -1
        if v > best:
            best = v
            wi = i
    return wi


@njit(cache=True, error_model="numpy")
def _resolve_trick(s, cfg):
    t = s.ntrick
    wi = s.best_pos
    leader = s.trick_leader[t]
    winner = (leader + wi) & 3
    wcard = s.trick_cards[t, wi]
    team = winner & 1
    s.trick_winner[t] = winner
    s.tricks_won[team] += 1
    nt = t + 1
    s.ntrick = nt
    s.npos = 0
    s.leader = winner
    s.actor = winner
    s.duty = 0
    v = cfg[C_VARIANT]
    if v == DOUBLE_SAR:
        s.pile |= np.int32(1) << t                 # CP-6.2
        take = False
        if nt == 13:
            take = True                            # CP-6.5
        elif s.run_holder == winner:
            blocked = False
            if cfg[C_ACE_ON_ACE] and wcard % 13 == RANK_ACE and s.last_win_card >= 0 \
                    and s.last_win_card % 13 == RANK_ACE:
                blocked = True
            if cfg[C_TRUMP_ACE_BLOCKS] and s.trump >= 0 and wcard == s.trump * 13 + RANK_ACE:
                blocked = True
            if cfg[C_CLOSED_11_12] and (nt == 11 or nt == 12):
                blocked = True
            take = not blocked                     # CP-6.7: a blocked take keeps the run holder
        else:
            s.run_holder = winner
        s.last_win_card = wcard
        if take:                                   # CP-6.4, CP-6.8
            n = 0
            p = s.pile
            while p:
                p &= p - 1
                n += 1
            s.taken[team] += n
            s.pile = 0
            s.run_holder = -1
            if s.decided == 0:                     # CP-6.9
                if nt == 13:
                    _decide(s, cfg, 0 if s.taken[0] >= 7 else 1)
                elif s.taken[0] >= 7 and s.taken[1] >= 1:
                    _decide(s, cfg, 0)
                elif s.taken[1] >= 7 and s.taken[0] >= 1:
                    _decide(s, cfg, 1)
    elif v == MENDI_COAT:
        nten = 0
        for i in range(4):
            if s.trick_cards[t, i] % 13 == RANK_TEN:
                nten += 1
        s.tens[team] += nten
        if nt == 13:                               # CP-11.2, CP-11.8
            if s.tens[0] >= 3:
                w = 0
            elif s.tens[1] >= 3:
                w = 1
            else:
                w = 0 if s.tricks_won[0] >= 7 else 1
            _decide(s, cfg, w)
    else:
        if s.decided == 0 and s.tricks_won[team] == 7:   # CP-5.2
            _decide(s, cfg, team)
    if s.decided and (cfg[C_PLAY_OUT] == 0 or nt == 13):
        _finish(s, cfg)


@njit(cache=True, error_model="numpy")
def _decide(s, cfg, w):
    """Fix the bazi result (CP-5, CP-6.9, CP-11.8, CP-9.1, CP-11.9, CP-9.2 bonus, CP-9.4/CP-11.10)."""
    s.decided = 1
    s.res_winner = w
    s.res_at = s.ntrick
    d = s.dealer
    v = cfg[C_VARIANT]
    kots = 0
    if v == MENDI_COAT:
        if s.tricks_won[w] == 13:
            kind = K_WHITEWASH
            pts = 3
        elif s.tens[w] == 4:
            kind = K_MENDI_COAT
            pts = 2
        elif s.tens[w] == 3:
            kind = K_MENDI
            pts = 1
        else:
            kind = K_SPLIT
            pts = cfg[C_SPLIT_WIN]
        if w == (d & 1):
            nd = d + 1
        elif s.tricks_won[d & 1] > 0:
            nd = d
        else:
            nd = d + 2
    else:
        if v == DOUBLE_SAR:
            kot = s.taken[w] == 13                 # CP-6.10
        else:
            kot = s.tricks_won[1 - w] == 0         # CP-5.3
        if w == ((d + 1) & 1):                     # trump team (CP-2.2)
            if kot:
                kind = K_KOT
                pts = 3
                kots = 1
                nd = d + 2
            else:
                kind = K_TRUMP_WIN
                pts = 1
                nd = d
        else:
            if kot:
                kind = K_GONE_KOT
                pts = 4
                kots = 3
            else:
                kind = K_OPP_WIN
                pts = 2
            nd = d + 1
    bonus = 0
    if cfg[C_STREAK] and kind != K_KOT and kind != K_GONE_KOT:
        cnt = s.streak_count + 1 if s.streak_team == w else 1
        if cnt >= 7:
            bonus = 1 if cfg[C_KOTS] else 2
    s.res_kind = kind
    s.res_points = pts
    s.res_kots = kots
    s.res_bonus = bonus
    s.res_next_dealer = nd & 3
    gain = (kots if cfg[C_KOTS] else pts) + bonus
    s.res_match_winner = -1
    if cfg[C_MATCH] and s.score[w] + gain >= cfg[C_TARGET]:
        s.res_match_winner = w
    if s.hidden_card >= 0:                         # CP-7.4(d), CP-13.2
        _show(s, s.ntrick + 1, 0)


@njit(cache=True, error_model="numpy")
def _finish(s, cfg):
    """Pay the bazi (section 5), update score and streak; end the episode or ask for the next deal."""
    w = s.res_winner
    kind = s.res_kind
    gain = (s.res_kots if cfg[C_KOTS] else s.res_points) + s.res_bonus
    if cfg[C_STREAK]:
        if kind == K_KOT or kind == K_GONE_KOT:
            s.streak_team = -1
            s.streak_count = 0
        else:
            if s.streak_team == w:
                s.streak_count += 1
            else:
                s.streak_team = w
                s.streak_count = 1
            if s.streak_count >= 7:
                s.streak_team = -1
                s.streak_count = 0
    s.score[w] += gain
    end = cfg[C_MATCH] == 0 or s.res_match_winner >= 0
    for seat in range(4):
        if cfg[C_WINLOSS]:
            r = (1.0 if (seat & 1) == w else -1.0) if end else 0.0
        else:
            r = float(gain) if (seat & 1) == w else float(-gain)
        s.rewards[seat] = r
    s.finished = 1
    s.actor = -1
    s.phase = OVER if end else NEED_DEAL


# ---------------------------------------------------------------------------------------------
# actions
# ---------------------------------------------------------------------------------------------

@njit(cache=True, error_model="numpy")
def apply_action(s, cfg, a, neworder):
    """Apply the actor's legal action a.  For CHANGE_CARDS (59) `neworder` holds the new deal
    order (change_order) drawn by the caller."""
    ph = s.phase
    if ph == PLAY:
        if a < 52:
            _play_card(s, cfg, a)
        elif a == 57:
            _show(s, s.ntrick + 1, s.npos)         # CP-7.4(a)
            s.duty = 1
        else:
            _show(s, s.ntrick + 1, 0)              # CP-7.4(b), CP-11.6(b)
            s.duty = 2
        return
    actor = s.actor
    if ph == CHANGE_CARDS:
        if a == 59:
            s.gave_back[actor] |= s.first5[actor]
            for seat in range(4):
                for i in range(13):
                    s.order[seat, i] = neworder[seat, i]
            _set_first5(s)
            s.cc_used[actor] += 1
            if s.cc_used[actor] < cfg[C_CC_LIMIT]:
                return
        if actor == s.dealer:
            _begin_choice(s, cfg)
        else:
            s.actor = (actor + 1) & 3
    elif ph == CALL:
        if a == 56:
            s.passed = 1
            s.actor = (s.fc + 2) & 3
        else:
            s.trump = a - 52
            s.caller = actor
            _after_trump_fixed(s, cfg)
    elif ph == HIDE:
        if a == 56:
            s.passed = 1
            s.actor = (s.fc + 2) & 3
        else:
            s.hidden_card = a
            s.hidden_owner = actor
            s.hidden_unseen = 0
            s.caller = actor
            _after_trump_fixed(s, cfg)
    elif ph == BAND_HIDE:
        s.hidden_card = a
        s.hidden_owner = actor
        _deal_rest(s)
        _start_play(s)
    elif ph == CHANGE_TRUMP:
        if a == 56:
            _start_play(s)
        elif a >= 52:
            s.trump = a - 52
            s.trump_changed = 1
            s.caller = actor
            _start_play(s)
        else:
            old = s.hidden_card
            s.hands[actor] |= _b(old)
            s.hands[actor] &= ~_b(a)
            s.hidden_card = a
            s.hidden_owner = actor
            s.hidden_unseen = 0
            s.trump_changed = 1
            s.caller = actor
            _start_play(s)


@njit(cache=True, error_model="numpy")
def apply_timeout_card(s, cfg, card):
    """The card events of CP-12.2: CP-3.5 (call), CP-7.8 (hide), Band hide timeout."""
    ph = s.phase
    if ph == CALL:
        s.turned = card
        s.trump = card // 13
        _after_trump_fixed(s, cfg)
    elif ph == HIDE:
        s.hidden_card = card
        s.hidden_owner = s.fc
        s.hidden_unseen = 1
        _after_trump_fixed(s, cfg)
    else:
        s.hidden_card = card
        s.hidden_owner = s.fc
        _deal_rest(s)
        _start_play(s)


@njit(cache=True, error_model="numpy")
def step_one(st, b, cfg, a, neworder, mask_out):
    """One AEC step of game b: apply a, then write the next actor's mask; returns
    phase * 8 + actor + 1."""
    s = st[b]
    for i in range(4):
        s.rewards[i] = 0.0
    apply_action(s, cfg, a, neworder)
    if s.actor >= 0:
        cards, ex = legal_bits(s, cfg)
        _write_mask(cards, ex, mask_out)
    return s.phase * 8 + s.actor + 1


@njit(cache=True, error_model="numpy")
def timeout_card_one(st, b, cfg, card, mask_out):
    s = st[b]
    for i in range(4):
        s.rewards[i] = 0.0
    apply_timeout_card(s, cfg, card)
    if s.actor >= 0:
        cards, ex = legal_bits(s, cfg)
        _write_mask(cards, ex, mask_out)
    return s.phase * 8 + s.actor + 1


@njit(cache=True, error_model="numpy")
def mask_one(st, b, cfg, mask_out):
    s = st[b]
    for i in range(mask_out.shape[0]):
        mask_out[i] = 0
    if s.actor >= 0:
        cards, ex = legal_bits(s, cfg)
        _write_mask(cards, ex, mask_out)


@njit(cache=True, error_model="numpy")
def step_batch(st, cfg, actions, neworders):
    """Step every game b with actions[b] >= 0 (already checked legal); rewards are what this step
    gave (0 for a game that is done)."""
    for b in range(st.shape[0]):
        s = st[b]
        for i in range(4):
            s.rewards[i] = 0.0
        a = actions[b]
        if a >= 0:
            apply_action(s, cfg, a, neworders[b])


@njit(cache=True, error_model="numpy")
def current_player_batch(st, out):
    for b in range(st.shape[0]):
        out[b] = st[b].actor


# ---------------------------------------------------------------------------------------------
# rollout
# ---------------------------------------------------------------------------------------------

@njit(cache=True, error_model="numpy")
def _kernel_perm(rng, g, n, out):
    for i in range(n):
        out[i] = i
    shuffle_prefix(out, n, rng, g)


@njit(cache=True, error_model="numpy")
def _random_trick(s, cfg, rng, b, katte):
    """Rollout fast path: a whole trick of uniformly random legal cards when nothing but CP-4.3 (and,
    with `katte`, CP-8.2's trump setting) applies: no face-down card, no duty; the same result as
    four _play_card calls."""
    t = s.ntrick
    leader = s.actor
    trump = s.trump
    led = 0
    best = -1
    bpos = 0
    for k in range(4):
        p = (leader + k) & 3
        h = s.hands[p]
        void = False
        if k == 0:
            legal = h
        else:
            legal = h & SUIT_MASKS[led]
            if legal == ZERO:
                legal = h
                void = True
        c = nth_set_bit(legal, rng_below(rng, b, popcount(legal)))
        s.hands[p] = h ^ _b(c)
        s.trick_cards[t, k] = c
        suit = c // 13
        if void and trump < 0 and katte:
            trump = suit                           # CP-8.2 / CP-11.4
            s.trump = suit
            s.set_seat = p
            s.set_card = c
        if k == 0:
            led = suit
        if suit == led:
            val = 16 + c - 13 * suit
        elif suit == trump:
            val = 32 + c - 13 * suit
        else:
            val = -1
        if val > best:
            best = val
            bpos = k
    s.trick_leader[t] = leader
    s.led = led
    s.best_val = best
    s.best_pos = bpos
    s.duty = 0
    _resolve_trick(s, cfg)


@njit(cache=True, error_model="numpy")
def rollout(st, cfg, seed):
    """Play every live game to its end with uniformly random legal actions; returns decisions played.
    Events inside a rollout (change-cards stock, the next deal of a match) use the kernel generator."""
    n_games = st.shape[0]
    rng = seed_generators(seed, n_games)
    perm = np.empty(52, np.int64)
    order = np.empty((4, 13), np.int8)
    neworder = np.empty((4, 13), np.int8)
    band = cfg[C_BAND]
    katte = cfg[C_VARIANT] == BE_RANG or (cfg[C_VARIANT] == MENDI_COAT and band == 0)
    n = 0
    for b in range(n_games):
        s = st[b]
        for i in range(4):
            s.rewards[i] = 0.0
        if s.phase == OVER:
            continue
        while True:
            ph = s.phase
            if ph == PLAY:
                if s.npos == 0 and (s.trump >= 0 or katte) and s.hidden_card < 0 and s.duty == 0 \
                        and (band == 0 or s.void_used == 1):
                    _random_trick(s, cfg, rng, b, katte)
                    n += 4
                    continue
                cards, ex = legal_bits(s, cfg)
                pc = np.int64(popcount(cards))
                if ex == 0:
                    c = nth_set_bit(cards, rng_below(rng, b, pc))
                    _play_card(s, cfg, c)
                else:
                    r = rng_below(rng, b, pc + np.int64(popcount(np.uint64(ex))))
                    if r < pc:
                        _play_card(s, cfg, nth_set_bit(cards, r))
                    else:
                        apply_action(s, cfg, 52 + nth_set_bit(np.uint64(ex), r - pc), neworder)
                n += 1
            elif ph == OVER:
                break
            elif ph == NEED_DEAL:
                _kernel_perm(rng, b, 52, perm)
                order_from_perm(perm, s.res_next_dealer, order)
                s.bazi_index += 1
                start_bazi(s, cfg, order, s.res_next_dealer)
            else:
                cards, ex = legal_bits(s, cfg)
                pc = np.int64(popcount(cards))
                r = rng_below(rng, b, pc + np.int64(popcount(np.uint64(ex))))
                if r < pc:
                    a = nth_set_bit(cards, r)
                else:
                    a = 52 + nth_set_bit(np.uint64(ex), r - pc)
                if a == 59:
                    _kernel_perm(rng, b, 37, perm)
                    change_order(s.order, s.actor, s.dealer, perm, neworder)
                apply_action(s, cfg, a, neworder)
                n += 1
    return n


@njit(cache=True, error_model="numpy")
def start_bazi_at(st, b, cfg, order, dealer):
    start_bazi(st[b], cfg, order, dealer)


@njit(cache=True, error_model="numpy")
def start_bazi_batch(st, cfg, orders, dealers):
    for b in range(st.shape[0]):
        start_bazi(st[b], cfg, orders[b], dealers[b])


@njit(cache=True, error_model="numpy")
def begin_one(st, b, cfg, order, dealer, score0, score1, streak_team, streak_count, bazi_index):
    """First bazi of an episode for game b: match state, then the deal."""
    s = st[b]
    s.score[0] = score0
    s.score[1] = score1
    s.streak_team = streak_team
    s.streak_count = streak_count
    s.bazi_index = bazi_index
    for i in range(4):
        s.rewards[i] = 0.0
    start_bazi(s, cfg, order, dealer)


@njit(cache=True, error_model="numpy")
def result_fields(st, b, out):
    """The 9.4 result fields and the rewards of game b as ints (rewards: exact small integers)."""
    s = st[b]
    out[0] = s.bazi_index
    out[1] = s.res_winner
    out[2] = s.res_kind
    out[3] = s.res_points
    out[4] = s.res_kots
    out[5] = s.res_bonus
    out[6] = s.res_next_dealer
    out[7] = s.res_at
    out[8] = s.res_match_winner
    for i in range(4):
        out[9 + i] = np.int64(s.rewards[i])


# ---------------------------------------------------------------------------------------------
# array deal injection and common-prefix replay (BatchGame.reset(hands=...), BatchGame.replay)
# ---------------------------------------------------------------------------------------------

@njit(cache=True, error_model="numpy")
def check_orders(orders):
    """-1 when every orders[b] (int [4, 13]) holds each of the 52 cards once, else the first bad b."""
    for b in range(orders.shape[0]):
        m = ZERO
        for seat in range(4):
            for i in range(13):
                c = orders[b, seat, i]
                if c < 0 or c > 51:
                    return b
                m |= _b(c)
        if m != np.uint64((1 << 52) - 1):
            return b
    return -1


@njit(cache=True, error_model="numpy")
def inject_batch(st, cfg, orders, dealers):
    """Game b: a fresh bazi episode dealt from orders[b] with dealer dealers[b] (the state a
    deal-injected reset leaves: score 0, no streak, bazi 0, no rewards)."""
    order = np.empty((4, 13), np.int8)
    for b in range(st.shape[0]):
        s = st[b]
        s.score[0] = 0
        s.score[1] = 0
        s.streak_team = -1
        s.streak_count = 0
        s.bazi_index = 0
        for i in range(4):
            s.rewards[i] = 0.0
        for seat in range(4):
            for i in range(13):
                order[seat, i] = orders[b, seat, i]
        start_bazi(s, cfg, order, dealers[b])


@njit(cache=True, error_model="numpy")
def replay_batch(st, cfg, actions):
    """Apply actions[0], actions[1], ... to every live game in turn (one action for all games per
    step; games that are done ignore the rest). Returns (k, b, why): (-1, -1, 0) when all went well,
    else the first action k that failed in game b, why = 1 illegal, 2 change cards (needs the
    generator: use step()), 3 the bazi ended into a match's next deal (use step()). The state is
    then partly stepped, so callers run this on a copy."""
    n = st.shape[0]
    dummy = np.zeros((4, 13), np.int8)
    for k in range(actions.shape[0]):
        a = actions[k]
        for b in range(n):
            s = st[b]
            for i in range(4):
                s.rewards[i] = 0.0
            if s.actor < 0:
                continue
            if a == 59:
                return k, b, 2
            if a < 0 or a >= 60:
                return k, b, 1
            cards, ex = legal_bits(s, cfg)
            if a < 52:
                ok = np.int64((cards >> np.uint64(a)) & ONE)
            else:
                ok = (ex >> (a - 52)) & 1
            if ok == 0:
                return k, b, 1
            apply_action(s, cfg, a, dummy)
            if s.phase == NEED_DEAL:
                return k, b, 3
    return -1, -1, 0


# ---- section 7 steps 1-2 for B games from their generators' draws (BatchGame.reset(seed=...)) ----

@njit(cache=True, error_model="numpy")
def deal_from_perms(perms, orders, dealers):
    """Game b's first bazi from perms[b, 0] and perms[b, 1], its generator's first two
    permutation(52) draws (cardzoo/nprandom.permutation_rows), exactly as deals.prepare_episode
    uses them: the draw (CP-2.3: seats 0..3 each take a card, tied seats draw again in ascending
    order; the dealer sits before the winner, winner - 1), then the deal (step 2, order_from_perm).
    Writes orders[b] and dealers[b]; returns -1, or the first game whose draw ran out of cards (the
    caller then takes the Python path, which raises as it always did)."""
    rank = np.empty(4, np.int64)
    contenders = np.empty(4, np.int64)
    for b in range(perms.shape[0]):
        draw = perms[b, 0]
        n_cont = 4
        for s in range(4):
            contenders[s] = s
        k = 0
        winner = -1
        while winner < 0:
            if k + n_cont > 52:
                return b
            best = -1
            for i in range(n_cont):
                rank[i] = draw[k] % 13
                k += 1
                if rank[i] > best:
                    best = rank[i]
            n_tied = 0
            for i in range(n_cont):
                if rank[i] == best:
                    contenders[n_tied] = contenders[i]
                    n_tied += 1
            if n_tied == 1:
                winner = contenders[0]
            n_cont = n_tied
        dealer = (winner + 3) & 3
        dealers[b] = dealer
        order_from_perm(perms[b, 1], dealer, orders[b])
    return -1
