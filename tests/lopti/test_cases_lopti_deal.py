"""LOPTI scenario cases 8.1-8.3: deal from a deck order, swap phase, first lead and draws.

Public surface only (spec §9). Rule IDs: LO-2.4 deal, LO-2.5 leader, LO-2.6 swap phase,
LO-4.1 legality, LO-7.1 draw.
"""
import numpy as np
import pytest

from lopti_cases import (
    KEEP, PICKUP, act, snapshot, assert_hand, assert_known, assert_legal, assert_pile, assert_rejected,
    assert_top, from_deal, legal, obs_fields, ps, up, down,
)


def _deal_8_1():
    return from_deal({"deck": list(range(52))}, num_players=2)


def _after_swaps_8_2():
    env = _deal_8_1()
    act(env, 70, "swap 6 up2")
    act(env, KEEP, "keep")
    return env


def test_lopti_case_8_1():
    """8.1 Deal from a deck order (LO-2.4): order = [P1, P0] (left of the dealer first); three
    face-down, three face-up, three hand cards each; the rest is the draw pile, deck[18] = 7D on
    top. LO-2.5/LO-2.6: the dealer leads, so P0 swaps first; SWAP(r, j) offered for every hand
    rank and every face-up slot of another rank (§4.2), KEEP always."""
    env = _deal_8_1()
    p = ps(env)
    assert p["phase"] == "swap"
    assert env.infos["player_0"]["phase"] == "swap"
    assert p["num_players"] == 2 and p["dealer"] == 0 and p["leader"] == 0
    assert p["round"] == 0 and p["num_rounds"] == 1
    assert p["move"] is None
    assert up(env, 0) == ["9C", "JC", "KC"]
    assert up(env, 1) == ["8C", "TC", "QC"]
    assert down(env, 0) == [True, True, True]
    assert down(env, 1) == [True, True, True]
    assert_hand(env, 0, "2D 4D 6D")
    assert_hand(env, 1, "AC 3D 5D")
    assert_known(env, 0, "")
    assert_known(env, 1, "")
    assert p["draw_size"] == 34
    assert p["gone"] == ""
    assert_pile(env, [])
    assert p["chain"] == 0 and p["obligation"] is False and p["limit"] is False
    assert p["out"] == []
    assert_legal(env, [56, 57, 58, 62, 63, 64, 68, 69, 70, 95], s=0)
    # §3.5 observations: seats relative to the observer, padding -1 for seats >= N
    o = obs_fields(env, 0)
    assert (o["phase"], o["actor"], o["num_players"], o["seat"]) == (0, 0, 2, 0)
    assert o["hand"] == [1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert o["hand_size"] == [3, 3, -1, -1, -1]
    assert o["stage"] == [0, 0, -1, -1, -1]
    assert o["place"] == [-1] * 5
    assert o["known"][:2] == [[0] * 13] * 2 and o["known"][2:] == [[-1] * 13] * 3
    assert o["up"] == [[8, 10, 12], [7, 9, 11], [-1] * 3, [-1] * 3, [-1] * 3]
    assert o["down"] == [[1, 1, 1], [1, 1, 1], [-1] * 3, [-1] * 3, [-1] * 3]
    assert o["pile_counts"] == [0] * 13 and o["gone"] == [0] * 13
    assert (o["pile_size"], o["draw_size"], o["chain"], o["obligation"], o["limit"]) == (0, 34, 0, 0, 0)
    assert o["top"] == [0, 0, 0]
    assert (o["dealer"], o["leader"], o["round"], o["num_rounds"]) == (0, 0, 0, 1)
    assert o["switches"] == [8, 5, 1, 4, 3, 0, 1, 1, 1]
    assert o["rules"] == [[0] * 8] * 8
    assert o["scores"] == [0.0, 0.0, -1.0, -1.0, -1.0]
    o = obs_fields(env, 1)
    assert (o["phase"], o["actor"], o["num_players"], o["seat"]) == (0, 1, 2, 1)
    assert o["hand"] == [0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    assert o["up"][:2] == [[7, 9, 11], [8, 10, 12]]
    assert (o["dealer"], o["leader"]) == (1, 1)
    # §4.2: no PLAY and no PICKUP in the swap phase
    assert_rejected(env, 8)
    assert_rejected(env, PICKUP)
    # §7.1, §9.6: a malformed deal is a ValueError that leaves the env as it was
    before = snapshot(env)
    for bad in ({"deck": list(range(51))}, {"deck": [0] + list(range(1, 51)) + [1]},
                {"deck": ["ZZ"] + list(range(1, 52))}):
        with pytest.raises(ValueError):
            env.reset(seed=0, options={"deal": bad})
        assert snapshot(env) == before
    # §9.6: an unknown options key warns and is ignored; a known one with a bad value still raises
    with pytest.raises(ValueError, match="at most one of 'deal' and 'state'"), pytest.warns(UserWarning, match="'deals_x'"):
        env.reset(seed=0, options={"deal": {"deck": list(range(52))}, "state": {}, "deals_x": 1})
    assert snapshot(env) == before


def test_lopti_case_8_2():
    """8.2 Swap phase and first lead (LO-2.6): SWAP(6, slot 2) puts 6D in face-up slot 2 and KC
    into P0's hand as a known card (§3.2); one swap per player (SWAPS = 1), then P1 decides; after
    P1 keeps, PLAY starts with the leader P0 on the empty table: every held rank, k = 1 only
    (LO-4.1 line 2), no PICKUP on an empty table (LO-3.4)."""
    env = _deal_8_1()
    act(env, 70, "swap 6 up2")
    assert up(env, 0) == ["9C", "JC", "6D"]
    assert_hand(env, 0, "2D 4D KC")
    assert_known(env, 0, "KC")
    assert ps(env)["phase"] == "swap"
    # §3.2: the swap is public; P1 sees P0's new face-up card and the known K in P0's hand
    o = obs_fields(env, 1)
    assert o["actor"] == 0 and o["up"][1] == [8, 10, 5]
    assert o["known"][1] == [0] * 11 + [1, 0]
    assert o["known"][0] == [0] * 13
    assert obs_fields(env, 0)["hand"] == [1, 0, 1] + [0] * 8 + [1, 0]
    # P0 has used its one swap: P1 is asked now
    assert_legal(env, [59, 60, 61, 65, 66, 67, 92, 93, 94, 95], s=1)
    # P1 holds no 6 (SWAP(4, 2) = 70) and no 2 (SWAP(0, 0) = 56)
    assert_rejected(env, 70)
    assert_rejected(env, 56)
    act(env, KEEP, "keep")
    p = ps(env)
    assert p["phase"] == "play"
    assert env.infos["player_0"]["phase"] == "play"
    assert p["move"] == "first" and p["moves"] == 0
    assert up(env, 1) == ["8C", "TC", "QC"]
    assert_hand(env, 1, "AC 3D 5D")
    assert_legal(env, [0, 8, 44], s=0)
    assert_rejected(env, PICKUP)
    assert_rejected(env, 95)


def test_lopti_case_8_3():
    """8.3 Lead and exactly one draw (LO-7.1): 4D leaves P0 with 2 < DRAW_BELOW cards, P0 draws
    the top card 7D. P1 over a 4: 3, 5, A, pickup (LO-4.1 lines 3, 7; LO-3.4). After AC, P1 draws
    8D. On an Ace: 2 and 7 are legal (LO-4.1 lines 5, 6), K is not (LO-4.3)."""
    env = _after_swaps_8_2()
    act(env, 8, "play 4")
    assert_hand(env, 0, "2D KC 7D")
    assert_pile(env, [(0, "4D")])
    assert_top(env, 2, 1, 1)
    assert ps(env)["draw_size"] == 33
    assert ps(env)["moves"] == 1
    assert_legal(env, [4, 12, 48, 52], s=1)
    act(env, 48, "play A")
    assert_hand(env, 1, "3D 5D 8D")
    assert ps(env)["draw_size"] == 32
    assert_pile(env, [(0, "4D"), (1, "AC")])
    assert_top(env, 12, 1, 1)
    assert_legal(env, [0, 20, 52], s=0)
    assert_rejected(env, 44)  # K on an Ace


def test_lopti_case_8_3_batch():
    """8.1-8.3 through `BatchGame` (§9.7): game b is reset like AEC `reset(seed=s + b)` with the
    same injected deal, so under the same actions it shows the same actor, mask and observation
    as the AEC env at every decision, and an illegal action raises ValueError and moves no game."""
    import lopti_env

    deck = {"deck": list(range(52))}
    g = lopti_env.BatchGame(2, num_players=2)
    g.reset(seed=0, deals=[deck, deck])
    envs = [from_deal(deck, num_players=2, seed=0), from_deal(deck, num_players=2, seed=1)]
    for a in [70, KEEP, 8, 48]:
        for b, env in enumerate(envs):
            assert int(g.current_player[b]) == int(env.agent_selection.split("_")[1])
            assert np.flatnonzero(g.legal_mask()[b]).tolist() == legal(env)
            assert np.array_equal(g.observe()[b], env.observe(env.agent_selection)["observation"])
        assert g.observe().shape == (2, 309)
        before = (g.current_player.copy(), g.legal_mask().copy(), g.observe().copy())
        with pytest.raises(ValueError):
            g.step(np.array([a, 139]))  # SELECT(31) is never legal in these phases
        assert np.array_equal(before[0], g.current_player)
        assert np.array_equal(before[1], g.legal_mask())
        assert np.array_equal(before[2], g.observe())
        g.step(np.array([a, a]))
        for env in envs:
            act(env, a)
        assert not g.done.any()
        assert np.all(g.rewards == 0)
    assert np.flatnonzero(g.legal_mask()[0]).tolist() == [0, 20, 52]
