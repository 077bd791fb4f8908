"""The LOPTI rules as numba kernels, one module per rule family of docs/rules/lopti.md (lopti_env.kernels
lists the modules). Each leaf rule LO-x.y is implemented once and cited where it is.

TWINS declares the speed twins: second implementations kept because they pay, each tied to its
reference by a move-for-move differential test in tests/lopti/test_lopti_twins.py.
"""
from cardzoo.twins import Twin

# Measured with random rollouts of LOPTI N = 4, 2048 games, one
# core, medians of 8 runs alternating with the reference: 20.5 M decisions/s with fast_play against
# 4.8 M through step_game (play_mask, the pick from its list, play_step).
TWINS = (
    Twin("rollout.legal_action", ("legality.play_mask",), ("LO-4.1",),
         "counts the legal actions from bit-sliced rank counts and finds the chosen one without writing the "
         "legal list (with play_step for the move: 5.7 M decisions/s against 4.8 M)",
         ("tests/lopti/test_lopti_twins.py::test_fast_legal_actions_equal_play_mask",)),
    Twin("rollout.fast_play", ("resolution.play_step",), ("LO-5.1",),
         "the pipeline without hooks, with hands, table and seats in locals and bit sets (next_active_in "
         "for table.next_active): 20.5 M decisions/s against 5.7 M with play_step (3.6x)",
         ("tests/lopti/test_lopti_twins.py::test_fast_play_default_rules",
          "tests/lopti/test_lopti_twins.py::test_fast_play_random_base_rules",
          "tests/lopti/test_lopti_twins.py::test_fast_play_sessions_and_made_rules")),
)
