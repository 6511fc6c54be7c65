"""The course's greedy Little-Go player, its rule written once: play a placement that captures the most.

The CSCI-561 homework's ``greedy`` opponent counts, for every legal
placement, the opponent stones it captures and plays uniformly at random among
the placements that capture the most (with no capture on the board, any legal
placement); it passes only when no placement is legal.

``most_captures(counts)`` is that rule on capture counts (``-1`` where a
placement is illegal), for one position (a row) or many (the rows of a 2-D
array). Three players call it or its compiled twin instead of writing the rule
again:

* the ``greedy`` and ``aggressive`` agents (``tictacgo.baselines.course_ladder``),
  on counts from the rules core;
* the native vector env's ``"greedy"`` opponent on the numpy path
  (``BatchedLittleGo.greedy_choices``), on the batched engine's counts;
* its compiled step (``tictacgo.envs.vector_kernels``), through
  ``batched_kernels.go_most_captures``, this function's numba twin on one
  game's bits (``tests/test_batched_engines.py`` checks the two agree).
"""

from __future__ import annotations

import numpy as np


def most_captures(counts: np.ndarray) -> np.ndarray:
    """Which placements the greedy player chooses among: the legal ones that capture the most stones.

    Args:
        counts: ``(..., n*n)`` int, the stones each placement captures, ``-1``
            where it is illegal (the batched engines' ``capture_counts``).
    Returns:
        A bool array like ``counts``: True at the legal placements whose count is
        the largest of their row (a row with no legal placement is all False).
    """
    counts = np.asarray(counts)
    return (counts >= 0) & (counts == counts.max(axis=-1, keepdims=True))
