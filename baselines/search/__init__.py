"""The one search of tictacgo: a tree, selection rules and evaluators passed in as functions.

Every tree search of the package (the ``mcts``, ``policy_mcts`` and
``mix_mcts`` agents, the ``az`` agent and AlphaZero's self-play) keeps its
tree in the arrays of ``tree.Tree`` (mctx's layout: ``(B, nodes, actions)``
arrays) and picks its moves by the formulas of ``formulas`` (UCB1, PUCT, mix
MCTS's policy bonus, Gumbel MuZero's root and interior rules), each written
once. The network searches of ``searches`` run over a batched engine for one
game (the ``az`` agent, B = 1) and for many (self-play, B > 1) with the same
code; their rules are in ``rules``, their numba kernels in ``kernels``. The
rollout searches (``tictacgo.baselines.mcts``) search one game from
rules-core states: ``game_tree.GameTree`` is their tree, the same arrays at
B = 1 with the states beside them, and ``rollout_kernels`` holds UCT's walk,
a new child's links and the backup over it.
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
from tictacgo.baselines.search.game_tree import GameTree, SearchNode
from tictacgo.baselines.search.rules import ConsideredTable, GumbelInterior, GumbelRoot, Puct
from tictacgo.baselines.search.searches import SEARCHES, SearchOutput, gumbel_search, puct_search
from tictacgo.baselines.search.tree import Evaluator, Rule, Tree, run_search

__all__ = ["NEG", "SEARCHES", "ConsideredTable", "Evaluator", "GameTree", "GumbelInterior", "GumbelRoot",
           "Puct", "Rule", "SearchNode", "SearchOutput", "Tree", "completed_q", "considered_visits",
           "gumbel_interior_scores", "gumbel_root_scores", "gumbel_search", "masked_logits", "policy_bonus",
           "puct_scores", "puct_search", "run_search", "softmax", "ucb1"]
