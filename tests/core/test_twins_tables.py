"""Every game's TWINS table (cardzoo.twins) against the code, the spec and the tests: each row's twin and
references are functions of the game's rules package, its rule IDs are rule IDs of the spec, and its
tests exist in the game's twins test module (tests/<game>/test_<game>_twins.py)."""
import ast
import importlib
import pathlib

import pytest

from cardzoo.twins import Twin

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAMES = {"courtpiece": ("courtpiece_env", "CP"), "lopti": ("lopti_env", "LO"), "shengji": ("shengji_env", "SJ")}


def _function(package: str, dotted: str):
    module, name = dotted.split(".")
    return getattr(importlib.import_module(f"{package}.rules.{module}"), name)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_twin_row_names_real_code_rules_and_tests(game):
    package, prefix = GAMES[game]
    table = importlib.import_module(f"{package}.rules").TWINS
    spec = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    test_file = ROOT / "tests" / game / f"test_{game}_twins.py"
    defined = {node.name for node in ast.parse(test_file.read_text()).body if isinstance(node, ast.FunctionDef)}
    assert table and all(isinstance(row, Twin) for row in table)
    assert len({row.twin for row in table}) == len(table)
    for row in table:
        for dotted in (row.twin, *row.reference):
            assert callable(_function(package, dotted)), f"{row.twin}: {dotted}"
        assert row.twin not in row.reference and row.reference and row.why
        for rule in row.rules:
            assert (rule.startswith(f"{prefix}-") and f"**{rule}" in spec) or rule.startswith("section "), rule
        assert row.tests
        for test in row.tests:
            path, name = test.split("::")
            assert path == f"tests/{game}/{test_file.name}" and name in defined, test
