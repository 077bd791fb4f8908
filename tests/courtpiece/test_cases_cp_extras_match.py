"""Court Piece scenario cases, spec 8.7 (Rung Royal extras) and 8.8 (match episodes, play-out,
timeouts, bad input): CP-S30 .. CP-S39.

Written against the public surface of spec section 9 only.
"""
import copy

import numpy as np
import pytest

import courtpiece_cases as h

A, K = h.DEAL_A, h.DEAL_K
C, D, H, S = 52, 53, 54, 55
PASS, LEAD, CHANGE = h.PASS, h.LEAD_REVEAL, h.CHANGE_CARDS

S04_TRICKS = """
T1 s0: 4C 7D 2C 4D → s0     T2 s0: 6C 8D 3C 5D → s0     T3 s0: 9C KD 5C 9D → s0
T4 s0: 2D AD 6D TD → s1     T5 s1: 2H TH 3H 5H → s2     T6 s2: 7C 7H 3D 4H → s3
T7 s3: JH 8H 6H 8C → s3     T8 s3: QH KH 9H TC → s0     T9 s0: JD 3S QD 4S → s2
T10 s2: JC 6S AH 5S → s0
"""
S06_TRICKS = """
T1 s0: 9C 2C 8C 4C → s0     T2 s0: 8D 2D 9D 3D → s2     T3 s2: JS 5S 9S 2S → s2
T4 s2: 9H 2H TH 7H → s0     T5 s0: TS 3S TD 8S → s0     T6 s0: TC 3C QC 5C → s2
T7 s2: JD 4D QD 7D → s0
"""


def test_courtpiece_case_CP_S30():
    """CP-S30: change trump in Single Sar — offered to the caller after all 13 cards; any other suit,
    even one not in his first five.

    Rules: CP-10.2 (one decision, keep or any suit other than the current trump; CP-3.2 does not
    bind it; the new suit is public), section 4 (CHANGE_TRUMP mask).
    """
    env = h.start(A, 3, variant="single_sar", change_trump=True)
    h.act(env, H, 0)
    s = h.ps(env)
    assert s["phase"] == "change_trump"
    assert s["trump"] == 2 and s["caller"] == 0 and s["trump_changed"] is False
    assert s["hand_sizes"] == [13, 13, 13, 13]  # packets dealt before the decision
    for a in h.AGENTS:
        assert env.infos[a]["phase"] == "change_trump"
    h.expect_legal(env, 0, "", [C, D, S, PASS])
    h.act(env, C, 0)
    s = h.ps(env)
    assert s["trump"] == 0 and s["trump_changed"] is True and s["caller"] == 0
    assert s["phase"] == "play" and s["leader"] == 0
    h.expect_legal(env, 0, A[0])


def test_courtpiece_case_CP_S31():
    """CP-S31: change trump in Chhupa Rang — swap the face-down card for another of the first five;
    the old one returns to the hand.

    Rules: CP-10.2 (chhupa_rang swap; mask = first five still in hand, plus PASS), CP-7.3, CP-7.4(b).
    """
    env = h.start(A, 3, variant="chhupa_rang", change_trump=True)
    h.act(env, "KH", 0)
    s = h.ps(env)
    assert s["phase"] == "change_trump" and s["hidden_owner"] == 0 and s["trump"] is None
    h.expect_legal(env, 0, "9C 3D 5H AH", [PASS])
    assert h.legal(env) == [7, 14, 29, 38, 56]
    h.act(env, 14, 0)  # 3D
    s = h.ps(env)
    assert s["hidden_owner"] == 0 and s["trump"] is None and s["trump_changed"] is True
    assert s["caller"] == 0
    assert "KH" in h.hand(env, 0) and "3D" not in h.hand(env, 0)
    assert s["hand_sizes"] == [12, 13, 13, 13]
    assert s["phase"] == "play"
    h.expect_legal(env, 0, "4C 6C 9C 2D JD 5H 8H KH AH 2S 7S QS", [LEAD])


def test_courtpiece_case_CP_S32():
    """CP-S32: change cards — the first chooser takes five new cards (the injected replacement deal);
    one change per seat; then the call uses the new first five.

    Rules: CP-10.1 (change-cards round from d+1, limit 1, other first fives untouched), section 7
    ("change_cards" injection), CP-3.2 (call from the new first five AD KD 8D 5S TS: D, S).
    """
    new0 = "AD KD 8D 5S TS QS 7S 4C 2D JD 8H 6C 2S"
    new1 = "AS KS 9H 7D 4H AH KH 5H 9C 3D 3S 6H 2H"
    env = h.start(A, 3, variant="single_sar", change_cards=True,
                  deal_extra={"change_cards": [{"seat": 0, "hands": [new0, new1, A[2], A[3]]}]})
    s = h.ps(env)
    assert s["phase"] == "change_cards" and s["hand_sizes"] == [5, 5, 5, 5]
    assert s["change_cards_used"] == [0, 0, 0, 0]
    h.expect_legal(env, 0, "", [PASS, CHANGE])
    h.act(env, CHANGE, 0)
    s = h.ps(env)
    assert h.hand(env, 0) == h.sorted_texts("AD KD 8D 5S TS")
    for seat in (1, 2, 3):
        assert h.hand(env, seat) == h.sorted_texts(h.first_five(A, seat))
    assert s["change_cards_used"] == [1, 0, 0, 0]
    assert s["phase"] == "change_cards"
    h.expect_legal(env, 1, "", [PASS, CHANGE])  # limit 1 reached for s0
    h.act(env, PASS, 1)
    h.expect_legal(env, 2, "", [PASS, CHANGE])
    h.act(env, PASS, 2)
    h.expect_legal(env, 3, "", [PASS, CHANGE])
    h.act(env, PASS, 3)
    s = h.ps(env)
    assert s["phase"] == "call" and s["change_cards_used"] == [1, 0, 0, 0]
    h.expect_legal(env, 0, "", [D, S, PASS])
    h.act(env, S, 0)
    s = h.ps(env)
    assert s["trump"] == 3 and s["hand_sizes"] == [13, 13, 13, 13]
    assert h.hand(env, 0) == h.sorted_texts(new0)
    assert h.hand(env, 1) == h.sorted_texts(new1)
    assert h.hand(env, 2) == h.sorted_texts(A[2])
    assert h.hand(env, 3) == h.sorted_texts(A[3])


def test_courtpiece_case_CP_S33():
    """CP-S33: the draw with a tie — only the tied seats redraw; the winner is the first chooser and
    the dealer sits at his left.

    Rules: CP-2.3 (draw, ranks only, tie redraw in ascending seat order; dealer = winner - 1),
    section 7 ("draw" injection), CP-2.1, CP-3.2 (s1's first five AS KS 9H 7D 4H: D, H, S).
    """
    env = h.new_env(variant="single_sar")
    env.reset(options={"deal": {"hands": list(A), "draw": ["KS", "AD", "AH", "3C", "7D", "2S"]}})
    s = h.ps(env)
    assert s["first_chooser"] == 1 and s["dealer"] == 0
    assert s["phase"] == "call"
    h.expect_legal(env, 1, "", [D, H, S, PASS])
    assert h.hand(env, 1) == h.sorted_texts(h.first_five(A, 1))


@pytest.mark.parametrize("reward", ["score", "win_loss"])
def test_courtpiece_case_CP_S34(reward):
    """CP-S34: the seventh bazi won in a row pays the streak bonus, which reaches the target; the
    match ends.

    Rules: CP-9.2 (streak bonus +2 points at count 7, then reset), CP-9.3 (target 10), section 5
    (match episode; reward="score": bonus included; "win_loss": +-1 at the match end), 9.4
    (`bonus`, `match_winner`).
    """
    env = h.start(A, 3, variant="single_sar", episode="match", reward=reward,
                  options_extra={"match_state": {"score": [8, 3], "streak": [0, 6]}})
    s = h.ps(env)
    assert s["score"] == [8, 3] and s["streak"] == [0, 6] and s["target"] == 10
    assert s["bazi_index"] == 0
    h.act(env, H, 0)

    def after(n, s):
        if n < 10:
            h.expect_terminated(env, False)

    h.run_tricks(env, S04_TRICKS, policy="low", after=after)
    team0 = 3.0 if reward == "score" else 1.0
    s = h.expect_bazi_over(env, h.team_rewards(team0), winner_team=0, kind="trump_win", points=1,
                           kots=0, bonus=2, next_dealer=3, match_winner=0, bazi_index=0)
    assert s["score"] == [11, 3]
    assert s["streak"] == [None, 0]


@pytest.mark.parametrize("scoring,streak,score,bonus,streak_after", [
    ("points", [0, 5], [9, 3], 0, [0, 6]),     # the sixth win in a row pays nothing more
    ("kots", [0, 6], [2, 0], 1, [None, 0]),    # the seventh pays 1 kot in the kots column
])
def test_courtpiece_case_CP_S34_streak_boundary_and_exact_target(scoring, streak, score, bonus, streak_after):
    """CP-S34's bazi at the edges the case leaves open: only the seventh win in a row earns the bonus
    (CP-9.2: 2 points, or 1 kot with scoring="kots"), and a gain that lands exactly on the target ends
    the match (CP-9.3 "reach": 10 points, 3 kots). Team 0 (the trump team, dealer 3) wins S04's bazi
    without a kot: 1 point / 0 kots, the same dealer next (CP-9.4)."""
    env = h.start(A, 3, variant="single_sar", episode="match", scoring=scoring,
                  options_extra={"match_state": {"score": score, "streak": streak}})
    assert h.ps(env)["target"] == (10 if scoring == "points" else 3)
    h.act(env, H, 0)
    h.run_tricks(env, S04_TRICKS, policy="low")
    gain = (1 if scoring == "points" else 0) + bonus
    assert score[0] + gain == h.ps(env)["target"]
    s = h.expect_bazi_over(env, h.team_rewards(float(gain)), winner_team=0, kind="trump_win",
                           points=1, kots=0, bonus=bonus, next_dealer=3, match_winner=0, bazi_index=0)
    assert s["score"] == [score[0] + gain, score[1]]
    assert s["streak"] == streak_after


def test_courtpiece_case_CP_S35():
    """CP-S35: a kot resets the streak without a bonus; the next bazi is dealt at once by the
    rotated dealer.

    Rules: CP-9.2 (kot: streak := (none, 0), no bonus), CP-9.4 (kot by the trump team: d+2 deals),
    section 5 (match episode: reward per bazi, nobody terminated), section 7 ("deals"), 9.2/9.3
    (`bazi_index`, the next bazi's first phase at once), 9.4 (infos result).
    """
    env = h.new_env(variant="single_sar", episode="match")
    env.reset(options={"deals": [{"hands": list(K), "dealer": 3}, {"hands": list(A)}],
                       "match_state": {"score": [0, 0], "streak": [0, 6]}})
    h.act(env, S, 0)
    h.run_tricks(env, S06_TRICKS)
    h.expect_rewards(env, h.team_rewards(3.0))
    h.expect_terminated(env, False)
    s = h.ps(env)
    assert s["score"] == [3, 0]
    assert s["streak"] == [None, 0]
    assert s["bazi_index"] == 1
    assert s["dealer"] == 1 and s["first_chooser"] == 2
    assert s["phase"] == "call" and s["result"] is None and s["decided"] is False
    assert s["tricks"] == [] and s["trick_number"] == 0 and s["hand_sizes"] == [5, 5, 5, 5]
    h.expect_legal(env, 2, "", [C, D, H, PASS])
    assert h.hand(env, 2) == h.sorted_texts(h.first_five(A, 2))
    for a in h.AGENTS:
        assert env.infos[a]["phase"] == "call"
        h.expect_result(env.infos[a]["result"], bazi_index=0, winner_team=0, kind="kot", points=3,
                        kots=1, bonus=0, next_dealer=1, decided_at_trick=7, match_winner=None)


def test_courtpiece_case_CP_S36():
    """CP-S36: play-out — the result is frozen when the bazi is decided (after T10); play goes on to
    trick 13 and the rewards come at the step that ends T13.

    Rules: CP-13.2 (play_out; `decided`, result frozen), CP-13.1, section 5 (rewards at the step
    completing trick 13), 9.3 (`score` changes at that step).
    """
    env = h.start(A, 3, variant="single_sar", play_out=True)
    h.act(env, H, 0)
    frozen = {}

    def after(n, s):
        if n < 10:
            assert s["decided"] is False and s["result"] is None
        if n == 10:
            assert s["decided"] is True
            h.expect_result(s["result"], winner_team=0, kind="trump_win", points=1, kots=0, bonus=0,
                            next_dealer=3, decided_at_trick=10)
            frozen["result"] = copy.deepcopy(s["result"])
            assert s["tricks_won"] == [7, 3]
        if n < 13:
            assert s["phase"] == "play"
            h.expect_rewards(env, [0.0] * 4)
            h.expect_terminated(env, False)
            assert s["score"] == [0, 0]
        if n > 10:
            assert s["result"] == frozen["result"]

    h.run_tricks(env, S04_TRICKS + """
    T11 s0: 2S TS QC 8S → s1    T12 s1: KS KC 9S 7S → s1    T13 s1: AS AC JS QS → s1
    """, policy="low", after=after)
    s = h.expect_bazi_over(env, h.team_rewards(1.0), winner_team=0, kind="trump_win", points=1,
                           kots=0, bonus=0, next_dealer=3, decided_at_trick=10)
    assert s["result"] == frozen["result"]
    assert s["tricks_won"] == [7, 6] and s["trick_number"] == 13
    assert s["score"] == [1, 0]


def test_courtpiece_case_CP_S37():
    """CP-S37: Band timeout — the injected card (KH) goes face down for the first chooser.

    Rules: CP-11.5 (Band hide, random card on timeout), CP-12.2 (Band hide row), CP-12.3 and section
    7 ("band_timeout"), CP-7.3, CP-11.6(b) (58 for the hider on lead).
    """
    env = h.start(A, 3, variant="mendi_coat", mendi_trump="band", deal_extra={"band_timeout": "KH"})
    assert h.ps(env)["phase"] == "band_hide"
    assert env.timeout() is None
    s = h.ps(env)
    assert s["hidden_owner"] == 0 and s["trump"] is None
    assert s["shown_card"] is None and s["turned_card"] is None  # only s0 knows the card (3.2)
    assert "KH" not in h.hand(env, 0) and s["hand_sizes"] == [12, 13, 13, 13]
    assert s["phase"] == "play"
    h.expect_legal(env, 0, "4C 6C 9C 2D 3D JD 5H 8H AH 2S 7S QS", [LEAD])


def _snapshot(env):
    return {
        "state": copy.deepcopy(h.ps(env)),
        "agent": env.agent_selection,
        "legal": h.legal(env),
        "rewards": dict(env.rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": {a: {k: (np.asarray(v).tolist() if k == "action_mask" else copy.deepcopy(v))
                      for k, v in env.infos[a].items()} for a in h.AGENTS},
        "hands": [h.hand(env, seat) for seat in range(4)],
    }


def test_courtpiece_case_CP_S38():
    """CP-S38: an illegal action raises ValueError naming it and changes nothing; an out-of-range id
    too; then the legal card is accepted.

    Rules: section 4 ("an illegal id raises ValueError and changes nothing"), CP-4.3 (s2 must follow
    clubs), 9.6 (errors leave public_state, masks, agent_selection, rewards, terminations, infos).
    """
    env = h.start(A, 3, variant="single_sar")
    h.act(env, H, 0)
    h.play(env, "9C 2H", 0)
    before = _snapshot(env)
    assert before["agent"] == "player_2"
    assert before["state"]["current_trick"] == [[0, "9C"], [1, "2H"]]
    with pytest.raises(ValueError) as err:
        env.step(34)  # TH: s2 holds clubs
    assert "34" in str(err.value) or "TH" in str(err.value), f"message does not name TH: {err.value}"
    assert _snapshot(env) == before
    with pytest.raises(ValueError):
        env.step(60)
    assert _snapshot(env) == before
    with pytest.raises(ValueError):
        env.step(None)  # 9.6: step(None) while the selected agent is live
    assert _snapshot(env) == before
    h.expect_legal(env, 2, "2C 3C 5C 7C 8C TC JC QC KC AC")
    env.step(12)  # AC
    s = h.ps(env)
    assert s["current_trick"] == [[0, "9C"], [1, "2H"], [2, "AC"]]
    assert s["actor"] == 3


def test_courtpiece_case_CP_S39():
    """CP-S39: Band — after a lead reveal the first player of the bazi without the led suit must
    trump; the duty is then used up.

    Rules: CP-11.6(b) (lead reveal, lead a trump), CP-11.6(d) (duty of the first player off-suit,
    also when the card was shown by a lead reveal), section 4 (Band duty row), CP-4.3, CP-4.4.
    """
    env = h.start(A, 3, variant="mendi_coat", mendi_trump="band")
    h.act(env, "5H", 0)
    h.act(env, LEAD, 0)
    s = h.ps(env)
    assert s["trump"] == 2 and s["shown_card"] == "5H" and s["hidden_owner"] is None
    h.expect_legal(env, 0, "5H 8H KH AH")
    h.act(env, "AH", 0)
    h.expect_legal(env, 1, "2H 4H 6H 9H")
    h.play(env, "2H TH 3H", 1)
    s = h.ps(env)
    assert s["tricks"] == [{"leader": 0, "cards": [[0, "AH"], [1, "2H"], [2, "TH"], [3, "3H"]],
                            "winner": 0}]
    assert s["actor"] == 0
    h.act(env, "9C", 0)
    h.expect_legal(env, 1, "4H 6H 9H")  # first player of the bazi without the led suit
    h.act(env, "4H", 1)
    h.act(env, "AC", 2)
    h.expect_legal(env, 3, "4D 5D 9D TD 7H JH QH 4S 6S 8S 9S JS")  # duty used up: all 12
    h.act(env, "4D", 3)
    s = h.ps(env)
    assert s["tricks"][1] == {"leader": 0, "cards": [[0, "9C"], [1, "4H"], [2, "AC"], [3, "4D"]],
                              "winner": 1}
    assert s["actor"] == 1 and s["tricks_won"] == [1, 1]
