"""Observation formats shared by the PettingZoo and Gymnasium envs.

* ``relative_board``: the player-relative board, int8 ``(n, n)``: +1 the
  mover's stones, -1 the opponent's, 0 empty. It is the course board
  (1 first player, 2 second) mapped to +1/-1 and multiplied by -1 on the
  second player's turn, so one network plays both sides.
* ``planes``: float32 ``(C, n, n)`` channels for CNNs, the ones the game
  declares in ``spec(state).planes``: own stones, opponent stones, legal
  placements, and for Little-Go also the ko-forbidden points and the
  fraction of actions left (a constant plane).

The formats ask the game (``spec``, ``stone_bits``, ``ko_bits``); they never
test which game it is.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from tictacgo.games.bits import unpack_bits

FLAT = "flat"
BOARD = "board"
PLANES = "planes"
FORMATS = (FLAT, BOARD, PLANES)


def board_size(game: ModuleType, state) -> int:
    """The number of rows (= columns) of ``state``'s board."""
    return game.spec(state).board_shape[0]


def relative_board(game: ModuleType, state, viewer: int | None = None) -> np.ndarray:
    """The board as int8 ``(n, n)`` from ``viewer``'s side (default: the player to move)."""
    board = game.to_board(state)
    me = game.current_player(state) if viewer is None else viewer
    out = np.zeros(board.shape, dtype=np.int8)
    out[board == me] = 1
    out[board == 3 - me] = -1
    return out


def num_planes(game: ModuleType, state=None) -> int:
    """Channels of the "planes" format for ``state``'s variant (the default one if None)."""
    return game.spec(state).num_planes


def _bits_plane(bits: int, n: int) -> np.ndarray:
    return unpack_bits(bits, n * n).reshape(n, n).astype(bool)


def _plane(name: str, game: ModuleType, state, rel: np.ndarray) -> np.ndarray:
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
        limit = game.spec(state).max_actions
        return np.full((n, n), (limit - state.t) / limit)
    raise ValueError(f"unknown observation plane {name!r}")


def planes(game: ModuleType, state, viewer: int | None = None) -> np.ndarray:
    """Float32 ``(C, n, n)``: the planes the game declares (``spec(state).planes``), in order."""
    rel = relative_board(game, state, viewer)
    chans = [_plane(name, game, state, rel) for name in game.spec(state).planes]
    return np.stack(chans).astype(np.float32)


def observe(game: ModuleType, state, fmt: str = FLAT, viewer: int | None = None) -> np.ndarray:
    """The observation of ``state`` in format ``fmt`` ("flat", "board" or "planes")."""
    if fmt == FLAT:
        return relative_board(game, state, viewer).ravel()
    if fmt == BOARD:
        return relative_board(game, state, viewer)
    if fmt == PLANES:
        return planes(game, state, viewer)
    raise ValueError(f"unknown observation format {fmt!r}; expected one of {FORMATS}")
