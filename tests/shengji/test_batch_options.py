"""BatchGame's per-game §7.1 reset options (banker, levels, trump, first_drawer), ``play`` (every game
through its own action sequence in one call) and ``take`` (copies of chosen games): they must equal
the env's own §7.1 option path and plain ``step`` exactly, and bad input raises ValueError naming the
problem with every game left as it was (9.6)."""
from __future__ import annotations

import numpy as np
import pytest

import shengji_env
from shengji_env.env import canonical_order


def _random_options(rng, n, decks, mode, with_deals):
    """n games' §7.1 options drawn at random (within the rules: equal levels without a banker,
    first_drawer only without banker, trump only in preset mode)."""
    bankers, levels, trumps, firsts, deals = [], [], [], [], []
    for _ in range(n):
        banker = None if rng.random() < 0.4 else int(rng.integers(4))
        lv = [int(rng.integers(13)), int(rng.integers(13))]
        if banker is None:
            lv[1] = lv[0]
        lv = [str("23456789TJQKA"[v]) if rng.random() < 0.3 else v for v in lv]
        bankers.append(banker)
        levels.append(None if rng.random() < 0.2 else lv)
        trumps.append(rng.choice(["C", "D", "H", "S", "NT", None]) if mode == "preset" else None)
        firsts.append(int(rng.integers(4)) if banker is None and rng.random() < 0.5 else None)
        deals.append(canonical_order(rng, decks).astype(np.int64) if with_deals else None)
    return bankers, levels, trumps, firsts, deals


def _env_options(b, bankers, levels, trumps, firsts, deals):
    opts = {}
    for key, vals in (("banker", bankers), ("levels", levels), ("trump", trumps), ("first_drawer", firsts)):
        if vals[b] is not None:
            opts[key] = vals[b]
    if deals[b] is not None:
        opts["deal"] = deals[b].tolist()
    return opts


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
@pytest.mark.parametrize("mode", ["draw", "after_deal", "preset"])
def test_batch_reset_options_equal_env_option_path(decks, mode):
    """Game b of BatchGame.reset(seed, deals, banker=..., ...) is, record for record, the env after
    reset(seed=seed + b, options={...game b's §7.1 options...}) (7.3: game b draws from seed + b)."""
    rng = np.random.default_rng(100 * decks + len(mode))
    n = 6
    for case in range(4):
        with_deals = case % 2 == 0
        bankers, levels, trumps, firsts, deals = _random_options(rng, n, decks, mode, with_deals)
        g = shengji_env.BatchGame(n, decks=decks, declaration_mode=mode)
        seed = int(rng.integers(1 << 30))
        g.reset(seed=seed, deals=deals if with_deals else None, banker=bankers, levels=levels, trump=trumps,
                first_drawer=firsts)
        obs, mask = g.observe(), g.legal_mask()
        for b in range(n):
            env = shengji_env.raw_env(decks=decks, declaration_mode=mode)
            env.reset(seed=seed + b, options=_env_options(b, bankers, levels, trumps, firsts, deals))
            assert g._st[b].tobytes() == env._st[0].tobytes(), (case, b)
            name = env.agent_selection
            o = env.observe(name)
            assert (obs[b] == o["observation"]).all() and (mask[b] == o["action_mask"]).all()
            assert g.public_state(b) == env.public_state()
            assert [g.hand(b, seat) for seat in range(4)] == [env.hand(seat) for seat in range(4)]
        assert (g.rewards == 0).all()


def test_batch_reset_one_value_for_every_game_and_old_signature():
    """A single banker / levels pair / trump applies to every game; reset(seed, deals) positional
    (9.7) is unchanged; a deal array [n, 54 D] equals the list of its rows."""
    g = shengji_env.BatchGame(3, declaration_mode="preset")
    deals = np.stack([canonical_order(np.random.default_rng(i), 2) for i in range(3)]).astype(np.int64)
    g.reset(None, deals, banker=1, levels=["5", "K"], trump="H")
    ps = [g.state[b] for b in range(3)]
    assert all(int(s.banker) == 1 and list(s.levels) == [3, 11] and int(s.trump) == 2 for s in ps)
    assert all(int(s.hand_level) == 11 for s in ps)        # banker 1's team (team 1) plays its level
    h = shengji_env.BatchGame(3, declaration_mode="preset")
    h.reset(None, [list(d) for d in deals], banker=[1, 1, 1], levels=[["5", "K"]] * 3, trump=["H"] * 3)
    assert g._st.tobytes() == h._st.tobytes()
    g.reset(7, None)
    h.reset(seed=7)
    assert g._st.tobytes() == h._st.tobytes()


BAD = [
    ({"banker": 4}, "banker"),
    ({"banker": True}, "banker"),
    ({"banker": "1"}, "banker"),
    ({"banker": [0, 1]}, "banker"),
    ({"banker": [0, 1, 2, 7]}, "banker[3]"),
    ({"levels": [3, 4]}, "levels"),                       # unequal without a banker (SJ-4.2)
    ({"levels": ["2", "Z"], "banker": 0}, "levels"),
    ({"levels": [1, 2, 3], "banker": 0}, "levels"),
    ({"levels": [[1, 1], [2, 2], [3, 3], [4, 13]], "banker": 1}, "levels[3]"),
    ({"trump": "X"}, "trump"),
    ({"trump": ["S", "H", "NT", 3]}, "trump[3]"),
    ({"first_drawer": 5}, "first_drawer"),
    ({"first_drawer": 1, "banker": 0}, "first_drawer"),
    ({"first_drawer": [None, 2, None, None], "banker": [None, 1, None, None]}, "first_drawer"),
    ({"deals": np.zeros((4, 108), np.int64)}, "deals[0]"),
    ({"deals": np.zeros((3, 108), np.int64)}, "deals"),
    ({"deals": [list(range(54)) * 2] * 3 + [[60] * 108]}, "deals[3]"),
]


@pytest.mark.parametrize("bad,word", BAD)
def test_batch_reset_bad_options_raise_and_leave_state(bad, word):
    g = shengji_env.BatchGame(4, declaration_mode="preset")
    g.reset(seed=5, banker=2, trump="S")
    g.step(g.legal_mask().argmax(axis=1))
    before = (g._st.tobytes(), g.rewards.copy(), g.legal_mask(), g.observe())
    kw = dict(bad)
    deals = kw.pop("deals", None)
    with pytest.raises(ValueError, match=word.replace("[", r"\[").replace("]", r"\]")):
        g.reset(seed=1, deals=deals, **kw)
    assert g._st.tobytes() == before[0]
    assert (g.rewards == before[1]).all() and (g.legal_mask() == before[2]).all()
    assert (g.observe() == before[3]).all()


def test_batch_trump_needs_preset():
    g = shengji_env.BatchGame(2)
    with pytest.raises(ValueError, match="preset"):
        g.reset(trump="S", banker=0)


def _records(g) -> bytes:
    """The games' state records without the kernels' per-step reward scratch (BatchGame.step zeroes
    it for games that are done; ``play`` leaves a game alone once its sequence ends)."""
    st = g._st.copy()
    st["rewards"] = 0
    return st.tobytes()


def _random_sequences(g, steps, rng):
    """Random legal actions played with BatchGame.step on g; returns the actions [n, steps] (-1 once
    a game is done) and the summed rewards."""
    acts = np.full((g.n, steps), -1, np.int64)
    rew = np.zeros((g.n, 4))
    for t in range(steps):
        mask = g.legal_mask()
        live = mask.any(axis=1)
        u = np.where(mask > 0, rng.random(mask.shape), -1.0)
        a = u.argmax(axis=1)
        acts[live, t] = a[live]
        g.step(np.where(live, a, 0))
        rew += g.rewards
    return acts, rew


@pytest.mark.parametrize("config", [{"decks": 1}, {"decks": 2, "auto_forced": True},
                                    {"decks": 1, "episode": "match", "max_hands": 3}])
def test_play_equals_step_by_step(config):
    """play(actions) leaves every game exactly as stepping the same actions one by one (match
    episodes included: a game that needs its next hand's deal mid-sequence gets it from its own
    generator, 7.4), with the summed rewards."""
    rng = np.random.default_rng(len(config))
    n, steps = 5, 260
    a = shengji_env.BatchGame(n, **config)
    b = shengji_env.BatchGame(n, **config)
    a.reset(seed=11)
    b.reset(seed=11)
    acts, rew = _random_sequences(a, steps, rng)
    lens = (acts >= 0).sum(axis=1)
    got = b.play(acts)
    assert (got == lens).all()
    assert _records(a) == _records(b)
    assert np.allclose(b.rewards, rew, atol=1e-5)         # float32 sums over a match
    if config.get("episode") == "match":
        assert (a.state.hand_index > 0).any()            # the sequences crossed a hand boundary


def test_play_stops_a_game_at_its_first_illegal_action():
    rng = np.random.default_rng(3)
    a = shengji_env.BatchGame(4, decks=1)
    b = shengji_env.BatchGame(4, decks=1)
    a.reset(seed=2)
    b.reset(seed=2)
    acts, _ = _random_sequences(a, 40, rng)
    bad = acts.copy()
    for row, t in ((1, 10), (3, 25)):
        mask = np.zeros(84, bool)
        ref = shengji_env.BatchGame(4, decks=1)
        ref.reset(seed=2)
        ref.play(acts[:, :t])
        mask = ref.legal_mask()[row]
        bad[row, t] = int(np.flatnonzero(mask == 0)[0])   # an action its mask refuses there
    got = b.play(bad)
    assert list(got) == [40, 10, 40, 25]
    ref = shengji_env.BatchGame(4, decks=1)
    ref.reset(seed=2)
    ref.play(np.where(np.arange(40)[None] < got[:, None], acts, -1))
    assert _records(ref) == _records(b)
    with pytest.raises(ValueError, match="actions"):
        b.play(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="actions"):
        b.play(np.zeros((3, 2), np.int64))


def test_take_copies_games():
    g = shengji_env.BatchGame(3, decks=1, episode="match")
    g.reset(seed=4)
    g.step(g.legal_mask().argmax(axis=1))
    c = g.take(np.array([2, 0, 2]))
    assert c.n == 3 and c.config == g.config
    assert c._st[0].tobytes() == g._st[2].tobytes() and c._st[1].tobytes() == g._st[0].tobytes()
    before = g._st.tobytes()
    c.step(c.legal_mask().argmax(axis=1))
    assert g._st.tobytes() == before                      # copies, not views
    for bad in ([3], [], [[0]], [0.5], [-1]):
        with pytest.raises(ValueError, match="rows"):
            g.take(np.array(bad))
