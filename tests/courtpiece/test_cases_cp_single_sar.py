"""Court Piece scenario cases, spec 8.2 (calling, play, Single Sar): CP-S01 .. CP-S08.

Written against the public surface of spec section 9 only.
"""
import json

import numpy as np
import pytest

import courtpiece_cases as h

A, K, G = h.DEAL_A, h.DEAL_K, h.DEAL_G
C, D, H, S, PASS = 52, 53, 54, 55, h.PASS

S04_TRICKS = """
T1 s0: 4C 7D 2C 4D → s0     T2 s0: 6C 8D 3C 5D → s0     T3 s0: 9C KD 5C 9D → s0
T4 s0: 2D AD 6D TD → s1     T5 s1: 2H TH 3H 5H → s2     T6 s2: 7C 7H 3D 4H → s3
T7 s3: JH 8H 6H 8C → s3     T8 s3: QH KH 9H TC → s0     T9 s0: JD 3S QD 4S → s2
T10 s2: JC 6S AH 5S → s0
"""
S05_TRICKS = """
T1 s0: QS AS TH JS → s2     T2 s2: QD TD JD AD → s1     T3 s1: KS 6D 9S 7S → s1
T4 s1: TS AC 8S 2S → s1     T5 s1: 5S KC 6S AH → s0     T6 s0: KH 9H QC QH → s0
T7 s0: 8H 6H JC JH → s3     T8 s3: 4S 5H 3S TC → s0     T9 s0: 3D KD 8C 9D → s1
T10 s1: 4H 7C 7H 2D → s3    T11 s3: 3H 9C 2H 5C → s3
"""
S06_TRICKS = """
T1 s0: 9C 2C 8C 4C → s0     T2 s0: 8D 2D 9D 3D → s2     T3 s2: JS 5S 9S 2S → s2
T4 s2: 9H 2H TH 7H → s0     T5 s0: TS 3S TD 8S → s0     T6 s0: TC 3C QC 5C → s2
T7 s2: JD 4D QD 7D → s0
"""
S07_TRICKS = """
T1 s0: 2C 9C 3C 8C → s1     T2 s1: TH 2H JH 3H → s3     T3 s3: JS 4S 9S 2S → s3
T4 s3: 8D 3D TD 2D → s1     T5 s1: QH 3S 9H 4H → s1     T6 s1: TS 5S QS 5C → s3
T7 s3: 9D 6D JD 4D → s1
"""


def _hand_of(deal, seat):
    return h.sorted_texts(deal[seat])


def test_courtpiece_case_CP_S01():
    """CP-S01: calling — allowed suits, one pass, the partner cannot pass.

    Rules: CP-3.1 (name or pass once), CP-3.2 (suit from own first five), CP-3.3 (partner must
    name), CP-3.4 (caller, public suit, packets 2 and 3), CP-4.1 (d+1 leads trick 1), CP-2.5/2.6
    (5 cards each while calling); surface 9.1/9.3.
    """
    env = h.start(A, 3, variant="single_sar")
    s = h.ps(env)
    json.dumps(s)
    assert set(s) == h.PUBLIC_STATE_KEYS, f"public_state keys differ: {set(s) ^ h.PUBLIC_STATE_KEYS}"
    assert s["variant"] == "single_sar"
    assert s["phase"] == "call"
    assert s["dealer"] == 3 and s["first_chooser"] == 0
    assert s["passed"] is False and s["caller"] is None and s["trump"] is None
    assert s["hand_sizes"] == [5, 5, 5, 5]  # CP-2.6: only the first five while calling
    assert h.hand(env, 0) == h.sorted_texts(h.first_five(A, 0))
    for a in h.AGENTS:
        assert env.infos[a]["phase"] == "call"
        obs = env.observe(a)
        assert obs["observation"].shape == (916,) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].dtype == np.int8
        if a != "player_0":
            assert not obs["action_mask"].any(), f"{a} is not to act but has a non-zero mask"
    # AH KH 5H 9C 3D: clubs, diamonds, hearts; no spade (CP-3.2); PASS as the first chooser.
    h.expect_legal(env, 0, "", [C, D, H, PASS])

    h.act(env, PASS, 0)
    s = h.ps(env)
    assert s["phase"] == "call" and s["passed"] is True
    # s2's first five AC KC QC 6D TH: clubs, diamonds, hearts; no PASS for the partner (CP-3.3).
    h.expect_legal(env, 2, "", [C, D, H])

    h.act(env, C, 2)
    s = h.ps(env)
    assert s["trump"] == 0 and s["caller"] == 2
    assert s["hand_sizes"] == [13, 13, 13, 13]  # packets 2 and 3 dealt (CP-3.4)
    for seat in range(4):
        assert h.hand(env, seat) == _hand_of(A, seat)
    assert s["phase"] == "play"
    assert s["leader"] == 0  # CP-4.1: the first chooser leads although s2 called
    h.expect_legal(env, 0, A[0])  # CP-4.2: the leader may lead any card


def test_courtpiece_case_CP_S02():
    """CP-S02: follow suit, free discard, trump beats the led ace, overtrump; an off-suit king wins
    nothing.

    Rules: CP-4.3 (must follow if able, else any card, trumping optional), CP-4.4 (highest trump,
    else highest of the led suit), CP-4.6 (winner leads), CP-5.1 (tricks_won per team).
    """
    env = h.start(A, 3, variant="single_sar")
    h.act(env, H, 0)
    assert h.ps(env)["trump"] == 2
    h.act(env, "9C", 0)
    h.expect_legal(env, 1, "7D 8D KD AD 2H 4H 6H 9H 3S 5S TS KS AS")  # no clubs: all 13
    h.act(env, "2H", 1)
    h.expect_legal(env, 2, "2C 3C 5C 7C 8C TC JC QC KC AC")  # must follow clubs
    h.act(env, "AC", 2)
    h.expect_legal(env, 3, A[3])  # no clubs: all 13, non-trumps included
    h.act(env, "QH", 3)
    s = h.ps(env)
    assert s["tricks"] == [{"leader": 0, "cards": [[0, "9C"], [1, "2H"], [2, "AC"], [3, "QH"]],
                            "winner": 3}]
    assert s["trick_number"] == 1 and s["tricks_won"] == [0, 1]
    assert s["actor"] == 3 and s["leader"] == 3

    h.act(env, "4S", 3)
    h.expect_legal(env, 0, "2S 7S QS")
    h.act(env, "7S", 0)
    h.expect_legal(env, 1, "3S 5S TS KS AS")
    h.act(env, "KS", 1)
    h.expect_legal(env, 2, "2C 3C 5C 7C 8C TC JC QC KC 6D QD TH")  # no spades: all 12
    h.act(env, "KC", 2)
    s = h.ps(env)
    assert s["tricks"][1] == {"leader": 3, "cards": [[3, "4S"], [0, "7S"], [1, "KS"], [2, "KC"]],
                              "winner": 1}
    assert s["tricks_won"] == [0, 2]
    h.expect_legal(env, 1, "3S 5S TS AS 7D 8D KD AD 4H 6H 9H")  # s1 leads any of his 11
    assert s["actor"] == 1


def test_courtpiece_case_CP_S03():
    """CP-S03: timeouts while calling — first chooser's timeout passes, partner's timeout makes the
    dealer turn a random card of the first chooser's second packet.

    Rules: CP-3.5 (turned card: trump, stays in hand, caller None), CP-3.6, CP-12.2 (timeout table),
    CP-12.3 and section 7 (the turned card from the deal or the generator), CP-2.2 (trump team).
    """
    env = h.start(A, 3, variant="single_sar", deal_extra={"turned": "7S"})
    assert env.timeout() is None
    s = h.ps(env)
    assert s["phase"] == "call" and s["passed"] is True
    h.expect_legal(env, 2, "", [C, D, H])

    assert env.timeout() is None
    s = h.ps(env)
    assert s["trump"] == 3
    assert s["turned_card"] == "7S" and h.cid("7S") == 44
    assert s["caller"] is None
    assert s["hand_sizes"] == [13, 13, 13, 13]
    assert "7S" in h.hand(env, 0)  # the turned card stays in s0's hand as dealt
    for seat in range(4):
        assert h.hand(env, seat) == _hand_of(A, seat)
    assert s["phase"] == "play" and s["leader"] == 0
    h.expect_legal(env, 0, A[0])
    assert h.ps(env)["dealer"] == 3 and h.ps(env)["first_chooser"] == 0

    # Without "turned": one of s0's second packet, drawn from the env's generator. With hands and
    # dealer injected nothing else is drawn first, so (section 7, step 3) the card is
    # second_packet[rng.integers(4)] of numpy.random.default_rng(seed); same seed, same card.
    packet = h.second_packet(A, 0)
    assert packet == ["QS", "7S", "4C", "2D"]
    seen = set()
    for seed in (0, 1, 2, 3, 5, 8, 13):
        env = h.start(A, 3, seed=seed, variant="single_sar")
        env.timeout()
        env.timeout()
        s = h.ps(env)
        card = s["turned_card"]
        assert card in packet
        assert s["trump"] == "CDHS".index(card[1])
        assert card in h.hand(env, 0)
        assert card == packet[int(np.random.default_rng(seed).integers(4))], (
            f"seed {seed}: turned {card}, section 7 gives "
            f"{packet[int(np.random.default_rng(seed).integers(4))]}")
        seen.add(card)
        again = h.start(A, 3, seed=seed, variant="single_sar")
        again.timeout()
        again.timeout()
        assert h.ps(again)["turned_card"] == card  # 9.7 determinism
    assert len(seen) > 1


def test_courtpiece_case_CP_S04():
    """CP-S04: Single Sar, the trump team wins 7-3; the same dealer deals again.

    Rules: CP-5.1, CP-5.2 (ends at once on the 7th trick, cards stay in hand), CP-9.1 (trump_win
    +1), CP-9.4 (trump team won without kot: d deals again), section 5 (zero-sum rewards, all
    terminated), 9.4 (dead steps remove the agents).
    """
    env = h.start(A, 3, variant="single_sar")
    h.act(env, H, 0)

    def after(n, s):
        if n < 10:
            assert s["phase"] == "play" and s["decided"] is False and s["result"] is None
            assert [env.rewards[a] for a in h.AGENTS] == [0.0] * 4

    h.run_tricks(env, S04_TRICKS, policy="low", after=after)
    s = h.expect_bazi_over(env, h.team_rewards(1.0), winner_team=0, kind="trump_win", points=1,
                           kots=0, bonus=0, next_dealer=3, decided_at_trick=10, bazi_index=0,
                           match_winner=None)
    assert s["tricks_won"] == [7, 3] and s["trick_number"] == 10
    assert s["hand_sizes"] == [3, 3, 3, 3]  # three cards stay in each hand (CP-5.2)
    assert s["score"] == [1, 0]
    for _ in range(4):
        env.step(None)
    assert env.agents == []


def test_courtpiece_case_CP_S05():
    """CP-S05: Single Sar, the dealer's team wins 7-4; the next player deals.

    Rules: CP-5.2, CP-9.1 (opponents_win +2), CP-9.4 (dealer's team won: d+1 deals, so seat 1 of the
    winning team chooses next), section 5.
    """
    env = h.start(A, 3, variant="single_sar")
    h.act(env, H, 0)
    h.run_tricks(env, S05_TRICKS, policy="high")
    s = h.expect_bazi_over(env, h.team_rewards(-2.0), winner_team=1, kind="opponents_win", points=2,
                           kots=0, bonus=0, next_dealer=0, decided_at_trick=11)
    assert s["tricks_won"] == [4, 7]
    assert s["hand_sizes"] == [2, 2, 2, 2]
    assert s["score"] == [0, 2]


def test_courtpiece_case_CP_S06():
    """CP-S06: Single Sar kot — the trump team takes the first seven tricks (both partners win some).

    Rules: CP-3.2 (spades allowed from TH QD JC AS TS), CP-5.3 (kot), CP-9.1 (+3 points, +1 kot),
    CP-9.4 (kot by the trump team: the dealer's partner d+2 deals).
    """
    env = h.start(K, 3, variant="single_sar")
    h.expect_legal(env, 0, "", [C, D, H, S, PASS])
    h.act(env, S, 0)
    assert h.ps(env)["trump"] == 3 and h.ps(env)["caller"] == 0
    h.run_tricks(env, S06_TRICKS)
    s = h.expect_bazi_over(env, h.team_rewards(3.0), winner_team=0, kind="kot", points=3, kots=1,
                           bonus=0, next_dealer=1, decided_at_trick=7)
    assert s["tricks_won"] == [7, 0]


def test_courtpiece_case_CP_S07():
    """CP-S07: gone kot after a pass — the dealer's team takes the first seven tricks.

    Rules: CP-3.1/3.3 (pass, then the partner must name), CP-3.2 (s2's 2H 2S 5D 4D 5S: D, H, S),
    CP-2.2 (the trump team is still team 0), CP-5.3 (gone kot), CP-9.1 (+4 points, +3 kots),
    CP-9.4 (dealer's team won: d+1 deals).
    """
    env = h.start(G, 3, variant="single_sar")
    h.expect_legal(env, 0, "", [C, D, H, PASS])
    h.act(env, PASS, 0)
    h.expect_legal(env, 2, "", [D, H, S])
    h.act(env, D, 2)
    s = h.ps(env)
    assert s["trump"] == 1 and s["caller"] == 2 and s["passed"] is True
    h.run_tricks(env, S07_TRICKS)
    s = h.expect_bazi_over(env, h.team_rewards(-4.0), winner_team=1, kind="gone_kot", points=4,
                           kots=3, bonus=0, next_dealer=0, decided_at_trick=7)
    assert s["tricks_won"] == [0, 7]


@pytest.mark.parametrize("which", ["S04", "S06", "S07"])
def test_courtpiece_case_CP_S08(which):
    """CP-S08: the kots column — S04, S06 and S07 replayed with scoring="kots".

    Rules: CP-9.1 (kots column: 0, +1, +3; `points` still reports the points row, 9.4), section 5
    (an ordinary win gives reward 0 with kots), CP-9.4 (next dealer unchanged: 3, 1, 0).
    """
    if which == "S04":
        env = h.start(A, 3, variant="single_sar", scoring="kots")
        h.act(env, H, 0)
        h.run_tricks(env, S04_TRICKS, policy="low")
        s = h.expect_bazi_over(env, [0.0] * 4, winner_team=0, kind="trump_win", points=1, kots=0,
                               bonus=0, next_dealer=3)
        assert s["score"] == [0, 0]
    elif which == "S06":
        env = h.start(K, 3, variant="single_sar", scoring="kots")
        h.act(env, S, 0)
        h.run_tricks(env, S06_TRICKS)
        s = h.expect_bazi_over(env, h.team_rewards(1.0), winner_team=0, kind="kot", points=3,
                               kots=1, bonus=0, next_dealer=1)
        assert s["score"] == [1, 0]
    else:
        env = h.start(G, 3, variant="single_sar", scoring="kots")
        h.act(env, PASS, 0)
        h.act(env, D, 2)
        h.run_tricks(env, S07_TRICKS)
        s = h.expect_bazi_over(env, h.team_rewards(-3.0), winner_team=1, kind="gone_kot", points=4,
                               kots=3, bonus=0, next_dealer=0)
        assert s["score"] == [0, 3]
    assert s["target"] == 3  # CP-9.3: 3 kots in the kots column
