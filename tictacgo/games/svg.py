"""Boards as SVG pictures: what a notebook shows for a state, and the frames of the HTML game viewer.

Every state has ``_repr_svg_`` (a registered game's state class gets one
from ``register_game`` where it has none), so Jupyter (and anything that
honours IPython's display protocol) draws a position as a picture, as pgx's
states do: Little-Go as a wooden board with its column letters and row numbers
(``tictacgo.games.board_labels``) in a margin of their own that no stone
reaches, Tic-Tac-Toe as a grid with each cell's action number and a winning
line marked by a band under it; a red dot marks the last move and the status line
of ``render_ascii`` is the caption. ``state_svg(game, state)`` is the same
picture as a string; each game draws itself (``game.board_svg``; a grid of
marks, ``grid_svg``, unless the game brings its own).

A drawing function ``f(board, last=None, caption="", captured=(),
every_point=False)`` draws ``to_board``'s array. Each element that shows
something at a point carries ``data-point`` (the point ``i * n + j``) and
``data-value`` (the board value it shows, ``last`` for the last-move mark,
``captured`` for a stone just taken); with ``every_point=True`` every such
element is written, those not shown hidden, so that a page can switch
between positions by showing and hiding them (``tictacgo.protocol.viewer``).
An element that shows something about several points (Tic-Tac-Toe's
winning line) carries ``data-points`` (the points, space-separated) and
``data-value`` instead: it is shown when every one of those points holds
that value.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any

import numpy as np

from tictacgo.games.board_labels import go_column, go_row, star_points
from tictacgo.games.tictactoe_lines import LINES as TTT_LINES

WOOD = "#dbb066"
GRID = "#281e0f"
LAST_MOVE = "#d71e1e"
BLACK_STONE, BLACK_EDGE = "#161616", "#000000"
WHITE_STONE, WHITE_EDGE = "#f2f2ee", "#464646"
X_COLOUR, O_COLOUR, TTT_GRID, TTT_LABEL = "#c82d2d", "#2355be", "#3c3c3c", "#aaaaaa"
WIN_LINE = "#f5d76e"
FONT = "font-family='DejaVu Sans, Arial, sans-serif'"
#: Go's geometry, in cells: a stone's radius, the margin from the board's edge to the first grid line
#: and where the coordinates are centred (from the edge). A label reaches about 0.13 cells either side
#: of its centre, so it ends at 0.49 and the nearest stone begins at 1.15 - 0.47 = 0.68.
GO_STONE, GO_MARGIN, GO_LABEL_AT, GO_LABEL_SIZE = 0.47, 1.15, 0.36, 0.36


def _shown(element: str, point: int, value: str, shown: bool, every_point: bool) -> str:
    """``element`` (an SVG tag without its closing ``/>`` or ``>``) tagged with its point and value, or ""."""
    if not (shown or every_point):
        return ""
    hidden = "" if shown else " visibility='hidden'"
    return f"{element} data-point='{point}' data-value='{value}'{hidden}"


def _caption_lines(caption: str) -> list[str]:
    return [line for line in caption.splitlines() if line.strip()]


def go_svg(board: Any, last: int | None = None, caption: str = "", captured: Iterable[int] = (),
           every_point: bool = False, cell: int = 40) -> str:
    """A Go board as SVG, coordinates around it.

    Args:
        board: ``n x n`` array of 0 empty, 1 Black, 2 White.
        last: the point ``i * n + j`` of the last move, marked with a red dot.
        caption: text under the board (one line a line).
        captured: points whose stones the last move took, drawn as dashed rings.
        every_point: write every point's elements, the ones not shown hidden (see the module docstring).
        cell: the distance between grid lines in SVG units.

    Returns:
        The ``<svg>`` element as a string.
    """
    board = np.asarray(board)
    n = board.shape[0]
    m = round(GO_MARGIN * cell)  # the grid starts past the coordinates and the edge stones' overhang
    side = 2 * m + (n - 1) * cell
    lines = _caption_lines(caption)
    height = side + int(0.55 * cell * len(lines)) + (cell // 4 if lines else 0)
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{side}' height='{height}' "
           f"viewBox='0 0 {side} {height}' class='tictacgo-board'>",
           f"<rect width='{side}' height='{side}' fill='{WOOD}'/>"]
    end = m + (n - 1) * cell
    for k in range(n):
        p = m + k * cell
        out.append(f"<line x1='{m}' y1='{p}' x2='{end}' y2='{p}' stroke='{GRID}' stroke-width='1.2'/>")
        out.append(f"<line x1='{p}' y1='{m}' x2='{p}' y2='{end}' stroke='{GRID}' stroke-width='1.2'/>")
    for i, j in star_points(n):
        out.append(f"<circle cx='{m + j * cell}' cy='{m + i * cell}' r='{cell * 0.08:.1f}' fill='{GRID}'/>")
    size, at = cell * GO_LABEL_SIZE, cell * GO_LABEL_AT
    for k in range(n):
        p = m + k * cell
        for x, y, text in ((p, at, go_column(k)), (p, side - at, go_column(k)),
                           (at, p, go_row(n, k)), (side - at, p, go_row(n, k))):
            out.append(f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size:.1f}' {FONT} fill='{GRID}' "
                       f"text-anchor='middle' dominant-baseline='central'>{text}</text>")
    captured = set(int(p) for p in captured)
    r = cell * GO_STONE
    for (i, j), v in np.ndenumerate(board):
        point, cx, cy = i * n + j, m + j * cell, m + i * cell
        for value, fill, edge in ((1, BLACK_STONE, BLACK_EDGE), (2, WHITE_STONE, WHITE_EDGE)):
            tag = _shown(f"<circle cx='{cx}' cy='{cy}' r='{r:.1f}' fill='{fill}' stroke='{edge}' "
                         f"stroke-width='1'", point, str(value), int(v) == value, every_point)
            if tag:
                out.append(tag + "/>")
        tag = _shown(f"<circle cx='{cx}' cy='{cy}' r='{r * 0.8:.1f}' fill='none' stroke='{LAST_MOVE}' "
                     f"stroke-width='1.5' stroke-dasharray='3 3'", point, "captured", point in captured,
                     every_point)
        if tag:
            out.append(tag + "/>")
        tag = _shown(f"<circle cx='{cx}' cy='{cy}' r='{cell * 0.13:.1f}' fill='{LAST_MOVE}'", point, "last",
                     point == last, every_point)
        if tag:
            out.append(tag + "/>")
    out += _caption(lines, side, cell, side)
    out.append("</svg>")
    return "\n".join(out)


def grid_svg(board: Any, last: int | None = None, caption: str = "", captured: Iterable[int] = (),
             every_point: bool = False, cell: int = 60, lines: Iterable[int] = (),
             stones: bool = False) -> str:
    """A grid of cells as SVG, X (the first player's marks) and O (the second's), or black and white
    discs with ``stones``, each cell's action number in its corner; the default drawing of every game
    (``stones`` for a game whose spec says ``pieces="stones"``).

    Args:
        board: ``rows x cols`` array of 0 empty, 1 X, 2 O.
        last: the cell ``i * cols + j`` of the last move, marked with a red dot.
        caption: text under the grid (one line a line).
        captured: unused (nothing is captured in a game of marks); taken for a common signature.
        every_point: write every cell's elements, the ones not shown hidden.
        cell: the side of a cell in SVG units.
        lines: the winning lines of the game, each as bits of its cells: one held by a player is
            marked by a band under it.
        stones: draw the pieces as discs, black for the first player and white for the second.

    Returns:
        The ``<svg>`` element as a string.
    """
    board = np.asarray(board)
    rows, cols = board.shape
    width, side = cols * cell, rows * cell
    text = _caption_lines(caption)
    height = side + int(0.4 * cell * len(text)) + (cell // 6 if text else 0)
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
           f"viewBox='0 0 {width} {height}' class='tictacgo-board'>",
           f"<rect width='{width}' height='{height}' fill='white'/>"]
    pad = cell * 0.1
    for k in range(1, max(rows, cols)):
        if k < rows:
            out.append(f"<line x1='{pad}' y1='{k * cell}' x2='{width - pad}' y2='{k * cell}' "
                       f"stroke='{TTT_GRID}' stroke-width='{cell * 0.04:.1f}'/>")
        if k < cols:
            out.append(f"<line x1='{k * cell}' y1='{pad}' x2='{k * cell}' y2='{side - pad}' "
                       f"stroke='{TTT_GRID}' stroke-width='{cell * 0.04:.1f}'/>")
    out += _line_bands(board, lines, cell, every_point)  # under the marks, as a highlighter would
    stroke = cell * 0.1
    for (i, j), v in np.ndenumerate(board):
        point, x0, y0 = i * cols + j, j * cell, i * cell
        out.append(f"<text x='{x0 + cell * 0.12:.1f}' y='{y0 + cell * 0.16:.1f}' "
                   f"font-size='{cell * 0.18:.1f}' {FONT} fill='{TTT_LABEL}' text-anchor='middle' "
                   f"dominant-baseline='central'>{point}</text>")
        a, b = cell * 0.22, cell * 0.78
        if stones:
            pieces = [f"<circle cx='{x0 + cell / 2:.1f}' cy='{y0 + cell / 2:.1f}' r='{cell * 0.36:.1f}' "
                      f"fill='{fill}' stroke='{edge}' stroke-width='{cell * 0.03:.1f}'"
                      for fill, edge in ((BLACK_STONE, BLACK_EDGE), (WHITE_STONE, WHITE_EDGE))]
        else:
            pieces = [f"<path d='M{x0 + a:.1f},{y0 + a:.1f} L{x0 + b:.1f},{y0 + b:.1f} "
                      f"M{x0 + a:.1f},{y0 + b:.1f} L{x0 + b:.1f},{y0 + a:.1f}' stroke='{X_COLOUR}' "
                      f"stroke-width='{stroke:.1f}' stroke-linecap='round' fill='none'",
                      f"<circle cx='{x0 + cell / 2:.1f}' cy='{y0 + cell / 2:.1f}' r='{cell * 0.3:.1f}' "
                      f"stroke='{O_COLOUR}' stroke-width='{stroke:.1f}' fill='none'"]
        for value, piece in enumerate(pieces, start=1):
            tag = _shown(piece, point, str(value), int(v) == value, every_point)
            if tag:
                out.append(tag + "/>")
        tag = _shown(f"<circle cx='{x0 + cell * 0.84:.1f}' cy='{y0 + cell * 0.84:.1f}' r='{cell * 0.06:.1f}' "
                     f"fill='{LAST_MOVE}'", point, "last", point == last, every_point)
        if tag:
            out.append(tag + "/>")
    out += _caption(text, side, cell * 0.7, width)
    out.append("</svg>")
    return "\n".join(out)


def _line_bands(board: np.ndarray, lines: Iterable[int], cell: float, every_point: bool) -> list[str]:
    """A band along each line of one player's marks (all of them, hidden, for a page)."""
    cols = board.shape[1]
    cells = board.ravel()
    out = []
    for bits in lines:
        points = [p for p in range(cells.size) if bits >> p & 1]
        (i0, j0), (i1, j1) = divmod(points[0], cols), divmod(points[-1], cols)
        # From a little before the first cell's centre to a little past the last's, along the line.
        length = ((i1 - i0) ** 2 + (j1 - j0) ** 2) ** 0.5
        di, dj = (i1 - i0) / length * 0.25, (j1 - j0) / length * 0.25
        x0, y0 = (j0 + 0.5 - dj) * cell, (i0 + 0.5 - di) * cell
        x1, y1 = (j1 + 0.5 + dj) * cell, (i1 + 0.5 + di) * cell
        for value in (1, 2):
            shown = all(int(cells[p]) == value for p in points)
            if shown or every_point:
                hidden = "" if shown else " visibility='hidden'"
                out.append(f"<line x1='{x0:.1f}' y1='{y0:.1f}' x2='{x1:.1f}' y2='{y1:.1f}' "
                           f"stroke='{WIN_LINE}' stroke-width='{cell * 0.6:.1f}' stroke-linecap='round' "
                           f"data-points='{' '.join(map(str, points))}' data-value='{value}'{hidden}/>")
    return out


def _caption(lines: list[str], top: float, cell: float, width: float) -> list[str]:
    out = []
    for k, line in enumerate(lines):
        y = top + cell * 0.55 * (k + 0.5) + cell * 0.1
        out.append(f"<text x='{width / 2:.1f}' y='{y:.1f}' font-size='{cell * 0.3:.1f}' {FONT} fill='#222' "
                   f"text-anchor='middle' dominant-baseline='central'>{escape(line)}</text>")
    return out


def state_svg(game: Any, state: Any) -> str:
    """``state`` of ``game`` as SVG (``game.svg(state)``): the board, coordinates, the last move marked,
    the status as caption.

    Args:
        game: the game object.
        state: a state of that game.

    Returns:
        The ``<svg>`` element as a string.
    """
    return game.svg(state)


def tictactoe_svg(board: Any, last: int | None = None, caption: str = "", captured: Iterable[int] = (),
                  every_point: bool = False, cell: int = 60) -> str:
    """A Tic-Tac-Toe grid as SVG: ``grid_svg`` of the ``3 x 3`` board, a line of three marked."""
    return grid_svg(board, last=last, caption=caption, captured=captured, every_point=every_point, cell=cell,
                    lines=TTT_LINES)
