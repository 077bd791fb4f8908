"""LOPTI: a shedding game for 2-5 players with a winner-makes-a-rule session layer.

    import lopti_env
    env = lopti_env.env(num_players=4)
    g = lopti_env.BatchGame(4096, num_players=3, session=True)

Rules: docs/rules/lopti.md in the cardzoo repository and source distribution (rule IDs LO-x.y, cited
in the code and tests; section 9 is this package's Python surface).
"""
from lopti_env.env import BatchGame, action_from_name, action_name, env, raw_env

__all__ = ["raw_env", "env", "BatchGame", "action_name", "action_from_name"]
