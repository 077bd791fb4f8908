"""LOPTI scenario cases 8.20-8.28: takeover of the face-up row, blind flips, going out,
finishing order and rewards.

Positions are §7.2 states with the section 8 defaults (N = 2, dealer P0, default switches, no made
rules, first move, nothing face-up or face-down, empty draw pile, unlisted cards gone).
Public surface only (spec §9). Rule IDs are cited per test.
"""
import pytest

from lopti_cases import (
    act, agent, assert_gone_has, assert_hand, assert_known, assert_legal, assert_pile,
    assert_rejected, assert_rewards, assert_top, cset, from_state, obs_fields, ps, seat, state, up, down,
)


def test_lopti_case_8_20():
    """8.20 Takeover when the draw pile is empty (LO-8.1): the hand emptied in a first move with
    no draw possible takes the whole face-up row at once, known to all (§3.2); the face-down
    cards stay; the turn ends (no clear)."""
    S = state([seat("8C", up="JD JH 3S", down="2S 6H AC"), seat("QC")], pile=[(1, "6C")])
    env = from_state(S)
    assert_legal(env, [24, 52], s=0)
    assert ps(env)["seats"][0]["stage"] == 0
    act(env, 24, "play 8")
    assert_hand(env, 0, "JD JH 3S")
    assert_known(env, 0, "JD JH 3S")
    assert up(env, 0) == [None, None, None]
    assert down(env, 0) == [True, True, True]
    assert ps(env)["seats"][0]["stage"] == 1
    assert ps(env)["out"] == []
    assert_pile(env, [(1, "6C"), (0, "8C")])
    assert ps(env)["move"] == "first"
    assert_legal(env, [40, 52], s=1)


def test_lopti_case_8_21():
    """8.21 Takeover during an extra move while the draw pile lasts (LO-8.1, LO-7.1): the first
    move (a clearing 10) empties the hand, the draw comes first (2S), so the face-up row stays;
    the extra move empties the hand again, no draw in an extra move, so the face-up cards are taken
    then; P1 still draws AH on its own first move and keeps its face-up row."""
    S = state([seat("TC", up="4D 4H KS", down="6C 6D 6H"), seat("5C", up="JC JD JH")],
              pile=[(1, "9C")], draw="2S AH")
    env = from_state(S)
    assert_legal(env, [32, 52], s=0)
    act(env, 32, "play T")
    p = ps(env)
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 1
    assert_hand(env, 0, "2S")
    assert up(env, 0) == ["4D", "4H", "KS"]
    assert p["draw_size"] == 1
    assert p["move"] == "extra"
    assert_legal(env, [0], s=0)
    act(env, 0, "play 2")
    assert_hand(env, 0, "4D 4H KS")
    assert_known(env, 0, "4D 4H KS")
    assert up(env, 0) == [None, None, None]
    assert ps(env)["draw_size"] == 1
    assert_pile(env, [(0, "2S")])
    assert_legal(env, [12, 52], s=1)
    act(env, 12, "play 5")
    assert_hand(env, 1, "AH")
    assert up(env, 1) == ["JC", "JD", "JH"]
    assert ps(env)["draw_size"] == 0
    assert_legal(env, [44, 52], s=0)


def test_lopti_case_8_22():
    """8.22 Legal blind flip (LO-8.2, LO-3.4 blind ruling): in the blind stage FLIP of any filled
    slot and (VOLUNTARY_PICKUP = 1) PICKUP; QC is turned face-up for everyone and lands on the 8;
    no draw (empty draw pile); the slot is emptied; P1 to act."""
    S = state([seat(down="QC 4S 9D"), seat("5C")], pile=[(1, "8H")])
    env = from_state(S)
    assert ps(env)["seats"][0]["stage"] == 2
    assert_legal(env, [52, 53, 54, 55], s=0)
    assert_rejected(env, 40)  # the QC is face-down, not in the hand
    act(env, 53, "flip 0")
    assert_pile(env, [(1, "8H"), (0, "QC")])
    assert_top(env, 10, 1, 1)
    assert down(env, 0) == [False, True, True]
    assert_hand(env, 0, "")
    assert ps(env)["out"] == []
    assert_legal(env, [52], s=1)


def test_lopti_case_8_23():
    """8.23 Illegal blind flip (LO-8.2, LO-5.1 failed FLIP): 4S shown, illegal on a K: it joins the
    pile and P0 picks the whole pile up (known cards, §3.2); the turn ends; P1 leads."""
    S = state([seat(down="QC 4S 9D"), seat("5C")], pile=[(1, "KH")])
    env = from_state(S)
    assert_legal(env, [52, 53, 54, 55], s=0)
    act(env, 54, "flip 1")
    assert_hand(env, 0, "KH 4S")
    assert_known(env, 0, "KH 4S")
    assert down(env, 0) == [True, False, True]
    assert ps(env)["seats"][0]["stage"] == 1
    assert_pile(env, [])
    assert ps(env)["clears"] == 0
    assert_legal(env, [12], s=1)


def test_lopti_case_8_24():
    """8.24 Blind flip under a 3 obligation (LO-8.2, LO-5.3): (a) a face-down 3 is legal and
    passes the obligation; (b) any other face-down card joins the pile, which P0 picks up, chain 0;
    P1 leads. FLIP of an empty slot is never legal (§4.2)."""
    S = state([seat(down="3H 8S -"), seat("5D")], pile=[(1, "5C")], chain=1)
    # (a)
    env = from_state(S)
    assert ps(env)["obligation"] is True
    assert_legal(env, [52, 53, 54], s=0)
    assert_rejected(env, 55)
    act(env, 53, "flip 0")
    p = ps(env)
    assert p["chain"] == 2 and p["obligation"] is True
    assert_gone_has(env, "3H")
    assert down(env, 0) == [False, True, False]
    assert_pile(env, [(1, "5C")])
    assert p["out"] == []
    assert_legal(env, [52], s=1)
    # (b)
    env = from_state(S)
    act(env, 54, "flip 1")
    p = ps(env)
    assert_hand(env, 0, "5C 8S")
    assert_known(env, 0, "5C 8S")
    assert p["chain"] == 0 and p["obligation"] is False
    assert down(env, 0) == [True, False, False]
    assert_pile(env, [])
    assert_legal(env, [12], s=1)


def test_lopti_case_8_25():
    """8.25 Winning with a last face-down 3 (N = 3; LO-9.1, LO-9.2, LO-9.3): P0 is out at once,
    place 0, the winner; the last 3 still obliges P1; after P1's pickup P2 leads."""
    S = state([seat(down="- - 3C"), seat("6C"), seat("9D 9H")], pile=[(2, "JD")])
    env = from_state(S, num_players=3)
    assert_legal(env, [52, 55], s=0)
    act(env, 55, "flip 2")
    p = ps(env)
    assert p["out"] == [0]
    assert p["seats"][0]["place"] == 0 and p["seats"][0]["stage"] == 3
    assert p["seats"][1]["place"] is None and p["seats"][2]["place"] is None
    assert p["chain"] == 1 and p["obligation"] is True
    assert p["phase"] == "play"
    o = obs_fields(env, 1)  # P1's view: P0 is relative seat 2 (§3.5)
    assert o["actor"] == 0 and o["stage"][2] == 3 and o["place"][2] == 0
    assert o["place"][:2] == [-1, -1] and o["place"][3:] == [-1, -1]
    assert (o["chain"], o["obligation"]) == (1, 1)
    assert_rewards(env, {0: 0.0, 1: 0.0, 2: 0.0})
    assert not any(env.terminations.values())
    assert_legal(env, [52], s=1)
    act(env, 52, "pickup")
    assert_hand(env, 1, "6C JD")
    assert ps(env)["chain"] == 0
    assert_legal(env, [28, 29], s=2)


def test_lopti_case_8_26():
    """8.26 Winning on a clearing card (N = 3; LO-9.2, LO-6.3 exception): the last face-down 10 is
    legal: P0 is out and the pile clears (cause 1); no extra move; the next active player P1 leads
    on the empty table."""
    S = state([seat(down="TC - -"), seat("5D"), seat("6D")], pile=[(2, "9S"), (1, "QH")])
    env = from_state(S, num_players=3)
    assert_legal(env, [52, 53], s=0)
    act(env, 53, "flip 0")
    p = ps(env)
    assert p["out"] == [0] and p["seats"][0]["place"] == 0
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 1 and p["last_clear"]["seat"] == 0
    assert cset(p["last_clear"]["cards"]) == cset("9S QH TC")
    assert_pile(env, [])
    assert p["move"] == "first"
    assert_legal(env, [12], s=1)


def test_lopti_case_8_27():
    """8.27 Winning with a last 7 (N = 3; LO-9.2): P0 is out; the 7 still sets the low limit for
    the next active player P1 (6 legal, 8 not)."""
    S = state([seat(down="- 7S -"), seat("8C 6D"), seat("9D")], pile=[(2, "KD")])
    env = from_state(S, num_players=3)
    assert_legal(env, [52, 54], s=0)
    act(env, 54, "flip 1")
    p = ps(env)
    assert p["out"] == [0] and p["seats"][0]["place"] == 0
    assert p["limit"] is True
    assert_top(env, 5, 1, 1)
    assert_legal(env, [16, 52], s=1)
    assert_rejected(env, 24)


def test_lopti_case_8_28():
    """8.28 Finishing order and rewards (LO-9.4, LO-9.6, §5, §9.5).
    (a) N = 4, P0 and P2 already out: P1 goes out with its last face-down card (place 2); only P3
    is left and takes place 3; the round ends; rank rewards (N-1-2p)/(N-1); all terminated.
    (b) N = 3, play_to_end = False: the round ends at the first out; the two others share places
    1-2, -0.5 each, under both reward schemes. (The spec gives no position for (b); this one has
    P0 go out with its last face-down card.)"""
    # (a)
    S = state([seat(), seat(down="AC - -"), seat(), seat("4D")], pile=[(3, "5S")], out=[0, 2],
              to_act=1)
    env = from_state(S, num_players=4)
    p = ps(env)
    assert p["out"] == [0, 2]
    assert p["seats"][0]["place"] == 0 and p["seats"][2]["place"] == 1
    assert_legal(env, [52, 53], s=1)
    act(env, 53, "flip 0")
    p = ps(env)
    assert p["phase"] == "done" and p["to_act"] is None
    assert [s["place"] for s in p["seats"]] == [0, 2, 1, 3]
    assert_rewards(env, {0: 1.0, 2: 1 / 3, 1: -1 / 3, 3: -1.0})
    assert all(env.terminations[a] for a in env.agents)
    assert not any(env.truncations[a] for a in env.agents)
    for a in env.agents:
        info = env.infos[a]
        assert info["phase"] == "done"
        assert not info["action_mask"].any()
        r = info["result"]
        assert r["winner"] == 0
        assert r["order"] == [0, 2, 1, 3]
        assert r["places"] == [0, 2, 1, 3]
        assert r["round_rewards"] == pytest.approx([1.0, -1 / 3, 1 / 3, -1.0])
        assert r["scores"] == pytest.approx([1.0, -1 / 3, 1 / 3, -1.0])
        assert r["truncated"] is False
        assert r["round_winners"] == [0]
    assert p["scores"] == pytest.approx([1.0, -1 / 3, 1 / 3, -1.0])
    # every agent leaves by the dead step
    for _ in range(4):
        assert env.agents
        env.step(None)
    assert env.agents == []

    # (b)
    for scheme in ("rank", "winner"):
        S = state([seat(down="AC - -"), seat("4D"), seat("6D")], pile=[(2, "5S")])
        env = from_state(S, num_players=3, play_to_end=False, reward_scheme=scheme)
        assert_legal(env, [52, 53], s=0)
        act(env, 53, "flip 0")
        p = ps(env)
        assert p["phase"] == "done"
        assert p["out"] == [0]
        assert_rewards(env, {0: 1.0, 1: -0.5, 2: -0.5})
        assert all(env.terminations[agent(s)] for s in range(3))
        r = env.infos["player_0"]["result"]
        assert r["winner"] == 0
        assert r["order"] == [0, 1, 2]
        assert r["places"] == [0, None, None]
        assert r["round_rewards"] == pytest.approx([1.0, -0.5, -0.5])
        assert r["truncated"] is False
