"""Pictures of boards as RGB arrays, drawn with numpy alone (no pygame): what a game's ``board_image`` draws.

* ``go_image``: a wooden board with grid lines, star points and
  anti-aliased black and white stones with a thin outline, the column
  letters and row numbers around it (``tictacgo.games.board_labels``).
* ``grid_image``: a white grid of ``rows x cols`` cells with X (two thick
  diagonal strokes) and O (a ring), each cell's action number in its corner;
  Tic-Tac-Toe's picture (``tictactoe_image``) and the default of every game.

A red dot marks the last move (none after a pass). The static parts of a
picture (board, grid, sprites) are built once per size and cached, so one
frame costs a copy plus a few sprite blends.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from tictacgo.games.bitmap_font import draw_text
from tictacgo.games.board_labels import go_column, go_row, star_points
from tictacgo.validate import check_int

WOOD = (219, 176, 102)
GRID_DARK = (40, 30, 15)
BLACK_STONE = (22, 22, 22)
BLACK_EDGE = (0, 0, 0)
WHITE_STONE = (242, 242, 238)
WHITE_EDGE = (70, 70, 70)
PAPER = (255, 255, 255)
TTT_GRID = (60, 60, 60)
X_COLOUR = (200, 45, 45)
O_COLOUR = (35, 85, 190)
LAST_MOVE = (215, 30, 30)
TTT_LABEL = (170, 170, 170)

DEFAULT_GO_CELL = 64
DEFAULT_TTT_CELL = 100
DEFAULT_GRID_CELL = DEFAULT_TTT_CELL


MAX_CELL = 512  # pixels per point: a 19x19 Go board is then about 10k x 10k


def check_cell(cell: int) -> int:
    """``cell`` (pixels per board point or cell) as an int in ``[8, MAX_CELL]``.

    Raises:
        ValueError: not an int, or out of that range (a huge cell would ask
            numpy for terabytes).
    """
    return check_int("cell size", cell, min=8, max=MAX_CELL, expected=f"an int of 8 to {MAX_CELL} pixels")


def _blend(region: np.ndarray, alpha: np.ndarray, colour: tuple[int, int, int]) -> None:
    """Paint ``colour`` over float ``region`` (h, w, 3) with coverage ``alpha`` (h, w)."""
    a = alpha[..., None]
    region *= 1.0 - a
    region += a * np.asarray(colour, dtype=np.float32)


def _disk(cell: int, radius: float, cx: float | None = None, cy: float | None = None) -> np.ndarray:
    """Anti-aliased coverage (cell x cell, float32) of a disk centred in the cell."""
    c = (cell - 1) / 2.0 if cx is None else cx
    cy = c if cy is None else cy
    yy, xx = np.mgrid[0:cell, 0:cell].astype(np.float32)
    d = np.hypot(yy - cy, xx - c)
    return np.clip(radius - d + 0.5, 0.0, 1.0)


@lru_cache(maxsize=16)
def _go_layers(n: int, cell: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The empty Go board (float32 image), the stone disk and its inner fill, the stone offset."""
    side = n * cell
    img = np.empty((side, side, 3), dtype=np.float32)
    img[:] = WOOD
    margin = cell // 2
    t = max(1, cell // 32)
    lo, hi = margin - t // 2, margin + (n - 1) * cell + (t - t // 2)
    for k in range(n):
        p = margin + k * cell - t // 2
        img[p:p + t, lo:hi] = GRID_DARK   # row line
        img[lo:hi, p:p + t] = GRID_DARK   # column line
    stars = star_points(n)
    if stars:
        dot = _disk(cell, max(2.0, cell * 0.07), cx=float(margin), cy=float(margin))
        for i, j in stars:
            y0, x0 = i * cell, j * cell
            _blend(img[y0:y0 + cell, x0:x0 + cell], dot, GRID_DARK)
    radius = cell * 0.47
    outer = _disk(cell, radius, cx=float(margin), cy=float(margin))
    inner = _disk(cell, radius - max(1.0, cell / 40.0), cx=float(margin), cy=float(margin))
    return img, outer, inner, margin


def label_scale(cell: int) -> int:
    """Pixels per font pixel of the coordinates in a picture of ``cell`` pixels per point."""
    return max(1, cell // 32)


def coordinate_band(cell: int) -> int:
    """The width in pixels of the band of coordinates around a Go picture."""
    return 13 * label_scale(cell)


def go_image(board: np.ndarray, cell: int | None = DEFAULT_GO_CELL, last: int | None = None,
             coords: bool = False) -> np.ndarray:
    """A Go board picture.

    Args:
        board: ``n x n`` array of 0 empty, 1 Black, 2 White.
        cell: pixels between grid lines (None: the default, 64).
        last: the point ``i * n + j`` of the last move, marked with a red dot (None: no mark).
        coords: add a band of ``coordinate_band(cell)`` pixels on each side with the column
            letters (top and bottom) and row numbers (left and right).
    Returns:
        ``uint8`` array ``(side, side, 3)`` with ``side = n * cell + 2 * band`` (``band`` 0
        without ``coords``); the stone on point ``(i, j)`` is centred on pixel
        ``(band + cell // 2 + i * cell, band + cell // 2 + j * cell)``.
    """
    board = np.asarray(board)
    n = board.shape[0]
    cell = check_cell(DEFAULT_GO_CELL if cell is None else cell)
    base, outer, inner, margin = _go_layers(n, cell)
    img = base.copy()
    for (i, j), v in np.ndenumerate(board):
        if v == 0:
            continue
        fill, edge = (BLACK_STONE, BLACK_EDGE) if v == 1 else (WHITE_STONE, WHITE_EDGE)
        region = img[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell]
        _blend(region, outer, edge)
        _blend(region, inner, fill)
    if last is not None:
        i, j = divmod(int(last), n)
        dot = _disk(cell, max(2.0, cell * 0.13), cx=float(margin), cy=float(margin))
        _blend(img[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell], dot, LAST_MOVE)
    if coords:
        band, scale = coordinate_band(cell), label_scale(cell)
        framed = np.empty((n * cell + 2 * band, n * cell + 2 * band, 3), np.float32)
        framed[:] = WOOD
        framed[band:band + n * cell, band:band + n * cell] = img
        far = band + n * cell + band / 2
        for k in range(n):
            centre = band + margin + k * cell
            for y in (band / 2, far):
                draw_text(framed, go_column(k), centre, y, scale, GRID_DARK)
            for x in (band / 2, far):
                draw_text(framed, go_row(n, k), x, centre, scale, GRID_DARK)
        img = framed
    return np.rint(img).astype(np.uint8)


def _segment_coverage(cell: int, p0: tuple[float, float], p1: tuple[float, float],
                      width: float) -> np.ndarray:
    """Anti-aliased coverage of a thick line segment (round caps) in a cell."""
    yy, xx = np.mgrid[0:cell, 0:cell].astype(np.float32)
    (y0, x0), (y1, x1) = p0, p1
    dy, dx = y1 - y0, x1 - x0
    t = np.clip(((yy - y0) * dy + (xx - x0) * dx) / (dy * dy + dx * dx), 0.0, 1.0)
    d = np.hypot(yy - (y0 + t * dy), xx - (x0 + t * dx))
    return np.clip(width / 2.0 - d + 0.5, 0.0, 1.0)


@lru_cache(maxsize=8)
def _grid_layers(rows: int, cols: int, cell: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The empty grid (float32 image), the X coverage and the O coverage for one cell."""
    height, width = rows * cell, cols * cell
    img = np.empty((height, width, 3), dtype=np.float32)
    img[:] = PAPER
    t = max(2, cell // 25)
    pad = cell // 10
    for k in range(1, rows):
        p = k * cell - t // 2
        img[p:p + t, pad:width - pad] = TTT_GRID
    for k in range(1, cols):
        p = k * cell - t // 2
        img[pad:height - pad, p:p + t] = TTT_GRID
    stroke = max(3.0, cell * 0.1)
    a, b = cell * 0.22, cell - 1 - cell * 0.22
    x_cov = np.maximum(_segment_coverage(cell, (a, a), (b, b), stroke),
                       _segment_coverage(cell, (a, b), (b, a), stroke))
    yy, xx = np.mgrid[0:cell, 0:cell].astype(np.float32)
    c = (cell - 1) / 2.0
    d = np.hypot(yy - c, xx - c)
    o_cov = np.clip(stroke / 2.0 - np.abs(d - cell * 0.3) + 0.5, 0.0, 1.0)
    return img, x_cov, o_cov


def grid_image(board: np.ndarray, cell: int | None = DEFAULT_GRID_CELL, last: int | None = None,
               coords: bool = False, stones: bool = False) -> np.ndarray:
    """A grid of cells with X (the first player's marks) and O (the second's), or with ``stones``
    black and white discs.

    Args:
        board: ``rows x cols`` array of 0 empty, 1 X, 2 O.
        cell: pixels per cell (None: the default, 100).
        last: the cell ``i * cols + j`` of the last move, marked with a red dot in its lower right corner.
        coords: write each cell's action number small in its upper left corner.
        stones: draw the pieces as discs, black for the first player and white for the second.
    Returns:
        ``uint8`` array ``(rows * cell, cols * cell, 3)``.
    """
    board = np.asarray(board)
    rows, cols = board.shape
    cell = check_cell(DEFAULT_GRID_CELL if cell is None else cell)
    base, x_cov, o_cov = _grid_layers(rows, cols, cell)
    if stones:
        disc = _disk(cell, cell * 0.36)
        x_cov = o_cov = disc
    img = base.copy()
    for (i, j), v in np.ndenumerate(board):
        region = img[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell]
        if coords:
            draw_text(region, str(i * cols + j), cell * 0.12, cell * 0.14, max(1, cell // 50), TTT_LABEL)
        if v == 1:
            _blend(region, x_cov, BLACK_STONE if stones else X_COLOUR)
        elif v == 2:
            if stones:  # a white disc with a dark rim, so that it shows on the white grid
                _blend(region, _disk(cell, cell * 0.38), BLACK_EDGE)
            _blend(region, o_cov, WHITE_STONE if stones else O_COLOUR)
    if last is not None:
        i, j = divmod(int(last), cols)
        dot = _disk(cell, max(2.0, cell * 0.06), cx=cell * 0.84, cy=cell * 0.84)
        _blend(img[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell], dot, LAST_MOVE)
    return np.rint(img).astype(np.uint8)


def tictactoe_image(board: np.ndarray, cell: int | None = DEFAULT_TTT_CELL, last: int | None = None,
                    coords: bool = False) -> np.ndarray:
    """A Tic-Tac-Toe picture: ``grid_image`` of the ``3 x 3`` board, ``3 * cell`` pixels square."""
    return grid_image(board, cell, last=last, coords=coords)
