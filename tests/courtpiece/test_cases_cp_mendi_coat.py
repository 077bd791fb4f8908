"""Court Piece scenario cases, spec 8.6 (Mendi Coat): CP-S25 .. CP-S29.

Written against the public surface of spec section 9 only.
"""
import courtpiece_cases as h

A, W = h.DEAL_A, h.DEAL_W
LEAD = h.LEAD_REVEAL


def _not_decided_before_13(n, s):
    # 9.3: in mendi_coat `decided` becomes true only after trick 13 (CP-11.2).
    if n < 13:
        assert s["phase"] == "play" and s["decided"] is False and s["result"] is None, (
            f"after T{n}: mendi_coat must play all 13 tricks undecided")


def _band_hide_5h():
    env = h.start(A, 3, variant="mendi_coat", mendi_trump="band")
    h.act(env, "5H", 0)
    return env


def test_courtpiece_case_CP_S25():
    """CP-S25: Katte — the first off-suit card (7D) sets trump; all 13 tricks are played; tens split
    2-2 and team 1 wins on tricks.

    Rules: CP-11.1 (no calling, d+1 leads), CP-11.2 (13 tricks always), CP-11.4 / CP-8.2 (Katte
    trump), CP-11.8 (2-2: 7+ tricks wins), CP-11.9 (split_win +1), CP-11.10 (dealer's team won: d+1).
    """
    env = h.start(A, 3, variant="mendi_coat")
    s = h.ps(env)
    assert s["phase"] == "play" and s["trump"] is None and s["caller"] is None
    h.expect_legal(env, 0, A[0])
    tricks = """
    T1 s0: 4C 7D 2C 4D → s1     T2 s1: 8D 6D 5D 2D → s1     T3 s1: KD QD 9D 3D → s1
    T4 s1: AD 3C TD JD → s1     T5 s1: 2H TH 3H 5H → s2     T6 s2: 5C 7H 6C 4H → s0
    T7 s0: 9C 6H 7C JH → s0     T8 s0: 8H 9H 8C QH → s3     T9 s3: 4S 2S 3S TC → s3
    T10 s3: 6S 7S 5S JC → s0    T11 s0: KH TS QC 8S → s0    T12 s0: AH KS KC 9S → s0
    T13 s0: QS AS AC JS → s1
    """

    def after(n, s):
        _not_decided_before_13(n, s)
        assert s["trump"] == 1 and s["trump_set_by"] == [1, "7D"]

    h.run_tricks(env, tricks, policy="low", after=after)
    s = h.expect_bazi_over(env, h.team_rewards(-1.0), winner_team=1, kind="split_win", points=1,
                           kots=0, bonus=0, next_dealer=0, decided_at_trick=13)
    assert s["tens"] == [2, 2] and s["tricks_won"] == [6, 7]
    assert s["hand_sizes"] == [0, 0, 0, 0]


def test_courtpiece_case_CP_S26():
    """CP-S26: Band — automatic showing when the first follower lacks the led suit, his trump duty,
    nobody else's; Mendi Coat (all four tens) for team 0.

    Rules: CP-11.5 (d+1 must hide one of his first five, no PASS), CP-7.3 (face-down card not in
    hand), CP-11.6(a) (automatic showing before the player acts), CP-11.6(d) (first player off-suit
    must trump), CP-11.8, CP-11.9 (mendi_coat +2), CP-11.10 (dealer's team lost but won tricks: d).
    """
    env = h.start(A, 3, variant="mendi_coat", mendi_trump="band")
    s = h.ps(env)
    assert s["phase"] == "band_hide" and s["hand_sizes"] == [5, 5, 5, 5]
    h.expect_legal(env, 0, "9C 3D 5H KH AH")
    h.act(env, 29, 0)  # 5H
    s = h.ps(env)
    assert s["phase"] == "play" and s["hidden_owner"] == 0 and s["trump"] is None
    assert s["caller"] is None  # always None in mendi_coat (9.3)
    assert s["hand_sizes"] == [12, 13, 13, 13]
    h.expect_legal(env, 0, "4C 6C 9C 2D 3D JD 8H KH AH 2S 7S QS", [LEAD])

    h.act(env, "9C", 0)
    s = h.ps(env)  # s1 has no clubs: 5H turned up before he acts
    assert s["trump"] == 2 and s["shown_card"] == "5H" and s["hidden_owner"] is None
    assert s["shown_at"] == [1, 1]
    assert "5H" in h.hand(env, 0)
    h.expect_legal(env, 1, "2H 4H 6H 9H")
    h.act(env, "2H", 1)
    h.act(env, "AC", 2)
    h.expect_legal(env, 3, A[3])  # no duty for him
    h.act(env, "QH", 3)
    s = h.ps(env)
    assert s["tricks"] == [{"leader": 0, "cards": [[0, "9C"], [1, "2H"], [2, "AC"], [3, "QH"]],
                            "winner": 3}]
    assert s["actor"] == 3
    tricks = """
    T2 s3: 4D 2D 7D 6D → s1     T3 s1: 8D QD 5D 3D → s2     T4 s2: 2C 9D 4C KD → s0
    T5 s0: 6C AD 3C TD → s0     T6 s0: JD 4H 5C 3H → s1     T7 s1: 6H TH 7H 5H → s2
    T8 s2: 7C JH 8H 9H → s3     T9 s3: 4S 2S 3S 8C → s3     T10 s3: 6S 7S 5S TC → s0
    T11 s0: KH TS JC 8S → s0    T12 s0: AH KS QC 9S → s0    T13 s0: QS AS KC JS → s1
    """
    h.run_tricks(env, tricks, policy="low", after=_not_decided_before_13)
    s = h.expect_bazi_over(env, h.team_rewards(2.0), winner_team=0, kind="mendi_coat", points=2,
                           kots=0, bonus=0, next_dealer=3, decided_at_trick=13)
    assert s["tens"] == [4, 0] and s["tricks_won"] == [7, 6]


def test_courtpiece_case_CP_S27():
    """CP-S27: Band — the hider's lead reveal; he must then lead a trump.

    Rules: CP-11.6(b) (lead reveal, must lead a trump), section 4 (mask after LEAD_REVEAL), CP-4.3.
    """
    env = _band_hide_5h()
    h.act(env, LEAD, 0)
    s = h.ps(env)
    assert s["trump"] == 2 and s["shown_card"] == "5H" and s["hidden_owner"] is None
    assert s["shown_at"] == [1, 0]
    h.expect_legal(env, 0, "5H 8H KH AH")
    h.act(env, "5H", 0)
    h.expect_legal(env, 1, "2H 4H 6H 9H")


def test_courtpiece_case_CP_S28():
    """CP-S28: tens beat tricks — three tens win the bazi for the team with 6 tricks.

    Rules: CP-11.6(a)/(d) (in T1, 5H turned up when s1 cannot follow; he must trump), CP-11.8
    (3 tens win whatever the tricks), CP-11.9 (mendi +1), CP-11.10 (d deals again).
    """
    env = _band_hide_5h()
    assert h.choose("low", h.legal(env)) == h.cid("4C")  # P_LOW from trick 1 (spec 8.1)
    h.act(env, "4C", 0)
    s = h.ps(env)
    assert s["trump"] == 2 and s["shown_card"] == "5H"
    h.expect_legal(env, 1, "2H 4H 6H 9H")
    for seat, card in ((1, "2H"), (2, "2C"), (3, "4D")):
        assert h.choose("low", h.legal(env)) == h.cid(card), f"T1 s{seat}: P_LOW is not {card}"
        h.act(env, card, seat)
    s = h.ps(env)
    assert s["tricks"] == [{"leader": 0, "cards": [[0, "4C"], [1, "2H"], [2, "2C"], [3, "4D"]],
                            "winner": 1}]
    tricks = """
    T2 s1: 7D 6D 5D 2D → s1     T3 s1: 8D QD 9D 3D → s2
    T4 s2: 3C TD 6C KD → s0     T5 s0: 9C AD 5C 3H → s3     T6 s3: 7H 5H 4H TH → s2
    T7 s2: 7C JH JD 6H → s3     T8 s3: QH 8H 9H 8C → s3     T9 s3: 4S 2S 3S TC → s3
    T10 s3: 6S 7S 5S JC → s0    T11 s0: KH TS QC 8S → s0    T12 s0: AH KS KC 9S → s0
    T13 s0: QS AS AC JS → s1
    """
    h.run_tricks(env, tricks, policy="low", after=_not_decided_before_13)
    s = h.expect_bazi_over(env, h.team_rewards(1.0), winner_team=0, kind="mendi", points=1, kots=0,
                           bonus=0, next_dealer=3, decided_at_trick=13)
    assert s["tens"] == [3, 1] and s["tricks_won"] == [6, 7]


def test_courtpiece_case_CP_S29():
    """CP-S29: whitewash — all 13 tricks to one team; the dealer's partner deals next.

    Rules: CP-11.4 / CP-8.2 (s2's TD sets trump in T4), CP-11.8, CP-11.9 (whitewash +3, the
    highest row only), CP-11.10 (dealer's team whitewashed: d+2 deals).
    """
    env = h.start(W, 3, variant="mendi_coat")
    tricks = """
    T1 s0: 8C 2C JC 3C → s2     T2 s2: AC 4C 9C 6C → s2     T3 s2: 8D 2D 9D 3D → s0
    T4 s0: TC 7C TD 5C → s2     T5 s2: JD 5D AD 4D → s0     T6 s0: QC 6D QD 7D → s2
    T7 s2: KD 3H KC 2H → s2     T8 s2: 9H 5H TH 4H → s0     T9 s0: KH 6H JH 8H → s0
    T10 s0: AH 7H QH 2S → s0    T11 s0: 9S 4S JS 3S → s2    T12 s2: KS 5S TS 6S → s2
    T13 s2: AS 8S QS 7S → s2
    """

    def after(n, s):
        _not_decided_before_13(n, s)
        if n < 4:
            assert s["trump"] is None and s["trump_set_by"] is None
        else:
            assert s["trump"] == 1 and s["trump_set_by"] == [2, "TD"]

    h.run_tricks(env, tricks, policy="low", after=after)
    s = h.expect_bazi_over(env, h.team_rewards(3.0), winner_team=0, kind="whitewash", points=3,
                           kots=0, bonus=0, next_dealer=1, decided_at_trick=13)
    assert s["tricks_won"] == [13, 0] and s["tens"] == [4, 0]
