"""The shared AEC adapter's incremental bookkeeping and fast step paths against a from-scratch reference.

`CardGameEnv` updates the PettingZoo dicts incrementally (only the seats that changed) and takes a quick
path on steps a game reports as quiet (`_game_quick_step`); `wrap()` reads the hot attributes through
C-level getters. Every one of those shortcuts must give exactly what a plain adapter gives: here each
game's raw_env is subclassed into a reference that rebuilds every mask, info, reward, cumulative reward
and end flag from the game hooks after every step (no caching, no quick path, `_game_step` only), and
seeded random games are played through the public `env()` and the reference side by side, comparing
agent_selection, agents, all dicts, last() and observe() of every agent after every step, dead steps
included. Some steps pass the action as a numpy integer so the adapter's slow path is mixed in.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from cardzoo.options import check_action


def reference_class(raw_cls):
    """raw_cls with the adapter's step/_observation/_sync replaced by a straightforward recomputation."""

    class Reference(raw_cls):
        def _sync(self, pay: bool = True) -> None:
            zero = np.zeros(self.num_actions, np.int8)
            actor = self._game_actor()
            mask = np.array(self._game_mask(), np.int8) if actor >= 0 else zero
            phase = self._game_phase()
            result = self._game_result()
            for seat, agent in enumerate(self.possible_agents):
                if agent in self.infos:
                    info = self.infos[agent]
                    info["action_mask"] = mask if seat == actor else zero
                    info["phase"] = phase
                    if result is not None:
                        info["result"] = result
            if pay:
                paid = self._game_rewards()
                for seat, agent in enumerate(self.possible_agents):
                    if agent in self.rewards:
                        self.rewards[agent] = float(paid[seat])
                        self._cumulative_rewards[agent] += float(paid[seat])
            if actor >= 0:
                self.agent_selection = self.possible_agents[actor]
            else:
                terminated, truncated = self._game_end()
                for agent in self.agents:
                    self.terminations[agent] = terminated
                    self.truncations[agent] = truncated
                if self.agent_selection not in self.agents:
                    self.agent_selection = self.agents[0]

        def step(self, action) -> None:
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                assert action is None
                self._was_dead_step(action)
                return
            a = check_action(action, self.num_actions)
            assert self._game_actor() == self.seat_of(agent) and self._game_mask()[a]
            self._cumulative_rewards[agent] = 0.0
            self._game_step(a)
            self._sync()

        def _observation(self, seat):  # what observe(agent) and last() hand out
            actor = self._game_actor()
            mask = np.array(self._game_mask(), np.int8) if actor == seat and actor >= 0 else np.zeros(
                self.num_actions, np.int8)
            return {"observation": self._game_observation(seat), "action_mask": mask}

    return Reference


def _same_array(a, b, what):
    assert isinstance(a, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, what
    assert a.tobytes() == b.tobytes(), what


def _same_value(a, b, what):
    if isinstance(b, np.ndarray):
        _same_array(a, b, what)
    elif isinstance(b, dict):
        assert isinstance(a, dict) and a.keys() == b.keys(), what
        for k, v in b.items():
            if type(v) in (bool, float, str) or v is None:  # the common leaves, checked inline
                assert type(a[k]) is type(v) and a[k] == v, f"{what}[{k!r}]"
            else:
                _same_value(a[k], v, f"{what}[{k!r}]")
    else:
        assert type(a) is type(b) and a == b, what


def _compare(env, ref, observe_all, what):
    assert env.agents == ref.agents, what
    if not ref.agents:
        return
    assert env.agent_selection == ref.agent_selection, what
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        _same_value(getattr(env, name), getattr(ref, name), f"{what}: {name}")
    got, want = env.last(), ref.last()
    for i, (g, w) in enumerate(zip(got, want)):
        _same_value(g, w, f"{what}: last()[{i}]")
    if observe_all:
        for agent in ref.agents:
            _same_value(env.observe(agent), ref.observe(agent), f"{what}: observe({agent})")


def play_against_reference(make_env, make_ref, games: int, seed: int, observe_every: int = 7):
    """Play `games` seeded random games through both envs; returns the number of steps compared."""
    rnd = random.Random(seed)
    env, ref = make_env(), make_ref()
    steps = 0
    for game in range(games):
        s = rnd.randrange(1 << 30)
        env.reset(seed=s)
        ref.reset(seed=s)
        _compare(env, ref, True, f"game {game} seed {s} after reset")
        # Some of the masks the actor was handed, with their bytes then: later steps must not change
        # them (the adapter hands out copies of the game's own mask, which every step rewrites).
        kept = []
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                action = None
            else:
                mask = env.infos[agent]["action_mask"]
                if rnd.random() < 0.3:
                    kept.append((mask, mask.tobytes(), steps))
                legal = np.flatnonzero(mask)
                del mask
                action = int(legal[rnd.randrange(len(legal))])
                if rnd.random() < 0.1:  # the adapter's slow path (any integral type) in between
                    action = np.int64(action)
            env.step(action)
            ref.step(action)
            steps += 1
            _compare(env, ref, steps % observe_every == 0 or not env.agents or action is None,
                     f"game {game} seed {s} step {steps} action {action!r}")
        for mask, then, step in kept:
            assert mask.tobytes() == then, f"game {game} seed {s}: the mask handed out at step {step} changed"
    return steps


def _lopti(**config):
    import lopti_env
    return (lambda: lopti_env.env(**config)), (lambda: reference_class(lopti_env.raw_env)(**config))


def _courtpiece(**config):
    import courtpiece_env
    return (lambda: courtpiece_env.env(**config)), (lambda: reference_class(courtpiece_env.raw_env)(**config))


def _shengji(**config):
    import shengji_env
    return (lambda: shengji_env.env(**config)), (lambda: reference_class(shengji_env.raw_env)(**config))


# (name, factory, games in CI, games in the slow run)
CASES = [
    ("lopti-2", lambda: _lopti(num_players=2), 8, 300),
    ("lopti-3", lambda: _lopti(num_players=3), 6, 300),
    ("lopti-4", lambda: _lopti(num_players=4), 6, 300),
    ("lopti-5", lambda: _lopti(num_players=5), 6, 300),
    ("lopti-session", lambda: _lopti(num_players=3, session=True, session_rounds=2, max_moves=200,
                                     rps_max_throws=40), 6, 200),
    ("courtpiece-single_sar", lambda: _courtpiece(variant="single_sar"), 40, 300),
    ("courtpiece-double_sar", lambda: _courtpiece(variant="double_sar"), 30, 300),
    ("courtpiece-chhupa_rang", lambda: _courtpiece(variant="chhupa_rang"), 30, 300),
    ("courtpiece-be_rang", lambda: _courtpiece(variant="be_rang"), 30, 300),
    ("courtpiece-mendi_coat", lambda: _courtpiece(variant="mendi_coat"), 40, 300),
    ("courtpiece-mendi_coat-band", lambda: _courtpiece(variant="mendi_coat", mendi_trump="band"), 20, 200),
    # change cards (action 59 draws from the generator: the env's plain path) and change trump
    ("courtpiece-change_cards", lambda: _courtpiece(variant="single_sar", change_cards=True, change_cards_limit=2,
                                                   change_trump=True), 20, 200),
    ("courtpiece-chhupa_rang-change", lambda: _courtpiece(variant="chhupa_rang", change_cards=True,
                                                         change_trump=True), 20, 200),
    # matches: a decided bazi deals the next one inside the step (rewards, result, a new phase)
    ("courtpiece-match", lambda: _courtpiece(variant="double_sar", episode="match", match_target=4), 3, 40),
    ("courtpiece-mendi_coat-match", lambda: _courtpiece(variant="mendi_coat", episode="match", match_target=2), 3, 40),
    ("shengji", lambda: _shengji(), 4, 200),
    ("shengji-3-after_deal", lambda: _shengji(decks=3, declaration_mode="after_deal"), 1, 40),
    ("shengji-match", lambda: _shengji(decks=1, episode="match", max_hands=3), 1, 40),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name,factory,games,_", CASES, ids=IDS)
def test_env_matches_from_scratch_reference(name, factory, games, _):
    make_env, make_ref = factory()
    assert play_against_reference(make_env, make_ref, games, seed=len(name)) > games


@pytest.mark.slow
@pytest.mark.parametrize("name,factory,_,games", CASES, ids=IDS)
def test_env_matches_from_scratch_reference_long(name, factory, _, games):
    make_env, make_ref = factory()
    assert play_against_reference(make_env, make_ref, games, seed=1000 + len(name), observe_every=3) > games


def test_kept_mask_check_can_fail():
    """A mask array the env writes over in place on a later step (what handing out its own buffer would do) is caught."""
    import lopti_env

    class Reused(lopti_env.raw_env):
        def _game_quick_step(self, action):
            handed = self.infos[self.agent_selection]["action_mask"]
            moved = super()._game_quick_step(action)
            handed[:] = self._mask_i8  # the new mask written over the one handed out
            return moved

    from cardzoo.aec import wrap
    with pytest.raises(AssertionError, match="changed"):
        play_against_reference(lambda: wrap(Reused(num_players=2)),
                               lambda: reference_class(lopti_env.raw_env)(num_players=2), 1, seed=1)


def test_reference_comparison_can_fail():
    """A wrong mask in infos (what a stale incremental update would leave) is caught."""
    import lopti_env

    class Stale(lopti_env.raw_env):
        def _game_mask(self):
            m = super()._game_mask()
            if self._c_phase == 1 and m[52]:  # pickup legal in play: report it illegal
                m[52] = 0
            return m

    from cardzoo.aec import wrap
    with pytest.raises(AssertionError):
        play_against_reference(lambda: wrap(Stale(num_players=2)),
                               lambda: reference_class(lopti_env.raw_env)(num_players=2), 3, seed=1)
