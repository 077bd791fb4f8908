"""Single-seat Gymnasium view of any cardzoo game: one seat learns, the other seats are agents.

    env = SingleSeatEnv("courtpiece", seat=0, variant="single_sar")      # others play randomly
    obs, info = env.reset(seed=0); obs, r, terminated, truncated, info = env.step(a)
    env.action_masks()   # bool[A], the hook sb3-contrib's MaskablePPO calls

The observation is the seat's observation vector; the legal mask is in info["action_mask"] and
action_masks(). `action_space.sample()` draws a legal action of the current position (an explicit
`mask=` wins), so Gymnasium's check_env and naive random loops never send an illegal action, which
still raises ValueError (or, with `illegal_action="sample"`, is replaced by a legal action drawn
from the env's np_random and reported in info["illegal_action"]: for tools such as
gymnasium's check_env that step an action sampled before reset). The reward of a step is everything the seat received while the others moved, so
episode returns equal the AEC env's.
"""
from __future__ import annotations

import gymnasium
import numpy as np

from cardzoo.options import check_action, check_seed
from cardzoo.registry import make


class _UniformRandom:
    """Uniform over legal actions (what the other seats do unless given agents)."""

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask):
        return int(self.rng.choice(np.flatnonzero(action_mask)))


class LegalDiscrete(gymnasium.spaces.Discrete):
    """Discrete(n) whose sample() without a mask draws from `legal_mask` (the env keeps it current).

    Equal to Discrete(n) for every other purpose (contains, ==, pickling, SB3's isinstance checks).
    The link is a plain array, so a copy of the space in another process keeps a stale mask: sample
    there with an explicit mask.
    """

    def __init__(self, n: int, seed=None):
        super().__init__(n, seed=seed)
        self.legal_mask = np.zeros(n, np.int8)

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self.legal_mask.any():
            mask = self.legal_mask
        return super().sample(mask=mask, probability=probability)


class SingleSeatEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str = "courtpiece", seat: int = 0, opponents=None, render_mode=None, *,
                 illegal_action: str = "raise", **config):
        if illegal_action not in ("raise", "sample"):
            raise ValueError(f"illegal_action must be 'raise' or 'sample', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.game = game
        self.aec = make(game, raw=True, render_mode=render_mode, **config)
        n = self.aec.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat must be an int in 0..{n - 1}, got {seat!r}")
        self.seat = int(seat)
        self.agent = self.aec.possible_agents[self.seat]
        if opponents is None:
            opponents = [_UniformRandom() for _ in range(n)]
        elif not isinstance(opponents, (list, tuple)):
            opponents = [opponents] * n
        if len(opponents) != n:
            raise ValueError(f"opponents must hold one agent per seat ({n}); the learner's entry is ignored")
        self._from_specs = set()  # the seats whose agent was made here from a spec (reset seeds them)
        self.opponents = [None if s == self.seat else self._opponent(s, opp, config)
                          for s, opp in enumerate(opponents)]
        space = self.aec.observation_space(self.agent)["observation"]
        self.observation_space = space
        self.action_space = LegalDiscrete(self.aec.num_actions)
        self.render_mode = render_mode
        self._mask = np.zeros(self.aec.num_actions, np.int8)

    def _opponent(self, seat: int, opp, config: dict):
        """The agent of another seat: an agent spec ("heuristic", "pimc:samples=16", see
        agents.make_agent) made for this game, or anything with act(observation, action_mask)."""
        if isinstance(opp, str):
            from agents import make_agent

            self._from_specs.add(seat)
            return make_agent(opp, self.game, seed=seat, env_config=config)
        if not callable(getattr(opp, "act", None)):
            raise ValueError(f"opponents[{seat}]={opp!r} is not an agent: give an agent spec such as "
                             "'heuristic', or an object with act(observation, action_mask)")
        return opp

    def _advance(self) -> float:
        """Let the other seats act until the learner must act or the episode ends; their rewards to us."""
        reward = 0.0
        aec = self.aec
        while True:
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                return reward
            if agent == self.agent:
                return reward
            seat = aec.seat_of(agent)
            obs = aec.observe(agent)
            opp = self.opponents[seat]
            if hasattr(opp, "observe_env"):
                opp.observe_env(aec, seat)
            aec.step(int(opp.act(obs["observation"], obs["action_mask"])))
            reward += aec.rewards[self.agent]

    def _view(self):
        obs = self.aec.observe(self.agent)
        self._mask = obs["action_mask"]
        self.action_space.legal_mask = self._mask.astype(np.int8)
        info = {"action_mask": self._mask, "phase": self.aec.infos[self.agent]["phase"]}
        if "result" in self.aec.infos[self.agent]:
            info["result"] = self.aec.infos[self.agent]["result"]
        return obs["observation"], info

    def reset(self, *, seed=None, options=None):
        seed = check_seed(seed)
        self.aec.reset(seed=seed, options=options)  # first: a refused seed or options changes nothing
        super().reset(seed=seed)
        if seed is not None:
            for i, opp in enumerate(self.opponents):
                if isinstance(opp, _UniformRandom):
                    opp.rng = np.random.default_rng([seed, i])
                elif i in self._from_specs:
                    opp.reset(seed * 8 + i)
        self._advance()
        return self._view()

    def step(self, action):
        aec = self.aec
        aec._check_reset("step")
        action = check_action(action, aec.num_actions)  # an int, never a float or text cast to one
        if aec.terminations[self.agent] or aec.truncations[self.agent]:
            raise ValueError("the episode is over: call reset()")
        replaced = None
        if self.illegal_action == "sample" and not self._mask[action]:
            replaced = action
            action = int(self.np_random.choice(np.flatnonzero(self._mask)))
        aec.step(action)
        reward = aec.rewards[self.agent]
        reward += self._advance()
        obs, info = self._view()
        if replaced is not None:
            info["illegal_action"] = replaced
        return obs, float(reward), bool(aec.terminations[self.agent]), bool(aec.truncations[self.agent]), info

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    def render(self):
        return self.aec.render()
