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

The formats ask the game (``spec``, ``current_player``, ``stone_bits``,
``ko_bits``); they never test which game it is.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from tictacgo.games.bits import signed_board, unpack_bits
from tictacgo.games.spec import Game

FLAT = "flat"
BOARD = "board"
PLANES = "planes"
PLANES_HWC = "planes_hwc"
FORMATS = (FLAT, BOARD, PLANES, PLANES_HWC)


def relative_board(game: Game, state, viewer: int | None = None) -> np.ndarray:
    """The player-relative board of one state: the one implementation for single states.

    Built straight from the game's bitboards (``stone_bits``), so it costs one
    conversion; the batched engines have theirs (``BatchedGame.relative_boards``).

    Args:
        game: the game object.
        state: a state of ``game``.
        viewer: the colour whose stones count +1 (default: the player to move).

    Returns:
        A fresh int8 array of ``spec.board_shape``: +1 the viewer's stones, -1 the
        opponent's, 0 empty (``to_board``'s 1/2 mapped from the viewer's side).
    """
    own, opp = game.stone_bits(state)
    if (game.current_player(state) if viewer is None else viewer) != 1:
        own, opp = opp, own
    shape = game.spec.board_shape
    return signed_board(own, opp, shape[0] * shape[1]).reshape(shape)


def _bits_plane(bits: int, n: int) -> np.ndarray:
    return unpack_bits(bits, n * n).reshape(n, n).astype(bool)


def _plane(name: str, game: Game, state, rel: np.ndarray) -> np.ndarray:
    n = rel.shape[0]
    if name == "own":
        return rel == 1
    if name == "opponent":
        return rel == -1
    if name == "legal":
        return game.legal_mask(state)[: n * n].reshape(n, n) == 1
    if name == "ko":
        return _bits_plane(game.ko_bits(state), n)
    if name == "actions_left":
        limit = game.spec.max_actions
        return np.full((n, n), (limit - state.t) / limit)
    if name == "to_move":
        return np.full((n, n), game.current_player(state) == 1)
    raise ValueError(f"unknown observation plane {name!r}")


def planes(game: Game, state, viewer: int | None = None) -> np.ndarray:
    """Float32 ``(C, n, n)``: the planes the game declares (``spec.planes``), in order."""
    rel = relative_board(game, state, viewer)
    chans = [_plane(name, game, state, rel) for name in game.spec.planes]
    return np.stack(chans).astype(np.float32)


def observe(game: Game, state, fmt: str = FLAT, viewer: int | None = None) -> np.ndarray:
    """The observation of ``state`` in format ``fmt`` ("flat", "board", "planes" or "planes_hwc")."""
    if fmt == FLAT:
        return relative_board(game, state, viewer).ravel()
    if fmt == BOARD:
        return relative_board(game, state, viewer)
    if fmt == PLANES:
        return planes(game, state, viewer)
    if fmt == PLANES_HWC:
        return np.ascontiguousarray(planes(game, state, viewer).transpose(1, 2, 0))
    raise ValueError(f"unknown observation format {fmt!r}; expected one of {FORMATS}")


def observation_space(game: Game, fmt: str) -> spaces.Box:
    """The space of ``game``'s observations in format ``fmt`` (see the module docstring).

    Raises:
        ValueError: an unknown format.
    """
    spec = game.spec
    if fmt == FLAT:
        return spaces.Box(-1, 1, (spec.num_points,), np.int8)
    if fmt == BOARD:
        return spaces.Box(-1, 1, spec.board_shape, np.int8)
    if fmt == PLANES:
        return spaces.Box(0.0, 1.0, (spec.num_planes, *spec.board_shape), np.float32)
    if fmt == PLANES_HWC:
        return spaces.Box(0.0, 1.0, (*spec.board_shape, spec.num_planes), np.float32)
    raise ValueError(f"observation must be one of {FORMATS}, got {fmt!r}")


def format_for_shape(game: Game, state, shape: tuple[int, ...]) -> str:
    """The format whose observations of ``state``'s variant have ``shape`` (how a saved model is read).

    Raises:
        ValueError: the shape fits no format of this game and board size.
    """
    spec = game.spec
    n = spec.board_shape[0]
    shape = tuple(int(x) for x in shape)
    if shape == (n * n,):
        return FLAT
    if shape == (n, n):
        return BOARD
    if shape == (spec.num_planes, n, n):
        return PLANES
    raise ValueError(f"the model's observations have shape {shape}, which fits no observation of "
                     f"{spec.name} on a {n}x{n} board (flat {(n * n,)}, board {(n, n)}, "
                     f"planes {(spec.num_planes, n, n)}): it was trained for another game or size")
