"""Determinized search (Perfect-Information Monte Carlo) for LOPTI.

At each PLAY-phase decision with more than one legal action the agent

1. **samples the hidden cards** consistently with everything public (spec §3.2): its own hand is
   known by rank from its observation (suits carry no value, LO-2.2, so any suits not already
   public will do); every card on the pile, gone, face up, or *known* in a hand (picked up, taken
   from the face-up row, swapped) is public and stays where it is; the rest — the other seats'
   unknown hand cards, every face-down card (the agent's own included, LO-2.4) and the draw pile —
   is one uniformly shuffled pool dealt into exactly the public counts (hand sizes minus known
   cards, occupied face-down slots, draw size). No other seat's private state is read;
2. **rebuilds the position** in each sampled world: LOPTI's public record is a position, not a
   replayable action list (draws and suits are hidden), so each sample becomes a §7.2 position
   (``reset(options={"state": ...})`` format: seats, pile plays, chain, draw order, out order,
   known cards, dealer, leader, move kind, move counter, switches, rules) and is loaded into the
   rows of one ``BatchGame`` through the env's own §7.2 parser. The searching seat's observation in
   every sampled world equals its real one (tested);
3. **evaluates the candidate actions** (every legal action, or with ``prune`` one FLIP and per
   rank the fewest, most and set-completing counts plus the heuristic's action, see
   ``candidates``) by batched rollouts: ``samples x actions x rollouts`` games, each candidate
   applied (``BatchGame.step``) in its share of them, then all played to the end —
   ``policy="heuristic"`` (default): every seat plays the LOPTI heuristic (``_heuristic_row``, a
   jitted port of ``LoptiHeuristic``, tested equal to it, ``eps`` random moves), fused with the
   env's step kernel so one jitted call plays all games (at most ``max_plies`` decisions each,
   the rest finished by the jitted random ``BatchGame.rollout``; tested equal to stepping the
   heuristic through ``BatchGame.step``); ``policy="random"``: one ``BatchGame.rollout`` call.
   The seat's reward is its rank reward (§5). The action with the best mean reward is played when
   it beats the heuristic's action by ``z`` standard errors of the paired difference over the
   same sampled worlds, else the heuristic's action.

The sampled positions go into the games with ``BatchGame.load_positions``. ``BatchGame`` has no
heuristic rollout policy, so ``_rollout_heuristic`` (agent logic, jitted) steps the game records of
``BatchGame.st`` with the env's step kernel (lopti_env.kernels ``step_game``/``compute_mask``).

Swap, session and every other non-play decision use the heuristic, as do positions the sampler
does not rebuild (session episodes) — ``stats["fallbacks"]`` counts them. ``stats`` totals the
games rolled out (``rollouts_per_s``) and ``last`` holds the latest searched decision.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from agents.base import legal_actions
from agents.determinized import DeterminizedSearch, paired_layout
from agents.lopti.heuristic import (DRAW_SIZE, HAND, OBLIGATION, PICKUP, PILE_SIZE, SWITCHES, TOP,
                                    LoptiHeuristic)
from cardzoo.cards import parse_cards
from lopti_env.config import OBS_SIZE
from lopti_env.kernels import compute_mask, rcount, step_game

PLAY_PHASE = 1


# ------------------------------------------------------------------------------------------------
# the rollout policy: LoptiHeuristic's play rules, jitted over a batch of observation rows
# ------------------------------------------------------------------------------------------------


@njit(cache=True)
def _value(r, cr, lr):
    if r == cr:
        return 20.0
    if r == 0:
        return 18.0
    if r == 1:
        return 16.0
    if r == lr:
        return 14.0
    return float(r)


@njit(cache=True)
def _heuristic_row(o, m):
    """LoptiHeuristic._play on one observation row o and mask row m (PLAY phase)."""
    cr = int(o[SWITCHES] + 0.5)
    lr = int(o[SWITCHES + 1] + 0.5)
    ss = int(o[SWITCHES + 3] + 0.5)
    if ss == 0:
        ss = 4
    most = np.zeros(13, np.int64)
    fewest = np.full(13, 5, np.int64)
    any_play = False
    for a in range(52):
        if m[a]:
            r = a // 4
            k = a % 4 + 1
            if k > most[r]:
                most[r] = k
            if k < fewest[r]:
                fewest[r] = k
            any_play = True
    pickup = m[PICKUP] != 0
    if not any_play:
        for j in range(3):
            if m[53 + j]:
                if not (o[OBLIGATION] > 0.5 and pickup):
                    return 53 + j
                break
        if pickup:
            return PICKUP
        for a in range(m.shape[0]):
            if m[a]:
                return a
        return 0
    pile = int(o[PILE_SIZE] + 0.5)
    top_rank = int(o[TOP] + 0.5) - 1
    run = int(o[TOP + 2] + 0.5)
    hand_size = 0.0
    for r in range(13):
        hand_size += o[HAND + r]
    endgame = o[DRAW_SIZE] < 0.5 and hand_size <= 4.5
    # ordinary ranks: a completed set first, else the lowest
    low = -1
    for r in range(13):
        if most[r] == 0 or r == 0 or r == 1 or r == cr or r == lr:
            continue
        if pile > 0 and r == top_rank and run + most[r] >= ss:
            return 4 * r + most[r] - 1
        if low < 0:
            low = r
    if low >= 0:
        return 4 * low + most[low] - 1
    if endgame:
        best, bv = -1, 1e9
        for r in range(13):
            if most[r] > 0:
                v = _value(r, cr, lr)
                if v < bv:
                    best, bv = r, v
        return 4 * best + most[best] - 1
    if pile >= 4:
        order = (1, cr, lr, 0)
    else:
        order = (lr, 0, 1, cr)
    for r in order:
        if most[r] > 0:
            return 4 * r + fewest[r] - 1
    if pickup:
        return PICKUP
    for a in range(m.shape[0]):
        if m[a]:
            return a
    return 0


@njit(cache=True)
def _choose(o, m, eps, rng_state):
    """The rollout policy on one row: the heuristic's play (PLAY phase), with probability eps (and
    outside PLAY) a uniformly random legal action; -1 when no action is legal."""
    cnt = 0
    for a in range(m.shape[0]):
        if m[a]:
            cnt += 1
    if cnt == 0:
        return -1
    x = rng_state[0]                      # xorshift64*
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng_state[0] = x
    u = ((x * np.uint64(2685821657736338717)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    play = int(o[0] + 0.5) == PLAY_PHASE
    if play and u >= eps:
        return _heuristic_row(o, m)
    v = u / eps if play else u
    k = min(int(v * cnt), cnt - 1)
    for a in range(m.shape[0]):
        if m[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def heuristic_batch(obs, masks, eps, rng_state):
    """``_choose`` on every row of BatchGame.observe() / legal_mask() (rng_state: uint64[1])."""
    out = np.full(obs.shape[0], -1, np.int64)
    for b in range(obs.shape[0]):
        out[b] = _choose(obs[b], masks[b], eps, rng_state)
    return out


@njit(cache=True)
def _features(g, seat, out):
    """The observation entries the rollout policy reads (§3.5 layout), straight from the state."""
    out[0] = g.phase
    for r in range(13):
        out[HAND + r] = rcount(g.hand[seat], r)
    out[PILE_SIZE] = g.pile_n
    out[DRAW_SIZE] = g.draw_n
    out[OBLIGATION] = 1 if (g.chain > 0 and g.pile_n > 0) else 0
    if g.pile_n > 0:
        out[TOP] = g.top_rank + 1
        out[TOP + 1] = g.top_cnt
        out[TOP + 2] = g.run
    else:
        out[TOP] = 0
        out[TOP + 1] = 0
        out[TOP + 2] = 0
    for i in range(9):
        out[SWITCHES + i] = g.sw[i]


@njit(cache=True)
def _rollout_heuristic(st, cfg, carry, decks, coins, seat, eps, rng_state, max_plies):
    """Every live game of a LOPTI BatchGame state played on by the rollout policy (at most max_plies
    decisions each); returns (reward of `seat` summed over those steps, decisions played)."""
    n = st.shape[0]
    total = np.zeros(n)
    obs = np.zeros(OBS_SIZE, np.float32)
    m = np.zeros(140, np.uint8)
    plies = 0
    for b in range(n):
        g = st[b]
        if g.actor < 0:
            continue
        p = 0
        g.mask_off = 1                # the kernels keep only the legal list (as in the random rollout)
        while g.actor >= 0 and p < max_plies:
            _features(g, g.actor, obs)
            for i in range(g.n_legal):
                m[g.legal[i]] = 1
            a = _choose(obs, m, eps, rng_state)
            for i in range(g.n_legal):
                m[g.legal[i]] = 0
            step_game(g, cfg, carry, decks[b], coins[b], a)
            total[b] += g.rewards[seat]
            p += 1
        g.mask_off = 0
        g.n_legal = 0
        for i in range(140):
            g.mask[i] = 0
        compute_mask(g, cfg)
        plies += p
    return total, plies


# ------------------------------------------------------------------------------------------------
# the sampler
# ------------------------------------------------------------------------------------------------


def _group(text) -> list[int]:
    return parse_cards(text) if text else []


class Situation:
    """What the public record and the agent's own observation say about the hidden cards."""

    def __init__(self, ps: dict, seat: int, obs, config: dict):
        self.ps = ps
        self.seat = int(seat)
        self.config = config
        self.n = int(ps["num_players"])
        obs = np.asarray(obs)
        self.my_counts = [int(round(float(v))) for v in obs[HAND:HAND + 13]]
        seats = ps["seats"]
        self.known = [_group(s["known"]) for s in seats]
        self.up = [[None if c is None else parse_cards(c)[0] for c in s["up"]] for s in seats]
        self.down_slots = [[bool(d) for d in s["down"]] for s in seats]
        self.hand_sizes = [int(s["hand_size"]) for s in seats]
        self.pile = [(int(s), _group(g)) for s, g in ps["pile"]]
        public = set(_group(ps["gone"]))
        for _, cs in self.pile:
            public |= set(cs)
        for s in range(self.n):
            public |= {c for c in self.up[s] if c is not None}
            public |= set(self.known[s])
        self.public = public
        self.supported = self._supported()
        self._mine = self._my_hand() if self.supported is None else None

    def _supported(self) -> str | None:
        ps = self.ps
        if ps["phase"] != "play":
            return "not in play"
        if self.config.get("session", False):
            return "session episode"
        if ps["to_act"] != self.seat:
            return "not to act"
        if sum(self.my_counts) != self.hand_sizes[self.seat]:
            return "observation and public hand size disagree"
        return None

    def _my_hand(self) -> list[int] | None:
        """The agent's hand as cards: its known cards, the rest of each rank from the non-public suits."""
        hand = list(self.known[self.seat])
        for r in range(13):
            have = sum(1 for c in hand if c % 13 == r)
            need = self.my_counts[r] - have
            if need < 0:
                return None
            free = [13 * s + r for s in range(4) if 13 * s + r not in self.public and 13 * s + r not in hand]
            if len(free) < need:
                return None
            hand += free[:need]
        return hand

    def sample(self, rng: np.random.Generator) -> dict | None:
        """One §7.2 position consistent with the public record and the agent's hand, or None."""
        me, n = self.seat, self.n
        mine = self._mine
        if mine is None:
            return None
        taken = self.public | set(mine)
        pool = [c for c in range(52) if c not in taken]
        need_hand = [0 if s == me else self.hand_sizes[s] - len(self.known[s]) for s in range(n)]
        need_down = sum(sum(d) for d in self.down_slots)
        draw_n = int(self.ps["draw_size"])
        if min(need_hand) < 0 or sum(need_hand) + need_down + draw_n != len(pool):
            return None
        pool = [pool[i] for i in rng.permutation(len(pool))]
        k = 0
        seats = []
        for s in range(n):
            if s == me:
                hand = list(mine)
            else:
                hand = list(self.known[s]) + pool[k:k + need_hand[s]]
                k += need_hand[s]
            down = []
            for j in range(3):
                if self.down_slots[s][j]:
                    down.append(pool[k])
                    k += 1
                else:
                    down.append(None)
            seats.append({"hand": hand, "up": list(self.up[s]), "down": down})
        draw = pool[k:k + draw_n]
        ps = self.ps
        state = {
            "seats": seats,
            "pile": [[s, cs] for s, cs in self.pile],
            "chain": int(ps["chain"]),
            "draw": draw,
            "out": list(ps["out"]),
            "to_act": int(ps["to_act"]),
            "move": ps["move"],
            "known": {s: list(self.known[s]) for s in range(n) if self.known[s]},
            "dealer": int(ps["dealer"]),
            "leader": int(ps["leader"]),
            "moves": int(ps["moves"]),
            "switches": dict(ps["switches"]),
        }
        rules = [list(r[:7]) for r in ps["rules"] if r[5] != 0]
        if rules:
            state["rules"] = rules
        return state


def play_candidates(observation, legal, h: int) -> np.ndarray:
    """The PLAY-phase actions worth searching (sorted int64): one FLIP (face-down cards are unknown
    to their owner too, LO-2.4, so the slots are alike in expectation and searching each only adds
    noise), the pickup, and per rank the fewest and the most cards, the count that completes a set
    (LO-6.1) and the heuristic's action ``h``."""
    o = np.asarray(observation)
    ss = int(round(float(o[SWITCHES + 3]))) or 4
    top = int(round(float(o[TOP]))) - 1
    run = int(round(float(o[TOP + 2])))
    keep = {int(h)}
    flips = [int(a) for a in legal if 53 <= a <= 55]
    if flips:
        keep.add(h if 53 <= h <= 55 else flips[0])
    by_rank: dict = {}
    for a in legal:
        a = int(a)
        if a < 52:
            by_rank.setdefault(a // 4, []).append(a % 4 + 1)
        elif a == PICKUP:
            keep.add(a)
    for r, ks in by_rank.items():
        keep.add(4 * r + min(ks) - 1)
        keep.add(4 * r + max(ks) - 1)
        for k in ks:
            if r == top and run + k >= ss:
                keep.add(4 * r + k - 1)
                break
    return np.array(sorted(keep), np.int64)


# ------------------------------------------------------------------------------------------------
# the agent
# ------------------------------------------------------------------------------------------------


class LoptiSearch(DeterminizedSearch):
    """LOPTI determinized search; see the module docstring. Options: ``samples`` (worlds sampled per
    decision), ``rollouts`` (playouts per world and action), ``policy`` ("heuristic" or "random"),
    ``eps`` (random-move rate of heuristic rollouts), ``max_plies`` (heuristic plies before the random
    finish), ``prune`` (search a reduced action set, see ``candidates``), ``z`` (the search overrides
    the heuristic's action only when its paired advantage exceeds z standard errors; 0 = arg-max)."""

    games = ("lopti",)
    heuristic = LoptiHeuristic

    def __init__(self, game: str | None = "lopti", seed: int | None = None, samples: int = 12,
                 rollouts: int = 1, policy: str = "heuristic", eps: float = 0.05, max_plies: int = 400,
                 z: float = 1.0, prune: bool = True, env_config: dict | None = None, prior: str | None = None):
        super().__init__(game, seed, z, env_config, {"rollout_decisions": 0}, prior)
        self.prune = bool(prune)
        if samples < 1 or rollouts < 1 or max_plies < 0:
            raise ValueError("samples and rollouts must be >= 1, max_plies >= 0")
        if policy not in ("heuristic", "random"):
            raise ValueError(f"policy must be 'heuristic' or 'random' (BatchGame.rollout), not {policy!r}")
        if not 0.0 <= eps <= 1.0:
            raise ValueError(f"eps must lie in [0, 1], got {eps!r}")
        self.samples, self.rollouts, self.max_plies = int(samples), int(rollouts), int(max_plies)
        self.policy, self.eps = policy, float(eps)

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        self.stats["decisions"] += 1
        h = int(self.prior.act(observation, action_mask))
        if legal.size == 1:
            return int(legal[0])
        if self.env is None or int(round(float(np.asarray(observation)[0]))) != PLAY_PHASE:
            return h
        cfg = self._config()
        sit = Situation(self.env.unwrapped.public_state(), self.seat, observation, cfg)
        if sit.supported is not None:
            return self.fall_back(h)
        t0 = time.perf_counter()
        states = [sit.sample(self.rng) for _ in range(self.samples)]
        if any(s is None for s in states):
            return self.fall_back(h)
        cands = self.candidates(observation, legal, h)
        if len(cands) == 1:
            return h
        values, per_game = self.evaluate(sit, states, cands, cfg)
        choice = self.override(self.best(values, h), h, per_game)
        self.record(t0, games=sum(len(v) for v in per_game.values()), values=values, choice=int(choice), heuristic=h)
        return int(choice)

    def candidates(self, observation, legal, h: int) -> np.ndarray:
        """The actions searched: ``play_candidates`` with ``prune`` (default), every legal action otherwise."""
        return play_candidates(observation, legal, h) if self.prune else np.asarray(legal, np.int64)

    def evaluate(self, sit: Situation, states: list, legal, cfg: dict):
        """Mean reward of the agent's seat after each legal action over worlds x rollouts games."""
        k, a_n, r_n = len(states), len(legal), self.rollouts
        n = k * a_n * r_n
        g = self._batches.get(n, cfg)
        per = a_n * r_n
        g.load_positions(states, [np.arange(i * per, (i + 1) * per) for i in range(k)])
        first = paired_layout(k, legal, r_n)
        g.step(first)
        seat = sit.seat
        total = np.asarray(g.rewards, np.float64)[:, seat].copy()
        played = 0
        if self.policy == "heuristic":
            rng_state = np.array([int(self.rng.integers(1, 2**63))], np.uint64)
            more, p = _rollout_heuristic(g.st, g.cfg, g.carry, g.decks, g.coins, seat, self.eps, rng_state,
                                         self.max_plies)
            total += more
            played += int(p)
            g.rewards[:] = g.st["rewards"][:, :g.num_players]
        done = np.asarray(g.done).copy()
        if not done.all():
            played += g.rollout(seed=int(self.rng.integers(2**31)))
            total = np.where(done, total, total + np.asarray(g.rewards, np.float64)[:, seat])
        self.stats["games"] += n
        self.stats["rollout_decisions"] += int(played)
        per_game = {int(a): total[first == a] for a in legal}
        return {a: float(v.mean()) for a, v in per_game.items()}, per_game
