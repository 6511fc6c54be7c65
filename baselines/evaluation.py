"""Position evaluations for depth-limited search, from the mover's view in (-1, 1).

Each game owns its guess (``game.heuristic_value``); this module keeps the
name that searches were written with. (Match statistics live in
``tictacgo.arena.stats``.)"""

from __future__ import annotations


def stone_difference(state) -> float:
    """Little-Go: the score margin squashed into (-1, 1), as ``LittleGo.heuristic_value`` gives it."""
    return state.game.heuristic_value(state)
