"""Court Piece state: one numpy record per game, with a leading batch axis (`new_state(B)`).

Cards are bits of a uint64 (bit i = card i, CONVENTIONS); seats 0..3; -1 means "none".
Every rule kernel in rules/ reads and writes these fields of `st[b]` and nothing else.
"""
from __future__ import annotations

import numpy as np

# phases (spec 9.2); NEED_DEAL is internal: a match bazi finished and the next deal is due
CHANGE_CARDS, CALL, HIDE, BAND_HIDE, CHANGE_TRUMP, PLAY, OVER, NEED_DEAL = range(8)
PHASE_NAMES = ("change_cards", "call", "hide", "band_hide", "change_trump", "play", "over", "over")

# result kinds (CP-9.1, CP-11.9)
KINDS = ("trump_win", "opponents_win", "kot", "gone_kot", "whitewash", "mendi_coat", "mendi", "split_win")
K_TRUMP_WIN, K_OPP_WIN, K_KOT, K_GONE_KOT, K_WHITEWASH, K_MENDI_COAT, K_MENDI, K_SPLIT = range(8)

STATE_DTYPE = np.dtype([
    ("phase", np.int8),            # CHANGE_CARDS .. NEED_DEAL
    ("actor", np.int8),            # seat to act, -1 when none
    ("dealer", np.int8),
    ("fc", np.int8),               # first chooser d+1
    ("passed", np.int8),           # the first chooser passed (CP-3.1, CP-7.1)
    ("caller", np.int8),           # seat that named / hid, -1 none
    ("trump", np.int8),            # public trump suit, -1 none
    ("turned", np.int8),           # card turned by CP-3.5 / laid by CP-7.8, -1 none
    ("hidden_card", np.int8),      # face-down card, -1 none
    ("hidden_owner", np.int8),     # its owner, -1 none
    ("hidden_unseen", np.int8),    # CP-7.8: nobody has seen it
    ("shown_card", np.int8),       # face-down card once shown, -1 none
    ("shown_trick", np.int8),      # shown_at[0] (1..13, or 14 for end of a 13-trick bazi)
    ("shown_pos", np.int8),        # shown_at[1]
    ("trump_changed", np.int8),    # CP-10.2 change made
    ("set_seat", np.int8),         # Be-Rang / Katte: seat whose card set trump (CP-8.2)
    ("set_card", np.int8),
    ("leader", np.int8),           # leader of the current trick (play phase)
    ("ntrick", np.int8),           # completed tricks
    ("npos", np.int8),             # cards in the current trick
    ("led", np.int8),              # led suit of the current trick
    ("best_val", np.int8),         # current trick: value of the winning card so far (CP-4.4, CP-4.5)
    ("best_pos", np.int8),         # its position in play order
    ("duty", np.int8),             # actor's duty: 1 follow-else-trump (CP-7.5, CP-11.6(d)), 2 lead trump (CP-7.7)
    ("void_used", np.int8),        # Band: the first player without the led suit has come (CP-11.6)
    ("run_holder", np.int8),       # Double Sar CP-6.3
    ("last_win_card", np.int8),    # winning card of the previous trick (ace_on_ace)
    ("decided", np.int8),          # result fixed (CP-13)
    ("res_winner", np.int8),
    ("res_kind", np.int8),
    ("res_next_dealer", np.int8),
    ("res_at", np.int8),
    ("res_match_winner", np.int8),
    ("finished", np.int8),         # the bazi has been paid (score/streak updated)
    ("streak_team", np.int8),
    ("streak_count", np.int8),
    ("pile", np.int32),            # Double Sar: bit t = trick t+1 lies in the pile
    ("res_points", np.int32),
    ("res_kots", np.int32),
    ("res_bonus", np.int32),
    ("bazi_index", np.int32),
    ("score", np.int32, (2,)),
    # CHANGE_CARDS per seat (CP-10.1): int32 holds any change_cards_limit (<= MAX_INT), and the count
    # never passes the limit, so it cannot wrap (an int8 wrapped at 128 and left 59 legal for ever)
    ("cc_used", np.int32, (4,)),
    ("tricks_won", np.int8, (2,)),
    ("taken", np.int8, (2,)),
    ("tens", np.int8, (2,)),
    ("rewards", np.float32, (4,)),  # what the latest step gave each seat
    ("hands", np.uint64, (4,)),    # playable cards (never a face-down card)
    ("first5", np.uint64, (4,)),   # each seat's first packet
    ("gave_back", np.uint64, (4,)),  # cards returned by change cards (CP-10.1)
    ("order", np.int8, (4, 13)),   # each seat's 13 cards in deal order
    ("trick_cards", np.int8, (13, 4)),  # cards of each trick in play order
    ("trick_leader", np.int8, (13,)),
    ("trick_winner", np.int8, (13,)),
], align=True)


def new_state(n: int) -> np.ndarray:
    st = np.zeros(n, STATE_DTYPE)
    st["phase"] = OVER
    st["actor"] = -1
    return st
