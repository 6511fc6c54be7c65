"""Tic-Tac-Toe for many games at once: B boards as 9-bit bitboards, stepped with numpy.

The rules are those of the single-game core ``tictacgo.games.tictactoe``
(cells 0..8 row-major, X first, three in a row wins, a full board without one
is a draw). Each game is one bitboard per player in an int64 array; a
512-entry table answers "does this set of cells hold a line" for all games
in one lookup. With ``backend="numba"`` the legal mask, play and step run as
one compiled loop over the games (``batched_kernels``). See
``tictacgo.games.batched_common`` for the interface shared with Little-Go;
``tests/test_batched_engines.py`` checks it move for move against the core.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tictacgo.games import tictactoe_lines as ttt
from tictacgo.games.batched_common import BatchedGame, popcount, unpack
from tictacgo.games.errors import IllegalActionError
from tictacgo.games.registry import make_game

END_NONE, END_WIN, END_DRAW, END_ILLEGAL = range(4)
END_NAMES = (None, ttt.END_WIN, ttt.END_DRAW, ttt.END_ILLEGAL)
_END_CODES = {name: code for code, name in enumerate(END_NAMES)}
HAS_LINE = np.array([ttt.has_line(b) for b in range(512)], dtype=bool)


class BatchedTicTacToe(BatchedGame):
    """B Tic-Tac-Toe games (see the module docstring).

    Args:
        batch_size: the number of games B.
        game: ``TicTacToe()`` (the only variant; None is the same).
        backend: ``"auto"``, ``"numpy"`` or ``"numba"`` (see ``batched_common``;
            None: the environment variable ``TICTACGO_BATCHED_BACKEND``, else auto).
    """

    END_NAMES = END_NAMES
    END_ILLEGAL = END_ILLEGAL
    num_actions = ttt.NUM_ACTIONS
    pass_action = None
    board_shape = (3, 3)

    def __init__(self, batch_size: int, game: Any = None, backend: str | None = None):
        if game is not None and getattr(game, "name", None) != "tictactoe":
            raise TypeError(f"game must be a TicTacToe, got {game!r}")
        super().__init__(batch_size, backend)
        self.game = make_game("tictactoe")
        self._start = self.game.initial_state()
        B = self.batch_size
        self.x = np.zeros(B, np.int64)
        self.o = np.zeros(B, np.int64)
        self.to_move = np.ones(B, np.int8)
        self.last_action = np.full(B, -1, np.int16)
        self.done = np.zeros(B, bool)
        self.end = np.zeros(B, np.int8)
        self.winner = np.full(B, -1, np.int8)
        self._cell = np.int64(1) << np.arange(9, dtype=np.int64)

    @property
    def t(self) -> np.ndarray:
        """Moves played in each game."""
        return popcount(self.x | self.o)

    def reset(self, where=None) -> None:
        """Start new games: all of them, or those where the bool mask ``where`` is True."""
        m = self._check_mask(where)
        for arr, value in ((self.x, 0), (self.o, 0), (self.to_move, ttt.X), (self.last_action, -1),
                           (self.done, False), (self.end, END_NONE), (self.winner, -1)):
            np.copyto(arr, value, where=m)

    def legal_mask(self) -> np.ndarray:
        """``(B, 9)`` bool: the empty cells of each live game (all False once over)."""
        if self._k is not None:
            out = np.empty((self.batch_size, 9), dtype=bool)
            self._k.ttt_legal_mask(self.x, self.o, self.done, out)
            return out
        out = unpack(ttt.FULL & ~(self.x | self.o), 9)
        out[self.done] = False
        return out

    def play(self, actions, where=None) -> None:
        """Mark one cell in every live game (entries of finished games are ignored).

        Args:
            actions: B integer actions.
            where: optional bool mask of B: play only in these games (the others' entries are ignored).

        Raises:
            TypeError / ValueError: actions that are not B integers in 0..8.
            IllegalActionError: a taken cell in a live game (no game is changed).
        """
        a = self._check_actions(actions)
        if self._k is not None:
            self._play_kernel(a, self._where(where), False)
            return
        live = ~self.done & self._check_mask(where)
        bit = self._cell[a]
        taken = live & (((self.x | self.o) & bit) != 0)
        if taken.any():
            i = int(np.argmax(taken))
            raise IllegalActionError(f"action {int(a[i])} of game {i} is illegal: cell taken "
                                     f"({int(taken.sum())} illegal in the batch; no game was changed)",
                                     reason=ttt.OCCUPIED)
        # Whole-array updates with where= masks: cheaper than boolean fancy indexing at large B.
        x_moves = live & (self.to_move == ttt.X)
        o_moves = live & ~x_moves
        self.x |= np.where(x_moves, bit, 0)
        self.o |= np.where(o_moves, bit, 0)
        won = live & HAS_LINE[np.where(x_moves, self.x, self.o)]
        drawn = live & ~won & ((self.x | self.o) == ttt.FULL)
        np.copyto(self.end, END_WIN, where=won)
        np.copyto(self.winner, self.to_move, where=won)
        np.copyto(self.end, END_DRAW, where=drawn)
        np.copyto(self.winner, 0, where=drawn)
        self.done |= won | drawn
        np.copyto(self.last_action, a, where=live, casting="same_kind")
        np.copyto(self.to_move, 3 - self.to_move, where=live)

    def _play_kernel(self, a: np.ndarray, where: np.ndarray, autoreset: bool):
        ended = np.empty(self.batch_size, dtype=bool)
        ret = np.zeros((self.batch_size, 2), dtype=np.float32)
        first, bad = self._k.ttt_play(self.x, self.o, self.to_move, self.last_action, self.done, self.end,
                                      self.winner, a, where, HAS_LINE, autoreset, ended, ret)
        if first >= 0:
            raise IllegalActionError(f"action {int(a[first])} of game {first} is illegal: cell taken "
                                     f"({bad} illegal in the batch; no game was changed)",
                                     reason=ttt.OCCUPIED)
        return ended, ret

    def boards(self) -> np.ndarray:
        """``(B, 3, 3)`` int8: 0 empty, 1 X, 2 O."""
        cells = unpack(self.x, 9).astype(np.int8) + 2 * unpack(self.o, 9).astype(np.int8)
        return cells.reshape(self.batch_size, 3, 3)

    def state(self, i: int) -> Any:
        """Game ``i`` as a rules-core ``TTTState``."""
        w = int(self.winner[i])
        return self._start._replace(x=int(self.x[i]), o=int(self.o[i]), to_move=int(self.to_move[i]),
                                    end=END_NAMES[int(self.end[i])], winner=max(w, 0),
                                    last_action=int(self.last_action[i]))

    def set_state(self, i: int, s: Any) -> None:
        """Make game ``i`` the rules-core state ``s``.

        Raises:
            TypeError / ValueError: not a position legal play reaches (``TicTacToe.check_state``).
        """
        if not isinstance(s, type(self._start)):
            raise TypeError(f"expected a tictactoe.TTTState, got {type(s).__name__}")
        self.game.check_state(s)
        self.x[i], self.o[i], self.to_move[i] = s.x, s.o, s.to_move
        self.last_action[i] = s.last_action
        self.end[i] = _END_CODES[s.end]
        self.done[i] = s.end is not None
        w = self.game.winner(s)
        self.winner[i] = -1 if w is None else w
