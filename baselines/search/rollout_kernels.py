"""The rollout searches' tree kernels: UCT's walk down, a new child's links and the backup, on one tree.

``game_tree.GameTree`` keeps one game's search tree in the array tree's
layout (``tree.Tree``, B = 1); these functions work on that one game's rows
of its arrays (``ARRAYS``), flattened: ``(N,)`` node arrays, and ``(N, A)``
per-action arrays as ``(N * A,)``:

* ``uct_descend``: from the root, down to the child of the best UCB1 score
  ``W / n + c * sqrt(ln N / n)``, while the node is live, above ``max_depth``
  and every action of it has its child (UCT's walk between two expansions);
* ``link_child``: a new node joins the tree under its parent;
* ``backup``: a simulation's result is added to every node from the leaf up
  to the root, each from the view of the player who moved into it;
* ``uct_step``: the three in one call, as plain UCT runs them once a
  simulation (a call from Python costs more than the work of a small one).

They are written once, in plain Python. ``kernels(backend)`` gives them
compiled with numba (``cache=True``, compiled on first use) for ``"numba"``,
called with the numpy arrays, or as they are for ``"numpy"`` (where numba is
missing), called with ``memoryview``s of the arrays (whose items plain Python
reads and writes faster than a numpy array's): the same operations in the
same order on the same float64 and int64 values, so both build the same trees
(``tests/test_game_tree.py``) and UCB1 scores are those of ``formulas.ucb1``
bit for bit (``math.log`` and ``math.sqrt`` of the C library in both).
"""

from __future__ import annotations

import functools
import math
import types

#: What ``uct_descend`` says about the node it stopped at (else the next action to add there).
EVALUATE = -1  # over, or at the depth limit: the node itself is the leaf
UNSEEN = -2     # UCT has not seen the node: its untried actions are still to shuffle


#: The tree's arrays every kernel takes, in this order, after ``A`` (the actions): one game's rows,
#: flattened (node ``i``'s entry for action ``a`` of an ``(N, A)`` array is at ``i * A + a``).
ARRAYS = ("parent", "action_from_parent", "children", "mover", "terminal", "order", "num_children", "untried",
          "visits", "total", "child_visits")


def uct_descend(c, max_depth, A, parent, action_from_parent, children, mover, terminal, order, num_children,
                untried, visits, total, child_visits):
    """Walk down from the root by UCB1 while the node is live, above ``max_depth`` and fully expanded.

    Children are scored in the order they were added (``order``), and a later
    child must score strictly more to be chosen, as ``mcts.UCT`` chooses.

    Returns:
        ``(node, depth, next)``: where the walk stopped, how many steps down,
        and ``EVALUATE``, ``UNSEEN`` or the action UCT adds there next.
    """
    node = 0
    depth = 0
    while depth < max_depth and not terminal[node] and untried[node] == 0:
        log_n = math.log(visits[node])
        base = node * A
        best = -1
        best_score = -math.inf
        for i in range(num_children[node]):
            child = children[base + order[base + i]]
            n = visits[child]
            score = total[child] / n + c * math.sqrt(log_n / n)
            if score > best_score:
                best = child
                best_score = score
        node = best
        depth += 1
    if depth >= max_depth or terminal[node]:
        return node, depth, EVALUATE
    if untried[node] < 0:
        return node, depth, UNSEEN
    return node, depth, order[node * A + num_children[node]]


def link_child(node, action, new, mover_of_new, terminal_of_new, A, parent, action_from_parent, children,
               mover, terminal, order, num_children, untried, visits, total, child_visits):
    """Make node ``new`` the child of ``node`` by ``action``: the next child in ``node``'s ``order``, one
    untried action fewer where the rule planned them."""
    k = num_children[node]
    order[node * A + k] = action
    num_children[node] = k + 1
    if untried[node] > 0:
        untried[node] -= 1
    children[node * A + action] = new
    parent[new] = node
    action_from_parent[new] = action
    mover[new] = mover_of_new
    terminal[new] = terminal_of_new


def backup(leaf, first, second, A, parent, action_from_parent, children, mover, terminal, order, num_children,
           untried, visits, total, child_visits):
    """Count one visit and add the result to every node from ``leaf`` up to the root: ``first`` (the
    first player's value) where that player moved into the node, else ``second``."""
    i = leaf
    while i >= 0:
        visits[i] += 1
        total[i] += first if mover[i] == 1 else second
        p = parent[i]
        if p >= 0:
            child_visits[p * A + action_from_parent[i]] += 1
        i = p


def uct_step(new, node, action, mover_of_new, terminal_of_new, leaf, first, second, c, max_depth, descend, A,
             parent, action_from_parent, children, mover, terminal, order, num_children, untried, visits,
             total, child_visits):
    """One simulation's end and the next one's walk: link node ``new`` under ``node`` (``new`` < 0: none),
    back ``(first, second)`` up from ``leaf``, then (``descend``) ``uct_descend`` for the next simulation."""
    if new >= 0:
        link_child(node, action, new, mover_of_new, terminal_of_new, A, parent, action_from_parent, children,
                   mover, terminal, order, num_children, untried, visits, total, child_visits)
    backup(leaf, first, second, A, parent, action_from_parent, children, mover, terminal, order, num_children,
           untried, visits, total, child_visits)
    if descend:
        return uct_descend(c, max_depth, A, parent, action_from_parent, children, mover, terminal, order,
                           num_children, untried, visits, total, child_visits)
    return 0, 0, EVALUATE


_FUNCTIONS = ("uct_descend", "link_child", "backup", "uct_step")


@functools.cache
def kernels(backend: str) -> types.SimpleNamespace:
    """The functions above for ``backend``: compiled with numba (``"numba"``) or as written (``"numpy"``)."""
    python = {name: globals()[name] for name in _FUNCTIONS}
    if backend == "numpy":
        return types.SimpleNamespace(**python)
    from numba import njit

    compiled = {}
    for name in _FUNCTIONS:  # callees first: numba compiles a call to a compiled function
        fn = python[name]
        fn = types.FunctionType(fn.__code__, {**globals(), **compiled}, name)
        compiled[name] = njit(cache=True)(fn)
    return types.SimpleNamespace(**compiled)
