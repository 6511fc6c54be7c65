"""Observation formats shared by the PettingZoo and Gymnasium envs.

* ``flat`` / ``board``: the player-relative board (``relative_board``),
  int8, as a vector of ``n*n`` or as ``(n, n)``: +1 the viewer's stones, -1
  the opponent's, 0 empty. It is the course board (1 first player, 2 second)
  mapped to +1/-1 and multiplied by -1 on the second player's turn, so one
  network plays both sides. It does not carry who is to move (Tic-Tac-Toe's
  mark counts imply it; with passes and captures, Go's stone counts do not)
  or how many actions are left: Little-Go's Black to move after
  actions ``[0, 24]`` and White to move after ``[24, 0, PASS]`` look the
  same, though with komi and the action limit their values differ.
* ``planes``: float32 ``(C, n, n)`` channels in [0, 1] for CNNs, the ones the
  game declares in ``spec.planes``, in that order:

  * ``own``: 1 on the viewer's stones (marks)
  * ``opponent``: 1 on the opponent's stones (marks)
  * ``legal``: 1 where the player to move may place (whichever side views
    it; all zeros once the game is over); PASS is not a point, so it has
    no plane
  * ``ko``: Little-Go: 1 on the points only the ko rule forbids
  * ``actions_left``: Little-Go: a constant plane, the fraction of the
    action limit still to play, ``(max_actions - t) / max_actions``
  * ``to_move``: a constant plane: 1.0 when the first player (Black, X) is
    to move, 0.0 when the second (White, O) is

  Tic-Tac-Toe: ``own, opponent, legal, to_move`` (4 channels); Little-Go:
  ``own, opponent, legal, ko, actions_left, to_move`` (6). ``to_move`` and
  ``actions_left`` carry what the player-relative stones cannot: which
  colour gets komi and how close the action limit is (go_v5, OpenSpiel and
  pgx carry the colour to move as well). New planes go at the end, so the
  earlier ones keep their index.
* ``planes_hwc``: the same planes channels last, float32 ``(n, n, C)``, the
  layout of PettingZoo's classic envs (go_v5, tictactoe_v3) and of Keras
  and TensorFlow convolutions. This package's own networks and trained-model
  agents read ``planes`` (channels first, as PyTorch and SB3 do); pick
  ``planes_hwc`` for code of your own that expects channels last.

The formats are built by the game's one feature encoder (``game.encoder``,
``tictacgo.games.features``), which the vector env and AlphaZero use too;
the functions here are its Gymnasium-facing side (``observation_space``) and
shortcuts to it. They never test which game it is, and boards need not be
square.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from tictacgo.games.base import Game
from tictacgo.games.features import BOARD, FLAT, FORMATS, PLANES, PLANES_HWC

__all__ = ["FLAT", "BOARD", "PLANES", "PLANES_HWC", "FORMATS", "relative_board", "planes", "observe",
           "observation_space", "format_for_shape"]


def relative_board(game: Game, state, viewer: int | None = None) -> np.ndarray:
    """The player-relative board of one state (``game.encoder.relative_board``).

    Args:
        game: the game object.
        state: a state of ``game``.
        viewer: the colour whose stones count +1 (default: the player to move).

    Returns:
        A fresh int8 array of ``spec.board_shape``: +1 the viewer's stones, -1 the
        opponent's, 0 empty (``to_board``'s 1/2 mapped from the viewer's side).
    """
    return game.encoder.relative_board(state, viewer)


def planes(game: Game, state, viewer: int | None = None) -> np.ndarray:
    """Float32 ``(C, rows, cols)``: the planes the game declares (``spec.planes``), in order."""
    return game.encoder.observation_planes(state, viewer)


def observe(game: Game, state, fmt: str = FLAT, viewer: int | None = None) -> np.ndarray:
    """The observation of ``state`` in format ``fmt`` ("flat", "board", "planes" or "planes_hwc")."""
    return game.encoder.observe(state, fmt, viewer)


def observation_space(game: Game, fmt: str) -> spaces.Box:
    """The space of ``game``'s observations in format ``fmt`` (see the module docstring).

    Raises:
        ValueError: an unknown format.
    """
    shape = game.encoder.observation_shape(fmt)
    if fmt in (FLAT, BOARD):
        return spaces.Box(-1, 1, shape, np.int8)
    return spaces.Box(0.0, 1.0, shape, np.float32)


def format_for_shape(game: Game, state, shape: tuple[int, ...]) -> str:
    """The format whose observations of ``state``'s variant have ``shape`` (how a saved model is read).

    Raises:
        ValueError: the shape fits no format of this game and board size.
    """
    return game.encoder.format_for_shape(shape)
