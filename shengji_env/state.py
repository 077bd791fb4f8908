"""The Sheng Ji state: one numpy record per game, with a leading batch axis (B = 1 for the AEC env).

Card sets are per-card count vectors int8[54] (counts 0..D): every Sheng Ji rule that touches
multi-deck sets asks "how many copies of card c" (tuples are counts >= k, SJ-6.1; follow obligations
count tuples of each size, SJ-8.3; declarations show j copies, SJ-4.5), and a count vector answers
that with one load. The hands and the selection are also kept as uint64 planes (``card_sets``:
``card_sets[CS_SEAT * seat + k]`` = the cards seat holds at least k times, k = 1..4, and
``card_sets[CS_SEL + k]`` the same of the selection; entries above D stay 0), which answer "which
cards" (the legal sets of section 4, the SJ-7.4 throw check) in a few word operations. Every kernel
that changes the counts keeps the planes equal to them through ``rules.cardsets``
(``tests/shengji/test_card_sets.py`` checks it on every path).
"""
from __future__ import annotations

import numpy as np

MAX_DECL = 40      # declarations per deal (each one strictly raises strength or reinforces)
MAX_TRICKS = 64    # tricks per hand (<= H <= 52)
MAX_LOG = 224      # cards played per hand (<= 4H = 208)
MAX_COMP = 64      # components of one lead

CS_SEAT = 8        # card_sets[CS_SEAT * seat + k], k = 1..4 (entry 0 of each seat's block unused)
CS_SEL = 32        # card_sets[CS_SEL + k], k = 1..4
CS_SIZE = 40

_FIELDS = [
    ("card_sets", np.uint64, (CS_SIZE,)),    # first, so its words are aligned (see the itemsize pad)
    ("phase", np.int8),          # 0 DECLARE 1 NAME_TRUMP 2 BURY 3 LEAD 4 FOLLOW 5 OVER 6 NEED_DEAL 7 DEAL 8 FINAL
    ("actor", np.int8),
    ("need_kind", np.int8),      # NEED_DEAL: 1 = first-hand redeal, 2 = next hand of a match
    ("hand", np.int8, (4, 54)),
    ("sel", np.int8, (54,)),
    ("nsel", np.int16),
    ("order", np.int8, (216,)),
    ("dealt", np.int16),
    ("f", np.int8),              # first drawer of the current deal
    ("kitty_order", np.int8, (8,)),
    ("kitty_orig", np.int8, (54,)),
    ("buried", np.int8, (54,)),
    ("nrev", np.int8),           # kitty cards revealed by a flip (a prefix of kitty_order)
    ("levels", np.int8, (2,)),
    ("hand_level", np.int8),
    ("banker", np.int8),         # -1 while the first hand's declaring decides it
    ("trump", np.int8),          # -1 undecided, 0..3 suit, 4 NT
    ("hand_index", np.int32),     # max_hands and max_redeals go up to 10**9 (section 6)
    ("void_deals", np.int32),
    ("ndecl", np.int8),
    ("decl_seat", np.int8, (MAX_DECL,)),
    ("decl_card", np.int8, (MAX_DECL,)),
    ("decl_cnt", np.int8, (MAX_DECL,)),
    ("seen", np.int8, (4,)),
    ("in_final", np.int8),
    ("fr_next", np.int8),
    ("fr_skips", np.int8),
    ("shown", np.int8, (4, 54)),
    ("played", np.int8, (4, 54)),
    ("leader", np.int8),
    ("lead_n", np.int16),        # n: cards the leader actually played (0 while composing)
    ("ntp", np.int8),            # plays executed in the current trick
    ("trick_cards", np.int8, (4, 54)),
    ("lead_esuit", np.int8),
    ("fm", np.int8),             # components of F
    ("fk", np.int8, (MAX_COMP,)),
    ("fL", np.int8, (MAX_COMP,)),
    ("ftop", np.int8, (MAX_COMP,)),
    ("points", np.int16, (2,)),
    ("ntricks", np.int16),
    ("tr_leader", np.int8, (MAX_TRICKS,)),
    ("tr_winner", np.int8, (MAX_TRICKS,)),
    ("tr_points", np.int16, (MAX_TRICKS,)),
    ("tr_z", np.int8, (MAX_TRICKS,)),        # largest component size of the trick's F
    ("tr_single", np.int8, (MAX_TRICKS,)),   # F is one single card
    ("nlog", np.int16),
    ("log_seat", np.int8, (MAX_LOG,)),
    ("log_card", np.int8, (MAX_LOG,)),
    ("log_trick", np.int8, (MAX_LOG,)),
    ("nft", np.int8),
    ("ft_seat", np.int8, (MAX_TRICKS,)),
    ("ft_trick", np.int8, (MAX_TRICKS,)),
    ("ft_att", np.int8, (MAX_TRICKS, 54)),
    # net SJ-7.4 throw penalty: throw_penalty_points (|x| <= MAX_INT = 10**9, section 6 sets no bound)
    # per failed throw (at most one a trick, H <= 52) or per retracted card (at most H(H - 1)/2 = 1326
    # a hand: every lead a throw of the whole hand forced down to one card), so int64
    ("penalty", np.int64),
    ("hand_over", np.int8),      # the buried kitty is public (hand finished, episode over)
    ("term", np.int8),
    ("trunc", np.int8),
    ("rewards", np.float32, (4,)),
    ("r_valid", np.int8),
    ("r_hand_index", np.int32),
    ("r_banker", np.int8),
    ("r_level", np.int8),
    ("r_trump", np.int8),
    ("r_tp", np.int16, (2,)),
    ("r_kitty", np.int8, (54,)),
    ("r_kpts", np.int16),
    ("r_last", np.int8),
    # m, the kitty bonus, p, d and g are int64: with kitty_multiplier "power_size" m = 2^z (SJ-10.2),
    # z up to the hand size H = 52 (a last-trick tractor of 13 quads, D = 4), so m <= 2^52, the bonus
    # <= 80 * 2^52 (a kitty of eight tens and kings) and p, d, g (SJ-10.1, SJ-11.1) grow with it
    ("r_mult", np.int64),
    ("r_bonus", np.int64),
    ("r_pen", np.int64),         # `penalty` at the hand's end
    ("r_p", np.int64),
    ("r_outcome", np.int8),      # 0 hold, 1 takeover
    ("r_table", np.int64),
    ("r_score", np.int64),
    ("r_gain", np.int8, (2,)),
    ("r_newlev", np.int8, (2,)),
    ("r_next_banker", np.int8),
    ("r_winner", np.int8),       # -1 none
    ("passed", np.int8, (2,)),   # team passed A (match won)
    ("es_tab", np.int8, (54,)),  # effective suit of every card once trump is fixed (SJ-3.3)
    ("pos_tab", np.int8, (54,)), # position of every card once trump is fixed (SJ-3.4)
]
# the record padded to a multiple of 8 bytes, so card_sets is word-aligned in every record of a batch
STATE_DTYPE = np.dtype(_FIELDS + [("_pad", np.int8, (-np.dtype(_FIELDS).itemsize % 8,))])


def make_state(n: int) -> np.ndarray:
    """n fresh game records. A plain structured ndarray: numba dispatches on it several times faster
    than on a recarray (use .view(np.recarray) for attribute access from Python); with numba's JIT
    disabled (debugging) the kernels need attribute access, so a recarray is returned then."""
    from numba.core import config as nb_config
    st = np.zeros(n, STATE_DTYPE)
    if nb_config.DISABLE_JIT:
        st = st.view(np.recarray)
    st["phase"] = 5
    st["actor"] = -1
    st["banker"] = -1
    st["trump"] = -1
    st["r_winner"] = -1
    return st
