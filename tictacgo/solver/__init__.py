"""Exact search for Little-Go: who wins a position with perfect play, and by how much.

Little-Go ends after at most ``n*n - 1`` actions, so its endgames (and the
whole game on small boards) can be searched to the end exactly:

    from tictacgo.solver import solve, move_values, Solver
    result = solve(state, time_limit=1.0)          # value +1 / -1 / 0, or None if unknown
    result = solve(state, margin=True)              # and the exact final margin
    values = move_values(state)                     # every legal action's value

The compiled search needs numba (the ``fast`` extra: ``pip install
'tictacgo[fast]'``); importing this package without it raises ImportError.
The search stands on the rules core alone: it plays no agent and imports
no proof. Built on it, one layer up or more:

* the proof (``tictacgo.proof``): certificates of what the search proved,
  their independent checker, the books of proved moves;
* the agents (``tictacgo.baselines.exact``): ``solver`` plays exactly where
  it can prove the result in time, first from its book, and falls back to
  another agent elsewhere; ``perfect`` plays the proof; ``championship``
  searches an evaluation and calls the solver near the end.
"""

from tictacgo.solver.search import (
    KernelPosition,
    Solver,
    SolveResult,
    actions_left,
    kernel_position,
    move_values,
    position_key,
    solve,
)

__all__ = ["KernelPosition", "Solver", "SolveResult", "actions_left", "kernel_position", "move_values",
           "position_key", "solve"]
