"""Court Piece scenario cases, spec 8.3 (Double Sar): CP-S09 .. CP-S16.

Written against the public surface of spec section 9 only.
"""
import pytest

import courtpiece_cases as h

D_, E_, DK, DG = h.DEAL_D, h.DEAL_E, h.DEAL_DK, h.DEAL_DG
C, D, H, S, PASS = 52, 53, 54, 55, h.PASS


def _pile_checker(expected):
    """after(n, state) for run_tricks: expected[n] = (pile, run_holder, taken); None = not checked."""

    def after(n, s):
        if n not in expected:
            return
        pile, run, taken = expected[n]
        if pile is not None:
            assert s["pile"] == pile, f"after T{n}: pile {s['pile']}, expected {pile}"
        if run != "skip":
            assert s["run_holder"] == run, f"after T{n}: run_holder {s['run_holder']}, expected {run}"
        if taken is not None:
            assert s["taken"] == taken, f"after T{n}: taken {s['taken']}, expected {taken}"

    return after


def test_courtpiece_case_CP_S09():
    """CP-S09: piles — a take by the same player twice running, the partner does not count, a third
    win takes nothing, trick 13 takes the rest; the dealer's team wins on taken tricks.

    Rules: CP-6.2 (tricks go to the pile), CP-6.3 (run holder), CP-6.4 (take), CP-6.5 (trick 13),
    CP-6.6 (partner never counts; third win after a take takes nothing), CP-6.8 (only taken tricks
    count), CP-6.9 (end), CP-9.1 (opponents_win +2), CP-9.4 (d+1 deals), CP-3.2 (legal call).
    """
    env = h.start(D_, 3, variant="double_sar")
    s = h.ps(env)
    assert s["pile"] == [] and s["run_holder"] is None and s["taken"] == [0, 0]
    h.expect_legal(env, 0, "", [D, H, S, PASS])  # 3D TS 8H 8D JH: no club
    h.act(env, H, 0)
    tricks = """
    T1 s0: 7C 4C 2C 3C → s0   T2 s0: 3D QD 2D 4D → s1   T3 s1: JS 2S 4S TS → s1
    T4 s1: 6C TC 5C 9C → s2   T5 s2: 2H TH JH 4H → s0   T6 s0: 6D 3S KD 5D → s2
    T7 s2: 9H 7D 8H 5H → s2   T8 s2: 5S AS QS 6S → s3   T9 s3: 9D 8D QC 8C → s3
    T10 s3: 7S KH KS 8S → s0  T11 s0: JD KC 9S TD → s0  T12 s0: AH 6H QH AC → s0
    T13 s0: JC 7H 3H AD → s1
    """
    expected = {
        1: ([1], 0, [0, 0]),
        2: ([1, 2], 1, [0, 0]),
        3: ([], None, [0, 3]),
        4: ([4], 2, [0, 3]),
        5: ([4, 5], 0, [0, 3]),
        6: ([4, 5, 6], 2, [0, 3]),
        7: ([], None, [4, 3]),
        8: ([8], 3, [4, 3]),
        9: ([], None, [4, 5]),
        10: ([10], 0, [4, 5]),
        11: ([], None, [6, 5]),
        12: ([12], 0, [6, 5]),
        13: ([], "skip", [6, 7]),
    }

    def after(n, s):
        _pile_checker(expected)(n, s)
        if n < 13:
            assert s["phase"] == "play" and s["decided"] is False

    h.run_tricks(env, tricks, after=after)
    s = h.expect_bazi_over(env, h.team_rewards(-2.0), winner_team=1, kind="opponents_win", points=2,
                           kots=0, bonus=0, next_dealer=0, decided_at_trick=13)
    assert s["taken"] == [6, 7]
    assert s["tricks_won"] == [8, 5]  # tricks won as trick winner differ from taken tricks


def test_courtpiece_case_CP_S10():
    """CP-S10: one player wins tricks 1 and 2 and takes them; early end at 8-2 taken.

    Rules: CP-6.4, CP-6.6 (tricks 1 and 2 by one player are taken), CP-6.9 (end after a take when one
    team has 7+ and the other at least one), CP-13.1 (three cards stay in each hand), CP-9.1,
    CP-9.4 (trump team won: d deals again).
    """
    env = h.start(D_, 3, variant="double_sar")
    h.act(env, H, 0)
    tricks = """
    T1 s0: 7C 4C 2C 3C → s0     T2 s0: TS 3S 2S 4S → s0
    T3 s0: 3D QD 2D 4D → s1     T4 s1: QC 8C 5C 9C → s1
    T5 s1: 4H QH TH 8H → s2     T6 s2: KD 5D 6D 6C → s2
    T7 s2: 2H AS JH 5H → s0     T8 s0: QS JS 5S 7S → s0
    T9 s0: 8D 6H 9H 7D → s2     T10 s2: 8S 9D JC 6S → s2
    """
    expected = {
        1: ([1], 0, [0, 0]), 2: ([], None, [2, 0]),
        3: ([3], 1, [2, 0]), 4: ([], None, [2, 2]),
        5: ([5], 2, [2, 2]), 6: ([], None, [4, 2]),
        7: ([7], 0, [4, 2]), 8: ([], None, [6, 2]),
        9: ([9], 2, [6, 2]), 10: (None, "skip", [8, 2]),
    }
    h.run_tricks(env, tricks, after=_pile_checker(expected))
    s = h.expect_bazi_over(env, h.team_rewards(1.0), winner_team=0, kind="trump_win", points=1,
                           kots=0, bonus=0, next_dealer=3, decided_at_trick=10)
    assert s["taken"] == [8, 2]
    assert s["hand_sizes"] == [3, 3, 3, 3]


def test_courtpiece_case_CP_S11():
    """CP-S11: 7 (here 8) taken against 0 plays on; the bazi ends at the first take by the other team.

    Rules: CP-6.9 (a team at 7+ while the other has taken none plays on), CP-6.4, CP-9.1, CP-9.4.
    """
    env = h.start(D_, 3, variant="double_sar")
    h.act(env, H, 0)
    tricks = """
    T1 s0: 7C 4C 2C 3C → s0     T2 s0: TS 3S 2S 4S → s0
    T3 s0: 9C 6C TC 5C → s2     T4 s2: KD 4D 3D QD → s2
    T5 s2: 2D 5D 6D 6S → s0     T6 s0: JH 4H 2H TH → s0
    T7 s0: 8H 5H 3H 7D → s0     T8 s0: JD JS 5S 9D → s0
    T9 s0: 8D 6H 8C TD → s1     T10 s1: KS 8S 7S QS → s1
    """
    expected = {
        2: ([], None, [2, 0]), 4: ([], None, [4, 0]), 6: ([], None, [6, 0]),
        7: ([7], 0, [6, 0]), 8: ([], None, [8, 0]), 9: ([9], 1, [8, 0]),
        10: (None, "skip", [8, 2]),
    }

    def after(n, s):
        _pile_checker(expected)(n, s)
        if n == 8:  # 8 taken against 0: play goes on
            assert s["phase"] == "play" and s["decided"] is False and s["result"] is None
            assert s["actor"] == 0
            h.expect_terminated(env, False)

    h.run_tricks(env, tricks, after=after)
    s = h.expect_bazi_over(env, h.team_rewards(1.0), winner_team=0, kind="trump_win", points=1,
                           kots=0, bonus=0, next_dealer=3, decided_at_trick=10)
    assert s["taken"] == [8, 2]


def test_courtpiece_case_CP_S12():
    """CP-S12: Double Sar kot — one team takes all 13; play continues past 7-0.

    Rules: CP-6.9 (7+ against 0 plays on), CP-6.5 (trick 13 taken by its winner), CP-6.10 (kot by the
    trump team), CP-9.1 (+3 points, +1 kot), CP-9.4 (kot: d+2 deals).
    """
    env = h.start(DK, 3, variant="double_sar")
    h.act(env, C, 0)
    tricks = """
    T1 s0: JD 3D 8D 2D → s0     T2 s0: TC 2C 9C 5C → s0
    T3 s0: 9S 2S TS 4S → s2     T4 s2: JC 7C 8C 3C → s2
    T5 s2: 9H 4H JH 2H → s0     T6 s0: QD 5D 9D 4D → s0
    T7 s0: JS 3S QS 5S → s2     T8 s2: KH 5H QH 3H → s2
    T9 s2: QC 6D KC 4C → s0     T10 s0: AD 6H TD 7D → s0
    T11 s0: KS 7S AS 6S → s2    T12 s2: KD 7H AH 8S → s2
    T13 s2: TH 8H AC 6C → s0
    """
    expected = {2 * k: ([], None, [2 * k, 0]) for k in range(1, 7)}
    odd_winners = {1: 0, 3: 2, 5: 0, 7: 2, 9: 0, 11: 2}  # each starts a new run after a take
    expected.update({n: ([n], w, [n - 1, 0]) for n, w in odd_winners.items()})
    expected[13] = ([], "skip", [13, 0])

    def after(n, s):
        _pile_checker(expected)(n, s)
        if n in (8, 10, 12):
            assert s["phase"] == "play" and s["decided"] is False

    h.run_tricks(env, tricks, after=after)
    s = h.expect_bazi_over(env, h.team_rewards(3.0), winner_team=0, kind="kot", points=3, kots=1,
                           bonus=0, next_dealer=1, decided_at_trick=13)
    assert s["taken"] == [13, 0]


def test_courtpiece_case_CP_S13():
    """CP-S13: Double Sar gone kot — the dealing team takes all 13.

    Rules: CP-3.2 (6H 5C 6C 4S 2S: C, H, S), CP-6.4, CP-6.5, CP-6.10 (gone kot by the dealer's
    team, CP-2.2), CP-9.1 (+4 points, +3 kots), CP-9.4 (d+1 deals).
    """
    env = h.start(DG, 3, variant="double_sar")
    h.expect_legal(env, 0, "", [C, H, S, PASS])
    h.act(env, C, 0)
    tricks = """
    T1 s0: 3C 9C 2C 8C → s1     T2 s1: TH 2H 9H 6H → s1
    T3 s1: 8D 3D JD 2D → s3     T4 s3: JC 5C TC 4C → s3
    T5 s3: 9S 2S JS 5S → s1     T6 s1: KS 6S TS 3S → s1
    T7 s1: 9D 4D AD 5D → s3     T8 s3: QC 6C TD 7C → s3
    T9 s3: JH 7H QH 3H → s1     T10 s1: QD 6D AH 4S → s1
    T11 s1: KH 4H KC 8H → s3    T12 s3: AC 7S KD 5H → s3
    T13 s3: QS 8S AS 7D → s1
    """
    expected = {2 * k: ([], None, [0, 2 * k]) for k in range(1, 7)}
    odd_winners = {1: 1, 3: 3, 5: 1, 7: 3, 9: 1, 11: 3}
    expected.update({n: ([n], w, [0, n - 1]) for n, w in odd_winners.items()})
    expected[13] = ([], "skip", [0, 13])
    h.run_tricks(env, tricks, after=_pile_checker(expected))
    s = h.expect_bazi_over(env, h.team_rewards(-4.0), winner_team=1, kind="gone_kot", points=4,
                           kots=3, bonus=0, next_dealer=0, decided_at_trick=13)
    assert s["taken"] == [0, 13]


@pytest.mark.parametrize("ace_on_ace", [True, False])
def test_courtpiece_case_CP_S14(ace_on_ace):
    """CP-S14: house option `ace_on_ace` — tricks t-1 and t both won with aces: no take (and the run
    goes on); with the option off s3 takes the two tricks.

    Rules: CP-6.7 (ace_on_ace; a blocked take leaves the winner run holder), CP-6.4.
    """
    env = h.start(D_, 3, variant="double_sar", ace_on_ace=ace_on_ace)
    h.act(env, H, 0)
    h.run_tricks(env, "T1 s0: 7C 4C 2C AC → s3   T2 s3: AS TS 3S 2S → s3")
    s = h.ps(env)
    if ace_on_ace:
        assert s["pile"] == [1, 2] and s["run_holder"] == 3 and s["taken"] == [0, 0]
    else:
        assert s["pile"] == [] and s["run_holder"] is None and s["taken"] == [0, 2]
    assert s["actor"] == 3 and s["phase"] == "play"


@pytest.mark.parametrize("trump_ace_blocks", [True, False])
def test_courtpiece_case_CP_S15(trump_ace_blocks):
    """CP-S15: house option `trump_ace_blocks` — the second win is by the ace of trump: no take; with
    the option off s0 takes the two tricks.

    Rules: CP-6.7 (trump_ace_blocks; a blocked take leaves the winner run holder), CP-6.4.
    """
    env = h.start(D_, 3, variant="double_sar", trump_ace_blocks=trump_ace_blocks)
    h.act(env, H, 0)
    h.run_tricks(env, "T1 s0: 7C 4C 2C 3C → s0   T2 s0: AH 4H 2H TH → s0")
    s = h.ps(env)
    if trump_ace_blocks:
        assert s["pile"] == [1, 2] and s["run_holder"] == 0 and s["taken"] == [0, 0]
    else:
        assert s["pile"] == [] and s["run_holder"] is None and s["taken"] == [2, 0]
    assert s["actor"] == 0 and s["phase"] == "play"


def test_courtpiece_case_CP_S16():
    """CP-S16: house option `closed_11_12` — no take at trick 11 or 12; trick 13 always takes
    (here all 13 tricks: gone kot).

    Rules: CP-6.7 (closed_11_12; the blocked winner stays run holder), CP-6.5 (trick 13 always
    takes, house options do not apply), CP-6.10, CP-9.1, CP-9.4.
    """
    env = h.start(E_, 3, variant="double_sar", closed_11_12=True)
    h.act(env, H, 0)
    tricks = """
    T1 s0: 9D 2D 6D 3D → s0     T2 s0: 2C 8C 4C 7C → s1     T3 s1: 6C 9C 2S 3C → s2
    T4 s2: 4H JH 6H 2H → s3     T5 s3: 4D TD 8D 7D → s0     T6 s0: TC 3H 5C 5S → s1
    T7 s1: 3S JS 6S 7S → s2     T8 s2: JD QH 5D 4S → s3     T9 s3: TS 7H 8S JC → s0
    T10 s0: QC 9S TH QS → s2    T11 s2: AH KH KC 5H → s2    T12 s2: QD KS AD 8H → s1
    T13 s1: 9H KD AS AC → s1
    """
    runs = {1: 0, 2: 1, 3: 2, 4: 3, 5: 0, 6: 1, 7: 2, 8: 3, 9: 0, 10: 2, 11: 2, 12: 1}
    expected = {n: (list(range(1, n + 1)), runs[n], [0, 0]) for n in range(1, 13)}
    expected[13] = ([], "skip", [0, 13])

    def after(n, s):
        _pile_checker(expected)(n, s)
        if n < 13:
            assert s["phase"] == "play" and s["decided"] is False

    h.run_tricks(env, tricks, after=after)
    s = h.expect_bazi_over(env, h.team_rewards(-4.0), winner_team=1, kind="gone_kot", points=4,
                           kots=3, bonus=0, next_dealer=0, decided_at_trick=13)
    assert s["taken"] == [0, 13]
    assert s["tricks_won"] == [7, 6]
