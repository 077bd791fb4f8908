"""cardzoo: fast, exact RL environments for LOPTI, Court Piece and Sheng Ji."""
from cardzoo import _jit

_jit.check_sources()  # before any kernel module loads its cached machine code
_jit.plain_scalar_calls()  # before any kernel compiles
_jit.fast_target_config()

from cardzoo.registry import list_games, make, make_batch  # noqa: E402

__version__ = "0.1.0"
__all__ = ["make", "make_batch", "list_games", "__version__"]
