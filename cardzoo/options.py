"""Validation of config options, shared by every game's config.py.

Each game's config is a frozen dataclass whose fields are exactly the spec's option names; its
__post_init__ calls these checks. `make_config` turns keyword arguments into that dataclass and
reports an unknown keyword as ValueError (not the TypeError a bare dataclass would raise).
"""
from __future__ import annotations

import dataclasses
import numbers


def make_config(cls, kwargs: dict):
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(kwargs) - names)
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(map(repr, unknown))}; known options: {', '.join(sorted(names))}"
        )
    return cls(**kwargs)


def check_choice(name: str, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"option {name}={value!r} is not one of {', '.join(map(repr, choices))}")
    return value


def check_bool(name: str, value):
    if not isinstance(value, bool):
        raise ValueError(f"option {name}={value!r} must be a bool")
    return value


def check_int(name: str, value, lo=None, hi=None, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"option {name}={value!r} must be an int" + (" or None" if allow_none else ""))
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        lo_s = "" if lo is None else f"{lo} <= "
        hi_s = "" if hi is None else f" <= {hi}"
        raise ValueError(f"option {name}={value!r} is out of range ({lo_s}{name}{hi_s})")
    return int(value)


def check_positive_number(name: str, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"option {name}={value!r} must be a number > 0")
    return value


def check_action(action, num_actions: int) -> int:
    """An action id from the user: a Python or numpy integer in range, else ValueError."""
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        raise ValueError(f"action {action!r} is not an int in 0..{num_actions - 1}")
    a = int(action)
    if not 0 <= a < num_actions:
        raise ValueError(f"action {a} is outside 0..{num_actions - 1}")
    return a
