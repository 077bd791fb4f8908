"""The one PettingZoo AEC adapter every game uses.

A game's `raw_env` subclasses `CardGameEnv` and supplies the `_game_*` hooks (its kernels at
batch size 1); everything at the edges — agent selection, masks in observations and infos, rewards
for every seat at once, dead steps, seeding, atomic failed resets, unknown reset options, rendering,
errors, clones — lives here, so the three games behave identically and a fix here fixes all of them.

Masks: a game keeps its own mask array (`_game_mask`), which its steps rewrite in place and its
legality checks read; users only ever get copies of it, or one zero array nobody can write
(`cardzoo.fastpath.zero_mask`), so no array a user holds or edits changes what the env accepts
(docs/env_contract.md). The fast path of a step (the step report, compiled entry points) is
cardzoo.fastpath.
Clones: `copy.deepcopy` and `pickle` copy everything but a game's `_derived` attributes (views into
its state arrays, compiled kernel entry points), which `_bind` makes again on the copy.
"""
from __future__ import annotations

import operator
import warnings
from abc import ABCMeta, abstractmethod
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from cardzoo.fastpath import ILLEGAL, PHASE_STEP, RESYNC, zero_mask
from cardzoo.firstrun import announce_compile, start_compile_helper
from cardzoo.options import check_action, check_seed, require_reset


class CardGameEnv(AECEnv, metaclass=ABCMeta):
    """Unwrapped AEC env; subclasses set the class attributes and implement the hooks."""

    metadata: dict[str, Any] = {"name": "cardgame_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    version = 0
    num_actions: int = 0
    observation_size: int = 0
    observation_bounds: tuple[float, float] = (-1.0, 1.0)
    reset_options: tuple[str, ...] = ()
    """The top-level `reset(options=...)` keys the game reads (spec 9.6): any other key is ignored
    with a UserWarning, so PettingZoo's own api_test probe `options={"options": 1}` passes."""
    phase_names: tuple[str, ...] = ()
    """The game's phase names by its phase code, for `_game_quick_step`'s PHASE_STEP reports."""
    _derived: tuple[str, ...] = ()
    """Instance attributes `_bind` makes from the others (views into the state arrays, compiled kernel
    entry points): copies and pickles leave them out and `_bind` makes them again (see __getstate__)."""
    _plain_observe = True
    """False in a subclass that overrides observe: then last() hands out what that observe returns,
    as AECEnv's last does (else last() skips observe's agent check and call)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._plain_observe = cls.observe is CardGameEnv.observe

    # ---- hooks a game implements -------------------------------------------------------------
    @abstractmethod
    def _game_reset(self, rng: np.random.Generator, options: dict | None) -> None:
        """Validate options, then start a new episode (automatic steps done). Must raise
        ValueError before changing anything: a failed reset leaves the env as it was (the adapter
        restores the generator)."""

    def _game_reset_seeded(self, seed: int):
        """Optional, for speed: ``_game_reset(numpy.random.default_rng(seed), None)`` with the
        generator's draws made in numba (cardzoo.nprandom). Returns the generator as it stands after
        the reset's draws (an nprandom.LazyGenerator: a real Generator is built only if something
        draws again), or None where the game cannot (then nothing changed and the plain reset runs)."""
        return None

    @abstractmethod
    def _game_step(self, action: int) -> None:
        """Apply a legal action of the actor (already checked against the mask)."""

    @abstractmethod
    def _game_actor(self) -> int:
        """Seat to act, -1 once the episode is over."""

    @abstractmethod
    def _game_mask(self) -> np.ndarray:
        """int8[num_actions] legal mask of the actor: the game's own array, which the adapter never
        hands out (users get copies), so the legality checks may read it. It is the same array for
        the env's whole life, rewritten in place by every step: after a quiet step the adapter's fast
        path reads it without calling this hook."""

    @abstractmethod
    def _game_observation(self, seat: int) -> np.ndarray:
        """float32[observation_size]: what `seat` sees (its information set only)."""

    @abstractmethod
    def _game_phase(self) -> str:
        """The spec's phase name, the same for every agent."""

    @abstractmethod
    def _game_rewards(self) -> np.ndarray:
        """float32[num_players]: what the latest step gave each seat."""

    @abstractmethod
    def _game_end(self) -> tuple[bool, bool]:
        """(terminated, truncated) of the episode."""

    @abstractmethod
    def _game_result(self) -> dict | None:
        """The latest finished result (hand, bazi, round) for infos, or None before the first."""

    @abstractmethod
    def _game_render(self) -> str:
        """The table as text (render_mode "ansi")."""

    def _game_quick_step(self, action: int) -> int:
        """Optional, for speed. `action` is an int in range, not yet checked against the mask: apply it
        exactly like `_game_step` and report the step as cardzoo.fastpath says (the one protocol of
        every game's step kernel): ILLEGAL if the actor's mask does not allow it (nothing changed), the
        seat to act next after a quiet step (the phase and the result unchanged, nobody paid, the
        episode goes on), `PHASE_STEP - seat - 8 * phase` after a step that is quiet but for the phase
        (`phase_names[phase]`, which `_game_phase()` then returns), else RESYNC to have the adapter
        bring everything up to date from the hooks. After a quiet step the adapter only moves the mask
        (`_game_mask()`), agent_selection and, for PHASE_STEP, the phase in every info. This default
        checks the mask and reports every step as RESYNC."""
        if not self._mask[action]:
            return ILLEGAL
        self._game_step(action)
        return RESYNC

    # ---- the adapter -------------------------------------------------------------------------
    def __init__(self, num_players: int, render_mode: str | None = None):
        super().__init__()
        package = type(self).__module__.partition(".")[0]
        if announce_compile(package):  # before the game's kernels compile
            start_compile_helper(package)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} is not one of None, "
                             + ", ".join(map(repr, self.metadata["render_modes"])))
        self.render_mode = render_mode
        self.num_players = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        lo, hi = self.observation_bounds
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(lo, hi, (self.observation_size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.num_actions,), np.int8),
        })
        act_space = gymnasium.spaces.Discrete(self.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._num_actions = self.num_actions  # read per step: an instance attribute reads faster
        self._zero_mask = zero_mask(self.num_actions)
        self._rng: np.random.Generator | None = None
        self._mask = self._zero_mask
        self._actor = -1
        self._phase = None
        self._result = None
        self._paid = False
        self._wrappers = []  # the _OrderEnforcing wrappers that mirror the dicts below (see reset)
        self._steps = 0  # step() calls so far: the wrappers' _has_updated compares it (see _OrderEnforcing)
        self.agents = []

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def seat_of(self, agent: str) -> int:
        try:
            return self._seat[agent]
        except (KeyError, TypeError):  # TypeError: an unhashable agent (a list, an array) is no name either
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}") from None

    def _check_reset(self, call: str) -> None:
        """NotResetError (a ValueError) for `call` before the first successful reset."""
        require_reset(self._rng is not None, call)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, not {type(options).__name__}")
        if options:
            unknown = [k for k in options if k not in self.reset_options]
            if unknown:  # spec 9.6: warned about and ignored, as Gymnasium and PettingZoo envs do
                warnings.warn(f"reset: unknown options key(s) {', '.join(map(repr, unknown))} ignored; "
                              f"known keys: {', '.join(map(repr, self.reset_options))}", UserWarning, stacklevel=2)
                options = {k: v for k, v in options.items() if k in self.reset_options}
        if seed is not None or self._rng is None:
            # a fresh generator: a failed reset drops it, so there is nothing to restore
            rng = self._game_reset_seeded(seed) if seed is not None and not options else None
            if rng is None:
                rng = np.random.default_rng(seed)
                self._game_reset(rng, options)
        else:
            rng = self._rng
            saved_rng = rng.bit_generator.state  # the getter builds a new dict: a snapshot already
            try:
                self._game_reset(rng, options)
            except Exception:
                rng.bit_generator.state = saved_rng
                raise
        self._rng = rng
        self._start_episode()

    def _start_episode(self) -> None:
        """The adapter's side of a fresh episode: new agents list, dicts and info dicts (what a user
        kept from the last episode stays as it was), from the game's hooks. Built directly rather
        than empty and then synced: a Court Piece or Sheng Ji episode is short enough that the
        reset's own Python is a visible share of each step."""
        agents = self.possible_agents
        self.agents = agents.copy()
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        actor = self._game_actor()
        zero = self._zero_mask
        mask = self._game_mask() if actor >= 0 else zero
        phase = self._game_phase()
        result = self._game_result()
        infos = {}
        for seat, agent in enumerate(agents):
            info = infos[agent] = {"action_mask": mask.copy() if seat == actor else zero, "phase": phase}
            if result is not None:
                info["result"] = result
        self.infos = infos
        self._actor, self._mask, self._phase, self._result, self._paid = actor, mask, phase, result, False
        # The only place these are rebound (steps and dead steps change them in place): wrappers
        # registered by their own reset hold them in their instance dict, a plain attribute read, and
        # their step, last and observe are this env's own (step until the last agent is removed; see
        # _OrderEnforcing).
        for w in self._wrappers:
            held = w.__dict__
            held.update(agents=self.agents, rewards=self.rewards, terminations=self.terminations,
                        truncations=self.truncations, infos=infos, _cumulative_rewards=self._cumulative_rewards)
            for name in held["_takes"]:
                held[name] = getattr(self, name)
        self._select(actor)

    def _sync(self) -> None:
        """Bring agent_selection, masks, infos, rewards and ends up to date with the game.

        Incremental on purpose (this runs once per step): only the seats whose mask changed are
        touched, phase and result only when they change, rewards only when some seat was paid.
        """
        actor = self._game_actor()
        infos = self.infos
        agents = self.possible_agents
        prev = self._actor
        mask = self._game_mask() if actor >= 0 else self._zero_mask
        self._actor = actor
        self._mask = mask
        if prev >= 0 and prev != actor and agents[prev] in infos:
            infos[agents[prev]]["action_mask"] = self._zero_mask
        phase = self._game_phase()
        result = self._game_result()
        if phase != self._phase or result is not self._result:
            self._phase = phase
            self._result = result
            zero = self._zero_mask
            for seat, agent in enumerate(agents):
                info = infos.get(agent)
                if info is not None:
                    info["action_mask"] = mask.copy() if seat == actor else zero
                    info["phase"] = phase
                    if result is not None:
                        info["result"] = result
        elif actor >= 0:
            infos[agents[actor]]["action_mask"] = mask.copy()
        rewards = self._game_rewards()
        if self._paid or rewards.any():
            self._paid = False
            cumulative = self._cumulative_rewards
            for seat, agent in enumerate(agents):
                if agent in self.rewards:
                    r = float(rewards[seat])
                    self.rewards[agent] = r
                    cumulative[agent] += r
                    # _paid stays True until no reward is outstanding: the quick path in step
                    # then has no cumulative reward to clear
                    self._paid = self._paid or cumulative[agent] != 0.0
        self._select(actor)

    def _select(self, actor: int) -> None:
        """agent_selection on the actor's agent; with nobody to act, every live agent's end from the
        game and the selection kept on a live agent."""
        if actor >= 0:
            self.agent_selection = self.possible_agents[actor]
        else:
            terminated, truncated = self._game_end()
            for agent in self.agents:
                self.terminations[agent] = terminated
                self.truncations[agent] = truncated
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]

    def _validated(self, action) -> int:
        agent = self.agent_selection
        if action is None:
            raise ValueError(f"step(None) is only for a terminated agent; {agent} is live")
        a = action if type(action) is int and 0 <= action < self.num_actions else check_action(
            action, self.num_actions)
        if not self._mask[a]:
            raise ValueError(
                f"illegal action {a} ({self.action_name(a)!r}) for {agent} in phase {self._game_phase()!r}"
            )
        return a

    def step(self, action) -> None:
        self._steps += 1
        actor = self._actor
        # The common case first, with as little Python as possible (this is most of env()'s cost per
        # step): a live actor -- _sync keeps agent_selection on its agent and nobody is done while
        # one acts -- given a plain int in range, while no reward is outstanding (else this step
        # must set rewards back to 0 and clear the actor's cumulative reward: _sync below). The game
        # checks the mask (ILLEGAL: nothing done).
        if actor >= 0 and action.__class__ is int and 0 <= action < self._num_actions and not self._paid:
            nxt = self._game_quick_step(action)
            if nxt >= 0 or nxt <= PHASE_STEP:  # quiet: what _sync does when only the actor and mask changed
                agents = self.possible_agents
                agent = agents[actor]
                mask = self._mask  # the game's own array while a seat acts (_game_mask), just rewritten
                infos = self.infos
                if nxt < 0:  # quiet but for the phase: every info's phase too
                    nxt = PHASE_STEP - nxt
                    phase = self.phase_names[nxt >> 3]
                    nxt &= 7
                    self._phase = phase
                    for info in infos.values():  # every agent is live while one acts (none was removed)
                        info["phase"] = phase
                if nxt == actor:
                    infos[agent]["action_mask"] = mask.copy()
                else:
                    infos[agent]["action_mask"] = self._zero_mask
                    agent = agents[nxt]
                    infos[agent]["action_mask"] = mask.copy()
                    self._actor = nxt
                    self.agent_selection = agent
                return
            if nxt == RESYNC:
                self._sync()
                return
            # ILLEGAL: the checks below raise the error
        self._check_reset("step")
        if not self.agents:
            raise ValueError("the episode is over and every agent has been removed: call reset()")
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            if action is not None:
                raise ValueError(f"{agent} is done: the only valid action is None")
            self._was_dead_step(action)
            if not self.agents:  # the wrappers' own step takes over: it warns on further steps
                for w in self._wrappers:
                    w.__dict__.pop("step", None)
            return
        a = self._validated(action)
        self._cumulative_rewards[agent] = 0.0
        self._game_step(a)
        self._sync()

    # ---- clones: copy.deepcopy and pickle ---------------------------------------------------------
    def _bind(self) -> None:
        """Make the `_derived` attributes from the others; a game that has any overrides this (and
        calls it at the end of its __init__). A copy runs it after the rest of its state is in place."""

    def __getstate__(self) -> dict:
        derived = self._derived
        return {k: v for k, v in self.__dict__.items() if k not in derived}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()
        # The zero mask handed to seats not to act is read-only for good (see cardzoo.fastpath.zero_mask); a copy of it
        # is an ordinary array: put a fresh one wherever the copied one is (infos, the current mask).
        copied, zero = self._zero_mask, zero_mask(self.num_actions)
        self._zero_mask = zero
        if self._mask is copied:
            self._mask = zero
        elif getattr(self, "_actor", -1) >= 0:  # while a seat acts, _mask is the game's own array
            self._mask = self._game_mask()
        for info in self.infos.values() if hasattr(self, "infos") else ():
            if info.get("action_mask") is copied:
                info["action_mask"] = zero

    def observe(self, agent: str) -> dict:
        if self._rng is None:  # _check_reset, without a call on the path every decision takes
            self._check_reset("observe")
        return self._observation(self.seat_of(agent))

    def _observation(self, seat: int) -> dict:
        mask = self._mask if seat == self._actor else self._zero_mask
        return {"observation": self._game_observation(seat), "action_mask": mask.copy()}

    def last(self, observe: bool = True):
        if self._rng is None:
            self._check_reset("last")
        agent = self.agent_selection  # one of the agents once reset: no seat_of check
        obs = None
        if observe:
            obs = self._observation(self._seat[agent]) if self._plain_observe else self.observe(agent)
        return (obs, self._cumulative_rewards[agent], self.terminations[agent], self.truncations[agent],
                self.infos[agent])

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        self._check_reset("render")
        return self._game_render()

    def close(self) -> None:
        pass


class _NotReset:
    """The wrapper's `_live` until the first reset: it has no attributes, so reading agent_selection
    fails and Python falls back to OrderEnforcingWrapper.__getattr__, which raises PettingZoo's own
    "agent_selection cannot be accessed before reset"."""

    __slots__ = ()

    def __reduce__(self):
        return "_NOT_RESET"  # copies and pickles of a wrapper keep the one sentinel (compared by `is`)


_NOT_RESET = _NotReset()


class _OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with the attributes read every step made cheap to read.

    Same checks, same errors: the base class routes every attribute through __getattr__, which costs
    as much as a whole kernel step. Here
    - agents, rewards, _cumulative_rewards, terminations, truncations and infos are the env's own
      objects in this wrapper's instance dict, put there by the env's reset once this wrapper has
      been reset (the env rebinds them nowhere else); before that they are missing, so reading them
      goes through __getattr__ and raises PettingZoo's "... cannot be accessed before reset";
    - agent_selection, rebound on every step, is a C-level property through `_live` (the env once
      reset, a sentinel without attributes before), which is how `_has_reset` is kept;
    - from the env's reset until its last agent is removed -- while the base class's step would only
      set _has_updated and call the env's step -- `step` in the instance dict is the env's own bound
      step (put there and removed by the env), so a step costs no wrapper call. _has_updated is then
      kept by the env's step counter: True when set so, or when the env stepped since it was set
      False (the only thing agent_iter's iterator does with it);
    - otherwise step skips two calls;
    - once reset, `last` and `observe` in the instance dict are the env's own bound methods too (the
      base classes' only check the reset, then pass the call on).
    """

    agent_selection = property(operator.attrgetter("_live.agent_selection"))

    @property
    def _has_reset(self) -> bool:
        return self._live is not _NOT_RESET

    @_has_reset.setter
    def _has_reset(self, value: bool) -> None:
        # OrderEnforcingWrapper sets this before BaseWrapper sets self.env (False) and in reset (True)
        self._live = self.env if value else _NOT_RESET

    @property
    def _has_updated(self) -> bool:
        return self._updated or getattr(self.env, "_steps", 0) != self._updated_at

    @_has_updated.setter
    def _has_updated(self, value: bool) -> None:
        # OrderEnforcingWrapper sets this before BaseWrapper sets self.env (False) and in reset (True)
        self._updated = bool(value)
        self._updated_at = getattr(self.__dict__.get("env"), "_steps", 0)

    def __str__(self) -> str:
        return str(self.env)

    def reset(self, seed=None, options=None) -> None:
        env = self.env
        if self.__dict__.get("_registered_with") is not env:
            wrappers = getattr(env, "_wrappers", None)  # None: not a CardGameEnv, reads go the slow way
            if wrappers is None:
                self._reset_plain(seed, options)
                return
            # the methods the env's reset binds here: this class's own (a subclass's stay its own)
            self._takes = tuple(name for name in ("step", "last", "observe")
                                if getattr(type(self), name) is getattr(_OrderEnforcing, name))
            wrappers.append(self)
            self._registered_with = env
        # OrderEnforcingWrapper.reset, its three calls made here (a reset is a visible share of a short
        # episode): reset and updated, then the env's reset; a failed reset leaves the wrapper as it was
        was_live = self._live
        self._live = env
        self._updated = True
        self._updated_at = env._steps
        try:
            env.reset(seed=seed, options=options)
        except Exception:
            self._live = was_live
            raise

    def _reset_plain(self, seed, options) -> None:
        was_reset = self._has_reset
        try:
            super().reset(seed=seed, options=options)
        except Exception:
            self._has_reset = was_reset  # a failed reset leaves the wrapper as it was, so unreset stays unreset
            raise

    def step(self, action) -> None:
        env = self._live
        if env is not _NOT_RESET and env.agents:
            self._has_updated = True
            env.step(action)
        else:
            require_reset(env is not _NOT_RESET, "step")
            super().step(action)

    # before reset these raise the adapter's NotResetError, as the raw env does; after it they are
    # the env's own (the base classes' would only pass through three more calls to the same code)
    def observe(self, agent):
        env = self._live
        require_reset(env is not _NOT_RESET, "observe")
        return env.observe(agent)

    def last(self, observe: bool = True):
        env = self._live
        require_reset(env is not _NOT_RESET, "last")
        return env.last(observe)

    def render(self):
        require_reset(self._has_reset, "render")
        return super().render()

    def agent_iter(self, max_iter: int = 2**63):
        require_reset(self._has_reset, "agent_iter")
        return _AgentIterable(self, max_iter)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self):
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, its checks and its error, in one call per agent
    instead of five (it runs once per decision of every RL loop). It keeps the env (agent_iter needs
    a reset, after which the wrapper's `_live` is the env for good) and the wrapper's instance dict,
    where `_has_updated` keeps `_updated` and `_updated_at`: plain dict reads, where every attribute
    read on the wrapper takes the slow path of a class with __getattr__."""

    def __init__(self, env, max_iter):
        super().__init__(env, max_iter)
        self._raw = env._live
        self._flags = env.__dict__

    def __next__(self) -> str:
        env = self._raw
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        flags = self._flags
        steps = env._steps
        assert flags["_updated"] or steps != flags["_updated_at"], \
            "need to call step() or reset() in a loop over `agent_iter`"
        flags["_updated"] = False
        flags["_updated_at"] = steps
        return env.agent_selection


def wrap(raw: CardGameEnv) -> OrderEnforcingWrapper:
    """The public `env()`: the raw env inside PettingZoo's OrderEnforcingWrapper only (a subclass
    that changes no behaviour, only the speed of attribute access)."""
    return _OrderEnforcing(raw)
