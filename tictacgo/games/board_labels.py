"""How pictures label board points: Go's column letters and row numbers (and its star points),
Tic-Tac-Toe's cell numbers.

Go boards are labelled as GTP, SGF viewers and Go GUIs do: a column letter
``A``..``T`` skipping ``I`` (it looks like ``J`` and ``1``) and a row number
counted from the bottom, so point ``(i, j)`` of an ``n x n`` board is
``go_column(j) + go_row(n, i)`` (``C3`` is the centre of 5x5). Tic-Tac-Toe
cells carry their action numbers 0..8, as ``render_ascii`` shows them.
"""

from __future__ import annotations

GO_LETTERS = "ABCDEFGHJKLMNOPQRST"


def go_column(j: int) -> str:
    """The letter of column ``j`` (0 is ``A``)."""
    return GO_LETTERS[j]


def go_row(n: int, i: int) -> str:
    """The number of row ``i`` (0 is the top) on an ``n x n`` board, counted from the bottom."""
    return str(n - i)


def star_points(n: int) -> list[tuple[int, int]]:
    """Hoshi as ``(i, j)``: the centre of an odd board from 5x5, and the corner points from 9x9."""
    points = []
    if n >= 9:
        e = 2 if n < 13 else 3
        points += [(e, e), (e, n - 1 - e), (n - 1 - e, e), (n - 1 - e, n - 1 - e)]
    if n % 2 == 1 and n >= 5:
        points.append((n // 2, n // 2))
    return points
