"""The section 3 reference observation of one seat, flattened in the 9.7 layout (938 floats).

The numba kernels live in kernels.py (one file, so numba's on-disk cache of them is invalidated
together with the rule kernels they call); this module is their public home.
"""
from __future__ import annotations

from .kernels import (OBS_SIZE, OFF_BANKER, OFF_DEALT, OFF_HAND, OFF_KITTY, OFF_LEADER, OFF_LEADN,  # noqa: F401
                      OFF_LEVEL, OFF_LEVELS, OFF_MASK, OFF_PHASE, OFF_PLAYED, OFF_POINTS, OFF_SEL, OFF_SHOWN,
                      OFF_SIZES, OFF_STANDING, OFF_TRICK, OFF_TRUMP, batch_observe, observe_seat)

__all__ = ["OBS_SIZE", "observe_seat", "batch_observe"]
