"""A board's symmetries as maps of actions: the one definition every user asks the game for.

A game's ``symmetries()`` is an int64 array ``(S, num_actions)``: row ``s``
sends action ``a`` to its image under symmetry ``s``; actions that are not
board points (Little-Go's PASS) map to themselves, and row 0 is the
identity. The Q-learners key their tables by the smallest image of a
position, the solver's transposition table hashes the images of a position
together, its certificates and books name a position by its smallest image
(``tictacgo.proof.position_code``), and AlphaZero's replay buffer moves
training positions with them, so all of them see the same symmetries in the
same order.

A square board has eight (the dihedral group of the square); a rectangle
that is not a square has four (the identity, the half turn and the two
mirrors), and a game whose rules are not symmetric under all of them (a
game with gravity: only the left-right mirror) declares fewer.
"""

from __future__ import annotations

import numpy as np


def _maps(rows: int, cols: int, square: bool):
    """The point maps ``(i, j) -> (i', j')`` of a ``rows x cols`` board, identity first."""
    r, c = rows - 1, cols - 1
    maps = [lambda i, j: (i, j)]
    if square:
        maps += [lambda i, j: (j, r - i), lambda i, j: (r - i, c - j), lambda i, j: (c - j, i),
                 lambda i, j: (i, c - j), lambda i, j: (r - i, j), lambda i, j: (j, i),
                 lambda i, j: (c - j, r - i)]
    else:
        maps += [lambda i, j: (r - i, c - j), lambda i, j: (i, c - j), lambda i, j: (r - i, j)]
    return maps


def board_symmetries(rows: int, cols: int, num_actions: int) -> np.ndarray:
    """Every symmetry of a ``rows x cols`` board, as maps of ``num_actions`` actions.

    Square boards: the identity, the quarter turn clockwise, the half turn,
    the quarter turn anticlockwise, the left-right mirror, the up-down
    mirror, the transpose and the anti-transpose (8 rows, in this order).
    Other rectangles: the identity, the half turn, the left-right and the
    up-down mirror (4 rows).

    Args:
        rows: the board's rows.
        cols: its columns; point ``(i, j)`` is action ``i * cols + j``.
        num_actions: at least ``rows * cols``; the actions after the points stay fixed.
    Returns:
        A fresh int64 array ``(S, num_actions)``.
    """
    points = rows * cols
    if num_actions < points:
        raise ValueError(f"a {rows}x{cols} board needs at least {points} actions, got {num_actions}")
    maps = _maps(rows, cols, rows == cols)
    out = np.empty((len(maps), num_actions), dtype=np.int64)
    out[:, points:] = np.arange(points, num_actions)
    for s, f in enumerate(maps):
        for p in range(points):
            i, j = f(*divmod(p, cols))
            out[s, p] = i * cols + j
    return out


def left_right_mirror(rows: int, cols: int, num_actions: int) -> np.ndarray:
    """The identity and the left-right mirror only (``(2, num_actions)``): for rules that are not
    symmetric up and down, such as a game with gravity."""
    full = board_symmetries(rows, cols, num_actions)
    return full[[0, 4]] if rows == cols else full[[0, 2]]


def inverse(symmetries: np.ndarray) -> np.ndarray:
    """The inverse of each map: ``inverse(m)[s, m[s, a]] == a``."""
    out = np.empty_like(symmetries)
    for s, row in enumerate(symmetries):
        out[s, row] = np.arange(len(row))
    return out


def move_boards(x: np.ndarray, symmetry: np.ndarray) -> np.ndarray:
    """Arrays whose last two axes are the board, moved by one symmetry (a row of ``symmetries()``).

    The value at point ``p`` lands on ``symmetry[p]``. Returns a fresh array.
    """
    rows, cols = x.shape[-2:]
    points = rows * cols
    source = np.empty(points, dtype=np.int64)
    source[symmetry[:points]] = np.arange(points)
    flat = x.reshape(*x.shape[:-2], points)
    return flat[..., source].reshape(x.shape)


def move_actions(values: np.ndarray, symmetry: np.ndarray) -> np.ndarray:
    """Vectors over actions (``(..., A)``, a policy) moved by one symmetry: ``out[..., symmetry[a]]
    = values[..., a]``. Returns a fresh array."""
    source = np.empty(len(symmetry), dtype=np.int64)
    source[symmetry] = np.arange(len(symmetry))
    return values[..., source]
