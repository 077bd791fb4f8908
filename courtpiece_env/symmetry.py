"""The suit symmetry of Court Piece, as a canonical suit order of an observation.

No rule of Court Piece or Mendi Coat names a suit (CP-1.1: every suit ranks its cards alike and none
outranks another; trump is whichever suit the call, the turned card or the first off-suit card makes it), so renaming the suits of a deal
renames the suits of every observation, legal mask and action, and changes nothing else. A learner
that sees observations with the suits put in one canonical order learns each situation once instead
of up to 24 times. The canonical order of one observation (``suit_order``) is

1. the public trump suit, if any;
2. the suit led to the current trick, if any;
3. the other suits by the observer's holding in them, longest first, then by suit index.

Only the suit-indexed parts of the observation move: the 16 card blocks of 52 (offsets 0..831) and
the trump one-hot (846..849); every other scalar is suit-free. Actions 0..51 (play a card) and 52..55
(name suit s) are renamed with the suits; 56..59 are suit-free. All functions take a batch axis.
"""
from __future__ import annotations

import numpy as np
from numba import njit

CARD_BLOCKS = 16                 # blocks of 52 cards at the start of the observation (spec 3.4)
TRUMP = 846                      # public trump suit one-hot
LEADER = 850 + 4 * 5             # relative-seat one-hot of the trick's leader
TRICK = 416                      # the current trick, by relative seat (4 x 52)
CARD_END = 52 * CARD_BLOCKS
SUIT_ACTIONS = 52                # 52 + s: name suit s
OBS_SIZE = CARD_END + 84


def _sum_slots() -> np.ndarray:
    """int64[916]: where each observation entry counts towards the suit order's key: the own hand by
    suit (0..3), the current trick by relative seat and suit (4..19), the trump one-hot (20..23), the
    leader one-hot (24..27); everything else into slot 28, which is never read."""
    slot = np.full(OBS_SIZE, 28, np.int64)
    slot[:52] = np.arange(52) // 13
    slot[TRICK:TRICK + 208] = 4 + np.arange(208) // 13
    slot[TRUMP:TRUMP + 4] = 20 + np.arange(4)
    slot[LEADER:LEADER + 4] = 24 + np.arange(4)
    return slot


ORDER_DIGITS = np.array([64, 16, 4, 1])   # a suit order [4] as one number in base 4: its key in ORDER_ROW


def _renamings() -> tuple[np.ndarray, np.ndarray]:
    """(int64[256]: the row of each suit order, keyed by ``order @ ORDER_DIGITS``; int64[24, 916]: each
    order's canonical offset of every observation entry)."""
    import itertools

    code = np.zeros(256, np.int64)
    rows = np.zeros((24, OBS_SIZE), np.int64)
    for k, order in enumerate(itertools.permutations(range(4))):
        code[np.array(order) @ ORDER_DIGITS] = k
        rank = np.argsort(order)
        rows[k] = np.arange(OBS_SIZE)
        i = np.arange(CARD_END)
        rows[k, :CARD_END] = i - i % 52 + 13 * rank[(i % 52) // 13] + i % 13
        rows[k, TRUMP:TRUMP + 4] = TRUMP + rank
    return code, rows


SUM_SLOTS = _sum_slots()
ORDER_ROW, RENAMED = _renamings()


def suit_order(obs) -> np.ndarray:
    """int64[B, 4]: ``order[b, k]`` is the game suit put in canonical place k for observation b."""
    obs = np.ascontiguousarray(_batch(obs), dtype=np.float32)
    out = np.empty((len(obs), 4), np.int64)
    _suit_orders(obs, out)
    return out


@njit(cache=True)
def _suit_orders(obs, out):
    entries = np.zeros(obs.shape[1], np.int64)
    values = np.zeros(obs.shape[1], np.float32)
    sums = np.zeros(29, np.float64)
    for b in range(obs.shape[0]):
        n = 0
        for i in range(obs.shape[1]):
            if obs[b, i] != 0.0:
                entries[n] = i
                values[n] = obs[b, i]
                n += 1
        suit_order_entries(entries, values, n, sums, out[b])


@njit(cache=True)
def suit_order_entries(entries, values, n, sums, order):
    """The canonical suit order into ``order`` (int64[4]) of an observation given by its ``n`` set
    entries (``courtpiece_env.observe.observe_entries``: offset ``entries[t]`` holds ``values[t]``);
    ``sums``: float64[29] of scratch. Jitted, so a rollout kernel can put its own observations in
    canonical form. Ties keep the lower suit first."""
    for k in range(sums.shape[0]):
        sums[k] = 0.0
    for t in range(n):                            # no branch per entry: each adds into its slot
        i = entries[t]
        sums[SUM_SLOTS[i]] += values[t]
    for su in range(4):
        sums[su] += sums[20 + su] * 1e6
        for r in range(4):                        # the leader's card in the current trick: the led suit
            sums[su] += sums[24 + r] * sums[4 + 4 * r + su] * 1e3
    key = sums[:4]
    for k in range(4):
        order[k] = k
    for k in range(1, 4):                         # insertion sort, descending key, stable
        j = k
        while j > 0 and key[order[j - 1]] < key[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1


def canonical_observation(obs, order) -> np.ndarray:
    """The observations with their suits in canonical order (a new float32 array)."""
    obs = _batch(obs)
    out = np.array(obs, dtype=np.float32)
    np.put_along_axis(out[:, :OBS_SIZE], RENAMED[order_rows(order)], obs[:, :OBS_SIZE], axis=1)
    return out


def order_rows(order) -> np.ndarray:
    """The row of ``RENAMED`` (and of ``ORDER_ROW``'s numbering) of each suit order [B, 4]."""
    return ORDER_ROW[np.asarray(order, np.int64) @ ORDER_DIGITS]


@njit(cache=True)
def order_row(order) -> int:
    """``order_rows`` of one suit order (int64[4]), jitted: its row of ``RENAMED``."""
    return ORDER_ROW[order[0] * ORDER_DIGITS[0] + order[1] * ORDER_DIGITS[1] + order[2] * ORDER_DIGITS[2] + order[3]]


def _game_ids(order) -> np.ndarray:
    """int64[B, 56]: the game action id of each canonical action id 0..55."""
    cards = (order[:, :, None] * 13 + np.arange(13)).reshape(len(order), 52)
    return np.concatenate([cards, SUIT_ACTIONS + order], axis=1)


def canonical_actions(values, order) -> np.ndarray:
    """Per-action values [B, 60] indexed by game action id, re-indexed by canonical action id."""
    values = np.asarray(values)
    out = values.copy()
    out[:, :56] = np.take_along_axis(values[:, :56], _game_ids(order), axis=1)
    return out


def game_actions(values, order) -> np.ndarray:
    """The inverse of ``canonical_actions``: per-action values by canonical id back to game ids."""
    values = np.asarray(values)
    out = values.copy()
    np.put_along_axis(out[:, :56], _game_ids(order), values[:, :56], axis=1)
    return out


def canonical_action_ids(actions, order) -> np.ndarray:
    """Game action ids [B] as canonical ids."""
    a = np.asarray(actions, dtype=np.int64)
    rank = np.argsort(order, axis=1)                          # canonical place of each game suit
    card = np.take_along_axis(rank, (np.minimum(a, 51) // 13)[:, None], axis=1)[:, 0] * 13 + a % 13
    suit = SUIT_ACTIONS + np.take_along_axis(rank, (np.clip(a - SUIT_ACTIONS, 0, 3))[:, None], axis=1)[:, 0]
    return np.where(a < 52, card, np.where(a < 56, suit, a))


def game_action_ids(actions, order) -> np.ndarray:
    """Canonical action ids [B] as game ids."""
    a = np.asarray(actions, dtype=np.int64)
    ids = _game_ids(order)
    return np.where(a < 56, np.take_along_axis(ids, np.minimum(a, 55)[:, None], axis=1)[:, 0], a)


def _batch(obs) -> np.ndarray:
    obs = np.asarray(obs)
    if obs.ndim != 2 or obs.shape[1] < CARD_END + 84:
        raise ValueError(f"observations must be [B, 916], got shape {obs.shape}")
    return obs
