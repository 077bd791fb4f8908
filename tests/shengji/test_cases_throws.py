"""Sheng Ji scenario cases (spec section 8): throws (甩牌), failed throws and their penalty.

P-28, P-29, P-30.  Written against the public surface of spec section 9 only.
"""
import pytest

import shengji_cases as h

DONE = h.DONE


def throw_env(level, fixed):
    """Spades trump, banker s0; the non-trump hearts of s1..s3 are exactly those in `fixed`
    (the other hearts are with s0 or in the kitty, which s0 buries)."""
    lv = h.rank(level)
    hearts = h.suits_pred(lv, "S", "H")
    hands, kitty, order = h.fill_deal(2, 0, fixed, forbid={1: hearts, 2: hearts, 3: hearts})
    env = h.start({"declaration_mode": "preset"}, deal=order, banker=0, levels=[level, level],
                  trump="S")
    h.bury(env, 0, kitty)
    return env, hands


def check_failed(env, attempted, forced, retracted, hand_before):
    s = h.ps(env)
    assert s["failed_throws"] == [{"seat": 0, "trick": 0, "attempted": h.cset(attempted),
                                   "played": h.cset(forced)}]
    assert s["trick_format"] == [h.cset(forced)]
    assert s["trick"] == [[0, h.cset(forced)]]
    assert s["shown"][0] == h.cset(retracted)  # the retracted cards are public (SJ-7.4)
    after = list(hand_before)
    for c in h.ids(forced):
        after.remove(c)
    assert h.hand_ids(env, 0) == sorted(after)  # the other cards return to the thrower's hand
    assert s["hand_sizes"][0] == 25 - len(h.ids(forced))
    assert s["phase"] == "FOLLOW" and s["current_player"] == 1


P28 = {
    "a": ({1: "5H 6H", 2: "KH 3H", 3: "7H 8H"}, "QH", [29, 30]),
    "b": ({1: "5H 5H", 2: "JH 3H"}, "4H 4H", [29]),
    "c": ({1: "5H 5H", 2: "KH 3H"}, "QH", [29]),
}


@pytest.mark.parametrize("variant", ["a", "b", "c", "d"])
def test_shengji_case_P_28(variant):
    """P-28: the seed's Q-4-4 throw (level 10, spades trump).  A component is beaten when another
    seat holds a same-shape component of the lead's esuit with a higher top (SJ-7.4); the forced
    component is the smallest beaten one (ties -> lowest top): (a) KH beats QH -> QH; (b) 5H5H beats
    4H4H -> 4H4H, n = 2; (c) both beaten -> QH.  The rest returns to s0's hand, public.
    (d) nothing beaten -> success."""
    if variant == "d":
        p28_success()
        return
    holdings, forced, s1_mask = P28[variant]
    fixed = {0: "QH 4H 4H"}
    fixed.update(holdings)
    env, hands = throw_env("T", fixed)
    before = h.hand_ids(env, 0)
    h.lead(env, 0, [36, 28, 28])
    attempted = [36, 28, 28]
    retracted = list(attempted)
    for c in h.ids(forced):
        retracted.remove(c)
    check_failed(env, attempted, forced, retracted, before)
    # n = the number of cards actually led; s1 follows the forced component (SJ-8.1/8.2)
    h.expect_mask(env, 1, s1_mask, phase="FOLLOW")


def p28_success():
    """P-28 (d): no component is beaten (3H3H is lower, JH is below QH) -> the throw succeeds;
    F = pair 4H4H + single QH in canonical order (SJ-7.2/7.4), n = 3."""
    env, hands = throw_env("T", {0: "QH 4H 4H", 1: "3H 3H", 2: "JH", 3: "7H 8H"})
    h.lead(env, 0, [36, 28, 28])
    s = h.ps(env)
    assert s["failed_throws"] == []
    assert s["trick_format"] == ["4H 4H", "QH"]
    assert s["trick"] == [[0, "4H 4H QH"]]
    assert s["shown"][0] == "" and s["hand_sizes"][0] == 22
    # s1 holds only the two hearts 3H3H: both + any one other card (SJ-8.2(a))
    s1 = h.hand_ids(env, 1)
    h.expect_mask(env, 1, set(s1), phase="FOLLOW")
    h.step(env, 1, 27)
    h.step(env, 1, 27)
    h.expect_mask(env, 1, set(s1) - {27})


@pytest.mark.parametrize("variant", ["a", "b"])
def test_shengji_case_P_29(variant):
    """P-29: failed throws with a tractor (SJ-7.4), level 2, spades trump."""
    if variant == "a":
        p29_a()
    else:
        p29_b()


def p29_a():
    """P-29 (a): s0 throws tractor AHAHKHKH + single 9H (level 2, spades trump); s3's JH beats the
    single, nobody beats the tractor -> forced 9H only (SJ-7.4)."""
    env, hands = throw_env("2", {0: "AH AH KH KH 9H", 3: "JH"})
    before = h.hand_ids(env, 0)
    attempted = h.ids("AH AH KH KH 9H")
    h.lead(env, 0, attempted)
    check_failed(env, attempted, "9H", "KH KH AH AH", before)


def p29_b():
    """P-29 (b): s0 throws 6H6H7H7H + AH; s1's tractor 9H9HTHTH (top 7 > 4) beats the tractor, s2's
    other AH is equal and does not beat (SJ-7.4) -> forced 6H6H7H7H, n = 4; AH stays with s0, public."""
    env, hands = throw_env("2", {0: "6H 6H 7H 7H AH", 1: "9H 9H TH TH", 2: "AH"})
    before = h.hand_ids(env, 0)
    attempted = h.ids("6H 6H 7H 7H AH")
    h.lead(env, 0, attempted)
    check_failed(env, attempted, "6H 6H 7H 7H", "AH", before)
    h.expect_mask(env, 1, h.ids("9H TH"), phase="FOLLOW")  # h = n = 4: all his hearts


# --- P-30 ---------------------------------------------------------------------------------------
KITTY30 = "8H JH JH QH QH KH KH 3C"  # the hearts nobody else may hold; 20 points


def throw_trick(winner=1):
    return h.Trick([(0, "6H 6H 7H 7H"), (1, "9H 9H TH TH"), (2, "AH 3H 4H 5H"), (3, "3H 4H 5H 8H")],
                   winner, attempted="6H 6H 7H 7H AH", fmt=["6H 6H 7H 7H"])


def plan_declarer_thrower():
    """Banker s0 (team 0 declares): s0's failed throw of P-29(b) is trick 1; s0 leads the retracted
    AH in the last trick while the others, void in hearts, discard (SJ-8.2(a))."""
    return h.plan_hand(2, "2", "S", 0, KITTY30, prefix=[throw_trick()], solo=(0, [["AH"]], None),
                       opp_points=75)


def plan_opponent_thrower():
    """Banker s3 (team 1 declares): s0 wins trick 1 with AD, then makes the same failed throw."""
    first = h.Trick([(3, "3D"), (0, "AD"), (1, "4D"), (2, "6D")], 0)
    return h.plan_hand(2, "2", "S", 3, KITTY30, prefix=[first, throw_trick()],
                       solo=(0, [["AH"]], None), opp_points=45)


@pytest.mark.parametrize("penalty, config, expected", [
    ("none", {}, 0),
    ("per_attempt", {"throw_penalty": "per_attempt"}, 10),
    ("per_card", {"throw_penalty": "per_card"}, 10),
    ("per_card_15", {"throw_penalty": "per_card", "throw_penalty_points": 15}, 15),
])
def test_shengji_case_P_30(penalty, config, expected):
    """P-30: throw penalty (SJ-7.4): a declarer's failed throw adds the penalty to the opponents' p
    (per attempt, or per retracted card: here one card, AH); p decides the result (SJ-10.1/11.1)."""
    plan = plan_declarer_thrower()
    env = h.start_plan(plan, config)
    h.run_plan(env, plan)
    s = h.ps(env)
    assert s["failed_throws"] == [{"seat": 0, "trick": 0, "attempted": "6H 6H 7H 7H AH",
                                   "played": "6H 6H 7H 7H"}]
    r = env.infos["player_0"]["result"]
    tp = plan.team_points()
    assert tp[1] == 75 and plan.last_winner == 0
    assert r["trick_points"] == tp
    assert r["penalty"] == expected
    assert r["kitty_points"] == 20 and r["kitty_bonus"] == 0 and r["last_trick_winner"] == 0
    p = 75 + expected
    assert r["opponent_points"] == p
    assert r["outcome"] == ("hold" if p < 80 else "takeover")


@pytest.mark.parametrize("config, expected", [
    ({}, 0),
    ({"throw_penalty": "per_attempt"}, -10),
    ({"throw_penalty": "per_card"}, -10),
])
def test_shengji_case_P_30_opponent(config, expected):
    """P-30: an opponent's failed throw is subtracted from p (SJ-7.4).  s0 is an opponent here and
    also wins the last trick, so the kitty bonus counts (SJ-10.2: 20 x 2)."""
    plan = plan_opponent_thrower()
    env = h.start_plan(plan, config)
    h.run_plan(env, plan)
    s = h.ps(env)
    assert s["failed_throws"] == [{"seat": 0, "trick": 1, "attempted": "6H 6H 7H 7H AH",
                                   "played": "6H 6H 7H 7H"}]
    r = env.infos["player_0"]["result"]
    tp = plan.team_points()
    assert tp[0] == 45 and plan.last_winner == 0
    assert r["trick_points"] == tp
    assert r["penalty"] == expected
    assert r["kitty_bonus"] == 40
    p = 45 + 40 + expected
    assert r["opponent_points"] == p
    assert r["outcome"] == ("hold" if p < 80 else "takeover")


# --- SJ-7.4 throw_penalty_points beyond 16 bits (section 6: any multiple of 5, |x| <= MAX_INT) ---
SJ_7_4_LARGE = [  # P-30's hands: the thrower's team, option values, then penalty, p, outcome, d (SJ-11.1)
    ("declarer", {"throw_penalty": "per_attempt", "throw_penalty_points": 30000}, 30000, 30075, "takeover", 749),
    ("declarer", {"throw_penalty": "per_attempt", "throw_penalty_points": 40000}, 40000, 40075, "takeover", 999),
    ("declarer", {"throw_penalty": "per_card", "throw_penalty_points": 10**9}, 10**9, 10**9 + 75, "takeover",
     24999999),
    ("opponent", {"throw_penalty": "per_attempt", "throw_penalty_points": 10**9}, -10**9, 85 - 10**9, "hold", 3),
]


@pytest.mark.parametrize("thrower, config, penalty, p, outcome, d", SJ_7_4_LARGE,
                         ids=[f"{t}-{c['throw_penalty_points']}" for t, c, *_ in SJ_7_4_LARGE])
def test_shengji_SJ_7_4_large_throw_penalty(thrower, config, penalty, p, outcome, d):
    """SJ-7.4: a penalty too large for 16 bits counts in full. P-30's failed throw (one attempt, one
    retracted card, AH) by the declarer s0 adds it to the opponents' 75 trick points, by the opponent
    s0 subtracts it from their 45 + 40 (kitty bonus); p decides the result (SJ-10.1, SJ-11.1) and the
    rewards (section 5: opponents g/3, declarers -g/3). An int16 penalty wrapped: 40000 gave -25536,
    p = -25461, a hold and s1 -1 instead of +333.33; 30000 gave table_levels -19 instead of 749. The
    same hand through BatchGame (9.7) agrees."""
    plan = plan_declarer_thrower() if thrower == "declarer" else plan_opponent_thrower()
    env = h.start_plan(plan, config)
    actions = h.record_steps(env)
    h.run_plan(env, plan)
    r = env.infos["player_0"]["result"]
    assert r["penalty"] == penalty and r["opponent_points"] == p
    assert r["outcome"] == outcome and r["table_levels"] == d
    g = -d if outcome == "hold" else 1 + d
    assert r["hand_score"] == g
    assert r["next_banker"] == ((plan.banker + 2) % 4 if outcome == "hold" else (plan.banker + 1) % 4)
    for seat, a in enumerate(h.AGENTS):
        assert env.rewards[a] == pytest.approx(g / 3 if seat % 2 == plan.opponents else -g / 3)
    if config["throw_penalty_points"] == 40000:
        assert [env.rewards[a] for a in h.AGENTS] == pytest.approx([-1000 / 3, 1000 / 3] * 2)  # s1 +333.33
    g_batch = h.batch_replay(plan, config, actions)
    assert g_batch.public_state(0)["result"] == r
    assert g_batch.rewards[0].tolist() == [env.rewards[a] for a in h.AGENTS]


def test_shengji_SJ_7_4_penalty_fields_hold_every_value():
    """SJ-7.4: |throw_penalty_points| <= MAX_INT (section 6 sets no bound; the options' bound), charged
    per failed throw or per retracted card: at most H(H - 1)/2 = 1326 retracted cards a hand (every
    lead a throw of the whole hand forced down to one card). The penalty fields hold that, and p, d
    and g (SJ-10.1, SJ-11.1) with it on top of the largest trick points and kitty bonus (SJ-10.2)."""
    import numpy as np

    import shengji_env
    from cardzoo.options import MAX_INT
    from shengji_env.config import DEAL_SIZES
    from shengji_env.state import STATE_DTYPE

    H = max(n for n, _ in DEAL_SIZES.values())
    most = MAX_INT * H * (H - 1) // 2
    p = 100 * 4 + 80 * 2 ** H + most
    d = (p - 40) // 20
    for field, top in (("penalty", most), ("r_pen", most), ("r_p", p), ("r_table", d), ("r_score", 1 + d)):
        info = np.iinfo(STATE_DTYPE[field].base)
        assert info.max >= top and info.min <= -most, field
    for x in (MAX_INT, -MAX_INT):
        assert shengji_env.raw_env(throw_penalty_points=x).config.throw_penalty_points == x
    for x in (MAX_INT + 5, -MAX_INT - 5):
        with pytest.raises(ValueError, match=r"throw_penalty_points=-?1000000005 is out of range"):
            shengji_env.raw_env(throw_penalty_points=x)


@pytest.mark.parametrize("thrower, config, penalty, p, outcome, d", SJ_7_4_LARGE,
                         ids=[f"{t}-{c['throw_penalty_points']}" for t, c, *_ in SJ_7_4_LARGE])
def test_shengji_SJ_7_4_openspiel_utility_bounds_count_the_penalty(thrower, config, penalty, p, outcome, d):
    """The OpenSpiel bridge's min/max utility (docs/openspiel.md: the spec's bounds for the options
    given) count the SJ-7.4 penalty: the rewards of P-30's hands above (+-g/3, section 5) lie within
    them, and so does the largest penalty the option can charge (H(H - 1)/2 retracted cards)."""
    import shengji_env
    from cardzoo.openspiel.worlds import GAMES

    cfg = shengji_env.raw_env(**config).config
    low, high = GAMES["shengji"].utility_bounds(cfg)
    g = -d if outcome == "hold" else 1 + d
    assert low <= -abs(g) / 3 and abs(g) / 3 <= high
    H = cfg.hand_size
    most = abs(config["throw_penalty_points"]) * (H * (H - 1) // 2 if config["throw_penalty"] == "per_card" else H - 1)
    assert high >= (1 + (200 + 160 + most - 80) // 40) / 3  # D = 2, flat: every point card, kitty 80 x 2
