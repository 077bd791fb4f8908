"""Validation of user input, shared by every game: config options, seeds, actions, call order.

Each game's config is a frozen dataclass whose fields are exactly the spec's option names; its
__post_init__ calls these checks. `make_config` turns keyword arguments into that dataclass and
reports an unknown keyword as ValueError (not the TypeError a bare dataclass would raise).

Every check is strict about types (an int option takes a Python or numpy int, never a bool or a
float such as 2.0; a bool option takes a bool) and raises ValueError naming the input, so a bad
value never reaches the kernels, whose fixed-width integer fields would wrap or overflow.
"""
from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np

MAX_INT = 10**9
"""Bound of every int option or injected count whose spec range has no upper (or lower) end: the
kernels keep such values (match targets, scores, limits) in 32-bit fields, and a bound well below
2**31 leaves room for what play adds to them."""

SEED_MAX = 2**63 - 1
"""Largest seed: a seed is None or an int in 0..SEED_MAX (numpy's default_rng takes any int >= 0;
the rollout kernels take a non-negative int64). A batch reset seeds game b with seed + b, so
seed + n - 1 must stay within the range too."""


class NotResetError(ValueError, RuntimeError):
    """A call that needs a started episode before the first successful reset(). A ValueError like
    every other refused input (and a RuntimeError, as it is about the call order)."""


def require_reset(is_reset: bool, call: str) -> None:
    """The one before-reset check of env(), raw_env() and BatchGame (docs/env_contract_inputs.md)."""
    if not is_reset:
        raise NotResetError(f"call reset() before {call}(): no episode has been started")


def make_config(cls, kwargs: dict):
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(map(str, set(kwargs) - names))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(map(repr, unknown))}; known options: {', '.join(sorted(names))}"
        )
    return cls(**kwargs)


def is_int(value) -> bool:
    """A Python or numpy integer, not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_choice(name: str, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"option {name}={value!r} is not one of {', '.join(map(repr, choices))}")
    return value


def check_bool(name: str, value):
    if not isinstance(value, bool):
        raise ValueError(f"option {name}={value!r} must be a bool")
    return value


def check_int(name: str, value, lo=None, hi=None, allow_none=False, what="option"):
    """An int in lo..hi (each end defaults to -MAX_INT / MAX_INT); None too with allow_none."""
    if value is None and allow_none:
        return None
    if not is_int(value):
        raise ValueError(f"{what} {name}={value!r} must be an int" + (" or None" if allow_none else ""))
    lo = -MAX_INT if lo is None else lo
    hi = MAX_INT if hi is None else hi
    if not lo <= value <= hi:
        raise ValueError(f"{what} {name}={value!r} is out of range ({lo} <= {name} <= {hi})")
    return int(value)


def check_number(name: str, value, lo=None, hi=None, what="option"):
    """A finite int or float (Python or numpy, not a bool) in lo..hi (each end open if None), returned
    as a Python int or float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not _finite(value):
        raise ValueError(f"{what} {name}={value!r} must be a finite number")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{what} {name}={value!r} is out of range ({lo} <= {name} <= {hi})")
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _finite(value) -> bool:
    """Finite as a float: an int too large for one (10**400) is refused, not an OverflowError here or
    later where a runner reads the option as a float."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def check_positive_number(name: str, value):
    number = check_number(name, value)
    if not number > 0:
        raise ValueError(f"option {name}={value!r} must be a number > 0")
    return number


def check_seed(seed, count: int = 1, name: str = "seed"):
    """None (fresh entropy) or an int in 0..SEED_MAX - (count - 1): the seed of one game, or of
    count games seeded seed, seed + 1, ... (BatchGame). Returns None or a Python int."""
    if seed is None:
        return None
    top = SEED_MAX - (count - 1)
    if seed.__class__ is int and 0 <= seed <= top:  # the common case, without the ABC check (every reset)
        return seed
    if not is_int(seed):
        raise ValueError(f"{name}={seed!r} must be None or an int in 0..{top}")
    if not 0 <= seed <= top:
        extra = f" (game b of {count} is seeded {name} + b)" if count > 1 else ""
        raise ValueError(f"{name}={seed!r} is outside 0..{top}{extra}")
    return int(seed)


def int_array(value, name: str) -> np.ndarray:
    """np.asarray(value), refusing a bool inside a plain (nested) list or tuple: numpy reads
    [True, 5] as the int array [1, 5], and a bool is never an int here. Arrays pass as they are
    (their dtype says what they hold); the dtype and shape checks are the caller's."""
    arr = np.asarray(value)
    if arr.dtype.kind in "iu" and arr.size and not isinstance(value, np.ndarray):
        for i, v in enumerate(np.asarray(value, dtype=object).ravel()):
            if isinstance(v, (bool, np.bool_)):
                raise ValueError(f"{name}: a bool ({v!r}) where an int is expected (flat entry {i})")
    return arr


def check_action(action, num_actions: int) -> int:
    """An action id from the user: a Python or numpy integer (or a 0-d integer array, what a policy's
    predict() gives for one observation) in range, else ValueError. Floats and text are refused,
    never truncated or parsed."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action[()]
    if not is_int(action):
        raise ValueError(f"action {action!r} is not an int in 0..{num_actions - 1}")
    a = int(action)
    if not 0 <= a < num_actions:
        raise ValueError(f"action {a} is outside 0..{num_actions - 1}")
    return a
