"""Tic-Tac-Toe's board as bits: the pieces, the cells, the eight lines and the names of how a game ends.

The rules (``tictacgo.games.tictactoe``) and the engines beside them (the
batched engine, the compiled playouts, the SVG drawing) share these facts;
keeping them in a module of their own lets those engines sit below the game
object, which imports them.
"""

from __future__ import annotations

X = 1
O = 2  # noqa: E741 -- the piece's name
EMPTY = 0

NUM_ACTIONS = 9
FULL = 0b111111111
LINES = tuple(sum(1 << c for c in line) for line in (
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)))

END_WIN = "win"
END_DRAW = "draw"
END_ILLEGAL = "illegal"
OCCUPIED = "occupied"


def _holds_line(bits: int) -> bool:
    for line in LINES:
        if bits & line == line:
            return True
    return False


HAS_LINE = tuple(_holds_line(b) for b in range(FULL + 1))  # every set of cells, looked up in play()


def has_line(bits: int) -> bool:
    """Whether the cells in ``bits`` hold three in a row."""
    return HAS_LINE[bits & FULL]
