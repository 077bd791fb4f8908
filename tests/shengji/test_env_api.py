"""Section 9 surface (PettingZoo's own api_test / seed_test for every deck count, declaration mode and
match episodes: tests/core/test_pettingzoo_stock.py)."""
import numpy as np
import pytest

import shengji_env


def test_factories_and_spaces():
    e = shengji_env.env()
    assert e.unwrapped.metadata["name"] == "shengji_v0"
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert e.action_space("player_0").n == 84
    raw = shengji_env.raw_env(render_mode="ansi")
    raw.reset(seed=1)
    assert "player_0" in raw.render()
    for bad in ({"decks": 5}, {"bogus": 1}, {"reward_mode": "match"}, {"start_level": "1"},
                {"must_defend": ["Z"]}, {"throw_penalty_points": 7}):
        with pytest.raises(ValueError):
            shengji_env.env(**bad)


def test_action_names_roundtrip():
    raw = shengji_env.raw_env()
    for a in range(84):
        assert raw.action_from_name(raw.action_name(a)) == a
    assert raw.action_name(47) == "card TS"
    assert raw.action_name(69) == "declare level S x2"
    assert raw.action_name(73) == "declare LJ x2"
    assert raw.action_name(79) == "declare BJ x4"
    assert raw.action_name(83) == "name trump S"
    assert raw.action_from_name("card 10S") == 47
    for bad in (84, -1, "x"):
        with pytest.raises(ValueError):
            raw.action_name(bad)
    with pytest.raises(ValueError):
        raw.action_from_name("card 1S")


def test_reset_errors_leave_state():
    raw = shengji_env.raw_env()
    raw.reset(seed=3)
    before = raw.public_state()
    for opts in ({"deal": [0] * 108}, {"banker": 4}, {"banker": 1, "first_drawer": 2}, {"levels": ["2", "3"]},
                 {"trump": "S"}, {"levels": ["2", "Z"], "banker": 0}, {"deal": list(range(54))}):
        with pytest.raises(ValueError):
            raw.reset(options=opts)
        assert raw.public_state() == before


def test_same_seed_same_game_and_batch_parity():
    a = shengji_env.raw_env()
    b = shengji_env.raw_env()
    a.reset(seed=11)
    b.reset(seed=11)
    g = shengji_env.BatchGame(1)
    g.reset(seed=11)
    rng = np.random.default_rng(0)
    while not g.done[0]:
        m = g.legal_mask()[0]
        assert np.array_equal(m, a.infos[a.agent_selection]["action_mask"])
        obs = g.observe()[0]
        assert np.array_equal(obs, a.observe(a.agent_selection)["observation"])
        assert np.array_equal(obs[854:], m)
        act = int(rng.choice(np.flatnonzero(m)))
        a.step(act)
        b.step(act)
        g.step(np.array([act]))
    assert a.public_state() == b.public_state()
    assert np.allclose(g.rewards[0], [a.rewards[f"player_{i}"] for i in range(4)])


def test_illegal_step_raises_state_unchanged():
    raw = shengji_env.raw_env()
    raw.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(150):
        agent = raw.agent_selection
        if raw.terminations[agent]:
            break
        mask = raw.infos[agent]["action_mask"]
        before = raw.public_state()
        illegal = np.flatnonzero(mask == 0)
        for a in rng.choice(illegal, size=3, replace=False):
            with pytest.raises(ValueError):
                raw.step(int(a))
        for a in (None, 84, -1, 1.5):
            with pytest.raises(ValueError):
                raw.step(a)
        assert raw.public_state() == before
        assert np.array_equal(raw.infos[agent]["action_mask"], mask)
        raw.step(int(rng.choice(np.flatnonzero(mask))))


def test_batch_illegal_raises_and_steps_nothing():
    g = shengji_env.BatchGame(3, decks=1)
    g.reset(seed=2)
    m = g.legal_mask()
    acts = np.array([int(np.flatnonzero(m[b])[0]) for b in range(3)])
    bad = acts.copy()
    bad[1] = int(np.flatnonzero(m[1] == 0)[0])
    st = g.state.copy()
    with pytest.raises(ValueError):
        g.step(bad)
    assert np.array_equal(g.state, st)
    g.step(acts)


def test_match_episode_runs_to_end():
    raw = shengji_env.raw_env(decks=1, episode="match", reward_mode="match", max_hands=6)
    raw.reset(seed=4)
    rng = np.random.default_rng(4)
    hands = 0
    while True:
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            break
        before = raw.public_state()["hand_index"]
        raw.step(int(rng.choice(np.flatnonzero(raw.infos[agent]["action_mask"]))))
        if raw.public_state()["hand_index"] != before:
            hands += 1
    ps = raw.public_state()
    assert ps["phase"] == "OVER"
    assert ps["result"] is not None
    assert all(raw.truncations.values()) or all(raw.terminations.values())


def test_result_dict_reads_every_result_field_as_plain_python():
    """The end-of-hand result (infos' "result", public_state()["result"]) is read from the state's
    result block in one piece: every value equals its record field, as a plain int, str or list, for
    hands of every deck count and a match (a match winner)."""
    from cardzoo.cards import card_index

    for decks, extra in ((1, {}), (2, {}), (3, {}), (1, {"episode": "match", "reward_mode": "match", "max_hands": 3})):
        raw = shengji_env.raw_env(decks=decks, **extra)
        raw.reset(seed=decks)
        rng = np.random.default_rng(decks)
        while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
            raw.step(int(rng.choice(np.flatnonzero(raw.infos[raw.agent_selection]["action_mask"]))))
        s = raw.unwrapped._st[0]
        r = raw.infos["player_0"]["result"]
        assert r == raw.public_state()["result"]
        assert r["hand_index"] == s["r_hand_index"] and r["banker"] == s["r_banker"]
        assert r["declarers"] == s["r_banker"] % 2 and r["hand_level"] == s["r_level"]
        assert r["trump"] == ("C", "D", "H", "S", "NT")[s["r_trump"]]
        assert r["trick_points"] == [int(x) for x in s["r_tp"]] and 0 <= sum(r["trick_points"]) <= 100 * decks
        kitty = [card_index(c, jokers=True) for c in r["kitty"].split()]
        assert np.array_equal(np.bincount(kitty, minlength=54), s["r_kitty"][:54])
        for key, field in (("kitty_points", "r_kpts"), ("last_trick_winner", "r_last"), ("multiplier", "r_mult"),
                           ("kitty_bonus", "r_bonus"), ("penalty", "r_pen"), ("opponent_points", "r_p"),
                           ("table_levels", "r_table"), ("hand_score", "r_score"), ("next_banker", "r_next_banker")):
            assert r[key] == s[field] and type(r[key]) is int, key
        assert r["outcome"] == ("hold", "takeover")[s["r_outcome"]]
        assert r["levels_gained"] == [int(x) for x in s["r_gain"]]
        assert r["new_levels"] == [int(x) for x in s["r_newlev"]]
        assert r["match_winner"] == (None if s["r_winner"] < 0 else s["r_winner"])
        if extra:
            assert r["match_winner"] is not None or all(raw.truncations.values())


def test_render_modes_follow_pettingzoo(capsys):
    """9.1: "human" prints the table and returns None (PettingZoo's contract), "ansi" returns it."""
    from pettingzoo.test import render_test

    render_test(shengji_env.env)
    human = shengji_env.env(render_mode="human")
    human.reset(seed=1)
    capsys.readouterr()
    assert human.render() is None and "player_0" in capsys.readouterr().out
