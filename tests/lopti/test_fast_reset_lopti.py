"""BatchGame.reset(seed=s) draws every game's section-7.3 decks (and, in session mode, its LO-10.7
safeguard coins from the aux stream default_rng([s + b, 1])) in one jitted call
(cardzoo/nprandom.py): records, decks and coins must be byte-identical to the per-game numpy path."""
import numpy as np
import pytest

from cardzoo.options import SEED_MAX
import lopti_env
from lopti_env import kernels as K
from lopti_env.state import new_state

CONFIGS = [
    dict(num_players=2),
    dict(num_players=4),
    dict(num_players=5),
    dict(num_players=3, session=True),
    dict(num_players=5, session=True),
]


def per_game_reset(g, seeds, deals=None):
    """The section-7.3 reset game by game with numpy Generators (the path before the jitted one)."""
    decks = np.zeros((g.n, g.R, 52), np.int8)
    coins = np.zeros((g.n, g.n_coins), np.int8)
    st = new_state(g.n)
    for b, s in enumerate(seeds):
        decks[b] = g._decks_from(np.random.default_rng(s))
        if g.config.session:
            coins[b] = g._coins_from(np.random.default_rng([s, 1]))
        fd = g.config.first_dealer
        if deals is not None:
            fd, inj = g._parse_deal(deals[b])
            for i, d in inj.items():
                decks[b, i] = d
        K.start_episode(st, b, g.cfg, g.carry, decks, coins, g.rules0, g.sw0, fd)
    return st, decks, coins


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_lopti_fast_reset_byte_identical_on_many_seeds(config):
    n = 40
    g = lopti_env.BatchGame(n, **config)
    # up to the largest batch seed: seeds are 0..SEED_MAX, game b gets seed + b
    for seed in [0, 1, 40, 12345, 2**31 - 1, 2**32 - 20, 2**50 + 3, 2**62 + 1, SEED_MAX - (n - 1)]:
        g.reset(seed=seed)
        st, decks, coins = per_game_reset(g, [seed + b for b in range(n)])
        assert g.st.tobytes() == st.tobytes(), seed
        assert g.decks.tobytes() == decks.tobytes() and g.coins.tobytes() == coins.tobytes(), seed


def test_lopti_fast_reset_with_deals():
    # injected decks replace the drawn ones round by round; the draws themselves still happen (7.3)
    n = 6
    g = lopti_env.BatchGame(n, num_players=3, session=True)
    deals = [{"deck": [int(c) for c in np.random.default_rng(b).permutation(52)], "dealer": b % 3}
             if b % 2 else {"deals": [{"deck": list(range(52))}, {"deck": list(range(52))[::-1]}]}
             for b in range(n)]
    g.reset(seed=9, deals=deals)
    st, decks, coins = per_game_reset(g, [9 + b for b in range(n)], deals)
    assert g.st.tobytes() == st.tobytes()
    assert g.decks.tobytes() == decks.tobytes() and g.coins.tobytes() == coins.tobytes()


def test_lopti_fast_reset_equals_aec_env():
    config = dict(num_players=4, session=True)
    n, seed = 5, 2**40 + 17
    g = lopti_env.BatchGame(n, **config)
    g.reset(seed=seed)
    for b in range(n):
        e = lopti_env.raw_env(**config)
        e.reset(seed=seed + b)
        assert (g.decks[b] == e._decks[0]).all() and (g.coins[b] == e._coins[0]).all()
        assert g.public_state(b) == e.public_state()
