"""The LOPTI rules as numba kernels, one module per rule family of docs/rules/lopti.md (lopti_env.kernels
lists the modules). Each leaf rule LO-x.y is implemented once and cited where it is.

TWINS declares the speed twins: second implementations kept because they pay, each tied to its
reference by a move-for-move differential test in tests/lopti/test_twins.py.
"""

# (twin, reference, rule ID, why, test)
TWINS = (
    ("rollout.legal_action", "legality.play_mask", "LO-4.1",
     "counts the legal actions and finds the chosen one from bit-sliced rank counts, without writing "
     "the legal list; part of fast_play's 4x",
     "test_twins.py::test_fast_legal_actions_equal_play_mask"),
    ("rollout.fast_play", "resolution.play_step", "LO-5.1",
     "the PLAY phase without made rules with hands, table and counters in locals: 23.6 M random-rollout "
     "decisions/s against 5.8 M for play_step with the same pick (4.1x; 4.7 M with play_mask), LOPTI "
     "N=4, one core",
     "test_twins.py::test_fast_play_default_rules, test_fast_play_random_base_rules, "
     "test_fast_play_sessions_and_made_rules"),
)
