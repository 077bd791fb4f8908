"""Everything a user or a later step can see of an AEC env or a BatchGame, as plain comparable values:
two envs with equal snapshots show the same thing now and, drawing from equal generators, later."""
from __future__ import annotations

import random

import numpy as np


def _plain(v):
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return (type(v).__name__, v)


def generator_states(obj, depth: int = 1) -> list:
    """The bit-generator states of every numpy Generator obj holds, directly or (depth levels down)
    in its attributes' attributes (an episode record's generator), in attribute order."""
    out = []
    for name, v in sorted(vars(obj).items()):
        if isinstance(v, np.random.Generator):
            out.append((name, v.bit_generator.state))
        elif depth and hasattr(v, "__dict__") and not isinstance(v, type):
            out += [(f"{name}.{n}", s) for n, s in generator_states(v, depth - 1)]
    return out


def snapshot(env) -> dict:
    """An AEC env (wrapped or raw): agents, selection, rewards, ends, infos, every agent's observation,
    the public state, the game record and the generators' states."""
    raw = env.unwrapped
    # the record field by field: a copy need not copy the padding bytes between fields
    record = [(name, raw._st[name].tobytes()) for name in raw._st.dtype.names]
    snap = {"agents": list(raw.agents), "record": record, "rngs": generator_states(raw)}
    if raw.agents:
        snap["selection"] = raw.agent_selection
        snap["public"] = raw.public_state()
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        snap[name] = _plain(getattr(raw, name))
    snap["observe"] = {a: _plain(raw.observe(a)) for a in raw.possible_agents}
    return snap


def batch_snapshot(g) -> dict:
    return {"current": g.current_player.tobytes(), "done": g.done.tobytes(), "mask": g.legal_mask().tobytes(),
            "obs": g.observe().tobytes(), "rewards": g.rewards.tobytes()}


def random_action(env, rnd: random.Random):
    """None for a done agent, else a uniformly random legal action of agent_selection."""
    raw = env.unwrapped
    agent = raw.agent_selection
    if raw.terminations[agent] or raw.truncations[agent]:
        return None
    legal = np.flatnonzero(raw.infos[agent]["action_mask"])
    return int(legal[rnd.randrange(len(legal))])


def random_batch_actions(g, rnd: random.Random) -> np.ndarray:
    mask = g.legal_mask()
    acts = np.zeros(g.n, np.int64)
    for b in np.flatnonzero(~g.done):
        legal = np.flatnonzero(mask[b])
        acts[b] = legal[rnd.randrange(len(legal))]
    return acts
