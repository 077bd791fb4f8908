"""The shared AEC adapter on a tiny two-seat game, so adapter bugs show up apart from any game's."""
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cardzoo.aec import CardGameEnv, wrap


class Nim(CardGameEnv):
    """Take 1 or 2 from a pile dealt at random; whoever takes the last stone wins (+1 / -1)."""

    metadata = {"name": "toy_nim_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    num_actions = 2
    observation_size = 3
    reset_options = ("pile",)

    def __init__(self, render_mode=None):
        super().__init__(2, render_mode)

    def _game_reset(self, rng, options):
        pile = None
        if options:
            pile = options["pile"]
            if not isinstance(pile, int) or pile < 1:
                raise ValueError(f"pile must be an int >= 1, got {pile!r}")
        self.pile = int(rng.integers(5, 12)) if pile is None else pile
        self.turn = 0
        self.last_rewards = np.zeros(2, np.float32)

    def _game_step(self, action):
        self.pile -= action + 1
        self.last_rewards = np.zeros(2, np.float32)
        if self.pile == 0:
            self.last_rewards[self.turn] = 1.0
            self.last_rewards[1 - self.turn] = -1.0
            self.turn = -1
        else:
            self.turn = 1 - self.turn

    def _game_actor(self):
        return self.turn

    def _game_mask(self):
        return np.array([1, 1 if self.pile >= 2 else 0], np.int8)

    def _game_observation(self, seat):
        return np.array([self.pile / 12, seat == self.turn, self.turn < 0], np.float32)

    def _game_phase(self):
        return "play" if self.turn >= 0 else "over"

    def _game_rewards(self):
        return self.last_rewards

    def _game_end(self):
        return True, False

    def _game_result(self):
        return None if self.turn >= 0 else {"winner": int(np.argmax(self.last_rewards))}

    def _game_render(self):
        return f"pile {self.pile}"

    def action_name(self, a):
        return f"take {a + 1}"


def test_pettingzoo_api_and_seed_tests_pass():
    api_test(wrap(Nim()), num_cycles=200)
    seed_test(lambda: wrap(Nim()), num_cycles=50)


def test_final_step_pays_every_seat_and_dead_steps_remove_agents():
    env = wrap(Nim())
    env.reset(options={"pile": 2})
    env.step(1)
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values())
    assert env.infos["player_1"]["result"] == {"winner": 0}
    assert env.infos["player_0"]["phase"] == "over"
    while env.agents:
        env.step(None)
    assert env.agents == []
    raw = env.unwrapped  # past the end: the raw env says the episode is over (the wrapper only warns)
    for action in (None, 0):
        with pytest.raises(ValueError, match="the episode is over and every agent has been removed"):
            raw.step(action)


def test_illegal_action_raises_and_changes_nothing():
    env = Nim()
    env.reset(options={"pile": 1})
    before = (env.pile, env.agent_selection, dict(env.rewards))
    for bad in [1, 2, -1, 1.0, "0", None, True]:
        with pytest.raises(ValueError):
            env.step(bad)
    assert (env.pile, env.agent_selection, dict(env.rewards)) == before
    env.step(np.int64(0))
    assert env.terminations["player_0"]


def test_failed_reset_keeps_the_generator_and_state():
    a, b = Nim(), Nim()
    a.reset(seed=3)
    b.reset(seed=3)
    with pytest.raises(ValueError, match="pile must be"):
        a.reset(options={"pile": 0})
    assert a.pile == b.pile
    a.reset()
    b.reset()
    assert a.pile == b.pile


def test_masks_mirror_observe_and_only_the_actor_has_one():
    env = Nim()
    env.reset(options={"pile": 5})
    actor = env.agent_selection
    other = "player_1" if actor == "player_0" else "player_0"
    assert env.observe(actor)["action_mask"].tolist() == [1, 1]
    assert (env.infos[actor]["action_mask"] == env.observe(actor)["action_mask"]).all()
    assert env.observe(other)["action_mask"].sum() == 0
    with pytest.raises(ValueError):
        env.observe("player_9")


def test_unknown_reset_options_warn_and_are_ignored():
    """Spec 9.6 of every game: an unknown top-level key warns, naming it and the known keys, and is
    dropped before the game sees the options; the known keys still reach it."""
    env, twin = Nim(), Nim()
    with pytest.warns(UserWarning, match=r"unknown options key\(s\) 'options' ignored; known keys: 'pile'"):
        env.reset(seed=0, options={"options": 1})
    twin.reset(seed=0)
    assert env.pile == twin.pile
    with pytest.warns(UserWarning, match="'bogus'"):
        env.reset(seed=0, options={"bogus": 1, "pile": 3})
    assert env.pile == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(options={"pile": 4})
    with pytest.raises(ValueError), pytest.warns(UserWarning):
        env.reset(options={"bogus": 1, "pile": -1})
    assert env.pile == 4


def _eq(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_eq(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # the exact error type and message must match PettingZoo's wrapper
        return (type(e).__name__, str(e))


def test_wrapper_behaves_like_pettingzoos_order_enforcing_wrapper():
    """wrap() reads the hot attributes without __getattr__ (cardzoo/aec.py _OrderEnforcing): every
    read, error and iteration must still be what PettingZoo's own OrderEnforcingWrapper gives."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    ours, theirs = wrap(Nim()), OrderEnforcingWrapper(Nim())
    assert isinstance(ours, OrderEnforcingWrapper)
    names = ["agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "num_agents",
             "_cumulative_rewards"]
    for name in names:  # before reset: PettingZoo's AttributeError
        assert _outcome(lambda: getattr(ours, name)) == _outcome(lambda: getattr(theirs, name)), name
    # calls before reset: the adapter's one NotResetError (a ValueError) instead of PettingZoo's
    # AssertionError, the same as raw_env and BatchGame (docs/env_contract_inputs.md)
    for call in (lambda: ours.step(0), lambda: ours.observe("player_0"), ours.last, ours.agent_iter):
        assert _outcome(call)[0] == "NotResetError"
    for seed in range(6):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        for agent in ours.agent_iter():
            assert agent == theirs.agent_selection
            for name in names:
                assert _eq(getattr(ours, name), getattr(theirs, name)), name
            obs, rew, term, trunc, info = ours.last()
            action = None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0])
            ours.step(action)
            theirs.step(action)
        assert ours.agents == theirs.agents == []
        assert _outcome(lambda: ours.step(None)) == _outcome(lambda: theirs.step(None))  # a warning only
    # the inner env reset directly (not through the wrapper) is what the wrapper shows
    raw = ours.unwrapped
    raw.reset(options={"pile": 4})
    for name in names:
        assert _eq(getattr(ours, name), getattr(raw, name)), name
    assert ours.infos is raw.infos and ours.rewards is raw.rewards and ours.agents is raw.agents


def test_wrapper_copies_stay_in_step_with_their_env():
    import copy

    env = wrap(Nim())
    env.reset(options={"pile": 5})
    twin = copy.deepcopy(env)
    twin.reset(options={"pile": 3})
    env.step(0)
    assert twin.unwrapped.pile == 3 and env.unwrapped.pile == 4
    assert twin.infos is twin.unwrapped.infos and env.infos is env.unwrapped.infos
    assert twin.agent_selection == "player_0" and env.agent_selection == "player_1"
    twin2 = copy.deepcopy(env)  # a copy taken mid-episode steps its own env only
    twin2.step(1)
    assert twin2.unwrapped.pile == 2 and env.unwrapped.pile == 4 and env.agent_selection == "player_1"


def test_wrapper_agent_iter_still_needs_a_step_per_agent():
    """The wrapper steps through the env's own step (no wrapper call); PettingZoo's agent_iter check
    that a loop steps or resets before the next agent still holds, as with OrderEnforcingWrapper."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    for env in (wrap(Nim()), OrderEnforcingWrapper(Nim())):
        env.reset(seed=1)
        it = iter(env.agent_iter())
        next(it)
        with pytest.raises(AssertionError, match="need to call step"):
            next(it)
        env.reset(seed=1)
        it = iter(env.agent_iter())
        next(it)
        env.step(0)
        next(it)
        env.reset(seed=2)
        next(it)


def test_wrapper_agent_iter_yields_what_pettingzoos_does():
    """Whole games through agent_iter (dead steps included) and max_iter give the same agents with
    the wrapper's iterator as with PettingZoo's."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    def seen(env, max_iter):
        env.reset(seed=3)
        out = []
        for agent in env.agent_iter(max_iter):
            out.append(agent)
            _, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else 1)
        return out

    for max_iter in (0, 1, 3, 2**63):
        ours, theirs = seen(wrap(Nim()), max_iter), seen(OrderEnforcingWrapper(Nim()), max_iter)
        assert ours == theirs and len(ours) == min(max_iter, len(theirs))
    assert len(seen(wrap(Nim()), 2**63)) > 3


def test_wrapper_subclass_with_its_own_step_keeps_it():
    """Only the wrapper's own step is replaced by the env's bound step: a subclass's step still runs."""
    from cardzoo.aec import _OrderEnforcing

    calls = []

    class Counting(_OrderEnforcing):
        def step(self, action):
            calls.append(action)
            super().step(action)

    env = Counting(Nim())
    env.reset(options={"pile": 5})
    env.step(0)
    env.step(1)
    assert calls == [0, 1] and env.unwrapped.pile == 2


def test_wrapper_last_and_observe_are_the_envs_own_unless_overridden():
    """After reset the wrapper's last and observe are the env's bound methods (no wrapper call); a
    wrapper subclass's own last or observe still runs."""
    from cardzoo.aec import _OrderEnforcing

    env = wrap(Nim())
    with pytest.raises(ValueError, match="reset"):
        env.last()
    env.reset(options={"pile": 5})
    assert env.last == env.unwrapped.last and env.observe == env.unwrapped.observe
    assert env.last()[0]["action_mask"].tolist() == env.unwrapped.last()[0]["action_mask"].tolist()

    class Marking(_OrderEnforcing):
        def last(self, observe=True):
            return ("marked",) + super().last(observe)[1:]

        def observe(self, agent):
            return "seen"

    env = Marking(Nim())
    env.reset(options={"pile": 5})
    assert env.last()[0] == "marked" and env.observe("player_0") == "seen"


def test_last_hands_out_what_an_overridden_observe_returns():
    """AECEnv's last() returns observe(agent): a raw env subclass that overrides observe gets its own
    observation from last(), while the plain env's last() skips the call."""

    class Tagged(Nim):
        def observe(self, agent):
            obs = super().observe(agent)
            obs["tag"] = agent
            return obs

    env = wrap(Tagged())
    env.reset(options={"pile": 5})
    obs = env.last()[0]
    assert obs["tag"] == env.agent_selection and set(obs) == {"observation", "action_mask", "tag"}
    plain = wrap(Nim())
    plain.reset(options={"pile": 5})
    assert set(plain.last()[0]) == {"observation", "action_mask"} and plain.last(observe=False)[0] is None
