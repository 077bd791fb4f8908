"""LOPTI scenario cases 8.4-8.19: legal plays, the special ranks, clears, extra moves and draws.

Positions are §7.2 states with the section 8 defaults (N = 2, dealer P0, default switches, no made
rules, first move, nothing face-up or face-down, empty draw pile, unlisted cards gone).
Public surface only (spec §9). Rule IDs are cited per test.
"""
import pytest

from lopti_cases import (
    PICKUP, act, assert_gone_has, assert_hand, assert_known, assert_legal, assert_pile,
    assert_rejected, assert_top, from_state, gone, cset, obs_fields, ps, seat, state, up, down,
)


def test_lopti_case_8_4():
    """8.4 Higher rank or more cards (LO-4.1 lines 7, 8; LO-4.3): on one 9 (run 1), one 9 is
    neither more cards nor a completion, two 9s are more cards, three complete four; 8 is lower.
    LO-7.1: no draw when the hand still holds DRAW_BELOW = 3 cards."""
    S = state([seat("9C 9D 9H 8S QD"), seat("KC")], pile=[(0, "6H"), (1, "9S")], draw="4C")
    env = from_state(S)
    assert_legal(env, [29, 30, 40, 52], s=0)
    assert_top(env, 7, 1, 1)
    assert_rejected(env, 28)  # one 9 on one 9
    assert_rejected(env, 24)  # 8 is lower
    # §9.6: anything but a legal int is a ValueError that changes nothing
    assert_rejected(env, None)
    assert_rejected(env, 140)
    assert_rejected(env, -1)
    assert_rejected(env, "play 9 9")
    act(env, 29, "play 9 9")
    assert_top(env, 7, 2, 3)
    assert_pile(env, [(0, "6H"), (1, "9S"), (0, "9C 9D")])
    assert_hand(env, 0, "9H 8S QD")
    assert ps(env)["draw_size"] == 1
    assert ps(env)["clears"] == 0
    assert_legal(env, [44, 52], s=1)


def test_lopti_case_8_5():
    """8.5 FAQ: one card onto three equal cards (LO-4.3): L + k >= SS is legal whatever c is and
    clears, cause 2 (LO-6.1); the cleared cards are gone (LO-6.2); the first move still draws
    (LO-7.1, step 9 after the clear); the extra move is a lead without PICKUP (LO-6.3) and draws
    nothing."""
    S = state([seat("JS 4D"), seat("5S")], pile=[(0, "8C"), (1, "JC JD JH")], draw="KH")
    env = from_state(S)
    assert_legal(env, [36, 52], s=0)
    assert_rejected(env, 8)  # 4 is lower than J
    act(env, 36, "play J")
    p = ps(env)
    assert p["clears"] == 1
    assert p["last_clear"]["seat"] == 0 and p["last_clear"]["cause"] == 2
    assert cset(p["last_clear"]["cards"]) == cset("8C JC JD JH JS")
    assert p["last_clear"]["cards"].split()[0] == "8C" and p["last_clear"]["cards"].split()[-1] == "JS"
    assert_gone_has(env, "8C JC JD JH JS")
    assert_pile(env, [])
    assert_hand(env, 0, "4D KH")
    assert p["draw_size"] == 0
    assert p["move"] == "extra"
    assert_legal(env, [8, 44], s=0)
    assert_rejected(env, PICKUP)
    act(env, 44, "play K")
    assert_hand(env, 0, "4D")
    assert ps(env)["move"] == "first"
    assert_pile(env, [(0, "KH")])
    assert_legal(env, [52], s=1)


def test_lopti_case_8_6():
    """8.6 Voluntary pickup (LO-3.4, VOLUNTARY_PICKUP = 1): P1 may pick up although it could play;
    the picked-up cards become known (§3.2); the table is empty, chain 0; no draw after a pickup
    (LO-7.1); the turn ends and P0 leads with no PICKUP on an empty table."""
    S = state([seat("6C"), seat("9S 2H")], pile=[(1, "5C"), (0, "8D")], to_act=1)
    env = from_state(S)
    assert_legal(env, [0, 28, 52], s=1)
    act(env, PICKUP, "pickup")
    assert_hand(env, 1, "2H 5C 8D 9S")
    assert_known(env, 1, "5C 8D")
    assert_pile(env, [])
    assert ps(env)["chain"] == 0
    assert_legal(env, [16], s=0)
    assert_rejected(env, PICKUP)


def test_lopti_case_8_7():
    """8.7 The 2 resets; 2 onto 2 (LO-4.1 line 6, LO-4.3): 2s are legal on an Ace; one 2 on one 2
    is illegal, two 2s (k > c) are legal; a single 2 completing four 2s (L + k >= SS) is legal and
    clears (cause 2, LO-6.1), giving an extra move (LO-6.3). LO-7.1: P0 draws after its first 2;
    nothing to draw later."""
    S = state([seat("2C 2D 5H"), seat("2H 2S 4C")], pile=[(1, "AS")], draw="6S")
    env = from_state(S)
    assert_legal(env, [0, 1, 52], s=0)
    assert_rejected(env, 12)  # 5 on an Ace
    act(env, 0, "play 2")
    assert_pile(env, [(1, "AS"), (0, "2C")])
    assert_hand(env, 0, "2D 5H 6S")
    assert ps(env)["draw_size"] == 0
    assert_legal(env, [1, 8, 52], s=1)
    assert_rejected(env, 0)  # one 2 on one 2
    act(env, 1, "play 2 2")
    assert_top(env, 0, 2, 3)
    assert_hand(env, 1, "4C")
    assert_legal(env, [0, 12, 16, 52], s=0)
    act(env, 0, "play 2")
    p = ps(env)
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 2 and p["last_clear"]["seat"] == 0
    assert cset(p["last_clear"]["cards"]) == cset("AS 2C 2H 2S 2D")
    assert_gone_has(env, "AS 2C 2D 2H 2S")
    assert_pile(env, [])
    assert p["move"] == "extra"
    assert_hand(env, 0, "5H 6S")
    assert_legal(env, [12, 16], s=0)


def test_lopti_case_8_8():
    """8.8 No 2 under a 3 obligation (LO-4.1 line 1, LO-4.3): only 3s or PICKUP. Playing 3S sets
    it aside (LO-5.3), chain 2, and obliges P1, who holds no 3: PICKUP only."""
    S = state([seat("2H 3S 9D"), seat("7C")], pile=[(0, "9C")], chain=1)
    env = from_state(S)
    p = ps(env)
    assert p["obligation"] is True and p["chain"] == 1
    assert_legal(env, [4, 52], s=0)
    assert_rejected(env, 0)   # a 2 under the obligation
    assert_rejected(env, 28)  # a 9 (anything but a 3)
    act(env, 4, "play 3")
    p = ps(env)
    assert p["chain"] == 2 and p["obligation"] is True
    assert_gone_has(env, "3S")
    assert_pile(env, [(0, "9C")])
    assert_hand(env, 0, "2H 9D")
    assert_legal(env, [52], s=1)
    assert_rejected(env, 20)  # 7 under a 3 obligation


def test_lopti_case_8_9():
    """8.9 Obligation, pickup, chain restart (N = 3; LO-5.3, LO-3.4): a 3 on a pile obliges the
    next player; the pickup leaves the 3 out, resets the chain and ends the turn; the next player
    leads; a 3 on the empty table counts in the chain but obliges nobody."""
    S = state([seat("3C 8D"), seat("5S 6S"), seat("3H 4H")], pile=[(2, "KC")])
    env = from_state(S, num_players=3)
    assert_legal(env, [4, 52], s=0)
    act(env, 4, "play 3")
    assert ps(env)["chain"] == 1 and ps(env)["obligation"] is True
    assert_legal(env, [52], s=1)
    act(env, 52, "pickup")
    assert_hand(env, 1, "5S 6S KC")
    assert_known(env, 1, "KC")
    assert ps(env)["chain"] == 0 and ps(env)["obligation"] is False
    assert_pile(env, [])
    assert_gone_has(env, "3C")
    assert_legal(env, [4, 8], s=2)
    act(env, 4, "play 3")
    p = ps(env)
    assert p["chain"] == 1 and p["obligation"] is False
    assert_pile(env, [])
    assert_legal(env, [24], s=0)


def test_lopti_case_8_10():
    """8.10 FAQ: a 3 on an empty table (LO-5.3): set aside, chain 1, nobody obligated, no turn
    lost: P1 leads normally; the next non-3 play resets the chain."""
    S = state([seat("3C 7D"), seat("5C 9H")])
    env = from_state(S)
    assert_legal(env, [4, 20], s=0)
    assert_rejected(env, PICKUP)
    act(env, 4, "play 3")
    p = ps(env)
    assert p["chain"] == 1 and p["obligation"] is False
    assert_gone_has(env, "3C")
    assert_pile(env, [])
    assert_legal(env, [12, 28], s=1)
    act(env, 12, "play 5")
    assert ps(env)["chain"] == 0
    assert_pile(env, [(1, "5C")])
    assert_legal(env, [20, 52], s=0)  # 7D on a 5, or a voluntary pickup


def test_lopti_case_8_11():
    """8.11 FAQ: several 3s pass one obligation (N = 3; LO-5.3): two 3s oblige only the next
    player; each 3 counts in the chain; a further 3 passes it on; the pickup resets the chain and
    the next player (P0) leads."""
    S = state([seat("3C 3D 9S"), seat("3H KD"), seat("4S")], pile=[(2, "6C")])
    env = from_state(S, num_players=3)
    assert_legal(env, [4, 5, 28, 52], s=0)
    act(env, 5, "play 3 3")
    assert ps(env)["chain"] == 2 and ps(env)["obligation"] is True
    assert_legal(env, [4, 52], s=1)
    act(env, 4, "play 3")
    assert ps(env)["chain"] == 3 and ps(env)["obligation"] is True
    assert_legal(env, [52], s=2)
    act(env, 52, "pickup")
    assert_hand(env, 2, "4S 6C")
    assert ps(env)["chain"] == 0 and ps(env)["obligation"] is False
    assert_gone_has(env, "3C 3D 3H")
    assert_legal(env, [28], s=0)


def test_lopti_case_8_12():
    """8.12 Four consecutive 3s clear (LO-5.3, LO-6.1 cause 3): chain 2 then 4 with a pile
    beneath -> clear of 8C QD; the first move draws (LO-7.1) and the clear grants an extra move
    (LO-6.3), a lead."""
    S = state([seat("3C 3D 5H"), seat("3H 3S 9C 4D")], pile=[(0, "8C"), (1, "QD")], draw="KS 2D")
    env = from_state(S)
    assert_legal(env, [4, 5, 52], s=0)
    act(env, 5, "play 3 3")
    assert ps(env)["chain"] == 2 and ps(env)["obligation"] is True
    assert_hand(env, 0, "5H KS")
    assert ps(env)["draw_size"] == 1
    assert_legal(env, [4, 5, 52], s=1)
    act(env, 5, "play 3 3")
    p = ps(env)
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 3 and p["last_clear"]["seat"] == 1
    assert cset(p["last_clear"]["cards"]) == cset("8C QD")
    assert_gone_has(env, "8C QD 3C 3D 3H 3S")
    assert p["chain"] == 0 and p["obligation"] is False
    assert_pile(env, [])
    assert_hand(env, 1, "9C 4D 2D")
    assert p["draw_size"] == 0
    assert p["move"] == "extra"
    assert_legal(env, [0, 8, 28], s=1)


def test_lopti_case_8_13():
    """8.13 The low limit (LO-4.1 line 4, LO-5.4): on a 7 only ranks <= 7 (2, 3, 4, 7 here); never
    8, never the clear card 10 (LOW_BLOCKS_CLEAR = 1). The next play landing ends the limit."""
    S = state([seat("2D 3S 4H 8C TH 7D"), seat("5C 6D 8S")], pile=[(1, "7C")])
    env = from_state(S)
    assert ps(env)["limit"] is True
    assert_legal(env, [0, 4, 8, 20, 52], s=0)
    assert_rejected(env, 24)  # 8
    assert_rejected(env, 32)  # 10 under the low limit
    act(env, 8, "play 4")
    assert ps(env)["limit"] is False
    assert_top(env, 2, 1, 1)
    assert_legal(env, [12, 16, 24, 52], s=1)


def test_lopti_case_8_14():
    """8.14 FAQ: four 6s on a 7 clear, four 8s do not (LO-4.3: completing four needs a legal rank);
    no draw at four cards (LO-7.1); the extra move's clear grants another extra move (LO-6.3);
    the hand emptied in an extra move takes the face-up cards at once (LO-8.1), known to all."""
    S = state([seat("6C 6D 6H 6S 8C 8D 8H 8S", up="KC KD 5S", down="AC AD AH"), seat("9C")],
              pile=[(1, "7H")], draw="AS")
    env = from_state(S)
    assert_legal(env, [16, 17, 18, 19, 52], s=0)
    assert_rejected(env, 27)  # four 8s on a 7
    act(env, 19, "play 6 6 6 6")
    p = ps(env)
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 2
    assert cset(p["last_clear"]["cards"]) == cset("7H 6C 6D 6H 6S")
    assert p["limit"] is False
    assert_hand(env, 0, "8C 8D 8H 8S")
    assert p["draw_size"] == 1
    assert p["move"] == "extra"
    assert_legal(env, [24, 25, 26, 27], s=0)
    act(env, 27, "play 8 8 8 8")
    p = ps(env)
    assert p["clears"] == 2 and p["last_clear"]["cause"] == 2
    assert_hand(env, 0, "KC KD 5S")
    assert_known(env, 0, "KC KD 5S")
    assert up(env, 0) == [None, None, None]
    assert down(env, 0) == [True, True, True]
    o = obs_fields(env, 1)  # P1's view: P0 is relative seat 1 (§3.5)
    assert o["known"][1] == [0, 0, 0, 1] + [0] * 7 + [2, 0]
    assert o["up"][1] == [0, 0, 0] and o["stage"][1] == 1 and o["hand_size"][1] == 3
    # gone per rank: the cleared 6s, 7H and 8s plus every unlisted card (§7.2); the Aces are all
    # face-down or in the draw pile; KC KD 5S are in P0's hand, 9C in P1's
    assert o["gone"] == [4, 4, 4, 3, 4, 4, 4, 3, 4, 4, 4, 2, 0]
    assert p["draw_size"] == 1
    assert p["move"] == "extra"
    assert_legal(env, [12, 44, 45], s=0)
    act(env, 45, "play K K")
    assert ps(env)["draw_size"] == 1
    assert_hand(env, 0, "5S")
    assert_pile(env, [(0, "KC KD")])
    assert_legal(env, [52], s=1)


def test_lopti_case_8_15():
    """8.15 7 onto 7; four 7s (N = 3; LO-4.3): a 7 is legal on a 7 with any count; the limit
    blocks 9; four consecutive 7s complete the set: clear, cause 2; extra move, a lead."""
    S = state([seat("7D 9S"), seat("7H 7S 2C"), seat("QC")], pile=[(2, "7C")])
    env = from_state(S, num_players=3)
    assert_legal(env, [20, 52], s=0)
    assert_rejected(env, 28)  # 9 under the low limit
    act(env, 20, "play 7")
    assert_top(env, 5, 1, 2)
    assert ps(env)["limit"] is True
    assert_legal(env, [0, 20, 21, 52], s=1)
    act(env, 21, "play 7 7")
    p = ps(env)
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 2 and p["last_clear"]["seat"] == 1
    assert cset(p["last_clear"]["cards"]) == cset("7C 7D 7H 7S")
    assert p["limit"] is False
    assert_pile(env, [])
    assert p["move"] == "extra"
    assert_legal(env, [0], s=1)


def test_lopti_case_8_16():
    """8.16 The 10 (LO-5.5, LO-6.1 cause 1): TC clears KC AD TC; the first move draws 5D (LO-7.1);
    extra move (LO-6.3) with no draw; the turn ends with 6D still in the draw pile."""
    S = state([seat("QC"), seat("TC 4S")], pile=[(1, "KC"), (0, "AD")], draw="5D 6D", to_act=1)
    env = from_state(S)
    assert_legal(env, [32, 52], s=1)
    act(env, 32, "play T")
    p = ps(env)
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 1 and p["last_clear"]["seat"] == 1
    assert cset(p["last_clear"]["cards"]) == cset("KC AD TC")
    assert_gone_has(env, "KC AD TC")
    assert_hand(env, 1, "4S 5D")
    assert p["draw_size"] == 1
    assert p["move"] == "extra"
    assert_legal(env, [8, 12], s=1)
    act(env, 12, "play 5")
    assert_hand(env, 1, "4S")
    assert ps(env)["draw_size"] == 1
    assert_pile(env, [(1, "5D")])
    assert_legal(env, [40, 52], s=0)


def test_lopti_case_8_17():
    """8.17 When a 10 is illegal (LO-4.1 lines 1, 4; LO-4.3): (a) under the low limit; (b) under a
    3 obligation. (P0 is given one unrelated hand card: §7.2 rejects an active seat holding
    none.)"""
    # §7.2: the literal position (P0 holding nothing while active) is rejected
    with pytest.raises(ValueError):
        from_state(state([seat(), seat("TD 5C")], pile=[(0, "7S")], to_act=1))
    # (a)
    S = state([seat("KH"), seat("TD 5C")], pile=[(0, "7S")], to_act=1)
    env = from_state(S)
    assert_legal(env, [12, 52], s=1)
    assert_rejected(env, 32)
    # (b)
    S = state([seat("KH"), seat("TD 3H")], pile=[(0, "KS")], chain=1, to_act=1)
    env = from_state(S)
    assert_legal(env, [4, 52], s=1)
    assert_rejected(env, 32)


def test_lopti_case_8_18():
    """8.18 Repeated extra moves (LO-6.3): every clear in an extra move grants another; a 10 led
    on the empty table clears (ruling LO-6.3). The hand emptied in an extra move takes the
    face-up row (LO-8.1); a non-clearing move ends the turn. Both 10s at once: one clear, one
    extra move."""
    S = state([seat("TC TD 4H", up="5S 5H 5D", down="6C 6D 6H"), seat("QC")], pile=[(1, "9S")])
    env = from_state(S)
    assert_legal(env, [32, 33, 52], s=0)
    act(env, 32, "play T")
    p = ps(env)
    assert p["clears"] == 1 and p["last_clear"]["cause"] == 1
    assert p["move"] == "extra"
    assert_legal(env, [8, 32], s=0)
    assert_rejected(env, PICKUP)
    act(env, 32, "play T")
    p = ps(env)
    assert p["clears"] == 2 and p["last_clear"]["cause"] == 1
    assert p["last_clear"]["cards"] == "TD"
    assert_gone_has(env, "9S TC TD")
    assert_legal(env, [8], s=0)
    act(env, 8, "play 4")
    assert_hand(env, 0, "5S 5H 5D")
    assert_known(env, 0, "5S 5H 5D")
    assert up(env, 0) == [None, None, None]
    assert_pile(env, [(0, "4H")])
    assert ps(env)["clears"] == 2
    assert_legal(env, [40, 52], s=1)

    # the variant: both 10s in one play
    env = from_state(S)
    act(env, 33, "play T T")
    p = ps(env)
    assert p["clears"] == 1 and p["move"] == "extra"
    assert cset(p["last_clear"]["cards"]) == cset("9S TC TD")
    assert_hand(env, 0, "4H")
    assert_legal(env, [8], s=0)


def test_lopti_case_8_19():
    """8.19 One card drawn however many are played (LO-7.1, DRAW_MODE 0)."""
    S = state([seat("5C 5D 6H 9S"), seat("7C 8C 8D 8H")], pile=[(1, "4C")], draw="KD QD")
    env = from_state(S)
    assert_legal(env, [12, 13, 16, 28, 52], s=0)
    act(env, 13, "play 5 5")
    assert_hand(env, 0, "6H 9S KD")
    assert ps(env)["draw_size"] == 1
    assert_top(env, 3, 2, 2)
    assert_legal(env, [20, 24, 25, 26, 52], s=1)
    assert_rejected(env, 27)  # no fourth 8 in hand
    act(env, 26, "play 8 8 8")
    assert_hand(env, 1, "7C QD")
    assert ps(env)["draw_size"] == 0
    assert_top(env, 6, 3, 3)
    assert gone(env).isdisjoint(cset("7C QD 8C 8D 8H"))
