"""Agents for cardzoo games: random, rule-based heuristics, determinized search, learned (torch).

``make_agent(spec, game, seed)`` builds one from a short spec string:

* ``"random"`` — uniform over legal actions;
* ``"heuristic"`` — the game's rule-based agent;
* ``"greedy"`` — Court Piece: the vectorized rollout policy of the search agent;
* ``"pimc"`` or ``"pimc:samples=16,rollouts=8"`` — the game's determinized search agent;
* ``"learned:<path.pt>"`` or a path ending in ``.pt`` — a trained checkpoint: a PPO policy
  (``agents.learned``) or a residual policy over the heuristic (``agents.residual``), by its JSON's format.
"""
from __future__ import annotations

from agents.base import Agent, RandomAgent, legal_actions

HEURISTICS = {
    "courtpiece": ("agents.courtpiece.heuristic", "CourtPieceHeuristic"),
    "lopti": ("agents.lopti.heuristic", "LoptiHeuristic"),
    "shengji": ("agents.shengji.heuristic", "ShengJiHeuristic"),
}


SEARCH = {
    "courtpiece": ("agents.courtpiece.search", "PIMCAgent"),
    "lopti": ("agents.lopti.search", "LoptiSearch"),
    "shengji": ("agents.shengji.search", "ShengJiSearch"),
}


def _agent_class(table: dict, kind: str, game: str):
    import importlib

    try:
        mod, cls = table[game]
        return getattr(importlib.import_module(mod), cls)
    except (KeyError, ModuleNotFoundError):
        raise ValueError(f"no {kind} agent for game {game!r}") from None


def heuristic_class(game: str):
    return _agent_class(HEURISTICS, "heuristic", game)


def search_class(game: str):
    return _agent_class(SEARCH, "search", game)


def _parse_kwargs(text: str) -> dict:
    out = {}
    for part in filter(None, text.split(",")):
        if "=" not in part:
            raise ValueError(f"agent option {part!r} is not key=value")
        k, v = part.split("=", 1)
        v = v.strip()
        if v.lower() in ("true", "false"):
            out[k.strip()] = v.lower() == "true"
        else:
            try:
                out[k.strip()] = int(v)
            except ValueError:
                try:
                    out[k.strip()] = float(v)
                except ValueError:
                    out[k.strip()] = v
    return out


def make_agent(spec: str, game: str, seed: int | None = None, env_config: dict | None = None) -> Agent:
    """An agent from a spec string (see the module docstring)."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.partition(":")
    if name.endswith(".pt"):
        name, rest = "learned", spec
    if name == "random":
        agent = RandomAgent(game, seed, **_parse_kwargs(rest))
    elif name == "heuristic":
        agent = heuristic_class(game)(game, seed, **_parse_kwargs(rest))
    elif name == "greedy":
        from agents.courtpiece.heuristic import CourtPieceGreedy

        agent = CourtPieceGreedy(game, seed, **_parse_kwargs(rest))
    elif name == "pimc":
        agent = search_class(game)(game, seed, env_config=env_config, **_parse_kwargs(rest))
    elif name == "learned":
        from agents.learned import LearnedAgent
        from agents.residual import FORMAT as RESIDUAL, checkpoint_format, residual_agent_class

        path, _, opts = rest.partition(",")
        kind = residual_agent_class(path) if checkpoint_format(path) == RESIDUAL else LearnedAgent
        agent = kind(game, seed, checkpoint=path, **_parse_kwargs(opts))
    else:
        raise ValueError(f"unknown agent {spec!r}: use random, heuristic, greedy, pimc[:k=v,...] or learned:<path.pt>")
    agent.label = spec
    return agent


__all__ = ["Agent", "RandomAgent", "legal_actions", "make_agent", "heuristic_class", "search_class"]
