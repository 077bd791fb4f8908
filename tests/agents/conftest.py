"""Shared helpers for the agents tests: which games are playable in this build."""
from __future__ import annotations

import importlib

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
