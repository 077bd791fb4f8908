"""Sheng Ji's side of the residual policy (``agents.residual``).

* **Teacher**: the search agent ``ShengJiSearch`` with twice its default worlds and rollouts
  (``samples=16,rollouts=4``: 0.69 against the heuristic where the defaults score 0.62).
* **Candidates are whole plays.** A Sheng Ji play is composed card by card (spec section 4), so an
  action id says little about the play it starts. The network scores the search's own candidate
  plays (``ShengJiSearch.candidates``: every legal follow when few, else a spread of them; tractors,
  tuples and singles of every effective suit when leading; always the heuristic's play), each
  described by its cards; the chosen play is then emitted card by card, exactly as the search
  emits its choice. What the network may change: the first step of every LEAD and FOLLOW
  decision with a choice; declaring, naming trump and burying stay the heuristic's.
* **Features** (``model_inputs``): cards by strength instead of by id. Each card goes to a cell of
  a 5 x 16 grid, its effective suit (SJ-3: the trump suit, the level cards and the jokers form the
  fifth) by its position in that suit's order, so "the second-highest trump" is one cell whatever
  the trump and the level are. A play is its grid plus its points and size; the decision adds to
  the observation the grids of the hand, of every card played so far and of each seat's cards in
  the current trick.
"""
from __future__ import annotations

import numpy as np

from agents.residual import ResidualAgent, ResidualGame
from agents.shengji.heuristic import HAND, HAND_LEVEL, PHASE, PLAYED, SEL, TRICK, TRUMP, ShengJiHeuristic, card_points
from agents.shengji.search import FOLLOW, LEAD, MAX_PLAYS, ShengJiSearch, _counts
from shengji_env.observe import OBS_SIZE

SLOTS = 16                       # candidate plays per decision: max_leads (16) and max_plays (10) fit
CELLS = 5 * 16                   # effective suit x position (SJ-3)
PLAY_FEATURES = CELLS + 2        # the play's grid, its points / 25, its cards / 4
STATE_GRIDS = 1 + 1 + 4          # hand, played so far, each seat's cards in the current trick
_POINTS = np.array([card_points(c) for c in range(54)], np.float32)
_RANK = np.arange(52) % 13
_SUIT = np.arange(52) // 13


def card_cells(obs) -> np.ndarray:
    """int64[n, 54]: each card's grid cell (effective suit * 16 + position) in each observation's
    trump and level (SJ-3.1-3.3; the same order as the heuristic's ``Table``)."""
    obs = np.asarray(obs, np.float32)
    n = len(obs)
    level = np.rint(obs[:, HAND_LEVEL]).astype(np.int64)[:, None]
    trump_ix = np.argmax(obs[:, TRUMP:TRUMP + 6], axis=1)
    trump_suit = np.where((obs[:, TRUMP:TRUMP + 6].max(axis=1) > 0.5) & (trump_ix < 4), trump_ix, -1)[:, None]
    is_level = _RANK[None] == level
    in_trump_suit = _SUIT[None] == trump_suit
    pos = np.where(_RANK[None] < level, _RANK[None], _RANK[None] - 1)
    pos = np.where(is_level, np.where((trump_suit < 0) | in_trump_suit, 13, 12), pos)
    esuit = np.where(is_level | in_trump_suit, 4, _SUIT[None])
    cells = np.empty((n, 54), np.int64)
    cells[:, :52] = esuit * 16 + pos
    cells[:, 52], cells[:, 53] = 4 * 16 + 14, 4 * 16 + 15
    return cells


def _cell_matrix(obs) -> np.ndarray:
    """float32[n, 54, CELLS]: the one-hot of card_cells, for grids as products."""
    cells = card_cells(obs)
    out = np.zeros((len(cells), 54, CELLS), np.float32)
    np.put_along_axis(out, cells[:, :, None], 1.0, axis=2)
    return out


class ShengJiResidual(ResidualGame):
    game = "shengji"
    obs_size = OBS_SIZE + STATE_GRIDS * CELLS
    num_actions = SLOTS
    play_features = PLAY_FEATURES
    scaled = True
    search_options = "samples=16,rollouts=4"

    def heuristic(self, seed):
        return ShengJiHeuristic("shengji", seed)

    def search_agent(self, seed, env_config, **options):
        agent = ShengJiSearch("shengji", seed=seed, env_config=env_config, **options)
        if max(agent.max_leads, agent.max_plays + 1) > SLOTS:
            raise ValueError(f"a Sheng Ji residual policy scores at most {SLOTS} plays a decision: "
                             f"max_leads <= {SLOTS} and max_plays <= {SLOTS - 1}")
        return agent

    def changeable(self, obs, masks, kinds=("play",)):
        obs, masks = np.asarray(obs), np.asarray(masks)
        phase = np.argmax(obs[:, PHASE:PHASE + 6], axis=1)
        fresh = obs[:, SEL:SEL + 54].sum(axis=1) < 0.5
        return np.isin(phase, (LEAD, FOLLOW)) & fresh & ((masks != 0).sum(axis=1) > 1)

    def searched_plays(self, search):
        out = np.zeros((SLOTS, 54), np.uint8)
        for i, cards in enumerate(search.last["plays"]):
            np.add.at(out[i], np.asarray(cards, np.int64), 1)
        return out

    def model_inputs(self, data, idx):
        obs = np.asarray(data["obs"][idx], np.float32)
        plays = np.asarray(data["plays"][idx], np.float32)
        cells = _cell_matrix(obs)
        n = len(obs)
        seen = np.stack([obs[:, HAND:HAND + 54], obs[:, PLAYED:PLAYED + 216].reshape(n, 4, 54).sum(axis=1)], axis=1)
        tables = np.concatenate([seen, obs[:, TRICK:TRICK + 216].reshape(n, 4, 54)], axis=1)
        state = np.einsum("ngc,nck->ngk", tables, cells).reshape(n, STATE_GRIDS * CELLS)
        feats = np.empty((n, SLOTS, PLAY_FEATURES), np.float32)
        feats[:, :, :CELLS] = np.einsum("nsc,nck->nsk", plays, cells)
        feats[:, :, CELLS] = plays @ _POINTS / 25.0
        feats[:, :, CELLS + 1] = plays.sum(axis=2) / 4.0
        return np.concatenate([obs, state], axis=1), feats

    def agent_class(self):
        return ShengJiResidualAgent


GAME = ShengJiResidual()


class _NetworkChoice(ShengJiSearch):
    """The search's candidates and card-by-card emission, with the choice made by the network."""

    def __init__(self, owner: "ShengJiResidualAgent", seed, env_config=None):
        super().__init__("shengji", seed=seed, env_config=env_config)
        self.owner = owner

    def choose_play(self, sit, obs, action_mask, phase, h, cfg):
        plays = None
        if phase == FOLLOW:
            try:
                plays = np.array([_counts(t) for t in self.env.unwrapped.legal_plays(MAX_PLAYS)], np.int64)
            except ValueError:        # more legal follows than can be listed: the heuristic's play
                return None
        cands, hplay = self.candidates(sit, obs, action_mask, plays, phase, h)
        if len(cands) == 1:
            return cands, 0
        return cands, self.owner.pick(obs, cands, hplay)


class ShengJiResidualAgent(ResidualAgent):
    """A Sheng Ji residual checkpoint: at each LEAD and FOLLOW decision the heuristic's play
    unless the network's advantage for another of the search's candidate plays exceeds the margin."""

    needs_env = True
    games = ("shengji",)

    def __init__(self, game: str | None = "shengji", seed: int | None = None, checkpoint=None, model=None,
                 meta: dict | None = None, margin: float | None = None):
        super().__init__(game, seed, checkpoint, model, meta, margin)
        self.chooser = _NetworkChoice(self, seed, self.meta.get("env_config") or None)
        self.chooser.prior = self.prior

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.chooser.reset(seed)

    def observe_env(self, env, seat: int) -> None:
        super().observe_env(env, seat)
        self.chooser.observe_env(env, seat)

    def act(self, observation, action_mask) -> int:
        if self.env is None:
            raise ValueError("a Sheng Ji residual policy plays in the AEC env (it reads legal_plays and "
                             "public_state): call observe_env(env, seat) before act")
        return int(self.chooser.act(observation, action_mask))

    def act_batch(self, obs, masks) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(np.asarray(obs), np.asarray(masks))], np.int64)

    def pick(self, obs, cands, hplay: int) -> int:
        """The index of the play to make among ``cands`` (count vectors; the heuristic's at hplay)."""
        import torch

        plays = np.zeros((1, SLOTS, 54), np.uint8)
        for i, c in enumerate(cands[:SLOTS]):
            plays[0, i] = c
        x, feats = GAME.model_inputs({"obs": np.asarray(obs, np.float32)[None], "plays": plays}, [0])
        prior = np.zeros((1, SLOTS), np.float32)
        prior[0, hplay] = 1.0
        with torch.no_grad():
            adv = self.model(torch.as_tensor(x), torch.as_tensor(prior), torch.as_tensor(feats)).numpy()[0]
        adv[min(len(cands), SLOTS):] = -np.inf
        adv[hplay] = -np.inf
        best = int(adv.argmax())
        return best if adv[best] > self.margin else int(hplay)
