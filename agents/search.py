"""Determinized search (Perfect-Information Monte Carlo) for Court Piece.

At each card-play decision the agent

1. **samples hidden hands** consistent with everything public: the cards each seat has played
   (they were in its hand), each seat's hand size, the voids a seat showed by failing to follow suit
   (it can never hold that suit again), and the trump call (CP-3.2: the caller's first five held a
   card of the suit he named). Its own 13 cards and first five come from its observation; no private
   state of other seats is read;
2. **replays the public history** on the sampled deal: the sampled deals are injected with
   ``BatchGame.reset(deals=...)`` and every game is stepped through the public action sequence (the
   pass and the call, every card played so far), so each game reaches exactly the agent's
   information set — its observation in every sampled world equals the real one;
3. **evaluates every legal action** by batched rollouts: ``samples x actions x rollouts`` games in
   one ``BatchGame``, each legal action applied in its share of them, then all of them are played to
   the end — ``policy="random"``: one jitted ``BatchGame.rollout()`` call (uniform random play);
   ``policy="greedy"`` (default): ``greedy_batch``, a vectorized numpy play policy (cheapest winning
   card, low when the partner holds the trick) with ``eps`` random moves, one ``BatchGame.step`` per
   ply for the whole batch. The action with the best mean reward for the agent's seat is played
   when it beats the heuristic's card by ``z`` standard errors of the paired difference over the
   same sampled deals (else the heuristic's card, so sampling noise does not override it). Greedy
   rollouts cost more per game than the jitted random ones (one Python step per ply).

Bidding, hiding and the other non-play decisions use the Court Piece heuristic, as do positions
the sampler cannot reconstruct from the public record (Chhupa Rang and Band face-down cards, a
timed-out call, a changed trump or changed cards, match episodes) — ``fallbacks`` counts them.
``stats`` totals the games rolled out (``rollouts_per_s`` over all searched decisions) and ``last``
holds the latest decision's games, seconds, rollouts per second and action values.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from agents.base import Agent, legal_actions
from agents.courtpiece_heuristic import FIRST5, HAND, CourtPieceHeuristic, greedy_batch
from cardzoo.cards import card_index
from cardzoo.registry import make_batch


def _cards(texts) -> list[int]:
    return [card_index(t) for t in texts]


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


class PIMCAgent(Agent):
    """Court Piece determinized search; see the module docstring. Options: ``samples`` (deals
    sampled per decision), ``rollouts`` (playouts per sample and action), ``policy`` ("greedy" or
    "random"), ``eps`` (random-move rate of greedy rollouts), ``z``: the search overrides the
    heuristic's card only when its paired advantage over the same sampled deals exceeds ``z``
    standard errors (``z=0``: pure arg-max)."""

    name = "pimc"
    needs_env = True
    games = ("courtpiece",)

    def __init__(self, game: str | None = "courtpiece", seed: int | None = None, samples: int = 16,
                 rollouts: int = 1, policy: str = "greedy", eps: float = 0.1, z: float = 1.0,
                 env_config: dict | None = None):
        super().__init__(game, seed)
        if samples < 1 or rollouts < 1:
            raise ValueError("samples and rollouts must be >= 1")
        if policy not in ("random", "greedy"):
            raise ValueError(f"policy must be 'random' (BatchGame.rollout) or 'greedy', not {policy!r}")
        self.samples, self.rollouts = int(samples), int(rollouts)
        self.policy, self.eps, self.z = policy, float(eps), float(z)
        self.env_config = dict(env_config) if env_config is not None else None
        self.fallback = CourtPieceHeuristic(game, seed)
        self.stats = {"decisions": 0, "searched": 0, "fallbacks": 0, "games": 0, "seconds": 0.0,
                      "rollout_decisions": 0}
        self.last: dict = {}          # the latest searched decision: games, seconds, rollouts/s, values

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.fallback.reset(seed)

    def _config(self) -> dict:
        if self.env_config is not None:
            return self.env_config
        cfg = getattr(self.env.unwrapped, "config", None)
        if dataclasses.is_dataclass(cfg):
            return {k: v for k, v in dataclasses.asdict(cfg).items()}
        return {}

    @property
    def rollouts_per_s(self) -> float:
        return self.stats["games"] / max(1e-9, self.stats["seconds"])

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        self.stats["decisions"] += 1
        h = self.fallback.act(observation, action_mask)
        if legal.size == 1 or self.env is None:
            return int(h) if legal.size > 1 else int(legal[0])
        ps = self.env.unwrapped.public_state()
        cfg = self._config()
        sit = Situation(ps, self.seat, observation, cfg)
        if sit.supported is not None or any(a >= 52 for a in legal):
            self.stats["fallbacks"] += 1
            return int(h)
        t0 = time.perf_counter()
        deals = []
        for _ in range(self.samples):
            d = sit.sample(self.rng)
            if d is None:
                break
            deals.append(d)
        if not deals:
            self.stats["fallbacks"] += 1
            return int(h)
        values, per_game = self.evaluate(sit, deals, legal, cfg)
        choice = max(values, key=lambda a: (values[a], a == h, -a))
        if choice != h and h in per_game:
            # keep the heuristic's card unless the search is confident: paired over the same deals
            d = per_game[choice] - per_game[h]
            se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.inf
            if not d.mean() > self.z * se:
                choice = h
        dt = time.perf_counter() - t0
        games = sum(len(v) for v in per_game.values())
        self.last = {"games": games, "seconds": dt, "rollouts_per_s": games / max(1e-9, dt), "values": values,
                     "choice": int(choice), "heuristic": int(h)}
        self.stats["seconds"] += dt
        self.stats["searched"] += 1
        return int(choice)

    def evaluate(self, sit: Situation, deals: list, legal, cfg: dict) -> dict:
        """Mean reward of the agent's seat after each legal action, over deals x rollouts games."""
        k, a_n, r_n = len(deals), len(legal), self.rollouts
        n = k * a_n * r_n
        g = make_batch("courtpiece", n, **cfg)
        g.reset(seed=int(self.rng.integers(2**31)), deals=[deals[i // (a_n * r_n)] for i in range(n)])
        for act in sit.history():
            g.step(np.full(n, act, np.int64))
        first = np.repeat(np.tile(np.asarray(legal, np.int64), k), r_n)
        g.step(first)
        total = np.asarray(g.rewards, np.float64)[:, sit.seat].copy()
        if self.policy == "random":
            done = np.asarray(g.done).copy()
            played = g.rollout(seed=int(self.rng.integers(2**31)))
            total = np.where(done, total, np.asarray(g.rewards, np.float64)[:, sit.seat])
        else:
            played = 0
            while True:
                live = ~np.asarray(g.done)
                if not live.any():
                    break
                acts = greedy_batch(g.observe(), g.legal_mask(), self.rng, self.eps)
                g.step(np.where(live, acts, 0))
                total[live] += np.asarray(g.rewards, np.float64)[live, sit.seat]
                played += int(live.sum())
        self.stats["games"] += n
        self.stats["rollout_decisions"] += int(played)
        per_game = {int(a): total[first == a] for a in legal}
        return {a: float(v.mean()) for a, v in per_game.items()}, per_game
