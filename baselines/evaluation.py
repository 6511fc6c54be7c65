"""Evaluation helpers: position evaluations for depth-limited search (from the
mover's view in (-1, 1)) and match statistics (Wilson intervals)."""

from __future__ import annotations

import math


def stone_difference(state) -> float:
    """Little-Go: the score margin (stones, komi to White) squashed into (-1, 1)."""
    from tictacgo.games import littlego

    black, white = littlego.scores(state)
    margin = black - white if state.to_move == littlego.BLACK else white - black
    # Keep clear of +-1, which only a finished game may score.
    return 0.9 * math.tanh(margin / 4.0)


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for ``z=1.96``).

    Args:
        wins: games won (a draw may count as half a win).
        games: games played (0 gives the whole interval (0, 1)).
    Returns:
        (low, high), both in [0, 1].
    """
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
