"""Sheng Ji (Tractor / 80 points), 1-4 decks: PettingZoo AEC env, batched games, rule kernels.

Rules: docs/rules/shengji.md in the cardzoo repository and source distribution (rule IDs SJ-x.y).
Public surface (its section 9): raw_env, env, BatchGame; the legal-play
enumerator `legal_plays` (numba) lists the complete legal plays of a decision as count vectors.
"""
from .env import BatchGame, action_from_name, action_name, env, raw_env
from .kernels import legal_plays

__all__ = ["raw_env", "env", "BatchGame", "legal_plays", "action_name", "action_from_name"]
