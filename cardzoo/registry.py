"""make("courtpiece", variant="double_sar") and friends: one entry point for every game."""
from __future__ import annotations

import importlib
import importlib.util

_GAMES = {
    "courtpiece": "courtpiece_env",
    "lopti": "lopti_env",
    "shengji": "shengji_env",
}


def _module(game: str):
    try:
        name = _GAMES[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(_GAMES)}") from None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:
            raise ValueError(f"game {game!r} is not installed in this build") from None
        raise


def list_games() -> list[str]:
    """Games whose package is importable."""
    out = []
    for game, mod in _GAMES.items():
        if importlib.util.find_spec(mod) is not None:
            out.append(game)
    return out


# each game's options parser (section 6 of its spec): module, function, whether it takes keywords
_CONFIG_PARSERS = {
    "courtpiece": ("courtpiece_env.config", "make", True),
    "lopti": ("lopti_env.config", "make_lopti_config", False),
    "shengji": ("shengji_env.config", "make", True),
}


def game_config(game: str, **config):
    """The game's options with every default filled in (a frozen dataclass: two option dicts that build
    the same game compare equal); ValueError for an unknown or bad option, as make() gives."""
    _module(game)
    mod, fn, keywords = _CONFIG_PARSERS[game]
    parse = getattr(importlib.import_module(mod), fn)
    return parse(**config) if keywords else parse(dict(config))


def make(game: str, raw: bool = False, **config):
    """The AEC env of `game` (OrderEnforcingWrapper-wrapped unless raw=True)."""
    mod = _module(game)
    return mod.raw_env(**config) if raw else mod.env(**config)


def make_batch(game: str, n: int, **config):
    """`n` games of `game` stepped together (the game's BatchGame)."""
    return _module(game).BatchGame(n, **config)
