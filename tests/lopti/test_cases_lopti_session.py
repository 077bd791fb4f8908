"""LOPTI scenario cases 8.29 and 8.34-8.38: the session layer (LO-10).

Session positions are §7.2 states with `phase` "rule_making", "creator" or "proposal" and no
`seats` (the round is dealt from the seed when its deal comes). `to_act` is given explicitly as the
first seat the phase asks (§9.2's default, the leader, is the PLAY-phase actor).
Public surface only (spec §9).
"""
from lopti_cases import (
    ACTIVE, KEEP, NO, PAPER, PASS, PROPOSE_AMEND, PROPOSE_BASE, PROPOSE_REMOVE, PROPOSE_RESTORE,
    REMOVED, ROCK, SCISSORS, TIMING_NEXT, TIMING_NOW, YES, act, assert_hand, assert_legal,
    assert_rejected, assert_rewards, from_state, legal, make_env, play_out_round, ps, seat, state,
    check_surface,
)

EMPTY_ROW = [0] * 8


def _session(S: dict, num_players: int, seed: int = 0, **config):
    return from_state(S, num_players=num_players, seed=seed, session=True, **config)


def _assert_dealt(env, n: int):
    """After LO-2.4's deal: 3 hand cards, 3 face-up and 3 face-down cards per seat."""
    p = ps(env)
    for s in range(n):
        assert p["seats"][s]["hand_size"] == 3
        assert all(c is not None for c in p["seats"][s]["up"])
        assert p["seats"][s]["down"] == [True, True, True]
    assert p["draw_size"] == 52 - 9 * n


def test_lopti_case_8_29():
    """8.29 Session: making a rule (LO-10.2 phases 2-6, LO-10.3, LO-10.4, LO-10.5, LO-11.7).
    The previous winner P1 builds RANK_DRAW [1, 7, 1, 1] by SELECT(template), SELECT(X),
    SELECT(G), SELECT(N), each offering exactly the values with a valid completion; it goes to
    slot 0 with maker P1, ACTIVE, made_round 0. Creator window (from the seat after dealer P1):
    only P1 (maker of an ACTIVE rule) is asked. Deal. Proposal from P2: PASS, REMOVE, AMEND, BASE
    (no REMOVED rule, so no RESTORE); all pass, no vote. The swap phase starts with the leader P1
    (previous winner, LO-2.5)."""
    S = {"phase": "rule_making", "round": 1, "prev_winner": 1, "to_act": 1}
    env = _session(S, 3, session_rounds=2)
    p = ps(env)
    assert p["phase"] == "rule_making" and p["substep"] == 0
    assert p["round"] == 1 and p["num_rounds"] == 2 and p["dealer"] == 1 and p["prev_winner"] == 1
    assert p["draft"] == [-1, -1, -1, -1]
    assert p["rules"] == [EMPTY_ROW] * 8
    assert_legal(env, range(109, 125), s=1)
    assert_rejected(env, 108)  # template 0 does not exist
    assert_rejected(env, PASS)  # making a rule is compulsory
    act(env, 109, "select 1")
    assert ps(env)["substep"] == 1 and ps(env)["draft"] == [1, -1, -1, -1]
    assert_legal(env, range(108, 121), s=1)
    act(env, 115, "select 7")
    assert ps(env)["substep"] == 2 and ps(env)["draft"] == [1, 7, -1, -1]
    assert_legal(env, range(108, 116), s=1)
    act(env, 109, "select 1")
    assert ps(env)["substep"] == 3 and ps(env)["draft"] == [1, 7, 1, -1]
    assert_legal(env, [109, 110], s=1)
    act(env, 109, "select 1")
    p = ps(env)
    assert p["rules"][0] == [1, 7, 1, 1, 1, ACTIVE, 0, 0]
    assert p["rules"][1:] == [EMPTY_ROW] * 7
    assert p["draft"] is None
    assert p["phase"] == "creator"
    assert_legal(env, [96, 108], s=1)
    act(env, PASS, "pass")
    p = ps(env)
    assert p["phase"] == "proposal"
    _assert_dealt(env, 3)
    assert_legal(env, [96, 102, 103, 104], s=2)
    act(env, PASS, "pass")
    assert_legal(env, [96, 102, 103, 104], s=0)
    act(env, PASS, "pass")
    assert_legal(env, [96, 102, 103, 104], s=1)
    act(env, PASS, "pass")
    p = ps(env)
    assert p["phase"] == "swap"
    assert p["leader"] == 1 and p["to_act"] == 1 and env.agent_selection == "player_1"
    assert p["proposal"] is None
    assert p["rules"][0] == [1, 7, 1, 1, 1, ACTIVE, 0, 0]
    assert KEEP in legal(env)
    assert_rewards(env, {0: 0.0, 1: 0.0, 2: 0.0})


def test_lopti_case_8_34():
    """8.34 Rules vote passes (N = 5; LO-10.5, LO-10.8): proposal order from the seat after the
    dealer P1; P3 proposes REMOVE of slot 0 (the only ACTIVE rule), timing NOW. Ballot order from
    the seat after the proposer: P4, P0, P1, P2; ballots hidden until all are cast. Y = 3 (the
    proposer counts as YES) > 5/2: passes, slot 0 REMOVED at once, no RPS. Then the swap phase
    starts with the leader P4 (previous winner)."""
    S = {"phase": "proposal", "round": 1, "dealer": 1, "prev_winner": 4, "to_act": 2,
         "rules": [[2, 12, 3, 0, 1, ACTIVE]]}
    env = _session(S, 5)
    p = ps(env)
    assert p["phase"] == "proposal" and p["substep"] == 0
    assert p["rules"][0][:6] == [2, 12, 3, 0, 1, ACTIVE]
    assert_legal(env, [96, 102, 103, 104], s=2)
    act(env, PASS, "pass")
    assert_legal(env, [96, 102, 103, 104], s=3)
    assert_rejected(env, PROPOSE_RESTORE)  # no REMOVED rule
    act(env, PROPOSE_REMOVE, "propose remove")
    p = ps(env)
    assert p["substep"] == 1
    assert p["proposal"]["proposer"] == 3 and p["proposal"]["kind"] == 1
    assert_legal(env, [108], s=3)
    act(env, 108, "select 0")
    assert ps(env)["substep"] == 4
    assert_legal(env, [106, 107], s=3)
    act(env, TIMING_NOW, "timing now")
    p = ps(env)
    assert p["phase"] == "ballot"
    assert p["proposal"]["target"] == 0 and p["proposal"]["timing"] == 0
    assert_legal(env, [97, 98], s=4)
    act(env, YES, "yes")
    assert ps(env)["ballots"][4] is None  # hidden until all are cast
    assert_legal(env, [97, 98], s=0)
    act(env, YES, "yes")
    assert_legal(env, [97, 98], s=1)
    act(env, NO, "no")
    assert all(ps(env)["ballots"][s] is None for s in (4, 0, 1))
    assert_legal(env, [97, 98], s=2)
    act(env, NO, "no")
    p = ps(env)
    assert p["ballots"] == [True, False, False, True, True]
    assert p["proposal"]["yes"] == 3
    assert p["proposal"]["result"] == "passed"
    assert p["proposal"]["defender"] is None
    assert p["rules"][0][:6] == [2, 12, 3, 0, 1, REMOVED]
    assert p["pending"] is None
    assert p["phase"] == "swap"
    assert p["leader"] == 4
    assert env.agent_selection == "player_4"
    assert KEEP in legal(env)


def _tie_8_35():
    S = {"phase": "proposal", "round": 1, "dealer": 1, "to_act": 2,
         "rules": [[7, 0, 4, 1, 2, ACTIVE]]}
    env = _session(S, 4)
    assert_legal(env, [96, 102, 103, 104], s=2)
    act(env, PASS, "pass")
    act(env, PROPOSE_REMOVE, "propose remove")
    act(env, 108, "select 0")
    act(env, TIMING_NEXT, "timing next")
    assert ps(env)["phase"] == "ballot"
    assert_legal(env, [97, 98], s=0)
    act(env, YES)
    assert_legal(env, [97, 98], s=1)
    act(env, NO)
    assert_legal(env, [97, 98], s=2)
    act(env, NO)
    return env


def test_lopti_case_8_35():
    """8.35 Tied vote settled by RPS against the maker (LO-10.5, LO-10.6, LO-10.7, LO-10.8).
    N = 4, Y = 2 = N/2: tie. The maker P2 voted NO and is not the proposer: P2 defends, no
    volunteers; MATCH P3 (proposer, first) vs P2. 5 ties do not count; 30 decisive throws reach
    15-15; a tie; then P3 wins the next decisive throw: 16-15 after 37 throws. The change passes
    with timing NEXT: pending [REMOVE, slot 0, 0, 0]; slot 0 stays ACTIVE through round 1 and is
    REMOVED at the start of round 2 (phase 1)."""
    env = _tie_8_35()
    p = ps(env)
    assert p["ballots"] == [True, False, False, True]
    assert p["proposal"]["yes"] == 2
    assert p["proposal"]["defender"] == 2
    assert p["phase"] == "match"
    assert p["rps"] == {"kind": "match", "first": 3, "second": 2, "score": [0, 0], "decisive": 0,
                        "throws": 0}
    assert_legal(env, [99, 100, 101], s=3)
    assert_rejected(env, YES)

    def throw(first, second):
        assert env.agent_selection == "player_3"
        act(env, first)
        assert env.agent_selection == "player_2"
        assert_legal(env, [99, 100, 101], s=2)
        act(env, second)

    for _ in range(5):
        throw(ROCK, ROCK)
    r = ps(env)["rps"]
    assert r["score"] == [0, 0] and r["decisive"] == 0 and r["throws"] == 5
    throw(ROCK, SCISSORS)
    assert ps(env)["rps"]["score"] == [1, 0]
    throw(ROCK, PAPER)
    assert ps(env)["rps"]["score"] == [1, 1]
    for _ in range(14):
        throw(ROCK, SCISSORS)
        throw(ROCK, PAPER)
    r = ps(env)["rps"]
    assert r["score"] == [15, 15] and r["decisive"] == 30 and r["throws"] == 35
    assert ps(env)["phase"] == "match"  # 15-15 after 30 decisive throws: go on
    throw(PAPER, PAPER)
    r = ps(env)["rps"]
    assert r["score"] == [15, 15] and r["decisive"] == 30 and r["throws"] == 36
    throw(SCISSORS, PAPER)
    p = ps(env)
    assert p["proposal"]["result"] == "passed"
    assert p["pending"] == [1, 0, 0, 0]
    assert p["rules"][0][:6] == [7, 0, 4, 1, 2, ACTIVE]
    assert p["phase"] == "swap"
    assert p["leader"] == 1 and env.agent_selection == "player_1"

    def still_active(before, after):
        if after["round"] == 1:
            assert after["rules"][0][5] == ACTIVE
            assert after["pending"] == [1, 0, 0, 0]

    play_out_round(env, still_active)
    p = ps(env)
    assert p["round"] == 2 and p["phase"] != "done"
    assert p["rules"][0][:6] == [7, 0, 4, 1, 2, REMOVED]
    assert p["pending"] is None


def test_lopti_case_8_36():
    """8.36 No defender; creator deletion (LO-10.4, LO-10.5, LO-10.6 ruling (a), LO-10.8).
    (a) Creator window: only P0 (maker) is asked; PASS. Proposal: P0 proposes AMEND of slot 0's N
    (fields X, G, N all amendable; N's only other valid value is 2), NOW. Y = 2 = N/2: tie. The
    maker is the proposer, so the NO voters P2, P3 are asked to volunteer; nobody does: the change
    passes without RPS: slot 0 = [1, 11, 1, 2]. (b) Round 2: P0 deletes its rule in the creator
    window (REMOVED at once, no vote, no replacement); P0 has no ACTIVE rule left, so the window
    ends; the round's vote is unused: P3 may PASS, propose BASE or RESTORE."""
    # (a)
    S = {"phase": "creator", "round": 1, "dealer": 1, "to_act": 0,
         "rules": [[1, 11, 1, 1, 0, ACTIVE]]}
    env = _session(S, 4, session_rounds=3)
    assert ps(env)["phase"] == "creator"
    assert_legal(env, [96, 108], s=0)
    act(env, PASS, "pass")
    assert ps(env)["phase"] == "proposal"
    _assert_dealt(env, 4)
    assert_legal(env, [96, 102, 103, 104], s=2)
    act(env, PASS)
    assert_legal(env, [96, 102, 103, 104], s=3)
    act(env, PASS)
    assert_legal(env, [96, 102, 103, 104], s=0)
    act(env, PROPOSE_AMEND, "propose amend")
    assert_legal(env, [108], s=0)
    act(env, 108, "select 0")
    assert ps(env)["substep"] == 2
    assert_legal(env, [109, 110, 111], s=0)
    act(env, 111, "select 3")
    assert ps(env)["substep"] == 3
    assert_legal(env, [110], s=0)
    assert_rejected(env, 109)  # N = 1 is the current value
    act(env, 110, "select 2")
    assert ps(env)["substep"] == 4
    assert_legal(env, [106, 107], s=0)
    act(env, TIMING_NOW, "timing now")
    pr = ps(env)["proposal"]
    assert (pr["proposer"], pr["kind"], pr["target"], pr["field"], pr["value"], pr["timing"]) == (0, 2, 0, 3, 2, 0)
    assert_legal(env, [97, 98], s=1)
    act(env, YES)
    assert_legal(env, [97, 98], s=2)
    act(env, NO)
    assert_legal(env, [97, 98], s=3)
    act(env, NO)
    p = ps(env)
    assert p["phase"] == "volunteer"
    assert p["proposal"]["yes"] == 2
    assert p["ballots"] == [True, True, False, False]
    assert_legal(env, [97, 98], s=2)
    act(env, NO)
    assert_legal(env, [97, 98], s=3)
    act(env, NO)
    p = ps(env)
    assert p["volunteers"][2] is False and p["volunteers"][3] is False
    assert p["proposal"]["result"] == "passed"
    assert p["proposal"]["defender"] is None
    assert p["rules"][0][:6] == [1, 11, 1, 2, 0, ACTIVE]
    assert p["pending"] is None
    assert p["phase"] == "swap"
    assert env.agent_selection == "player_1"  # leader = dealer (no previous winner given)

    # (b)
    S = {"phase": "creator", "round": 2, "dealer": 2, "to_act": 0,
         "rules": [[1, 11, 1, 2, 0, ACTIVE]]}
    env = _session(S, 4, session_rounds=3)
    assert_legal(env, [96, 108], s=0)
    act(env, 108, "select 0")
    p = ps(env)
    assert p["rules"][0][:6] == [1, 11, 1, 2, 0, REMOVED]
    assert p["rules"][1] == EMPTY_ROW
    assert p["phase"] == "proposal"
    _assert_dealt(env, 4)
    assert_legal(env, [96, 104, 105], s=3)


def test_lopti_case_8_37():
    """8.37 Base-rule change with timing NEXT (LO-10.5 BASE, LO-10.8, LO-12 DRAW_MODE): P2 proposes
    DRAW_MODE := 1 (the only value != 0 in its domain), NEXT; P0 and P1 vote YES: Y = 3, passes;
    pending [3, 5, 0, 1]. Round 1 still draws one card per draw (the draw pile never shrinks by
    more than one per decision, there being no made rule); at round 2's start DRAW_MODE = 1.
    Then DRAW_MODE 1 in play: P0 keeps KS after two 8s and refills to 3 (2H, 3H); 4H stays."""
    S = {"phase": "proposal", "round": 1, "dealer": 1, "to_act": 2}
    env = _session(S, 3)
    assert_legal(env, [96, 104], s=2)  # no rule: only PASS and BASE
    act(env, PROPOSE_BASE, "propose base")
    assert ps(env)["substep"] == 1
    assert_legal(env, range(108, 117), s=2)
    act(env, 113, "select 5")
    assert ps(env)["substep"] == 3
    assert_legal(env, [109], s=2)
    act(env, 109, "select 1")
    assert_legal(env, [106, 107], s=2)
    act(env, TIMING_NEXT, "timing next")
    assert_legal(env, [97, 98], s=0)
    act(env, YES)
    assert_legal(env, [97, 98], s=1)
    act(env, YES)
    p = ps(env)
    assert p["proposal"]["yes"] == 3 and p["proposal"]["result"] == "passed"
    assert p["pending"] == [3, 5, 0, 1]
    assert p["switches"]["DRAW_MODE"] == 0
    assert p["phase"] == "swap"

    def one_card_draws(before, after):
        if after["round"] == 1:
            assert after["switches"]["DRAW_MODE"] == 0
            assert before["draw_size"] - after["draw_size"] in (0, 1)

    play_out_round(env, one_card_draws)
    p = ps(env)
    assert p["round"] == 2
    assert p["switches"]["DRAW_MODE"] == 1
    assert p["pending"] is None

    # DRAW_MODE 1 in play (round 2 position)
    S = state([seat("8C 8D KS"), seat("5C"), seat("9C")], pile=[(1, "6C")], draw="2H 3H 4H",
              round=2, dealer=2, switches={"DRAW_MODE": 1})
    env = _session(S, 3)
    assert ps(env)["switches"]["DRAW_MODE"] == 1
    assert_legal(env, [24, 25, 44, 52], s=0)
    act(env, 25, "play 8 8")
    assert_hand(env, 0, "2H 3H KS")
    assert ps(env)["draw_size"] == 1


def test_lopti_case_8_38():
    """8.38 Setup votes do not use the first round's vote (LO-10.9, LO-10.2): the carried-over
    rule is voted on before round 0 in the order P1, P2, P0 (from the seat after first_dealer);
    Y = 2 > 1.5: it enters slot 0 as [7, 0, 4, 1, -1, ACTIVE, -1, 0]. Its maker is absent, so
    the creator window asks nobody; the deal follows and round 0's proposal phase still runs:
    P1 may PASS or propose REMOVE, AMEND, BASE."""
    env = make_env(num_players=3, session=True, carryover_rules=[[7, 0, 4, 1, -1]])
    env.reset(seed=0)
    check_surface(env)
    p = ps(env)
    assert p["phase"] == "setup_vote" and p["round"] == 0
    assert p["setup"] == {"candidate": 0, "rule": [7, 0, 4, 1, -1], "yes": None}
    assert p["rules"] == [EMPTY_ROW] * 8
    assert_legal(env, [97, 98], s=1)
    act(env, YES, "yes")
    assert ps(env)["ballots"][1] is None
    assert_legal(env, [97, 98], s=2)
    act(env, YES)
    assert_legal(env, [97, 98], s=0)
    act(env, NO, "no")
    p = ps(env)
    assert p["rules"][0] == [7, 0, 4, 1, -1, ACTIVE, -1, 0]
    assert p["setup"] is None
    assert p["ballots"] == [False, True, True]
    assert p["phase"] == "proposal" and p["round"] == 0
    assert p["proposal"] is None
    _assert_dealt(env, 3)
    assert_legal(env, [96, 102, 103, 104], s=1)


def test_round_winners_survive_the_next_rounds_deal():
    """§9.5 `round_winners` lists every round's winner (LO-9.3). The step that ends a round also
    runs the next round's automatic phases (docs/RULINGS.md, LOPTI 4); when no rule is to be made
    (here the one rulebook slot is taken) and nobody has a creator window, that step deals the next
    round at once, and the finished round's winner must still be recorded."""
    S = state([seat(down="AC - -"), seat("4D")], pile=[(1, "5S")],
              rules=[[1, 0, 1, 1, -1, ACTIVE]])
    env = _session(S, 2, session_rounds=2, max_made_rules=1)
    act(env, 53, "flip 0")  # AC is legal on 5S: P0 goes out and wins round 0
    p = ps(env)
    assert p["round"] == 1 and p["prev_winner"] == 0
    assert p["phase"] == "proposal"  # round 1 was dealt within that step
    _assert_dealt(env, 2)
    while ps(env)["phase"] != "done":
        play_out_round(env)
    r = env.infos["player_0"]["result"]
    assert r["round_winners"][0] == 0
    assert len(r["round_winners"]) == 2


def _amend_tie_with_volunteers(volunteer2, volunteer3, **config):
    """8.36 (a)'s position up to the volunteers: P0 (the maker) proposes AMEND of slot 0's N to 2,
    NOW; Y = 2 = N/2; the NO voters P2, P3 are asked to volunteer and answer as given."""
    S = {"phase": "creator", "round": 1, "dealer": 1, "to_act": 0, "rules": [[1, 11, 1, 1, 0, ACTIVE]]}
    env = _session(S, 4, session_rounds=3, **config)
    for a in (PASS, PASS, PASS, PROPOSE_AMEND, 108, 111, 110, TIMING_NOW, YES, NO, NO):
        act(env, a)
    assert ps(env)["phase"] == "volunteer"
    act(env, YES if volunteer2 else NO)
    act(env, YES if volunteer3 else NO)
    return env


def test_lopti_one_volunteer_defends_the_rule():
    """LO-10.6: exactly one volunteer (P3) defends: the main match is the proposer P0 against P3."""
    env = _amend_tie_with_volunteers(False, True)
    p = ps(env)
    assert p["volunteers"][2] is False and p["volunteers"][3] is True
    assert p["proposal"]["defender"] == 3 and p["phase"] == "match"
    assert p["rps"]["kind"] == "match" and (p["rps"]["first"], p["rps"]["second"]) == (0, 3)
    assert_legal(env, [99, 100, 101], s=0)


def test_lopti_bracket_picks_the_defender_and_the_safeguards_end_both_matches():
    """LO-10.6 / LO-10.7: two volunteers (P2, P3 in ballot order) play a bracket match of one decisive
    throw, P2 first; ties do not count, and a bracket match that reaches bracket_max_throws (3 here)
    throws is decided by the coin at that throw, not later. The winner defends in the main match
    against the proposer P0; that match, reaching rps_max_throws (4 here) throws with P0 ahead on
    decisive wins, ends at that throw and P0 wins: the AMEND passes (slot 0's N = 2)."""
    # a decisive bracket throw: P2 (rock) beats P3 (scissors)
    env = _amend_tie_with_volunteers(True, True, bracket_max_throws=3, rps_max_throws=4)
    p = ps(env)
    assert p["phase"] == "bracket" and (p["rps"]["first"], p["rps"]["second"]) == (2, 3)
    assert_legal(env, [99, 100, 101], s=2)
    act(env, ROCK)
    assert_legal(env, [99, 100, 101], s=3)
    act(env, SCISSORS)
    p = ps(env)
    assert p["proposal"]["defender"] == 2 and p["phase"] == "match"
    assert (p["rps"]["first"], p["rps"]["second"]) == (0, 2) and p["rps"]["throws"] == 0
    # the main match: one decisive throw for P0, then ties up to the safeguard's 4th throw
    act(env, ROCK)
    act(env, SCISSORS)
    for throws in (2, 3, 4):
        assert ps(env)["phase"] == "match", throws
        act(env, PAPER)
        act(env, PAPER)
    p = ps(env)
    assert p["proposal"]["result"] == "passed"
    assert p["rules"][0][:6] == [1, 11, 1, 2, 0, ACTIVE]
    assert p["phase"] == "swap"

    # a bracket of ties only: the coin decides at the 3rd throw, and its winner defends
    env = _amend_tie_with_volunteers(True, True, bracket_max_throws=3)
    for throws in (1, 2, 3):
        assert ps(env)["phase"] == "bracket", throws
        act(env, PAPER)
        act(env, PAPER)
    p = ps(env)
    assert p["phase"] == "match" and p["proposal"]["defender"] in (2, 3)
    assert (p["rps"]["first"], p["rps"]["second"]) == (0, p["proposal"]["defender"])


def test_lopti_tied_setup_vote_goes_to_a_main_match():
    """LO-10.9: a setup vote with Y = N/2 (N = 4: P1 YES, P2 NO, P3 YES, P0 NO) is a tie, settled by a
    main match between the first YES voter P1 (listed first) and the first NO voter P2 -- not dropped
    like a lost vote. P1 wins it (one decisive throw, then the safeguard at rps_max_throws = 1): the
    rule enters slot 0 as [7, 0, 4, 1, -1, ACTIVE, -1, 0]."""
    env = make_env(num_players=4, session=True, carryover_rules=[[7, 0, 4, 1, -1]], rps_max_throws=1)
    env.reset(seed=0)
    for s, vote in ((1, YES), (2, NO), (3, YES), (0, NO)):
        assert_legal(env, [97, 98], s=s)
        act(env, vote)
    p = ps(env)
    assert p["phase"] == "match" and p["rules"] == [EMPTY_ROW] * 8
    assert p["rps"]["kind"] == "match" and (p["rps"]["first"], p["rps"]["second"]) == (1, 2)
    assert_legal(env, [99, 100, 101], s=1)
    act(env, ROCK)
    assert_legal(env, [99, 100, 101], s=2)
    act(env, SCISSORS)
    p = ps(env)
    assert p["rules"][0] == [7, 0, 4, 1, -1, ACTIVE, -1, 0]
    assert p["phase"] == "proposal" and p["round"] == 0


def _remove_vote(**config):
    """8.35's position (N = 4, slot 0 made by P2): P2 passes, P3 proposes REMOVE of slot 0, NEXT; the
    ballot order is P0, P1, P2."""
    S = {"phase": "proposal", "round": 1, "dealer": 1, "to_act": 2, "rules": [[7, 0, 4, 1, 2, ACTIVE]]}
    env = _session(S, 4, **config)
    for a in (PASS, PROPOSE_REMOVE, 108, TIMING_NEXT):
        act(env, a)
    return env


def test_lopti_maker_who_voted_yes_does_not_defend():
    """LO-10.6 ruling (a): the maker P2 voted YES on removing its own rule (P0, P1 NO; Y = 2 with the
    proposer P3: a tie), so it counts as absent: the NO voters P0, P1 are asked to volunteer, in
    ballot order; P2 is not made the defender."""
    env = _remove_vote()
    for s, vote in ((0, NO), (1, NO), (2, YES)):
        assert_legal(env, [97, 98], s=s)
        act(env, vote)
    p = ps(env)
    assert p["proposal"]["yes"] == 2 and p["proposal"]["defender"] is None
    assert p["phase"] == "volunteer"
    assert_legal(env, [97, 98], s=0)


def test_lopti_early_stop_ends_the_match_at_16():
    """LO-10.7 with rps_early_stop: the match stops the moment a side reaches 16 decisive wins (8.35's
    tie, P3 winning every throw): still on at 15-0, over at 16-0 (without the option it would go on
    to 30 decisive throws); P3, the proposer, wins and the REMOVE passes."""
    env = _remove_vote(rps_early_stop=True)
    for vote in (YES, NO, NO):
        act(env, vote)
    assert ps(env)["phase"] == "match"
    for k in range(16):
        assert ps(env)["phase"] == "match" and ps(env)["rps"]["score"] == [k, 0]
        act(env, ROCK)
        act(env, SCISSORS)
    p = ps(env)
    assert p["proposal"]["result"] == "passed" and p["pending"] == [1, 0, 0, 0]
    assert p["phase"] == "swap"
