"""BatchGame.reset(seed=s) deals every game in one jitted call (cardzoo/nprandom.py): it must leave
byte-identical records to the per-game numpy path of section 7 (game b: default_rng(s + b),
permutation(52) for the draw, permutation(52) for the deal), and every later draw (CP-10.1 change
cards, a match's next bazi, CP-9.4) must come out as that game's own Generator would give it."""
import json

import numpy as np
import pytest

from cardzoo.options import SEED_MAX
import courtpiece_env
from courtpiece_env import deals as dealmod
from courtpiece_env import rules as K
from courtpiece_env.state import new_state

CONFIGS = [
    dict(variant="single_sar"),
    dict(variant="double_sar"),
    dict(variant="chhupa_rang"),
    dict(variant="be_rang"),
    dict(variant="mendi_coat", mendi_trump="band"),
    dict(variant="single_sar", change_cards=True, change_cards_limit=2, change_trump=True),
    dict(variant="chhupa_rang", episode="match", match_target=2, change_cards=True),
    dict(variant="double_sar", episode="match", match_target=3),
]


def per_game_reset(g, seed):
    """The section-7 reset game by game with numpy Generators (the path before the jitted one)."""
    eps, orders, dealers = [], np.zeros((g.n, 4, 13), np.int8), np.zeros(g.n, np.int64)
    st = new_state(g.n)
    for b in range(g.n):
        ep, dealer, order, score, streak, bazi_index = dealmod.prepare_episode(
            g.config, np.random.default_rng(seed + b), None)
        eps.append(ep)
        orders[b], dealers[b] = order, dealer
        st["score"][b] = score
        st["streak_team"][b], st["streak_count"][b] = streak
        st["bazi_index"][b] = bazi_index
    K.start_bazi_batch(st, g._cfg, orders, dealers)
    g._st, g._eps = st, eps
    g.rewards[:] = 0.0
    g._is_reset = True  # (what BatchGameBase.reset marks)


@pytest.mark.parametrize("config", CONFIGS[:5], ids=[json.dumps(c) for c in CONFIGS[:5]])
def test_courtpiece_fast_reset_byte_identical_on_many_seeds(config):
    n = 64
    fast = courtpiece_env.BatchGame(n, **config)
    slow = courtpiece_env.BatchGame(n, **config)
    # up to the largest batch seed: seeds are 0..SEED_MAX, game b gets seed + b
    for seed in [0, 1, 64, 1000, 2**31 - 5, 2**32 - 10, 2**40, 2**62 + 5, SEED_MAX - (n - 1)]:
        fast.reset(seed=seed)
        per_game_reset(slow, seed)
        assert fast.records.tobytes() == slow.records.tobytes(), seed
        for b in (0, n // 2, n - 1):
            assert fast._eps[b].rng.bit_generator.state == slow._eps[b].rng.bit_generator.state, (seed, b)


@pytest.mark.parametrize("config", CONFIGS, ids=[json.dumps(c) for c in CONFIGS])
def test_courtpiece_fast_reset_later_draws_identical(config):
    n, seed = 24, 777
    fast = courtpiece_env.BatchGame(n, **config)
    slow = courtpiece_env.BatchGame(n, **config)
    fast.reset(seed=seed)
    per_game_reset(slow, seed)
    rng = np.random.default_rng(5)
    for _ in range(600):
        if fast.done.all():
            break
        mask = fast.legal_mask()
        assert np.array_equal(mask, slow.legal_mask())
        # change cards (59) whenever offered, so the generators draw again mid-bazi
        acts = np.array([59 if m[59] else (rng.choice(np.flatnonzero(m)) if m.any() else 0) for m in mask])
        fast.step(acts)
        slow.step(acts)
        assert fast.records.tobytes() == slow.records.tobytes()
    assert fast.done.all()
    for b in range(n):
        assert fast._eps[b].rng.bit_generator.state == slow._eps[b].rng.bit_generator.state, b


def test_courtpiece_fast_reset_equals_aec_env():
    config = dict(variant="chhupa_rang", episode="match", match_target=2, change_cards=True)
    n, seed = 8, 2**33 + 1
    g = courtpiece_env.BatchGame(n, **config)
    g.reset(seed=seed)
    for b in range(n):
        e = courtpiece_env.env(**config)
        e.reset(seed=seed + b)
        assert g.public_state(b) == e.unwrapped.public_state()
        assert g._eps[b].rng.bit_generator.state == e.unwrapped._ep.rng.bit_generator.state


def test_courtpiece_draw_winner_ties_and_exhaustion():
    # CP-2.3's draw (rules.deal.draw_winner, what the seeded reset runs) against deals.run_draw on
    # random draws (ties of the top rank are common) and on crafted ones: a two-seat tie settled by
    # the next pair, a three-way tie, then a draw whose ties use up all 52 cards (each rank's four
    # cards in a row), which is reported (-1) so that the reset takes the Python path
    from courtpiece_env.rules.deal import draw_winner

    rng = np.random.default_rng(11)
    def crafted(head):
        rest = [c for c in rng.permutation(52).tolist() if c not in head]
        return np.array(head + rest, np.int8)
    draws = [crafted([12, 25, 0, 1, 11, 10]),            # AC AD 2C 3C | KC QC: seat 0
             crafted([5, 12, 25, 38, 50, 24, 49])]       # 7C AC AD AH | KS KD QS: seats 1, 2 again
    draws += [rng.permutation(52).astype(np.int8) for _ in range(400)]
    contenders, rank = np.empty(4, np.int64), np.empty(4, np.int64)
    ties = 0
    for k, cards in enumerate(draws):
        ranks = [c % 13 for c in cards[:4].tolist()]
        ties += ranks.count(max(ranks)) > 1
        assert draw_winner(cards, contenders, rank) == dealmod.run_draw(cards.tolist()), k
    assert draw_winner(draws[0], contenders, rank) == 0 and ties > 20
    exhausted = np.array([r + 13 * s for r in range(13) for s in range(4)], np.int8)
    assert draw_winner(exhausted, contenders, rank) == -1
    with pytest.raises(StopIteration):
        dealmod.run_draw(exhausted.tolist())


@pytest.mark.parametrize("n", [1, 2, 7, 33])
def test_courtpiece_seeded_deals_any_batch_size(n):
    # games are dealt in pairs (nprandom._permutation_pair): an odd batch's last game too must come
    # out as its own default_rng(seed + b) deals it, generator state included
    fast = courtpiece_env.BatchGame(n)
    slow = courtpiece_env.BatchGame(n)
    for seed in (0, 5, 2**40 + 3):
        fast.reset(seed=seed)
        per_game_reset(slow, seed)
        assert fast.records.tobytes() == slow.records.tobytes(), (n, seed)
        for b in range(n):
            assert fast._eps[b].rng.bit_generator.state == slow._eps[b].rng.bit_generator.state, (n, seed, b)
