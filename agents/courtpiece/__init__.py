"""Court Piece and Mendi Coat agents.

* `agents.courtpiece.heuristic` — ``CourtPieceHeuristic`` (rule-based) and ``CourtPieceGreedy`` (the
  search agent's vectorized rollout policy, spec ``"greedy"``);
* `agents.courtpiece.search` — ``PIMCAgent``, the determinized search agent (spec ``"pimc"``).

The submodules are imported on demand (``agents.make_agent`` does), so importing the heuristic does
not load the search agent's numba kernels.
"""
