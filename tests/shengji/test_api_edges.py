"""Edges of the section 9 surface: calls before reset, odd inputs, state left untouched."""
import copy
import pickle

import numpy as np
import pytest

import shengji_env
from cardzoo.options import NotResetError


def test_batch_legal_plays_before_reset_raises_not_reset_error():
    # docs/env_contract_inputs.md: everything that reads a game needs a started episode; before the
    # first reset the records are blanks, so a list of plays read from them means nothing
    g = shengji_env.BatchGame(2)
    with pytest.raises(NotResetError, match=r"call reset\(\) before legal_plays\(\)"):
        g.legal_plays(0)
    with pytest.raises(ValueError):
        g.reset(seed=-1)
    with pytest.raises(NotResetError):  # a failed first reset starts nothing either
        g.legal_plays(0)
    g.reset(seed=0)
    assert g.legal_plays(0).shape[1] == 54


def test_env_levels_option_takes_an_array_as_batchgame_does():
    # section 7.1 `levels` is a [team 0, team 1] pair; BatchGame.reset takes it as a list, a tuple or a
    # 1-d array, and an env's reset reads the same option the same way (a pair taken from an earlier
    # result or a numpy log)
    raw = shengji_env.raw_env()
    raw.reset(seed=4, options={"levels": np.array([3, 9]), "banker": 1})
    assert raw.public_state()["levels"] == [3, 9]
    g = shengji_env.BatchGame(1)
    g.reset(seed=4, levels=np.array([3, 9]), banker=1)
    assert raw.public_state() == g.public_state(0)
    before = raw.public_state()
    for bad in (np.array([3, 3, 3]), np.array([[3], [3]]), np.array([3.0, 3.0]), np.array([13, 13])):
        with pytest.raises(ValueError, match="level"):
            raw.reset(options={"levels": bad, "banker": 0})
        assert raw.public_state() == before


@pytest.mark.parametrize("value", [np.array(1), np.array("S")])
def test_zero_d_array_reset_options_raise_value_error_and_leave_state(value):
    # section 9.6: a bad reset option is a ValueError naming it (a 0-d array is neither one value of
    # the option's type nor a list of them), and no game changes
    g = shengji_env.BatchGame(2, declaration_mode="preset")
    g.reset(seed=1)
    before = g.state.view(np.uint8).tobytes()
    for name in ("banker", "levels", "first_drawer", "trump"):
        with pytest.raises(ValueError, match=name):
            g.reset(**{name: value})
        assert g.state.view(np.uint8).tobytes() == before
    raw = shengji_env.raw_env()
    raw.reset(seed=1)
    state = raw.public_state()
    with pytest.raises(ValueError, match="levels"):
        raw.reset(options={"levels": value, "banker": 0})
    assert raw.public_state() == state


@pytest.mark.parametrize("agent", [["player_0"], {"a": 1}, np.array(["player_0"]), bytearray(b"p")])
def test_observe_an_unhashable_agent_is_a_value_error(agent):
    # section 9.6 / docs/env_contract_inputs.md: bad input is a ValueError naming it; an agent that is
    # not a name (a list, an array) is an unknown agent like any other, not a TypeError from a dict lookup
    for env in (shengji_env.env(), shengji_env.raw_env()):
        env.reset(seed=0)
        with pytest.raises(ValueError, match="unknown agent"):
            env.observe(agent)


def test_take_of_an_unseeded_batch_copies_the_generator_a_redeal_draws_from():
    # BatchGame.take copies games "with their generators": a game reset without a seed and with an
    # injected deal has drawn nothing yet, yet its copy must go on drawing what the original draws
    # (SJ-4.9 redeals, the next hands of a match: section 7.4), not from fresh entropy of its own
    d = np.random.default_rng(0).permutation(np.repeat(np.arange(54), 1))
    g = shengji_env.BatchGame(2, decks=1, max_redeals=2)
    g.reset(deals=[d, d])
    t = g.take([0, 1])
    while (g.state.phase == shengji_env.kernels.DECLARE).any():  # nobody declares: the deal is void
        mask = g.legal_mask()
        a = np.where(mask[:, 55] > 0, 55, mask.argmax(axis=1))
        g.step(a)
        t.step(a)
    assert g.public_state(0)["void_deals"] == 2
    for b in range(2):
        assert g.public_state(b) == t.public_state(b)
        assert [g.hand(b, s) for s in range(4)] == [t.hand(b, s) for s in range(4)]


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))])
def test_copied_unseeded_batch_draws_what_the_original_draws(clone):
    # as take() above: a deep copy or pickle of a BatchGame reset without a seed continues identically
    d = np.random.default_rng(0).permutation(np.repeat(np.arange(54), 1))
    g = shengji_env.BatchGame(2, decks=1, max_redeals=2)
    g.reset(deals=[d, d])
    t = clone(g)
    while (g.state.phase == shengji_env.kernels.DECLARE).any():
        mask = g.legal_mask()
        a = np.where(mask[:, 55] > 0, 55, mask.argmax(axis=1))
        g.step(a)
        t.step(a)
    assert [g.public_state(b) for b in range(2)] == [t.public_state(b) for b in range(2)]


def test_env_clone_leaves_the_legal_plays_scratch_buffer_behind():
    # legal_plays() keeps a scratch buffer of max_plays rows (100,000 x 54 bytes by default) for
    # later calls; a deep copy or pickle must not carry it (a search agent clones envs per decision),
    # and a clone lists the same plays as the original
    raw = shengji_env.raw_env()
    raw.reset(seed=1, options={"banker": 0})
    while raw.public_state()["phase"] != "LEAD":
        mask = raw.observe(raw.agent_selection)["action_mask"]
        raw.step(55 if mask[55] else int(np.flatnonzero(mask)[0]))
    size = len(pickle.dumps(raw))
    plays = raw.legal_plays()
    assert len(plays) > 1
    assert len(pickle.dumps(raw)) < 2 * size
    for clone in (copy.deepcopy(raw), pickle.loads(pickle.dumps(raw))):
        assert clone.legal_plays() == plays


def test_legal_plays_refuses_a_buffer_too_large_to_allocate():
    # max_plays sizes a buffer of max_plays x 54 bytes allocated at once: 10**9 would be 54 GB and a
    # MemoryError; past the documented limit it is a ValueError naming it, the game untouched
    raw = shengji_env.raw_env()
    raw.reset(seed=1, options={"banker": 0})
    before = raw.public_state()
    for bad in (10**9, 10**7 + 1, -1, 2.5, True):
        with pytest.raises(ValueError, match=r"max_plays must be an integer in 0\.\.10000000"):
            raw.legal_plays(max_plays=bad)
    assert raw.public_state() == before
