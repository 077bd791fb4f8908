"""Speed twins: a second implementation of a rule, kept only because it pays for itself.

Each game declares its twins in one table, `<game>_env.rules.TWINS`, a tuple of `Twin` rows. A row
names the twin and the reference functions it must agree with move for move (as `module.function` in
`<game>_env.rules`), the rule IDs it re-implements, what it saves (measured), and the differential
tests (`tests/<game>/test_<game>_twins.py::<test>`) that tie the two over random positions.
`tests/core/test_twins_tables.py` checks every row of every game against the code, the spec and the
test files; a twin without a row does not land.
"""
from __future__ import annotations

from typing import NamedTuple


class Twin(NamedTuple):
    twin: str                    # module.function in <game>_env.rules
    reference: tuple[str, ...]   # the functions it must agree with, move for move
    rules: tuple[str, ...]       # the rule IDs (or spec sections) it re-implements
    why: str                     # what it saves, measured
    tests: tuple[str, ...]       # its differential tests: tests/<game>/test_<game>_twins.py::<test>
