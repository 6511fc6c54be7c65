"""The actor-critic chapter's credit assignment for illegal moves, as a pure function.

One player's steps, in order. A legal step earns the game's reward (0 until
the last move, then +1 / 0 / -1); an illegal attempt (refused by
``IllegalMovePenalty``, the position unchanged) earns the penalty. The
training target of a legal step is the game reward discounted over the legal
moves only; an illegal attempt's target is its penalty alone: final and
undiscounted, it consumes no discount step and never reaches the targets of
earlier legal moves. This is the chapter's ``discount_rs`` plus its separate,
undiscounted "wrong move" rewards (the chapter's code; its prose prints the
signs wrong).

Example (the chapter's): X 1, O 7, X 5, O 9, X 7 (illegal), X 6, O 8; X loses.
X's steps: rewards ``[0, 0, -1, -1]``, illegal ``[F, F, T, F]``; with gamma
0.9 the targets are ``[-0.81, -0.9, -1, -1]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tictacgo.validate import check_probability


def illegal_aware_returns(rewards: Sequence[float], illegal: Sequence[bool], gamma: float) -> np.ndarray:
    """The training target of every step of one player's episode.

    Args:
        rewards: per step, the game reward of a legal step or the penalty of an illegal one.
        illegal: per step, True for an illegal (refused) attempt.
        gamma: the discount, in [0, 1].
    Returns:
        float64 array of ``len(rewards)`` targets.
    Raises:
        ValueError: lengths differ, gamma outside [0, 1], or a reward that is not finite.
    """
    r = np.asarray(rewards, dtype=np.float64)
    bad = np.asarray(illegal)
    if r.ndim != 1 or bad.shape != r.shape:
        raise ValueError(f"rewards and illegal must be 1-D of one length, got {r.shape} and {bad.shape}")
    if bad.size and bad.dtype != bool:
        raise ValueError(f"illegal must hold bools, got dtype {bad.dtype}")
    check_probability("gamma", gamma)
    if not np.isfinite(r).all():
        raise ValueError(f"rewards must be finite, got {r.tolist()}")
    out = np.zeros_like(r)
    running = 0.0
    for i in range(len(r) - 1, -1, -1):
        if bad[i]:
            out[i] = r[i]
        else:
            running = gamma * running + r[i]
            out[i] = running
    return out
