"""Court Piece rule kernels (numba), one module per rule family of docs/rules/courtpiece.md:

    cards    CP-1      cards, seats, action bits
    deal     CP-2      the draw, the 5-4-4 deal, change cards' re-deal (CP-10.1)
    choice   CP-3      calling, hiding (CP-7.1, CP-11.5), change trump (CP-10.2), timeout cards
    play     CP-4      leading, following, the duties and reveals of CP-7 and CP-11.6, CP-8.2
    hidden   CP-7      the face-down card and its showing
    trick    CP-4.4    winning a trick; Single Sar (CP-5), Double Sar (CP-6), Mendi Coat (CP-11.8)
    scoring  CP-9      result, kot, streak, next dealer, match; Mendi Coat's CP-11.9 .. CP-11.11
    actions            the phase dispatch: a fresh bazi, legal actions, applying an action
    batch              entry points over the state array (B = 1 for the env, B games for BatchGame)
    rollout            random play to the end

Every kernel takes the state record array `st` (state.py) and a game index b, or a record `s = st[b]`,
plus the int64 config vector of config.py. Random events of section 7 (deals, change-cards stock,
turned / band-timeout cards, play timeouts) are drawn in Python from numpy generators and passed in
(CP-12.3); the in-kernel xorshift generator of cardzoo.cards drives only `rollout`.

Each rule is implemented once, cited where it is. The one second implementation kept for speed is in
TWINS, with the reference it must equal and the test that compares them move for move.
"""
from cardzoo.twins import Twin
from courtpiece_env.rules.actions import apply_action, apply_timeout_card, legal_bits, start_bazi, write_mask
from courtpiece_env.rules.batch import (
    begin_one, current_player_batch, inject_batch, legal_mask_batch, mask_one, replay_batch, result_fields,
    seeded_begin_one, start_bazi_at, start_bazi_batch, step_batch, step_one, timeout_card_one,
)
from courtpiece_env.rules.cards import ONE, ZERO
from courtpiece_env.rules.deal import change_order, check_orders, order_from_perm, seeded_deals
from courtpiece_env.rules.rollout import rollout, rollout_rows

TWINS = (
    Twin("rollout.random_trick", ("rollout.random_action", "play.play_card"), ("CP-4.2", "CP-4.3", "CP-8.2"),
         "a whole plain trick in one loop (the reference: random_action and play_card once per card), "
         "without the phase dispatch and the state writes between cards: about twice the rollout's "
         "decisions/s in single_sar (benchmarks/throughput.py)",
         ("tests/courtpiece/test_courtpiece_twins.py::test_random_trick_plays_as_play_card_move_for_move",)),
)

__all__ = [
    "TWINS",
    "ONE", "ZERO", "apply_action", "apply_timeout_card", "begin_one", "change_order", "check_orders",
    "current_player_batch", "inject_batch", "legal_bits", "legal_mask_batch", "mask_one",
    "order_from_perm", "replay_batch", "result_fields", "rollout", "rollout_rows", "seeded_begin_one",
    "seeded_deals", "start_bazi", "start_bazi_at", "start_bazi_batch", "step_batch", "step_one",
    "timeout_card_one", "write_mask",
]
