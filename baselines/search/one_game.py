"""The simulations of one game's search (B = 1) on the compiled kernels, with scalar bookkeeping.

``run_search`` (``tictacgo.baselines.search.tree``) runs B games' simulations
with numpy calls over arrays of the games: which games grow a node, the
engine rows to load and store, masks of the games to play. The ``az`` agent
searches one game, where those calls cost more than the work they do. This
loop is the same simulation for that batch of one: the compiled walk, the
parent's position copied into the scratch engine field by field as scalars,
one action played, the new node's position stored, the evaluator called on
the engine (unless the game is over: then its result is the value), the node
written by ``kernels.record_nodes`` and the value backed up. The same kernels
and the same evaluator calls in the same order give the same tree as the
loop over the games (``tests/test_search_kernels.py``).
"""

from __future__ import annotations

import time

import numpy as np

from tictacgo.baselines.search.formulas import NEG
from tictacgo.games.batched_common import BatchedGame


def _fields(tree, scratch: BatchedGame) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(engine array, tree row)`` of each state field: the engine's one entry and the tree's nodes."""
    return [(getattr(scratch, f), tree.states[f][0]) for f in tree.fields]


def simulate_one_game(tree, scratch: BatchedGame, evaluate, walk, backup, num_simulations: int, start: int,
                      deadline: float | None) -> None:
    """Run ``num_simulations`` simulations of a one-game ``tree`` (``run_search``'s loop at B = 1).

    Args:
        tree: the ``Tree`` of one game, its root written; simulation ``s`` adds node ``start + s``.
        scratch: the engine the positions are played on (a copy of the roots').
        evaluate: the leaf evaluator.
        walk: the compiled walk, ``walk(tree) -> (parent, action, leaf)``.
        backup: the compiled backup, ``backup(tree, leaf, new_node)``.
        num_simulations: the simulations to run.
        start: the first new node's number.
        deadline: a ``time.perf_counter()`` time after which no simulation starts.
    """
    fields = _fields(tree, scratch)
    capacity = tree.capacity
    to_move = tree.states["to_move"][0]
    done, mover = scratch.done, scratch.to_move
    from tictacgo.baselines.search.kernels import record_nodes as record  # numba: the walk is compiled

    A = tree.num_actions
    games = np.zeros(1, np.int64)  # the one game's row, for the evaluator and the kernels
    for sim in range(num_simulations):
        if deadline is not None and time.perf_counter() > deadline:
            break
        parent, action, leaf = walk(tree)
        new = start + sim
        if leaf[0] < 0:
            if new >= capacity:
                tree.ensure(new + 1)
                fields, capacity, to_move = _fields(tree, scratch), tree.capacity, tree.states["to_move"][0]
            p = parent[0]
            for engine_row, nodes in fields:
                engine_row[0] = nodes[p]
            scratch.play(action)
            for engine_row, nodes in fields:
                nodes[new] = engine_row[0]
            legal = scratch.legal_mask()
            if done[0]:  # a finished game: its result, from the view of the player to move
                logits = np.zeros((1, A))
                values = np.array([scratch.returns()[0, mover[0] - 1]], np.float64)
            else:
                logits, values = evaluate(scratch, games, legal)
                logits, values = np.asarray(logits, np.float64), np.asarray(values, np.float64)
            same = np.array([mover[0] == to_move[p]])
            record(games, new, parent, action, logits, values, legal, done, same, NEG, tree.logits,
                   tree.legal, tree.raw_value, tree.value, tree.visits, tree.terminal, tree.parent,
                   tree.action_from_parent, tree.children, tree.child_discount)
            leaf[0] = new
        backup(tree, leaf, new)
        tree.simulations = sim + 1
        tree.nodes_used = new + 1
