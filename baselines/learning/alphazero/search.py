"""Tree search for many games at once: B trees held as arrays, leaves stepped on the batched engine.

This is mctx's design on numpy. The trees of B games share arrays of shape
``(B, nodes, actions)``; node 0 is the root and the node a simulation adds is
numbered after it (simulation ``s`` adds node ``s + 1``). Each node keeps the
engine state of its position (every per-game array of the batched engine, e.g.
Little-Go's bitboards, ``to_move``, ``t``, ko and pass flags), so expanding a
leaf copies the parent's row into a scratch engine and plays one action there,
for every game at once. The new leaves of all the games are evaluated in one
call of the evaluator (a network, or anything else with the same signature):

    evaluate(engine, rows, legal) -> (logits (k, A), values (k,))

where ``rows`` are the engine's games to evaluate, ``legal`` their legal
masks, and each value is from the view of that game's player to move. A
finished game is not evaluated: its exact result is the leaf's value, and a
simulation that reaches it again backs that value up again.

Values are stored from the view of the player to move at each node; an edge
carries a discount of -1 where the mover changes (always, in these games) so
a parent sees ``Q(s, a) = -V(child)``.

Two searches share the machinery and differ only in the selection rules
passed to ``run_search`` and in how they act on the result:

* ``gumbel_search``: Gumbel MuZero ("Policy improvement by planning with
  Gumbel", Danihelka et al., 2022). At the root, Gumbel-top-k sampling of
  ``max_considered`` actions and sequential halving among them; inside the
  tree, the deterministic rule that matches visit counts to
  ``softmax(logits + sigma(completed Q))``. The policy target is that
  improved policy at the root, which improves on the prior even with 8 to 32
  simulations. ``gumbel_scale=0`` plays to win (no exploration noise).
* ``puct_search``: AlphaZero's PUCT with Dirichlet noise on the root prior;
  the policy target is the root's visit distribution.

The row formulas (``completed_q``, ``puct_scores``, ``gumbel_root_scores``,
``gumbel_interior_scores``) work on ``(k, A)`` arrays and are shared with any
other implementation (the tests' one-game reference search uses them).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tictacgo.games.batched_common import BatchedGame

NEG = -1e30  # the logit of an illegal action: exp() of it is exactly 0, and it stays finite
TINY = np.finfo(np.float64).tiny
EPS = 1e-8
#: Nodes (and schedule columns) a search allocates at first; bigger budgets grow as simulations run.
INITIAL_NODES = 4096
_NODE_ARRAYS = ("visits", "value", "raw_value", "terminal", "parent", "action_from_parent", "children",
                "logits", "legal", "child_visits", "child_value", "child_discount")

Evaluator = Callable[[BatchedGame, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
Rule = Callable[["Tree", np.ndarray, np.ndarray], np.ndarray]


def clone_engine(engine: BatchedGame) -> BatchedGame:
    """A copy of the engine whose per-game state arrays are its own (the rest, read-only tables, is shared).

    ``copy.deepcopy`` would also copy the rules' lookup tables, which costs far more than a search step.
    """
    twin = copy.copy(engine)
    for name, value in engine.snapshot().items():
        setattr(twin, name, value)
    return twin


# -- row formulas: (k, A) arrays, one row per node ----------------------------------------

def masked_logits(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Logits shifted so the best legal one is 0, with ``NEG`` on illegal actions."""
    best = np.where(legal, logits, -np.inf).max(-1, keepdims=True)
    best = np.where(np.isfinite(best), best, 0.0)
    return np.where(legal, logits - best, NEG)


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis (``NEG`` entries get exactly 0)."""
    z = np.exp(x - x.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)


def completed_q(raw_value: np.ndarray, q: np.ndarray, visits: np.ndarray, prior: np.ndarray,
                legal: np.ndarray, value_scale: float = 0.1, maxvisit_init: float = 50.0) -> np.ndarray:
    """Gumbel MuZero's ``sigma(completed Q)`` of nodes (``(k, A)``).

    Unvisited actions get the node's mixed value (its raw value averaged with
    the prior-weighted Q of the visited actions); Q is rescaled to [0, 1] over
    the legal actions, then multiplied by ``(maxvisit_init + max visits) * value_scale``.

    Args:
        raw_value: ``(k,)`` the evaluator's value of each node.
        q: ``(k, A)`` Q from each node's mover's view (anything where unvisited).
        visits: ``(k, A)`` child visit counts.
        prior: ``(k, A)`` prior probabilities.
        legal: ``(k, A)`` legal actions.
    """
    visited = visits > 0
    n = visits.sum(-1)
    w = np.where(visited, np.maximum(prior, TINY), 0.0)
    weighted = (w * np.where(visited, q, 0.0)).sum(-1) / np.maximum(w.sum(-1), TINY)
    mixed = (raw_value + n * weighted) / (n + 1)
    cq = np.where(visited, q, mixed[:, None])
    lo = np.where(legal, cq, np.inf).min(-1, keepdims=True)
    hi = np.where(legal, cq, -np.inf).max(-1, keepdims=True)
    lo = np.where(np.isfinite(lo), lo, 0.0)
    hi = np.where(np.isfinite(hi), hi, 0.0)
    scaled = (cq - lo) / np.maximum(hi - lo, EPS)
    return (maxvisit_init + visits.max(-1, keepdims=True)) * value_scale * scaled


def puct_scores(q: np.ndarray, visits: np.ndarray, node_visits: np.ndarray, node_value: np.ndarray,
                prior: np.ndarray, legal: np.ndarray, c_init: float = 1.25,
                c_base: float = 19652.0) -> np.ndarray:
    """AlphaZero's PUCT score of every action (``-inf`` on illegal ones).

    Q is normalised to [0, 1] by the node's value and its visited children's
    Q; unvisited actions count as the lowest of those.
    """
    N = node_visits.astype(np.float64)[:, None]
    c = c_init + np.log((N + c_base + 1.0) / c_base)
    explore = np.sqrt(N) * c * prior / (visits + 1.0)
    visited = visits > 0
    v = node_value[:, None]
    safe = np.where(visited, q, v)
    lo = np.minimum(v, safe.min(-1, keepdims=True))
    hi = np.maximum(v, safe.max(-1, keepdims=True))
    exploit = (np.where(visited, q, lo) - lo) / np.maximum(hi - lo, EPS)
    return np.where(legal, exploit + explore, -np.inf)


def gumbel_root_scores(considered_visit: np.ndarray, gumbel: np.ndarray, logits: np.ndarray,
                       cq: np.ndarray, visits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Sequential halving's score: ``gumbel + logits + sigma(Q)`` among the actions with the considered count.

    Args:
        considered_visit: ``(k,)`` the visit count an action must have to be picked now.
        gumbel, logits, cq, visits, legal: ``(k, A)``.
    """
    score = np.maximum(-1e9, gumbel + logits + cq)
    ok = legal & (visits == considered_visit[:, None])
    return np.where(ok, score, -np.inf)


def gumbel_interior_scores(logits: np.ndarray, cq: np.ndarray, visits: np.ndarray,
                           legal: np.ndarray) -> np.ndarray:
    """The deterministic interior rule: the action whose visits lag ``softmax(logits + sigma(Q))`` most."""
    pi = softmax(logits + cq)
    lag = pi - visits / (1.0 + visits.sum(-1, keepdims=True))
    return np.where(legal, lag, -np.inf)


def considered_visits(max_considered: int, num_simulations: int, length: int | None = None) -> list[int]:
    """Sequential halving's schedule: the visit count of the actions considered at each simulation.

    ``max_considered`` actions get visits in turn; after a phase, the better
    half stays (never fewer than 2). Each phase gets about
    ``num_simulations / log2(max_considered)`` simulations.

    Args:
        max_considered: the actions considered at first.
        num_simulations: the simulations the schedule is planned for.
        length: only the schedule's first ``length`` entries (a search stopped by
            its clock never needs the rest of a huge budget's schedule).
    """
    stop = num_simulations if length is None else min(length, num_simulations)
    if max_considered <= 1:
        return list(range(stop))
    phases = math.ceil(math.log2(max_considered))
    out: list[int] = []
    visits, count = 0, max_considered
    while len(out) < stop:
        for _ in range(max(1, int(num_simulations / (phases * count)))):
            out += [visits] * count
            visits += 1
            if len(out) >= stop:
                break
        count = max(2, count // 2)
    return out[:stop]


class ConsideredTable:
    """``considered_visits(m, num_simulations) + [0]`` for every ``m`` up to ``max_considered``, as rows
    of one array indexed ``table[m, simulation]``, its columns computed as the search reaches them.

    A search that its clock stops early (a huge budget with ``time=``) computes only the
    columns it used, so the schedule costs no more than the simulations run.
    """

    def __init__(self, max_considered: int, num_simulations: int, num_actions: int):
        self.rows = min(max_considered, num_actions) + 1  # never more considered than actions
        self.num_simulations = num_simulations
        self.array = self._columns(min(num_simulations + 1, INITIAL_NODES))

    def _columns(self, width: int) -> np.ndarray:
        rows = [considered_visits(m, self.num_simulations, width) for m in range(self.rows)]
        return np.array([r + [0] * (width - len(r)) for r in rows], dtype=np.int64)

    def __getitem__(self, index: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        rows, columns = index
        need = int(np.max(columns, initial=0)) + 1
        if need > self.array.shape[1]:
            self.array = self._columns(min(self.num_simulations + 1, max(need, 2 * self.array.shape[1])))
        return self.array[rows, columns]


def gumbel_noise(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> np.ndarray:
    """The root's Gumbel draws (zeros when ``scale`` is 0; the generator is not used then)."""
    if scale == 0:
        return np.zeros(shape)
    return scale * rng.gumbel(size=shape)


def dirichlet_noise(rng: np.random.Generator, legal: np.ndarray, alpha: float) -> np.ndarray:
    """Dirichlet(alpha) noise over each row's legal actions (0 elsewhere)."""
    g = np.where(legal, rng.gamma(alpha, size=legal.shape), 0.0)
    return g / np.maximum(g.sum(-1, keepdims=True), TINY)


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
    """

    def __init__(self, engine: BatchedGame, num_nodes: int):
        B, N, A = engine.batch_size, num_nodes, engine.num_actions
        self.batch_size, self.num_nodes, self.num_actions = B, N, A
        # Arrays for the first nodes only: ``ensure`` grows them as simulations add nodes, so a
        # search that its clock stops early allocates no more than it used.
        n = min(N, INITIAL_NODES)
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
        self.fields = engine.state_fields()
        self.states = {f: np.zeros((B, n), getattr(engine, f).dtype) for f in self.fields}
        self.simulations = 0

    def ensure(self, nodes: int) -> None:
        """Room for ``nodes`` nodes per tree (at most ``num_nodes``): the arrays grow by doubling."""
        if nodes <= self.capacity:
            return
        if nodes > self.num_nodes:
            raise ValueError(f"the trees hold {self.num_nodes} nodes, {nodes} asked")
        n = min(self.num_nodes, max(nodes, 2 * self.capacity))

        def grown(old: np.ndarray) -> np.ndarray:
            fill = -1 if old is self.parent or old is self.action_from_parent or old is self.children else 0
            new = np.full((old.shape[0], n) + old.shape[2:], fill, old.dtype)
            new[:, :self.capacity] = old
            return new

        for name in _NODE_ARRAYS:
            setattr(self, name, grown(getattr(self, name)))
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

    def q(self, games: np.ndarray, nodes) -> np.ndarray:
        """``(k, A)`` Q of the nodes' actions from their mover's view (0 where unvisited)."""
        return self.child_discount[games, nodes] * self.child_value[games, nodes]

    def completed_q(self, games: np.ndarray, nodes, value_scale: float, maxvisit_init: float) -> np.ndarray:
        logits = self.logits[games, nodes]
        return completed_q(self.raw_value[games, nodes], self.q(games, nodes),
                           self.child_visits[games, nodes], softmax(logits), self.legal[games, nodes],
                           value_scale, maxvisit_init)


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


# -- the search -------------------------------------------------------------------------------

def _set_nodes(tree: Tree, games, nodes, logits, values, legal, terminal) -> None:
    tree.logits[games, nodes] = masked_logits(logits, legal)
    tree.legal[games, nodes] = legal
    tree.raw_value[games, nodes] = values
    tree.value[games, nodes] = values
    tree.visits[games, nodes] = 1
    tree.terminal[games, nodes] = terminal


def _evaluate(engine: BatchedGame, evaluate: Evaluator, games: np.ndarray, legal: np.ndarray):
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
    logits, values, done = _evaluate(scratch, evaluate, games, legal)
    _set_nodes(tree, games, new, logits, values, legal, done)
    tree.parent[games, new] = parents
    tree.action_from_parent[games, new] = actions
    tree.children[games, parents, actions] = new
    same = scratch.to_move[games] == tree.states["to_move"][games, parents]
    tree.child_discount[games, parents, actions] = np.where(same, 1.0, -1.0)


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
               root_eval: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> Tree:
    """Search from every game of ``roots`` (left unchanged) and return the trees.

    Args:
        roots: a batched engine whose games (all live) are the roots.
        evaluate: the leaf evaluator (see the module docstring).
        num_simulations: simulations per game (0: only the roots are evaluated).
        root_rule: picks the action at the roots, ``rule(tree, games, nodes) -> actions``.
        interior_rule: the same below the roots.
        deadline: a ``time.perf_counter()`` time after which no simulation starts.
        root_eval: the roots' ``(logits, values, legal)`` if already known.
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
    tree = Tree(roots, num_simulations + 1)
    scratch = clone_engine(roots)
    games = np.arange(B)
    tree.store(games, 0, scratch)
    if root_eval is None:
        legal = scratch.legal_mask()
        logits, values, _ = _evaluate(scratch, evaluate, games, legal)
    else:
        logits, values, legal = root_eval
    _set_nodes(tree, games, 0, logits, values, legal, False)
    for sim in range(num_simulations):
        if deadline is not None and time.perf_counter() > deadline:
            break
        parent, action, leaf = _simulate(tree, root_rule, interior_rule)
        grow = np.nonzero(leaf < 0)[0]
        if grow.size:
            tree.ensure(sim + 2)
            _expand(tree, scratch, evaluate, grow, parent[grow], action[grow], sim + 1)
            leaf[grow] = sim + 1
        revisit = np.nonzero(leaf != sim + 1)[0]
        tree.visits[revisit, leaf[revisit]] += 1  # a finished game reached again
        _backward(tree, leaf)
        tree.simulations = sim + 1
    return tree


@dataclass
class SearchOutput:
    """What a search gives for each game (arrays over the B games).

    Attributes:
        action: the action to play.
        policy: the training target over all actions: Gumbel's improved policy,
            or PUCT's visit distribution.
        visits: the root's child visit counts.
        prior: the evaluator's prior at the root (legal actions only).
        root_value: the root's backed-up value from the mover's view.
        raw_value: the evaluator's value of the root.
        q: the root's Q per action from the mover's view (0 where unvisited).
        legal: the root's legal actions.
        simulations: simulations run (fewer than asked when a deadline stopped them).
    """

    action: np.ndarray
    policy: np.ndarray
    visits: np.ndarray
    prior: np.ndarray
    root_value: np.ndarray
    raw_value: np.ndarray
    q: np.ndarray
    legal: np.ndarray
    simulations: int


def _output(tree: Tree, action: np.ndarray, policy: np.ndarray) -> SearchOutput:
    games = np.arange(tree.batch_size)
    return SearchOutput(action=action.astype(np.int64), policy=policy, visits=tree.child_visits[:, 0].copy(),
                        prior=softmax(tree.logits[:, 0]), root_value=tree.value[:, 0].copy(),
                        raw_value=tree.raw_value[:, 0].copy(), q=tree.q(games, 0),
                        legal=tree.legal[:, 0].copy(), simulations=tree.simulations)


def _check_positive(name: str, value, integer: bool = False) -> None:
    kind = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, kind) or not value > 0:
        raise ValueError(f"{name} must be a positive {'int' if integer else 'number'}, got {value!r}")


def gumbel_search(roots: BatchedGame, evaluate: Evaluator, num_simulations: int, rng: np.random.Generator,
                  max_considered: int = 16, gumbel_scale: float = 1.0, value_scale: float = 0.1,
                  maxvisit_init: float = 50.0, deadline: float | None = None) -> SearchOutput:
    """Gumbel MuZero's search from every game of ``roots``.

    Args:
        roots: a batched engine of live games (left unchanged).
        evaluate: the leaf evaluator.
        num_simulations: simulations per game; 0 plays ``argmax(gumbel + logits)``.
        rng: draws the Gumbel noise.
        max_considered: actions sampled at the root (Gumbel-top-k).
        gumbel_scale: 1 for self-play, 0 to play the best move.
        value_scale: the ``sigma`` transform of Q multiplies it by
            ``(maxvisit_init + max visits) * value_scale`` (``completed_q``).
        maxvisit_init: see ``value_scale``.
        deadline: a ``time.perf_counter()`` time after which no simulation starts.
    Returns:
        ``SearchOutput``: ``action`` is the best considered action by
        ``gumbel + logits + sigma(Q)`` among the most visited; ``policy`` is
        ``softmax(logits + sigma(completed Q))`` over the legal actions.
    """
    _check_positive("max_considered", max_considered, integer=True)
    if not gumbel_scale >= 0:
        raise ValueError(f"gumbel_scale must be >= 0, got {gumbel_scale!r}")
    B, A = roots.batch_size, roots.num_actions
    legal = roots.legal_mask()
    gumbel = gumbel_noise(rng, (B, A), gumbel_scale)
    table = ConsideredTable(max_considered, num_simulations, A)
    root = GumbelRoot(gumbel, np.minimum(max_considered, legal.sum(-1)), table, value_scale, maxvisit_init)
    interior = GumbelInterior(value_scale, maxvisit_init)
    tree = run_search(roots, evaluate, num_simulations, root, interior, deadline)
    games = np.arange(B)
    visits = tree.child_visits[:, 0]
    cq = tree.completed_q(games, 0, value_scale, maxvisit_init)
    logits = tree.logits[:, 0]
    scores = gumbel_root_scores(visits.max(-1), gumbel, logits, cq, visits, tree.legal[:, 0])
    policy = softmax(np.where(tree.legal[:, 0], logits + cq, NEG))
    return _output(tree, scores.argmax(-1), policy)


def puct_search(roots: BatchedGame, evaluate: Evaluator, num_simulations: int, rng: np.random.Generator,
                dirichlet_fraction: float = 0.25, dirichlet_alpha: float = 0.3, c_init: float = 1.25,
                c_base: float = 19652.0, temperature: float = 1.0,
                deadline: float | None = None) -> SearchOutput:
    """AlphaZero's search (PUCT, Dirichlet noise at the root) from every game of ``roots``.

    Args:
        roots: a batched engine of live games (left unchanged).
        evaluate: the leaf evaluator.
        num_simulations: simulations per game; 0 acts on the prior.
        rng: draws the Dirichlet noise and the action.
        dirichlet_fraction: the noise's share of the root prior (0: none).
        dirichlet_alpha: the noise's concentration.
        c_init: the PUCT exploration constant with few visits.
        c_base: its growth: it rises by ``log 2`` by ``c_base`` visits of the parent.
        temperature: act in proportion to ``visits ** (1 / temperature)``; 0 plays the most visited.
        deadline: a ``time.perf_counter()`` time after which no simulation starts.
    Returns:
        ``SearchOutput``; ``policy`` is the visit distribution (the prior with no simulation).
    """
    if not 0 <= dirichlet_fraction <= 1:
        raise ValueError(f"dirichlet_fraction must be in [0, 1], got {dirichlet_fraction!r}")
    if not temperature >= 0:
        raise ValueError(f"temperature must be >= 0, got {temperature!r}")
    B = roots.batch_size
    legal = roots.legal_mask()
    scratch = clone_engine(roots)
    logits, values, _ = _evaluate(scratch, evaluate, np.arange(B), legal)
    prior = softmax(masked_logits(logits, legal))
    if dirichlet_fraction > 0:
        _check_positive("dirichlet_alpha", dirichlet_alpha)
        prior = (1 - dirichlet_fraction) * prior + dirichlet_fraction * dirichlet_noise(rng, legal,
                                                                                        dirichlet_alpha)
    rule = Puct(c_init, c_base, root_prior=prior)
    tree = run_search(roots, evaluate, num_simulations, rule, Puct(c_init, c_base), deadline,
                      root_eval=(logits, values, legal))
    visits = tree.child_visits[:, 0].astype(np.float64)
    total = visits.sum(-1, keepdims=True)
    policy = np.where(total > 0, visits / np.maximum(total, 1), prior)
    if temperature == 0:
        action = np.where(legal, policy, -np.inf).argmax(-1)
    else:
        w = np.where(legal, policy, 0.0) ** (1.0 / temperature)
        w = w / w.sum(-1, keepdims=True)
        u = rng.random((B, 1))
        action = np.minimum((w.cumsum(-1) < u).sum(-1), w.shape[1] - 1)
        action = np.where(legal[np.arange(B), action], action, np.where(legal, w, -1).argmax(-1))
    return _output(tree, action, policy)
