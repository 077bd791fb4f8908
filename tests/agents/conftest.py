"""Shared helpers for the agents tests: which games are playable in this build, and one recorded
AEC episode."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

GAMES = ("courtpiece", "lopti", "shengji")
MODULES = {"courtpiece": "courtpiece_env", "lopti": "lopti_env", "shengji": "shengji_env"}
# small, fast configurations for every game
CONFIGS = {"courtpiece": {}, "lopti": {"num_players": 3}, "shengji": {"decks": 1}}


def game_available(game: str) -> bool:
    try:
        mod = importlib.import_module(MODULES[game])
    except ImportError:
        return False
    return hasattr(mod, "BatchGame") and hasattr(mod, "env")


def require(game: str):
    if not game_available(game):
        pytest.skip(f"{MODULES[game]} is not available in this build")


def record_game(game, agents, seed, config):
    """Play one AEC episode and return the actions taken; every action is checked legal."""
    from agents.arena import random_deal
    from cardzoo.registry import make

    env = make(game, **config)
    env.reset(seed=seed, options={"deal": random_deal(game, np.random.default_rng(seed), config)})
    names = list(env.unwrapped.possible_agents)
    actions = []
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = names.index(name)
        ag = agents[seat]
        if ag.needs_env:
            ag.observe_env(env, seat)
        a = ag.act(obs["observation"], obs["action_mask"])
        assert isinstance(a, int)
        assert obs["action_mask"][a] == 1, f"{ag} chose illegal action {a}"
        actions.append(a)
        env.step(a)
    return actions
