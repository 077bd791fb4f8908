"""Sheng Ji agents.

* `agents.shengji.heuristic` — ``ShengJiHeuristic`` (rule-based);
* `agents.shengji.search` — ``ShengJiSearch``, the determinized search agent (spec ``"pimc"``).

The submodules are imported on demand (``agents.make_agent`` does), so importing the heuristic does
not load the search agent's numba kernels.
"""
