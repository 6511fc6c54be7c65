"""What the batched engines share: bit helpers on int64 arrays and the common interface.

A batched engine holds B games of one rules module as numpy arrays (one
bitboard per player and game) and steps them all at once. Both engines
(``tictacgo.games.batched_tictactoe`` and ``tictacgo.games.batched_littlego``)
subclass ``BatchedGame`` and offer the same interface:

* ``batch_size``, ``num_actions``, ``board_shape``, ``pass_action`` (None for
  Tic-Tac-Toe);
* arrays, one entry per game: ``to_move`` (1 or 2), ``done`` (bool),
  ``winner`` (-1 while live, 0 draw, 1 or 2), ``end`` (an ``END_*`` code,
  ``END_NONE`` while live; ``END_NAMES`` maps codes to the rules core's names);
* ``reset(where=None)``: new games (all, or where the bool mask is True);
* ``legal_mask()``: a ``(B, num_actions)`` bool array (all False once a game is over);
* ``play(actions, where=None)``: one action per game (or per game of the
  bool mask ``where``); entries of finished games are ignored, an illegal
  action of a live game raises ``IllegalActionError`` and leaves every game
  untouched;
* ``forfeit(where)``: the player to move loses the games in the mask;
* ``returns()``: ``(B, 2)`` float32, the first and second player's +1/-1/0;
* ``step(actions)``: play, report ``(done, returns)``, then reset the
  finished games (auto-reset);
* ``boards()``: ``(B, rows, cols)`` int8 of 0/1/2, ``relative_boards(colour)``
  +1/-1/0 from the view of a colour per game;
* ``state(i)`` / ``set_state(i, s)``: game ``i`` as a rules-core state and back
  (how the engines are checked move for move against the cores);
* ``backend``: ``"numpy"`` or ``"numba"``, see below.

Backends: every engine takes ``backend=`` ``"auto"`` (the default), ``"numpy"``
or ``"numba"``. ``"numba"`` runs the hot loops (legal masks, play, step,
Little-Go's capture counts and network planes) as compiled kernels (``batched_kernels``; install
the ``fast`` extra: ``pip install 'tictacgo[fast]'``); ``"numpy"`` is the pure
numpy fallback; ``"auto"`` picks numba when it imports. Without an argument
the environment variable ``TICTACGO_BATCHED_BACKEND`` (same three values)
decides, so a whole program (the vector envs, the SB3 VecEnv) can be switched
without code changes. Both backends give exactly the same games.
"""

from __future__ import annotations

import os

import numpy as np

from tictacgo.validate import check_int

BACKENDS = ("auto", "numpy", "numba")
BACKEND_ENV = "TICTACGO_BATCHED_BACKEND"
_kernels = None  # the batched_kernels module once imported, False when numba is unusable


def load_kernels():
    """The numba kernels module, or None when numba is missing or cannot be imported."""
    global _kernels
    if _kernels is None:
        try:
            from tictacgo.games import batched_kernels
        except ImportError:  # numba missing, or a numba that refuses the installed numpy
            _kernels = False
        else:
            _kernels = batched_kernels
    return _kernels or None


def resolve_backend(backend: str | None = None) -> str:
    """``"numpy"`` or ``"numba"``: the backend an engine built with ``backend=`` runs on.

    Args:
        backend: ``"auto"`` (numba when it imports, else numpy), ``"numpy"``,
            ``"numba"``, or None for the environment variable ``TICTACGO_BATCHED_BACKEND``
            (``"auto"`` when unset or empty).
    Raises:
        ValueError: an unknown backend name.
        ImportError: ``"numba"`` asked for while numba cannot be imported.
    """
    source = "backend"
    if backend is None:
        backend, source = os.environ.get(BACKEND_ENV) or "auto", BACKEND_ENV
    if backend not in BACKENDS:
        raise ValueError(f"{source} must be one of {BACKENDS}, got {backend!r}")
    if backend == "numpy":
        return "numpy"
    if load_kernels() is None:
        if backend == "numba":
            raise ImportError(f"{source}='numba' needs numba, which cannot be imported here: "
                              "pip install 'tictacgo[fast]' (or use backend='numpy')")
        return "numpy"
    return "numba"

if hasattr(np, "bitwise_count"):  # numpy >= 2.0
    def popcount(x: np.ndarray) -> np.ndarray:
        """The number of set bits of each entry of a non-negative int64 array."""
        return np.bitwise_count(x).astype(np.int64)
else:  # pragma: no cover - numpy 1.x
    def popcount(x: np.ndarray) -> np.ndarray:
        """The number of set bits of each entry of a non-negative int64 array."""
        a = np.ascontiguousarray(x, dtype=np.int64)
        return np.unpackbits(a.view(np.uint8)).reshape(*a.shape, 64).sum(-1).astype(np.int64)


def unpack(bits: np.ndarray, count: int) -> np.ndarray:
    """``(B,)`` int64 bitboards as a ``(B, count)`` bool array (bit 0 first)."""
    raw = np.ascontiguousarray(bits, dtype="<i8").view(np.uint8).reshape(len(bits), 8)
    return np.unpackbits(raw, axis=1, count=count, bitorder="little").view(bool)


class BatchedGame:
    """The interface of a batched engine; see the module docstring."""

    num_actions: int
    pass_action: int | None
    board_shape: tuple[int, int]
    END_NAMES: tuple[str | None, ...]
    END_ILLEGAL: int  # the end code of a game lost by an illegal action

    def __init__(self, batch_size: int, backend: str | None = None):
        self.batch_size = check_int("batch_size", batch_size, min=1)
        self.backend = resolve_backend(backend)
        self._everywhere = np.ones(self.batch_size, dtype=bool)

    @property
    def _k(self):
        """The kernels module on the numba backend, else None (a property: engines stay picklable)."""
        return load_kernels() if self.backend == "numba" else None

    def _where(self, where) -> np.ndarray:
        return self._everywhere if where is None else self._check_mask(where)

    def _check_actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.batch_size,):
            raise ValueError(f"actions must have shape ({self.batch_size},), one per game, got {a.shape}")
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {a.dtype}")
        if self.batch_size == 1:  # one game (a search's scratch engine): one comparison, no array calls
            i = 0 if not 0 <= a.item() < self.num_actions else -1
        else:
            bad = (a < 0) | (a >= self.num_actions)
            i = int(np.argmax(bad)) if bad.any() else -1
        if i >= 0:
            raise ValueError(f"actions must be in [0, {self.num_actions - 1}]; game {i} got {int(a[i])}")
        return a.astype(np.int64)

    def _check_mask(self, where, name: str = "where") -> np.ndarray:
        if where is None:
            return np.ones(self.batch_size, dtype=bool)
        m = np.asarray(where)
        if m.shape != (self.batch_size,) or m.dtype != bool:
            raise ValueError(f"{name} must be a bool array of shape ({self.batch_size},), "
                             f"got {m.dtype} {m.shape}")
        return m

    def state_fields(self) -> tuple[str, ...]:
        """The names of the games' state arrays: the public attributes with one entry per game."""
        return tuple(name for name, value in vars(self).items() if not name.startswith("_")
                     and isinstance(value, np.ndarray) and value.shape == (self.batch_size,))

    def snapshot(self) -> dict[str, np.ndarray]:
        """A copy of the games' state (``state_fields``), for ``restore``: how a caller undoes a
        step that failed midway, or copies an engine without its read-only tables."""
        return {name: getattr(self, name).copy() for name in self.state_fields()}

    def restore(self, snapshot: dict[str, np.ndarray]) -> None:
        """Put every game back as ``snapshot`` (from ``snapshot()`` of this engine) found it."""
        for name, value in snapshot.items():
            getattr(self, name)[...] = value  # in place: views and kernels keep their arrays

    def returns(self) -> np.ndarray:
        """``(B, 2)`` float32: the first and second player's return (+1 win, -1 loss, 0 draw or live)."""
        first = (self.winner == 1).astype(np.float32) - (self.winner == 2)
        return np.stack([first, -first], axis=1) + np.float32(0.0)  # + 0.0: no -0.0 for draws

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """Play ``actions``, then reset the games that ended (auto-reset).

        Returns:
            ``(done, returns)``: which games ended with this action, and the
            ``(B, 2)`` returns of those games (zeros for the others).
        """
        if self._k is not None:  # one kernel call: play, returns and auto-reset
            return self._play_kernel(self._check_actions(actions), self._everywhere, True)
        was_live = ~self.done
        self.play(actions)
        ended = was_live & self.done
        ret = self.returns() * ended[:, None]
        self.reset(ended)
        return ended, ret

    def forfeit(self, where) -> None:
        """The player to move loses the live games where the bool mask ``where`` is True."""
        m = self._check_mask(where) & ~self.done
        self.done[m] = True
        self.end[m] = self.END_ILLEGAL
        self.winner[m] = 3 - self.to_move[m]

    def relative_boards(self, colour) -> np.ndarray:
        """``(B, rows, cols)`` int8: +1 the stones of ``colour`` (1 or 2, or one per game), -1 the other's."""
        return self.game.encoder.relative_boards(self, colour)

    def opponent_choices(self, mask: np.ndarray, games: np.ndarray, greedy: bool = False) -> np.ndarray:
        """The moves a built-in opponent of the vector env draws from, uniformly, in ``games``.

        Every legal placement, and a pass (in a game with one) only when no placement is legal.

        Args:
            mask: ``(len(games), num_actions)`` bool, the legal actions of those games.
            games: the indices of the games.
            greedy: keep only the course's greedy player's choices (``greedy_choices``).
        Returns:
            A bool array like ``mask``.
        """
        allowed = mask.copy()
        if self.pass_action is None:
            return allowed
        allowed[:, self.pass_action] = False
        if greedy:
            self.greedy_choices(allowed, games)
        allowed[~allowed.any(axis=1), self.pass_action] = True
        return allowed

    def greedy_choices(self, allowed: np.ndarray, games: np.ndarray) -> None:
        """Narrow the placements ``allowed`` in ``games`` (in place) to the greedy player's: all of them
        unless the game defines better (Little-Go: the most captures)."""
