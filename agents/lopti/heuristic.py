"""Rule-based LOPTI agent, working from the observation vector alone (spec 3.5 layout).

Strategy:

* **Swap phase**: put the most valuable cards face up (they are played last and must still be
  playable then): swap a hand rank into a face-up slot whenever it is worth more there; value
  order, low to high: ordinary ranks 4..A by rank, then the low card (7), the 3, the 2, the clear
  card (10).
* **Shed low**: play the lowest ordinary rank that is legal, all copies at once (fewer cards held,
  and a multiple is harder to answer). A play that completes a set of four, or a clear, is taken
  first when it throws away only ordinary cards: it clears the pile and gives an extra move.
* **Keep the specials for when they matter**: 2, 7, 10 and 3 are played only when no ordinary rank
  is legal (or in the end game, once the draw pile is empty and the hand is small): against a big
  pile the 3 passes the pick-up on and the 10 burns it; otherwise the 7 (it pins the next player
  low), then the 2, then the 3, then the 10. One special card at a time.
* **Pick up** only when nothing else is legal, or under a 3 obligation without a 3; in the blind
  stage a flip is always tried (a pile can still be picked up after a failed flip).
* **Session layer** (votes, rule making, rock-paper-scissors): seeded uniform choice among the
  legal actions, passing on proposals.
"""
from __future__ import annotations

import numpy as np

from agents.base import Agent, legal_actions

PHASE, N_PLAYERS = 0, 3
HAND = 5
UP = 98
PILE_SIZE, DRAW_SIZE, CHAIN, OBLIGATION, LIMIT, MOVE_KIND = 154, 155, 156, 157, 158, 159
TOP = 160
SWITCHES = 191
PICKUP, FLIP0, SWAP0, KEEP, PASS = 52, 53, 56, 95, 96


def rank_value(r: int, clear_rank: int, low_rank: int) -> float:
    """How much a card of rank r is worth keeping (higher = keep longer)."""
    if r == clear_rank:
        return 20.0
    if r == 0:
        return 18.0
    if r == 1:
        return 16.0
    if r == low_rank:
        return 14.0
    return float(r)


class LoptiHeuristic(Agent):
    name = "heuristic"
    games = ("lopti",)

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        if legal.size == 1:
            return int(legal[0])
        o = np.asarray(observation, dtype=np.float64)
        phase = int(round(o[PHASE]))
        cr, lr = int(round(o[SWITCHES])), int(round(o[SWITCHES + 1]))
        ss = int(round(o[SWITCHES + 3])) or 4
        legal_set = set(int(a) for a in legal)
        if phase == 0:
            return self._swap(o, legal_set, cr, lr)
        if phase == 1:
            return self._play(o, legal_set, cr, lr, ss)
        if PASS in legal_set:
            return PASS
        return int(legal[self.rng.integers(legal.size)])

    def _swap(self, o, legal_set, cr, lr):
        best, gain = KEEP, 0.0
        for a in legal_set:
            if SWAP0 <= a < KEEP:
                r, j = divmod(a - SWAP0, 3)
                up = int(round(o[UP + j])) - 1
                if up < 0:
                    continue
                d = rank_value(r, cr, lr) - rank_value(up, cr, lr)
                if d > gain:
                    best, gain = a, d
        return best

    def _play(self, o, legal_set, cr, lr, ss):
        plays, fewest = {}, {}
        for a in legal_set:
            if a < 52:
                r, k = divmod(a, 4)
                plays[r] = max(plays.get(r, 0), k + 1)
                fewest[r] = min(fewest.get(r, 5), k + 1)
        flips = sorted(a for a in legal_set if FLIP0 <= a < FLIP0 + 3)
        pile = int(round(o[PILE_SIZE]))
        if not plays:
            if flips and not (o[OBLIGATION] > 0.5 and PICKUP in legal_set):
                return flips[0]
            return PICKUP if PICKUP in legal_set else min(legal_set)
        top_rank = int(round(o[TOP])) - 1
        run = int(round(o[TOP + 2]))
        hand = o[HAND:HAND + 13]
        hand_size = int(hand.sum())
        endgame = o[DRAW_SIZE] < 0.5 and hand_size <= 4
        special = {0, 1, cr, lr}
        ordinary = sorted(r for r in plays if r not in special)
        # a set of four completed with ordinary cards clears the pile and gives an extra move
        for r in ordinary:
            if pile > 0 and r == top_rank and run + plays[r] >= ss:
                return 4 * r + plays[r] - 1
        # (every count from fewest[r] to plays[r] is legal for an ordinary rank: more cards only help)
        if ordinary:
            r = ordinary[0]
            return 4 * r + plays[r] - 1
        if endgame:
            r = max(plays, key=lambda x: -rank_value(x, cr, lr))
            return 4 * r + plays[r] - 1
        order = [lr, 0, 1, cr]
        if pile >= 4:
            order = [1, cr, lr, 0]
        for r in order:
            if r in plays:
                return 4 * r + fewest[r] - 1  # as few special cards as the table allows
        return PICKUP if PICKUP in legal_set else min(legal_set)
