"""Sheng Ji scenario cases (spec section 8): dealing, declaring, kitty flip, naming trump, seeding.

P-11, P-12, P-13, P-14, P-15, P-36, P-39.  Written against the public surface of spec section 9.
"""
import numpy as np
import pytest

import shengji_cases as h

PASS = h.PASS


def dealt_hand(order, dealt, seat, first=0):
    """The cards seat has received after `dealt` cards of `order` (SJ-4.1)."""
    return sorted(order[i] for i in range(dealt) if (first + i) % 4 == seat)


def assert_hands_follow(env, order, first=0):
    dealt = h.ps(env)["dealt"]
    for seat in range(4):
        assert h.hand_ids(env, seat) == dealt_hand(order, dealt, seat, first), \
            f"s{seat}'s hand after {dealt} dealt cards does not come from the expected order"


def random_order(seed, decks=2):
    rng = np.random.default_rng(seed)
    canon = np.repeat(np.arange(54), decks)  # section 7.3 canonical list
    return [int(c) for c in canon[rng.permutation(54 * decks)]]


# --- P-11 ---------------------------------------------------------------------------------------
P11_ORDER = [int(x) for x in """1 26 1 2 2 52 3 3 4 4 5 39 5 52 6 6 0 7 7 8 8 9 9 39 10 10 11 11 12 12
14 14 0 15 15 16 16 17 17 18 18 19 19 13 20 20 21 13 21 22 53 22 23 23 53 24 24 25 25 27 27 28 28 29
29 30 30 31 31 32 32 33 33 34 34 35 35 36 36 37 37 26 38 38 40 40 41 41 42 42 43 43 44 44 45 45 46 46
47 47 48 48 49 49 50 50 51 51""".split()]


def test_shengji_case_P_11():
    """P-11: draw windows on a full deal (SJ-4.5, SJ-4.6): a window only when the seat has a legal
    declaration and it just received a level card or joker, or the declaration count changed since
    its last window; the final round ends at once when nobody can act.  Exactly four windows;
    trump NT, banker s2 (SJ-4.7/4.8), the kitty goes to the banker for the burial (SJ-5.1)."""
    assert len(P11_ORDER) == 108
    env = h.start({}, deal=P11_ORDER)
    s = h.ps(env)
    assert s["banker"] is None and s["declarers"] is None and s["first_drawer"] == 0
    assert s["levels"] == [0, 0] and s["hand_level"] == 0 and s["trump"] is None
    windows = [  # (#i, seat, legal declarations, chosen action, standing before)
        (1, 1, [64], 64, None),
        (23, 3, [69], 69, [1, "2H", 1]),
        (25, 1, [73], PASS, [3, "2S", 2]),
        (54, 2, [77], 77, [3, "2S", 2]),
    ]
    for i, seat, legal, action, standing in windows:
        s = h.ps(env)
        assert s["phase"] == "DECLARE", f"expected the window #{i}, phase is {s['phase']}"
        assert s["dealt"] == i + 1, f"window at dealt={s['dealt']}, expected #{i} (dealt {i + 1})"
        assert s["standing"] == standing
        assert_hands_follow(env, P11_ORDER)
        h.expect_mask(env, seat, [PASS] + legal, phase="DECLARE")
        h.step(env, seat, action)
    # the window actions by name (section 9.5)
    u = env.unwrapped
    assert [u.action_name(a) for a in (55, 64, 69, 73, 77)] == [
        "pass", "declare level H x1", "declare level S x2", "declare LJ x2", "declare BJ x2"]
    assert [u.action_from_name(n) for n in ("declare level H x1", "declare BJ x2", "pass")] == [64, 77, 55]
    s = h.ps(env)
    assert s["phase"] == "BURY", "a fifth window (or no end of the deal) after #54"
    assert s["current_player"] == 2 and h.actor(env) == 2
    assert s["declarations"] == [[1, "2H", 1], [3, "2S", 2], [2, "BJ", 2]]
    assert s["standing"] == [2, "BJ", 2]
    assert s["trump"] == "NT" and s["banker"] == 2 and s["declarers"] == 0 and s["hand_level"] == 0
    assert s["dealt"] == 100 and s["hand_sizes"] == [25, 25, 33, 25]
    assert s["kitty_revealed"] == [] and s["void_deals"] == 0
    kitty = P11_ORDER[100:]
    assert h.cset(kitty) == "JS JS QS QS KS KS AS AS"
    assert h.hand_ids(env, 2) == sorted(dealt_hand(P11_ORDER, 100, 2) + kitty)
    for seat in (0, 1, 3):
        assert h.hand_ids(env, seat) == dealt_hand(P11_ORDER, 100, seat)
    # declared copies are public (section 9.3 `shown`)
    assert s["shown"] == ["", "2H", "BJ BJ", "2S 2S"]
    h.expect_mask(env, 2, set(h.hand_ids(env, 2)), phase="BURY")


def test_shengji_case_P_11_batch():
    """P-11 through BatchGame (section 9.7, first-hand rules): the same four windows, masks and the
    reference observation of the acting seat (section 3 layout): hand, dealt, standing, then the
    banker's picked-up kitty, trump NT and the shown declarations per relative seat."""
    g = h.new_batch(1)
    g.reset(deals=[P11_ORDER])
    windows = [(1, 1, [64], 64), (23, 3, [69], 69), (25, 1, [73], PASS), (54, 2, [77], 77)]
    for i, seat, legal, action in windows:
        assert int(g.current_player[0]) == seat and not g.done[0]
        assert h.batch_mask(g) == sorted([PASS] + legal)
        row = g.observe()[0]
        assert row.shape == (h.OBS_SIZE,)
        assert h.obs_part(row, "dealt")[0] == i + 1
        assert np.array_equal(h.obs_part(row, "hand"), h.counts(dealt_hand(P11_ORDER, i + 1, seat)))
        assert np.array_equal(h.obs_part(row, "phase"), h.one_hot(6, 0))
        assert np.array_equal(h.obs_part(row, "trump"), h.one_hot(6, 5))  # undecided
        h.batch_step(g, seat, action)
    assert int(g.current_player[0]) == 2
    row = g.observe()[0]
    kitty = P11_ORDER[100:]
    assert np.array_equal(h.obs_part(row, "phase"), h.one_hot(6, 2))  # BURY
    assert np.array_equal(h.obs_part(row, "hand"), h.counts(dealt_hand(P11_ORDER, 100, 2) + kitty))
    assert np.array_equal(h.obs_part(row, "kitty"), h.counts(kitty))
    assert np.array_equal(h.obs_part(row, "trump"), h.one_hot(6, 4))  # NT
    assert np.array_equal(h.obs_part(row, "banker"), h.one_hot(5, 0))  # the observer himself
    assert np.array_equal(h.obs_part(row, "hand_sizes"), np.array([33, 25, 25, 25], np.float32))
    standing = np.concatenate([h.one_hot(5, 0), h.one_hot(6, 5), [2]])  # (s2 = r0, BJ, 2)
    assert np.array_equal(h.obs_part(row, "standing"), standing)
    shown = h.obs_part(row, "shown").reshape(4, 54)  # per r = (seat - 2) mod 4
    for r, cards in ((0, "BJ BJ"), (1, "2S 2S"), (2, ""), (3, "2H")):
        assert np.array_equal(shown[r], h.counts(cards)), f"shown of relative seat {r}"
    assert h.batch_mask(g) == sorted(set(dealt_hand(P11_ORDER, 100, 2) + kitty))


# --- P-12 / P-13 --------------------------------------------------------------------------------
def flip_env(kitty, kitty_flip, banker=1, level="7"):
    hands, kit, order = h.fill_deal(2, banker, {}, kitty=kitty)
    env = h.start({"kitty_flip": kitty_flip}, deal=order, banker=banker, levels=[level, level])
    windows = h.pass_windows(env)
    return env, hands, kit, windows


@pytest.mark.parametrize("mode, revealed, trump", [
    ("first_card", ["LJ", "9C"], "C"),
    ("first_level_or_highest", ["LJ", "9C", "7D"], "D"),
])
def test_shengji_case_P_12(mode, revealed, trump):
    """P-12: nobody declares with the banker known -> kitty flip (SJ-4.9): "first_card" passes over
    the joker and takes 9C's suit; "first_level_or_highest" stops at the first level card 7D.
    The revealed cards are public (section 9.3 kitty_revealed)."""
    env, hands, kit, _ = flip_env("LJ 9C 7D KS 7H 2C 3H AD", mode)
    s = h.ps(env)
    assert s["declarations"] == [] and s["standing"] is None
    assert s["kitty_revealed"] == revealed
    assert s["trump"] == trump
    assert s["phase"] == "BURY" and s["current_player"] == 1 and s["banker"] == 1
    assert s["hand_level"] == 5
    assert h.hand_ids(env, 1) == sorted(hands[1] + kit)


@pytest.mark.parametrize("mode, revealed, trump", [
    ("first_card", ["BJ", "4S"], "S"),
    ("first_level_or_highest", ["BJ", "4S", "KH", "9C", "KD", "2S", "QH", "5D"], "H"),
])
def test_shengji_case_P_13(mode, revealed, trump):
    """P-13: kitty flip without a level card (SJ-4.9): "first_card" passes over BJ, 4S -> spades;
    "first_level_or_highest" reveals all eight and takes the highest pos, K, the earliest of KH/KD
    in kitty order -> hearts."""
    env, hands, kit, _ = flip_env("BJ 4S KH 9C KD 2S QH 5D", mode)
    s = h.ps(env)
    assert s["kitty_revealed"] == revealed
    assert s["trump"] == trump
    assert s["phase"] == "BURY" and s["current_player"] == 1


# --- P-14 ---------------------------------------------------------------------------------------
def flip_first_card(kitty):
    """SJ-4.9 "first_card": jokers are passed over; the first other card decides."""
    revealed = []
    for c in kitty:
        revealed.append(h.ctext(c))
        if c < 52:
            return revealed, h.SUITS[c // 13]
    return revealed, "NT"


@pytest.mark.parametrize("f", [0, 2])
def test_shengji_case_P_14(f):
    """P-14: a first hand without declaration is void and redealt with the same first drawer and
    level, from options["redeals"] in turn (SJ-4.9, section 7.1); with max_redeals = 3 the fourth
    deal without declaration is settled: banker = f, trump by the kitty flip, f to BURY.
    (The case uses f = 0; f = 2 shows that f really stays the same.)"""
    orders = [random_order(1400 + k) for k in range(4)]
    env = h.start({}, deal=orders[0], redeals=orders[1:], first_drawer=f)
    seen = set()
    for _ in range(400):
        s = h.ps(env)
        if s["phase"] != "DECLARE":
            break
        v = s["void_deals"]
        assert s["first_drawer"] == f and s["hand_level"] == 0 and s["banker"] is None
        assert s["declarations"] == []
        assert_hands_follow(env, orders[v], first=f)
        seen.add(v)
        h.step(env, s["current_player"], PASS)
    assert seen == {0, 1, 2, 3}
    s = h.ps(env)
    assert s["void_deals"] == 3
    revealed, trump = flip_first_card(orders[3][100:])
    assert s["phase"] == "BURY" and s["banker"] == f and s["current_player"] == f
    assert s["first_drawer"] == f and s["hand_level"] == 0 and s["declarers"] == f % 2
    assert s["trump"] == trump and s["kitty_revealed"] == revealed
    assert h.hand_ids(env, f) == sorted(dealt_hand(orders[3], 100, f, first=f) + orders[3][100:])


def test_shengji_case_P_14_rng_redeal():
    """P-14 (without "redeals"): the redeal's order is the next draw from the env's RNG, the first
    one when the first order was injected (section 7.4)."""
    first = random_order(1400)
    env = h.start({}, seed=5, deal=first)
    expected = random_order(5)
    for _ in range(400):
        s = h.ps(env)
        assert s["phase"] == "DECLARE"
        if s["void_deals"] == 1:
            assert_hands_follow(env, expected)
            return
        h.step(env, s["current_player"], PASS)
    raise AssertionError("no redeal")


# --- P-15 ---------------------------------------------------------------------------------------
def test_shengji_case_P_15():
    """P-15: one deck (SJ-4.12): only single level cards declare and the first declaration stands;
    later level cards and single jokers give no window (SJ-4.5/4.6). Trump C, banker s2."""
    hands, kit, order = h.fill_deal(1, 0, {0: "3C LJ BJ", 1: "4C", 2: "2C", 3: "5C 2S"})
    assert order[2] == 0
    env = h.start({"decks": 1}, deal=order)
    s = h.ps(env)
    assert s["phase"] == "DECLARE" and s["dealt"] == 3
    h.expect_mask(env, 2, [PASS, 56], phase="DECLARE")
    h.step(env, 2, 56)
    s = h.ps(env)
    assert s["phase"] == "BURY", "no other window may occur after the first declaration"
    assert s["trump"] == "C" and s["banker"] == 2 and s["current_player"] == 2
    assert s["declarations"] == [[2, "2C", 1]] and s["standing"] == [2, "2C", 1]
    assert s["hand_sizes"] == [12, 12, 18, 12]
    assert 39 in h.hand_ids(env, 3) and {52, 53} <= set(h.hand_ids(env, 0))


# --- P-36 ---------------------------------------------------------------------------------------
P36_START = "3H 7S 2D 4C 6D 8C QS 7S 8S TC 7C TD"
P36_KITTY = "5H 3H 3D 9D 4H 5D 2S TS"


def test_shengji_case_P_36():
    """P-36: seeding (section 7.3): reset(seed=0) deals canonical[default_rng(0).permutation(108)];
    the order begins 3H 7S 2D 4C ... and the kitty is 5H 3H 3D 9D 4H 5D 2S TS; same seed, same deal."""
    order = random_order(0)
    assert [h.ctext(c) for c in order[:12]] == P36_START.split()
    assert [h.ctext(c) for c in order[100:]] == P36_KITTY.split()
    envs = []
    for _ in range(2):
        env = h.start({"declaration_mode": "preset"}, seed=0, banker=0, trump="S")
        s = h.ps(env)
        assert s["phase"] == "BURY" and s["banker"] == 0
        for seat in (1, 2, 3):
            assert h.hand_ids(env, seat) == dealt_hand(order, 100, seat)
        assert h.hand_ids(env, 0) == sorted(dealt_hand(order, 100, 0) + order[100:])
        envs.append(env)
    # a second reset(seed=0) of the same env reproduces the deal too
    env = envs[0]
    env.reset(seed=0, options={"banker": 0, "trump": "S"})
    assert h.hand_ids(env, 1) == dealt_hand(order, 100, 1)
    # the kitty in its order, through a flip that reveals all of it (no aces in this kitty)
    env = h.start({"kitty_flip": "first_level_or_highest"}, seed=0, banker=0, levels=["A", "A"])
    h.pass_windows(env)
    s = h.ps(env)
    assert s["kitty_revealed"] == P36_KITTY.split()


# --- P-39 ---------------------------------------------------------------------------------------
def test_shengji_case_P_39():
    """P-39: declaration_mode "after_deal" (SJ-4.10): after the deal one round starting at
    partner(banker) = s3; nobody declares -> NAME_TRUMP for s3 (suits only); 83 -> spades;
    the banker s1 buries."""
    lv = h.levels_pred(0)
    forbid = {s: lv for s in range(4)}
    hands, kit, order = h.fill_deal(2, 1, {3: "2S", 0: "2C", 1: "2D", 2: "2H"},
                                    kitty="2C 2D 2H 2S LJ LJ BJ BJ", forbid=forbid)
    env = h.start({"declaration_mode": "after_deal"}, deal=order, banker=1)
    for seat, decl in ((3, 68), (0, 56), (1, 60), (2, 64)):
        s = h.ps(env)
        assert s["phase"] == "DECLARE" and s["dealt"] == 100
        assert s["trump"] is None and s["declarations"] == []
        h.expect_mask(env, seat, [PASS, decl], phase="DECLARE")
        h.step(env, seat, PASS)
    s = h.ps(env)
    assert s["phase"] == "NAME_TRUMP" and s["trump"] is None
    h.expect_mask(env, 3, [80, 81, 82, 83], phase="NAME_TRUMP")
    h.assert_illegal(env, PASS)
    names = [env.unwrapped.action_name(a) for a in (80, 81, 82, 83)]
    assert names == ["name trump C", "name trump D", "name trump H", "name trump S"]  # section 9.5
    assert env.unwrapped.action_from_name("name trump S") == 83
    h.step(env, 3, 83)
    s = h.ps(env)
    assert s["trump"] == "S" and s["phase"] == "BURY" and s["current_player"] == 1
    assert s["banker"] == 1 and s["declarations"] == []
