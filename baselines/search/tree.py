"""The search tree as arrays, and the one search loop over it (mctx's design on numpy).

The trees of B games share arrays of shape ``(B, nodes, actions)``; node 0 is
the root and the node a simulation adds is numbered after it (simulation
``s`` adds node ``s + 1``). Each node keeps the engine state of its position
(every per-game array of the batched engine, e.g. Little-Go's bitboards,
``to_move``, ``t``, ko and pass flags), so expanding a leaf copies the
parent's row into a scratch engine and plays one action there, for every
game at once. A single game is the batch of one. The rollout searches keep
their one game's tree in these arrays too, with its rules-core states beside
them instead of an engine's (``game_tree.GameTree``).

``run_search(roots, evaluate, num_simulations, root_rule, interior_rule)``
is parameterised by functions, as mctx's ``search()`` is:

* a **selection rule** ``rule(tree, games, nodes) -> actions`` for the roots
  and one for the nodes below them (``tictacgo.baselines.search.rules``:
  PUCT, Gumbel's root and interior rules; a new kind of search is a new
  rule, never a second tree);
* an **evaluator** for the new leaves of all the games, in one call:

      evaluate(engine, rows, legal) -> (logits (k, A), values (k,))

  where ``rows`` are the engine's games to evaluate, ``legal`` their legal
  masks, and each value is from the view of that game's player to move (a
  network, or anything else with the same signature).

A finished game is not evaluated: its exact result is the leaf's value, and
a simulation that reaches it again backs that value up again. Values are
stored from the view of the player to move at each node; an edge carries a
discount of -1 where the mover changes (always, in these games) so a parent
sees ``Q(s, a) = -V(child)``.

Compiled walk: where the roots' engine runs on numba (``backend``, see
``tictacgo.games.batched_common``) and the root rule offers ``compiled(interior_rule)``
(the rules of ``rules`` do, for their own pairs), the walk down and the backup
run as the numba kernels of ``kernels``, one compiled loop over the games; the
numpy functions below are the same search where numba is absent.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Callable

import numpy as np

from tictacgo.baselines.search.formulas import NEG, completed_q, masked_logits, softmax
from tictacgo.baselines.search.one_game import simulate_one_game
from tictacgo.games.batched_common import BatchedGame

#: Nodes (and schedule columns) a search allocates at first; bigger budgets grow as simulations run.
INITIAL_NODES = 4096
_NODE_ARRAYS = ("visits", "value", "raw_value", "terminal", "parent", "action_from_parent", "children",
                "logits", "legal", "child_visits", "child_value", "child_discount", "total", "mover", "order",
                "num_children", "untried", "prior")
#: What a new node's entry holds in the arrays that do not start at 0: -1, "none".
_MINUS_ONE = frozenset(("parent", "action_from_parent", "children", "order", "untried"))
#: ``num_nodes`` of a tree without a fixed budget (the rollout searches): it grows while memory lasts.
UNBOUNDED = 2**62

Evaluator = Callable[[BatchedGame, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
Rule = Callable[["Tree", np.ndarray, np.ndarray], np.ndarray]


@functools.cache
def compiled_kernels():
    """The module of the search's numba kernels (``kernels``), imported on first use: it imports numba,
    which only engines on the numba backend (so with numba installed) ask for."""
    from tictacgo.baselines.search import kernels

    return kernels


def clone_engine(engine: BatchedGame) -> BatchedGame:
    """A copy of the engine whose per-game state arrays are its own (the rest, read-only tables, is shared).

    ``copy.deepcopy`` would also copy the rules' lookup tables, which costs far more than a search step.
    """
    twin = copy.copy(engine)
    for name, value in engine.snapshot().items():
        setattr(twin, name, value)
    return twin


# -- the trees ------------------------------------------------------------------------------

class Tree:
    """B search trees of up to ``num_nodes`` nodes over the engine's actions, as arrays.

    Node arrays ``(B, N)``: ``visits`` (the node's own evaluation counts one),
    ``value`` (mean backed-up value, the node's mover's view), ``raw_value``
    (the evaluator's), ``terminal``, ``parent``, ``action_from_parent``;
    per-action arrays ``(B, N, A)``: ``children`` (-1: not expanded),
    ``logits`` (masked prior logits), ``legal``, ``child_visits``,
    ``child_value`` (the child's ``value``), ``child_discount`` (+-1);
    ``states[name]``: ``(B, N)`` copies of the engine's per-game arrays.
    ``N`` is ``capacity``, the nodes allocated so far: ``ensure`` grows it (by
    doubling, up to ``num_nodes``) before a simulation adds a node beyond it.

    The rollout searches (one game, its positions as rules-core states kept
    beside the arrays: ``game_tree.GameTree``) use the same arrays and a few
    of their own: ``total`` (``(B, N)``: the summed results backed up through
    the node, from the view of ``mover``, the player who moved into it: UCB1's
    ``W``), ``order`` (``(B, N, A)``: the actions of the node's children in the
    order its rule added them, then the actions the rule will add next),
    ``num_children`` (children added), ``untried`` (actions the rule still
    has to add; -1 until the rule first sees the node) and ``prior``
    (``(B, N, A)``: the rule's prior of each action, where it has one).
    """

    def __init__(self, engine: BatchedGame | None, num_nodes: int, *, num_actions: int | None = None,
                 initial_nodes: int = INITIAL_NODES):
        """Args:
            engine: the batched engine whose games are the roots; None for one game whose states the
                caller keeps (``num_actions`` then gives the actions).
            num_nodes: the most nodes a tree may hold (``UNBOUNDED``: no limit).
            initial_nodes: the nodes allocated at first (``ensure`` grows them).
        """
        if engine is None:
            B, A = 1, num_actions
        else:
            B, A = engine.batch_size, engine.num_actions
        N = num_nodes
        self.batch_size, self.num_nodes, self.num_actions = B, N, A
        # Arrays for the first nodes only: ``ensure`` grows them as simulations add nodes, so a
        # search that its clock stops early allocates no more than it used.
        n = min(N, initial_nodes)
        self.capacity = n
        self.visits = np.zeros((B, n), np.int64)
        self.value = np.zeros((B, n))
        self.raw_value = np.zeros((B, n))
        self.terminal = np.zeros((B, n), bool)
        self.parent = np.full((B, n), -1, np.int64)
        self.action_from_parent = np.full((B, n), -1, np.int64)
        self.children = np.full((B, n, A), -1, np.int64)
        self.logits = np.zeros((B, n, A))
        self.legal = np.zeros((B, n, A), bool)
        self.child_visits = np.zeros((B, n, A), np.int64)
        self.child_value = np.zeros((B, n, A))
        self.child_discount = np.zeros((B, n, A))
        self.total = np.zeros((B, n))
        self.mover = np.zeros((B, n), np.int8)
        self.order = np.full((B, n, A), -1, np.int64)
        self.num_children = np.zeros((B, n), np.int64)
        self.untried = np.full((B, n), -1, np.int64)
        self.prior = np.zeros((B, n, A))
        self.fields = () if engine is None else engine.state_fields()
        self.states = {f: np.zeros((B, n), getattr(engine, f).dtype) for f in self.fields}
        self.simulations = 0
        self.nodes_used = 1  # the nodes numbered so far in every tree: the roots

    def ensure(self, nodes: int) -> None:
        """Room for ``nodes`` nodes per tree (at most ``num_nodes``): the arrays grow by doubling."""
        if nodes <= self.capacity:
            return
        if nodes > self.num_nodes:
            raise ValueError(f"the trees hold {self.num_nodes} nodes, {nodes} asked")
        n = min(self.num_nodes, max(nodes, 2 * self.capacity))

        def grown(old: np.ndarray, fill: int = 0) -> np.ndarray:
            shape = (old.shape[0], n) + old.shape[2:]
            if fill == 0:
                # An array still all zeros (one this search does not use: the network searches' values
                # in a rollout search) is not copied, so its pages are never written and cost no memory.
                new = np.zeros(shape, old.dtype)
                if old.any():
                    new[:, :self.capacity] = old
                return new
            new = np.full(shape, fill, old.dtype)
            new[:, :self.capacity] = old
            return new

        for name in _NODE_ARRAYS:
            setattr(self, name, grown(getattr(self, name), -1 if name in _MINUS_ONE else 0))
        self.states = {f: grown(a) for f, a in self.states.items()}
        self.capacity = n

    def store(self, games: np.ndarray, nodes, engine: BatchedGame) -> None:
        """Copy the engine's games ``games`` into ``nodes`` of those trees."""
        for f in self.fields:
            self.states[f][games, nodes] = getattr(engine, f)[games]

    def load(self, games: np.ndarray, nodes, engine: BatchedGame) -> None:
        """Put the positions of ``nodes`` into the engine's games ``games``."""
        for f in self.fields:
            getattr(engine, f)[games] = self.states[f][games, nodes]

    def nodes_below(self, game: int, node: int) -> np.ndarray:
        """The nodes of game ``game``'s subtree under ``node`` (itself first), parents before children."""
        order, i = [node], 0
        while i < len(order):
            kids = self.children[game, order[i]]
            order.extend(int(c) for c in kids[kids >= 0])
            i += 1
        return np.array(order, np.int64)

    def subtree(self, roots: np.ndarray, num_simulations: int, kept: list[np.ndarray] | None = None) -> Tree:
        """A tree of the subtrees under node ``roots[g]`` of each game, renumbered from 0 (each root
        becomes node 0, no parent), for ``num_simulations`` more nodes; ``simulations`` 0.

        What a search keeps between moves: the next search starts from these visits
        (``run_search(..., reuse=tree.subtree(...))``). ``kept``: each game's nodes to keep, its root
        first and parents before children, where the caller has them (default ``nodes_below``).
        """
        if kept is None:
            kept = [self.nodes_below(g, int(r)) for g, r in enumerate(roots)]
        size = max(len(k) for k in kept)
        new = copy.copy(self)
        new.num_nodes = size + num_simulations
        new.capacity = min(new.num_nodes, size + INITIAL_NODES)  # grown by ``ensure`` as in a new tree
        new.simulations = 0
        B, N = self.batch_size, new.capacity
        for name in _NODE_ARRAYS:
            old = getattr(self, name)
            fill = -1 if name in _MINUS_ONE else 0
            setattr(new, name, np.full((B, N) + old.shape[2:], fill, old.dtype))
        new.states = {f: np.zeros((B, N), a.dtype) for f, a in self.states.items()}
        for g, nodes in enumerate(kept):
            renumber = np.full(self.capacity, -1, np.int64)
            renumber[nodes] = np.arange(len(nodes))
            k = len(nodes)
            for name in _NODE_ARRAYS:
                getattr(new, name)[g, :k] = getattr(self, name)[g, nodes]
            for f in self.fields:
                new.states[f][g, :k] = self.states[f][g, nodes]
            kids = new.children[g, :k]
            kids[kids >= 0] = renumber[kids[kids >= 0]]
            new.parent[g, 1:k] = renumber[new.parent[g, 1:k]]
            new.parent[g, 0] = new.action_from_parent[g, 0] = -1
        new.nodes_used = size
        return new

    def q(self, games: np.ndarray, nodes) -> np.ndarray:
        """``(k, A)`` Q of the nodes' actions from their mover's view (0 where unvisited)."""
        return self.child_discount[games, nodes] * self.child_value[games, nodes]

    def completed_q(self, games: np.ndarray, nodes, value_scale: float, maxvisit_init: float) -> np.ndarray:
        logits = self.logits[games, nodes]
        return completed_q(self.raw_value[games, nodes], self.q(games, nodes),
                           self.child_visits[games, nodes], softmax(logits), self.legal[games, nodes],
                           value_scale, maxvisit_init)


# -- the search -------------------------------------------------------------------------------

def _set_nodes(tree: Tree, games, nodes, logits, values, legal, terminal) -> None:
    tree.logits[games, nodes] = masked_logits(logits, legal)
    tree.legal[games, nodes] = legal
    tree.raw_value[games, nodes] = values
    tree.value[games, nodes] = values
    tree.visits[games, nodes] = 1
    tree.terminal[games, nodes] = terminal


def evaluate_games(engine: BatchedGame, evaluate: Evaluator, games: np.ndarray, legal: np.ndarray):
    """Logits and values of the engine's ``games``: the evaluator's where live, the result where over."""
    k = len(games)
    logits = np.zeros((k, engine.num_actions))
    values = np.zeros(k)
    done = engine.done[games]
    live = ~done
    if live.any():
        lg, v = evaluate(engine, games[live], legal[live])
        logits[live], values[live] = lg, v
    if done.any():
        g = games[done]
        values[done] = engine.returns()[g, engine.to_move[g] - 1]
    return logits, values, done


def _simulate(tree: Tree, root_rule: Rule, interior_rule: Rule):
    """Walk every tree from its root to a leaf: ``(parent, action, leaf)`` per game.

    A game whose walk ends at an unexpanded action gets its ``parent`` node and
    ``action`` (leaf -1); one that ends on a finished game gets that node as ``leaf``.
    """
    B = tree.batch_size
    node = np.zeros(B, np.int64)
    parent = np.full(B, -1, np.int64)
    action = np.full(B, -1, np.int64)
    leaf = np.full(B, -1, np.int64)
    active = np.arange(B)
    depth = 0
    while active.size:
        n = node[active]
        term = tree.terminal[active, n]
        if term.any():
            leaf[active[term]] = n[term]
            active, n = active[~term], n[~term]
            if not active.size:
                break
        a = (root_rule if depth == 0 else interior_rule)(tree, active, n)
        child = tree.children[active, n, a]
        new = child < 0
        parent[active[new]] = n[new]
        action[active[new]] = a[new]
        node[active[~new]] = child[~new]
        active = active[~new]
        depth += 1
    return parent, action, leaf


def _expand(tree: Tree, scratch: BatchedGame, evaluate: Evaluator, games: np.ndarray, parents: np.ndarray,
            actions: np.ndarray, new: int) -> None:
    B = tree.batch_size
    tree.load(games, parents, scratch)
    where = np.zeros(B, bool)
    where[games] = True
    acts = np.zeros(B, np.int64)
    acts[games] = actions
    scratch.play(acts, where=where)
    tree.store(games, new, scratch)
    legal = scratch.legal_mask()[games]
    logits, values, done = evaluate_games(scratch, evaluate, games, legal)
    same = scratch.to_move[games] == tree.states["to_move"][games, parents]
    if scratch.backend == "numba":
        compiled_kernels().record_nodes(
            games, new, parents, actions, np.asarray(logits, np.float64), values, legal, done, same, NEG,
            tree.logits, tree.legal, tree.raw_value, tree.value, tree.visits, tree.terminal, tree.parent,
            tree.action_from_parent, tree.children, tree.child_discount)
        return
    _set_nodes(tree, games, new, logits, values, legal, done)
    tree.parent[games, new] = parents
    tree.action_from_parent[games, new] = actions
    tree.children[games, parents, actions] = new
    tree.child_discount[games, parents, actions] = np.where(same, 1.0, -1.0)


def _numpy_walk(root_rule: Rule, interior_rule: Rule):
    return lambda tree: _simulate(tree, root_rule, interior_rule)


def _numpy_backup(tree: Tree, leaf: np.ndarray, new: int) -> None:
    revisit = np.nonzero(leaf != new)[0]
    tree.visits[revisit, leaf[revisit]] += 1  # a finished game reached again
    _backward(tree, leaf)


def _compiled_backup(tree: Tree, leaf: np.ndarray, new: int) -> None:
    compiled_kernels().backward(leaf, new, tree.parent, tree.action_from_parent, tree.child_discount,
                                tree.value, tree.visits, tree.child_value, tree.child_visits)


def walk_and_backup(roots: BatchedGame, root_rule: Rule, interior_rule: Rule):
    """``(walk(tree) -> (parent, action, leaf), backup(tree, leaf, new_node))`` for a search over ``roots``:
    the numba kernels where the engine runs on numba and the rules have them, else numpy's."""
    compiled = getattr(root_rule, "compiled", None)
    if getattr(roots, "backend", "numpy") == "numba" and compiled is not None:
        walk = compiled(interior_rule)
        if walk is not None:
            return walk, _compiled_backup
    return _numpy_walk(root_rule, interior_rule), _numpy_backup


def _backward(tree: Tree, leaf: np.ndarray) -> None:
    """Back each game's leaf value up to its root (running means from each node's mover's view)."""
    games = np.arange(tree.batch_size)
    idx = leaf.copy()
    v = tree.value[games, idx]
    while True:
        m = idx != 0
        if not m.any():
            return
        g, i = games[m], idx[m]
        p, a = tree.parent[g, i], tree.action_from_parent[g, i]
        val = tree.child_discount[g, p, a] * v[m]
        cnt = tree.visits[g, p]
        tree.value[g, p] = (tree.value[g, p] * cnt + val) / (cnt + 1)
        tree.visits[g, p] = cnt + 1
        tree.child_value[g, p, a] = tree.value[g, i]
        tree.child_visits[g, p, a] += 1
        idx[m], v[m] = p, val


def run_search(roots: BatchedGame, evaluate: Evaluator, num_simulations: int, root_rule: Rule,
               interior_rule: Rule, deadline: float | None = None,
               root_eval: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
               reuse: Tree | None = None) -> Tree:
    """Search from every game of ``roots`` (left unchanged) and return the trees.

    Args:
        roots: a batched engine whose games (all live) are the roots.
        evaluate: the leaf evaluator (see the module docstring).
        num_simulations: simulations per game (0: only the roots are evaluated).
        root_rule: picks the action at the roots, ``rule(tree, games, nodes) -> actions``.
        interior_rule: the same below the roots.
        deadline: a ``time.perf_counter()`` time after which no simulation starts.
        root_eval: the roots' ``(logits, values, legal)`` if already known.
        reuse: trees whose roots are the positions of ``roots`` (``Tree.subtree`` of the last search,
            with room for ``num_simulations`` nodes): the search goes on from their visits, adding
            its nodes after theirs (``root_eval`` is then not used).
    Raises:
        ValueError: a finished root, or a negative simulation count.
    """
    if isinstance(num_simulations, bool) or not isinstance(num_simulations, (int, np.integer)) \
            or num_simulations < 0:
        raise ValueError(f"num_simulations must be an int >= 0, got {num_simulations!r}")
    if roots.done.any():
        over = np.nonzero(roots.done)[0].tolist()
        raise ValueError(f"every root must be a live game; games {over} are over")
    B = roots.batch_size
    scratch = clone_engine(roots)
    games = np.arange(B)
    if reuse is None:
        tree = Tree(roots, num_simulations + 1)
        tree.store(games, 0, scratch)
        if root_eval is None:
            legal = scratch.legal_mask()
            logits, values, _ = evaluate_games(scratch, evaluate, games, legal)
        else:
            logits, values, legal = root_eval
        _set_nodes(tree, games, 0, logits, values, legal, False)
    else:
        tree = reuse
    start = tree.nodes_used  # simulation s adds node start + s in every tree
    walk, backup = walk_and_backup(roots, root_rule, interior_rule)
    # one game on the compiled kernels: the same simulations with scalar bookkeeping (``one_game``)
    simulate = simulate_one_game if B == 1 and backup is _compiled_backup else simulate_games
    simulate(tree, scratch, evaluate, walk, backup, num_simulations, start, deadline)
    return tree


def simulate_games(tree: Tree, scratch: BatchedGame, evaluate: Evaluator, walk, backup, num_simulations: int,
                   start: int, deadline: float | None) -> None:
    """``run_search``'s simulations over every game of ``tree`` (simulation ``s`` adds node ``start + s``;
    ``scratch``: the engine the positions are played on; ``walk`` and ``backup``: ``walk_and_backup``'s)."""
    for sim in range(num_simulations):
        if deadline is not None and time.perf_counter() > deadline:
            break
        parent, action, leaf = walk(tree)
        grow = np.nonzero(leaf < 0)[0]
        new = start + sim
        if grow.size:
            tree.ensure(new + 1)
            _expand(tree, scratch, evaluate, grow, parent[grow], action[grow], new)
            leaf[grow] = new
        backup(tree, leaf, new)
        tree.simulations = sim + 1
        tree.nodes_used = new + 1
