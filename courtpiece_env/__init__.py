"""Court Piece (Rang) and Mendi Coat: PettingZoo AEC env and batched numba kernels.

    import courtpiece_env
    env = courtpiece_env.env(variant="single_sar")
    g = courtpiece_env.BatchGame(4096, variant="double_sar")

Rules: docs/rules/courtpiece.md in the cardzoo repository and source distribution (rule IDs
CP-1..CP-13, cited in the code and tests; section 9 is this package's Python surface).
"""
from courtpiece_env.env import BatchGame, env, raw_env

__all__ = ["raw_env", "env", "BatchGame"]
