"""How much is knowing the other hands worth to Court Piece's search? A ceiling for inference.

    python -m benchmarks.oracle --deals 1000 --seed 22
    python -m benchmarks.oracle --deals 1000 --seed 22 --samples 8 --eps 0.1 --z 0
    python -m benchmarks.oracle --deals 1000 --seed 22 --sees partner

The determinized search (``pimc``) deals the cards it cannot see at random, under the constraints
the public record sets (``agents.courtpiece.search``). ``SeeingSearch`` is the same search given the
one thing no real player has: at every card-play decision each of its worlds is the true deal, read
from the env's ``hand(seat)`` for every seat. Its trump calls are searched honestly, as ``pimc``'s
are, so the match measures card play alone. Its duplicate win rate against ``pimc`` bounds what any
better guess at the hidden hands (a model of the other players, a learned belief) could add to this
search; docs/training.md reports it.

``--sees partner`` gives the search its partner's hand only: its worlds are ``pimc``'s (the same
sampler, inference and settings) with the partner's cards as they are, the opponents' hands sampled.
That bounds what any partnership agreement (signals in the choice of equal cards, discards) could
tell a searcher.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from agents import make_agent
from agents.arena import duplicate_match, format_table
from agents.base import legal_actions
from agents.cli import match_json
from agents.courtpiece.search import PIMCAgent, Situation
from cardzoo.cards import card_index


class SeeingSearch(PIMCAgent):
    """``pimc`` whose card-play worlds are all the true deal (it reads every seat's hand)."""

    name = "seeing"

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        env = self.env.unwrapped if self.env is not None else None
        ps = None if env is None or legal.size == 1 else env.public_state()
        sit = None if ps is None or ps["phase"] != "play" else Situation(ps, self.seat, observation, self._config())
        if sit is None or sit.supported is not None or any(a >= 52 for a in legal):
            return super().act(observation, action_mask)
        self.stats["decisions"] += 1
        h = self.prior.act(observation, action_mask)
        t0 = time.perf_counter()
        hidden = {s: [card_index(c) for c in env.hand(s)] for s in range(4) if s != self.seat}
        deal = sit._deal(hidden, self.rng)
        orders = np.repeat(np.asarray(deal["hands"], np.int64)[None], self.samples, axis=0)
        values, per_game = self.evaluate(sit, orders, legal, self._config(), sit.history())
        choice = self.override(self.best(values, h), h, per_game)
        self.record(t0, games=len(orders) * len(legal) * self.rollouts, values=values, choice=int(choice),
                    heuristic=int(h))
        return int(choice)


class PartnerSeeingSearch(PIMCAgent):
    """``pimc`` whose card-play worlds all give its partner the partner's true hand."""

    name = "partner-seeing"

    def _worlds(self, sit: Situation, k: int) -> np.ndarray:
        partner = (self.seat + 2) % 4
        given = {partner: [card_index(c) for c in self.env.unwrapped.hand(partner)]}
        return sit.sample_orders(k, int(self.rng.integers(2**31)), given=given)


SEES = {"all": SeeingSearch, "partner": PartnerSeeingSearch}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=22, help="the deals' seed")
    ap.add_argument("--samples", type=int, default=64, help="worlds a decision")
    ap.add_argument("--eps", type=float, default=None,
                    help="random-move rate of the rollouts (default 0.1 when it sees all, where identical "
                         "worlds differ only by it; pimc's 0 when it sees the partner)")
    ap.add_argument("--z", type=float, default=1.0, help="the override test's standard errors")
    ap.add_argument("--sees", choices=sorted(SEES), default="all",
                    help="every hand (worlds: the true deal), or the partner's only (the opponents' sampled)")
    ap.add_argument("--opponent", default="pimc", help="agent spec of the opponent")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object on the last line "
                                                        "(as `cardzoo arena --json`)")
    args = ap.parse_args(argv)
    eps = args.eps if args.eps is not None else 0.1 if args.sees == "all" else 0.0
    a = SEES[args.sees]("courtpiece", seed=1, samples=args.samples, eps=eps, z=args.z)
    a.label = f"{a.name}:samples={args.samples},eps={eps},z={args.z}"
    b = make_agent(args.opponent, "courtpiece", seed=2)
    t0 = time.perf_counter()
    res = duplicate_match("courtpiece", a, b, deals=args.deals, seed=args.seed)
    print(format_table([res.row()]))
    print(f"{time.perf_counter() - t0:.0f} s")
    if args.json:  # the record `cardzoo arena --json` prints
        print(json.dumps(match_json(res, {})))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
