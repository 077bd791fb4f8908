"""LOPTI's side of the residual policy (``agents.residual``).

* **Teacher**: the search agent ``LoptiSearch`` with its defaults (12 sampled worlds, heuristic
  rollouts, the pruned candidate set).
* **What the network may change**: PLAY-phase decisions with a choice (LO-5, LO-6); the swap phase
  and the session layer stay the heuristic's. The network may play only the actions the search
  scores (``play_candidates``: per rank the fewest and the most cards and the set-completing count,
  the pickup, one flip), so it is never asked about an action it has no labels for.
* **Canonical form**: none is needed. Suits carry no value (LO-2.2), so the observation counts
  ranks only, and seats are already relative to the observer (spec 3.5).
* The observation holds counts (hand and pile sizes up to 52), so the network divides each entry
  by its largest magnitude in the labels (``scaled``).
"""
from __future__ import annotations

import numpy as np

from agents.lopti.heuristic import LoptiHeuristic
from agents.residual import ResidualGame
from lopti_env.config import NUM_ACTIONS, OBS_SIZE

PLAY_PHASE = 1


class LoptiResidual(ResidualGame):
    game = "lopti"
    obs_size, num_actions = OBS_SIZE, NUM_ACTIONS
    scaled = True
    search_options = ""

    def heuristic(self, seed):
        return LoptiHeuristic("lopti", seed)

    def search_agent(self, seed, env_config, **options):
        from agents.lopti.search import LoptiSearch

        return LoptiSearch("lopti", seed=seed, env_config=env_config, **options)

    def changeable(self, obs, masks, kinds=("play",)):
        obs, masks = np.asarray(obs), np.asarray(masks)
        return (np.rint(obs[:, 0]) == PLAY_PHASE) & (masks.sum(axis=1) > 1)

    def candidates(self, obs, masks, prior):
        from agents.lopti.search import play_candidates

        masks = np.asarray(masks)
        out = np.zeros(masks.shape, np.uint8)
        for b in range(len(masks)):
            out[b, play_candidates(obs[b], np.flatnonzero(masks[b]), int(prior[b]))] = 1
        return out


GAME = LoptiResidual()
