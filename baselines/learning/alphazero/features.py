"""The network's input planes, from the batched engine's arrays or from one rules-core state.

The search evaluates leaves on the batched engine (``from_engine``); an agent
or a test may hold a single rules-core state (``from_state``). Both give the
same float32 ``(C, n, n)`` planes, from the view of the player to move, and
carry everything the rules depend on, so that the value of a position is a
function of its planes:

Little-Go (8 planes):

* ``own``, ``opponent``: the mover's and the opponent's stones;
* ``previous_own``, ``previous_opponent``: the board before the opponent's
  last action (what the ko rule compares with);
* ``legal``: the points where the mover may place (ko and suicide applied);
* ``black_to_move``: a constant plane, 1 when Black moves (komi goes to White);
* ``actions_left``: a constant plane, ``(max_actions - t) / max_actions``
  (every action counts toward the limit, passes included);
* ``opponent_passed``: a constant plane, 1 when the opponent's last action
  was a pass (a pass now ends the game).

Tic-Tac-Toe (3 planes): ``own``, ``opponent``, ``x_to_move``.

Every plane is spatially equivariant (constants stay constant), so the eight
board symmetries act on planes and policy alike (``replay.transform``).
The encoder is looked up by the game's name in ``ENCODERS``, as the batched
engines are; a new game adds an entry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tictacgo.baselines.learning.alphazero.variant import Variant
from tictacgo.games.batched_common import BatchedGame, unpack
from tictacgo.games.bits import unpack_bits


class LittleGoPlanes:
    """Little-Go's planes (see the module docstring)."""

    planes = ("own", "opponent", "previous_own", "previous_opponent", "legal", "black_to_move",
              "actions_left", "opponent_passed")

    def __init__(self, variant: Variant):
        self.n = variant.board_size
        self.max_actions = variant.max_actions
        self.board_shape = (self.n, self.n)

    def from_engine(self, engine: BatchedGame, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``(len(rows), C, n, n)`` float32 planes of the engine's games ``rows``.

        Args:
            engine: a batched Little-Go engine of this variant.
            rows: the games to encode (int indices).
            legal: their ``(len(rows), num_actions)`` bool legal masks.
        """
        n, N = self.n, self.n * self.n
        black_moves = engine.to_move[rows] == 1
        black, white = engine.black[rows], engine.white[rows]
        pb, pw = engine.prev_black[rows], engine.prev_white[rows]
        out = np.empty((len(rows), len(self.planes), n, n), dtype=np.float32)
        flat = out.reshape(len(rows), len(self.planes), N)
        flat[:, 0] = unpack(np.where(black_moves, black, white), N)
        flat[:, 1] = unpack(np.where(black_moves, white, black), N)
        flat[:, 2] = unpack(np.where(black_moves, pb, pw), N)
        flat[:, 3] = unpack(np.where(black_moves, pw, pb), N)
        flat[:, 4] = legal[:, :N]
        flat[:, 5] = black_moves[:, None]
        flat[:, 6] = ((self.max_actions - engine.t[rows].astype(np.float32)) / self.max_actions)[:, None]
        flat[:, 7] = engine.last_pass[rows][:, None]
        return out

    def from_state(self, game, state: Any) -> np.ndarray:
        """``(C, n, n)`` float32 planes of one rules-core state (``game`` its rules module)."""
        n, N = self.n, self.n * self.n
        black_moves = state.to_move == 1
        own, opp = (state.black, state.white) if black_moves else (state.white, state.black)
        pown, popp = (state.prev_black, state.prev_white) if black_moves else (state.prev_white,
                                                                              state.prev_black)
        legal = game.legal_mask(state)[:N]
        consts = (float(black_moves), (self.max_actions - state.t) / self.max_actions, float(state.last_pass))
        rows = [unpack_bits(b, N) for b in (own, opp, pown, popp)] + [legal]
        rows += [np.full(N, c, dtype=np.float32) for c in consts]
        return np.stack(rows).astype(np.float32).reshape(len(self.planes), n, n)


class TicTacToePlanes:
    """Tic-Tac-Toe's planes (see the module docstring)."""

    planes = ("own", "opponent", "x_to_move")
    board_shape = (3, 3)

    def __init__(self, variant: Variant):
        pass

    def from_engine(self, engine: BatchedGame, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``(len(rows), 3, 3, 3)`` float32 planes of the engine's games ``rows`` (``legal`` unused)."""
        x_moves = engine.to_move[rows] == 1
        x, o = engine.x[rows], engine.o[rows]
        out = np.empty((len(rows), 3, 9), dtype=np.float32)
        out[:, 0] = unpack(np.where(x_moves, x, o), 9)
        out[:, 1] = unpack(np.where(x_moves, o, x), 9)
        out[:, 2] = x_moves[:, None]
        return out.reshape(len(rows), 3, 3, 3)

    def from_state(self, game, state: Any) -> np.ndarray:
        """``(3, 3, 3)`` float32 planes of one rules-core state."""
        x_moves = state.to_move == 1
        own, opp = (state.x, state.o) if x_moves else (state.o, state.x)
        rows = [unpack_bits(own, 9), unpack_bits(opp, 9), np.full(9, float(x_moves), dtype=np.float32)]
        return np.stack(rows).astype(np.float32).reshape(3, 3, 3)


ENCODERS = {"littlego": LittleGoPlanes, "tictactoe": TicTacToePlanes}


def encoder_for(variant: Variant) -> LittleGoPlanes | TicTacToePlanes:
    """The plane encoder of a game variant.

    Raises:
        ValueError: a game without an encoder.
    """
    try:
        return ENCODERS[variant.game](variant)
    except KeyError:
        raise ValueError(f"no AlphaZero input planes are defined for {variant.game!r}; "
                         f"games with planes: {sorted(ENCODERS)}") from None
