"""LOPTI engine state (spec section 3.1): one numpy record per game, leading batch axis.

Seats are sized for 5; seats >= N stay empty. Cards are indices 0..51 (suit*13 + rank); card sets
are uint64 masks. Kernels read and write a game through `st[b]`.
"""
from __future__ import annotations

import numpy as np

# phase codes (section 4.4)
SWAP, PLAY, SETUP_VOTE, RULE_MAKING, CREATOR, PROPOSAL, BALLOT, VOLUNTEER, BRACKET, MATCH, DONE = range(11)
PHASE_NAMES = ("swap", "play", "setup_vote", "rule_making", "creator", "proposal", "ballot", "volunteer",
               "bracket", "match", "done")

STATE_DTYPE = np.dtype([
    # turn / phase
    ("phase", np.int32), ("substep", np.int32), ("actor", np.int32), ("move_kind", np.int32),
    ("moves", np.int32),
    # seats
    ("hand", np.uint64, (5,)), ("known", np.uint64, (5,)), ("up", np.int8, (5, 3)), ("down", np.int8, (5, 3)),
    ("active", np.uint8, (5,)), ("place", np.int8, (5,)), ("out_order", np.int8, (5,)), ("n_out", np.int32),
    ("swaps_used", np.int8, (5,)), ("swap_turns", np.int32),
    # table
    ("pile", np.int8, (52,)), ("pile_n", np.int32),
    ("play_rank", np.int8, (52,)), ("play_cnt", np.int8, (52,)), ("play_seat", np.int8, (52,)),
    ("play_start", np.int8, (52,)), ("n_plays", np.int32),
    ("top_rank", np.int32), ("top_cnt", np.int32), ("run", np.int32), ("chain", np.int32),
    ("gone", np.uint64),
    ("draw", np.int8, (52,)), ("draw_pos", np.int32), ("draw_n", np.int32),
    ("clears", np.int32), ("lc_seat", np.int32), ("lc_cause", np.int32), ("lc_cards", np.int8, (52,)),
    ("lc_n", np.int32),
    # round / episode
    ("winner", np.int32), ("truncated", np.int32), ("round_over", np.int32),
    ("round_rewards", np.float32, (5,)), ("rewards", np.float32, (5,)), ("scores", np.float32, (5,)),
    ("round", np.int32), ("dealer", np.int32), ("leader", np.int32), ("prev_winner", np.int32),
    ("fdealer", np.int32), ("rounds_done", np.int32), ("skip_deal", np.int32),
    # session: rulebook, switches, pending change, draft
    ("rules", np.int32, (8, 8)), ("fired", np.uint8, (8,)), ("sw", np.int32, (9,)), ("pending", np.int32, (4,)),
    ("draft", np.int32, (4,)),
    # proposal
    ("prop_on", np.int32), ("prop_kind", np.int32), ("prop_target", np.int32), ("prop_field", np.int32),
    ("prop_value", np.int32), ("prop_timing", np.int32), ("proposer", np.int32), ("prop_yes", np.int32),
    ("defender", np.int32), ("prop_result", np.int32),
    # batches of answers
    ("pos", np.int32), ("ballots", np.int8, (5,)), ("ballots_vis", np.int32), ("volunteers", np.int8, (5,)),
    ("vol_vis", np.int32),
    # setup vote
    ("cand", np.int32), ("setup_on", np.int32), ("setup_yes", np.int32),
    # rock-paper-scissors
    ("rps_kind", np.int32), ("rps_first", np.int32), ("rps_second", np.int32), ("rps_score", np.int32, (2,)),
    ("rps_dec", np.int32), ("rps_throws", np.int32), ("rps_pend", np.int32), ("rps_last", np.int32, (2,)),
    ("rps_setup", np.int32),
    ("br_ent", np.int8, (5,)), ("br_n", np.int32), ("br_pos", np.int32), ("br_win", np.int8, (5,)),
    ("br_nwin", np.int32),
    ("coin_idx", np.int32),
    # the actor's legal mask, kept current by every kernel that moves the game
    ("mask", np.uint8, (140,)), ("legal", np.int16, (140,)), ("n_legal", np.int32),
    ("mask_off", np.int32),  # 1 inside rollouts: only the legal list is kept (the mask is zeroed after)
])


def new_state(n: int) -> np.ndarray:
    st = np.zeros(n, STATE_DTYPE)
    st["actor"] = -1
    st["phase"] = DONE
    return st
