"""Integer codes the LOPTI kernels share: phases, the cfg layout, switch ids (LO-12), made-rule codes
(LO-11.2), the template table (LO-11.3), action numbers (section 4.1), and card-mask helpers.

Cards are indices suit*13 + rank and card sets uint64 masks (bit c = card c), so a rank's four cards
are the bits r, r+13, r+26, r+39.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardzoo.cards import popcount
from lopti_env.state import (BALLOT, BRACKET, CREATOR, DONE, MATCH, PLAY, PROPOSAL, RULE_MAKING,  # noqa: F401
                             SETUP_VOTE, SWAP, VOLUNTEER)

# record sizes (state.py): seats, rulebook slots, actions
MAX_SEATS = 5
MAX_RULES = 8
NUM_ACTIONS = 140
SLOTS = 3  # face-up / face-down slots per seat (LO-2.4)

# cfg int32 array layout (LoptiConfig.cfg_array writes it): N, first dealer, session, rounds, max made
# rules, play_to_end, reward scheme, max_moves, rps_early_stop, rps_max_throws, bracket_max_throws,
# number of carry-over rules
C_N, C_FD, C_SESSION, C_ROUNDS, C_MAXRULES, C_PTE, C_REWARD, C_MAXMOVES, C_EARLY, C_RPSMAX, C_BRMAX, C_NCARRY = \
    range(12)
CFG_SIZE = 12

# LO-2.2, LO-2.3: ranks are ordered by rank index, Ace high; suits carry no value (only rank masks
# below ever look at a card). The reset rank (2) and the pass-on rank (3) are fixed; the clear and
# play-low ranks are the switches S_CR and S_LR.
NUM_RANKS = 13
RANK_TWO = 0
RANK_THREE = 1

# LO-12 switch ids and domains (config.py validates the user's values against the same table)
S_CR, S_LR, S_LBC, S_SS, S_DB, S_DM, S_VP, S_CEM, S_SWAPS = range(9)
NUM_SWITCHES = 9
SWITCH_DEFAULTS = (8, 5, 1, 4, 3, 0, 1, 1, 1)
SW_LO = np.array([2, 2, 0, 3, 1, 0, 0, 0, 0], np.int32)
SW_HI = np.array([12, 12, 1, 4, 5, 1, 1, 1, 3], np.int32)

# LO-11.2 events, timings, effects, conditions, roles, clear causes
EV_PLAY, EV_PICKUP, EV_CLEAR, EV_FACEUP, EV_FLIPFAIL, EV_OUT, EV_ROUNDSTART, EV_TURNSTART = 1, 2, 3, 4, 5, 6, 7, 8
TM_BEFORE, TM_AFTER, TM_CHECK = 0, 1, 2
FX_DRAW, FX_REVEAL, FX_GIFT, FX_RETURN, FX_CLEAR = 1, 2, 3, 4, 5
COND_NONE, COND_RANK_EQ, COND_COUNT_GE, COND_PILE_GE, COND_CAUSE, COND_SET, COND_PILE_AFTER_GE, COND_STEP, \
    COND_OUT_WHICH, COND_HAND_GE = range(10)
ROLE_ACTOR, ROLE_NEXT, ROLE_PREV, ROLE_OTHERS, ROLE_ALL, ROLE_DEALER, ROLE_MOST, ROLE_FEWEST, ROLE_DRAWPILE = range(9)
CAUSE_CLEAR_CARD, CAUSE_SET, CAUSE_THREES, CAUSE_MADE = 1, 2, 3, 4
ANY_RANK = 13  # SET_CLEAR's X for "any rank" (LO-11.3)

# LO-11.1 rulebook columns and slot status
R_TEMPLATE, R_X, R_G, R_N, R_MAKER, R_STATUS, R_MADE_ROUND, R_RESERVED = range(8)
EMPTY, ACTIVE, REMOVED = 0, 1, 2
# LO-11.3 template table columns; USES bits
T_EVENT, T_TIMING, T_EFFECT, T_COND, T_XMIN, T_XMAX, T_GMASK, T_NMIN, T_NMAX, T_USES = range(10)
USES_X, USES_G, USES_N = 1, 2, 4
NUM_TEMPLATES = 16
MAX_FIELD_VALUE = 20  # the largest X, G or N any template allows
TPL = np.array([
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [1, 1, 1, 1, 0, 12, 0xFF, 1, 2, 7],
    [1, 1, 2, 1, 0, 12, 0xFF, 0, 0, 3],
    [1, 1, 3, 1, 0, 12, 0x06, 1, 2, 7],
    [1, 1, 1, 2, 2, 4, 0xFF, 1, 2, 7],
    [2, 1, 1, 3, 1, 20, 0xFF, 1, 2, 7],
    [2, 0, 2, 3, 1, 20, 0xFF, 0, 0, 3],
    [3, 1, 1, 4, 0, 4, 0xFF, 1, 2, 7],
    [3, 1, 4, 4, 0, 4, 0x106, 1, 4, 7],
    [1, 2, 5, 5, 0, 13, 0, 1, 4, 5],
    [1, 2, 5, 6, 6, 20, 0, 0, 0, 1],
    [1, 2, 5, 7, 0, 0, 0, 1, 4, 4],
    [4, 1, 1, 0, 0, 0, 0xFF, 1, 2, 6],
    [5, 1, 1, 0, 0, 0, 0xFF, 1, 2, 6],
    [6, 1, 1, 8, 0, 1, 0xFE, 1, 2, 7],
    [7, 1, 1, 0, 0, 0, 0xFF, 1, 2, 6],
    [8, 0, 2, 9, 4, 20, 0xFF, 0, 0, 3],
], dtype=np.int32)
SET_CLEAR = 9  # the template with extra validity (LO-11.3)

# LO-10.5 proposal kinds (also the pending change's kind, LO-10.8) and timing
KIND_REMOVE, KIND_AMEND, KIND_BASE, KIND_RESTORE = 1, 2, 3, 4
TIMING_NOW, TIMING_NEXT = 0, 1
# proposal sub-steps (section 4.2)
SUB_KIND, SUB_TARGET, SUB_FIELD, SUB_VALUE, SUB_TIMING = range(5)
# pending change [kind, target, field, value] (LO-10.8)
P_KIND, P_TARGET, P_FIELD, P_VALUE = range(4)
# rock-paper-scissors (LO-10.7): match kinds, the main match's lengths
RPS_NONE, RPS_BRACKET, RPS_MATCH = 0, 1, 2
MATCH_DECISIVE = 30
MATCH_WINS = 16
# prop_result
RESULT_NONE, RESULT_PASSED, RESULT_FAILED = 0, 1, 2
# move_kind
MOVE_FIRST, MOVE_EXTRA = 0, 1

# section 4.1 action numbers: PLAY(r, k) = 4r + k - 1
ACT_PLAY_PER_RANK = 4
ACT_PICKUP = 52
ACT_FLIP = 53  # FLIP(j) = 53 + j
ACT_SWAP = 56  # SWAP(r, j) = 56 + 3r + j
ACT_KEEP, ACT_PASS, ACT_YES, ACT_NO = 95, 96, 97, 98
ACT_ROCK = 99  # rock, paper, scissors = 99, 100, 101
ACT_PROPOSE = 102  # propose kind = 101 + kind
ACT_NOW = 106  # timing = 106 + timing
ACT_SELECT = 108  # select v = 108 + v
NUM_SELECT = 32

U0 = np.uint64(0)
U1 = np.uint64(1)
RANK_MASK = np.array([sum(1 << (r + 13 * s) for s in range(4)) for r in range(13)], np.uint64)
RANKS_13 = np.uint64(0x1FFF)  # one bit per rank


@njit(inline="always", cache=True)
def play_action(r, k):
    return ACT_PLAY_PER_RANK * r + k - 1


@njit(inline="always", cache=True)
def cbit(c):
    return U1 << np.uint64(c)


@njit(inline="always", cache=True)
def rcount(mask, r):
    return np.int64(popcount(mask & RANK_MASK[r]))


@njit(inline="always", cache=True)
def nbits(mask):
    return np.int64(popcount(mask))


@njit(inline="always", cache=True)
def rank_bits(h):
    """13-bit set of the ranks present in card mask h (bit r = some card of rank r)."""
    x = h | (h >> np.uint64(13)) | (h >> np.uint64(26)) | (h >> np.uint64(39))
    return x & RANKS_13
