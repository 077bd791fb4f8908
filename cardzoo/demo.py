"""`cardzoo demo`: one full game between agents, printed move by move with the table rendered."""
from __future__ import annotations

import numpy as np

from cardzoo.registry import make


def _default_agents(game: str, num_players: int, seed: int):
    """The strongest shipped rule-based agents when the agents package is present, else random."""
    try:
        from agents import heuristic_agent
        from agents.base import RandomAgent
    except ImportError:
        return None, "random"
    try:
        return [heuristic_agent(game, seed=seed + i) for i in range(num_players)], "heuristic"
    except ValueError:
        return [RandomAgent(seed=seed + i) for i in range(num_players)], "random"


def run_demo(game: str = "courtpiece", seed: int = 0, variant: str | None = None) -> int:
    config = {"variant": variant} if variant else {}
    env = make(game, render_mode="ansi", **config)
    env.reset(seed=seed)
    raw = env.unwrapped
    agents, kind = _default_agents(game, raw.num_players, seed)
    rng = np.random.default_rng(seed)
    print(f"== {raw.metadata['name']} {config or ''} seed={seed}, {kind} agents ==")
    print(env.render())
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = raw.seat_of(agent)
        if agents is not None:
            if hasattr(agents[seat], "observe_env"):
                agents[seat].observe_env(raw, seat)
            action = int(agents[seat].act(obs["observation"], obs["action_mask"]))
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        print(f"{agent:>9} [{info['phase']}]: {raw.action_name(action)}")
        env.step(action)
        steps += 1
    print(env.render())
    result = raw.public_state().get("result")
    print(f"{steps} decisions; result: {result}")
    return 0
