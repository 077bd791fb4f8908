"""`cardzoo demo`: one full game between agents, printed move by move with the table rendered."""
from __future__ import annotations

import numpy as np

from cardzoo.registry import make


def _default_agents(game: str, num_players: int, seed: int):
    """The game's rule-based agents when the agents package is installed, else None (random)."""
    try:
        from agents import make_agent
    except ImportError:
        return None, "random"
    return [make_agent("heuristic", game, seed=seed + i) for i in range(num_players)], "heuristic"


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
    result = None
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            result = info.get("result", result)
            env.step(None)
            continue
        seat = raw.seat_of(agent)
        if agents is not None:
            agents[seat].observe_env(raw, seat)
            action = int(agents[seat].act(obs["observation"], obs["action_mask"]))
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        print(f"{agent:>9} [{info['phase']}]: {raw.action_name(action)}")
        env.step(action)
        steps += 1
    print(env.render())
    print(f"{steps} decisions; result: {result}")
    return 0
