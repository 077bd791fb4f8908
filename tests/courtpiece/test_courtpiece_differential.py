"""Differential tests: the numba legal-mask and trick-winner kernels against the plain-Python
reference of courtpiece_reference.py (written from the spec) on >= 100,000 random positions per
variant, generated in bulk by BatchGame random play."""
import numpy as np
import pytest

import courtpiece_env
from courtpiece_reference import PHASES, packed, ref_legal, ref_trick_winner, to_bits

CONFIGS = {
    "single_sar": [dict(variant="single_sar"),
                   dict(variant="single_sar", change_cards=True, change_cards_limit=2, change_trump=True,
                        trump_from_first_five=False)],
    "double_sar": [dict(variant="double_sar", play_out=True),
                   dict(variant="double_sar", change_trump=True, ace_on_ace=True, trump_ace_blocks=True,
                        closed_11_12=True)],
    "chhupa_rang": [dict(variant="chhupa_rang", play_out=True),
                    dict(variant="chhupa_rang", change_trump=True, change_cards=True)],
    "be_rang": [dict(variant="be_rang", play_out=True), dict(variant="be_rang", change_cards=True)],
    "mendi_coat": [dict(variant="mendi_coat"), dict(variant="mendi_coat", mendi_trump="band"),
                   dict(variant="mendi_coat", mendi_trump="band", change_cards=True)],
}
MIN_POSITIONS = 100_000


def _opt(x):
    return None if x < 0 else x


def _run(config, n_games, seed, counts):
    g = courtpiece_env.BatchGame(n_games, **config)
    g.reset(seed=seed)
    c = g.config
    band = c.variant == "mendi_coat" and c.mendi_trump == "band"
    rng = np.random.default_rng(seed)
    last_act = np.full(n_games, -1)
    last_actor = np.full(n_games, -1)
    void_seen = np.zeros(n_games, bool)
    prev_ntrick = np.zeros(n_games, int)
    st = g._st
    while not g.done.all():
        mask = g.legal_mask()
        live = np.flatnonzero(~g.done)
        got = packed(mask[live])
        cols = {k: st[k][live].tolist() for k in
                ("phase", "actor", "fc", "passed", "npos", "led", "trump", "hidden_card", "hidden_owner",
                 "ntrick", "shown_card", "shown_trick", "shown_pos")}
        hands = st["hands"][live].tolist()
        first5 = st["first5"][live].tolist()
        cc = st["cc_used"][live].tolist()
        for j, b in enumerate(live.tolist()):
            a = cols["actor"][j]
            phase = PHASES[cols["phase"][j]]
            hand = hands[j][a]
            duty = None
            if phase == "play" and last_actor[b] == a and last_act[b] in (57, 58):
                duty = "ask" if last_act[b] == 57 else "lead"
            if band and phase == "play" and cols["npos"][j] > 0 and not void_seen[b]:
                before = hand
                if (cols["shown_card"][j] >= 0 and cols["shown_trick"][j] == cols["ntrick"][j] + 1
                        and cols["shown_pos"][j] == cols["npos"][j] and a == cols["fc"][j]):
                    before &= ~(1 << cols["shown_card"][j])   # turned up just now (CP-11.6(a))
                if not before & (((1 << 13) - 1) << (13 * cols["led"][j])):
                    duty, void_seen[b] = "band", True
            want = ref_legal(c.variant, band, phase, a, cols["fc"][j], cols["passed"][j], first5[j][a], hand,
                             cols["npos"][j], cols["led"][j], _opt(cols["trump"][j]), cols["hidden_card"][j] >= 0,
                             cols["hidden_owner"][j], cc[j][a], c.change_cards_limit, c.trump_from_first_five,
                             duty)
            assert got[j] == to_bits(want), (config, b, phase, duty, sorted(want), got[j])
        counts["positions"] += len(live)
        # random legal actions
        r = rng.random(mask.shape) * mask
        acts = r.argmax(axis=1)
        last_act[live] = acts[live]
        last_actor[live] = st["actor"][live]
        g.step(acts)
        # every trick completed by this step, against the reference winner
        nt = st["ntrick"].astype(int)
        for b in np.flatnonzero(nt > prev_ntrick).tolist():
            t = nt[b] - 1
            s = st[b]
            cards = [int(x) for x in s["trick_cards"][t]]
            trump = _opt(int(s["trump"]))
            if c.variant in ("single_sar", "double_sar"):
                moment = (-1, 0)
            elif c.variant == "chhupa_rang" or band:
                # shown at [trick 1-based, cards already played]; a showing after the trick does not count
                moment = (int(s["shown_trick"]) - 1, int(s["shown_pos"])) if s["shown_card"] >= 0 else None
            else:
                moment = None
                if s["set_card"] >= 0:
                    for tt in range(t + 1):
                        row = [int(x) for x in s["trick_cards"][tt]]
                        if int(s["set_card"]) in row:
                            moment = (tt, row.index(int(s["set_card"])))
            want = ref_trick_winner(cards, int(s["trick_leader"][t]), trump, moment, t)
            assert int(s["trick_winner"][t]) == want, (config, b, t, cards, trump, moment)
            counts["tricks"] += 1
        prev_ntrick = nt


@pytest.mark.parametrize("variant", list(CONFIGS))
def test_courtpiece_legal_mask_and_trick_winner_match_reference(variant):
    counts = {"positions": 0, "tricks": 0}
    configs = CONFIGS[variant]
    k = 0
    while counts["positions"] < MIN_POSITIONS:
        _run(configs[k % len(configs)], 1000, 1000 * k + 17, counts)
        k += 1
    assert counts["positions"] >= MIN_POSITIONS and counts["tricks"] >= 10_000


def test_courtpiece_card_value_on_random_tricks():
    """rules.trick.card_value (CP-4.4 / CP-4.5, the value of a card as it is played) against the
    reference winner on 100,000 random tricks whose trump becomes public at a random position."""
    from courtpiece_env.rules.trick import card_value
    rng = np.random.default_rng(5)
    n = 100_000
    tricks = np.argsort(rng.random((n, 52)), axis=1)[:, :4].astype(np.int64)
    trumps = rng.integers(-1, 4, n)
    moments = rng.integers(0, 5, n)          # position from which trump counts (4: after the trick)
    for i in range(n):
        cards = tricks[i].tolist()
        trump = int(trumps[i])
        m = int(moments[i])
        led = cards[0] // 13
        values = [card_value(c, c // 13, led, trump if k >= m else -1) for k, c in enumerate(cards)]
        wi = max(range(4), key=lambda k: (values[k], -k))
        want = ref_trick_winner(cards, 0, None if trump < 0 else trump, (0, m), 0)
        assert wi == want, (cards, trump, m)


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(CONFIGS))
def test_courtpiece_differential_slow(variant):
    counts = {"positions": 0, "tricks": 0}
    for k in range(12):
        _run(CONFIGS[variant][k % len(CONFIGS[variant])], 4000, 99_000 + k, counts)
    assert counts["positions"] >= 1_000_000
