"""The scratch arrays of the play kernels, allocated once per call of a batch kernel so the hot path
allocates nothing, and the named offsets of what each holds.

Each is one flat array (one argument to pass around, where every array argument costs reference
counting); the users carve views at the offsets below or index them directly.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..state import MAX_COMP
from .order import NPOS

# ws (make_ws, int64): the play kernels' work
WS_PC = 0              # (NPOS, 4): cards of one esuit by position (esuit_table's pc)
WS_PN = 64             # (NPOS,): how many cards each position holds (esuit_table's pn)
WS_CNT = 80            # (54,): a copy of the cards being decomposed or partitioned
WS_COMP_K = 134        # (MAX_COMP,): copies k of each component of a decomposition
WS_COMP_L = 198        # (MAX_COMP,): length L of each component
WS_COMP_TOP = 262      # (MAX_COMP,): top position of each component
WS_COMP_CARDS = 326    # (MAX_COMP, NPOS): the card of each component at each of its L positions
WS_SHAPE_K = 1350      # (MAX_COMP,): copies k of the format's shapes, sorted (play strength)
WS_SHAPE_L = 1414      # (MAX_COMP,): lengths L of those shapes
WS_TAKEN = 1478        # (MAX_COMP + 1, NPOS): the partition search's cards taken at each depth
WS_PLAY = 2518         # (54,): the play a lead puts on the table
WS_THROW_PM = 2572     # (20,): throw check masks, [5 dq + k] = positions seat leader+dq holds k times
WS_CFG = 2592          # (32,): a copy of the config vector (set_ws_cfg)
WS_SEL_AT = 2624       # (NPOS,): a lead's selection by position: the selected card there
WS_SEL_PK = 2640       # (16,): [k] = positions where the selection holds >= k copies (zero above D)
WS_SIZE = 2656

# the AEC env's one work buffer (int8) for step.env_step: the env keeps it, so an env step allocates
# nothing, and it is one array argument
WORK_TMP = 128         # int8 (84,): auto_forced's scratch mask; [0:84] is the actor's mask
WORK_INFO = 216        # int64 (6,): a non-quiet call's report: actor or -1, phase, term, trunc,
                       # result valid, result hand index (the rewards follow as float32 (4,))
WORK_WS = 280          # int64 (WS_SIZE,): ws, viewed from these bytes
WORK_BYTES = WORK_WS + 8 * WS_SIZE

# one depth's block of the SJ-7.2 search's stack (combos._decomp_ns): DS_BLK int64 a recursion depth
DS_K = 0               # (MAX_COMP,): the rest's components, k
DS_L = 64              # (MAX_COMP,): L
DS_TOP = 128           # (MAX_COMP,): top
DS_CARDS = 192         # (MAX_COMP, NPOS): cards
DS_CAND_K = 1216       # (MAX_COMP + 1,): the candidate list (the chosen component inserted), k
DS_CAND_L = 1281       # (MAX_COMP + 1,): L
DS_CAND_TOP = 1346     # (MAX_COMP + 1,): top
DS_CAND_CARDS = 1411   # (MAX_COMP + 1, NPOS): cards
DS_CHOSEN = 2451       # (NPOS,): the chosen component's cards
DS_SORT = 2467         # (32,): sort scratch of combos._cmp_comp
DS_BLK = 2560
DS_SIZE = (MAX_COMP + 1) * DS_BLK   # the whole stack: MAX_COMP + 1 depths

# esm (make_esm, uint64): the rollout's esuit tables. esm[e] = the cards of esuit e,
# esm[ESM_ABOVE + NPOS e + p] = the cards of esuit e at positions above p (SJ-3.4)
ESM_ABOVE = 5
ESM_SIZE = ESM_ABOVE + 5 * NPOS

ALL_CARDS = np.uint64((1 << 54) - 1)


@njit(cache=True)
def make_ws():
    """Work array of the play kernels (offsets WS_*)."""
    return np.empty(WS_SIZE, np.int64)


@njit(cache=True)
def set_ws_cfg(ws, cfg):
    """Copy cfg into ws[WS_CFG:]: the record-level play kernels (step._apply_play_r and below) read
    the config there, so their hot calls take one array argument."""
    for i in range(cfg.shape[0]):
        ws[WS_CFG + i] = cfg[i]


@njit(cache=True)
def make_esm():
    """The rollout's esuit tables (offsets ESM_*)."""
    return np.zeros(ESM_SIZE, np.uint64)
