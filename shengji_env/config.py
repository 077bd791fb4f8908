"""Sheng Ji options (spec section 6) -> the int64 config vector the kernels read."""
from __future__ import annotations

import dataclasses

import numpy as np

from cardzoo.cards import rank_index
from cardzoo.options import MAX_INT, check_bool, check_choice, check_int, is_int, make_config

EPISODES = ("hand", "match")
REWARD_MODES = ("hand_score", "levels", "match")
DECLARATION_MODES = ("draw", "after_deal", "preset")
FIRST_BANKERS = ("final_declarer", "first_declarer")
NO_DECL_FIRST = ("redeal", "flip")
KITTY_FLIPS = ("first_card", "first_level_or_highest")
KITTY_MULTIPLIERS = ("flat", "times_size", "power_size", "single_or_multi")
THROW_PENALTIES = ("none", "per_attempt", "per_card")

# SJ-1.3 deal sizes: decks -> (cards per player H, kitty K)
DEAL_SIZES = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (52, 8)}

# indices into the config vector
C_DECKS = 0
C_H = 1
C_K = 2
C_START_LEVEL = 3
C_EPISODE = 4
C_MAX_HANDS = 5
C_REWARD = 6
C_DECL_MODE = 7
C_ALLOW_NT = 8
C_FIRST_BANKER = 9
C_FIRST_DRAWER = 10
C_NODECL = 11
C_MAX_REDEALS = 12
C_FLIP = 13
C_KMULT = 14
C_PENALTY = 15
C_PEN_PTS = 16
C_MUST_DEFEND = 17   # bit r set iff rank r must be defended (SJ-11.3)
C_AUTO = 18
NUM_CFG = 19


@dataclasses.dataclass(frozen=True)
class Config:
    decks: int = 2
    start_level: str = "2"
    episode: str = "hand"
    max_hands: int = 200
    reward_mode: str = "hand_score"
    declaration_mode: str = "draw"
    allow_no_trump: bool = True
    first_banker: str = "final_declarer"
    first_drawer: int = 0
    no_declaration_first_hand: str = "redeal"
    max_redeals: int = 3
    kitty_flip: str = "first_card"
    kitty_multiplier: str = "flat"
    throw_penalty: str = "none"
    throw_penalty_points: int = 10
    must_defend: tuple = ("A",)
    auto_forced: bool = False

    def __post_init__(self):
        if not is_int(self.decks) or self.decks not in DEAL_SIZES:
            raise ValueError(f"option decks={self.decks!r} must be one of the ints 1, 2, 3, 4")
        object.__setattr__(self, "decks", int(self.decks))  # numpy ints stored as Python ints
        if not isinstance(self.start_level, str):
            raise ValueError(f"option start_level={self.start_level!r} must be a rank string '2'..'A'")
        try:
            rank_index(self.start_level)
        except ValueError:
            raise ValueError(f"option start_level={self.start_level!r} must be a rank string '2'..'A'") from None
        check_choice("episode", self.episode, EPISODES)
        object.__setattr__(self, "max_hands", check_int("max_hands", self.max_hands, lo=1))
        check_choice("reward_mode", self.reward_mode, REWARD_MODES)
        check_choice("declaration_mode", self.declaration_mode, DECLARATION_MODES)
        check_bool("allow_no_trump", self.allow_no_trump)
        check_choice("first_banker", self.first_banker, FIRST_BANKERS)
        object.__setattr__(self, "first_drawer", check_int("first_drawer", self.first_drawer, lo=0, hi=3))
        check_choice("no_declaration_first_hand", self.no_declaration_first_hand, NO_DECL_FIRST)
        object.__setattr__(self, "max_redeals", check_int("max_redeals", self.max_redeals, lo=0))
        check_choice("kitty_flip", self.kitty_flip, KITTY_FLIPS)
        check_choice("kitty_multiplier", self.kitty_multiplier, KITTY_MULTIPLIERS)
        check_choice("throw_penalty", self.throw_penalty, THROW_PENALTIES)
        # section 6 sets no bound: the options' MAX_INT bounds |x| (docs/env_contract_inputs.md), so the
        # SJ-7.4 penalty of a hand (at most 1326 retracted cards times x) stays within its int64 fields
        object.__setattr__(self, "throw_penalty_points",
                           check_int("throw_penalty_points", self.throw_penalty_points, lo=-MAX_INT, hi=MAX_INT))
        if self.throw_penalty_points % 5 != 0:
            raise ValueError(f"option throw_penalty_points={self.throw_penalty_points!r} must be a multiple of 5")
        if isinstance(self.must_defend, str) or not isinstance(self.must_defend, (list, tuple)):
            raise ValueError(f"option must_defend={self.must_defend!r} must be a list of rank strings")
        for r in self.must_defend:
            if not isinstance(r, str):
                raise ValueError(f"option must_defend entry {r!r} must be a rank string '2'..'A'")
            try:
                rank_index(r)
            except ValueError:
                raise ValueError(f"option must_defend entry {r!r} must be a rank string '2'..'A'") from None
        object.__setattr__(self, "must_defend", tuple(self.must_defend))
        if self.reward_mode == "match" and self.episode != "match":
            raise ValueError("option reward_mode='match' needs episode='match'")
        check_bool("auto_forced", self.auto_forced)

    @property
    def hand_size(self) -> int:
        return DEAL_SIZES[self.decks][0]

    @property
    def kitty_size(self) -> int:
        return DEAL_SIZES[self.decks][1]

    def to_array(self) -> np.ndarray:
        h, k = DEAL_SIZES[self.decks]
        c = np.zeros(NUM_CFG, np.int64)
        c[C_DECKS] = self.decks
        c[C_H] = h
        c[C_K] = k
        c[C_START_LEVEL] = rank_index(self.start_level)
        c[C_EPISODE] = EPISODES.index(self.episode)
        c[C_MAX_HANDS] = self.max_hands
        c[C_REWARD] = REWARD_MODES.index(self.reward_mode)
        c[C_DECL_MODE] = DECLARATION_MODES.index(self.declaration_mode)
        c[C_ALLOW_NT] = int(self.allow_no_trump)
        c[C_FIRST_BANKER] = FIRST_BANKERS.index(self.first_banker)
        c[C_FIRST_DRAWER] = self.first_drawer
        c[C_NODECL] = NO_DECL_FIRST.index(self.no_declaration_first_hand)
        c[C_MAX_REDEALS] = self.max_redeals
        c[C_FLIP] = KITTY_FLIPS.index(self.kitty_flip)
        c[C_KMULT] = KITTY_MULTIPLIERS.index(self.kitty_multiplier)
        c[C_PENALTY] = THROW_PENALTIES.index(self.throw_penalty)
        c[C_PEN_PTS] = self.throw_penalty_points
        md = 0
        for r in self.must_defend:
            md |= 1 << rank_index(r)
        c[C_MUST_DEFEND] = md
        c[C_AUTO] = int(self.auto_forced)
        return c


def make(**kwargs) -> Config:
    """Keyword options (section 6) -> a validated Config; unknown keywords raise ValueError."""
    return make_config(Config, kwargs)
