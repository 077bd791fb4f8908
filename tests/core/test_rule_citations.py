"""Each rule once, cited at its implementation: every leaf rule ID a game's spec defines (docs/rules/,
an ID with no sub-IDs, e.g. SJ-8.3 but not SJ-8) is named in that game's package source."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAMES = {"lopti": ("lopti_env", "LO"), "courtpiece": ("courtpiece_env", "CP"), "shengji": ("shengji_env", "SJ")}


def leaf_rule_ids(game: str) -> set[str]:
    _, prefix = GAMES[game]
    text = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    pattern = rf"{prefix}-[0-9]+(?:\.[0-9]+)*"
    ids = set(re.findall(rf"\*\*({pattern})\b", text)) | set(re.findall(rf"^#+\s+({pattern})\s", text, re.M))
    return {i for i in ids if not any(j.startswith(i + ".") for j in ids)}


def cited_ids(game: str) -> set[str]:
    package, prefix = GAMES[game]
    source = "\n".join(p.read_text() for p in sorted((ROOT / package).rglob("*.py")))
    return set(re.findall(rf"{prefix}-[0-9]+(?:\.[0-9]+)*", source))


def test_the_specs_define_leaf_rules():
    assert {game: len(leaf_rule_ids(game)) > 40 for game in GAMES} == {game: True for game in GAMES}
    assert "SJ-8.3" in leaf_rule_ids("shengji") and "SJ-8" not in leaf_rule_ids("shengji")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_leaf_rule_is_cited_in_the_game_package(game):
    missing = sorted(leaf_rule_ids(game) - cited_ids(game), key=lambda i: [int(x) for x in i[3:].split(".")])
    assert missing == []
