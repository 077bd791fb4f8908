"""LOPTI config (spec section 6) -> the integer arrays the kernels read."""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardzoo.options import check_bool, check_choice, check_int
from lopti_env.rules.codes import (C_BRMAX, C_EARLY, C_FD, C_MAXMOVES, C_MAXRULES, C_N, C_NCARRY, C_PTE, C_REWARD,
                                   C_ROUNDS, C_RPSMAX, C_SESSION, CFG_SIZE, MAX_RULES, NUM_ACTIONS, SW_HI,
                                   SW_LO, SWITCH_DEFAULTS, TPL)
from lopti_env.rules.made_rules import rule_valid

OBS_SIZE = 309
# Finite, so RL libraries accept the space: the largest entries are throw counts (<= the
# rps_max_throws / bracket_max_throws domain, 1e6) and rounds/scores (<= session_rounds, 1e4).
OBS_BOUNDS = (-1e6, 1e6)

# LO-12 base-rule switches by id (defaults and domains: rules/codes.py)
SWITCH_NAMES = ("CLEAR_RANK", "LOW_RANK", "LOW_BLOCKS_CLEAR", "SET_SIZE", "DRAW_BELOW", "DRAW_MODE",
                "VOLUNTARY_PICKUP", "CLEAR_EXTRA_MOVE", "SWAPS")
SWITCH_LO = tuple(int(v) for v in SW_LO)
SWITCH_HI = tuple(int(v) for v in SW_HI)


REWARD_SCHEMES = ("rank", "winner")


def is_valid_rule(t, X, G, N, others=()) -> bool:
    """LO-11.7 validity of (t, X, G, N) (any Python values) against other ACTIVE/REMOVED entries
    `others` ((t, X, G, N) tuples): the kernels' rule_valid on a rulebook of those entries."""
    vals = (t, X, G, N)
    if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in vals):
        return False
    if any(not -1 <= int(v) <= 255 for v in vals):  # far outside every field's domain (and int32-safe)
        return False
    book = np.zeros((max(1, len(others)), MAX_RULES), np.int32)
    for i, o in enumerate(others):
        book[i, :4] = o
        book[i, 5] = 1  # ACTIVE
    return bool(rule_valid(book, len(others), *(int(v) for v in vals), -1))


def _int_list(name, row, length):
    if not isinstance(row, (list, tuple, np.ndarray)) or len(row) != length:
        raise ValueError(f"option {name}: each rule must be a list of {length} ints, got {row!r}")
    out = []
    for v in row:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise ValueError(f"option {name}: rule {row!r} holds a non-int {v!r}")
        out.append(int(v))
    return tuple(out)


@dataclass(frozen=True)
class LoptiConfig:
    num_players: int = 4
    first_dealer: int = 0
    session: bool = False
    session_rounds: int = 5
    max_made_rules: int = 8
    initial_rules: Any = ()
    carryover_rules: Any = ()
    base_rules: Any = field(default_factory=dict)
    play_to_end: bool = True
    reward_scheme: str = "rank"
    max_moves: int = 1000
    rps_early_stop: bool = False
    rps_max_throws: int = 300
    bracket_max_throws: int = 30

    def __post_init__(self):
        # each int is stored as the Python int check_int returns (a numpy int stays out of JSON)
        n = check_int("num_players", self.num_players, 2, 5)
        ints = {"num_players": (2, 5), "first_dealer": (0, n - 1), "session_rounds": (1, 10_000),
                "max_made_rules": (1, 8), "max_moves": (1, 1_000_000), "rps_max_throws": (1, 1_000_000),
                "bracket_max_throws": (1, 1_000_000)}
        for name, (lo, hi) in ints.items():
            object.__setattr__(self, name, check_int(name, getattr(self, name), lo, hi))
        m = self.max_made_rules
        for name in ("session", "play_to_end", "rps_early_stop"):
            check_bool(name, getattr(self, name))
        check_choice("reward_scheme", self.reward_scheme, REWARD_SCHEMES)
        # base rules (LO-12)
        if not isinstance(self.base_rules, dict):
            raise ValueError(f"option base_rules={self.base_rules!r} must be a dict of LO-12 names to ints")
        sw = list(SWITCH_DEFAULTS)
        for name, value in self.base_rules.items():
            if name not in SWITCH_NAMES:
                raise ValueError(f"option base_rules: unknown switch {name!r}; known: {', '.join(SWITCH_NAMES)}")
            i = SWITCH_NAMES.index(name)
            sw[i] = check_int(f"base_rules[{name!r}]", value, SWITCH_LO[i], SWITCH_HI[i])
        if sw[0] == sw[1]:
            raise ValueError(f"option base_rules: CLEAR_RANK and LOW_RANK must differ (both {sw[0]})")
        object.__setattr__(self, "base_rules", {k: sw[SWITCH_NAMES.index(k)]
                                                for k in self.base_rules})
        # initial rules [t, X, G, N] (LO-11.7)
        if not isinstance(self.initial_rules, (list, tuple)):
            raise ValueError("option initial_rules must be a list of [t, X, G, N] rows")
        rows = []
        for row in self.initial_rules:
            r = _int_list("initial_rules", row, 4)
            if not is_valid_rule(*r, others=rows):
                raise ValueError(f"option initial_rules: invalid or duplicate rule {list(r)} (LO-11.7)")
            rows.append(r)
        if len(rows) > m:
            raise ValueError(f"option initial_rules: {len(rows)} rules do not fit max_made_rules={m}")
        object.__setattr__(self, "initial_rules", tuple(rows))
        if not isinstance(self.carryover_rules, (list, tuple)):
            raise ValueError("option carryover_rules must be a list of [t, X, G, N, maker] rows")
        crows = []
        for row in self.carryover_rules:
            r = _int_list("carryover_rules", row, 5)
            if not is_valid_rule(*r[:4]):
                raise ValueError(f"option carryover_rules: invalid rule {list(r)} (LO-11.7)")
            if not -1 <= r[4] < n:
                raise ValueError(f"option carryover_rules: maker {r[4]} of {list(r)} is not -1 or a seat 0..{n - 1}")
            crows.append(r)
        object.__setattr__(self, "carryover_rules", tuple(crows))

    # ---- integer views for the kernels ----------------------------------------------------------
    def switches(self) -> np.ndarray:
        sw = list(SWITCH_DEFAULTS)
        for name, value in self.base_rules.items():
            sw[SWITCH_NAMES.index(name)] = int(value)
        return np.array(sw, np.int32)

    def num_rounds(self) -> int:
        return self.session_rounds if self.session else 1

    def cfg_array(self) -> np.ndarray:
        c = np.zeros(CFG_SIZE, np.int32)
        c[C_N] = self.num_players
        c[C_FD] = self.first_dealer
        c[C_SESSION] = int(self.session)
        c[C_ROUNDS] = self.num_rounds()
        c[C_MAXRULES] = self.max_made_rules
        c[C_PTE] = int(self.play_to_end)
        c[C_REWARD] = REWARD_SCHEMES.index(self.reward_scheme)
        c[C_MAXMOVES] = self.max_moves
        c[C_EARLY] = int(self.rps_early_stop)
        c[C_RPSMAX] = self.rps_max_throws
        c[C_BRMAX] = self.bracket_max_throws
        c[C_NCARRY] = len(self.carryover_rules) if self.session else 0
        return c

    def carry_array(self) -> np.ndarray:
        a = np.zeros((max(1, len(self.carryover_rules)), 5), np.int32)
        for i, r in enumerate(self.carryover_rules):
            a[i] = r
        return a

    def rules_array(self) -> np.ndarray:
        """int32[8, 8] rulebook at session start: initial rules, maker -1, ACTIVE, made_round -1."""
        a = np.zeros((8, 8), np.int32)
        for i, r in enumerate(self.initial_rules):
            a[i, :4] = r
            a[i, 4] = -1
            a[i, 5] = 1
            a[i, 6] = -1
        return a


def make_lopti_config(kwargs: dict) -> LoptiConfig:
    from cardzoo.options import make_config
    return make_config(LoptiConfig, kwargs)


__all__ = ["LoptiConfig", "make_lopti_config", "TPL", "SWITCH_NAMES", "SWITCH_DEFAULTS", "NUM_ACTIONS",
           "OBS_SIZE"]
