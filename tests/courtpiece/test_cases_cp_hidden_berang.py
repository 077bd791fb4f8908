"""Court Piece scenario cases, spec 8.4 (Chhupa Rang) and 8.5 (Be-Rang): CP-S17 .. CP-S24.

Written against the public surface of spec section 9 only.
"""
import courtpiece_cases as h

A, DK = h.DEAL_A, h.DEAL_DK
PASS, ASK, LEAD = h.PASS, h.ASK_REVEAL, h.LEAD_REVEAL


def _hide_kh():
    """chhupa_rang, Deal A, d=3; s0 hides KH (CP-7.1)."""
    env = h.start(A, 3, variant="chhupa_rang")
    h.act(env, "KH", 0)
    return env


def test_courtpiece_case_CP_S17():
    """CP-S17: hiding — the first chooser's first five or PASS; the face-down card is not in hand.

    Rules: CP-7.1 (hide one of the first five or pass once), CP-7.3 (face-down card not playable, 12
    in hand), CP-7.4(b) (LEAD_REVEAL for the hider on lead), CP-7.2 (no trump while face down),
    section 4 (HIDE mask; PLAY leading mask with 58).
    """
    env = h.start(A, 3, variant="chhupa_rang")
    s = h.ps(env)
    assert s["phase"] == "hide" and s["hand_sizes"] == [5, 5, 5, 5]
    assert s["hidden_owner"] is None and s["caller"] is None
    h.expect_legal(env, 0, "9C 3D 5H KH AH", [PASS])
    assert h.legal(env) == [7, 14, 29, 37, 38, 56]

    h.act(env, 37, 0)  # KH
    s = h.ps(env)
    assert s["hidden_owner"] == 0
    assert s["trump"] is None and s["shown_card"] is None
    assert s["caller"] == 0
    assert s["hand_sizes"] == [12, 13, 13, 13]
    assert "KH" not in h.hand(env, 0) and len(h.hand(env, 0)) == 12
    assert s["phase"] == "play" and s["leader"] == 0
    h.expect_legal(env, 0, "4C 6C 9C 2D 3D JD 5H 8H AH 2S 7S QS", [LEAD])


def test_courtpiece_case_CP_S18():
    """CP-S18: no trump before the showing — a heart discarded while the card lies face down has no
    trump power; a following player without the led suit may ask (57) but need not.

    Rules: CP-7.2 (no trump while face down), CP-7.4(a) (ASK_REVEAL offered to a player with no card
    of the led suit), CP-4.3, CP-4.4.
    """
    env = _hide_kh()
    h.act(env, "9C", 0)
    h.expect_legal(env, 1, A[1], [ASK])
    h.act(env, "2H", 1)
    h.expect_legal(env, 2, "2C 3C 5C 7C 8C TC JC QC KC AC")  # holds clubs: no 57
    h.act(env, "AC", 2)
    h.expect_legal(env, 3, A[3], [ASK])
    h.act(env, "QH", 3)
    s = h.ps(env)
    assert s["tricks"] == [{"leader": 0, "cards": [[0, "9C"], [1, "2H"], [2, "AC"], [3, "QH"]],
                            "winner": 2}]
    assert s["trump"] is None and s["hidden_owner"] == 0 and s["shown_card"] is None
    assert s["tricks_won"] == [1, 0]
    assert s["actor"] == 2


def test_courtpiece_case_CP_S19():
    """CP-S19: ask — the card is shown, the asker must play a trump; nobody after him has a duty.

    Rules: CP-7.4(a) (ask, card shown and joins the hider's hand; the asker acts again), CP-7.5
    (the asker must trump if he can; no duty for others), CP-7.6 (trump counts from the showing),
    CP-4.4; 9.3 (showing sets trump, shown_card, shown_at, hidden_owner None, hand_sizes +1).
    """
    env = _hide_kh()
    h.act(env, "9C", 0)
    h.act(env, ASK, 1)
    s = h.ps(env)
    assert s["trump"] == 2 and s["shown_card"] == "KH"
    assert s["shown_at"] == [1, 1]
    assert s["hidden_owner"] is None
    assert "KH" in h.hand(env, 0)
    assert s["hand_sizes"] == [12, 13, 13, 13]  # s0: 12 - 9C + KH
    assert s["current_trick"] == [[0, "9C"]]
    h.expect_legal(env, 1, "2H 4H 6H 9H")  # same seat acts again, must trump
    h.act(env, "2H", 1)
    h.expect_legal(env, 2, "2C 3C 5C 7C 8C TC JC QC KC AC")
    h.act(env, "AC", 2)
    h.expect_legal(env, 3, A[3])  # all 13, no duty, no 57 (nothing face down)
    h.act(env, "4D", 3)
    s = h.ps(env)
    assert s["tricks"] == [{"leader": 0, "cards": [[0, "9C"], [1, "2H"], [2, "AC"], [3, "4D"]],
                            "winner": 1}]
    assert s["actor"] == 1 and s["tricks_won"] == [0, 1]
    assert s["hand_sizes"] == [12, 12, 12, 12]


def test_courtpiece_case_CP_S20():
    """CP-S20: lead reveal — the hider shows the card on lead and must then lead a trump.

    Rules: CP-7.4(b) (lead reveal), CP-7.7 (must lead a trump), section 4 (mask right after a
    LEAD_REVEAL), CP-4.3 (s1 follows hearts).
    """
    env = _hide_kh()
    h.act(env, LEAD, 0)
    s = h.ps(env)
    assert s["trump"] == 2 and s["shown_card"] == "KH" and s["hidden_owner"] is None
    assert s["shown_at"] == [1, 0]
    assert "KH" in h.hand(env, 0) and s["hand_sizes"] == [13, 13, 13, 13]
    assert s["current_trick"] == []
    h.expect_legal(env, 0, "5H 8H KH AH")
    h.act(env, "KH", 0)
    h.expect_legal(env, 1, "2H 4H 6H 9H")


def test_courtpiece_case_CP_S21():
    """CP-S21: a low trump played after the showing beats a higher card of that suit discarded
    before it in the same trick.

    Rules: CP-7.6 and CP-4.5 (a trump-suit card counts as trump if played at/after the showing, or
    if it is of the led suit), CP-7.4(a), CP-7.5.
    """
    env = _hide_kh()
    h.act(env, "9C", 0)
    h.act(env, "9H", 1)  # discard, no ask
    h.act(env, "TC", 2)
    h.expect_legal(env, 3, A[3], [ASK])
    h.act(env, ASK, 3)
    s = h.ps(env)
    assert s["trump"] == 2 and s["shown_card"] == "KH" and s["shown_at"] == [1, 3]
    h.expect_legal(env, 3, "3H 7H JH QH")
    h.act(env, "3H", 3)
    s = h.ps(env)
    assert s["tricks"] == [{"leader": 0, "cards": [[0, "9C"], [1, "9H"], [2, "TC"], [3, "3H"]],
                            "winner": 3}]
    assert s["actor"] == 3 and s["tricks_won"] == [0, 1]


def test_courtpiece_case_CP_S22():
    """CP-S22: nobody hides — the dealer lays an unseen card of the first chooser's second packet
    face down; it is never shown during play; gone kot; the card is turned up at the end.

    Rules: CP-7.8 (unseen card, the first chooser counts as hider, caller None), CP-12.2 (hide
    timeout of the partner), CP-7.2 (no trump in force), CP-7.4(d) (shown at the end, result
    unchanged), CP-5.3, CP-9.1 (+4), CP-9.4; 9.3 (end showing: trump set, shown_at [tricks+1, 0]).
    """
    env = h.start(A, 3, variant="chhupa_rang", deal_extra={"turned": "4C"})
    h.act(env, PASS, 0)
    s = h.ps(env)
    assert s["phase"] == "hide" and s["passed"] is True
    h.expect_legal(env, 2, h.first_five(A, 2))  # the partner must hide: no PASS
    assert env.timeout() is None
    s = h.ps(env)
    assert s["hidden_owner"] == 0 and s["caller"] is None and s["trump"] is None
    # 3.3: the unseen card is hidden from everyone, so the public record must not name it
    # (`turned_card` is the CP-3.5 card only).
    assert s["turned_card"] is None and s["shown_card"] is None
    assert s["hand_sizes"] == [12, 13, 13, 13]
    assert "4C" not in h.hand(env, 0)
    assert s["phase"] == "play"
    h.expect_legal(env, 0, "6C 9C 2D 3D JD 5H 8H KH AH 2S 7S QS", [LEAD])
    tricks = """
    T1 s0: QS AS TH JS → s1     T2 s1: KS QD 9S 7S → s1     T3 s1: TS 6D 8S 2S → s1
    T4 s1: 5S AC 6S AH → s3     T5 s3: 4S KH 3S KC → s3     T6 s3: QH 8H 9H QC → s3
    T7 s3: JH 5H 6H JC → s3
    """

    def after(n, s):
        if n < 7:
            assert s["trump"] is None and s["hidden_owner"] == 0 and s["shown_card"] is None

    h.run_tricks(env, tricks, policy="high", after=after)
    s = h.expect_bazi_over(env, h.team_rewards(-4.0), winner_team=1, kind="gone_kot", points=4,
                           kots=3, bonus=0, next_dealer=0, decided_at_trick=7)
    assert s["tricks_won"] == [0, 7]
    assert s["shown_card"] == "4C" and s["trump"] == 0 and s["hidden_owner"] is None
    assert s["shown_at"] == [8, 0]
    assert "4C" in h.hand(env, 0)


def test_courtpiece_case_CP_S23():
    """CP-S23: Be-Rang — the first card played off-suit sets trump and counts as a trump in its own
    trick; trumping stays optional; the first leader's opponents win 7-6.

    Rules: CP-8.1 (no call, d+1 leads), CP-8.2 (setting card), CP-4.5 (the setting card and later
    cards of that suit in the trick count), CP-8.4 (trump team = first leader's team), CP-5.2,
    CP-9.1 (opponents_win +2), CP-9.4 (d+1 deals).
    """
    env = h.start(A, 3, variant="be_rang")
    s = h.ps(env)
    assert s["phase"] == "play" and s["trump"] is None and s["caller"] is None
    assert s["hand_sizes"] == [13, 13, 13, 13]
    h.expect_legal(env, 0, A[0])
    h.act(env, "9C", 0)
    h.expect_legal(env, 1, A[1])
    h.act(env, "7D", 1)
    s = h.ps(env)
    assert s["trump"] == 1 and s["trump_set_by"] == [1, "7D"]
    h.expect_legal(env, 2, "2C 3C 5C 7C 8C TC JC QC KC AC")
    h.act(env, "AC", 2)
    h.expect_legal(env, 3, A[3])  # trumping optional
    h.act(env, "4D", 3)
    s = h.ps(env)
    assert s["tricks"] == [{"leader": 0, "cards": [[0, "9C"], [1, "7D"], [2, "AC"], [3, "4D"]],
                            "winner": 1}]
    assert s["actor"] == 1
    tricks = """
    T2 s1: 8D 6D 5D 2D → s1     T3 s1: KD QD 9D 3D → s1     T4 s1: AD 2C TD JD → s1
    T5 s1: 2H TH 3H 5H → s2     T6 s2: 3C 7H 4C 4H → s0     T7 s0: 6C 6H 5C JH → s0
    T8 s0: 8H 9H 7C QH → s3     T9 s3: 4S 2S 3S 8C → s3     T10 s3: 6S 7S 5S TC → s0
    T11 s0: KH TS JC 8S → s0    T12 s0: AH KS QC 9S → s0    T13 s0: QS AS KC JS → s1
    """

    def after(n, s):
        assert s["trump"] == 1 and s["trump_set_by"] == [1, "7D"]

    h.run_tricks(env, tricks, policy="low", after=after)
    s = h.expect_bazi_over(env, h.team_rewards(-2.0), winner_team=1, kind="opponents_win", points=2,
                           kots=0, bonus=0, next_dealer=0, decided_at_trick=13)
    assert s["tricks_won"] == [6, 7]
    assert s["caller"] is None


def test_courtpiece_case_CP_S24():
    """CP-S24: Be-Rang kot with no trump ever set (everyone followed suit).

    Rules: CP-8.3 (no trump when nobody fails to follow), CP-8.4 (trump team = first leader's team),
    CP-5.3 (kot), CP-9.1 (+3), CP-9.4 (kot: d+2 deals).
    """
    env = h.start(DK, 3, variant="be_rang")
    tricks = """
    T1 s0: KS 8S AS 6S → s2     T2 s2: QS 5S JS 7S → s2     T3 s2: TS 4S 9S 3S → s2
    T4 s2: KH 8H AH 6H → s0     T5 s0: QH 3H TH 7H → s0     T6 s0: JH 2H 9H 5H → s0
    T7 s0: AD 5D KD 7D → s0
    """

    def after(n, s):
        assert s["trump"] is None and s["trump_set_by"] is None

    h.run_tricks(env, tricks, policy="high", after=after)
    s = h.expect_bazi_over(env, h.team_rewards(3.0), winner_team=0, kind="kot", points=3, kots=1,
                           bonus=0, next_dealer=1, decided_at_trick=7)
    assert s["tricks_won"] == [7, 0]
    assert s["trump"] is None
