"""Court Piece's side of the residual policy (``agents.residual``; Court Piece and Mendi Coat).

* **Teacher**: the search agent ``pimc`` with the heuristic's trump calls (``call_samples=0``).
* **What the network may change**: card play (only card actions are legal) and, when the teacher
  searches them (``call_samples`` > 0), the trump calls of Single and Double Sar (CP-3); hiding,
  asking and changing stay the heuristic's. Every legal action is a candidate (the search scores all).
* **Canonical form**: the suits in canonical order (``courtpiece_env.symmetry``: trump first, then
  the led suit, then by length), in the observation, the masks, the heuristic's card and the
  labels. No Court Piece rule names a suit, so a situation is learned once instead of up to 24
  times; on the same labels this is what made the fit gain rather than lose.
* The observation is in [-1, 1] (spec 3.4), so it goes into the network unscaled.
"""
from __future__ import annotations

import numpy as np

from agents.courtpiece.heuristic import CourtPieceHeuristic
from agents.residual import ResidualGame
from courtpiece_env.symmetry import (canonical_action_ids, canonical_actions, canonical_observation, game_action_ids,
                                     game_actions, suit_order)

OBS_SIZE, NUM_ACTIONS, CARDS = 916, 60, 52
CALL_PHASE = 839 + 1             # the phase one-hot (spec 3.4: change_cards, call, ...) at CALL
SUITS, PASS = 52, 56             # CALL: name suit 52 + s, or pass (spec 4)


class CourtPieceResidual(ResidualGame):
    game = "courtpiece"
    obs_size, num_actions = OBS_SIZE, NUM_ACTIONS
    scaled = False
    search_options = "call_samples=0"
    kinds = ("play", "call")

    def heuristic(self, seed):
        return CourtPieceHeuristic("courtpiece", seed)

    def search_agent(self, seed, env_config, **options):
        from agents.courtpiece.search import PIMCAgent

        return PIMCAgent("courtpiece", seed=seed, env_config=env_config, **options)

    def decision_kinds(self, options):
        return ("play", "call") if options.get("call_samples", 256) > 0 else ("play",)

    def changeable(self, obs, masks, kinds=("play",)):
        obs, masks = np.asarray(obs), np.asarray(masks)
        out = np.zeros(len(masks), bool)
        if "play" in kinds:
            out |= ~masks[:, CARDS:].any(axis=1)                 # card play: only card actions are legal
        if "call" in kinds:
            suits_only = ~masks[:, :SUITS].any(axis=1) & ~masks[:, PASS + 1:].any(axis=1)
            out |= (obs[:, CALL_PHASE] > 0.5) & suits_only
        return out

    def canonical(self, obs, masks, prior):
        obs = np.asarray(obs, dtype=np.float32)
        order = suit_order(obs)
        return (canonical_observation(obs, order), canonical_actions(np.asarray(masks), order),
                canonical_action_ids(prior, order), order)

    def canonical_actions(self, per_action, order):
        return canonical_actions(per_action, order)

    def game_actions(self, ids, order):
        return game_action_ids(ids, order)

    def game_per_action(self, per_action, order):
        return game_actions(per_action, order)


GAME = CourtPieceResidual()
