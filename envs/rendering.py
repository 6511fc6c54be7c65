"""Rendering for the tictacgo environments, kept apart from the envs.

Three outputs, the same for every env, each drawn by the game itself:

* ``ansi``: a string, the rules core's ``render_ascii`` (coordinates shown).
* ``rgb_array``: an ``H x W x 3`` ``uint8`` picture drawn with numpy only
  (no pygame), the game's ``image`` (``tictacgo.games.pictures``): Little-Go
  as a wooden board with stones and coordinates, Tic-Tac-Toe (and any game
  that draws no picture of its own) as a white grid of X and O marks. A red
  dot marks the last move (none after a pass).
* ``human``: that picture in a pygame window (``HumanViewer``). pygame is an
  optional extra, imported only when a window is opened:
  ``pip install tictacgo[render]``.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import numpy as np

from tictacgo.games.base import Game
from tictacgo.games.pictures import (  # noqa: F401 -- the drawings' old home: their names stay importable here
    BLACK_EDGE,
    BLACK_STONE,
    DEFAULT_GO_CELL,
    DEFAULT_TTT_CELL,
    GRID_DARK,
    LAST_MOVE,
    MAX_CELL,
    O_COLOUR,
    PAPER,
    TTT_GRID,
    TTT_LABEL,
    WHITE_EDGE,
    WHITE_STONE,
    WOOD,
    X_COLOUR,
    check_cell,
    coordinate_band,
    go_image,
    grid_image,
    label_scale,
    tictactoe_image,
)
from tictacgo.validate import check_number


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
        game: the game object (it draws itself: ``game.image``).
        state: a state of that game.
        cell: pixels per board point (Go) or cell (Tic-Tac-Toe); a game default if None.
    Returns:
        ``uint8`` array of shape ``(H, W, 3)``.
    """
    return game.image(state, cell)


DEFAULT_FPS = 2  # frames per second in "human" mode, for every env
MAX_FPS = 240


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
