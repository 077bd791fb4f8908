"""Change cards (CP-10.1): against what an injected deal fixes, the turned / unseen card (CP-3.5, CP-7.8)
and the Band timeout card (CP-11.5) of section 7 are used only while a change has left them where
section 7 puts them (docs/RULINGS.md, Court Piece 9); and `change_cards_limit` beyond 127 (section 6).

Written against the public surface of spec section 9 only.
"""
import numpy as np
import pytest

import courtpiece_cases as h

A = h.DEAL_A
PASS, CHANGE = h.PASS, h.CHANGE_CARDS

# Injected changes of Deal A (d=3, first chooser s0), so that nothing is drawn from the generator
# before the timeout: the card of the event is section 7's `rng.integers(n)`, the first draw.
# s0 changes to AD KD 8D 5S TS (CP-S32); his second packet keeps QS 7S 4C 2D, KH goes to s1.
S0_KEEPS_4C = ["AD KD 8D 5S TS | QS 7S 4C 2D | JD 8H 6C 2S", "AS KS 9H 7D 4H | AH KH 5H 9C | 3D 3S 6H 2H",
               A[2], A[3]]
# s0 changes as above, but 4C is re-dealt to s1's third packet (3S comes to s0 for it).
S0_MOVES_4C = ["AD KD 8D 5S TS | QS 7S 3S 2D | JD 8H 6C 2S", "AS KS 9H 7D 4H | AH KH 5H 9C | 3D 4C 6H 2H",
               A[2], A[3]]
# s1 changes (s0 keeps his first five) and takes 4C out of s0's second packet into his new five.
S1_MOVES_4C = ["AH KH 5H 9C 3D | QS 7S 4H 2D | JD 8H 6C 2S", "AD KD 8D 5S 4C | AS KS 9H 7D | TS 3S 6H 2H",
               A[2], A[3]]
# s0 changes but KH stays in his new first five.
S0_KEEPS_KH = ["AD KH 8D 5S TS | QS 7S 4C 2D | JD 8H 6C 2S", "AS KS 9H 7D 4H | AH KD 5H 9C | 3D 3S 6H 2H",
               A[2], A[3]]


def _changed(variant, seed, key, card, changer, hands, **config):
    """Deal A, d=3, with `key: card` injected; `changer` changes cards into `hands` (injected), the
    other seats keep. Returns the env at the first decision after the change-cards round."""
    env = h.start(A, 3, seed=seed, variant=variant, change_cards=True,
                  deal_extra={key: card, "change_cards": [{"seat": changer, "hands": hands}]}, **config)
    for seat in range(4):
        h.act(env, CHANGE if seat == changer else PASS, seat)
    assert h.ps(env)["change_cards_used"] == [int(seat == changer) for seat in range(4)]
    for seat in range(4):
        assert h.hand(env, seat) == h.sorted_texts(h.first_five(hands, seat))
    return env


def _holder(hands, card):
    return next(seat for seat in range(4) if card in hands[seat].replace("|", " ").split())


def _expect_every_card_once(env, face_down=None):
    """9.3 conservation in "play" before any card is played: the four hands and the face-down card
    hold each of the 52 cards exactly once."""
    s = h.ps(env)
    assert s["phase"] == "play" and s["trick_number"] == 0
    cards = [c for seat in range(4) for c in h.hand(env, seat)]
    assert (s["hidden_owner"] is None) == (face_down is None)
    if face_down is not None:
        cards.append(face_down)
    assert sum(s["hand_sizes"]) + (s["hidden_owner"] is not None) == 52
    assert len(cards) == 52 and len(set(cards)) == 52


def _play_out_by_timeouts(env):
    """Timeouts to the end (CP-12.2); 9.3 visible conservation after each."""
    while not all(env.terminations[a] for a in env.agents):
        env.unwrapped.timeout()
        s = h.ps(env)
        if s["phase"] == "play":
            hidden = s["hidden_owner"] is not None
            assert sum(s["hand_sizes"]) + hidden + len(s["current_trick"]) + 4 * s["trick_number"] == 52


CHANGES_THAT_MOVE_4C = [(0, S0_MOVES_4C), (1, S1_MOVES_4C)]


@pytest.mark.parametrize("changer,hands", CHANGES_THAT_MOVE_4C, ids=["s0_changes", "s1_changes"])
@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_turned_card_moved_by_change_cards_is_drawn_again_single_sar(changer, hands, seed):
    """CP-3.5: the dealer turns a card of the first chooser's second packet, which stays in his hand.
    The injected "turned" 4C (section 7) was in s0's second packet as dealt; a change (CP-10.1)
    re-dealt it to s1, so the turned card is drawn from s0's second packet as it is now (section 7,
    step 3), and 4C stays with s1 alone."""
    env = _changed("single_sar", seed, "turned", "4C", changer, hands)
    holder = _holder(hands, "4C")
    assert holder != 0
    env.unwrapped.timeout()  # s0 passes (CP-3.6)
    env.unwrapped.timeout()  # s2 does not name: CP-3.5
    s = h.ps(env)
    packet = h.second_packet(hands, 0)
    turned = packet[int(np.random.default_rng(seed).integers(4))]
    assert s["turned_card"] == turned != "4C"
    assert s["trump"] == "CDHS".index(turned[1]) and s["caller"] is None
    assert turned in h.hand(env, 0)
    assert "4C" in h.hand(env, holder) and "4C" not in h.hand(env, 0)
    for seat in range(4):
        assert h.hand(env, seat) == h.sorted_texts(hands[seat])
    _expect_every_card_once(env)
    _play_out_by_timeouts(env)


@pytest.mark.parametrize("changer,hands", CHANGES_THAT_MOVE_4C, ids=["s0_changes", "s1_changes"])
@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_unseen_card_moved_by_change_cards_is_drawn_again_chhupa_rang(changer, hands, seed):
    """CP-7.8: the card laid face down is the first chooser's, one of his second packet; he holds the
    other 12. The injected "turned" 4C went to s1 by a change, so the face-down card is drawn from s0's
    second packet as it is now (the repro of the audit laid 4C face down for s0 while s1 held it: 53
    cards)."""
    env = _changed("chhupa_rang", seed, "turned", "4C", changer, hands)
    holder = _holder(hands, "4C")
    env.unwrapped.timeout()
    env.unwrapped.timeout()
    s = h.ps(env)
    packet = h.second_packet(hands, 0)
    face_down = packet[int(np.random.default_rng(seed).integers(4))]
    assert s["hidden_owner"] == 0 and s["trump"] is None and s["turned_card"] is None
    assert s["hand_sizes"] == [12, 13, 13, 13]
    assert h.hand(env, 0) == [c for c in h.sorted_texts(hands[0]) if c != face_down]
    assert "4C" in h.hand(env, holder)
    _expect_every_card_once(env, face_down)
    _play_out_by_timeouts(env)
    assert h.ps(env)["shown_card"] == face_down  # turned up at the end (CP-7.4(d)) unless shown before


@pytest.mark.parametrize("variant", ["single_sar", "chhupa_rang"])
def test_turned_card_still_in_the_second_packet_after_a_change_is_used(variant):
    """Section 7: the injected card applies while a change leaves it in the first chooser's second
    packet (S0_KEEPS_4C: s0 changed, 4C stayed)."""
    env = _changed(variant, 0, "turned", "4C", 0, S0_KEEPS_4C)
    env.unwrapped.timeout()
    env.unwrapped.timeout()
    s = h.ps(env)
    if variant == "single_sar":
        assert s["turned_card"] == "4C" and s["trump"] == 0 and "4C" in h.hand(env, 0)
        _expect_every_card_once(env)
    else:
        assert s["hidden_owner"] == 0 and "4C" not in h.hand(env, 0) and s["hand_sizes"] == [12, 13, 13, 13]
        _expect_every_card_once(env, "4C")


@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_band_timeout_card_moved_by_change_cards_is_drawn_again(seed):
    """CP-11.5: on a timeout one of d+1's first five goes face down. The injected "band_timeout" KH was
    in s0's first five as dealt; his change (CP-10.1) gave it to s1's second packet, so the card is
    drawn from s0's new first five (section 7, step 3: first five[rng.integers(5)])."""
    env = _changed("mendi_coat", seed, "band_timeout", "KH", 0, S0_KEEPS_4C, mendi_trump="band")
    assert h.ps(env)["phase"] == "band_hide"
    env.unwrapped.timeout()
    s = h.ps(env)
    five = h.first_five(S0_KEEPS_4C, 0).split()
    face_down = five[int(np.random.default_rng(seed).integers(5))]
    assert s["hidden_owner"] == 0 and s["hand_sizes"] == [12, 13, 13, 13]
    assert h.hand(env, 0) == [c for c in h.sorted_texts(S0_KEEPS_4C[0]) if c != face_down]
    assert "KH" in h.hand(env, 1)
    _expect_every_card_once(env, face_down)
    _play_out_by_timeouts(env)


def test_band_timeout_card_still_in_the_first_five_after_a_change_is_used():
    """Section 7: the injected Band card applies while s0's change leaves it in his first five."""
    env = _changed("mendi_coat", 0, "band_timeout", "KH", 0, S0_KEEPS_KH, mendi_trump="band")
    env.unwrapped.timeout()
    s = h.ps(env)
    assert s["hidden_owner"] == 0 and "KH" not in h.hand(env, 0) and s["hand_sizes"] == [12, 13, 13, 13]
    _expect_every_card_once(env, "KH")


# ---- change_cards_limit (section 6: int >= 1; CP-10.1: a seat changes again while it has uses left) ----
def test_change_cards_counter_holds_any_limit():
    """The per-seat count of changes never passes change_cards_limit, which section 6 bounds only by
    the options' MAX_INT: the state field must hold that many without wrapping."""
    from cardzoo.options import MAX_INT
    from courtpiece_env.state import STATE_DTYPE

    assert np.iinfo(STATE_DTYPE["cc_used"].base).max >= MAX_INT


def test_change_cards_limit_200_aec_and_batch():
    """change_cards_limit=200 (beyond an int8 counter): s0 may change exactly 200 times (section 4,
    CHANGE_CARDS row: 59 while fewer than the limit were used), then s1 decides; `change_cards_used`
    (9.3) counts every change and the observation's entry is uses / limit (3.4, observe.py). The
    BatchGame game seeded alike stays identical (9.8)."""
    import courtpiece_env

    limit, seed = 200, 11
    config = dict(variant="single_sar", change_cards=True, change_cards_limit=limit)
    deal = {"hands": list(A), "dealer": 3}
    env = courtpiece_env.env(**config)
    env.reset(seed=seed, options={"deal": deal})
    g = courtpiece_env.BatchGame(1, **config)
    g.reset(seed=seed, deals=[deal])

    def same():
        assert g.public_state(0) == h.ps(env)
        assert np.array_equal(g.legal_mask()[0], env.observe(env.agent_selection)["action_mask"])
        assert np.array_equal(g.observe()[0], env.observe(env.agent_selection)["observation"])

    for used in range(limit):
        s = h.ps(env)
        assert s["phase"] == "change_cards" and s["change_cards_used"] == [used, 0, 0, 0]
        h.expect_legal(env, 0, "", [PASS, CHANGE])
        assert env.observe("player_0")["observation"][881] == np.float32(used / limit)   # own entry
        assert env.observe("player_1")["observation"][881 + 3] == np.float32(used / limit)  # s0 from s1
        if used % 50 == 0:
            same()
        h.act(env, CHANGE, 0)
        g.step(np.array([CHANGE]))
    s = h.ps(env)
    assert s["phase"] == "change_cards" and s["change_cards_used"] == [limit, 0, 0, 0]
    h.expect_legal(env, 1, "", [PASS, CHANGE])  # s0's 200 uses are spent
    assert env.observe("player_1")["observation"][881 + 3] == 1.0
    same()
    for seat in (1, 2, 3):
        h.act(env, PASS, seat)
        g.step(np.array([PASS]))
    s = h.ps(env)
    assert s["phase"] == "call" and s["actor"] == 0 and s["change_cards_used"] == [limit, 0, 0, 0]
    same()
