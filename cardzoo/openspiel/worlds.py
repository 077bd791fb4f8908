"""What the OpenSpiel bridge needs to know of each game: its options, bounds, and how to draw a world
consistent with one seat's information (``resample_from_infostate``).

The worlds come from the information-set samplers of cardzoo's search agents (the LOPTI swap phase,
which they do not search, from its public record here), and each is checked against the seat's own
observation:

* **Court Piece** (`agents.courtpiece.search.Situation`): during the trump call, the deals that keep the
  caller's first five (``sample_call_orders``); in card play, the deals consistent with every card
  played, the hand sizes, the voids shown and the trump call (``sample``). The public action
  sequence is then replayed on the deal. Not covered (as in the PIMC agent): face-down trump cards
  (``chhupa_rang``, Mendi Coat Band), changed cards or trump, match episodes.
* **LOPTI** (`agents.lopti.search.Situation.sample`): in the play phase of a single round, the hidden
  hands, face-down cards and draw pile, injected as a section 7.2 position (``reset(options={"state":
  ...})``). In the swap phase before it, a deal that keeps the face-up cards, the swaps made and the
  seat's own hand (`_lopti_swap_world`), the swaps replayed. Not covered: session episodes.
* **Sheng Ji** (`agents.shengji.search.Situation.sample_many`): at the start of a lead or follow of a
  one-hand episode, a deal consistent with the tricks, hand sizes, shown cards and voids, started with
  the real hand's banker, levels and trump (``declaration_mode="preset"``) and replayed through the
  burial and the tricks (mid-composition: drawn where the composition began, the cards selected
  since replayed). Not covered: declaring, naming trump, burying, ``auto_forced``, match episodes,
  positions after a failed throw with ``throw_penalty`` (the worlds do not replay failed attempts, so
  their penalties would be lost), and positions where a declared card still shown may have been buried (the sampler keeps shown
  cards in hand, so every world it draws there fails the check).

A drawn world is kept only if the seat's observation there equals the real one (Sheng Ji: on the
table entries the search agent compares, as the declaring record of a preset world differs) and its
legal actions are the same; elsewhere, or when no such world turns up, ``resample`` raises ValueError
naming the reason.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import numpy as np

TRIES = 20  # worlds drawn before resample gives up


@dataclass(frozen=True)
class GameSpec:
    name: str
    long_name: str
    config_class: type
    min_players: int
    max_players: int
    utility_bounds: Callable        # config -> (min, max) of any seat's return
    max_length: Callable            # config -> an upper bound on the decisions of an episode
    single_deal: Callable           # config -> True when only the end of the episode pays
    resample: Callable              # (Table, seat, numpy Generator) -> Table


def _config_dict(env) -> dict:
    return dataclasses.asdict(env.config)


def _consistent(real, world, seat: int, compare=None) -> bool:
    """The seat sees the same in both tables (observation, or its `compare` entries) and, when it is
    to act, has the same legal actions."""
    a, b = real.observation(seat), world.observation(seat)
    if compare is not None:
        a, b = a[compare], b[compare]
    if not np.array_equal(a, b) or real.actor != world.actor:
        return False
    return real.actor != seat or np.array_equal(real.mask(), world.mask())


def _draw(real, seat: int, rng, build, what: str, compare=None):
    """Up to TRIES worlds from `build(rng)` (a Table, or None when the sampler finds none); the first
    one consistent for `seat` (on its `compare` observation entries, if given)."""
    for _ in range(TRIES):
        world = build(rng)
        if world is not None and _consistent(real, world, seat, compare):
            return world
    raise ValueError(f"cardzoo_{real.game}: no world consistent with seat {seat}'s information found "
                     f"in {TRIES} draws ({what})")


def _world(real, config, options, actions, rng):
    from cardzoo.openspiel import Table

    try:
        return Table(real.game, config, int(rng.integers(2 ** 62)), options, actions)
    except ValueError:  # an action the sampled world does not allow: not a consistent world
        return None


# ---- Court Piece -------------------------------------------------------------------------------

def _courtpiece_resample(real, seat, rng):
    from agents.courtpiece.search import Situation

    env = real.env
    ps = env.public_state()
    sit = Situation(ps, seat, real.observation(seat), _config_dict(env))
    legal = np.flatnonzero(real.mask()) if real.actor == seat else np.array([], int)
    if sit.call_supported(ps) is None and real.actor == seat and all(52 <= a <= 56 for a in legal):
        def build(g):
            order = sit.sample_call_orders(1, g)[0]
            deal = {"hands": [[int(c) for c in row] for row in order], "dealer": sit.dealer}
            return _world(real, real.config, {"deal": deal}, real.actions, g)
        return _draw(real, seat, rng, build, "trump call")
    if sit.supported is not None:
        raise ValueError(f"cardzoo_courtpiece: no information-set sampler for this position ({sit.supported})")

    def build(g):
        deal = sit.sample(g)
        return None if deal is None else _world(real, real.config, {"deal": deal}, real.actions, g)
    return _draw(real, seat, rng, build, "card play")


def _courtpiece_target(cfg) -> int:
    if cfg.match_target is not None:
        return int(cfg.match_target)
    return 5 if cfg.variant == "mendi_coat" else (3 if cfg.scoring == "kots" else 10)


def _courtpiece_bounds(cfg):
    if cfg.reward == "win_loss":
        return -1.0, 1.0
    gain = 3 if cfg.scoring == "kots" else max(4, int(cfg.split_win_points))
    if cfg.episode == "match":
        gain += _courtpiece_target(cfg) + 2  # the last bazi's gain and streak bonus on a score below target
    return -float(gain), float(gain)


def _courtpiece_length(cfg):
    bazi = 64 + 4 * (cfg.change_cards_limit + 1) + 8   # 52 cards, calls, reveals, changes
    if cfg.episode != "match":
        return bazi
    # a points bazi pays its winner >= 1 (CP-9.1), so a match ends within 2 * target - 1 bazis; but
    # most kots bazis pay nothing, and so does a Mendi Coat 2-2 split with split_win_points=0 (CP-11.9):
    # such a match has no bound, and this cap is one random play does not reach (it passed 100 bazis
    # a target point about once in a hundred kots matches)
    unbounded = cfg.scoring == "kots" or (cfg.variant == "mendi_coat" and cfg.split_win_points == 0)
    bazis = 1000 * _courtpiece_target(cfg) if unbounded else 2 * _courtpiece_target(cfg) + 1
    return bazi * bazis


# ---- LOPTI -------------------------------------------------------------------------------------

def _lopti_resample(real, seat, rng):
    from agents.lopti.search import Situation

    env = real.env
    ps = env.public_state()
    if ps["phase"] == "swap" and not env.config.session and real.options is None:
        return _draw(real, seat, rng, lambda g: _lopti_swap_world(real, seat, g), "swap")
    sit = Situation(ps, seat, real.observation(seat), _config_dict(env))
    if sit.supported is not None:
        raise ValueError(f"cardzoo_lopti: no information-set sampler for this position ({sit.supported})")

    def build(g):
        state = sit.sample(g)
        return None if state is None else _world(real, real.config, {"state": state}, (), g)
    return _draw(real, seat, rng, build, "play")


def _lopti_swap_world(real, seat, rng):
    """A deal for the swap phase (LO-2.4, LO-3) of a single round: everything public kept -- the
    face-up cards as dealt, each swap so far (the hand card it put face up was in that hand) -- and
    the seat's own hand as dealt; the other hands, the face-down cards and the draw pile redrawn.
    The swaps are then replayed (section 7.1 deal injection)."""
    from cardzoo.cards import parse_cards
    from cardzoo.openspiel import Table

    start = Table(real.game, real.config, real.seed, None)   # the deal: only public cards are read,
    dealt = start.env.public_state()["seats"]                 # and the seat's own hand
    now = real.env.public_state()["seats"]
    n = len(dealt)
    ups = [parse_cards(" ".join(s["up"])) for s in dealt]
    gave = [[c for c in parse_cards(" ".join(now[s]["up"])) if c not in ups[s]] for s in range(n)]
    hands = [parse_cards(start.env.hand(seat)) if s == seat else list(gave[s]) for s in range(n)]
    size = [len(parse_cards(start.env.hand(s))) if s == seat else dealt[s]["hand_size"] for s in range(n)]
    used = {c for group in ups + hands for c in group}
    pool = [c for c in range(52) if c not in used]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    k = 0
    seats = []
    for s in range(n):
        extra = size[s] - len(hands[s])
        hand, k = hands[s] + pool[k:k + extra], k + extra
        down, k = pool[k:k + 3], k + 3
        seats.append({"down": down, "up": ups[s], "hand": hand})
    deal = {"seats": seats, "draw": pool[k:], "dealer": int(real.env.public_state()["dealer"])}
    return _world(real, real.config, {"deal": deal}, real.actions, rng)


def _lopti_length(cfg):
    # LO-9.5 ends a round after max_moves plays; swaps, draws and tie-breaks come on top of them
    rnd = 2 * cfg.max_moves + 10 * cfg.num_players + 2 * cfg.rps_max_throws
    if not cfg.session:
        return rnd
    return cfg.session_rounds * (rnd + 100 * cfg.num_players + 2 * cfg.bracket_max_throws)


# ---- Sheng Ji ----------------------------------------------------------------------------------

def _shengji_resample(real, seat, rng):
    from agents.shengji.heuristic import SEL
    from agents.shengji.search import INFOSET_ENTRIES, Situation
    from cardzoo.openspiel import Table

    env = real.env
    cfg = _config_dict(env)
    if cfg.get("auto_forced"):
        raise ValueError("cardzoo_shengji: no information-set sampler with auto_forced=True "
                         "(the replayed worlds need every play as a decision)")
    if cfg.get("throw_penalty", "none") != "none" and env.public_state()["failed_throws"]:
        # a world replays the plays, not the failed attempts: the penalties they owe at the end of the
        # hand (SJ-7.4, SJ-10.1) would be missing from its score
        raise ValueError(f"cardzoo_shengji: no information-set sampler after a failed throw with "
                         f"throw_penalty={cfg['throw_penalty']!r} (a world would lose its penalty)")
    # A lead or follow is composed card by card (spec section 4): mid-composition, the world is drawn
    # where the composition began (the cards already selected are the seat's own last actions) and
    # the selections are replayed on it.
    selected = int(round(float(real.observation(seat)[SEL:SEL + 54].sum()))) if real.actor == seat else 0
    base = real if selected == 0 else Table(real.game, real.config, real.seed, real.options, real.actions[:-selected])
    tail = real.actions[len(real.actions) - selected:]
    sit = Situation(base.env.public_state(), seat, base.observation(seat), cfg)
    if sit.supported is not None:
        raise ValueError(f"cardzoo_shengji: no information-set sampler for this position ({sit.supported})")
    wcfg = {k: v for k, v in real.config.items() if k not in ("declaration_mode", "first_drawer")}
    wcfg["declaration_mode"] = "preset"

    def build(g):
        deals, good = sit.sample_many(g, 1)
        if not good[0]:
            return None
        deal = deals[0]
        return _world(real, wcfg, sit.reset_options([int(c) for c in deal]),
                      [int(a) for a in sit.history(deal)] + list(tail), g)
    return _draw(real, seat, rng, build, "lead or follow", INFOSET_ENTRIES)


def _shengji_bounds(cfg):
    if cfg.reward_mode == "match":
        return -1.0, 1.0
    if cfg.reward_mode == "levels":
        per_hand = 13 / 3                        # levels run 2..A: a team gains at most 13
    else:
        d = cfg.decks
        hand = {1: 12, 2: 25, 3: 39, 4: 52}[d]
        m = {"flat": 2, "single_or_multi": 4, "times_size": 2 * hand, "power_size": 2 ** hand}[cfg.kitty_multiplier]
        # failed throws (SJ-7.4) add |throw_penalty_points| each (a throw needs two cards: at most H - 1 a
        # hand) or per retracted card (at most H(H - 1)/2: every lead the whole hand, forced to one card)
        throws = {"none": 0, "per_attempt": hand - 1, "per_card": hand * (hand - 1) // 2}[cfg.throw_penalty]
        # every point card plus a kitty of tens and kings, multiplied, plus the penalties
        p = 100 * d + 10 * 8 * m + abs(cfg.throw_penalty_points) * throws
        per_hand = (1 + (p - 40 * d) // (20 * d)) / 3
    hands = cfg.max_hands if cfg.episode == "match" else 1
    return -per_hand * hands, per_hand * hands


def _shengji_length(cfg):
    hand = (3 * 54 * cfg.decks + 60) * (cfg.max_redeals + 1)   # a declaring window per card drawn, plays, DONEs
    return hand * (cfg.max_hands if cfg.episode == "match" else 1)


def _specs() -> dict[str, GameSpec]:
    from courtpiece_env.config import CourtPieceConfig
    from lopti_env.config import LoptiConfig
    from shengji_env.config import Config as ShengJiConfig

    return {
        "courtpiece": GameSpec("courtpiece", "Court Piece", CourtPieceConfig, 4, 4, _courtpiece_bounds,
                               _courtpiece_length, lambda c: c.episode == "bazi", _courtpiece_resample),
        "lopti": GameSpec("lopti", "LOPTI", LoptiConfig, 2, 5, lambda c: (-float(c.session_rounds if c.session else 1),
                                                                          float(c.session_rounds if c.session else 1)),
                          _lopti_length, lambda c: not c.session, _lopti_resample),
        "shengji": GameSpec("shengji", "Sheng Ji", ShengJiConfig, 4, 4, _shengji_bounds, _shengji_length,
                            lambda c: c.episode == "hand", _shengji_resample),
    }


GAMES = _specs()
