"""LOPTI scenario cases 8.30-8.33: made rules firing inside the move pipeline.

Positions are §7.2 states with the section 8 defaults; the made rules come in the state's `rules`
rows `[t, X, G, N, maker, status]` (§9.2). Public surface only (spec §9).
Rule IDs: LO-5.1 pipeline, LO-11.3 catalogue, LO-11.4 roles and effects, LO-11.5 firing order.
"""
from lopti_cases import (
    ACTIVE, act, assert_gone_has, assert_hand, assert_known, assert_legal, assert_pile,
    assert_top, cset, from_state, gone, ps, seat, state,
)


def test_lopti_case_8_30():
    """8.30 Session: a hook fires before the base draw (LO-5.1 steps 7 and 9, LO-11.5). Rule slot 0
    = RANK_DRAW [1, 7, 1, 1] (maker P1): after a 9, NEXT draws 1. P2 plays 9C: AFTER-PLAY gives P0
    (NEXT of P2 in N = 3) the top card KS, then P2's own base draw takes QS. The made-rule draw
    is private (§3.3)."""
    S = state([seat("5H"), seat("6H"), seat("9C 4D")], pile=[(0, "6C")], draw="KS QS", to_act=2,
              rules=[[1, 7, 1, 1, 1, ACTIVE]])
    env = from_state(S, num_players=3, session=True)
    p = ps(env)
    assert p["rules"][0][:6] == [1, 7, 1, 1, 1, ACTIVE]
    assert p["phase"] == "play" and p["round"] == 0
    assert_legal(env, [28, 52], s=2)
    act(env, 28, "play 9")
    assert_hand(env, 0, "5H KS")
    assert_known(env, 0, "")
    assert_hand(env, 2, "4D QS")
    assert_hand(env, 1, "6H")
    assert ps(env)["draw_size"] == 0
    assert_pile(env, [(0, "6C"), (2, "9C")])
    assert_legal(env, [44, 52], s=0)


def test_lopti_case_8_31():
    """8.31 Made clear-rule, once per turn (LO-11.3 t 9 SET_CLEAR, LO-11.5): rule [9, 6, 0, 2]
    "two or more 8s clear". Two 8s (run 2, no base clear) -> CHECK fires: clear, cause 4, with
    the extra move (LO-6.3); no draw at three cards (LO-7.1). In the extra move the rule has
    already fired this turn (fired flags reset only at turn start): two more 8s do not clear and
    the turn ends."""
    S = state([seat("8C 8D 8H 8S 5H"), seat("QC")], pile=[(1, "6D")], draw="JC",
              rules=[[9, 6, 0, 2, -1, ACTIVE]])
    env = from_state(S)
    assert_legal(env, [24, 25, 26, 27, 52], s=0)
    act(env, 25, "play 8 8")
    p = ps(env)
    assert p["clears"] == 1
    assert p["last_clear"]["cause"] == 4 and p["last_clear"]["seat"] == 0
    assert cset(p["last_clear"]["cards"]) == cset("6D 8C 8D")
    assert p["last_clear"]["cards"].split()[0] == "6D"
    assert_gone_has(env, "6D 8C 8D")
    assert_pile(env, [])
    assert_hand(env, 0, "8H 8S 5H")
    assert p["draw_size"] == 1
    assert p["move"] == "extra"
    assert_legal(env, [12, 24, 25], s=0)
    act(env, 25, "play 8 8")
    p = ps(env)
    assert p["clears"] == 1
    assert_pile(env, [(0, "8H 8S")])
    assert_top(env, 6, 2, 2)
    assert p["draw_size"] == 1
    assert_hand(env, 0, "5H")
    assert_legal(env, [40, 52], s=1)


def test_lopti_case_8_32():
    """8.32 Cleared cards come back (LO-11.3 t 8 CLEAR_RETURN, LO-11.4 RETURN): rule [8, 1, 8, 2]
    "after a clear by the clear card, the two earliest cleared cards go to the bottom of the draw
    pile". AFTER-CLEAR (step 6) runs before the base draw (step 9): 4C then 9D go under AS; P0
    draws AS; JH and TC stay gone. `last_clear.cards` is the pile in the order placed, before the
    RETURN (§9.4). Continuation (follows from LO-7.1): P1's next first move draws 4C, proving the
    returned order AS, 4C, 9D."""
    S = state([seat("TC 5C"), seat("QC")], pile=[(1, "4C"), (0, "9D"), (1, "JH")], draw="AS",
              rules=[[8, 1, 8, 2, -1, ACTIVE]])
    env = from_state(S)
    assert_legal(env, [32, 52], s=0)
    act(env, 32, "play T")
    p = ps(env)
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 1 and p["last_clear"]["seat"] == 0
    assert p["last_clear"]["cards"] == "4C 9D JH TC"
    assert_hand(env, 0, "5C AS")
    assert p["draw_size"] == 2
    assert_gone_has(env, "JH TC")
    assert gone(env).isdisjoint(cset("4C 9D"))
    assert_pile(env, [])
    assert p["move"] == "extra"
    assert_legal(env, [12, 48], s=0)
    # continuation: the returned cards are drawn in order
    act(env, 12, "play 5")
    assert_hand(env, 0, "AS")
    assert_legal(env, [40, 52], s=1)
    act(env, 40, "play Q")
    assert_hand(env, 1, "4C")
    assert ps(env)["draw_size"] == 1
    assert ps(env)["out"] == []


def test_lopti_case_8_33():
    """8.33 FAQ on interpretation: out players receive nothing (LO-10.10, LO-11.4 roles resolve to
    active players only, LO-9.1). Rule [1, 5, 0, 2]: after a 7, ACTOR draws 2. P0's last
    face-down 7S is legal: P0 is out at once (step 3), the hook's ACTOR is out, nothing is drawn;
    the low limit binds P1 (LO-9.2)."""
    S = state([seat(down="- 7S -"), seat("8C 6D"), seat("9H")], pile=[(2, "KD")], draw="9C 9D",
              rules=[[1, 5, 0, 2, -1, ACTIVE]])
    env = from_state(S, num_players=3)
    assert_legal(env, [52, 54], s=0)
    act(env, 54, "flip 1")
    p = ps(env)
    assert p["out"] == [0] and p["seats"][0]["place"] == 0 and p["seats"][0]["stage"] == 3
    assert_hand(env, 0, "")
    assert p["draw_size"] == 2
    assert_hand(env, 1, "8C 6D")
    assert_hand(env, 2, "9H")
    assert p["limit"] is True
    assert_legal(env, [16, 52], s=1)
