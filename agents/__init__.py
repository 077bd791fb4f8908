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

import inspect
import re
import typing

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


def _split_options(text: str) -> dict:
    """'k=v,k2=v2' -> {k: 'v', k2: 'v2'} (texts, spaces around each stripped)."""
    out = {}
    for part in filter(None, text.split(",")):
        if "=" not in part:
            raise ValueError(f"agent option {part!r} is not key=value")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _guess(v: str):
    """A value by its look: true/false, an int, a float, else the text (for agents that check their
    own **config)."""
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    for kind in (int, float):
        try:
            return kind(v)
        except ValueError:
            pass
    return v


def _typed(name: str, v: str, kind):
    """v read as `kind` (bool, int, float or str), or a ValueError naming the option: a float or a
    bool is not an int, and nothing is converted that does not say exactly that value."""
    if kind is bool:
        if v.lower() not in ("true", "false"):
            raise ValueError(f"agent option {name}={v!r} must be true or false")
        return v.lower() == "true"
    if kind is int:
        if not re.fullmatch(r"[+-]?\d+", v):
            raise ValueError(f"agent option {name}={v!r} must be an integer")
        return int(v)
    if kind is float:
        try:
            return float(v)
        except ValueError:
            raise ValueError(f"agent option {name}={v!r} must be a number") from None
    return v


# constructor arguments that make_agent and the callers fill in, never options of a spec
_NOT_OPTIONS = ("self", "game", "seed", "env_config", "checkpoint", "model", "meta")


def agent_options(cls, text: str) -> dict:
    """The keyword options of agent class `cls` from a spec's 'k=v,...' text, each read as the type its
    constructor declares. An unknown option or a value of the wrong type is a ValueError naming it; a
    class that takes **config checks its own options (values then read by their look)."""
    given = _split_options(text)
    init = cls.__init__
    params = inspect.signature(init).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return {k: _guess(v) for k, v in given.items()}
    hints = typing.get_type_hints(init)
    known = [n for n, p in params.items() if n not in _NOT_OPTIONS and p.kind is p.POSITIONAL_OR_KEYWORD]
    out = {}
    for name, v in given.items():
        if name not in known:
            what = ", ".join(known) or "none"
            seed = " (the seed comes from the caller: --seed)" if name == "seed" else ""
            raise ValueError(f"unknown agent option {name!r} for {cls.__name__}{seed}; its options: {what}")
        kinds = [t for t in typing.get_args(hints.get(name)) or (hints.get(name),) if t is not type(None)]
        kind = kinds[0] if len(kinds) == 1 and kinds[0] in (bool, int, float, str) else None
        out[name] = _typed(name, v, kind) if kind else _guess(v)
    return out


def check_trained_config(path: str, meta: dict | None, game: str, env_config: dict | None) -> None:
    """A checkpoint plays the game options it was trained on (``meta``, its JSON: env_config): another
    variant, player count or deck count is a ValueError naming both (env_config None: the caller does
    not say). learned: agents, and the search agents' prior= and policy= networks, all check here."""
    from cardzoo.registry import game_config

    trained = (meta or {}).get("env_config")
    if env_config is None or trained is None:
        return
    if game_config(game, **trained) != game_config(game, **env_config):
        raise ValueError(f"{path} was trained on {game} with {trained or 'the default options'}, not with "
                         f"{env_config or 'the default options'}")


def make_agent(spec: str, game: str, seed: int | None = None, env_config: dict | None = None) -> Agent:
    """An agent from a spec string (see the module docstring)."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.partition(":")
    if name.endswith(".pt"):
        name, rest = "learned", spec
    if name == "random":
        agent = RandomAgent(game, seed, **agent_options(RandomAgent, rest))
    elif name == "heuristic":
        cls = heuristic_class(game)
        agent = cls(game, seed, **agent_options(cls, rest))
    elif name == "greedy":
        from agents.courtpiece.heuristic import CourtPieceGreedy

        agent = CourtPieceGreedy(game, seed, **agent_options(CourtPieceGreedy, rest))
    elif name == "pimc":
        cls = search_class(game)
        agent = cls(game, seed, env_config=env_config, **agent_options(cls, rest))
    elif name == "learned":
        from agents.learned import LearnedAgent
        from agents.residual import FORMAT as RESIDUAL, checkpoint_format, residual_agent_class

        path, _, opts = rest.partition(",")
        kind = residual_agent_class(path) if checkpoint_format(path) == RESIDUAL else LearnedAgent
        agent = kind(game, seed, checkpoint=path, **agent_options(kind, opts))
        check_trained_config(path, getattr(agent, "meta", None), game, env_config)
    else:
        raise ValueError(f"unknown agent {spec!r}: use random, heuristic, greedy, pimc[:k=v,...] or learned:<path.pt>")
    agent.label = spec
    return agent


__all__ = ["Agent", "RandomAgent", "legal_actions", "make_agent", "agent_options", "check_trained_config",
           "heuristic_class", "search_class"]
