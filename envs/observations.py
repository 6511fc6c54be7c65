"""Observation formats shared by the PettingZoo and Gymnasium envs.

* ``relative_board``: the player-relative board, int8 ``(n, n)``: +1 the
  mover's stones, -1 the opponent's, 0 empty. It is the course board
  (1 first player, 2 second) mapped to +1/-1 and multiplied by -1 on the
  second player's turn, so one network plays both sides.
* ``planes``: float32 ``(C, n, n)`` channels for CNNs: own stones, opponent
  stones, legal placements, and for Little-Go also the ko-forbidden points
  and the fraction of actions left (a constant plane).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

FLAT = "flat"
BOARD = "board"
PLANES = "planes"
FORMATS = (FLAT, BOARD, PLANES)


def board_size(game: ModuleType, state) -> int:
    return state.geo.n if hasattr(state, "geo") else 3


def relative_board(game: ModuleType, state, viewer: int | None = None) -> np.ndarray:
    """The board as int8 ``(n, n)`` from ``viewer``'s side (default: the player to move)."""
    board = game.to_board(state)
    me = game.current_player(state) if viewer is None else viewer
    out = np.zeros(board.shape, dtype=np.int8)
    out[board == me] = 1
    out[board == 3 - me] = -1
    return out


def num_planes(game: ModuleType) -> int:
    return 5 if game.NAME == "littlego" else 3


def planes(game: ModuleType, state, viewer: int | None = None) -> np.ndarray:
    """Float32 ``(C, n, n)``: own, opponent, legal (and ko-forbidden, actions left for Go)."""
    rel = relative_board(game, state, viewer)
    n = rel.shape[0]
    mask = game.legal_mask(state)[: n * n].reshape(n, n)
    chans = [rel == 1, rel == -1, mask == 1]
    if game.NAME == "littlego":
        ko = np.zeros((n, n), dtype=bool)
        if state.ko_armed and state.end is None:
            empty = rel == 0
            for p in np.flatnonzero(empty & (mask == 0)):
                if game.illegal_reason(state, int(p)) == "ko":
                    ko.flat[p] = True
        chans.append(ko)
        left = (state.geo.max_actions - state.t) / state.geo.max_actions
        chans.append(np.full((n, n), left))
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
