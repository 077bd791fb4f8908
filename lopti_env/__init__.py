"""LOPTI: a shedding game for 2-5 players with a winner-makes-a-rule session layer (spec rules/lopti.md)."""
from lopti_env.env import BatchGame, action_from_name, action_name, env, raw_env

__all__ = ["raw_env", "env", "BatchGame", "action_name", "action_from_name"]
