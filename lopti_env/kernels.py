"""The LOPTI kernels' public names (numba), implemented by rule family in lopti_env/rules/:
codes (integer codes, the template table), table (LO-2.1, LO-3), setup (LO-2), legality (LO-4),
resolution (LO-5..LO-8), round_end (LO-9, LO-3.5), made_rules (LO-11), switches (LO-12), session
(LO-10), rps (LO-10.7), masks (section 4.2), rollout (the PLAY phase's speed twin) and engine (entry
points)."""
from lopti_env.rules.codes import (BALLOT, BRACKET, C_MAXRULES, C_N, C_ROUNDS, CREATOR, DONE, MATCH, PLAY,
                                   PROPOSAL, RULE_MAKING, SETUP_VOTE, SWAP, VOLUNTEER, nbits, rcount)
from lopti_env.rules.engine import (deal_at, enter_creator_at, fast_legal_actions, legal_mask_batch, legal_of,
                                    refresh_mask, reset_fields_at, rollout_random, start_episode,
                                    start_episodes_batch, step_batch, step_game, step_one)
from lopti_env.rules.masks import compute_mask
from lopti_env.rules.rollout import fast_play
from lopti_env.rules.table import has_up

__all__ = ["BALLOT", "BRACKET", "C_MAXRULES", "C_N", "C_ROUNDS", "CREATOR", "DONE", "MATCH", "PLAY", "PROPOSAL",
           "RULE_MAKING", "SETUP_VOTE", "SWAP", "VOLUNTEER", "nbits", "rcount", "deal_at", "enter_creator_at",
           "fast_legal_actions", "legal_mask_batch", "legal_of", "refresh_mask", "reset_fields_at",
           "rollout_random", "start_episode", "start_episodes_batch", "step_batch", "step_game", "step_one",
           "compute_mask", "fast_play", "has_up"]
