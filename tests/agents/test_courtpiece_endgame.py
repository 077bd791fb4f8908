"""The Court Piece search's exact endgames (agents.courtpiece.endgame): the solver's value equals a plain
minimax over every legal card, and the search scores late positions by it."""
from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.arena import duplicate_match
from agents.courtpiece.endgame import distinct_cards, solve_after, solver_scratch
from cardzoo.batch import copy_records
from cardzoo.cards import card_index
from cardzoo.registry import make_batch
from courtpiece_env.rules import apply_action, legal_bits
from courtpiece_env.state import PLAY
from tests.agents.conftest import require

DUMMY = np.zeros((4, 13), np.int8)


def _bits(texts) -> np.uint64:
    return np.uint64(sum(1 << card_index(t) for t in texts))


def test_equivalent_cards_keep_one_of_each_run():
    # hearts in hand 9 10 Q; the jack was played in an earlier trick, so 9-10-Q are neighbours among
    # the live hearts (K and A still out): one of the three is searched. 4 and 6 of spades are apart
    # (the 5 is live), so both stay.
    hand = _bits(["9H", "TH", "QH", "4S", "6S"])
    live = hand | _bits(["KH", "AH", "5S"])
    keep = distinct_cards(hand, live)
    assert keep == _bits(["QH", "4S", "6S"])
    assert distinct_cards(hand, hand) == _bits(["QH", "6S"])        # nothing else live: one per suit


def _late_positions(variant: str, tricks_left: int, count: int, seed: int):
    """State records of random games at a card play with a choice and at most ``tricks_left`` tricks
    left, and the config vector."""
    g = make_batch("courtpiece", 256, variant=variant)
    g.reset(seed=seed)
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count and not g.done.all():
        masks = g.legal_mask()
        g.step(np.where(g.done, 0, (rng.random(masks.shape) * masks).argmax(1)))
        r, m = g.records, g.legal_mask()
        late = (r["phase"] == PLAY) & (13 - r["ntrick"] <= tricks_left) & (m[:, :52].sum(1) > 1) & ~g.done
        found += [copy_records(r[b:b + 1]) for b in np.flatnonzero(late)]
    return np.concatenate(found[:count]), g.config_array


def _minimax(s, cfg, seat) -> float:
    """seat's reward from here on under best play by both teams: every legal card, no pruning."""
    if s["actor"][0] < 0:
        return 0.0
    cards, ex = legal_bits(s[0], cfg)
    assert ex == 0
    values = []
    for c in range(52):
        if int(cards) >> c & 1:
            child = copy_records(s)
            child["rewards"][0] = 0.0
            apply_action(child[0], cfg, np.int64(c), DUMMY)
            values.append(float(child["rewards"][0][seat]) + _minimax(child, cfg, seat))
    return max(values) if (s["actor"][0] - seat) % 2 == 0 else min(values)


@pytest.mark.parametrize("variant", ["single_sar", "mendi_coat"])
def test_the_solver_finds_the_minimax_value_of_every_card(variant):
    require("courtpiece")
    st, cfg = _late_positions(variant, 3, 25, seed=4)
    stack = solver_scratch(st.dtype, None)
    checked = 0
    for b in range(len(st)):
        cards, _ = legal_bits(st[b], cfg)
        seat = int(st["actor"][b])
        firsts = np.array([c for c in range(52) if int(cards) >> c & 1], np.int64)
        work = copy_records(st[np.full(len(firsts), b)])
        out = np.zeros(len(firsts))
        solve_after(work.view(np.uint64).reshape(len(work), -1), *stack, cfg, firsts, seat, 10**6, out)
        for c, v in zip(firsts, out):
            child = copy_records(st[b:b + 1])
            child["rewards"][0] = 0.0
            apply_action(child[0], cfg, c, DUMMY)
            assert v == float(child["rewards"][0][seat]) + _minimax(child, cfg, seat)
            checked += 1
    assert checked > 40


def test_a_solve_over_its_node_budget_is_reported_unsolved():
    require("courtpiece")
    st, cfg = _late_positions("single_sar", 4, 8, seed=5)
    stack = solver_scratch(st.dtype)
    raw = st.view(np.uint64).reshape(len(st), -1)
    firsts = np.array([int(np.log2(float(legal_bits(s, cfg)[0] & -legal_bits(s, cfg)[0]))) for s in st], np.int64)
    out = np.zeros(len(st))
    assert solve_after(raw, *stack, cfg, firsts, 0, 1, out) >= len(st)
    assert np.isnan(out).all()
    solve_after(raw, *stack, cfg, firsts, 0, 10**6, out)
    assert not np.isnan(out).any() and set(np.abs(out)) <= {0.0, 1.0, 2.0, 3.0, 4.0}


def test_the_search_solves_late_decisions_and_plays_its_games_to_the_end():
    require("courtpiece")
    solver = make_agent("pimc:endgame=4,samples=8", "courtpiece", 0)
    capped = make_agent("pimc:endgame=13,nodes=1,samples=8", "courtpiece", 1)
    r = duplicate_match("courtpiece", solver, capped, deals=2, seed=3)
    assert r.deals == 2
    assert solver.stats["solved"] > 0 and solver.stats["unsolved"] == 0
    # one node per world: only the worlds the candidate card itself ends are solved, the rest rolled out
    assert 0 < capped.stats["unsolved"] < capped.stats["solved"]
    with pytest.raises(ValueError, match="endgame must be a number of tricks in 0..13"):
        make_agent("pimc:endgame=14", "courtpiece", 0)
    with pytest.raises(ValueError, match="nodes must be an int >= 1"):
        make_agent("pimc:nodes=0", "courtpiece", 0)


@pytest.mark.parametrize("variant,tricks_left,seat", [("single_sar", 5, 0), ("single_sar", 5, 1), ("mendi_coat", 6, 1)])
def test_the_transposition_table_changes_no_value(variant, tricks_left, seat):
    # one call solves every candidate of every world with one table (a bound proved under one window
    # serves another; storing a cut-off bound as exact shows in these Mendi Coat positions); the
    # plain alpha-beta, checked against minimax above, has none
    require("courtpiece")
    st, cfg = _late_positions(variant, tricks_left, 40, seed=6)
    games, firsts = [], []
    for b in range(len(st)):
        cards, _ = legal_bits(st[b], cfg)
        for c in range(52):
            if int(cards) >> c & 1:
                games.append(b)
                firsts.append(c)
    work = copy_records(st[games])
    raw = work.view(np.uint64).reshape(len(work), -1)
    first = np.array(firsts, np.int64)
    tabled, plain = np.zeros(len(work)), np.zeros(len(work))
    nodes_tabled = solve_after(raw, *solver_scratch(st.dtype), cfg, first, seat, 10**7, tabled)
    nodes_plain = solve_after(raw, *solver_scratch(st.dtype, None), cfg, first, seat, 10**7, plain)
    np.testing.assert_array_equal(tabled, plain)
    assert not np.isnan(tabled).any() and nodes_tabled < nodes_plain
