"""AlphaZero's search, kept importable here: it lives in ``tictacgo.baselines.search``.

The array tree, its rules and the Gumbel and PUCT searches serve every
search of the package now; this module re-exports the names it used to hold.
"""

from tictacgo.baselines.search.formulas import (
    EPS,
    NEG,
    TINY,
    completed_q,
    considered_visits,
    gumbel_interior_scores,
    gumbel_root_scores,
    masked_logits,
    puct_scores,
    softmax,
)
from tictacgo.baselines.search.rules import (
    ConsideredTable,
    GumbelInterior,
    GumbelRoot,
    Puct,
    dirichlet_noise,
    gumbel_noise,
)
from tictacgo.baselines.search.searches import SearchOutput, gumbel_search, puct_search
from tictacgo.baselines.search.tree import INITIAL_NODES, Evaluator, Rule, Tree, clone_engine, run_search

__all__ = ["EPS", "INITIAL_NODES", "NEG", "TINY", "ConsideredTable", "Evaluator", "GumbelInterior",
           "GumbelRoot", "Puct", "Rule", "SearchOutput", "Tree", "clone_engine", "completed_q",
           "considered_visits", "dirichlet_noise", "gumbel_interior_scores", "gumbel_noise",
           "gumbel_root_scores",
           "gumbel_search", "masked_logits", "puct_scores", "puct_search", "run_search", "softmax"]
