"""The one search of tictacgo: a tree, selection rules and evaluators passed in as functions.

Every tree search of the package (the ``mcts``, ``policy_mcts`` and
``mix_mcts`` agents, the ``az`` agent and AlphaZero's self-play) picks its
moves by the formulas of ``formulas`` (UCB1, PUCT, mix MCTS's policy bonus,
Gumbel MuZero's root and interior rules), each written once. The array tree
of ``tree`` (mctx's layout: ``(B, nodes, actions)`` arrays over a batched
engine) runs the network searches of ``searches`` for one game (the ``az``
agent, B = 1) and for many (self-play, B > 1) with the same code; its rules
are in ``rules``. The rollout searches run on the rules cores' states
(``tictacgo.baselines.mcts``), with the same formulas.
"""

from tictacgo.baselines.search.formulas import (
    NEG,
    completed_q,
    considered_visits,
    gumbel_interior_scores,
    gumbel_root_scores,
    masked_logits,
    policy_bonus,
    puct_scores,
    softmax,
    ucb1,
)
from tictacgo.baselines.search.rules import ConsideredTable, GumbelInterior, GumbelRoot, Puct
from tictacgo.baselines.search.searches import SEARCHES, SearchOutput, gumbel_search, puct_search
from tictacgo.baselines.search.tree import Evaluator, Rule, Tree, run_search

__all__ = ["NEG", "SEARCHES", "ConsideredTable", "Evaluator", "GumbelInterior", "GumbelRoot", "Puct", "Rule",
           "SearchOutput", "Tree", "completed_q", "considered_visits", "gumbel_interior_scores",
           "gumbel_root_scores", "gumbel_search", "masked_logits", "policy_bonus", "puct_scores",
           "puct_search", "run_search", "softmax", "ucb1"]
