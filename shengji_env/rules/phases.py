"""Phase and action ids (section 9.2, section 4): the numbers every kernel and the env share."""
from __future__ import annotations


# phases (0..5 are the section 9.2 phases; 6..8 are automatic and never visible outside a call)
DECLARE = 0
NAME_TRUMP = 1
BURY = 2
LEAD = 3
FOLLOW = 4
OVER = 5
NEED_DEAL = 6
DEAL = 7
FINAL = 8
PHASE_NAMES = ("DECLARE", "NAME_TRUMP", "BURY", "LEAD", "FOLLOW", "OVER")

# actions (section 4): 0..53 a card, then DONE, PASS, the declarations and NAME_TRUMP
NUM_ACTIONS = 84
A_DONE = 54
A_PASS = 55
A_DECL = 56        # DECLARE level card of suit u, j copies: A_DECL + 4 u + j - 1
A_LJ = 72          # DECLARE j little jokers: A_LJ + j - 1
A_BJ = 76          # DECLARE j big jokers: A_BJ + j - 1
A_NAME = 80        # NAME_TRUMP suit u: A_NAME + u
