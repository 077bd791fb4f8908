"""The Sheng Ji kernels under one name: what the env, the observation and tools import.

The rules live in shengji_env/rules/, one module per rule family of docs/rules/shengji.md (rule IDs
SJ-x.y); this module re-exports the kernels and rule functions the rest of the package uses. Every
kernel takes (st, b, cfg, ...): st is the state record array of state.py with a leading batch axis,
b the game, cfg the int64 config vector of config.py, so one kernel serves B = 1 (the AEC env) and
B = 4096 (BatchGame, rollouts).
"""
from __future__ import annotations

from .config import C_ALLOW_NT, C_H, C_K  # noqa: F401
from .rules.by_name import (advance_levels, declaration_options, decompose, esuit_pos, follow_mask,  # noqa: F401
                            follow_plays, kitty_flip, kitty_multiplier, level_result, throw_check, trick_winner)
from .rules.cardsets import sync_card_sets  # noqa: F401
from .rules.combos import decompose_counts  # noqa: F401
from .rules.declare import decl_options, start_deal  # noqa: F401
from .rules.order import NPOS, TRUMP, card_esuit, card_points, card_pos, esuit_table, set_tables  # noqa: F401
from .rules.phases import (A_BJ, A_DECL, A_DONE, A_LJ, A_NAME, A_PASS, BURY, DECLARE, FOLLOW, LEAD,  # noqa: F401
                           NAME_TRUMP, NEED_DEAL, NUM_ACTIONS, OVER, PHASE_NAMES)
from .rules.plays import batch_legal_plays_count, legal_plays, legal_plays_ws  # noqa: F401
from .rules.rollout import batch_rollout, batch_rollout_ref, make_rng  # noqa: F401
from .rules.scratch import WORK_BYTES, WORK_INFO, make_ws  # noqa: F401
from .rules.step import (AUTO_AFTER_DEAL, SYNC_ONLY, after_deal_auto, batch_current_player,  # noqa: F401
                         batch_legal_mask, batch_step, env_step, legal_mask, step_one, step_ws)
from .rules.trick import play_strength  # noqa: F401
