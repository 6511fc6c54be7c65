"""AlphaZero's search, kept importable here: it lives in ``tictacgo.baselines.search``.

The array tree, its rules and the Gumbel and PUCT searches serve every
search of the package now; this module re-exports the package's names
(``tictacgo.baselines.search.__all__``) and the few of its modules' names it
used to hold besides (the constants, the root noises, ``clone_engine``).
"""

from tictacgo.baselines.search import *  # noqa: F403  (the package's names, as it lists them)
from tictacgo.baselines.search import __all__ as _package_names
from tictacgo.baselines.search.formulas import EPS, TINY
from tictacgo.baselines.search.rules import dirichlet_noise, gumbel_noise
from tictacgo.baselines.search.tree import INITIAL_NODES, clone_engine

__all__ = [*_package_names, "EPS", "INITIAL_NODES", "TINY", "clone_engine", "dirichlet_noise", "gumbel_noise"]
