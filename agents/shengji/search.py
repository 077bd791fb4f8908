"""Determinized search (Perfect-Information Monte Carlo) for Sheng Ji.

A Sheng Ji play is composed card by card (spec §4), so the agent searches whole plays: at the
first step of each LEAD or FOLLOW decision it

1. **samples the hidden cards** consistently with everything public (§3): every card played to a
   trick (with its seat), each seat's hand size, the cards each seat still shows (declared copies,
   retracted throw cards — ``shown``), the kitty cards a flip revealed (the banker picked them up),
   and the voids a seat showed by failing to follow the led effective suit (it can never hold that
   suit again). Its own hand comes from its observation, and as banker it knows its buried kitty;
   no other seat's private state is read;
2. **replays the public history** on the sampled deal: the sampled deals start together in one
   ``BatchGame.reset(deals=..., banker=..., levels=..., trump=...)`` (§7.1 options per game,
   ``declaration_mode`` "preset", which fixes the trump and banker the real declaring produced),
   then ``BatchGame.play`` steps every world through the public actions in one jitted call: the
   burial, every lead (failed throws as the forced component they became, the retracted cards
   staying in hand), every follow. A world is kept only if every replayed action was legal in it
   and the searching seat's observation at the end equals the real one on the table state (hand,
   played cards, current trick, hand sizes, phase, leader, points, trump, banker, levels);
   rejected worlds are resampled;
3. **evaluates whole plays** by batched rollouts: the candidates are complete legal plays —
   following: ``BatchGame.legal_plays`` (the enumerator of the env), all of them when few, else the
   heuristic's play plus the cheapest, the most valuable and the strongest plays and a seeded random
   rest (``max_plays``); leading: every tuple and tractor, the highest and lowest singles of each
   effective suit, and the heuristic's lead (a throw, possibly). ``samples x plays x rollouts``
   games, each play composed card by card in its share of them, then finished with the jitted random
   ``BatchGame.rollout``. The play with the best mean reward of the seat is chosen when it beats the
   heuristic's play by ``z`` standard errors of the paired difference over the same worlds, else
   the heuristic's play; its cards are then emitted one per decision (and DONE for a lead).

Only the env's public API is used: ``public_state()``, ``BatchGame.reset``/``play``/``take``
(the evaluation branches the kept worlds with ``take``)/``legal_mask``/``legal_plays``/``rollout``.
Speed without changing a decision: the deals of a decision are sampled in one jitted loop that
draws from the agent's numpy Generator exactly as the per-deal Python loop did (numba's
Generator.permutation / random are numpy's algorithms on the same bit generator), so a seeded
agent plays the same actions as before (tests/agents/test_shengji_search.py holds recorded games).

Declaring, naming trump and burying use the heuristic, as do positions the replay does not cover
(match episodes, a composition already started, no consistent world found) — ``stats["fallbacks"]``
counts them. ``stats`` totals the games rolled out (``rollouts_per_s``) and ``last`` holds the
latest searched decision.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from agents.base import legal_actions
from agents.determinized import DeterminizedSearch, paired_layout
from agents.shengji.heuristic import (HAND, HAND_LEVEL, HAND_SIZES, LEAD_COUNT, LEADER, LEVELS, PHASE, PLAYED,
                                      POINTS, SEL, TRICK, TRUMP, BANKER, ShengJiHeuristic, Table, card_points)
from cardzoo.cards import card_index, card_text

DONE = 54
MAX_PLAYS = 200000     # legal follows listed at most; beyond it (rare, a long multi-deck throw) the heuristic plays
LEAD, FOLLOW = 3, 4
PHASE_IDS = {"DECLARE": 0, "NAME_TRUMP": 1, "BURY": 2, "LEAD": 3, "FOLLOW": 4, "OVER": 5}
DEAL_SIZES = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (52, 8)}
# observation entries a sampled world must reproduce exactly (the table, not the declaring record)
INFOSET_ENTRIES = np.concatenate([np.arange(HAND, HAND + 54), np.arange(PLAYED, PLAYED + 216), np.arange(TRICK, TRICK + 216),
                           np.arange(HAND_SIZES, HAND_SIZES + 4), np.arange(PHASE, PHASE + 6),
                           np.arange(LEVELS, LEVELS + 2), np.arange(HAND_LEVEL, HAND_LEVEL + 1),
                           np.arange(BANKER, BANKER + 5), np.arange(TRUMP, TRUMP + 6),
                           np.arange(LEADER, LEADER + 4), np.arange(LEAD_COUNT, LEAD_COUNT + 1),
                           np.arange(POINTS, POINTS + 2)])


_CARD_ID = {card_text(c): c for c in range(54)}     # public_state's card text (section 9), parsed once


def _ids(text) -> list[int]:
    """The cards of a card-set text, ascending (the order of the set's text, section 9)."""
    return sorted(_CARD_ID[t] if t in _CARD_ID else card_index(t, jokers=True) for t in (text.split() if text else []))


def _counts(text) -> np.ndarray:
    return np.bincount(np.asarray(_ids(text), np.int64), minlength=54)


def _cards(counts) -> list[int]:
    return np.repeat(np.arange(54), np.asarray(counts, np.int64)).tolist()


@njit(cache=True)
def _assign_nb(es, allowed, left, lk, u, out):
    for i in range(es.shape[0]):
        e = es[i]
        tot = lk
        for j in range(3):
            if allowed[j, e]:
                tot += left[j]
        if tot == 0:
            return False
        x = u[i] * tot
        out[i] = 3
        for j in range(3):
            if allowed[j, e]:
                if x < left[j]:
                    out[i] = j
                    break
                x -= left[j]
        if out[i] == 3:
            lk -= 1
        else:
            left[out[i]] -= 1
    return True


@njit(cache=True)
def _deal_nb(order, n_allowed, es, allowed, need, lk, u, cards, grp, ends):
    """`sample`'s deterministic part for one try: stable-sort the shuffled pool `order` by how many
    seats may hold each card (np.argsort(kind="stable") as a counting sort), assign the cards in that
    order (_assign_nb) and write the assigned cards grouped by place (the three other seats, then the
    kitty), each group in assignment order, into grp; ends[j] is where group j ends. False: dead end."""
    m = order.shape[0]
    srt = np.empty(m, np.int64)
    k = 0
    for key in range(4):
        for i in range(m):
            if n_allowed[order[i]] == key:
                srt[k] = order[i]
                k += 1
    who = np.empty(m, np.int64)
    if not _assign_nb(es[srt], allowed, need.copy(), lk, u, who):
        return False
    k = 0
    for j in range(4):
        for i in range(m):
            if who[i] == j:
                grp[k] = cards[srt[i]]
                k += 1
        ends[j] = k
    return True


@njit(cache=True)
def _sample_nb(rng, count, tries, cards, n_allowed, es, allowed, need, lk, fixed, nfixed, kitty, seat, banker, H,
               out, good):
    """`count` deals of `Situation.sample` (each up to `tries` tries) in one call: out[k] the deal,
    good[k] whether one was found. Draws from the numpy Generator rng exactly as the per-deal Python
    loop did (numba's Generator.permutation / random are numpy's algorithms on the same bit
    generator; tests/agents/test_shengji_search.py checks the streams): per try a permutation of
    the pool, its uniforms, then one permutation of each seat's cards in seat order."""
    m = cards.shape[0]
    grp = np.empty(m, np.int64)
    ends = np.zeros(4, np.int64)
    cs = np.empty(nfixed.max() + m, np.int64)
    nk = kitty.shape[0]
    kit = np.empty(nk + m, np.int64)
    for k in range(count):
        good[k] = False
        for _ in range(tries):
            # the most constrained cards first (fewest seats that may hold them), random within
            order = rng.permutation(m)
            u = rng.random(m)
            if not _deal_nb(order, n_allowed, es, allowed, need, lk, u, cards, grp, ends):
                continue
            failed = False
            j = 0
            for s in range(4):
                n = nfixed[s]
                cs[:n] = fixed[s, :n]
                if s != seat:
                    lo = ends[j - 1] if j > 0 else 0
                    for i in range(lo, ends[j]):
                        cs[n] = grp[i]
                        n += 1
                    j += 1
                if n != H:
                    failed = True
                    break
                perm = rng.permutation(H)
                start = (s - banker) % 4
                for i in range(H):
                    out[k, start + 4 * i] = cs[perm[i]]
            if failed:
                break
            kit[:nk] = kitty
            nn = nk
            for i in range(ends[2], ends[3]):
                kit[nn] = grp[i]
                nn += 1
            out[k, 4 * H:4 * H + nn] = np.sort(kit[:nn])
            good[k] = True
            break


def _assign(es, allowed, left, lk, u):
    """Each card (in order) to one of the three other seats (0..2, allowed[seat, esuit]) or the
    kitty (3), with probability proportional to the places still open; None on a dead end."""
    out = np.empty(es.shape[0], np.int64)
    return out if _assign_nb(es, allowed, left, np.int64(lk), u, out) else None


class Situation:
    """What the public record and the agent's own observation say about the hidden cards."""

    def __init__(self, ps: dict, seat: int, obs, config: dict):
        self.ps = ps
        self.seat = int(seat)
        self.config = config
        obs = np.asarray(obs, np.float64)
        self.obs = obs
        self.D = int(ps["decks"])
        self.H, self.K = DEAL_SIZES[self.D]
        self.my_hand = np.rint(obs[HAND:HAND + 54]).astype(np.int64)
        self.selection = np.rint(obs[SEL:SEL + 54]).astype(np.int64)
        self.banker = ps["banker"]
        self.level = int(ps["hand_level"])
        tr = ps["trump"]
        self.trump = None if tr in (None, "NT") else "CDHS".index(tr)
        played = [[0] * 54 for _ in range(4)]
        self.voids = [set() for _ in range(4)]
        self.actions: list[int] = []          # the public actions after the burial
        es = [self.esuit(c) for c in range(54)]
        tricks = [t["plays"] for t in ps["tricks"]] + ([ps["trick"]] if ps["trick"] else [])
        for plays in tricks:
            led = None
            for k, (s, text) in enumerate(plays):
                cards = _ids(text)
                row = played[int(s)]
                for c in cards:
                    row[c] += 1
                self.actions += cards
                if k == 0:
                    led = es[cards[0]]
                    self.actions.append(DONE)
                elif any(es[c] != led for c in cards):
                    self.voids[int(s)].add(led)
        self.played = np.array(played, np.int64)
        self.shown = np.array([_counts(t) for t in ps["shown"]])
        self.hand_sizes = [int(v) for v in ps["hand_sizes"]]
        my_kitty = np.rint(obs[108:162]).astype(np.int64)
        self.my_kitty = my_kitty if self.banker == self.seat else None
        self.supported = self._supported()

    def esuit(self, c: int) -> int:
        if c >= 52 or c % 13 == self.level or (self.trump is not None and c // 13 == self.trump):
            return 4
        return c // 13

    def _supported(self) -> str | None:
        ps = self.ps
        if ps["phase"] not in ("LEAD", "FOLLOW"):
            return "not in play"
        if ps["current_player"] != self.seat:
            return "not to act"
        if self.config.get("episode", "hand") != "hand" or ps["hand_index"] != 0:
            return "match episode"
        if self.banker is None or ps["trump"] is None:
            return "no banker or trump"
        if self.selection.sum() > 0:
            return "composition already started"
        if (self.my_hand != self.my_hand.clip(0, self.D)).any() or self.my_hand.sum() != self.hand_sizes[self.seat]:
            return "observation and public record disagree"
        return None

    def _known(self, s: int) -> np.ndarray:
        """Cards seat s is publicly known to hold (in hand, or buried when s is the banker)."""
        k = self.shown[s].copy()
        if s == self.banker and self.ps["kitty_revealed"]:
            rev = np.zeros(54, np.int64)
            for t in self.ps["kitty_revealed"]:
                rev[card_index(t, jokers=True)] += 1
            k = np.maximum(k, rev - self.played[s])
        return k.clip(0, None)

    def _prepare(self):
        """The deterministic part of sampling (known cards, the pool, voids), computed once."""
        me, b, D, K = self.seat, self.banker, self.D, self.K
        pool = np.full(54, D, np.int64) - self.played.sum(axis=0) - self.my_hand
        if self.my_kitty is not None:
            pool -= self.my_kitty
        others = [s for s in range(4) if s != me]
        hands = {s: self._known(s) for s in others}
        for s in others:
            pool -= hands[s]
        if (pool < 0).any():
            return None
        kitty = np.zeros(54, np.int64) if self.my_kitty is None else self.my_kitty.copy()
        if b != me:                       # the banker's known cards beyond his hand size lie in the kitty
            extra = hands[b].sum() - self.hand_sizes[b]
            for c in np.flatnonzero(hands[b])[::-1]:
                if extra <= 0:
                    break
                take = min(extra, hands[b][c])
                hands[b][c] -= take
                kitty[c] += take
                extra -= take
        need = np.array([self.hand_sizes[s] - int(hands[s].sum()) for s in others], np.int64)
        need_kitty = K - int(kitty.sum())
        if need.min() < 0 or need_kitty < 0 or int(need.sum()) + need_kitty != int(pool.sum()):
            return None
        cards = np.asarray(_cards(pool), np.int64)
        es = np.array([self.esuit(int(c)) for c in cards], np.int64)
        allowed = np.array([[e not in self.voids[s] for e in range(5)] for s in others], np.bool_)
        fixed = {s: np.asarray(_cards(hands[s]) + _cards(self.played[s]), np.int64) for s in others}
        fixed[me] = np.asarray(_cards(self.my_hand) + _cards(self.played[me]), np.int64)
        return {"others": others, "cards": cards, "es": es, "allowed": allowed,
                "n_allowed": allowed.sum(axis=0)[es], "need": need, "need_kitty": need_kitty,
                "fixed": fixed, "kitty": np.asarray(_cards(kitty), np.int64)}

    def sample(self, rng: np.random.Generator, tries: int = 50) -> np.ndarray | None:
        """One deal order (§7.1, the banker drawing first; int64[54 D]) consistent with the public
        record, or None."""
        deals, good = self.sample_many(rng, 1, tries)
        return deals[0] if good[0] else None

    def sample_many(self, rng: np.random.Generator, count: int, tries: int = 50):
        """`count` calls of `sample` in one jitted loop, same draws: (deals int64[count, 54 D],
        good bool[count]); a row is a deal where good is True."""
        if not hasattr(self, "_prep"):
            self._prep = self._prepare()
        p = self._prep
        out = np.zeros((count, 4 * self.H + self.K), np.int64)
        good = np.zeros(count, np.bool_)
        if p is None:
            return out, good
        if "fixed_arr" not in p:
            nfixed = np.array([len(p["fixed"][s]) for s in range(4)], np.int64)
            fixed = np.zeros((4, max(1, int(nfixed.max()))), np.int64)
            for q in range(4):
                fixed[q, :nfixed[q]] = p["fixed"][q]
            p["fixed_arr"], p["nfixed"] = fixed, nfixed
        _sample_nb(rng, count, tries, p["cards"], p["n_allowed"], p["es"], p["allowed"], p["need"],
                   np.int64(p["need_kitty"]), p["fixed_arr"], p["nfixed"], p["kitty"], self.seat, int(self.banker),
                   self.H, out, good)
        return out, good

    def start_options(self) -> dict:
        """The §7.1 options, besides the deal, that start a sampled world like the real hand."""
        return {"banker": int(self.banker), "levels": list(self.ps["levels"]), "trump": self.ps["trump"]}

    def reset_options(self, deal) -> dict:
        """The env's §7.1 ``reset`` options of a sampled world (``deal`` made by `sample`)."""
        return {"deal": list(deal), **self.start_options()}

    def history(self, deal) -> list[int]:
        """The public action sequence from the burial to now, for a deal made by `sample`."""
        return list(deal[4 * self.H:]) + self.actions

    def histories(self, deals: np.ndarray) -> np.ndarray:
        """`history` of every row of an int array of deals [n, 54 D], as an int array [n, T]."""
        acts = np.broadcast_to(np.asarray(self.actions, np.int64), (len(deals), len(self.actions)))
        return np.concatenate([deals[:, 4 * self.H:], acts], axis=1)


def replay(g, histories) -> np.ndarray:
    """Step every row of g through its action list (``BatchGame.play``, one jitted call); returns
    bool[n]: every action of the row was legal in its world (a row stops at its first illegal one)."""
    if isinstance(histories, np.ndarray):
        acts, lens = histories, np.full(g.n, histories.shape[1])
    else:
        lens = np.array([len(h) for h in histories])
        acts = np.full((g.n, int(lens.max())), -1, np.int64)
        for i, h in enumerate(histories):
            acts[i, :len(h)] = h
    return g.play(acts) == lens


class ShengJiSearch(DeterminizedSearch):
    """Sheng Ji determinized search; see the module docstring. Options: ``samples`` (worlds per
    decision), ``rollouts`` (random playouts per world and play), ``max_plays`` (candidate plays
    when following), ``max_leads`` (candidate leads), ``z`` (the search overrides the heuristic's
    play only when its paired advantage exceeds z standard errors; 0 = pure arg-max), ``prior`` (a
    residual checkpoint: its pick among the candidates replaces the heuristic's play as the one to
    beat)."""

    games = ("shengji",)
    heuristic = ShengJiHeuristic
    #: ``prior=<residual checkpoint>``: the policy whose pick among the candidates is the default play
    play_prior = None

    def __init__(self, game: str | None = "shengji", seed: int | None = None, samples: int = 8,
                 rollouts: int = 2, max_plays: int = 10, max_leads: int = 16, z: float = 1.0,
                 env_config: dict | None = None, prior: str | None = None):
        super().__init__(game, seed, z, env_config, {"rollout_decisions": 0, "worlds_rejected": 0}, prior)
        if samples < 1 or rollouts < 1 or max_plays < 1 or max_leads < 1:
            raise ValueError("samples, rollouts, max_plays and max_leads must be >= 1")
        self.samples, self.rollouts = int(samples), int(rollouts)
        self.max_plays, self.max_leads = int(max_plays), int(max_leads)
        self._sim = ShengJiHeuristic(game, seed)
        self.plan: list[int] | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.play_prior is not None:
            self.play_prior.reset(seed)
        self.plan = None

    def _learned_prior(self, path: str, seed: int | None):
        """A Sheng Ji residual policy scores whole plays: it becomes ``play_prior``, whose pick among
        the searched candidates is the play the search must beat (the heuristic still composes the
        plays and answers the decisions that are not searched). Any other checkpoint: the base rule."""
        from agents import make_agent

        agent = make_agent(f"learned:{path}", "shengji", seed, env_config=self.env_config)
        if not hasattr(agent, "pick"):
            return super()._learned_prior(path, seed)
        self.play_prior = agent
        return self.fallback

    def _config(self) -> dict:
        cfg = super()._config()
        if "must_defend" in cfg:
            cfg["must_defend"] = list(cfg["must_defend"])
        return cfg

    # ---- emitting a chosen play card by card ------------------------------------------------------
    def _next_of_plan(self, obs, mask) -> int | None:
        if self.plan is None:
            return None
        sel = np.rint(np.asarray(obs)[SEL:SEL + 54]).astype(np.int64)
        want = np.bincount([c for c in self.plan if c < 54], minlength=54)
        if (sel > want).any():
            self.plan = None
            return None
        for c in np.flatnonzero(want - sel > 0):
            if mask[c]:
                return int(c)
        if (sel == want).all() and mask[DONE]:
            return DONE
        self.plan = None
        return None

    def act(self, observation, action_mask) -> int:
        legal = legal_actions(action_mask)
        self.stats["decisions"] += 1
        obs = np.asarray(observation, np.float64)
        phase = int(np.argmax(obs[PHASE:PHASE + 6]))
        if phase in (LEAD, FOLLOW) and obs[SEL:SEL + 54].sum() > 0.5:
            nxt = self._next_of_plan(obs, action_mask)
            if nxt is not None:
                return nxt
            self.plan = None              # a composition the heuristic started: it finishes it
            return int(self.prior.act(observation, action_mask))
        self.plan = None
        h = int(self.prior.act(observation, action_mask))
        if legal.size == 1:
            return int(legal[0])
        if self.env is None or phase not in (LEAD, FOLLOW):
            return h
        cfg = self._config()
        sit = Situation(self.env.unwrapped.public_state(), self.seat, obs, cfg)
        if sit.supported is not None:
            return self.fall_back(h)
        chosen = self.choose_play(sit, obs, action_mask, phase, h, cfg)
        if chosen is None:
            return self.fall_back(h)
        cands, choice = chosen
        self.plan = _cards(cands[choice]) + ([DONE] if phase == LEAD else [])
        nxt = self._next_of_plan(obs, action_mask)
        return h if nxt is None else nxt

    def choose_play(self, sit, obs, action_mask, phase: int, h: int, cfg: dict):
        """(candidate plays, the index of the one to play) for a LEAD or FOLLOW decision whose
        composition has not started; None: keep the heuristic's play. The search's choice: the
        candidates' mean rollout values over sampled worlds, then the z test against the heuristic's."""
        t0 = time.perf_counter()
        found = self._worlds(sit, cfg)
        if found is None:
            return None
        rep, keep = found
        plays = None
        if phase == FOLLOW:
            try:
                plays = rep.legal_plays(int(keep[0]), max_plays=MAX_PLAYS).astype(np.int64)
            except ValueError:        # more legal follows than can be listed (a long throw led): the heuristic's
                return None
        cands, hplay = self.candidates(sit, obs, action_mask, plays, phase, h)
        if len(cands) == 1:
            self.record(t0)
            return cands, 0
        try:
            values, per = self.evaluate(sit, rep, keep, cands, phase, cfg)
        except ValueError:            # a candidate the env refuses in some world: keep the heuristic
            return None
        # candidates are indices into cands: the first best, then the z test against the default play
        default = hplay if self.play_prior is None else self.play_prior.pick(obs, cands, hplay)
        choice = self.override(int(np.argmax(values)), default, dict(enumerate(per)))
        self.record(t0, games=int(sum(len(p) for p in per)), values=[float(v) for v in values],
                    plays=[_cards(c) for c in cands], choice=choice, heuristic=hplay, default=default)
        return cands, choice

    # ---- worlds -------------------------------------------------------------------------------------
    def _worlds(self, sit: Situation, cfg: dict):
        """A replay BatchGame and the indices of its rows that reach the agent's information set."""
        want = self.samples
        tries = want + max(2, want // 2)
        for attempt in range(3):
            deals, good = sit.sample_many(self.rng, tries)
            deals = deals[good]
            if not len(deals):
                return None
            rcfg = dict(cfg, declaration_mode="preset", auto_forced=False, episode="hand")
            rcfg.pop("first_drawer", None)
            g = self._batches.get(len(deals), rcfg)
            # §7.1 options of the real hand (its banker, levels and the trump the declaring fixed)
            g.reset(deals=deals, **sit.start_options())
            ok = replay(g, sit.histories(deals))
            obs = g.observe()
            same = (obs[:, INFOSET_ENTRIES] == sit.obs[INFOSET_ENTRIES][None]).all(axis=1)
            ok &= same
            self.stats["worlds_rejected"] += int((~ok).sum())
            keep = np.flatnonzero(ok)[:want]
            if len(keep) >= max(1, want // 2) or (attempt == 2 and len(keep)):
                return g, keep
            tries *= 2
        return None

    # ---- candidate plays ----------------------------------------------------------------------------
    def _heuristic_play(self, obs, legal_fn, n_cards: int | None, first=None) -> np.ndarray:
        """The heuristic's whole play, composed card by card against legal_fn's masks. first =
        (the real mask, the heuristic's action for it): the heuristic is a pure function of
        (observation, legal set), so where the first simulated mask allows the same actions its
        answer is already known."""
        o = obs.copy()
        sel = np.zeros(54, np.int64)
        while True:
            mask = legal_fn(sel)
            if first is not None and np.array_equal(mask != 0, np.asarray(first[0]) != 0):
                a = int(first[1])
            else:
                a = int(self._sim.act(o, mask))
            first = None
            if a == DONE:
                break
            sel[a] += 1
            o[SEL:SEL + 54] = sel
            if n_cards is not None and sel.sum() >= n_cards:
                break
        return sel

    def candidates(self, sit, obs, mask0, plays, phase, h=None):
        """Candidate plays (count vectors) and the index of the heuristic's play among them.
        ``plays``: a FOLLOW's complete legal plays (count vectors, ``legal_plays``); h: the
        heuristic's action for obs and mask0, when known."""
        first = None if h is None else (mask0, h)
        hand = sit.my_hand
        if phase == FOLLOW:
            n = int(round(obs[LEAD_COUNT]))

            def legal_fn(sel):
                m = np.zeros(84, np.uint8)
                fit = plays[(plays >= sel[None]).all(axis=1)]
                m[:54] = (fit > sel[None]).any(axis=0)
                return m

            hp = self._heuristic_play(obs, legal_fn, n, first)
            cands = self._reduce_follow(sit, plays, hp)
        else:
            def legal_fn(sel):
                m = np.zeros(84, np.uint8)
                rest = hand - sel
                if sel.sum() == 0:
                    m[:54] = rest > 0
                else:
                    s = sit.esuit(int(np.flatnonzero(sel)[0]))
                    m[:54] = [(rest[c] > 0 and sit.esuit(c) == s) for c in range(54)]
                    m[DONE] = 1
                return m

            hp = self._heuristic_play(obs, legal_fn, None, first)
            cands = self._leads(sit, obs, hp)
        keys = [tuple(c) for c in cands]
        hkey = tuple(hp)
        if hkey not in keys:
            cands.append(hp)
            keys.append(hkey)
        return cands, keys.index(hkey)

    def _reduce_follow(self, sit, plays, hp) -> list:
        if len(plays) <= self.max_plays:
            return [p.copy() for p in plays]
        pts = np.array([card_points(c) for c in range(54)])
        trump = np.array([sit.esuit(c) == 4 for c in range(54)], np.int64)
        tab = Table(sit.obs)
        pos = np.array([tab.pos(c) for c in range(54)], np.int64)
        p_pts, p_tr, p_pos = plays @ pts, plays @ trump, plays @ pos
        picks = [int(np.flatnonzero((plays == hp[None]).all(axis=1))[0])] if (plays == hp[None]).all(axis=1).any() else []
        orders = [np.lexsort((p_pos, p_tr, p_pts)),           # cheapest: fewest points, trumps, lowest
                  np.lexsort((p_pos, p_tr, -p_pts)),          # most points (feed the partner)
                  np.lexsort((p_pts, -p_pos)),                # strongest cards
                  np.lexsort((-p_pts, -p_pos, -p_tr))]        # ruff / trump high with points
        for o in orders:
            for i in o[:2]:
                if int(i) not in picks:
                    picks.append(int(i))
                    break
        rest = [i for i in self.rng.permutation(len(plays)) if int(i) not in picks]
        picks += [int(i) for i in rest[:max(0, self.max_plays - len(picks))]]
        return [plays[i].copy() for i in picks]

    def _leads(self, sit, obs, hp) -> list:
        """Tractors, the highest single of each effective suit, tuples, then the lowest, lowest
        non-point and highest point singles; at most max_leads - 1 (the heuristic's lead is added)."""
        hand = sit.my_hand
        tab = Table(sit.obs)
        tractors, tops, tuples, lows = [], [], [], []

        def vec(cards, k):
            v = np.zeros(54, np.int64)
            v[cards] = k
            return v

        for s in range(5):
            cs = sorted((c for c in range(54) if hand[c] > 0 and sit.esuit(c) == s), key=lambda c: (tab.pos(c), c))
            if not cs:
                continue
            tractors += [vec(run, 2) for run in self.fallback.tractors(tab, hand, s)]
            tops.append(vec([cs[-1]], 1))
            tuples += [vec([c], k) for c in cs for k in range(2, int(hand[c]) + 1)]
            pick = [cs[0]] + [c for c in cs if not card_points(c)][:1] + [c for c in cs if card_points(c)][-1:]
            lows += [vec([c], 1) for c in dict.fromkeys(pick) if c != cs[-1]]
        out, seen = [], set()
        for v in tractors + tops + tuples + lows:
            if tuple(v) not in seen:
                seen.add(tuple(v))
                out.append(v)
        return out[:max(1, self.max_leads - 1)]

    # ---- evaluation ---------------------------------------------------------------------------------
    def evaluate(self, sit, rep, keep, cands, phase, cfg):
        """Mean reward of the seat for each candidate play over worlds x rollouts games."""
        k, p_n, r_n = len(keep), len(cands), self.rollouts
        n = k * p_n * r_n
        world = np.repeat(keep, p_n * r_n)
        cand = paired_layout(k, np.arange(p_n), r_n)
        g = rep.take(world)
        plans = [_cards(c) + ([DONE] if phase == LEAD else []) for c in cands]
        length = max(len(p) for p in plans)
        acts = np.full((p_n, length), -1, np.int64)
        for i, p in enumerate(plans):
            acts[i, :len(p)] = p
        seat = sit.seat
        total = np.zeros(n)
        played = 0
        for t in range(length):
            mask = g.legal_mask()
            live = mask.any(axis=1)
            a = acts[cand, t]
            u = self.rng.random(mask.shape)
            u[mask == 0] = -1.0
            rnd = u.argmax(axis=1)
            step = np.where(a >= 0, a, rnd)
            # one step of every live game; a planned card a world refuses raises like BatchGame.step
            # (act() then keeps the heuristic's play)
            if (g.play(np.where(live, step, -1)[:, None]) != live).any():
                raise ValueError("a candidate play is illegal in a sampled world")
            total += g.rewards[:, seat]
            played += int(live.sum())
        done = g.done.copy()
        if not done.all():
            played += g.rollout(seed=int(self.rng.integers(2**31)))
            total += np.where(done, 0.0, g.rewards[:, seat])
        self.stats["games"] += n
        self.stats["rollout_decisions"] += int(played)
        per = [total[cand == i] for i in range(p_n)]
        return np.array([p.mean() for p in per]), per
