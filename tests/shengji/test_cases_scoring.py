"""Sheng Ji scenario cases (spec section 8): kitty bonus, level table, rewards, matches, a full hand.

P-31, P-32, P-33, P-34, P-35, P-40.  Complete hands are planned by the helpers (see
`shengji_cases.plan_hand`) so that the opponents' points p are exact, then played through the
public surface of spec section 9.
"""
import numpy as np
import pytest

import shengji_cases as h

AGENTS = h.AGENTS

# Kitties without points whose cards leave the filler balanced (level 2, spades trump).
ZERO_KITTY = {1: "3S 4S 3C 4C 6C 7C", 2: "3C 3C 4C 4C 6C 6C 7C 7C", 3: "3S 4S 3C 4C 6C 7C",
              4: "3C 3C 4C 4C 6C 6C 7C 7C"}


def finish(env, plan, config=None):
    h.run_plan(env, plan)
    s = h.ps(env)
    assert s["phase"] == "OVER" or (config or {}).get("episode") == "match"
    r = env.infos["player_0"]["result"]
    assert set(r) == h.RESULT_KEYS
    for a in AGENTS:
        assert env.infos[a]["result"] == r
    assert r["trick_points"] == plan.team_points()
    assert r["last_trick_winner"] == plan.last_winner
    assert r["kitty"] == h.cset(plan.kitty) and r["kitty_points"] == h.sum_points(plan.kitty)
    assert r["banker"] == plan.banker and r["declarers"] == plan.banker % 2
    assert r["hand_level"] == plan.level and r["trump"] == plan.trump
    return r


def assert_hand_rewards(env, plan, g):
    """Section 5 "hand_score": opponents g/3 each, declarers -g/3 each."""
    for seat, a in enumerate(AGENTS):
        want = g / 3 if seat % 2 == plan.opponents else -g / 3
        assert env.rewards[a] == pytest.approx(want), f"{a} reward {env.rewards[a]}, expected {want}"


# --- P-31 ---------------------------------------------------------------------------------------
KITTY31 = "5H TD KS 3C 4C 6D 7D 8D"  # 25 points
# Level 2, spades trump, banker s0; the opponent s1 leads the end of the hand, the others discard.
# The leads before the last one use up the hearts and trumps that the kitty leaves unbalanced.
TAILS31 = {
    "single": [["3H"], ["4H"], ["6H"], ["3S"], ["4S"], ["6S"]],
    "pair": [["3H"], ["4H"], ["6H"], ["3S"], ["4S", "4S"]],
    "tractor": [["3H"], ["4H"], ["6H"], ["3S"], ["4S"], ["6S"], ["8H", "8H", "9H", "9H"]],
    "throw": [["3S"], ["4S"], ["6S"], ["AH", "AH", "KH"]],
}
MULT = {  # SJ-10.2: m for a last trick of largest component size z
    "flat": {1: 2, 2: 2, 3: 2, 4: 2},
    "times_size": {1: 2, 2: 4, 3: 6, 4: 8},
    "power_size": {1: 2, 2: 4, 3: 8, 4: 16},
    "single_or_multi": {1: 2, 2: 4, 3: 4, 4: 4},
}
BONUS31 = {  # the case's table: 25 kitty points x m
    "flat": {"single": 50, "pair": 50, "triple": 50, "tractor": 50, "throw": 50},
    "times_size": {"single": 50, "pair": 100, "triple": 150, "tractor": 200, "throw": 100},
    "power_size": {"single": 50, "pair": 100, "triple": 200, "tractor": 400, "throw": 100},
    "single_or_multi": {"single": 50, "pair": 100, "triple": 100, "tractor": 100, "throw": 100},
}


def plan31(fmt):
    if fmt == "triple":
        # three decks: the kitty has 6 cards; the first six of the case's kitty hold its 25 points
        return h.plan_hand(3, "2", "S", 0, "5H TD KS 3C 4C 6D", solo=(1, [["3S"], ["AH", "AH", "AH"]], None))
    return h.plan_hand(2, "2", "S", 0, KITTY31, solo=(1, TAILS31[fmt], None))


@pytest.mark.parametrize("mult", ["flat", "times_size", "power_size", "single_or_multi"])
@pytest.mark.parametrize("fmt", ["single", "pair", "triple", "tractor", "throw"])
def test_shengji_case_P_31(fmt, mult):
    """P-31: kitty multipliers (SJ-10.2): an opponent wins the last trick; the kitty's 25 points are
    multiplied by m from the largest component size z of the last trick's format F (a throw pair +
    single: z = 2)."""
    plan = plan31(fmt)
    env = h.start_plan(plan, {"kitty_multiplier": mult})
    r = finish(env, plan)
    last = h.ps(env)["tricks"][-1]
    z = {"single": 1, "pair": 2, "triple": 3, "tractor": 4, "throw": 2}[fmt]
    assert max(len(comp.split()) for comp in last["format"]) == z
    if fmt == "throw":
        assert last["format"] == ["AH AH", "KH"]
    assert r["kitty_points"] == 25 and r["last_trick_winner"] == 1
    assert r["multiplier"] == MULT[mult][z]
    assert r["kitty_bonus"] == BONUS31[mult][fmt]
    assert r["penalty"] == 0
    assert r["opponent_points"] == r["trick_points"][1] + BONUS31[mult][fmt]


# --- SJ-10.2 "power_size" values beyond 16 bits (9.4 result) -------------------------------------
SJ_10_2_POWER = {  # pairs of the last-trick tractor: kitty, discards, then m, kitty_bonus, p, d (SJ-11.1)
    4: ("KH KH KD KD TC TC TD TD", {"C": 6, "D": 12, "H": 6}, 256, 20480, 20600, 513),
    5: ("KS KS KH KH TC TC 5D 5D", {"C": 10, "D": 10, "H": 10}, 1024, 71680, 71810, 1793),
    8: ("KH KH KD KD TC TC TD TD", {"C": 18, "D": 12, "H": 18}, 65536, 5242880, 5243000, 131073),
}


@pytest.mark.parametrize("pairs", sorted(SJ_10_2_POWER))
def test_shengji_SJ_10_2_power_size_result_fields_do_not_wrap(pairs):
    """SJ-10.2 "power_size": the opponent s1 wins the last trick with a trump tractor of `pairs`
    pairs (z = 2 x pairs, m = 2^z), so the kitty bonus and with it p, d and g (SJ-10.1, SJ-11.1,
    section 5) pass what 8- and 16-bit result fields hold (they wrapped: 8 pairs gave m = 0,
    p = 120). The 9.4 result, the rewards and the same hand through BatchGame (9.7) agree."""
    kitty, discards, m, bonus, p, d = SJ_10_2_POWER[pairs]
    unit = " ".join(f"{r}S {r}S" for r in "3456789T"[:pairs])
    plan = h.plan_hand(2, "2", "S", 0, kitty, solo=(1, [unit], discards))
    config = {"kitty_multiplier": "power_size"}
    env = h.start_plan(plan, config)
    actions = h.record_steps(env)
    h.run_plan(env, plan, check=False)
    r = env.infos["player_0"]["result"]
    assert h.ps(env)["tricks"][-1]["format"] == [h.cset(unit)]
    assert r["last_trick_winner"] == 1 and r["kitty_points"] == h.sum_points(kitty)
    assert r["multiplier"] == m == 2 ** (2 * pairs)
    assert r["kitty_bonus"] == bonus == r["kitty_points"] * m and r["penalty"] == 0
    assert r["opponent_points"] == p == r["trick_points"][1] + bonus
    assert r["outcome"] == "takeover" and r["table_levels"] == d == (p - 80) // 40
    assert r["hand_score"] == 1 + d
    assert r["levels_gained"] == [0, 12] and r["new_levels"] == [0, 12]  # up to A, which must be defended
    assert_hand_rewards(env, plan, 1 + d)
    g = h.batch_replay(plan, config, actions)
    assert g.public_state(0)["result"] == r
    assert g.rewards[0].tolist() == [env.rewards[a] for a in AGENTS]


def test_shengji_SJ_10_2_result_fields_hold_every_value():
    """SJ-10.2: m = 2^z for z up to the hand size H = 52 (D = 4: a last trick of 13 quads), a kitty of
    at most 80 points, so the result fields must hold m <= 2^52, a bonus <= 80 x 2^52, and p, d and
    g = 1 + d (SJ-10.1, SJ-11.1) from it."""
    from shengji_env import kernels as K
    from shengji_env.config import DEAL_SIZES
    from shengji_env.state import STATE_DTYPE

    H = max(n for n, _ in DEAL_SIZES.values())
    assert K.kitty_multiplier([(4, 13)], "power_size") == 2 ** H == 2 ** 52
    m, bonus = 2 ** H, 80 * 2 ** H
    p = 100 * 4 + bonus
    d = (p - 40) // 20
    for field, top in (("r_mult", m), ("r_bonus", bonus), ("r_p", p), ("r_table", d), ("r_score", 1 + d)):
        assert np.iinfo(STATE_DTYPE[field].base).max >= top, field


def test_shengji_match_counters_hold_the_option_bounds():
    """Section 6: max_hands and max_redeals go up to 10**9 (MAX_INT), so the hand index and the
    count of redeals in a row (SJ-4.9) must hold that many without wrapping."""
    from cardzoo.options import MAX_INT
    from shengji_env import env
    from shengji_env.state import STATE_DTYPE

    env(max_hands=MAX_INT, max_redeals=MAX_INT)   # both accepted at the bound
    for field in ("hand_index", "void_deals", "r_hand_index"):
        assert np.iinfo(STATE_DTYPE[field].base).max >= MAX_INT, field


# --- P-32 ---------------------------------------------------------------------------------------
def test_shengji_case_P_32():
    """P-32: a declarer wins the last trick: the kitty (25) counts for nobody (SJ-10.2); p = 70 ->
    declarers hold, +1 (SJ-11.1, D = 2); hold -> next banker partner(banker) (SJ-11.2)."""
    plan = h.plan_hand(2, "2", "S", 0, "5C TC KC 3C 4C 6C 7C 8C", opp_points=70, last_winner=2)
    env = h.start_plan(plan)
    r = finish(env, plan)
    assert r["kitty_points"] == 25 and r["last_trick_winner"] == 2
    assert r["multiplier"] == 2 and r["kitty_bonus"] == 0 and r["penalty"] == 0
    assert r["trick_points"] == [200 - 25 - 70, 70]
    assert r["opponent_points"] == 70
    assert r["outcome"] == "hold" and r["table_levels"] == 1 and r["hand_score"] == -1
    assert r["levels_gained"] == [1, 0] and r["new_levels"] == [1, 0]
    assert r["next_banker"] == 2 and r["match_winner"] is None
    assert_hand_rewards(env, plan, -1)
    assert all(env.terminations[a] for a in AGENTS)
    s = h.ps(env)
    assert s["phase"] == "OVER" and s["current_player"] is None and s["kitty"] == h.cset(plan.kitty)
    assert s["result"] == r
    for a in AGENTS:  # dead steps (section 9.4)
        env.step(None)


# --- P-33 / P-34 --------------------------------------------------------------------------------
def level_table_hand(decks, p, banker):
    """A hand of `decks` decks in which the opponents' p is exactly `p` (kitty bonus used above the
    trick total)."""
    total = 100 * decks
    if p <= total:
        return h.plan_hand(decks, "2", "S", banker, ZERO_KITTY[decks], opp_points=p, seed=p), p
    # p = trick points + 2 x kitty points with the opponents taking every trick and the last one
    assert decks == 2 and p == 240
    kitty = "TC TC KC KC 3C 3C 4C 4C"  # 40 points
    plan = h.plan_hand(2, "2", "S", banker, kitty, opp_points=160, last_winner=(banker + 1) % 4)
    return plan, 160


def check_table(decks, p, outcome, d, banker):
    plan, opp_tricks = level_table_hand(decks, p, banker)
    env = h.start_plan(plan)
    r = finish(env, plan)
    assert r["trick_points"][plan.opponents] == opp_tricks
    assert r["opponent_points"] == p
    assert r["outcome"] == outcome and r["table_levels"] == d
    g = -d if outcome == "hold" else 1 + d
    assert r["hand_score"] == g
    gained = [0, 0]
    gained[plan.declarers if outcome == "hold" else plan.opponents] = d
    assert r["levels_gained"] == gained and r["new_levels"] == gained
    next_banker = (banker + 2) % 4 if outcome == "hold" else (banker + 1) % 4
    assert r["next_banker"] == next_banker
    assert_hand_rewards(env, plan, g)


P33 = [(0, "hold", 3), (35, "hold", 2), (40, "hold", 1), (75, "hold", 1), (80, "takeover", 0),
       (115, "takeover", 0), (120, "takeover", 1), (155, "takeover", 1), (160, "takeover", 2),
       (200, "takeover", 3), (240, "takeover", 4)]


@pytest.mark.parametrize("p, outcome, d", P33)
def test_shengji_case_P_33(p, outcome, d):
    """P-33: the two-deck level table (SJ-11.1: S = 40, T = 80), hand_score g (section 5: -d on a
    hold, 1 + d on a takeover; opponents g/3, declarers -g/3) and the next banker (SJ-11.2)."""
    check_table(2, p, outcome, d, banker=(p // 5) % 4)


P34 = [(1, 0, "hold", 3), (1, 15, "hold", 2), (1, 20, "hold", 1), (1, 35, "hold", 1),
       (1, 40, "takeover", 0), (1, 55, "takeover", 0), (1, 60, "takeover", 1), (1, 100, "takeover", 3),
       (3, 55, "hold", 2), (3, 60, "hold", 1), (3, 115, "hold", 1), (3, 120, "takeover", 0),
       (3, 180, "takeover", 1),
       (4, 75, "hold", 2), (4, 80, "hold", 1), (4, 155, "hold", 1), (4, 160, "takeover", 0),
       (4, 240, "takeover", 1), (4, 320, "takeover", 2)]


@pytest.mark.parametrize("decks, p, outcome, d", P34)
def test_shengji_case_P_34(decks, p, outcome, d):
    """P-34: the level table for D = 1, 3, 4 (SJ-11.1: S = 20D, T = 40D)."""
    check_table(decks, p, outcome, d, banker=(p // 5) % 4)


# --- P-35 ---------------------------------------------------------------------------------------
def match_hand(banker, levels, p, config):
    lv = h.rank(levels[banker % 2])
    plan = h.plan_hand(2, lv, "S", banker, ZERO_KITTY[2], opp_points=p, seed=p)
    cfg = {"episode": "match"}
    cfg.update(config)
    env = h.start_plan(plan, cfg, levels=list(levels))
    r = finish(env, plan, cfg)
    assert r["opponent_points"] == p and r["hand_index"] == 0
    return env, plan, r


@pytest.mark.parametrize("variant", ["a", "b", "c", "d"])
def test_shengji_case_P_35(variant):
    """P-35: advancing to and past A in a match (episode = "match", D = 2; SJ-11.1..11.4)."""
    {"a": p35_a, "b": p35_b, "c": p35_c, "d": p35_d}[variant]()


def p35_a():
    """P-35 (a): team 0 declares at K, p = 0 -> +3: K -> A, then stops (A must be defended,
    SJ-11.3); next banker s2; the match goes on with hand 1 at level A."""
    env, plan, r = match_hand(0, ["K", "5"], 0, {"reward_mode": "match"})
    assert r["outcome"] == "hold" and r["table_levels"] == 3 and r["hand_score"] == -3
    assert r["levels_gained"] == [1, 0] and r["new_levels"] == [12, 3]
    assert r["next_banker"] == 2 and r["match_winner"] is None
    assert all(env.rewards[a] == 0 for a in AGENTS)  # "match" pays only at the match end
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    s = h.ps(env)
    assert s["hand_index"] == 1 and s["banker"] == 2 and s["levels"] == [12, 3]
    assert s["hand_level"] == 12 and s["first_drawer"] == 2 and s["declarers"] == 0
    assert s["phase"] == "BURY" and s["current_player"] == 2 and s["tricks"] == []
    assert s["result"] == r


def p35_b():
    """P-35 (b): banker s2 at level A, p = 75 -> hold +1; team 0 declared at A this hand, so its
    first step passes A and wins the match (SJ-11.3/11.4); "match" reward +1 / -1 (section 5)."""
    env, plan, r = match_hand(2, ["A", "5"], 75, {"reward_mode": "match"})
    assert r["outcome"] == "hold" and r["table_levels"] == 1
    assert r["levels_gained"] == [1, 0] and r["new_levels"] == [12, 3]
    assert r["match_winner"] == 0 and r["next_banker"] == 0
    assert all(env.terminations[a] for a in AGENTS)
    assert [env.rewards[a] for a in AGENTS] == [1, -1, 1, -1]
    assert h.ps(env)["phase"] == "OVER"


def p35_c():
    """P-35 (c): team 1 at Q as opponents, p = 200 -> takeover +3 (SJ-11.1): Q -> K -> A and stops
    (team 1 did not declare at A this hand, SJ-11.3); next banker = next(banker) (SJ-11.2)."""
    env, plan, r = match_hand(0, ["5", "Q"], 200, {})
    assert r["outcome"] == "takeover" and r["table_levels"] == 3 and r["hand_score"] == 4
    assert r["levels_gained"] == [0, 2] and r["new_levels"] == [3, 12]
    assert r["next_banker"] == 1 and r["match_winner"] is None
    assert_hand_rewards(env, plan, 4)
    assert not any(env.terminations.values())
    s = h.ps(env)
    assert s["hand_index"] == 1 and s["banker"] == 1 and s["levels"] == [3, 12] and s["hand_level"] == 12


def p35_d():
    """P-35 (d): team 0 declaring at A, p = 80 -> takeover with 0 levels: team 0 stays at A, nobody
    wins; the bank passes to next(banker)."""
    env, plan, r = match_hand(0, ["A", "5"], 80, {})
    assert r["outcome"] == "takeover" and r["table_levels"] == 0 and r["hand_score"] == 1
    assert r["levels_gained"] == [0, 0] and r["new_levels"] == [12, 3]
    assert r["next_banker"] == 1 and r["match_winner"] is None
    assert not any(env.terminations.values())
    s = h.ps(env)
    assert s["hand_index"] == 1 and s["banker"] == 1 and s["levels"] == [12, 3] and s["hand_level"] == 3


# --- P-40 ---------------------------------------------------------------------------------------
P40_ORDER = [int(x) for x in """47 48 16 0 22 32 10 12 27 19 6 20 4 24 45 28 52 35 36 42 51 9 26 14 39
44 3 37 53 1 13 40 17 18 49 50 46 8 7 33 30 15 29 38 23 25 5 43 2 31 34 21 41 11""".split()]
P40_TRICKS = """
3: 21 | 0: 17 | 1: 15 | 2: 16 -> 3 15
3: 28 | 0: 27 | 1: 32 | 2: 29 -> 1 5
1: 1 | 2: 3 | 3: 31 | 0: 4 -> 0 5
0: 22 | 1: 18 | 2: 5 | 3: 33 -> 2 0
2: 6 | 3: 34 | 0: 39 | 1: 8 -> 0 20
0: 23 | 1: 19 | 2: 7 | 3: 37 -> 2 10
2: 10 | 3: 38 | 0: 52 | 1: 9 -> 0 0
0: 30 | 1: 35 | 2: 36 | 3: 40 -> 2 0
2: 13 | 3: 41 | 0: 53 | 1: 24 -> 0 10
0: 46 | 1: 44 | 2: 45 | 3: 42 -> 0 5
0: 47 | 1: 48 | 2: 49 | 3: 43 -> 2 10
2: 26 | 3: 50 | 0: 51 | 1: 25 -> 2 10
"""


def p40_tricks():
    out = []
    for line in P40_TRICKS.strip().splitlines():
        plays, result = line.split("->")
        winner, points = (int(x) for x in result.split())
        t = h.Trick([(int(p.split(":")[0]), [int(p.split(":")[1])]) for p in plays.split("|")], winner)
        assert t.points == points
        out.append(t)
    return out


def test_shengji_case_P_40():
    """P-40: a complete one-deck hand from reset(seed=7) (section 7.3): one window (SJ-4.6), trump C,
    banker s3 (SJ-4.8), burial, twelve tricks (SJ-9), kitty KC doubled for the opponents' last
    trick (SJ-10.2), p = 90 -> takeover +2 (SJ-11.1), team 0 2 -> 4, next banker s0 (SJ-11.2),
    hand_score g = 3 (section 5)."""
    rng_order = __import__("numpy").random.default_rng(7).permutation(54)
    assert [int(c) for c in rng_order] == P40_ORDER  # canonical list for D = 1 is 0..53
    assert h.cset(P40_ORDER[48:]) == h.cset("4C 7H TH TD 4S KC")
    env = h.start({"decks": 1}, seed=7)
    s = h.ps(env)
    assert s["phase"] == "DECLARE" and s["dealt"] == 4 and s["banker"] is None
    h.expect_mask(env, 3, [h.PASS, 56], phase="DECLARE")
    h.step(env, 3, 56)
    s = h.ps(env)
    assert s["phase"] == "BURY" and s["current_player"] == 3
    assert s["trump"] == "C" and s["banker"] == 3 and s["declarers"] == 1 and s["hand_level"] == 0
    assert s["declarations"] == [[3, "2C", 1]]
    dealt3 = [P40_ORDER[i] for i in range(48) if i % 4 == 3]
    assert h.hand_ids(env, 3) == sorted(dealt3 + P40_ORDER[48:])
    h.bury(env, 3, [0, 2, 11, 12, 14, 20])
    assert h.ps(env)["phase"] == "LEAD"
    for t in p40_tricks():
        h.run_trick(env, t)
    s = h.ps(env)
    assert s["phase"] == "OVER" and s["points"] == [70, 20]
    assert s["kitty"] == "2C 4C KC AC 3D 9D"
    r = env.infos["player_0"]["result"]
    assert r == s["result"]
    assert r["hand_index"] == 0 and r["banker"] == 3 and r["declarers"] == 1
    assert r["hand_level"] == 0 and r["trump"] == "C"
    assert r["trick_points"] == [70, 20]
    assert r["kitty"] == "2C 4C KC AC 3D 9D" and r["kitty_points"] == 10
    assert r["last_trick_winner"] == 2 and r["multiplier"] == 2 and r["kitty_bonus"] == 20
    assert r["penalty"] == 0 and r["opponent_points"] == 90
    assert r["outcome"] == "takeover" and r["table_levels"] == 2 and r["hand_score"] == 3
    assert r["levels_gained"] == [2, 0] and r["new_levels"] == [2, 0]
    assert r["next_banker"] == 0 and r["match_winner"] is None
    assert [env.rewards[a] for a in AGENTS] == [pytest.approx(x) for x in (1, -1, 1, -1)]
    assert all(env.terminations[a] for a in AGENTS)


def test_shengji_case_P_40_batch():
    """P-40 through BatchGame (section 9.7) with the order injected as a first-hand deal: the same
    decisions, an illegal action raises ValueError and steps no game, the hand pays
    +1 / -1 / +1 / -1 in the step that ends it, then the game is done with zero masks and rows."""
    g = h.new_batch(1, decks=1)
    g.reset(deals=[P40_ORDER])
    assert h.batch_mask(g) == [h.PASS, 56] and int(g.current_player[0]) == 3
    h.batch_step(g, 3, 56)
    before = (g.current_player.copy(), np.asarray(g.legal_mask()).copy(), g.observe().copy())
    with pytest.raises(ValueError):
        g.step(np.array([h.PASS]))
    assert np.array_equal(g.current_player, before[0])
    assert np.array_equal(np.asarray(g.legal_mask()), before[1])
    assert np.array_equal(g.observe(), before[2])
    for c in [0, 2, 11, 12, 14, 20]:
        h.batch_step(g, 3, c)
    tricks = p40_tricks()
    for k, t in enumerate(tricks):
        for j, (seat, cards) in enumerate(t.plays):
            for c in cards:
                assert not g.done[0]
                assert np.all(g.rewards == 0)
                h.batch_step(g, seat, c)
            if j == 0:
                h.batch_step(g, seat, h.DONE)
    assert bool(g.done[0]) and int(g.current_player[0]) == -1
    assert np.asarray(g.rewards)[0].tolist() == [1, -1, 1, -1]
    assert not np.asarray(g.legal_mask()).any() and not g.observe().any()
