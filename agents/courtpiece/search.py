"""Determinized search (Perfect-Information Monte Carlo) for Court Piece and Mendi Coat.

At each card-play decision the agent

1. **samples hidden hands** consistent with everything public: the cards each seat has played
   (they were in its hand), each seat's hand size, the voids a seat showed by failing to follow suit
   (it can never hold that suit again), and the trump call (CP-3.2: the caller's first five held a
   card of the suit he named). Its own 13 cards and first five come from its observation; no private
   state of other seats is read. Sampling is a jitted kernel (``sample_hidden``). With ``infer`` > 1
   it draws ``infer`` times as many deals and keeps those in which the other seats' past card plays
   differ least from what the heuristic would have played there (``replay_mismatches``): a model of
   the other players that sharpens the guess at their hands;
2. **replays the public history** on the sampled deals: they are injected as card arrays with
   ``BatchGame.reset(hands=..., dealers=...)`` and the public action sequence (the pass and the call,
   every card played so far) is applied to all of them in one jitted ``BatchGame.replay`` call, so
   each sampled game reaches exactly the agent's information set — its observation in every sampled
   world equals the real one;
3. **evaluates every legal action** by batched rollouts: ``samples x actions x rollouts`` copies of
   the sampled games, each legal action applied in its share of them, then all of them played to the
   end inside one jitted call (``playout``) by ``policy="heuristic"`` (default): every seat plays the
   Court Piece heuristic's card-play rules (``heuristic_card``, a numba twin of
   ``CourtPieceHeuristic``'s play, tested equal to it) with ``eps`` uniformly random moves; or
   ``policy="random"``: uniformly random legal moves; or ``policy=<checkpoint.pt>``: a residual
   policy (``agents.residual``) evaluated inside the kernel (``net_card``, through ``agents.jitnet``,
   tested equal to ``ResidualAgent``) plays the first ``plies`` card plays with a choice of every
   playout (all with ``plies=-1``), of every seat or (``team=true``) of the searcher's team only.
   The action with the best mean reward for the agent's seat is played when it beats the heuristic's
   card by ``z`` standard errors of the paired difference over the same sampled deals (else the
   heuristic's card, so sampling noise does not override it).

**Trump calls** (Single and Double Sar) are searched the same way: ``call_samples`` deals that keep
the caller's first five (everything else, his own eight cards to come included, uniformly at random),
each legal call (and the pass) played out, the partner's call after a pass made by the heuristic's rule
(``heuristic_call``), the same ``z`` test against the heuristic's call.

Hiding and the other non-play decisions use the Court Piece heuristic, as do positions
the sampler cannot reconstruct from the public record (Chhupa Rang and Band face-down cards, a
timed-out call, a changed trump or changed cards, match episodes) — ``fallbacks`` counts them.
``stats`` totals the games rolled out (``rollouts_per_s`` over all searched decisions) and ``last``
holds the latest decision's games, seconds, rollouts per second and action values.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from agents import check_trained_config
from agents.base import legal_actions
from agents.courtpiece.endgame import solve_after, solver_scratch
from agents.courtpiece.heuristic import FIRST5, HAND, PASS_BELOW, CourtPieceHeuristic
from agents.determinized import DeterminizedSearch, paired_layout
from agents.jitnet import jit_net, net_hidden, net_input, net_output, no_net
from cardzoo._jit import NO_REFCOUNT
from cardzoo.batch import copy_records
from cardzoo.cards import (SUIT_MASKS, card_index, highest_bit, lowest_bit, popcount, rng_below, seed_generators,
                           shuffle_prefix)
from courtpiece_env.config import BE_RANG, C_BAND, C_VARIANT, MENDI_COAT
from courtpiece_env.rules import apply_action, legal_bits
from courtpiece_env.observe import OBS_SIZE, observe_entries
from courtpiece_env.state import CALL, PLAY
from courtpiece_env.symmetry import RENAMED, order_row, suit_order_entries

ZERO = np.uint64(0)
ONE = np.uint64(1)
TEN = 8
TENS = np.uint64(sum(1 << (13 * s + TEN) for s in range(4)))
HONOUR10 = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 6, 10, 15], np.int64)   # suit_score x 10 (J .3 .. A 1.5)
POLICIES = ("heuristic", "random")
PASS_BELOW10 = int(round(PASS_BELOW * 10))


def _cards(texts) -> list[int]:
    return [card_index(t) for t in texts]


# ---------------------------------------------------------------------------------------------
# jitted kernels: the heuristic's card play on a state record, playouts, hidden-hand sampling
# ---------------------------------------------------------------------------------------------

@njit(inline="always", cache=True)
def _bit(c):
    return ONE << np.uint64(c)


@njit(inline="always", cache=True)
def _above(c):
    """Cards of c's suit ranked above c."""
    return SUIT_MASKS[c // 13] & ~((ONE << np.uint64(c + 1)) - ONE)


@njit(inline="always", cache=True)
def _val(c, led, trump):
    """Trick strength of c as the heuristic's `beats` orders cards (-1: cannot win)."""
    su = c // 13
    if su == led:
        return 16 + c - 13 * su
    if su == trump:
        return 32 + c - 13 * su
    return -1


@njit(inline="always", cache=True)
def _suit_len(h, su):
    return np.int64(popcount(h & SUIT_MASKS[su]))


@njit(cache=True)
def _low(cards, hand, trump, following, mendi):
    """CourtPieceHeuristic._low: the lowest card (side suits before trumps when discarding, no ten in
    Mendi Coat when avoidable), ties to the shorter suit, then the lower card id."""
    pool = cards
    if not following and trump >= 0:
        side = cards & ~SUIT_MASKS[trump]
        if side != ZERO:
            pool = side
    if mendi and (pool & ~TENS) != ZERO:
        pool = pool & ~TENS
    best = -1
    key = np.int64(1 << 40)
    m = pool
    while m != ZERO:
        c = np.int64(lowest_bit(m))
        m &= m - ONE
        su = c // 13
        k = (c - 13 * su) * 10000 + _suit_len(hand, su) * 100 + c
        if k < key:
            key = k
            best = c
    return best


@njit(cache=True)
def _cheapest(cards, trump):
    """min by (is trump, rank), then card id."""
    best = -1
    key = np.int64(1 << 40)
    m = cards
    while m != ZERO:
        c = np.int64(lowest_bit(m))
        m &= m - ONE
        su = c // 13
        k = (10000 if su == trump else 0) + (c - 13 * su) * 100 + c
        if k < key:
            key = k
            best = c
    return best


@njit(cache=True)
def heuristic_card(s, cfg, p, cards):
    """The card CourtPieceHeuristic plays for seat p in state record s, given its legal cards (a
    non-empty uint64 mask): its leading and following rules (module docstring of
    agents.courtpiece.heuristic) computed from what p sees — its hand, the trick, the public trump
    and the cards it has not seen (the other hands)."""
    v = cfg[C_VARIANT]
    mendi = v == MENDI_COAT
    setter = v == BE_RANG or (mendi and cfg[C_BAND] == 0)
    trump = np.int64(s.trump)
    hand = s.hands[p]
    out = ZERO
    for o in range(4):
        if o != p:
            out |= s.hands[o]
    if s.hidden_card >= 0 and s.hidden_owner != p:
        out |= _bit(s.hidden_card)
    npos = np.int64(s.npos)
    if npos == 0:
        # leading
        if trump >= 0:
            mine = cards & SUIT_MASKS[trump]
            if popcount(mine) >= 3:
                top = highest_bit(mine)
                if (out & _above(top)) == ZERO and (out & SUIT_MASKS[trump]) != ZERO:
                    return top
        best = -1
        key = -1
        m = cards
        while m != ZERO:
            c = np.int64(lowest_bit(m))
            m &= m - ONE
            su = c // 13
            if su == trump or (out & _above(c)) != ZERO or (out & SUIT_MASKS[su]) == ZERO:
                continue
            r = c - 13 * su
            k = (100 if r != TEN else 0) + r
            if k > key:
                key = k
                best = c
        if best >= 0:
            return best
        side = cards
        if trump >= 0 and (cards & ~SUIT_MASKS[trump]) != ZERO:
            side = cards & ~SUIT_MASKS[trump]
        if mendi and (side & ~TENS) != ZERO:
            side = side & ~TENS
        key = np.int64(1 << 40)
        m = side
        while m != ZERO:
            c = np.int64(lowest_bit(m))
            m &= m - ONE
            su = c // 13
            k = (13 - _suit_len(hand, su)) * 10000 + (c - 13 * su) * 100 + c
            if k < key:
                key = k
                best = c
        return best
    # following
    t = s.ntrick
    led = np.int64(s.led)
    bpos = 0
    bval = _val(np.int64(s.trick_cards[t, 0]), led, trump)
    has_ten = False
    for i in range(npos):
        c = np.int64(s.trick_cards[t, i])
        if c % 13 == TEN:
            has_ten = True
        vv = _val(c, led, trump)
        if vv > bval:
            bval = vv
            bpos = i
    best_card = np.int64(s.trick_cards[t, bpos])
    partner = bpos == npos - 2
    following = (cards & SUIT_MASKS[led]) != ZERO
    if partner and (npos == 3 or (out & _above(best_card)) == ZERO):
        if mendi and (cards & TENS) != ZERO:
            return np.int64(lowest_bit(cards & TENS))
        return _low(cards, hand, trump, following, mendi)
    if trump < 0 and not following and setter:
        bs = -1
        bsc = -1
        for su in range(4):
            sc = cards & SUIT_MASKS[su]
            if sc == ZERO:
                continue
            score = 0
            m = sc
            while m != ZERO:
                c = np.int64(lowest_bit(m))
                m &= m - ONE
                score += 10 + HONOUR10[c - 13 * su]
            if score > bsc:
                bsc = score
                bs = su
        return np.int64(lowest_bit(cards & SUIT_MASKS[bs]))
    winners = ZERO
    m = cards
    while m != ZERO:
        c = np.int64(lowest_bit(m))
        m &= m - ONE
        if _val(c, led, trump) > bval:
            winners |= _bit(c)
    if winners != ZERO:
        if (mendi and has_ten) or npos == 3:
            return _cheapest(winners, trump)
        masters = ZERO
        m = winners
        while m != ZERO:
            c = np.int64(lowest_bit(m))
            m &= m - ONE
            if (out & _above(c)) == ZERO:
                masters |= _bit(c)
        if masters != ZERO:
            return _cheapest(masters, trump)
        if trump >= 0 and not following:
            return _cheapest(winners, trump)
        if npos == 2 and not partner:
            best = -1
            key = -1
            m = winners
            while m != ZERO:
                c = np.int64(lowest_bit(m))
                m &= m - ONE
                if c % 13 > key:
                    key = c % 13
                    best = c
            return best
    return _low(cards, hand, trump, following, mendi)


@njit(cache=True)
def heuristic_call(s, cfg, p, ex):
    """CourtPieceHeuristic._call for seat p (ex: the legal extras, bit k = action 52 + k): the allowed
    suit with the best length + honours score over p's first five (ties to the lower suit); pass
    when that is below PASS_BELOW and passing is legal."""
    f5 = s.first5[p]
    if f5 == ZERO:
        f5 = s.hands[p]
    best = -1
    bsc = -1
    for su in range(4):
        if (ex >> su) & 1 == 0:
            continue
        score = 0
        m = f5 & SUIT_MASKS[su]
        while m != ZERO:
            c = np.int64(lowest_bit(m))
            m &= m - ONE
            score += 10 + HONOUR10[c - 13 * su]
        if score > bsc:
            bsc = score
            best = su
    if (ex >> 4) & 1 and bsc < PASS_BELOW10:
        return np.int64(56)
    return np.int64(52 + best)


@njit(cache=True)
def net_scratch(width):
    """The working arrays of ``net_card`` for a network ``width`` wide: made once per batch."""
    return (np.zeros(width, np.float32), np.zeros(width, np.float32), np.zeros(4, np.int64),
            np.zeros(OBS_SIZE, np.int64), np.zeros(OBS_SIZE, np.float32), np.zeros(29, np.float64))


@njit(cache=True, **NO_REFCOUNT)
def net_card(s, cfg, p, cards, h, net, margin, scratch):
    """The residual policy's card for seat p (``net``: a ``JitNet`` of a Court Piece checkpoint): the
    heuristic's card ``h`` unless the network's advantage of another legal card over it exceeds
    ``margin`` — ``ResidualAgent``'s decision, on the state record, in canonical suit order: the
    observation's set entries (``observe_entries``), renamed, through the network. ``scratch``:
    ``net_scratch``'s arrays."""
    hid, tmp, order, inputs, values, sums = scratch
    n = observe_entries(s, cfg, p, inputs, values)
    suit_order_entries(inputs, values, n, sums, order)
    renamed = RENAMED[order_row(order)]
    for t in range(n):                            # the inputs in canonical places: card blocks and trump
        inputs[t] = renamed[inputs[t]]
    for k in range(hid.shape[0]):
        hid[k] = net.first_bias[k]
    for t in range(n):
        net_input(net, hid, inputs[t], values[t])
    ch = renamed[h]                               # a card's offset in the hand block is its id
    net_input(net, hid, OBS_SIZE + ch, np.float32(1.0))
    net_hidden(net, hid, tmp)
    base = net_output(net, hid, ch)
    best, choice = np.float32(margin), h
    m = cards
    while m != ZERO:
        c = np.int64(lowest_bit(m))
        m &= m - ONE
        if c != h:
            adv = net_output(net, hid, renamed[c]) - base
            if adv > best:
                best, choice = adv, c
    return choice


@njit(cache=True)
def policy_cards_batch(st, cfg, net, margin, out):
    """The rollout policy's card for the seat to act in every game: heuristic_card, or with a network
    (``net``: a JitNet, else ``no_net()``) net_card where only cards are legal; -1 where no card is
    legal or none acts."""
    scratch = net_scratch(net.first_bias.shape[0])
    for b in range(st.shape[0]):
        s = st[b]
        out[b] = -1
        if s.actor < 0 or s.phase != PLAY:
            continue
        cards, ex = legal_bits(s, cfg)
        if cards != ZERO:
            p = np.int64(s.actor)
            out[b] = heuristic_card(s, cfg, p, cards)
            if ex == 0 and net.first_bias.shape[0] > 0:
                out[b] = net_card(s, cfg, p, cards, out[b], net, margin, scratch)


@njit(cache=True)
def playout(st, cfg, first, seat, eps, seed, out, net, margin, plies, team):
    """Game b: apply first[b], then play to the end — every seat by heuristic_card, a uniformly random
    legal action with probability eps (eps >= 1: uniform random play); a trump call by heuristic_call,
    other non-play decisions uniformly at random; out[b] = the reward of `seat`
    over the playout. Bazi episodes (a match's next deal is never reached). With a network
    (``net``: a JitNet, else ``no_net()``) the first ``plies`` card plays of each playout with a
    choice (all of them when ``plies`` < 0) are the residual policy's (``net_card``) instead: of
    every seat, or with ``team`` of `seat`'s team only (the others keep the heuristic)."""
    n = st.shape[0]
    rng = seed_generators(seed, 1)
    dummy = np.zeros((4, 13), np.int8)
    thr = np.uint64(min(max(eps, 0.0), 1.0) * 4294967295.0)
    width = net.first_bias.shape[0]
    scratch = net_scratch(width)
    for b in range(n):
        s = st[b]
        for i in range(4):
            s.rewards[i] = 0.0
        apply_action(s, cfg, first[b], dummy)
        total = np.float64(s.rewards[seat])
        left = plies if width > 0 else 0
        while s.actor >= 0:
            cards, ex = legal_bits(s, cfg)
            rnd = eps > 0.0 and rng_next_hi(rng) <= thr
            if s.phase == CALL and not rnd:
                a = heuristic_call(s, cfg, np.int64(s.actor), ex)
            elif s.phase != PLAY or ex != 0 or cards == ZERO or rnd:
                nc = np.int64(popcount(cards))
                r = rng_below(rng, 0, nc + np.int64(popcount(np.uint64(ex))))
                if r < nc:
                    m = cards
                    for _ in range(r):
                        m &= m - ONE
                    a = np.int64(lowest_bit(m))
                else:
                    m = np.uint64(ex)
                    for _ in range(r - nc):
                        m &= m - ONE
                    a = 52 + np.int64(lowest_bit(m))
            else:
                a = heuristic_card(s, cfg, np.int64(s.actor), cards)
                if left != 0 and (cards & (cards - ONE)) != ZERO and (not team or (s.actor - seat) % 2 == 0):
                    a = net_card(s, cfg, np.int64(s.actor), cards, a, net, margin, scratch)
                    left -= 1
            for i in range(4):
                s.rewards[i] = 0.0
            apply_action(s, cfg, a, dummy)
            total += s.rewards[seat]
        out[b] = total


@njit(cache=True)
def replay_mismatches(st, cfg, actions, me, out):
    """Replay the public actions on every game (legal by construction) and count, per game, the
    card plays of the other seats that differ from heuristic_card there (plays with one legal card
    do not count): how far each sampled deal is from one in which the others played by the
    heuristic's rules."""
    dummy = np.zeros((4, 13), np.int8)
    for b in range(st.shape[0]):
        s = st[b]
        cnt = 0
        for k in range(actions.shape[0]):
            a = actions[k]
            if s.phase == PLAY and s.actor != me and a < 52:
                cards, ex = legal_bits(s, cfg)
                if (cards & (cards - ONE)) != ZERO and heuristic_card(s, cfg, np.int64(s.actor), cards) != a:
                    cnt += 1
            apply_action(s, cfg, a, dummy)
        out[b] = cnt


@njit(inline="always", cache=True)
def rng_next_hi(rng):
    """32 random bits (as uint64) from kernel generator rng[0]."""
    return np.uint64(rng_below(rng, 0, 4294967296))


@njit(cache=True)
def sample_hidden(pool, need, voids, forced_seat, forced_suit, k_samples, tries, seed, out):
    """Deal the unseen cards `pool` (uint64 mask) to the seats: seat s gets need[s] cards, none of a
    suit in its void mask voids[s] (bit u = suit u); forced_seat (or -1) gets one card of forced_suit
    first (CP-3.2). Most constrained cards first, each to an eligible seat with probability in
    proportion to the cards it still needs. out[k, s]: seat s's sampled cards; returns how many of the
    k_samples deals were completed (a deal is retried up to `tries` times)."""
    rng = seed_generators(seed, 1)
    cards = np.empty(52, np.int64)
    order = np.empty(52, np.int64)
    nd = np.empty(4, np.int64)
    done = 0
    for k in range(k_samples):
        ok = False
        for _ in range(tries):
            for s in range(4):
                nd[s] = need[s]
                out[k, s] = ZERO
            rest = pool
            if forced_seat >= 0:
                cand = rest & SUIT_MASKS[forced_suit]
                if cand == ZERO or nd[forced_seat] == 0:
                    return done
                m = cand
                for _ in range(rng_below(rng, 0, np.int64(popcount(cand)))):
                    m &= m - ONE
                c = np.int64(lowest_bit(m))
                out[k, forced_seat] |= _bit(c)
                nd[forced_seat] -= 1
                rest &= ~_bit(c)
            n = 0
            m = rest
            while m != ZERO:
                cards[n] = np.int64(lowest_bit(m))
                m &= m - ONE
                n += 1
            shuffle_prefix(cards, n, rng, 0)
            # stable order by the number of seats that may hold the card (most constrained first)
            w = 0
            for e in range(5):
                for i in range(n):
                    c = cards[i]
                    cnt = 0
                    for s in range(4):
                        if need[s] > 0 and ((voids[s] >> (c // 13)) & 1) == 0:
                            cnt += 1
                    if cnt == e:
                        order[w] = c
                        w += 1
            ok = True
            for i in range(n):
                c = order[i]
                tot = 0
                for s in range(4):
                    if nd[s] > 0 and ((voids[s] >> (c // 13)) & 1) == 0:
                        tot += nd[s]
                if tot == 0:
                    ok = False
                    break
                r = rng_below(rng, 0, tot)
                for s in range(4):
                    if nd[s] > 0 and ((voids[s] >> (c // 13)) & 1) == 0:
                        if r < nd[s]:
                            out[k, s] |= _bit(c)
                            nd[s] -= 1
                            break
                        r -= nd[s]
            if ok:
                break
        if not ok:
            return done
        done += 1
    return done


@njit(cache=True)
def build_orders(hidden, played, my_first5, my_rest, me, caller_fix, trump, seed, out):
    """Deal orders [K, 4, 13] for BatchGame.reset(hands=...): the searcher's first five then its
    other cards; every other seat its played and sampled cards shuffled, the caller (caller_fix, or
    -1) with a trump among his first five (CP-3.2)."""
    rng = seed_generators(seed, 1)
    buf = np.empty(13, np.int64)
    for k in range(hidden.shape[0]):
        for s in range(4):
            n = 0
            if s == me:
                m = my_first5
                while m != ZERO:
                    buf[n] = np.int64(lowest_bit(m))
                    m &= m - ONE
                    n += 1
                m = my_rest
                while m != ZERO:
                    buf[n] = np.int64(lowest_bit(m))
                    m &= m - ONE
                    n += 1
            else:
                m = hidden[k, s] | played[s]
                while m != ZERO:
                    buf[n] = np.int64(lowest_bit(m))
                    m &= m - ONE
                    n += 1
                shuffle_prefix(buf, n, rng, 0)
                if s == caller_fix:
                    for i in range(n):
                        if buf[i] // 13 == trump:
                            if i >= 5:
                                tmp = buf[0]
                                buf[0] = buf[i]
                                buf[i] = tmp
                            break
            for i in range(13):
                out[k, s, i] = buf[i]


class Situation:
    """What the public record and the agent's own observation say about the hidden hands."""

    def __init__(self, ps: dict, seat: int, obs, config: dict):
        self.seat = seat
        self.dealer = int(ps["dealer"])
        self.first_chooser = int(ps["first_chooser"])
        self.trump = ps["trump"]
        self.caller = ps["caller"]
        self.passed = bool(ps["passed"])
        self.variant = ps["variant"]
        self.config = config
        obs = np.asarray(obs)
        self.my_hand = [int(c) for c in np.flatnonzero(obs[HAND:HAND + 52] > 0.5)]
        self.my_first5 = [int(c) for c in np.flatnonzero(obs[FIRST5:FIRST5 + 52] > 0.5)]
        self.played = {s: [] for s in range(4)}
        self.voids = {s: set() for s in range(4)}
        self.plays = []                                  # public play sequence [(seat, card)]
        tricks = [t["cards"] for t in ps["tricks"]] + ([ps["current_trick"]] if ps["current_trick"] else [])
        for cards in tricks:
            led = None
            for k, (s, c) in enumerate(cards):
                c = card_index(c)
                self.plays.append((int(s), c))
                self.played[int(s)].append(c)
                if k == 0:
                    led = c // 13
                elif c // 13 != led:
                    self.voids[int(s)].add(led)
        self.hand_sizes = list(ps["hand_sizes"])
        self.supported = self._supported(ps)

    def call_supported(self, ps) -> str | None:
        """None when a trump call by the searching seat can be searched (Single / Double Sar, bazi
        episode, nothing but the call sequence so far), else the reason."""
        if ps["phase"] != "call":
            return "not a call"
        if self.variant not in ("single_sar", "double_sar"):
            return "no call in this variant"
        if self.config.get("episode", "bazi") != "bazi":
            return "match episode"
        if any(ps["change_cards_used"]):
            return "changed cards"
        return None

    def call_history(self) -> list[int]:
        """The public actions from the deal to a pending trump call."""
        return ([56] * 4 if self.config.get("change_cards", False) else []) + ([56] if self.passed else [])

    def sample_call_orders(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """k deals for a pending trump call: the searcher's first five as dealt, the 47 other cards
        (its own 8 still to come and the other hands) uniformly at random."""
        me = self.seat
        first = sorted(self.my_first5 or self.my_hand)
        rest = np.array([c for c in range(52) if c not in set(first)], np.int64)
        perm = rest[np.argsort(rng.random((k, len(rest))), axis=1)]
        out = np.zeros((k, 4, 13), np.int64)
        out[:, me, :5] = first
        out[:, me, 5:] = perm[:, :8]
        others = [s for s in range(4) if s != me]
        for i, s in enumerate(others):
            out[:, s, :] = perm[:, 8 + 13 * i:8 + 13 * (i + 1)]
        return out

    def _supported(self, ps) -> str | None:
        """None when the history can be replayed, else the reason it cannot."""
        if ps["phase"] != "play":
            return "not in play"
        if self.config.get("episode", "bazi") != "bazi":
            return "match episode"
        if self.variant == "chhupa_rang" or (self.variant == "mendi_coat" and self.config.get("mendi_trump") == "band"):
            return "face-down trump card"
        if ps["turned_card"] is not None:
            return "timed-out call"
        if ps["trump_changed"]:
            return "changed trump"
        if any(ps["change_cards_used"]):
            return "changed cards"
        if self.variant in ("single_sar", "double_sar") and self.caller is None:
            return "no caller"
        return None

    def history(self) -> list[int]:
        """The public action sequence from the deal to now."""
        acts = []
        if self.config.get("change_cards", False):
            acts += [56] * 4
        if self.variant in ("single_sar", "double_sar"):
            if self.passed:
                acts.append(56)
            acts.append(52 + int(self.trump))
            if self.config.get("change_trump", False):
                acts.append(56)
        acts += [c for _, c in self.plays]
        return acts

    def sample(self, rng: np.random.Generator, tries: int = 200) -> dict | None:
        """One deal (injection format) consistent with the public record, or None."""
        me = self.seat
        mine = set(self.my_hand) | set(self.played[me])
        known = set(mine)
        for s in range(4):
            known |= set(self.played[s])
        pool = [c for c in range(52) if c not in known]
        others = [s for s in range(4) if s != me]
        need0 = {s: self.hand_sizes[s] for s in others}
        if sum(need0.values()) != len(pool):
            return None
        needs_trump = None
        if (self.variant in ("single_sar", "double_sar") and self.config.get("trump_from_first_five", True)
                and self.caller is not None and self.caller != me
                and not any(c // 13 == self.trump for c in self.played[self.caller])):
            needs_trump = self.caller
        for _ in range(tries):
            need = dict(need0)
            hidden = {s: [] for s in others}
            rest = list(pool)
            if needs_trump is not None:
                cands = [c for c in rest if c // 13 == self.trump and self.trump not in self.voids[needs_trump]]
                if not cands or need[needs_trump] == 0:
                    return None
                c = cands[rng.integers(len(cands))]
                hidden[needs_trump].append(c)
                need[needs_trump] -= 1
                rest.remove(c)
            order = rng.permutation(len(rest))
            rest = [rest[i] for i in order]
            rest.sort(key=lambda c: sum(1 for s in others if c // 13 not in self.voids[s]))
            ok = True
            for c in rest:
                elig = [s for s in others if need[s] > 0 and c // 13 not in self.voids[s]]
                if not elig:
                    ok = False
                    break
                w = np.array([need[s] for s in elig], float)
                s = elig[rng.choice(len(elig), p=w / w.sum())]
                hidden[s].append(c)
                need[s] -= 1
            if ok:
                return self._deal(hidden, rng)
        return None

    def sample_orders(self, k: int, seed: int, tries: int = 200, given: dict | None = None) -> np.ndarray:
        """Up to k deals (int64 [k', 4, 13] deal orders, as ``BatchGame.reset(hands=...)`` takes them)
        consistent with the public record, drawn by the jitted sampler (same constraints as
        ``sample``); k' < k only when the record cannot be completed. ``given`` {seat: cards}: hands
        held now that every deal gives as they are (``benchmarks/oracle.py`` measures what seeing
        them is worth); the other seats' hands are sampled from the remaining cards."""
        me = self.seat
        given = given or {}
        mine = set(self.my_hand) | set(self.played[me])
        known = set(mine)
        for s in range(4):
            known |= set(self.played[s]) | set(given.get(s, ()))
        pool = 0
        for c in range(52):
            if c not in known:
                pool |= 1 << c
        need = np.array([0 if s == me or s in given else self.hand_sizes[s] for s in range(4)], np.int64)
        if int(need.sum()) != bin(pool).count("1"):
            return np.zeros((0, 4, 13), np.int64)
        voids = np.array([sum(1 << u for u in self.voids[s]) for s in range(4)], np.int64)
        sar = self.variant in ("single_sar", "double_sar")
        forced = -1
        if (sar and self.config.get("trump_from_first_five", True) and self.caller is not None
                and self.caller != me and self.caller not in given
                and not any(c // 13 == self.trump for c in self.played[self.caller])):
            if self.trump in self.voids[self.caller]:
                return np.zeros((0, 4, 13), np.int64)
            forced = int(self.caller)
        hidden = np.zeros((k, 4), np.uint64)
        got = int(sample_hidden(np.uint64(pool), need, voids, forced, -1 if forced < 0 else int(self.trump),
                                k, tries, seed, hidden))
        for s, cards in given.items():
            hidden[:got, s] = np.uint64(sum(1 << c for c in cards))
        played = np.array([sum(1 << c for c in self.played[s]) for s in range(4)], np.uint64)
        first5 = sum(1 << c for c in self.my_first5)
        rest = sum(1 << c for c in set(self.my_hand) | set(self.played[me])) & ~first5
        fix = int(self.caller) if sar and self.caller is not None and self.trump is not None else -1
        out = np.zeros((got, 4, 13), np.int64)
        build_orders(hidden[:got], played, np.uint64(first5), np.uint64(rest), me, fix,
                     -1 if self.trump is None else int(self.trump), seed + 1, out)
        return out

    def _deal(self, hidden, rng) -> dict:
        hands = [None] * 4
        me = self.seat
        first = list(self.my_first5)
        hands[me] = first + [c for c in self.played[me] + self.my_hand if c not in first]
        for s, cards in hidden.items():
            allc = list(self.played[s]) + list(cards)
            allc = [allc[i] for i in rng.permutation(len(allc))]
            if s == self.caller and self.variant in ("single_sar", "double_sar") and self.trump is not None:
                t = next((i for i, c in enumerate(allc) if c // 13 == self.trump), None)
                if t is not None and t >= 5:
                    allc[0], allc[t] = allc[t], allc[0]
            hands[s] = allc
        return {"hands": hands, "dealer": self.dealer}


class PIMCAgent(DeterminizedSearch):
    """Court Piece determinized search; see the module docstring. Options: ``samples`` (deals
    sampled per decision), ``rollouts`` (playouts per sample and action), ``policy`` ("heuristic" or
    "random", or a residual checkpoint ``.pt`` whose network plays the rollouts' card plays:
    ``plies`` of each playout, -1 all; ``team``: only the searcher's team), ``eps`` (random-move rate
    of heuristic rollouts), ``z``: the search overrides the
    heuristic's card only when its paired advantage over the same sampled deals exceeds ``z``
    standard errors (``z=0``: pure arg-max). ``call_samples``: deals sampled for a trump call of
    Single / Double Sar (0: the heuristic calls). ``infer``: draw ``infer x samples`` deals and keep
    the ``samples`` most consistent with the other seats having played by the heuristic's rules
    (1: no inference). ``endgame``: with at most this many tricks left, score the candidates by
    solving each sampled world exactly (``agents.courtpiece.endgame``) instead of rolling it out
    (0: never); ``nodes``: a world's solve budget, over which that world is rolled out."""

    games = ("courtpiece",)
    heuristic = CourtPieceHeuristic

    def __init__(self, game: str | None = "courtpiece", seed: int | None = None, samples: int = 64,
                 rollouts: int = 1, policy: str = "heuristic", eps: float = 0.0, z: float = 1.0,
                 call_samples: int = 256, infer: int = 4, env_config: dict | None = None, prior: str | None = None,
                 plies: int = -1, team: bool = False, endgame: int = 0, nodes: int = 20000):
        super().__init__(game, seed, z, env_config,
                         {"overrides": 0, "calls": 0, "mismatch": 0.0, "solved": 0, "unsolved": 0}, prior)
        self._solver = None
        if samples < 1 or rollouts < 1 or call_samples < 0 or infer < 1:
            raise ValueError("samples, rollouts and infer must be >= 1, call_samples >= 0")
        if not isinstance(plies, int) or isinstance(plies, bool):
            raise ValueError(f"plies must be an int, got {plies!r}")
        if not isinstance(team, bool):
            raise ValueError(f"team must be true or false, got {team!r}")
        if not isinstance(endgame, int) or isinstance(endgame, bool) or not 0 <= endgame <= 13:
            raise ValueError(f"endgame must be a number of tricks in 0..13, got {endgame!r}")
        if not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1:
            raise ValueError(f"nodes must be an int >= 1, got {nodes!r}")
        self.endgame, self.nodes = endgame, nodes
        self.net, self.net_margin, self.plies, self.team = no_net(), 0.0, int(plies), bool(team)
        if policy not in POLICIES:
            if not str(policy).endswith(".pt"):
                raise ValueError(f"policy must be one of {', '.join(map(repr, POLICIES))} or a checkpoint "
                                 f"(.pt), not {policy!r}")
            self.net, meta = jit_net(policy, "courtpiece")
            check_trained_config(policy, meta, "courtpiece", self.env_config)
            self.net_margin = float(meta.get("margin", 0.0))
        if not 0.0 <= eps <= 1.0:
            raise ValueError(f"eps must be in [0, 1], got {eps!r}")
        self.samples, self.rollouts, self.call_samples = int(samples), int(rollouts), int(call_samples)
        self.infer = int(infer)
        self.policy, self.eps = policy, float(eps)

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        self.stats["decisions"] += 1
        h = self.prior.act(observation, action_mask)
        if legal.size == 1 or self.env is None:
            return int(h) if legal.size > 1 else int(legal[0])
        ps = self.env.unwrapped.public_state()
        cfg = self._config()
        sit = Situation(ps, self.seat, observation, cfg)
        t0 = time.perf_counter()
        if self.call_samples and sit.call_supported(ps) is None and all(52 <= a <= 56 for a in legal):
            orders = sit.sample_call_orders(self.call_samples, self.rng)
            history = sit.call_history()
            self.stats["calls"] += 1
        elif sit.supported is not None or any(a >= 52 for a in legal):
            return self.fall_back(h)
        else:
            history = sit.history()
            orders = self._worlds(sit, self.samples * max(1, self.infer))
            if self.infer > 1 and len(orders) > self.samples:
                orders = self._likely(orders, sit, history, cfg)
        if len(orders) == 0:
            return self.fall_back(h)
        values, per_game = self.evaluate(sit, orders, legal, cfg, history)
        choice = self.override(self.best(values, h), h, per_game)
        self.record(t0, games=len(orders) * len(legal) * self.rollouts, values=values, choice=int(choice),
                    heuristic=int(h))
        self.stats["overrides"] += int(choice != h)
        return int(choice)

    def _worlds(self, sit: Situation, k: int) -> np.ndarray:
        """k sampled deals for a card-play decision (the hook benchmarks/oracle.py's seeing searches
        replace)."""
        return sit.sample_orders(k, int(self.rng.integers(2**31)))

    def _likely(self, orders: np.ndarray, sit: Situation, history: list, cfg: dict) -> np.ndarray:
        """The ``samples`` deals (of ``infer`` x as many drawn) in which the other seats' past plays
        differ least from the heuristic's choices (ties: in drawing order, which is random)."""
        g = self._batches.get(len(orders), cfg)
        g.reset(seed=0, hands=orders, dealers=sit.dealer)
        work = copy_records(g.records)
        cnt = np.zeros(len(orders), np.int64)
        replay_mismatches(work, g.config_array, np.asarray(history, np.int64), sit.seat, cnt)
        keep = np.argsort(cnt, kind="stable")[:self.samples]
        self.stats["mismatch"] += float(cnt[keep].mean())
        return orders[keep]

    def evaluate(self, sit: Situation, orders: np.ndarray, legal, cfg: dict, history: list | None = None):
        """Mean reward of the agent's seat after each legal action over the sampled deals (``orders``,
        [k, 4, 13]) x rollouts, and the per-deal means {action: float[k]} (paired over deals)."""
        k, a_n, r_n = len(orders), len(legal), self.rollouts
        g = self._batches.get(k, cfg)
        g.reset(seed=0, hands=orders, dealers=sit.dealer)
        g.replay(sit.history() if history is None else history)
        work = np.repeat(g.records, a_n * r_n)
        first = paired_layout(k, legal, r_n)
        out = np.zeros(len(work), np.float64)
        eps = 1.0 if self.policy == "random" else self.eps
        rest = np.arange(len(work))
        if self.endgame and g.records["phase"][0] == PLAY and 13 - g.records["ntrick"][0] <= self.endgame:
            self._solver = self._solver or solver_scratch(work.dtype)
            self.stats["solved"] += len(work)
            solve_after(work.view(np.uint64).reshape(len(work), -1), *self._solver, g.config_array, first,
                        sit.seat, self.nodes, out)
            rest = np.flatnonzero(np.isnan(out))
            self.stats["unsolved"] += len(rest)
        if len(rest):
            part = work if len(rest) == len(work) else work[rest]
            played = np.zeros(len(rest), np.float64)
            playout(part, g.config_array, first[rest], sit.seat, eps, int(self.rng.integers(2**62)), played,
                    self.net, self.net_margin, self.plies, self.team)
            out[rest] = played
        self.stats["games"] += len(work)
        per = out.reshape(k, a_n, r_n).mean(axis=2)
        per_game = {int(a): per[:, i] for i, a in enumerate(legal)}
        return {a: float(v.mean()) for a, v in per_game.items()}, per_game
