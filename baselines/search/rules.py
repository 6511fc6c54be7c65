"""Selection rules over the array tree: PUCT, and Gumbel MuZero's root and interior rules.

A rule is a function ``rule(tree, games, nodes) -> actions``: for node
``nodes[i]`` of game ``games[i]``, the action a simulation goes down to.
``run_search`` (``tictacgo.baselines.search.tree``) takes one for the roots
and one for the nodes below; the scores come from
``tictacgo.baselines.search.formulas``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tictacgo.baselines.search import tree as _tree
from tictacgo.baselines.search.formulas import (
    TINY,
    considered_visits,
    gumbel_interior_scores,
    gumbel_root_scores,
    puct_scores,
    softmax,
)
from tictacgo.baselines.search.tree import Rule, Tree


class ConsideredTable:
    """``considered_visits(m, num_simulations) + [0]`` for every ``m`` up to ``max_considered``, as rows
    of one array indexed ``table[m, simulation]``, its columns computed as the search reaches them.

    A search that its clock stops early (a huge budget with ``time=``) computes only the
    columns it used, so the schedule costs no more than the simulations run.
    """

    def __init__(self, max_considered: int, num_simulations: int, num_actions: int):
        self.rows = min(max_considered, num_actions) + 1  # never more considered than actions
        self.num_simulations = num_simulations
        self.array = self._columns(min(num_simulations + 1, _tree.INITIAL_NODES))

    def _columns(self, width: int) -> np.ndarray:
        rows = [considered_visits(m, self.num_simulations, width) for m in range(self.rows)]
        return np.array([r + [0] * (width - len(r)) for r in rows], dtype=np.int64)

    def __getitem__(self, index: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        rows, columns = index
        need = int(np.max(columns, initial=0)) + 1
        if need > self.array.shape[1]:
            self.array = self._columns(min(self.num_simulations + 1, max(need, 2 * self.array.shape[1])))
        return self.array[rows, columns]

    def columns(self, need: int) -> np.ndarray:
        """The whole table with at least its first ``need`` columns (all of them if fewer)."""
        self[np.zeros(1, np.int64), np.array([min(need, self.num_simulations + 1) - 1])]
        return self.array


def gumbel_noise(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> np.ndarray:
    """The root's Gumbel draws (zeros when ``scale`` is 0; the generator is not used then)."""
    if scale == 0:
        return np.zeros(shape)
    return scale * rng.gumbel(size=shape)


def dirichlet_noise(rng: np.random.Generator, legal: np.ndarray, alpha: float) -> np.ndarray:
    """Dirichlet(alpha) noise over each row's legal actions (0 elsewhere)."""
    g = np.where(legal, rng.gamma(alpha, size=legal.shape), 0.0)
    return g / np.maximum(g.sum(-1, keepdims=True), TINY)


# -- selection rules --------------------------------------------------------------------------

@dataclass
class GumbelRoot:
    """Gumbel MuZero's root rule: Gumbel-top-k, then sequential halving (see the module docstring)."""

    gumbel: np.ndarray            # (B, A)
    num_considered: np.ndarray    # (B,) min(max_considered, legal actions)
    table: ConsideredTable        # table[count, simulation]: considered_visits per count
    value_scale: float = 0.1
    maxvisit_init: float = 50.0

    def __call__(self, tree: Tree, games: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        visits = tree.child_visits[games, nodes]
        cq = tree.completed_q(games, nodes, self.value_scale, self.maxvisit_init)
        considered = self.table[self.num_considered[games], visits.sum(-1)]
        s = gumbel_root_scores(considered, self.gumbel[games], tree.logits[games, nodes], cq, visits,
                               tree.legal[games, nodes])
        return s.argmax(-1)

    def compiled(self, interior: Rule):
        """The compiled walk of this root rule over ``interior`` (a ``GumbelInterior`` with the same
        constants), or None for another interior rule."""
        if not (isinstance(interior, GumbelInterior) and interior.value_scale == self.value_scale
                and interior.maxvisit_init == self.maxvisit_init):
            return None
        kernels = _tree.compiled_kernels()
        gumbel = np.ascontiguousarray(self.gumbel, np.float64)
        considered = np.ascontiguousarray(self.num_considered, np.int64)
        consts = np.array([self.value_scale, self.maxvisit_init], np.float64)

        def walk(tree: Tree):
            table = self.table.array
            if tree.simulations >= table.shape[1]:
                table = self.table.columns(tree.simulations + 1)
            return _walk_out(kernels, tree, kernels.GUMBEL, gumbel, considered, table, consts)

        return walk


_NO_CONSIDERED = np.zeros(1, np.int64)  # what PUCT passes for Gumbel's arrays
_NO_TABLE = np.zeros((1, 1), np.int64)


def _walk_out(kernels, tree: Tree, rule: int, root_noise: np.ndarray, num_considered: np.ndarray,
              table: np.ndarray, consts: np.ndarray):
    """``(parent, action, leaf)`` of every game's walk by the compiled ``kernels.simulate`` under ``rule``."""
    B = tree.batch_size
    parent, action, leaf = np.empty(B, np.int64), np.empty(B, np.int64), np.empty(B, np.int64)
    kernels.simulate(
        rule, tree.children, tree.terminal, tree.logits, tree.legal, tree.visits, tree.value, tree.raw_value,
        tree.child_visits, tree.child_value, tree.child_discount, root_noise, num_considered, table, consts,
        parent, action, leaf)
    return parent, action, leaf


@dataclass
class GumbelInterior:
    """Gumbel MuZero's deterministic rule inside the tree."""

    value_scale: float = 0.1
    maxvisit_init: float = 50.0

    def __call__(self, tree: Tree, games: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        cq = tree.completed_q(games, nodes, self.value_scale, self.maxvisit_init)
        return gumbel_interior_scores(tree.logits[games, nodes], cq, tree.child_visits[games, nodes],
                                      tree.legal[games, nodes]).argmax(-1)


@dataclass
class Puct:
    """AlphaZero's PUCT rule; ``root_prior`` ((B, A), e.g. with Dirichlet noise) replaces the root's prior."""

    c_init: float = 1.25
    c_base: float = 19652.0
    root_prior: np.ndarray | None = None

    def __call__(self, tree: Tree, games: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        if self.root_prior is not None and not nodes.any():
            prior = self.root_prior[games]
        else:
            prior = softmax(tree.logits[games, nodes])
        s = puct_scores(tree.q(games, nodes), tree.child_visits[games, nodes], tree.visits[games, nodes],
                        tree.value[games, nodes], prior, tree.legal[games, nodes], self.c_init, self.c_base)
        return s.argmax(-1)

    def compiled(self, interior: Rule):
        """The compiled walk of this rule at the root over ``interior`` (a ``Puct`` with the same constants
        and no root prior of its own), or None for another interior rule."""
        if not (isinstance(interior, Puct) and interior.root_prior is None and interior.c_init == self.c_init
                and interior.c_base == self.c_base):
            return None
        kernels = _tree.compiled_kernels()
        use_prior = self.root_prior is not None
        prior = np.ascontiguousarray(self.root_prior if use_prior else np.zeros((1, 1)), np.float64)
        c_base = -1.0 if self.c_base is None else float(self.c_base)
        consts = np.array([self.c_init, c_base, 1.0 if use_prior else 0.0], np.float64)

        def walk(tree: Tree):
            return _walk_out(kernels, tree, kernels.PUCT, prior, _NO_CONSIDERED, _NO_TABLE, consts)

        return walk
