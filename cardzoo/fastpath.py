"""The fast path every game's AEC env takes, in one place: the step report, compiled entry points and
the shared zero mask.

**The step report.** A game's one-call step kernel (the AEC adapter's `_game_quick_step`, cardzoo.aec)
checks the actor's mask itself and reports how the step moved the game, the same way in every game:

    seat >= 0                          a quiet step: the same phase and result, nobody paid, `seat`
                                       acts next
    PHASE_STEP - seat - 8 * phase      quiet but for the phase, now the game's phase code `phase`
                                       (its name: the env's `phase_names[phase]`)
    RESYNC (-1)                        anything else: the adapter brings everything up to date from
                                       the hooks
    ILLEGAL (-2)                       the mask does not allow the action; nothing changed

The constants are plain ints, so numba kernels compile them in. Seats are below 8.
"""
from __future__ import annotations

import numpy as np

RESYNC = -1
ILLEGAL = -2
PHASE_STEP = -3
"""`_game_quick_step` returns `PHASE_STEP - seat - 8 * phase` for a step that only moved the turn to
`seat` and changed the phase to the game's code `phase` (see the hook)."""


class KernelEntry:
    """A jitted kernel called at an AEC env's fixed argument types: the first call goes through the
    numba dispatcher (compiling or loading the cache), later calls go straight to the compiled entry
    point of that signature, skipping the per-call type dispatch (for a record array argument that
    dispatch costs more than a whole kernel step). Every array an env passes is its own C-contiguous
    array of a fixed dtype, so the signature never changes; anything unexpected (another signature,
    a numba without entry points, NUMBA_DISABLE_JIT) keeps the dispatcher."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        self.fn = None

    def at(self, *args):
        """The fast callable for the types of these sample arguments, compiled (or loaded from the
        cache) now without running the kernel; the dispatcher itself where numba cannot give one."""
        if self.fn is None:
            compile_ = getattr(self.dispatcher, "compile", None)
            if compile_ is None:
                return self.dispatcher
            from numba import typeof
            self.fn = compile_(tuple(typeof(a) for a in args))
        return self.fn

    def __call__(self, *args):
        if self.fn is not None:
            return self.fn(*args)
        out = self.dispatcher(*args)
        from numba import typeof
        sig = tuple(typeof(a) for a in args)
        over = self.dispatcher.overloads.get(sig) if hasattr(self.dispatcher, "overloads") else None
        self.fn = getattr(over, "entry_point", None) or self.dispatcher
        return out


def zero_mask(n: int) -> np.ndarray:
    """int8[n] zeros that nobody can write: the array's memory is an immutable bytes object, so
    `flags.writeable = True` is refused too. It is the mask handed to every seat not to act."""
    return np.frombuffer(bytes(n), np.int8)
