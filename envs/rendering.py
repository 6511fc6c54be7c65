"""Rendering for the tictacgo environments, kept apart from the envs.

Three outputs, the same for every env:

* ``ansi``: a string, the rules core's ``render_ascii`` (coordinates shown).
* ``rgb_array``: an ``H x W x 3`` ``uint8`` picture drawn with numpy only
  (no pygame): Little-Go as a wooden board with grid lines, star points and
  anti-aliased black and white stones with a thin outline, the column
  letters and row numbers around it (``tictacgo.games.board_labels``);
  Tic-Tac-Toe as a white grid with X (two thick diagonal strokes) and O (a
  ring), each cell's action number in its corner. A red dot marks the last
  move (none after a pass).
* ``human``: that picture in a pygame window (``HumanViewer``). pygame is an
  optional extra, imported only when a window is opened:
  ``pip install tictacgo[render]``.

The static parts of a picture (board, grid, stone sprites) are built once per
size and cached, so one frame costs a copy plus a few sprite blends.
"""

from __future__ import annotations

import os
from functools import lru_cache
from types import ModuleType
from typing import Any

import numpy as np

from tictacgo.envs.bitmap_font import draw_text
from tictacgo.games.board_labels import go_column, go_row, star_points
from tictacgo.games.registry import game_entry
from tictacgo.games.spec import Game
from tictacgo.validate import check_int, check_number

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


def render_ansi(game: Game, state: Any) -> str:
    """The position as text, with coordinates.

    Args:
        game: the game object.
        state: a state of that game.
    Returns:
        The rules core's ``render_ascii(state)``.
    """
    return game.render_ascii(state)


def render_rgb(game: Game, state: Any, cell: int | None = None) -> np.ndarray:
    """The position as an RGB picture, with coordinates and the last move marked.

    Args:
        game: the game object (its registry entry names the drawing function).
        state: a state of that game.
        cell: pixels per board point (Go) or cell (Tic-Tac-Toe); a game default if None.
    Returns:
        ``uint8`` array of shape ``(H, W, 3)``.
    """
    return game_entry(game).load("renderer")(game.to_board(state), cell, last=last_placement(game, state),
                                             coords=True)


def last_placement(game: Game, state: Any) -> int | None:
    """The point the last action placed on (``i * n + j``), or None (no action yet, or a pass)."""
    last = getattr(state, "last_action", -1)
    return int(last) if 0 <= last < game.spec.num_points else None


MAX_CELL = 512  # pixels per point: a 19x19 Go board is then about 10k x 10k
DEFAULT_FPS = 2  # frames per second in "human" mode, for every env
MAX_FPS = 240


def check_cell(cell: int) -> int:
    """``cell`` (pixels per board point or cell) as an int in ``[8, MAX_CELL]``.

    Raises:
        ValueError: not an int, or out of that range (a huge cell would ask
            numpy for terabytes).
    """
    return check_int("cell size", cell, min=8, max=MAX_CELL, expected=f"an int of 8 to {MAX_CELL} pixels")


def check_fps(fps: float) -> float:
    """``fps`` (frames per second of a "human" window): 0 (no waiting) or a float in ``[0.1, MAX_FPS]``.

    Raises:
        ValueError: not a real number, not finite, or out of that range (a
            tiny or NaN rate would hang the window's frame wait).
    """
    expected = f"0 (no frame wait) or a number of frames per second in [0.1, {MAX_FPS}]"
    fps = check_number("render_fps", fps, min=0, max=MAX_FPS, expected=expected)
    if 0 < fps < 0.1:
        raise ValueError(f"render_fps must be {expected}, got {fps!r}")
    return float(fps)


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
def _ttt_layers(cell: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The empty grid (float32 image), the X coverage and the O coverage for one cell."""
    side = 3 * cell
    img = np.empty((side, side, 3), dtype=np.float32)
    img[:] = PAPER
    t = max(2, cell // 25)
    pad = cell // 10
    for k in (1, 2):
        p = k * cell - t // 2
        img[p:p + t, pad:side - pad] = TTT_GRID
        img[pad:side - pad, p:p + t] = TTT_GRID
    width = max(3.0, cell * 0.1)
    a, b = cell * 0.22, cell - 1 - cell * 0.22
    x_cov = np.maximum(_segment_coverage(cell, (a, a), (b, b), width),
                       _segment_coverage(cell, (a, b), (b, a), width))
    yy, xx = np.mgrid[0:cell, 0:cell].astype(np.float32)
    c = (cell - 1) / 2.0
    d = np.hypot(yy - c, xx - c)
    o_cov = np.clip(width / 2.0 - np.abs(d - cell * 0.3) + 0.5, 0.0, 1.0)
    return img, x_cov, o_cov


def tictactoe_image(board: np.ndarray, cell: int | None = DEFAULT_TTT_CELL, last: int | None = None,
                    coords: bool = False) -> np.ndarray:
    """A Tic-Tac-Toe picture.

    Args:
        board: ``3 x 3`` array of 0 empty, 1 X, 2 O.
        cell: pixels per cell (None: the default, 100); the picture is ``3 * cell`` square.
        last: the cell of the last move, marked with a red dot in its lower right corner.
        coords: write each cell's action number (0..8) small in its upper left corner.
    Returns:
        ``uint8`` array ``(3 * cell, 3 * cell, 3)``.
    """
    board = np.asarray(board)
    cell = check_cell(DEFAULT_TTT_CELL if cell is None else cell)
    base, x_cov, o_cov = _ttt_layers(cell)
    img = base.copy()
    for (i, j), v in np.ndenumerate(board):
        region = img[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell]
        if coords:
            draw_text(region, str(i * 3 + j), cell * 0.12, cell * 0.14, max(1, cell // 50), TTT_LABEL)
        if v == 1:
            _blend(region, x_cov, X_COLOUR)
        elif v == 2:
            _blend(region, o_cov, O_COLOUR)
    if last is not None:
        i, j = divmod(int(last), 3)
        dot = _disk(cell, max(2.0, cell * 0.06), cx=cell * 0.84, cy=cell * 0.84)
        _blend(img[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell], dot, LAST_MOVE)
    return np.rint(img).astype(np.uint8)


def require_pygame() -> ModuleType:
    """Import pygame for ``render_mode="human"``.

    Returns:
        The pygame module.
    Raises:
        gymnasium.error.DependencyNotInstalled: pygame is missing.
    """
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as e:
        from gymnasium.error import DependencyNotInstalled

        raise DependencyNotInstalled(
            'render_mode="human" needs pygame, which is not installed; '
            "run `pip install tictacgo[render]` (or `pip install pygame`), "
            'or use render_mode="rgb_array" or "ansi"') from e
    return pygame


class HumanViewer:
    """A pygame window that shows RGB frames at a set frame rate.

    The window opens on the first ``show`` and closes on ``close``.
    """

    def __init__(self, caption: str = "tictacgo", fps: float = DEFAULT_FPS):
        self.pygame = require_pygame()
        self.caption = caption
        self.fps = fps
        self.screen = None
        self.clock = None

    def show(self, frame: np.ndarray) -> None:
        """Draw ``frame`` (H x W x 3 uint8) and wait to keep the frame rate.

        Args:
            frame: the picture to show.
        """
        pg = self.pygame
        h, w = frame.shape[:2]
        if self.screen is None or self.screen.get_size() != (w, h):
            pg.display.init()
            self.screen = pg.display.set_mode((w, h))
            pg.display.set_caption(self.caption)
            self.clock = pg.time.Clock()
        pg.event.pump()
        surface = pg.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        self.screen.blit(surface, (0, 0))
        pg.display.flip()
        if self.fps:
            self.clock.tick(self.fps)

    def close(self) -> None:
        """Close the window if it is open."""
        if self.screen is not None:
            self.pygame.display.quit()
            self.screen = None
            self.clock = None
