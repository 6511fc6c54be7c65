"""The batched engine of any game: B single-game states stepped one by one through the game's rules.

``StateBatch(B, game)`` offers the interface of ``BatchedGame``
(``tictacgo.games.batched_common``) for a game that brings no engine of its
own, so the native vector env and batched self-play run every game; it is as
fast as the rules it calls, so a game that wants speed brings a numpy or
numba engine instead (as Tic-Tac-Toe and Little-Go do) and returns it from
its ``batched`` method. The states are kept in an object array, one per game,
and the arrays the interface names (``to_move``, ``done``, ``winner``,
``end``, ``t``, ``last_action``) are updated from them after every change.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tictacgo.games.batched_common import BatchedGame
from tictacgo.games.errors import IllegalActionError


class StateBatch(BatchedGame):
    """B games of ``game`` as rules-core states (see the module docstring).

    Args:
        batch_size: the number of games B.
        game: the game object; its rules step every game.
        backend: accepted for the common signature; the games always step in Python ("numpy"). Any
            other backend asked for is named once in a warning (this engine has no compiled one).
    """

    _warned: set = set()

    def __init__(self, batch_size: int, game: Any, backend: str | None = None):
        if backend not in (None, "numpy") and (type(game).__name__, backend) not in StateBatch._warned:
            StateBatch._warned.add((type(game).__name__, backend))
            warnings.warn(f"{type(game).__name__} has no {backend!r} batched engine: its games step through "
                          "the rules in Python (the generic engine, backend 'numpy')", stacklevel=3)
        super().__init__(batch_size, "numpy")
        self.game = game
        self.END_NAMES = (None, *game.END_REASONS)
        self.END_ILLEGAL = self.END_NAMES.index("illegal")
        self._end_codes = {name: code for code, name in enumerate(self.END_NAMES)}
        self.num_actions = game.num_actions
        self.pass_action = game.pass_action
        self.board_shape = tuple(game.spec.board_shape)
        B = self.batch_size
        self.states = np.empty(B, dtype=object)
        self.to_move = np.ones(B, np.int8)
        self.done = np.zeros(B, bool)
        self.end = np.zeros(B, np.int8)
        self.winner = np.full(B, -1, np.int8)
        self.t = np.zeros(B, np.int64)
        self.last_action = np.full(B, -1, np.int64)
        self.reset()

    def _put(self, i: int, state: Any, t: int) -> None:
        """Game ``i`` becomes ``state``, ``t`` actions into the game; the arrays follow."""
        game = self.game
        self.states[i] = state
        self.to_move[i] = game.current_player(state)
        self.end[i] = self._end_codes[game.end_reason(state)]
        self.done[i] = game.is_terminal(state)
        w = game.winner(state)
        self.winner[i] = -1 if w is None else w
        self.t[i] = t
        self.last_action[i] = getattr(state, "last_action", -1)

    def reset(self, where=None) -> None:
        """Start new games: all of them, or those where the bool mask ``where`` is True."""
        start = self.game.initial_state()
        for i in np.flatnonzero(self._check_mask(where)):
            self._put(int(i), start, 0)

    def legal_mask(self) -> np.ndarray:
        """``(B, num_actions)`` bool: the legal actions of each live game (all False once over)."""
        out = np.zeros((self.batch_size, self.num_actions), dtype=bool)
        for i in np.flatnonzero(~self.done):
            out[i] = self.game.legal_mask(self.states[i]).astype(bool)
        return out

    def play(self, actions, where=None) -> None:
        """One action in every live game (or those of the bool mask ``where``).

        Raises:
            TypeError / ValueError: actions that are not B integers in range.
            IllegalActionError: an illegal action in a live game (no game is changed).
        """
        a = self._check_actions(actions)
        games = np.flatnonzero(~self.done & self._check_mask(where))
        game = self.game
        for i in games:
            reason = game.illegal_reason(self.states[i], int(a[i]))
            if reason is not None:
                raise IllegalActionError(f"action {int(a[i])} of game {int(i)} is illegal: {reason} "
                                         "(no game was changed)", reason=reason)
        for i in games:
            self._put(int(i), game.play(self.states[i], int(a[i])), int(self.t[i]) + 1)

    def forfeit(self, where) -> None:
        """The player to move loses the live games where the bool mask ``where`` is True."""
        for i in np.flatnonzero(self._check_mask(where) & ~self.done):
            self._put(int(i), self.game.forfeit(self.states[i]), int(self.t[i]))

    def boards(self) -> np.ndarray:
        """``(B, rows, cols)`` int8: 0 empty, 1 first player, 2 second."""
        return np.stack([self.game.to_board(s) for s in self.states]).astype(np.int8)

    def state(self, i: int) -> Any:
        """Game ``i`` as a rules-core state."""
        return self.states[i]

    def set_state(self, i: int, s: Any) -> None:
        """Make game ``i`` the rules-core state ``s`` (checked with the game's ``check_state``)."""
        self.game.check_state(s)
        first, second = self.game.stone_bits(s)
        t = getattr(s, "t", None)
        self._put(i, s, (first | second).bit_count() if t is None else int(t))
