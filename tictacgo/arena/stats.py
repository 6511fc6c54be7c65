"""Statistics of results: the one place for confidence intervals in the package.

Score and its confidence interval: from A's view a win counts 1, a draw 1/2,
a loss 0, and the score is ``(W + D/2) / N``. Its 95% interval is the
Wilson score interval of ``W + D/2`` successes in ``N`` games, for both
games and whatever the draws: well-behaved at 0/N and N/N and at all draws
(Tic-Tac-Toe's perfect players), always inside [0, 1] and containing the
score. A draw varies less than a coin toss, so with draws the interval is a
little wider than it needs to be: it errs on the safe side.

``wilson_interval(wins, games)`` is the Wilson interval of a plain win rate
(the strength tables of the README use it).
"""

from __future__ import annotations

import math

from tictacgo.validate import check_number

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


def score_interval(wins: int, draws: int, losses: int, z: float = Z95) -> tuple[float, float, str]:
    """A confidence interval for the score ``(W + D/2) / N`` (see the module docstring).

    Args:
        wins: the wins, from one side's view.
        draws: the draws.
        losses: the losses, from the same side's view.
        z: the normal quantile (1.96 for 95%).

    Returns:
        ``(low, high, method)`` with method ``"wilson"``, or ``"none"`` (no
        games: the interval is [0, 1]).

    Raises:
        ValueError: a count or ``z`` that is nan or infinite, or ``z <= 0``.
    """
    _check_counts_and_z((wins, draws, losses), z)
    n = wins + draws + losses
    if n == 0:
        return 0.0, 1.0, "none"
    p = (wins + 0.5 * draws) / n
    lo, hi = wilson_interval(wins + 0.5 * draws, n, z)
    # Exact at the ends; keeps rounding from excluding p = 0 or 1.
    return max(0.0, min(lo, p)), min(1.0, max(hi, p)), "wilson"


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for the default ``z``).

    Args:
        wins: games won (a draw may count as half a win).
        games: games played (0 gives the whole interval (0, 1)).
    Returns:
        (low, high), both in [0, 1].

    Raises:
        ValueError: a count or ``z`` that is nan or infinite, or ``z <= 0``.
    """
    _check_counts_and_z((wins, games), z)
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _check_counts_and_z(counts: tuple[float, ...], z: float) -> None:
    for value in counts:
        if not math.isfinite(value):
            raise ValueError(f"game counts must be finite numbers, got {value!r}")
    check_number("z", z, positive=True)
