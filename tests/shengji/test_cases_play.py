"""Sheng Ji scenario cases (spec section 8): card order in play, burial, following and leading.

P-02, P-05, P-16, P-23, P-24, P-25, P-26, P-27, P-37, P-38.  Written against the public surface of
spec section 9 only; positions are built with full legal deals (section 7.1) by the helpers.
"""
import pytest

import shengji_cases as h

DONE = h.DONE


def trick1_env(level, trump, fixed, forbid=None, banker=0, config=None):
    """Preset trump, banker given, a deal built from fixed holdings + filler; the banker buries
    the dealt kitty, so play reaches the lead of trick 1 (SJ-4.11, SJ-5.1, SJ-5.2)."""
    lv = h.rank(level)
    hands, kitty, order = h.fill_deal(2, banker, fixed, forbid=forbid)
    cfg = {"declaration_mode": "preset"}
    cfg.update(config or {})
    env = h.start(cfg, deal=order, banker=banker, levels=[level, level], trump=trump)
    s = h.ps(env)
    assert s["phase"] == "BURY" and s["trump"] == trump and s["hand_level"] == lv
    assert h.hand_ids(env, banker) == sorted(hands[banker] + kitty)
    h.bury(env, banker, kitty)
    assert h.ps(env)["phase"] == "LEAD"
    return env, hands


def test_shengji_case_P_02():
    """P-02: NT with level 5: the four level cards are equal trumps (SJ-3.4/3.5); 5S played after 5H
    is equal and later, so s1's ruff stays best (SJ-9.3); points to the winner's team (SJ-9.4)."""
    no_clubs = h.suits_pred(3, "NT", "C")
    env, hands = trick1_env("5", "NT", {0: "AC", 1: "5H", 2: "5S", 3: "KC"},
                            forbid={1: no_clubs, 2: no_clubs})
    h.expect_mask(env, 0, set(hands[0]), phase="LEAD")
    h.lead(env, 0, "AC")
    s = h.ps(env)
    assert s["phase"] == "FOLLOW" and s["trick_format"] == ["AC"] and s["trick"] == [[0, "AC"]]
    # s1 and s2 are void in clubs: any card may be played (SJ-8.2(a))
    h.expect_mask(env, 1, set(hands[1]), phase="FOLLOW")
    h.follow(env, 1, "5H")
    h.expect_mask(env, 2, set(hands[2]), phase="FOLLOW")
    h.follow(env, 2, "5S")
    # s3 holds clubs: only clubs (the 5C is a trump in NT, not a club)
    h.expect_mask(env, 3, {c for c in hands[3] if h.esuit(c, 3, "NT") == "C"}, phase="FOLLOW")
    h.follow(env, 3, "KC")
    s = h.ps(env)
    rec = s["tricks"][0]
    assert rec["winner"] == 1 and rec["points"] == 20 and rec["leader"] == 0
    assert rec["plays"] == [[0, "AC"], [1, "5H"], [2, "5S"], [3, "KC"]]
    assert s["points"] == [0, 20]
    assert s["phase"] == "LEAD" and s["leader"] == 1 and s["current_player"] == 1
    assert s["trick"] == [] and s["trick_format"] == []


def test_shengji_case_P_05():
    """P-05: level 10, spades trump: the off-suit level cards TH, TC are equal trumps at pos 12, above
    AS (pos 11) (SJ-3.4/3.5); TH ruffs the heart lead, TC is equal and later (SJ-9.3)."""
    no_hearts = h.suits_pred(8, "S", "H")
    env, hands = trick1_env("T", "S", {0: "9H", 1: "TH", 2: "TC", 3: "AS"},
                            forbid={1: no_hearts, 2: no_hearts, 3: no_hearts})
    h.lead(env, 0, [33])
    for seat, card in ((1, 34), (2, 8), (3, 51)):
        h.expect_mask(env, seat, set(hands[seat]), phase="FOLLOW")  # void in hearts: anything
        h.follow(env, seat, [card])
    s = h.ps(env)
    assert s["tricks"][0]["winner"] == 1 and s["tricks"][0]["points"] == 20
    assert s["points"] == [0, 20]
    assert s["current_player"] == 1 and s["phase"] == "LEAD"


def test_shengji_case_P_16():
    """P-16: burial (SJ-5.1, section 4 BURY): the banker holds H + K = 33 cards; CARD(c) is legal
    while hand[c] - selection[c] > 0; after the 8th card the burial executes and the banker leads
    (SJ-5.2) with a mask of his 25 distinct cards and DONE illegal."""
    hands, kitty, order = h.fill_deal(2, 0, {0: "AS AS"})
    env = h.start({"declaration_mode": "preset"}, deal=order, banker=0, trump="H")
    s = h.ps(env)
    assert s["phase"] == "BURY" and s["banker"] == 0 and s["trump"] == "H"
    assert s["hand_sizes"] == [33, 25, 25, 25]
    held = h.hand_ids(env, 0)
    assert held == sorted(hands[0] + kitty) and held.count(51) == 2
    h.expect_mask(env, 0, set(held), phase="BURY")
    h.assert_illegal(env, DONE)
    h.step(env, 0, 51)
    h.expect_mask(env, 0, set(held), phase="BURY")  # one AS left unselected: still legal
    assert h.ps(env)["hand_sizes"][0] == 33  # the selection is still held
    h.step(env, 0, 51)
    h.expect_mask(env, 0, set(held) - {51}, phase="BURY")
    h.assert_illegal(env, 51)
    rest = [c for c in kitty if c != 51][:6]
    buried = [51, 51] + rest
    for i, c in enumerate(rest):
        assert h.ps(env)["phase"] == "BURY", f"burial ended after {2 + i} cards"
        h.step(env, 0, c)
    remaining = list(held)
    for c in buried:
        remaining.remove(c)
    s = h.ps(env)
    assert s["phase"] == "LEAD" and s["current_player"] == 0 and s["leader"] == 0
    assert s["hand_sizes"] == [25, 25, 25, 25]
    assert h.hand_ids(env, 0) == sorted(remaining)
    h.expect_mask(env, 0, set(remaining), phase="LEAD")
    h.assert_illegal(env, DONE)
    assert s["kitty"] is None  # the buried kitty is shown only when the hand ends (SJ-10.3)


# --- P-23 / P-37 short-suit variant: s1 holds exactly 3H 9H AS AS 4C (five cards left) ----------
def late_tractor_plan():
    """Level 2, spades trump, banker s0; the last two tricks are explicit (P-23 and the hand's end)."""
    t23 = h.trick("s0: 7H 7H 8H 8H / s1: 3H 9H AS AS / s2: 5H 5H 6H 6H / s3: 2S 3S 4S 6S", winner=0,
                  fmt=["7H 7H 8H 8H"])
    last = h.trick("s0: 4H / s1: 4C / s2: JH / s3: 3C", winner=2)
    return h.plan_hand(2, "2", "S", 0, "6C 7C 7S 8S 3D 4D 6D 7D", tail=[t23, last])


def test_shengji_case_P_23():
    """P-23: a short follower plays all its hearts plus any others (SJ-8.2(a)); a mixed play and a
    non-matching ruff never win (SJ-9.1/9.3): the lower tractor 5H5H6H6H and the trump singles lose
    to the led tractor, s0 takes 10 points (5H x2)."""
    plan = late_tractor_plan()
    env = h.start_plan(plan)
    h.run_plan(env, plan, stop_before=plan.tail_start)
    assert h.hand_ids(env, 1) == h.ids("4C 3H 9H AS AS") and h.ps(env)["hand_sizes"] == [5] * 4
    pts_before = h.ps(env)["points"]
    h.lead(env, 0, "7H 7H 8H 8H")
    # legal plays {3H 9H AS AS, 3H 9H AS 4C}: the mask while composing
    h.expect_mask(env, 1, h.ids("3H 9H AS 4C"), phase="FOLLOW")
    h.step(env, 1, h.cid("3H"))
    h.expect_mask(env, 1, h.ids("9H AS 4C"))
    h.step(env, 1, h.cid("9H"))
    h.expect_mask(env, 1, h.ids("AS 4C"))
    h.step(env, 1, h.cid("AS"))
    h.expect_mask(env, 1, h.ids("AS 4C"))
    h.step(env, 1, h.cid("AS"))
    h.follow(env, 2, "5H 5H 6H 6H")
    h.follow(env, 3, "2S 3S 4S 6S")
    s = h.ps(env)
    rec = s["tricks"][-1]
    assert rec["plays"] == [[0, "7H 7H 8H 8H"], [1, "3H 9H AS AS"], [2, "5H 5H 6H 6H"],
                            [3, "2S 3S 4S 6S"]]
    assert rec["format"] == ["7H 7H 8H 8H"]
    assert rec["winner"] == 0 and rec["points"] == 10
    assert s["points"] == [pts_before[0] + 10, pts_before[1]]
    assert s["current_player"] == 0 and s["phase"] == "LEAD"
    # the hand plays out as planned
    h.run_trick(env, plan.tricks[-1])
    assert h.ps(env)["phase"] == "OVER"


def test_shengji_case_P_24():
    """P-24: the off-suit level card TD is a trump (SJ-3.3): the lead's esuit is TRUMP, so a follower
    holding trumps TH and 4S must play one of them; his diamonds are not the led suit (SJ-8.2)."""
    trumps = h.suits_pred(8, "S", "T")
    env, hands = trick1_env("T", "S", {0: "TD", 1: "AD 3D TH 4S"}, forbid={1: trumps})
    h.lead(env, 0, "TD")
    assert h.ps(env)["trick_format"] == ["TD"]
    h.expect_mask(env, 1, h.ids("TH 4S"), phase="FOLLOW")
    h.assert_illegal(env, h.cid("AD"))
    h.assert_illegal(env, h.cid("3D"))
    h.follow(env, 1, "TH")
    assert h.actor(env) == 2


def test_shengji_case_P_25():
    """P-25: a pair of trumps ruffs a non-trump pair lead (SJ-9.1); two different trumps are not a
    pair and do not match; a lower heart pair loses (SJ-9.3): s1 wins 20 points."""
    lv = 0
    no_hearts = h.suits_pred(lv, "S", "H")
    env, hands = trick1_env("2", "S", {0: "KH KH", 1: "3S 3S", 2: "2D AS", 3: "4H 4H"},
                            forbid={1: no_hearts, 2: no_hearts, 3: no_hearts})
    h.lead(env, 0, "KH KH")
    h.expect_mask(env, 1, set(hands[1]), phase="FOLLOW")
    h.follow(env, 1, "3S 3S")
    h.expect_mask(env, 2, set(hands[2]), phase="FOLLOW")
    h.follow(env, 2, "2D AS")
    h.expect_mask(env, 3, h.ids("4H"), phase="FOLLOW")  # h = n = 2: both hearts
    h.follow(env, 3, "4H 4H")
    s = h.ps(env)
    rec = s["tricks"][0]
    assert rec["winner"] == 1 and rec["points"] == 20 and rec["format"] == ["KH KH"]
    assert s["points"] == [0, 20] and s["current_player"] == 1


def test_shengji_case_P_26():
    """P-26: tractor ruff and over-ruff (SJ-6.2, SJ-9.1/9.3): 5S5S6S6S ruffs; 9S9SKSKS is not a
    tractor; ASASTDTD (pos 11, 12) is a stronger trump tractor: s3 wins 50 points."""
    no_hearts = h.suits_pred(8, "S", "H")
    env, hands = trick1_env("T", "S", {0: "3H 3H 4H 4H", 1: "5S 5S 6S 6S", 2: "9S 9S KS KS",
                                       3: "AS AS TD TD"},
                            forbid={1: no_hearts, 2: no_hearts, 3: no_hearts})
    h.lead(env, 0, "3H 3H 4H 4H")
    assert h.ps(env)["trick_format"] == ["3H 3H 4H 4H"]
    h.follow(env, 1, [42, 42, 43, 43])
    h.follow(env, 2, [46, 46, 50, 50])
    h.follow(env, 3, [51, 51, 21, 21])
    s = h.ps(env)
    rec = s["tricks"][0]
    assert rec["winner"] == 3 and rec["points"] == 50
    assert s["points"] == [0, 50] and s["current_player"] == 3


def p27_env():
    no_hearts = h.suits_pred(8, "S", "H")
    return trick1_env("T", "S", {0: "AH AH KH", 1: "3S 3S 5S", 2: "QH QH 5H", 3: "4S 4S 2S 2S AS"},
                      forbid={1: no_hearts, 2: no_hearts, 3: no_hearts})


@pytest.mark.parametrize("s3_play, winner", [("4S 4S 2S", 3), ("2S 2S AS", 1)])
def test_shengji_case_P_27(s3_play, winner):
    """P-27: a successful throw (SJ-7.4: nobody holds a higher heart pair or a heart above K);
    F = pair AHAH + single KH in canonical order (SJ-7.2); ruffs compare the key shape, the pair
    (SJ-9.2): 4S4S over-ruffs 3S3S; 2S2S does not, and the single AS does not count."""
    env, hands = p27_env()
    h.lead(env, 0, [38, 38, 37])
    s = h.ps(env)
    assert s["failed_throws"] == []
    assert s["trick_format"] == ["AH AH", "KH"]
    assert s["trick"] == [[0, "KH AH AH"]]
    assert s["hand_sizes"][0] == 22
    h.follow(env, 1, [40, 40, 42])
    h.expect_mask(env, 2, h.ids("QH 5H"), phase="FOLLOW")  # h = n: all three hearts
    h.follow(env, 2, [36, 36, 29])
    h.follow(env, 3, s3_play)
    s = h.ps(env)
    rec = s["tricks"][0]
    assert rec["format"] == ["AH AH", "KH"]
    assert rec["winner"] == winner and rec["points"] == 20
    assert s["points"] == [0, 20] and s["current_player"] == winner


# --- P-37 ---------------------------------------------------------------------------------------
def p37_main_env():
    no_hearts = h.suits_pred(0, "S", "H")
    return trick1_env("2", "S", {0: "7H 7H 8H 8H", 1: "3H 3H 5H 5H 9H 9H 6H 4C 9C"},
                      forbid={1: no_hearts})


def test_shengji_case_P_37():
    """P-37: follow compose mask (section 4 FOLLOW, SJ-8.3): against the tractor 7H7H8H8H the
    follower's best is two pairs; legal {3H3H5H5H, 3H3H9H9H, 5H5H9H9H}; every prefix of the mask
    can be completed and any order is accepted.  Short-suit variant: all hearts + any others."""
    # path 27, 29, 27, 29
    env, _ = p37_main_env()
    h.lead(env, 0, [31, 31, 32, 32])
    h.expect_mask(env, 1, [27, 29, 33], phase="FOLLOW")
    h.assert_illegal(env, 30)
    h.assert_illegal(env, h.cid("4C"))
    h.step(env, 1, 27)
    h.expect_mask(env, 1, [27, 29, 33])
    h.step(env, 1, 29)
    h.expect_mask(env, 1, [27, 29])
    h.assert_illegal(env, 33)
    h.step(env, 1, 27)
    h.expect_mask(env, 1, [29])
    h.step(env, 1, 29)
    s = h.ps(env)
    assert s["trick"][1] == [1, "3H 3H 5H 5H"] and s["current_player"] == 2
    # path 27, 27 -> {29, 33}
    env, _ = p37_main_env()
    h.lead(env, 0, [31, 31, 32, 32])
    h.step(env, 1, 27)
    h.step(env, 1, 27)
    h.expect_mask(env, 1, [29, 33])
    h.step(env, 1, 33)
    h.expect_mask(env, 1, [33])
    h.step(env, 1, 33)
    assert h.ps(env)["trick"][1] == [1, "3H 3H 9H 9H"]
    # any order: 33, 29, 33, 29 gives 5H5H9H9H
    env, _ = p37_main_env()
    h.lead(env, 0, [31, 31, 32, 32])
    h.step(env, 1, 33)
    h.expect_mask(env, 1, [27, 29, 33])
    h.step(env, 1, 29)
    h.expect_mask(env, 1, [29, 33])
    h.step(env, 1, 33)
    h.step(env, 1, 29)
    assert h.ps(env)["trick"][1] == [1, "5H 5H 9H 9H"]
    # short-suit variant: holds 3H 9H AS AS 4C
    plan = late_tractor_plan()
    for first, then_mask in (([51, 2], [27, 33]), ([27, 51], [2, 33, 51])):
        env = h.start_plan(plan)
        h.run_plan(env, plan, stop_before=plan.tail_start)
        h.lead(env, 0, [31, 31, 32, 32])
        h.expect_mask(env, 1, [2, 27, 33, 51], phase="FOLLOW")
        for c in first:
            h.step(env, 1, c)
        h.expect_mask(env, 1, then_mask)


# --- P-38 ---------------------------------------------------------------------------------------
def p38_plan():
    tail_hands = {0: "AH KH 3S TD 5C", 1: "2H 3H 4C 6C 7C", 2: "4S 5S 6S 7S 8S", 3: "9S 7D 8D 9D JD"}
    return h.plan_hand(2, "T", "S", 0, "2D 2D 3D 3D 4D 4D 6D 6D", tail_hands=tail_hands,
                       tail_leader=0)


def test_shengji_case_P_38():
    """P-38: lead compose mask (section 4 LEAD, SJ-7.1): any card to start, DONE illegal on an
    empty selection; then only cards of the selection's esuit (TD is TRUMP with the spades) + DONE."""
    plan = p38_plan()
    for first, then in ((21, [40, DONE]), (38, [37, DONE])):
        env = h.start_plan(plan)
        h.run_plan(env, plan, stop_before=plan.tail_start)
        assert h.hand_ids(env, 0) == sorted([38, 37, 40, 21, 3])
        h.expect_mask(env, 0, [3, 21, 37, 38, 40], phase="LEAD")
        h.assert_illegal(env, DONE)
        h.step(env, 0, first)
        h.expect_mask(env, 0, then, phase="LEAD")
        for bad in (3, 37 if first == 21 else 40, first):
            h.assert_illegal(env, bad)
        assert h.ps(env)["trick"] == []  # nothing is on the table while the leader composes
