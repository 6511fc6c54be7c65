"""Position evaluations for depth-limited search, from the mover's view in (-1, 1).

(Match statistics live in ``tictacgo.arena.stats``.)"""

from __future__ import annotations

import math


def stone_difference(state) -> float:
    """Little-Go: the score margin (stones, komi to White) squashed into (-1, 1)."""
    from tictacgo.games import littlego

    black, white = littlego.scores(state)
    margin = black - white if state.to_move == littlego.BLACK else white - black
    # Keep clear of +-1, which only a finished game may score.
    return 0.9 * math.tanh(margin / 4.0)
