"""Court Piece configuration: the section 6 options as a frozen dataclass (rules spec 9.1 scopes).

`CourtPieceConfig.to_array()` gives the int64 vector the kernels read (indices `C_*` below).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from cardzoo import options as opt

VARIANTS = ("single_sar", "double_sar", "chhupa_rang", "be_rang", "mendi_coat")
SINGLE_SAR, DOUBLE_SAR, CHHUPA_RANG, BE_RANG, MENDI_COAT = range(5)

# indices into the kernel config vector
C_VARIANT = 0
C_BAND = 1
C_KOTS = 2
C_TARGET = 3
C_MATCH = 4
C_WINLOSS = 5
C_STREAK = 6
C_TFF = 7
C_ACE_ON_ACE = 8
C_TRUMP_ACE_BLOCKS = 9
C_CLOSED_11_12 = 10
C_CHANGE_CARDS = 11
C_CC_LIMIT = 12
C_CHANGE_TRUMP = 13
C_PLAY_OUT = 14
C_SPLIT_WIN = 15
CFG_LEN = 16


@dataclasses.dataclass(frozen=True)
class CourtPieceConfig:
    variant: str = "single_sar"
    mendi_trump: str = "katte"
    scoring: str = "points"
    match_target: int | None = None
    episode: str = "bazi"
    reward: str = "score"
    streak_bonus: bool = True
    trump_from_first_five: bool = True
    ace_on_ace: bool = False
    trump_ace_blocks: bool = False
    closed_11_12: bool = False
    change_cards: bool = False
    change_cards_limit: int = 1
    change_trump: bool = False
    play_out: bool = False
    split_win_points: int = 1
    # CP-12.1: the env has no clock; the three limits are information for a match runner
    call_seconds: float = 20
    first_game_call_seconds: float = 10
    band_hide_seconds: float = 20

    def __post_init__(self):
        opt.check_choice("variant", self.variant, VARIANTS)
        opt.check_choice("mendi_trump", self.mendi_trump, ("katte", "band"))
        opt.check_choice("scoring", self.scoring, ("points", "kots"))
        # ints are stored as Python ints (a numpy int stays out of public_state and JSON)
        object.__setattr__(self, "match_target", opt.check_int("match_target", self.match_target, lo=1,
                                                               allow_none=True))
        opt.check_choice("episode", self.episode, ("bazi", "match"))
        opt.check_choice("reward", self.reward, ("score", "win_loss"))
        for name in ("streak_bonus", "trump_from_first_five", "ace_on_ace", "trump_ace_blocks",
                     "closed_11_12", "change_cards", "change_trump", "play_out"):
            opt.check_bool(name, getattr(self, name))
        object.__setattr__(self, "change_cards_limit", opt.check_int("change_cards_limit", self.change_cards_limit, lo=1))
        object.__setattr__(self, "split_win_points", opt.check_int("split_win_points", self.split_win_points, lo=0))
        for name in ("call_seconds", "first_game_call_seconds", "band_hide_seconds"):
            object.__setattr__(self, name, opt.check_positive_number(name, getattr(self, name)))
        # scope of variant-specific options (spec 9.1): a non-default value outside its scope is an error
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        scope = {
            "ace_on_ace": ("double_sar",),
            "trump_ace_blocks": ("double_sar",),
            "closed_11_12": ("double_sar",),
            "trump_from_first_five": ("single_sar", "double_sar"),
            "change_trump": ("single_sar", "double_sar", "chhupa_rang"),
            "scoring": ("single_sar", "double_sar", "chhupa_rang", "be_rang"),
            "mendi_trump": ("mendi_coat",),
            "split_win_points": ("mendi_coat",),
        }
        for name, allowed in scope.items():
            value = getattr(self, name)
            if self.variant not in allowed and value != defaults[name]:
                raise ValueError(
                    f"option {name}={value!r} is not available with variant={self.variant!r} "
                    f"(only with {', '.join(allowed)})")

    @property
    def variant_id(self) -> int:
        return VARIANTS.index(self.variant)

    @property
    def band(self) -> bool:
        return self.variant == "mendi_coat" and self.mendi_trump == "band"

    @property
    def target(self) -> int:
        """The match target in force (CP-9.3, CP-11.11)."""
        if self.match_target is not None:
            return int(self.match_target)
        if self.variant == "mendi_coat":
            return 5
        return 3 if self.scoring == "kots" else 10

    @property
    def streak_active(self) -> bool:
        """CP-9.2 streak kept: match episodes of the Court Piece variants with streak_bonus."""
        return self.episode == "match" and self.streak_bonus and self.variant != "mendi_coat"

    def to_array(self) -> np.ndarray:
        a = np.zeros(CFG_LEN, np.int64)
        a[C_VARIANT] = self.variant_id
        a[C_BAND] = int(self.band)
        a[C_KOTS] = int(self.scoring == "kots")
        a[C_TARGET] = self.target
        a[C_MATCH] = int(self.episode == "match")
        a[C_WINLOSS] = int(self.reward == "win_loss")
        a[C_STREAK] = int(self.streak_active)
        a[C_TFF] = int(self.trump_from_first_five)
        a[C_ACE_ON_ACE] = int(self.ace_on_ace)
        a[C_TRUMP_ACE_BLOCKS] = int(self.trump_ace_blocks)
        a[C_CLOSED_11_12] = int(self.closed_11_12)
        a[C_CHANGE_CARDS] = int(self.change_cards)
        a[C_CC_LIMIT] = self.change_cards_limit
        a[C_CHANGE_TRUMP] = int(self.change_trump)
        a[C_PLAY_OUT] = int(self.play_out)
        a[C_SPLIT_WIN] = self.split_win_points
        return a


def make(**kwargs) -> CourtPieceConfig:
    """Keyword options -> validated config; unknown keyword or bad value -> ValueError."""
    return opt.make_config(CourtPieceConfig, kwargs)
