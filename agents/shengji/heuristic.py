"""Rule-based Sheng Ji agent, working from the observation vector alone (spec 9.7 layout).

Strategy:

* **Declaring**: a declaration is worth making when the suit it would make trump is long: count the
  cards that would then be trump (that suit, level cards, jokers) as a share of the cards held; declare
  at 60% (with at least 6 cards held; lower thresholds lost in duplicate A/B tests: a weak trump suit
  makes a bad bank), never overcall the partner, and in the final round declare the
  best suit anyway if nobody has declared (a void deal only wastes time). No-trump (joker pairs) only
  when it is the sole way to declare in that case. **Naming trump**: the longest suit.
* **Burying** (banker): throw away the cards least worth keeping — short side suits first (voids let
  us ruff), no trumps, no aces, no pairs, and point cards (5, 10, K) only when nothing else is left,
  since the kitty's points can be doubled for the opponents.
* **Leading**: a tractor first (a side-suit one before a trump one); else a safe throw — every master
  (unbeatable: no equal-shape higher component can still be out) single and pair of one side suit,
  led together; else a master single or pair; else a low non-point single from the shortest side
  suit, to make a void; only trumps left: the lowest.
* **Following**, point-aware: when the partner holds the trick, feed it point cards; when an
  opponent holds a single-card trick, win it with the cheapest card that beats it (a ruff when void);
  otherwise play the lowest cards, keeping point cards and trumps. The legal mask (card by card)
  enforces the pair/tractor obligations; the agent chooses among the legal cards.

The plan is a pure function of the observation (hand, current selection, table), so ``act_batch``
needs no per-game memory.
"""
from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_actions

HAND, SEL, KITTY, PLAYED, TRICK, SHOWN = 0, 54, 108, 162, 378, 594
HAND_SIZES, PHASE, LEVELS, HAND_LEVEL, BANKER, TRUMP, STANDING = 810, 814, 820, 822, 823, 828, 834
LEADER, LEAD_COUNT, POINTS, DEALT = 846, 850, 851, 853
PHASES = ("DECLARE", "NAME_TRUMP", "BURY", "LEAD", "FOLLOW", "OVER")
DONE, PASS = 54, 55
POINT = {3: 5, 8: 10, 11: 10}
DECLARE_SHARE = 0.6   # declare during the deal at this trump share (duplicate A/B: 0.6 beats 0.35 by +0.08/deal)


def card_points(c: int) -> int:
    return 0 if c >= 52 else POINT.get(c % 13, 0)


class Table:
    """Trump, level, effective suits and positions (SJ-3) for one observation."""

    def __init__(self, o):
        self.level = int(round(o[HAND_LEVEL]))
        t = int(np.argmax(o[TRUMP:TRUMP + 6])) if o[TRUMP:TRUMP + 6].max() > 0.5 else 5
        self.trump = t if t < 4 else None          # None: NT or undecided
        self.decided = t < 5

    def is_trump(self, c: int) -> bool:
        return c >= 52 or c % 13 == self.level or (self.trump is not None and c // 13 == self.trump)

    def esuit(self, c: int) -> int:
        return 4 if self.is_trump(c) else c // 13

    def pos(self, c: int) -> int:
        if c == 52:
            return 14
        if c == 53:
            return 15
        r = c % 13
        if r == self.level:
            return 13 if (self.trump is None or c // 13 == self.trump) else 12
        return r if r < self.level else r - 1


class ShengJiHeuristic(Agent):
    name = "heuristic"
    games = ("shengji",)

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        if legal.size == 1:
            return int(legal[0])
        o = np.asarray(observation, dtype=np.float64)
        phase = PHASES[int(np.argmax(o[PHASE:PHASE + 6]))]
        legal_set = set(int(a) for a in legal)
        if phase == "DECLARE":
            return self._declare(o, legal_set)
        if phase == "NAME_TRUMP":
            hand = o[HAND:HAND + 54]
            return max((a for a in legal_set if 80 <= a <= 83),
                       key=lambda a: (hand[13 * (a - 80):13 * (a - 79)].sum(), -a))
        tab = Table(o)
        hand = np.rint(o[HAND:HAND + 54]).astype(int)
        sel = np.rint(o[SEL:SEL + 54]).astype(int)
        if phase == "BURY":
            return self._bury(o, tab, hand, sel, legal_set)
        if phase == "LEAD":
            return self._lead(o, tab, hand, sel, legal_set)
        return self._follow(o, tab, hand, sel, legal_set)

    # ---- declaring ----------------------------------------------------------------------------------
    def _declare(self, o, legal_set):
        hand = np.rint(o[HAND:HAND + 54]).astype(int)
        held = int(hand.sum())
        level = int(round(o[HAND_LEVEL]))
        standing = o[STANDING:STANDING + 12]
        who = int(np.argmax(standing[:5]))             # 0..3 relative seat, 4 = none
        if who == 2:
            return PASS
        jokers = hand[52] + hand[53]
        levels = sum(hand[13 * s + level] for s in range(4))

        def share(s):
            suit = sum(hand[13 * s + r] for r in range(13) if r != level)
            return (suit + levels + jokers) / max(1, held)

        options = [a for a in legal_set if 56 <= a <= 71]
        best = max(options, key=lambda a: (share((a - 56) // 4), (a - 56) % 4, -a)) if options else None
        final = held >= 12 and int(round(o[DEALT])) >= 4 * held
        if best is not None and who != 0:
            if (held >= 6 and share((best - 56) // 4) >= DECLARE_SHARE) or (final and who == 4):
                return best
        if final and who == 4 and best is None:
            nt = [a for a in legal_set if 72 <= a <= 79]
            if nt:
                return min(nt)
        return PASS

    # ---- burying ------------------------------------------------------------------------------------
    def _bury(self, o, tab, hand, sel, legal_set):
        rest = hand - sel
        length = {s: sum(rest[c] for c in range(54) if not tab.is_trump(c) and c // 13 == s) for s in range(4)}

        def keep(c):
            v = 0.0
            if tab.is_trump(c):
                v += 100 + tab.pos(c)
            else:
                v += 2.0 * length[c // 13] + tab.pos(c) * 0.5
                if c % 13 == 12:
                    v += 25
            if card_points(c):
                v += 30
            if rest[c] >= 2:
                v += 20
            return v

        cards = [a for a in legal_set if a < 54]
        return min(cards, key=lambda c: (keep(c), c))

    # ---- helpers --------------------------------------------------------------------------------------
    @staticmethod
    def _decks(o) -> int:
        known = o[HAND_SIZES:HAND_SIZES + 4].sum() + o[PLAYED:PLAYED + 216].sum()
        return max(1, int(round((known + 7) / 54)))

    def _outstanding(self, o, hand) -> np.ndarray:
        d = self._decks(o)
        played = np.rint(o[PLAYED:PLAYED + 216]).reshape(4, 54).sum(axis=0)
        out = d - played - hand
        return np.maximum(out, 0)

    def _components(self, tab, hand, suit):
        """Pairs-or-better and singles of one effective suit: list of (card, count) by pos."""
        return sorted(((c, int(hand[c])) for c in range(54) if hand[c] > 0 and tab.esuit(c) == suit),
                      key=lambda x: (tab.pos(x[0]), x[0]))

    def tractors(self, tab, hand, suit):
        """Longest runs of pairs on consecutive positions (SJ-6.2) in effective suit ``suit`` (0..4) of
        ``hand`` (card counts [54]), as card lists; ``tab``: the ``Table`` of the observation. The
        search agent's candidate leads use it too."""
        pairs = [c for c, k in self._components(tab, hand, suit) if k >= 2]
        by_pos = {}
        for c in pairs:
            by_pos.setdefault(tab.pos(c), c)
        runs, cur = [], []
        for p in sorted(by_pos):
            if cur and p == tab.pos(cur[-1]) + 1:
                cur.append(by_pos[p])
            else:
                if len(cur) >= 2:
                    runs.append(cur)
                cur = [by_pos[p]]
        if len(cur) >= 2:
            runs.append(cur)
        return runs

    def _master(self, tab, out, c, k) -> bool:
        """No outstanding component of k copies of a higher card in c's effective suit."""
        s, p = tab.esuit(c), tab.pos(c)
        return not any(out[x] >= k and tab.esuit(x) == s and tab.pos(x) > p for x in range(54))

    def _next_of(self, plan, sel, legal_set):
        need = {}
        for c in plan:
            need[c] = need.get(c, 0) + 1
        for c in sorted(need):
            if sel[c] < need[c] and c in legal_set:
                return c
        return None

    # ---- leading --------------------------------------------------------------------------------------
    def _lead(self, o, tab, hand, sel, legal_set):
        plan = self._lead_plan(o, tab, hand)
        if sel.sum() > 0 and all(sel[c] <= plan.count(c) for c in range(54)):
            nxt = self._next_of(plan, sel, legal_set)
            if nxt is not None:
                return nxt
            if DONE in legal_set:
                return DONE
        elif sel.sum() > 0:
            return DONE if DONE in legal_set else min(legal_set)
        nxt = self._next_of(plan, sel, legal_set)
        if nxt is not None:
            return nxt
        return min(a for a in legal_set if a < 54)

    def _lead_plan(self, o, tab, hand) -> list[int]:
        out = self._outstanding(o, hand)
        side = [s for s in range(4) if any(hand[c] > 0 and tab.esuit(c) == s for c in range(54))]
        for suits in (side, [4]):
            best = None
            for s in suits:
                for run in self.tractors(tab, hand, s):
                    key = (len(run), tab.pos(run[-1]))
                    if best is None or key > best[0]:
                        best = (key, run)
            if best is not None:
                return [c for c in best[1] for _ in range(2)]
        # safe throw or master lead in a side suit
        best_plan, best_key = None, None
        for s in side:
            plan = []
            for c, k in self._components(tab, hand, s):
                if k >= 2 and self._master(tab, out, c, 2):
                    plan += [c, c]
                elif self._master(tab, out, c, 1):
                    plan.append(c)
            if plan:
                key = (len(plan), sum(card_points(c) for c in plan))
                if best_key is None or key > best_key:
                    best_plan, best_key = plan, key
        if best_plan:
            return best_plan
        length = {s: sum(hand[c] for c in range(54) if tab.esuit(c) == s) for s in side}
        cands = [c for c in range(54) if hand[c] > 0 and tab.esuit(c) in length]
        if cands:
            c = min(cands, key=lambda c: (card_points(c) > 0, length[tab.esuit(c)], tab.pos(c), c))
            return [c]
        trumps = [c for c in range(54) if hand[c] > 0]
        return [min(trumps, key=lambda c: (card_points(c) > 0, tab.pos(c), c))]

    # ---- following ----------------------------------------------------------------------------------
    def _follow(self, o, tab, hand, sel, legal_set):
        cards = [a for a in legal_set if a < 54]
        trick = np.rint(o[TRICK:TRICK + 216]).reshape(4, 54).astype(int)
        leader = int(np.argmax(o[LEADER:LEADER + 4]))
        n = int(round(o[LEAD_COUNT]))
        lead_cards = [c for c in range(54) for _ in range(trick[leader][c])]
        if not lead_cards:
            return min(cards, key=lambda c: (card_points(c) > 0, tab.is_trump(c), tab.pos(c), c))
        led = tab.esuit(lead_cards[0])
        order = [(leader + k) % 4 for k in range(4)]
        best_seat, best_top, best_trump = leader, max(tab.pos(c) for c in lead_cards), led == 4
        for r in order[1:]:
            if r == 0:
                break
            play = [c for c in range(54) for _ in range(trick[r][c])]
            if not play:
                continue
            es = {tab.esuit(c) for c in play}
            if len(es) != 1:
                continue
            e = es.pop()
            top = max(tab.pos(c) for c in play)
            if n == 1 or e == 4:
                if (e == 4 and not best_trump) or (e == (4 if best_trump else led) and top > best_top):
                    best_seat, best_top, best_trump = r, top, e == 4
        partner_wins = best_seat == 2
        last = order[-1] == 0

        def low(c):
            return (card_points(c) > 0, tab.is_trump(c), tab.pos(c), c)

        if partner_wins and (last or best_trump or n > 1 or self._master(tab, self._outstanding(o, hand),
                                                                          [c for c in range(54) if trick[2][c]][0], 1)):
            return max(cards, key=lambda c: (card_points(c), -tab.is_trump(c), -tab.pos(c), -c))
        if n == 1 and not partner_wins:
            winners = []
            for c in cards:
                e = tab.esuit(c)
                if (e == 4 and not best_trump) or (e == (4 if best_trump else led) and tab.pos(c) > best_top):
                    winners.append(c)
            if winners:
                return min(winners, key=lambda c: (tab.is_trump(c), tab.pos(c), c))
        return min(cards, key=low)
