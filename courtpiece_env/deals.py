"""Deal injection, the draw and the generator draws of section 7 (plain Python, shared by the AEC
env and BatchGame so that game b of BatchGame.reset(seed=s) is the AEC env reset with seed s + b).

Everything here validates first and raises ValueError naming the problem; nothing is committed to a
game until the whole reset has been checked.
"""
from __future__ import annotations

import numbers

import numpy as np

from cardzoo.cards import card_text, parse_cards
from cardzoo.options import MAX_INT, is_int
from courtpiece_env.rules.deal import change_order, order_from_perm

DEAL_KEYS = ("hands", "dealer", "draw", "turned", "band_timeout", "change_cards")
FIRST_ONLY = ("dealer", "draw", "turned", "band_timeout")
OPTION_KEYS = ("deal", "deals", "match_state")


def _seat(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) <= 3:
        raise ValueError(f"{what} must be a seat 0..3, got {value!r}")
    return int(value)


def _one_card(value, what):
    try:
        cards = parse_cards([value]) if not isinstance(value, str) else parse_cards(value)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from None
    if len(cards) != 1:
        raise ValueError(f"{what} must be one card, got {value!r}")
    return cards[0]


def parse_hands(hands, what="deal"):
    """Four entries of 13 cards in deal order, all 52 cards once -> int8[4, 13]. An entry is card text,
    or a list or 1-d array of cards; an int array [4, 13] is the four entries at once."""
    if isinstance(hands, np.ndarray) and hands.ndim == 2:
        hands = list(hands)
    if not isinstance(hands, (list, tuple)) or len(hands) != 4:
        raise ValueError(f"{what}: 'hands' must be a list of four hands (seats 0..3)")
    out = np.zeros((4, 13), np.int8)
    seen = {}
    for seat, entry in enumerate(hands):
        if not isinstance(entry, (str, list, tuple, np.ndarray)):
            raise ValueError(f"{what}: hand of seat {seat} must be a string of card texts or a list of 13 cards")
        try:
            cards = parse_cards(entry)
        except ValueError as e:
            raise ValueError(f"{what}: hand of seat {seat}: {e}") from None
        if len(cards) != 13:
            raise ValueError(f"{what}: hand of seat {seat} has {len(cards)} cards, expected 13")
        for c in cards:
            if c in seen:
                raise ValueError(f"{what}: card {card_text(c)} appears twice (seats {seen[c]} and {seat})")
            seen[c] = seat
        out[seat] = cards
    return out


def turned_fits(card, order, fc):
    """Section 7: an injected "turned" card must lie in the first chooser's second packet, where
    CP-3.5 and CP-7.8 take their card from (`order`: each seat's 13 cards in deal order)."""
    return card in order[fc, 5:9].tolist()


def band_timeout_fits(card, order, fc):
    """Section 7: an injected "band_timeout" card must lie in d+1's first five (CP-11.5)."""
    return card in order[fc, 0:5].tolist()


class Deal:
    """A validated entry of "deal" / "deals"."""

    def __init__(self, deal, first: bool, what: str):
        if not isinstance(deal, dict):
            raise ValueError(f"{what} must be a dict, got {type(deal).__name__}")
        unknown = [k for k in deal if k not in DEAL_KEYS]
        if unknown:
            raise ValueError(f"{what}: unknown key(s) {', '.join(map(repr, unknown))}; "
                             f"known keys: {', '.join(DEAL_KEYS)}")
        if not first:
            bad = [k for k in FIRST_ONLY if k in deal]
            if bad:
                raise ValueError(f"{what}: {', '.join(map(repr, bad))} may appear only in the first deal "
                                 "of an episode")
        self.what = what
        self.hands = parse_hands(deal["hands"], what) if "hands" in deal else None
        self.dealer = _seat(deal["dealer"], f"{what}: 'dealer'") if "dealer" in deal else None
        self.draw = None
        if "draw" in deal:
            if self.dealer is not None:
                raise ValueError(f"{what}: 'draw' cannot be given together with 'dealer'")
            d = deal["draw"]
            if not isinstance(d, (list, tuple)):
                raise ValueError(f"{what}: 'draw' must be a list of card texts")
            cards = [_one_card(x, f"{what}: 'draw'") for x in d]
            if len(set(cards)) != len(cards):
                raise ValueError(f"{what}: the cards of 'draw' are not distinct")
            self.draw = cards
        self.turned = _one_card(deal["turned"], f"{what}: 'turned'") if "turned" in deal else None
        self.band_timeout = (_one_card(deal["band_timeout"], f"{what}: 'band_timeout'")
                             if "band_timeout" in deal else None)
        self.change_cards = []
        if "change_cards" in deal:
            cc = deal["change_cards"]
            if not isinstance(cc, (list, tuple)):
                raise ValueError(f"{what}: 'change_cards' must be a list of {{'seat': s, 'hands': [...]}}")
            for i, entry in enumerate(cc):
                w = f"{what}: change_cards[{i}]"
                if not isinstance(entry, dict) or set(entry) != {"seat", "hands"}:
                    raise ValueError(f"{w} must be a dict with exactly the keys 'seat' and 'hands'")
                self.change_cards.append((_seat(entry["seat"], f"{w} 'seat'"), parse_hands(entry["hands"], w)))

    def check_against(self, order, dealer):
        """Checks that need the dealt cards and the dealer (section 7)."""
        if self.turned is None and self.band_timeout is None and not self.change_cards:
            return
        fc = (dealer + 1) % 4
        if self.turned is not None and not turned_fits(self.turned, order, fc):
            raise ValueError(f"{self.what}: 'turned' {card_text(self.turned)} is not in the first chooser's "
                             f"(seat {fc}) second packet")
        if self.band_timeout is not None and not band_timeout_fits(self.band_timeout, order, fc):
            raise ValueError(f"{self.what}: 'band_timeout' {card_text(self.band_timeout)} is not in the "
                             f"first five of seat {fc}")
        fives = [set(int(c) for c in order[s, :5]) for s in range(4)]
        for i, (seat, h) in enumerate(self.change_cards):
            for other in range(4):
                if other != seat and set(int(c) for c in h[other, :5]) != fives[other]:
                    raise ValueError(f"{self.what}: change_cards[{i}] changes the first five of seat {other}; "
                                     f"only seat {seat} may get new cards")
            fives[seat] = set(int(c) for c in h[seat, :5])


def run_draw(cards):
    """CP-2.3 with cards drawn in order (seats 0..3, then tied seats ascending); returns the winner
    or raises IndexError when the cards run out."""
    it = iter(cards)
    contenders = [0, 1, 2, 3]
    while True:
        ranks = {s: int(next(it)) % 13 for s in contenders}
        best = max(ranks.values())
        tied = [s for s in contenders if ranks[s] == best]
        if len(tied) == 1:
            return tied[0]
        contenders = tied


def deal_order(rng, dealer):
    """Section 7 step 2 from the generator."""
    order = np.zeros((4, 13), np.int8)
    order_from_perm(rng.permutation(52).astype(np.int64), dealer, order)
    return order


class Episode:
    """The per-episode Python side of one game: its generator, the later deals and the events of the
    current bazi that a deal injection fixed."""

    def __init__(self, rng, later, turned, band_timeout, change_cards):
        self.rng = rng
        self.later = later
        self.turned = turned
        self.band_timeout = band_timeout
        self.change_cards = list(change_cards)

    def next_bazi(self, dealer):
        """The order of the next bazi in a match (dealer from the rotation)."""
        self.turned = None
        self.band_timeout = None
        self.change_cards = []
        if self.later:
            d = self.later.pop(0)
            self.change_cards = list(d.change_cards)
            if d.hands is not None:
                return d.hands.copy()
        return deal_order(self.rng, dealer)

    def change_cards_order(self, order, seat, dealer):
        """CP-10.1 for `seat`: an injected entry (if the next one is this seat's and fits) or the generator."""
        if self.change_cards and self.change_cards[0][0] == seat:
            h = self.change_cards[0][1]
            if all(set(h[o, :5].tolist()) == set(order[o, :5].tolist()) for o in range(4) if o != seat):
                self.change_cards.pop(0)
                return h.copy()
        q = self.rng.permutation(37).astype(np.int64)
        out = np.zeros((4, 13), np.int8)
        change_order(np.asarray(order, np.int8), seat, dealer, q, out)
        return out

    def turned_card(self, order, fc):
        """CP-3.5 / CP-7.8 card from the current `order`: the injected one while it is still in the first
        chooser's second packet, else second packet[rng.integers(4)] (section 7, step 3). A change of
        cards (CP-10.1) re-deals every second packet, so an injected card checked against the deal as
        dealt may have gone to another seat; using it then would turn up or lay face down another
        seat's card (docs/RULINGS.md, Court Piece 9)."""
        if self.turned is not None and turned_fits(self.turned, order, fc):
            return self.turned
        return int(order[fc, 5 + int(self.rng.integers(4))])

    def band_card(self, order, fc):
        """CP-11.5 timeout card from the current `order`: the injected one while it is still in d+1's
        first five (his change of cards, CP-10.1, replaces them), else first five[rng.integers(5)]."""
        if self.band_timeout is not None and band_timeout_fits(self.band_timeout, order, fc):
            return self.band_timeout
        return int(order[fc, int(self.rng.integers(5))])


def check_options(options, config):
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, not {type(options).__name__}")
    # (an unknown top-level key never gets here: the AEC adapter warns about it and drops it, 9.6)
    if "deal" in options and "deals" in options:
        raise ValueError("give either options['deal'] or options['deals'], not both")
    return options


def parse_match_state(ms, config):
    if config.episode != "match":
        raise ValueError("options['match_state'] is only for episode='match'")
    if not isinstance(ms, dict):
        raise ValueError("match_state must be a dict with 'score', 'streak' and optionally 'bazi_index'")
    unknown = [k for k in ms if k not in ("score", "streak", "bazi_index")]
    if unknown:
        raise ValueError(f"match_state: unknown key(s) {', '.join(map(repr, unknown))}")
    score = ms.get("score", [0, 0])
    # bounded (MAX_INT) before the kernels' 32-bit score fields can wrap
    if (not isinstance(score, (list, tuple)) or len(score) != 2
            or any(not is_int(x) or not 0 <= x <= MAX_INT for x in score)):
        raise ValueError(f"match_state: 'score' must be [x, y] with ints in 0..{MAX_INT}, got {score!r}")
    for t in (0, 1):  # CP-9.3: a team at the target has won, so that match is over, not one to start
        if score[t] >= config.target:
            raise ValueError(f"match_state: team {t}'s score {score[t]} already reaches the match target "
                             f"{config.target} (CP-9.3): that match is over")
    streak = ms.get("streak", [None, 0])
    if not isinstance(streak, (list, tuple)) or len(streak) != 2:
        raise ValueError(f"match_state: 'streak' must be [team or None, count], got {streak!r}")
    team, count = streak
    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise ValueError(f"match_state: streak count must be an int, got {count!r}")
    if team is None:
        if count != 0:
            raise ValueError(f"match_state: streak [None, {count}] is malformed (no team means count 0)")
    else:
        if isinstance(team, bool) or not isinstance(team, numbers.Integral) or team not in (0, 1):
            raise ValueError(f"match_state: streak team must be 0, 1 or None, got {team!r}")
        if not 1 <= count <= 6:
            raise ValueError(f"match_state: streak [{team}, {count}] is malformed (count must be 1..6)")
    bazi_index = ms.get("bazi_index", 0)
    if not is_int(bazi_index) or not 0 <= bazi_index <= MAX_INT:
        raise ValueError(f"match_state: 'bazi_index' must be an int in 0..{MAX_INT}, got {bazi_index!r}")
    return [int(score[0]), int(score[1])], (-1 if team is None else int(team), int(count)), int(bazi_index)


def prepare_episode(config, rng, options):
    """Validate reset options and draw the first bazi (section 7 steps 1-2).
    Returns (episode, dealer, order, score, streak, bazi_index); raises ValueError, commits nothing."""
    options = check_options(options, config)
    score, streak, bazi_index = [0, 0], (-1, 0), 0
    if "match_state" in options:
        score, streak, bazi_index = parse_match_state(options["match_state"], config)
    if not config.streak_active:
        streak = (-1, 0)
    first = None
    later = []
    if "deal" in options:
        first = Deal(options["deal"], True, "deal")
    elif "deals" in options:
        deals = options["deals"]
        if not isinstance(deals, (list, tuple)):
            raise ValueError("options['deals'] must be a list of deals")
        if config.episode == "bazi" and len(deals) != 1:
            raise ValueError(f"options['deals'] must hold exactly one deal in a bazi episode, got {len(deals)}")
        parsed = [Deal(d, i == 0, f"deals[{i}]") for i, d in enumerate(deals)]
        if parsed:
            first, later = parsed[0], parsed[1:]
    if first is None:
        first = Deal({}, True, "deal")
    # 1. the draw
    dealer = first.dealer
    if dealer is None:
        if first.draw is not None:
            try:
                winner = run_draw(first.draw)
            except (StopIteration, RuntimeError):
                raise ValueError(f"{first.what}: 'draw' has too few cards for its ties") from None
        else:
            winner = run_draw(rng.permutation(52).tolist())
        dealer = (winner - 1) % 4
    # 2. the deal
    order = first.hands.copy() if first.hands is not None else deal_order(rng, dealer)
    first.check_against(order, dealer)
    for d in later:
        if d.hands is not None and d.change_cards:
            # later deals: the dealer is not known yet, so only the first-five rule can be checked
            fives = [set(d.hands[s, :5].tolist()) for s in range(4)]
            for i, (seat, h) in enumerate(d.change_cards):
                for other in range(4):
                    if other != seat and set(h[other, :5].tolist()) != fives[other]:
                        raise ValueError(f"{d.what}: change_cards[{i}] changes the first five of seat {other}")
                fives[seat] = set(h[seat, :5].tolist())
    ep = Episode(rng, later, first.turned, first.band_timeout, first.change_cards)
    return ep, dealer, order, score, streak, bazi_index
