"""The suit symmetry (courtpiece_env.symmetry): renaming the suits of a deal renames the suits of every
observation, mask and action and changes nothing else (CP-1.1), in every variant."""
import numpy as np
import pytest

import courtpiece_env
from cardzoo.cards import card_index
from cardzoo.registry import make_batch
from courtpiece_configs import CONFIGS
from courtpiece_env.observe import observe_entries, observe_one
from courtpiece_env.symmetry import (RENAMED, canonical_action_ids, canonical_actions, canonical_observation,
                                     game_action_ids, game_actions, order_row, order_rows, suit_order,
                                     suit_order_entries)
from numba import njit


@njit(cache=True)
def observe_one_entries(st, b, cfg, viewer, entries, values):
    return observe_entries(st[b], cfg, viewer, entries, values)

VARIANTS = ["single_sar", "double_sar", "chhupa_rang", "be_rang", "mendi_coat"]


def _rename(sigma):
    """order such that canonical_* applies the renaming game suit s -> sigma[s]."""
    return np.argsort(sigma)[None, :]


@pytest.mark.parametrize("variant", VARIANTS)
def test_renamed_deal_plays_the_renamed_game(variant):
    rng = np.random.default_rng(VARIANTS.index(variant))
    for game in range(12):
        sigma = rng.permutation(4)
        order = _rename(sigma)
        cards = rng.permutation(52)
        dealer = int(rng.integers(4))
        hands = [[int(c) for c in cards[13 * s:13 * s + 13]] for s in range(4)]
        renamed = [[int(sigma[c // 13] * 13 + c % 13) for c in h] for h in hands]
        a, b = courtpiece_env.env(variant=variant), courtpiece_env.env(variant=variant)
        a.reset(seed=game, options={"deal": {"hands": hands, "dealer": dealer}})
        b.reset(seed=game, options={"deal": {"hands": renamed, "dealer": dealer}})
        for name in a.agent_iter():
            oa, ra, ta, _, _ = a.last()
            ob, rb, tb, _, _ = b.last()
            assert b.agent_selection == name and ra == rb and ta == tb
            if ta:
                a.step(None)
                b.step(None)
                continue
            np.testing.assert_array_equal(canonical_observation(oa["observation"][None], order)[0], ob["observation"])
            np.testing.assert_array_equal(canonical_actions(oa["action_mask"][None], order)[0], ob["action_mask"])
            act = int(rng.choice(np.flatnonzero(oa["action_mask"])))
            a.step(act)
            b.step(int(canonical_action_ids([act], order)[0]))
        assert a.unwrapped.public_state()["tricks_won"] == b.unwrapped.public_state()["tricks_won"]


def test_canonical_order_trump_then_led_then_length():
    env = courtpiece_env.env()
    env.reset(seed=3)
    for _ in range(12):                        # into the play phase, a few cards into trick 1
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    obs = env.last()[0]["observation"][None]
    ps = env.unwrapped.public_state()
    order = suit_order(obs)[0]
    assert order[0] == ps["trump"]
    led = card_index(ps["current_trick"][0][1]) // 13 if ps["current_trick"] else None
    if led is not None and led != ps["trump"]:
        assert order[1] == led
    canon = canonical_observation(obs, order[None])[0]
    assert canon[846] == 1.0                  # trump is canonical suit 0
    rest = [s for s in order if s != ps["trump"] and s != led]
    lengths = [obs[0, 13 * s:13 * s + 13].sum() for s in rest]
    assert lengths == sorted(lengths, reverse=True)


def test_action_maps_are_inverse():
    rng = np.random.default_rng(0)
    order = np.stack([rng.permutation(4) for _ in range(50)])
    ids = rng.integers(0, 60, 50)
    np.testing.assert_array_equal(game_action_ids(canonical_action_ids(ids, order), order), ids)
    vals = rng.random((50, 60))
    np.testing.assert_array_equal(game_actions(canonical_actions(vals, order), order), vals)
    # a value moves with its action id
    canon = canonical_actions(vals, order)
    cid = canonical_action_ids(ids, order)
    np.testing.assert_array_equal(canon[np.arange(50), cid], vals[np.arange(50), ids])


def test_bad_shape_is_a_value_error():
    with pytest.raises(ValueError, match="916"):
        suit_order(np.zeros((3, 10)))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_entry_listing_is_the_dense_observation_and_renames_like_it(config):
    """observe_entries lists exactly the set entries of observe_into (one encoder, two outputs), each
    once, the card blocks before the scalars; the suit order from the listing is
    suit_order's, and RENAMED moves each entry where canonical_observation puts it."""
    g = make_batch("courtpiece", 64, **config)
    g.reset(seed=sum(map(len, map(str, config.values()))))
    rng = np.random.default_rng(1)
    entries, values = np.zeros(916, np.int64), np.zeros(916, np.float32)
    dense = np.zeros(916, np.float32)
    order, sums = np.zeros(4, np.int64), np.zeros(29, np.float64)
    checked = 0
    for _ in range(80):
        live = np.flatnonzero(np.asarray(g.current_player) >= 0)
        if not len(live):
            break
        for b in live[:8]:
            viewer = int(rng.integers(4))
            observe_one(g.records, b, g.config_array, viewer, dense)
            n = observe_one_entries(g.records, b, g.config_array, viewer, entries, values)
            np.testing.assert_array_equal(np.sort(entries[:n]), np.flatnonzero(dense))
            np.testing.assert_array_equal(values[:n], dense[entries[:n]])
            assert len(set(entries[:n])) == n                                     # each entry once
            assert not (entries[:n][1:] < 832)[(entries[:n][:-1] >= 832)].any()   # cards before scalars
            suit_order_entries(entries, values, n, sums, order)
            want = suit_order(dense[None])[0]
            np.testing.assert_array_equal(order, want)
            assert order_row(order) == order_rows(order[None])[0]
            renamed = RENAMED[order_row(order)]
            canon = np.zeros(916, np.float32)
            canon[renamed[entries[:n]]] = values[:n]
            np.testing.assert_array_equal(canon, canonical_observation(dense[None], want[None])[0])
            checked += 1
        mask = g.legal_mask()
        g.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask]))
    assert checked > 100
