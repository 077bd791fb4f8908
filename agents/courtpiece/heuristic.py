"""Rule-based Court Piece / Mendi Coat agent, working from the observation vector alone.

Strategy (every variant of `courtpiece_env`):

* **Change cards** (Rung Royal extra): change a first five holding fewer than 4 honour points
  (A=4, K=3, Q=2, J=1), else keep.
* **Trump call** from the first five: score each allowed suit as length + honours (A 1.5, K 1,
  Q .6, J .3) and name the best; the first chooser passes to his partner when even his best suit
  is weak (score < 2.6: two cards below the queen). **Hiding** (Chhupa Rang, Band) puts the lowest card of
  that best suit face down, keeping its high cards playable. **Change trump**: switch only to a suit
  at least 2 points better over all 13 cards.
* **Leading**: with 3+ trumps and the top trump, draw trumps; else cash a master (the highest
  outstanding card of a side suit); otherwise lead low from the longest side suit (never a ten in Mendi Coat
  when avoidable). A Chhupa hider holding 3+ cards of his secret suit lead-reveals.
* **Following**, partner-aware: when the partner's card already wins safely (we play last, or it
  is a master), play low — or, in Mendi Coat, drop a ten on it to bank it. Otherwise win as cheaply
  as safety allows: last to play, the cheapest winning card; third hand, the cheapest winning
  master, else the highest winner; second hand, only a winning master, else low. In Mendi Coat any
  trick holding a ten is captured with the cheapest winner whatever the position.
* **Trump economy**: ruff with the lowest trump that beats the trick, never ruff a trick the
  partner holds, discard from the shortest side suit when we cannot win, and keep tens away from
  tricks the opponents win (Mendi Coat).
* **Be-Rang / Katte**: the first off-suit card sets trump, so a void player plays the lowest card
  of his strongest suit (that card wins the trick and fixes the trump he wants).
* **Ask reveal** (Chhupa): ask when void and an opponent is winning.

Observation layout (spec 3.4): blocks of 52 — own hand, own first five, own face-down card, cards
given back, played by relative seat (4x), current trick by relative seat (4x), turned, shown,
trump-setting card, trick numbers — then the 84 scalars.
"""
from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_actions

HAND, FIRST5, FACEDOWN = 0, 52, 104
PLAYED, TRICK = 208, 416
SC = 832
VARIANT = SC               # 5: single_sar, double_sar, chhupa_rang, be_rang, mendi_coat
PHASE = SC + 7             # 7: change_cards, call, hide, band_hide, change_trump, play, over
TRUMP = SC + 14            # 4
DEALER, FIRST_CHOOSER, ACTOR, CALLER, HIDDEN_OWNER, LEADER, RUN_HOLDER = (SC + 18 + 4 * i for i in range(7))
PHASES = ("change_cards", "call", "hide", "band_hide", "change_trump", "play", "over")
VARIANTS = ("single_sar", "double_sar", "chhupa_rang", "be_rang", "mendi_coat")
PASS, ASK, LEAD_REVEAL, CHANGE_CARDS = 56, 57, 58, 59
HONOUR = {12: 1.5, 11: 1.0, 10: 0.6, 9: 0.3}
HONOUR_PTS = {12: 4, 11: 3, 10: 2, 9: 1}
TEN = 8
PASS_BELOW = 2.6      # pass the call when the best suit is two cards below the queen (tuned by duplicate A/B)
TRUMP_DRAW = 3        # draw trumps holding this many and the top one


def _cards(block) -> list[int]:
    return [int(c) for c in np.flatnonzero(np.asarray(block) > 0.5)]


def _onehot(obs, start, n):
    v = obs[start:start + n]
    return int(np.argmax(v)) if v.max() > 0.5 else None


class CPView:
    """The parts of one Court Piece observation the heuristic and the search agent use."""

    def __init__(self, obs):
        obs = np.asarray(obs, dtype=np.float32)
        self.obs = obs
        self.hand = _cards(obs[HAND:HAND + 52])
        self.first5 = _cards(obs[FIRST5:FIRST5 + 52])
        self.facedown = _cards(obs[FACEDOWN:FACEDOWN + 52])
        self.played = [_cards(obs[PLAYED + 52 * r:PLAYED + 52 * (r + 1)]) for r in range(4)]
        self.trick = [_cards(obs[TRICK + 52 * r:TRICK + 52 * (r + 1)]) for r in range(4)]
        self.variant = VARIANTS[_onehot(obs, VARIANT, 5) or 0]
        p = _onehot(obs, PHASE, 7)
        self.phase = PHASES[p] if p is not None else "over"
        self.trump = _onehot(obs, TRUMP, 4)
        self.leader = _onehot(obs, LEADER, 4)
        self.hidden_owner = _onehot(obs, HIDDEN_OWNER, 4)
        seen = set(self.hand) | set(self.facedown)
        for r in range(4):
            seen |= set(self.played[r]) | set(self.trick[r])
        self.outstanding = [c for c in range(52) if c not in seen]
        # the current trick in play order: [(relative seat, card)]
        self.current = []
        if self.leader is not None:
            for k in range(4):
                r = (self.leader + k) % 4
                if r == 0 or not self.trick[r]:
                    break
                self.current.append((r, self.trick[r][0]))


def suit_score(cards, suit) -> float:
    return sum(1.0 + HONOUR.get(c % 13, 0.0) for c in cards if c // 13 == suit)


def beats(a: int, b: int, led: int, trump) -> bool:
    """Card a beats card b in a trick whose led suit is `led`."""
    sa, sb = a // 13, b // 13
    if trump is not None and sa == trump and sb != trump:
        return True
    if trump is not None and sb == trump and sa != trump:
        return False
    if sa == sb:
        return a % 13 > b % 13
    return sa == led and sb != led


def trick_winner(current, trump):
    led = current[0][1] // 13
    best_seat, best = current[0]
    for seat, c in current[1:]:
        if beats(c, best, led, trump):
            best_seat, best = seat, c
    return best_seat, best, led


class CourtPieceHeuristic(Agent):
    name = "heuristic"
    games = ("courtpiece",)

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        if legal.size == 1:
            return int(legal[0])
        v = CPView(observation)
        legal_set = set(int(a) for a in legal)
        if CHANGE_CARDS in legal_set:
            pts = sum(HONOUR_PTS.get(c % 13, 0) for c in v.hand)
            return CHANGE_CARDS if pts < 4 else PASS
        calls = [a for a in legal_set if 52 <= a <= 55]
        cards = sorted(a for a in legal_set if a < 52)
        if v.phase == "change_trump":
            return self._change_trump(v, calls, cards, legal_set)
        if calls:
            return self._call(v, calls, legal_set)
        if v.phase in ("hide", "band_hide"):
            return self._hide(v, cards, legal_set)
        return self._play(v, cards, legal_set)

    # ---- bidding ----------------------------------------------------------------------------------
    def _call(self, v, calls, legal_set):
        first = v.first5 or v.hand
        best = max(calls, key=lambda a: (suit_score(first, a - 52), -a))
        if PASS in legal_set and suit_score(first, best - 52) < PASS_BELOW:
            return PASS
        return best

    def _hide(self, v, cards, legal_set):
        first = [c for c in cards]
        suits = sorted({c // 13 for c in first}, key=lambda s: (-suit_score(v.first5 or first, s), s))
        best = suits[0]
        if PASS in legal_set and suit_score(v.first5 or first, best) < PASS_BELOW:
            return PASS
        return min(c for c in first if c // 13 == best)

    def _change_trump(self, v, calls, cards, legal_set):
        if calls and v.trump is not None:
            cur = suit_score(v.hand, v.trump)
            best = max(calls, key=lambda a: (suit_score(v.hand, a - 52), -a))
            if suit_score(v.hand, best - 52) >= cur + 2.0:
                return best
        return PASS

    # ---- play -------------------------------------------------------------------------------------
    def _play(self, v, cards, legal_set):
        mendi = v.variant == "mendi_coat"
        trump = v.trump
        if not cards:
            return min(legal_set)
        if not v.current:
            return self._lead(v, cards, legal_set, mendi)
        pos = len(v.current)
        win_seat, best, led = trick_winner(v.current, trump)
        partner_winning = win_seat == 2
        has_ten = any(c % 13 == TEN for _, c in v.current)
        if ASK in legal_set and not partner_winning:
            if not v.facedown or any(c // 13 == v.facedown[0] // 13 for c in v.hand):
                return ASK
        winners = [c for c in cards if beats(c, best, led, trump)]
        following = any(c // 13 == led for c in cards)
        if partner_winning and (pos == 3 or self._master(v, best)):
            if mendi:
                tens = [c for c in cards if c % 13 == TEN]
                if tens:
                    return tens[0]
            return self._low(v, cards, trump, following, mendi)
        if trump is None and not following and self._sets_trump(v):
            return self._setter(v, cards)
        if winners:
            if mendi and has_ten or pos == 3:
                return min(winners, key=lambda c: self._cost(c, trump))
            masters = [c for c in winners if self._master(v, c)]
            if masters:
                return min(masters, key=lambda c: self._cost(c, trump))
            if trump is not None and not following:
                return min(winners, key=lambda c: self._cost(c, trump))
            if pos == 2 and not partner_winning:
                return max(winners, key=lambda c: c % 13)
        return self._low(v, cards, trump, following, mendi)

    def _sets_trump(self, v) -> bool:
        """Be-Rang / Katte: no trump yet, and an off-suit card now would fix it."""
        return v.variant == "be_rang" or (v.variant == "mendi_coat" and v.obs[SC + 5] > 0.5)

    def _setter(self, v, cards):
        suits = sorted({c // 13 for c in cards}, key=lambda s: (-suit_score(cards, s), s))
        return min(c for c in cards if c // 13 == suits[0])

    @staticmethod
    def _cost(c, trump):
        return (1 if trump is not None and c // 13 == trump else 0, c % 13)

    def _master(self, v, c) -> bool:
        s, r = c // 13, c % 13
        return not any(o // 13 == s and o % 13 > r for o in v.outstanding)

    def _low(self, v, cards, trump, following, mendi):
        if following:
            pool = cards
        else:
            side = [c for c in cards if trump is None or c // 13 != trump]
            pool = side or cards
        if mendi:
            no_ten = [c for c in pool if c % 13 != TEN]
            pool = no_ten or pool
        length = {s: sum(1 for c in v.hand if c // 13 == s) for s in range(4)}
        return min(pool, key=lambda c: (c % 13, length[c // 13], c))

    def _lead(self, v, cards, legal_set, mendi):
        trump = v.trump
        if LEAD_REVEAL in legal_set and v.facedown:
            secret = v.facedown[0] // 13
            if sum(1 for c in v.hand if c // 13 == secret) >= 3:
                return LEAD_REVEAL
        if trump is not None:
            mine = [c for c in cards if c // 13 == trump]
            if len(mine) >= TRUMP_DRAW and self._master(v, max(mine)) and any(o // 13 == trump for o in v.outstanding):
                return max(mine)
        masters = [c for c in cards if (trump is None or c // 13 != trump) and self._master(v, c)
                   and any(o // 13 == c // 13 for o in v.outstanding)]
        if masters:
            return max(masters, key=lambda c: (c % 13 != TEN, c % 13))
        side = [c for c in cards if trump is None or c // 13 != trump] or cards
        if mendi:
            side = [c for c in side if c % 13 != TEN] or side
        length = {s: sum(1 for c in v.hand if c // 13 == s) for s in range(4)}
        return min(side, key=lambda c: (-length[c // 13], c % 13, c))


_RANK = np.tile(np.arange(13, dtype=np.int64), 4)
_SUIT = np.repeat(np.arange(4, dtype=np.int64), 13)


def greedy_batch(obs, masks, rng: np.random.Generator | None = None, eps: float = 0.0) -> np.ndarray:
    """A vectorized one-line Court Piece play policy for search rollouts (numpy over the batch).

    Leading: the highest side-suit card (a trump only when nothing else is left). Following: when the
    partner holds the trick, the lowest card; else the cheapest card that wins it; else the lowest
    card, side suits before trumps. Non-card decisions (calls, reveals) and, with probability `eps`,
    any decision are uniform over the legal actions."""
    obs = np.asarray(obs, dtype=np.float32)
    masks = np.asarray(masks)
    n = len(masks)
    cards = masks[:, :52] > 0
    trump_oh = obs[:, TRUMP:TRUMP + 4] > 0.5
    has_trump = trump_oh.any(axis=1)
    trump = np.where(has_trump, trump_oh.argmax(axis=1), -1)
    leader_oh = obs[:, LEADER:LEADER + 4] > 0.5
    leader = np.where(leader_oh.any(axis=1), leader_oh.argmax(axis=1), 0)
    trick = obs[:, TRICK:TRICK + 208].reshape(n, 4, 52) > 0.5
    leading = ~trick.any(axis=(1, 2))
    lead_card = trick[np.arange(n), leader].argmax(axis=1)
    led = _SUIT[lead_card]
    is_trump = _SUIT[None, :] == trump[:, None]
    is_led = _SUIT[None, :] == led[:, None]
    strength = _RANK[None, :] + 13 * is_led + 26 * is_trump          # only cards that can win score > 12
    tstr = np.where(trick, strength[:, None, :], -1).max(axis=2)       # [n, 4] by relative seat
    best_seat = tstr.argmax(axis=1)
    best = tstr.max(axis=1)
    partner = (best_seat == 2) & ~leading
    big = 1000
    low_key = np.where(cards, strength - 13 * is_led + 40 * is_trump, big)   # side suits first, then by rank
    win_key = np.where(cards & (strength > best[:, None]) & (strength >= 13), strength, big)
    lead_key = np.where(cards, -(_RANK[None, :] - 40 * is_trump), big)
    act = np.where(leading, lead_key.argmin(axis=1),
                   np.where(partner | (win_key.min(axis=1) >= big), low_key.argmin(axis=1), win_key.argmin(axis=1)))
    rnd = None
    no_card = ~cards.any(axis=1)
    explore = no_card if rng is None or eps <= 0 else (no_card | (rng.random(n) < eps))
    if explore.any():
        rng = rng or np.random.default_rng(0)
        u = rng.random(masks.shape)
        u[masks == 0] = -1.0
        rnd = u.argmax(axis=1)
        act = np.where(explore, rnd, act)
    return act.astype(np.int64)


class CourtPieceGreedy(Agent):
    """The vectorized rollout policy as an agent (``greedy_batch``; bids like the heuristic)."""

    name = "greedy"
    games = ("courtpiece",)

    def __init__(self, game=None, seed=None):
        super().__init__(game, seed)
        self._bidder = CourtPieceHeuristic(game, seed)

    def act_batch(self, obs, masks) -> np.ndarray:
        obs = np.asarray(obs)
        masks = np.asarray(masks)
        act = greedy_batch(obs, masks)
        bidding = ~(masks[:, :52] > 0).any(axis=1) | (obs[:, PHASE + 5] < 0.5)
        for i in np.flatnonzero(bidding):
            act[i] = self._bidder.act(obs[i], masks[i])
        return act

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])
