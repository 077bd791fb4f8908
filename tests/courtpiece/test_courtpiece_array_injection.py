"""BatchGame.reset(hands=..., dealers=...) (array deal injection) and BatchGame.replay (one jitted call
for a common action prefix): the same games as the section 7 ``deals`` path and as step-by-step play;
bad input raises ValueError with the games untouched."""
import numpy as np
import pytest
from courtpiece_reference import record_bytes

from courtpiece_env import BatchGame

VARIANTS = [dict(variant="single_sar"), dict(variant="double_sar"), dict(variant="chhupa_rang"),
            dict(variant="be_rang"), dict(variant="mendi_coat"), dict(variant="mendi_coat", mendi_trump="band"),
            dict(variant="single_sar", episode="match", match_target=3)]
IDS = ["-".join(str(v) for v in c.values()) for c in VARIANTS]


def _random_deals(rng, n):
    orders = np.stack([rng.permutation(52).reshape(4, 13) for _ in range(n)])
    dealers = rng.integers(0, 4, n)
    deals = [{"hands": orders[b].tolist(), "dealer": int(dealers[b])} for b in range(n)]
    return orders, dealers, deals


@pytest.mark.parametrize("config", VARIANTS, ids=IDS)
def test_hands_injection_equals_deals_injection(config):
    rng = np.random.default_rng(7)
    n = 24
    orders, dealers, deals = _random_deals(rng, n)
    g1, g2 = BatchGame(n, **config), BatchGame(n, **config)
    g1.reset(seed=11, deals=deals)
    g2.reset(seed=11, hands=orders, dealers=dealers)
    assert record_bytes(g1.records) == record_bytes(g2.records)
    steps = 0
    while not g1.done.all():
        m = g1.legal_mask()
        assert np.array_equal(m, g2.legal_mask())
        assert np.array_equal(g1.observe(), g2.observe())
        u = rng.random(m.shape)
        u[m == 0] = -1.0
        a = u.argmax(axis=1)
        if (a == 59).any():          # change cards draws from the generator, seeded per path
            break
        g1.step(a)
        g2.step(a)
        if (g1.records["bazi_index"] > 0).any():
            break                    # a match's next deal: drawn from each path's own generator
        assert record_bytes(g1.records) == record_bytes(g2.records)
        assert np.array_equal(g1.rewards, g2.rewards)
        steps += 1
    assert steps > 10


def test_hands_injection_broadcasts_one_deal_and_one_dealer():
    rng = np.random.default_rng(3)
    order = rng.permutation(52).reshape(4, 13)
    g1, g2 = BatchGame(5), BatchGame(5)
    g1.reset(hands=order, dealers=2)
    g2.reset(deals=[{"hands": order.tolist(), "dealer": 2}] * 5, seed=0)
    assert record_bytes(g1.records) == record_bytes(g2.records)


@pytest.mark.parametrize("config", [dict(variant="single_sar"), dict(variant="mendi_coat"),
                                    dict(variant="double_sar")], ids=["single_sar", "mendi_coat", "double_sar"])
def test_replay_equals_stepping(config):
    rng = np.random.default_rng(5)
    n = 16
    orders, _, _ = _random_deals(rng, 1)
    orders = np.repeat(orders, n, axis=0)       # one deal: a common action sequence is legal in all
    g = BatchGame(n, **config)
    g.reset(hands=orders, dealers=1)
    actions = []
    while not g.done.all():
        m = g.legal_mask()[0]
        a = int(rng.choice(np.flatnonzero(m)))
        actions.append(a)
        g.step(np.full(n, a))
    for cut in (0, 1, len(actions) // 2, len(actions)):
        h = BatchGame(n, **config)
        h.reset(hands=orders, dealers=1)
        ref = BatchGame(n, **config)
        ref.reset(hands=orders, dealers=1)
        h.replay(actions[:cut])
        for a in actions[:cut]:
            ref.step(np.full(n, a))
        assert record_bytes(h.records) == record_bytes(ref.records)
        assert np.array_equal(h.rewards, ref.rewards)
        assert np.array_equal(h.done, ref.done)


def test_array_injection_bad_input_leaves_games_untouched():
    rng = np.random.default_rng(1)
    orders, dealers, _ = _random_deals(rng, 3)
    g = BatchGame(3)
    g.reset(hands=orders, dealers=dealers)
    before = record_bytes(g.records)
    dup = orders.copy()
    dup[1, 0, 0] = dup[1, 0, 1]
    bad = [
        dict(hands=dup, dealers=dealers),                       # a card twice in game 1
        dict(hands=orders[:2], dealers=dealers),                # wrong batch size
        dict(hands=orders.astype(float), dealers=dealers),      # not ints
        dict(hands=orders + 1, dealers=dealers),                # card 52
        dict(hands=orders),                                     # no dealer
        dict(hands=orders, dealers=4),                          # not a seat
        dict(hands=orders, dealers=[0, 1]),                     # wrong length
        dict(hands=orders, dealers=dealers, deals=[{}] * 3),    # both paths
        dict(dealers=dealers),                                  # dealers without hands
    ]
    for kwargs in bad:
        with pytest.raises(ValueError):
            g.reset(**kwargs)
        assert record_bytes(g.records) == before
    with pytest.raises(ValueError, match="game 1"):
        g.reset(hands=dup, dealers=dealers)
    legal = int(np.flatnonzero(g.legal_mask()[0])[0])
    illegal = int(np.flatnonzero(g.legal_mask()[0] == 0)[0])
    for seq in ([illegal], [legal, 60], [legal, -1], [59], [[legal]], ["x"]):
        with pytest.raises(ValueError):
            g.replay(seq)
        assert record_bytes(g.records) == before


def test_replay_refuses_change_cards_and_next_deal():
    g = BatchGame(2, change_cards=True)
    g.reset(hands=np.arange(52).reshape(4, 13), dealers=0)
    assert g.legal_mask()[0, 59] == 1
    with pytest.raises(ValueError, match="change cards"):
        g.replay([59])
    g.replay([56, 56, 56, 56])                 # everyone keeps: the call follows
    assert (g.public_state(0)["phase"] == "call")


def test_a_bool_in_a_list_is_no_card_seat_or_action():
    """9.6 and docs/env_contract_inputs.md: a bool where an int is expected is refused, never read as
    0 or 1 -- also inside the plain lists BatchGame turns into arrays (numpy reads [True, 5] as the
    int array [1, 5]). The games are left as they were."""
    orders = np.arange(52).reshape(4, 13)
    g = BatchGame(2, change_cards=True)
    g.reset(hands=orders, dealers=0)
    before = record_bytes(g.records)
    with_true = orders.tolist()
    with_true[0][1] = True                      # card 1 (3C) as True: the deal would otherwise be valid
    bad_resets = [dict(hands=with_true, dealers=0), dict(hands=orders, dealers=[0, True]),
                  dict(hands=[orders.tolist(), with_true], dealers=[0, 1])]
    for kwargs in bad_resets:
        with pytest.raises(ValueError, match="bool"):
            g.reset(**kwargs)
        assert record_bytes(g.records) == before
    keep = 56                                   # PASS: legal for both games (change cards phase)
    for call, arg in ((g.step, [keep, True]), (g.step, [np.bool_(False), keep]), (g.replay, [keep, True])):
        with pytest.raises(ValueError, match="bool"):
            call(arg)
        assert record_bytes(g.records) == before
    g.step([keep, keep])                        # plain ints still work
    g.replay([keep])


def test_batch_step_names_an_unsigned_action_as_given():
    """9.6: the error names the action the caller gave; a uint64 past the int64 range was reported
    as the negative number it wraps to (18446744073709551615 as -1)."""
    g = BatchGame(2)
    g.reset(seed=3)
    before = record_bytes(g.records)
    acts = np.array([56, 2**64 - 1], np.uint64)
    with pytest.raises(ValueError, match="game 1: action 18446744073709551615 is outside 0..59"):
        g.step(acts)
    assert record_bytes(g.records) == before
