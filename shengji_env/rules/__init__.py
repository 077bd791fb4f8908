"""The Sheng Ji rules as numba kernels, one module per rule family of docs/rules/shengji.md.

    phases    phase and action ids (sections 4, 9.2)
    order     SJ-1..SJ-3: seats, points, effective suit, position
    declare   SJ-4: the deal, declarations, windows
    kitty     SJ-4.9, SJ-5: kitty flip, pick-up, bury
    combos    SJ-6, SJ-7.2: components, canonical decomposition
    lead      SJ-7: executing a lead, the throw check
    follow    SJ-8: follow obligations (match value), the FOLLOW mask
    trick     SJ-9: moving played cards, play strength, the trick winner
    score     SJ-10, SJ-11: points, kitty bonus, levels, match end
    step      section 4 masks, applying an action and everything automatic
    bits      the legal sets as bit sets (rollout)
    rollout   random rollouts in one call
    plays     the legal-play enumerator (legal_plays)
    scratch   the work arrays and their named offsets
    by_name   the rule functions by name, in plain Python
"""
from __future__ import annotations

from cardzoo.twins import Twin

TWINS = (
    Twin("lead._decompose_selection", ("combos._decomp_ns",), ("SJ-7.2",),
         "a lead's decomposition greedily on 16-bit position masks (the search only where a position "
         "holds two different selected cards and a tractor may form): ~12x faster per lead (2 decks)",
         ("tests/shengji/test_shengji_twins.py::test_decompose_selection_twin",)),
    Twin("bits._legal_bits_r", ("step.legal_mask",), ("section 4", "SJ-5.1", "SJ-7.1", "SJ-8.2"),
         "the legal actions as one uint64 (the rollout draws from it without building and scanning the "
         "84-entry mask)",
         ("tests/shengji/test_shengji_twins.py::test_legal_bits_r_twin",)),
    Twin("rollout._rollout_one", ("rollout._rollout_one_ref",), ("section 4", "SJ-8.1", "SJ-8.2"),
         "single-card follows and lead composition drawn and applied on the card sets directly, no "
         "mask, no step call: ~6x the plain loop's decisions/s",
         ("tests/shengji/test_shengji_twins.py::test_rollout_one_twin",)),
    Twin("plays._follow_fast", ("plays._legal_plays_listed",), ("SJ-8.1", "SJ-8.2", "SJ-8.3"),
         "the common follows (a single led, a tuple led, h <= n + 1) listed directly instead of by "
         "multiset enumeration: ~3.4x faster per position",
         ("tests/shengji/test_shengji_twins.py::test_follow_fast_twin",)),
    Twin("declare._declare_bits", ("declare.decl_options",), ("SJ-4.5",),
         "the DECLARE mask as a bit set, one run of counts per card, for the rollout's draw: ~3.5x "
         "faster than the mask",
         ("tests/shengji/test_shengji_twins.py::test_declare_bits_twin",)),
    Twin("declare._has_decl", ("declare.decl_options",), ("SJ-4.5", "SJ-4.6"),
         "the deal's window test after each dealt card without listing the declarations: ~3x faster",
         ("tests/shengji/test_shengji_twins.py::test_has_decl_twin",)),
    Twin("trick._winner_single_tuple", ("trick._winner_by_strength",), ("SJ-9.2", "SJ-9.3"),
         "a single or tuple format's winner by card position, without the partition search: ~20x "
         "faster per trick",
         ("tests/shengji/test_shengji_twins.py::test_winner_single_tuple_twin",)),
)
