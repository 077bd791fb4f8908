"""PettingZoo API conformance of lopti_env (spec section 9.1; ARCHITECTURE conventions). PettingZoo's own
api_test / seed_test on every N and session episodes: tests/core/test_pettingzoo_stock.py."""
from __future__ import annotations

import numpy as np
import pytest

import lopti_env


def test_lopti_spaces_and_names():
    e = lopti_env.env(num_players=3)
    e.reset(seed=0)
    u = e.unwrapped
    assert u.metadata["name"] == "lopti_v0"
    assert u.possible_agents == ["player_0", "player_1", "player_2"]
    for a in u.possible_agents:
        assert e.action_space(a).n == 140
        ob = e.observe(a)
        assert ob["observation"].dtype == np.float32 and ob["observation"].shape == (309,)
        assert ob["action_mask"].dtype == np.int8 and ob["action_mask"].shape == (140,)
        if a != e.agent_selection:
            assert not ob["action_mask"].any()
        assert "action_mask" in e.infos[a] and e.infos[a]["phase"] == "swap"
    assert e.observe(e.agent_selection)["action_mask"].any()


# ---- BatchGame.load_positions: section 7.2 positions into chosen games -----------------------------
LOAD_A = {"seats": [{"hand": "9C 4D 7H"}, {"hand": "KC KD"}, {"hand": "5S 6S"}], "pile": [[1, "6C"]],
          "draw": "AS KS"}
LOAD_B = {"seats": [{"hand": "9C 4D 7H"}, {"hand": "AS 6S"}, {"hand": "5S KD"}], "pile": [[1, "6C"]],
          "draw": "KC KS"}   # LOAD_A's hidden cards redealt


def _aec_from(state):
    e = lopti_env.env(num_players=3)
    e.reset(seed=0, options={"state": state})
    return e


def test_lopti_batch_load_positions_equals_the_aec_reset():
    g = lopti_env.BatchGame(4, num_players=3)
    g.reset(seed=1)
    untouched = g.st[3].copy()
    g.load_positions([LOAD_A, LOAD_B], [np.array([0, 2]), np.array([1])])
    assert g.st[3].tobytes() == untouched.tobytes()
    envs = {0: _aec_from(LOAD_A), 1: _aec_from(LOAD_B), 2: _aec_from(LOAD_A)}
    obs, mask = g.observe(), g.legal_mask()
    for b, e in envs.items():
        ob = e.observe(e.agent_selection)
        assert g.public_state(b) == e.unwrapped.public_state()
        assert [g.hand(b, seat) for seat in range(3)] == [e.unwrapped.hand(seat) for seat in range(3)]
        assert (obs[b] == ob["observation"]).all() and (mask[b] == ob["action_mask"]).all()
    acts = mask.argmax(axis=1)
    g.step(acts)
    for b, e in envs.items():
        e.step(int(acts[b]))
        assert g.public_state(b) == e.unwrapped.public_state()


@pytest.mark.parametrize("states, rows, match", [
    ([], [], "non-empty list"),
    ([LOAD_A], [np.array([0]), np.array([1])], "one index array per state"),
    ([LOAD_A], [np.array([4])], "game indices in 0..3"),
    ([LOAD_A, {**LOAD_B, "draw": "KC"}], [[0], [1]], "draw cards"),
    ([LOAD_A, {**LOAD_B, "seats": LOAD_B["seats"][:2]}], [[0], [1]], "3 seats"),
    ([LOAD_A, {**LOAD_B, "draw": "KC QS"}], [[0], [1]], "redealt"),
    ([{**LOAD_A, "pile": [[1, "6C 7C"]]}], [[0]], "one rank"),
    # known cards are public (section 3.2): a redeal may not take states[0]'s known KC out of seat 1's hand
    ([{**LOAD_A, "known": {1: "KC"}}, LOAD_B], [[0], [1]], "known"),
])
def test_lopti_batch_load_positions_rejects_bad_input(states, rows, match):
    g = lopti_env.BatchGame(4, num_players=3)
    g.reset(seed=1)
    before = g.st.copy()
    with pytest.raises(ValueError, match=match):
        g.load_positions(states, rows)
    assert g.st.tobytes() == before.tobytes()


def test_lopti_batch_observation_of_a_done_game_is_zeros_and_move_kind_only_in_play():
    """9.7 as in the other games: a done game's observe() row is zeros; the move kind (3.5) is set only
    while a move is being made (PLAY; 9.4's "move" is None elsewhere)."""
    g = lopti_env.BatchGame(6, num_players=3)
    g.reset(seed=5)
    rng = np.random.default_rng(0)
    while not g.done.all():
        mask = g.legal_mask()
        g.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask]))
        obs = g.observe()
        assert not obs[g.done].any()
        for b in np.flatnonzero(~g.done):
            if g.public_state(int(b))["move"] is None:
                assert obs[b, 159] == 0
