"""Little-Go for many games at once: B boards as int64 bitboards, stepped with numpy.

The rules are exactly those of the single-game core ``tictacgo.games.littlego``
(the course host's, quirks included: every action counts toward the limit,
passes too; two passes in a row end the game; Black passing on the very first
action ends it at once; simple ko only right after a capture; stone scoring
with komi). Bit ``i * n + j`` of a game's bitboard is point ``(i, j)``, as in
the core, so boards up to 7x7 fit one int64.

Captures, suicide and ko are the core's ``place_bits`` written over arrays:
flood fill is repeated shift-and-mask dilation of all the games' (or all the
tried points') bitboards at once, until none grows. One flood finds the
captured stones (the opponent stones no longer connected to a liberty); the
new stone's own group is flooded only where the stone has no empty neighbour. A legal mask tries only
the empty points without an empty neighbour (the others are always legal),
all of them in one vectorized placement.

With ``backend="numba"`` the legal mask, play, step and capture counts are
instead one compiled loop over the games (``batched_kernels``): the core's
``place_bits`` on scalar bitboards, game by game, point by point.

The engine is checked against the core on every recorded course-host game
(``tests/test_conformance.py``) and move for move on seeded random games of
several board sizes (``tests/test_batched_engines.py``). See
``tictacgo.games.batched_common`` for the interface shared with Tic-Tac-Toe.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tictacgo.games import littlego_place as go
from tictacgo.games.batched_common import BatchedGame, popcount, unpack
from tictacgo.games.errors import IllegalActionError
from tictacgo.games.greedy import most_captures
from tictacgo.games.registry import make_game

END_NONE, END_MAX_ACTIONS, END_DOUBLE_PASS, END_PASS_ON_EMPTY_START, END_ILLEGAL = range(5)
END_NAMES = (None, go.END_MAX_ACTIONS, go.END_DOUBLE_PASS, go.END_PASS_ON_EMPTY_START, go.END_ILLEGAL)
_END_CODES = {name: code for code, name in enumerate(END_NAMES)}

# Placement outcomes (``place``): legal, or the core's refusal reasons.
LEGAL, OCCUPIED, SUICIDE, KO = range(4)
REASONS = (None, go.OCCUPIED, go.SUICIDE, go.KO)
MAX_BOARD = 7  # n * n bits must fit an int64
MAX_ACTION_LIMIT = int(np.iinfo(np.int64).max)  # the action counter ``t`` is an int64


class BatchedLittleGo(BatchedGame):
    """B Little-Go games on ``n x n`` boards (see the module docstring).

    Args:
        batch_size: the number of games B.
        game: the variant, a ``LittleGo`` of size 2..7 (default ``LittleGo()``, 5x5).
        backend: ``"auto"``, ``"numpy"`` or ``"numba"`` (see ``batched_common``;
            None: the environment variable ``TICTACGO_BATCHED_BACKEND``, else auto).
    Raises:
        ValueError / TypeError: a bad batch size, a game that is not a ``LittleGo``
            of at most 7x7, an action limit beyond int64.
    """

    END_NAMES = END_NAMES
    END_ILLEGAL = END_ILLEGAL

    def __init__(self, batch_size: int, game: Any = None, backend: str | None = None):
        super().__init__(batch_size, backend)
        game = make_game("littlego") if game is None else game
        if getattr(game, "name", None) != "littlego":
            raise TypeError(f"game must be a LittleGo, got {game!r}")
        if game.size > MAX_BOARD:
            raise ValueError(f"the batched engine takes boards up to {MAX_BOARD}x{MAX_BOARD} "
                             f"(one int64 a board), got size {game.size}")
        if game.max_actions > MAX_ACTION_LIMIT:
            raise ValueError(f"the batched engine counts actions in int64: max_actions must be at most "
                             f"{MAX_ACTION_LIMIT}, got {game.max_actions}")
        self.game = game
        self._state_type = type(game.initial_state())
        self.n = game.size
        self.num_points = game.num_points
        self.num_actions = game.num_actions
        self.pass_action = game.pass_action
        self.board_shape = (game.size, game.size)
        self.komi = game.komi
        self.max_actions = game.max_actions
        self._full = np.int64(game.full)
        self._left = np.int64(game.not_first_col)
        self._right = np.int64(game.not_last_col)
        self._point = np.array(game.point_bits, dtype=np.int64)
        self._nb = np.array(game.neighbour_bits, dtype=np.int64)
        B = self.batch_size
        self.black = np.zeros(B, np.int64)
        self.white = np.zeros(B, np.int64)
        self.prev_black = np.zeros(B, np.int64)
        self.prev_white = np.zeros(B, np.int64)
        self.to_move = np.ones(B, np.int8)
        self.t = np.zeros(B, np.int64)
        self.ko_armed = np.zeros(B, bool)
        self.last_pass = np.zeros(B, bool)
        self.captured = np.zeros(B, np.int16)
        self.last_action = np.full(B, -1, np.int16)
        self.done = np.zeros(B, bool)
        self.end = np.zeros(B, np.int8)
        self.winner = np.full(B, -1, np.int8)
        self.reset()

    # -- bit operations over arrays ------------------------------------------------
    def _neighbours(self, bits: np.ndarray) -> np.ndarray:
        n = self.n
        return (((bits << 1) & self._left) | ((bits >> 1) & self._right)
                | ((bits << n) & self._full) | (bits >> n))

    def _flood(self, seed: np.ndarray, within: np.ndarray) -> np.ndarray:
        """For each entry, the union of the groups of ``within`` that touch ``seed``."""
        group = seed & within
        while True:
            grown = (group | self._neighbours(group)) & within
            if np.array_equal(grown, group):
                return group
            group = grown

    def place(self, own: np.ndarray, opp: np.ndarray, points: np.ndarray, ko_own: np.ndarray,
              ko_opp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Placements on raw bitboards: ``littlego.place_bits`` over arrays of the same length.

        Args:
            own: the mover's stones, int64.
            opp: the opponent's stones, int64.
            points: the point of each placement, ``0 <= p < n*n``.
            ko_own: the mover's stones of the board the move may not recreate, -1 where no ko applies.
            ko_opp: the opponent's stones of that board, -1 where no ko applies.
        Returns:
            ``(code, own2, opp2, dead)``: ``LEGAL`` or the refusal (``OCCUPIED``,
            ``SUICIDE``, ``KO``), and, where legal, the stones after the move
            and the captured stones.
        """
        stone = self._point[points]
        nbp = self._nb[points]
        occupied = ((own | opp) & stone) != 0
        own2 = own | stone
        empty = self._full & ~(own2 | opp)
        # Every group of a reachable board has a liberty before the move (from_boards refuses
        # others), so the opponent stones left without one are exactly the groups the move captures.
        dead = opp & ~self._flood(opp & self._neighbours(empty), opp)
        direct = (nbp & empty) != 0
        around = self._neighbours(stone)
        slow = np.nonzero(~direct)[0]  # no empty neighbour: the new group's liberties decide
        if slow.size:
            group = self._flood(stone[slow], own2[slow])
            around[slow] = self._neighbours(group)
            direct[slow] = (around[slow] & empty[slow]) != 0
        # No liberty at once: captures must give one (else suicide); only then can it be a ko.
        suicide = ~direct & ((dead == 0) | ((around & dead) == 0))
        opp2 = opp & ~dead
        ko = ~direct & ~suicide & (own2 == ko_own) & (opp2 == ko_opp)
        code = np.zeros(own.shape, np.int8)
        code[ko] = KO
        code[suicide] = SUICIDE
        code[occupied] = OCCUPIED
        return code, own2, opp2, dead

    # -- state ----------------------------------------------------------------------
    def reset(self, where=None) -> None:
        """Start new games: all of them, or those where the bool mask ``where`` is True."""
        m = self._check_mask(where)
        for arr in (self.black, self.white, self.prev_black, self.prev_white, self.t, self.captured):
            arr[m] = 0
        self.to_move[m] = go.BLACK
        self.ko_armed[m] = False
        self.last_pass[m] = False
        self.last_action[m] = -1
        self.done[m] = False
        self.end[m] = END_NONE
        self.winner[m] = -1

    def _own_opp(self) -> tuple[np.ndarray, np.ndarray]:
        black_moves = self.to_move == go.BLACK
        return (np.where(black_moves, self.black, self.white), np.where(black_moves, self.white, self.black))

    def _ko_boards(self) -> tuple[np.ndarray, np.ndarray]:
        black_moves = self.to_move == go.BLACK
        ko_own = np.where(black_moves, self.prev_black, self.prev_white)
        ko_opp = np.where(black_moves, self.prev_white, self.prev_black)
        ko_own[~self.ko_armed] = go.NO_KO
        ko_opp[~self.ko_armed] = go.NO_KO
        return ko_own, ko_opp

    def legal_mask(self) -> np.ndarray:
        """``(B, n*n + 1)`` bool: the legal actions of each game (PASS last; all False once over)."""
        if self._k is not None:
            out = np.empty((self.batch_size, self.num_actions), dtype=bool)
            self._k.go_legal_mask(self.black, self.white, self.prev_black, self.prev_white, self.to_move,
                                  self.ko_armed, self.done, *self._geo_args(), out)
            return out
        own, opp = self._own_opp()
        empty = self._full & ~(own | opp)
        easy = empty & self._neighbours(empty)
        out = np.zeros((self.batch_size, self.num_actions), dtype=bool)
        out[:, :self.num_points] = unpack(easy, self.num_points)
        games, points = np.nonzero(unpack(empty & ~easy, self.num_points))
        if games.size:
            ko_own, ko_opp = self._ko_boards()
            code = self.place(own[games], opp[games], points, ko_own[games], ko_opp[games])[0]
            ok = code == LEGAL
            out[games[ok], points[ok]] = True
        out[:, self.pass_action] = True
        out[self.done] = False
        return out

    def play(self, actions, where=None) -> None:
        """Play one action in every live game (entries of finished games are ignored).

        Args:
            actions: B integer actions.
            where: optional bool mask of B: play only in these games (the others' entries are ignored).

        Raises:
            TypeError / ValueError: actions that are not B integers in ``[0, n*n]``.
            IllegalActionError: an illegal placement in a live game (no game is changed).
        """
        a = self._check_actions(actions)
        if self._k is not None:
            self._play_kernel(a, self._where(where), False)
            return
        live = ~self.done & self._check_mask(where)
        passing = live & (a == self.pass_action)
        games = np.nonzero(live & ~passing)[0]
        own, opp = self._own_opp()
        ko_own, ko_opp = self._ko_boards()
        code, own2, opp2, dead = self.place(own[games], opp[games], a[games], ko_own[games], ko_opp[games])
        if (code != LEGAL).any():
            k = int(np.argmax(code != LEGAL))
            raise IllegalActionError(
                f"action {int(a[games[k]])} of game {int(games[k])} is illegal: {REASONS[code[k]]} "
                f"({int((code != LEGAL).sum())} illegal in the batch; no game was changed)",
                reason=REASONS[code[k]])
        end_by_pass = np.where(self.t == 0, END_PASS_ON_EMPTY_START,
                               np.where(self.last_pass, END_DOUBLE_PASS, END_NONE))
        self.prev_black[live] = self.black[live]
        self.prev_white[live] = self.white[live]
        black_moved = self.to_move[games] == go.BLACK
        self.black[games] = np.where(black_moved, own2, opp2)
        self.white[games] = np.where(black_moved, opp2, own2)
        self.ko_armed[games] = dead != 0
        self.captured[games] = popcount(dead)
        self.last_pass[games] = False
        self.ko_armed[passing] = False
        self.captured[passing] = 0
        self.last_pass[passing] = True
        self.t[live] += 1
        end = np.where(passing, end_by_pass, END_NONE)
        end = np.where(live & (self.t >= self.max_actions), END_MAX_ACTIONS, end)
        self.end[live] = end[live]
        self.last_action[live] = a[live]
        self.to_move[live] = 3 - self.to_move[live]
        ended = live & (self.end != END_NONE)
        self.done |= ended
        self.winner[ended] = self._score_winner()[ended]

    def _geo_args(self) -> tuple:
        return self._nb, self.n, self._full, self._left, self._right

    def _play_kernel(self, a: np.ndarray, where: np.ndarray, autoreset: bool):
        ended = np.empty(self.batch_size, dtype=bool)
        ret = np.zeros((self.batch_size, 2), dtype=np.float32)
        first, bad, code = self._k.go_play(
            self.black, self.white, self.prev_black, self.prev_white, self.to_move, self.t, self.ko_armed,
            self.last_pass, self.captured, self.last_action, self.done, self.end, self.winner, a, where,
            *self._geo_args(), self.pass_action, self.max_actions, self.komi, autoreset, ended, ret)
        if first >= 0:
            raise IllegalActionError(f"action {int(a[first])} of game {first} is illegal: {REASONS[code]} "
                                     f"({bad} illegal in the batch; no game was changed)",
                                     reason=REASONS[code])
        return ended, ret

    def _score_winner(self) -> np.ndarray:
        b = popcount(self.black).astype(np.float64)
        w = popcount(self.white) + self.komi
        return np.where(b > w, go.BLACK, np.where(w > b, go.WHITE, 0)).astype(np.int8)

    def scores(self) -> np.ndarray:
        """``(B, 2)`` float64: Black's stones, White's stones plus komi."""
        return np.stack([popcount(self.black).astype(np.float64), popcount(self.white) + self.komi], axis=1)

    def capture_counts(self) -> np.ndarray:
        """``(B, n*n)`` int: the stones each placement captures, -1 where the placement is illegal.

        The greedy opponent's question, for every point of every game at once.
        """
        B, N = self.batch_size, self.num_points
        if self._k is not None:
            out = np.empty((B, N), dtype=np.int64)
            self._k.go_capture_counts(self.black, self.white, self.prev_black, self.prev_white, self.to_move,
                                      self.ko_armed, self.done, *self._geo_args(), out)
            return out
        own, opp = self._own_opp()
        ko_own, ko_opp = self._ko_boards()
        games = np.repeat(np.arange(B), N)
        points = np.tile(np.arange(N), B)
        code, _, _, dead = self.place(own[games], opp[games], points, ko_own[games], ko_opp[games])
        out = np.where(code == LEGAL, popcount(dead), -1).reshape(B, N)
        out[self.done] = -1
        return out

    def greedy_choices(self, allowed: np.ndarray, games: np.ndarray) -> None:
        """Keep the placements of ``games`` that capture the most stones (the course's greedy player)."""
        allowed[:, :self.pass_action] &= most_captures(self.capture_counts()[games])

    def boards(self) -> np.ndarray:
        """``(B, n, n)`` int8: 0 empty, 1 Black, 2 White."""
        N = self.num_points
        cells = unpack(self.black, N).astype(np.int8) + 2 * unpack(self.white, N).astype(np.int8)
        return cells.reshape(self.batch_size, self.n, self.n)

    # -- conversion to and from the rules core -----------------------------------------
    def state(self, i: int) -> Any:
        """Game ``i`` as a rules-core ``GoState``."""
        end = END_NAMES[int(self.end[i])]
        loser = int(3 - self.winner[i]) if self.end[i] == END_ILLEGAL else 0
        return self._state_type(self.game, int(self.black[i]), int(self.white[i]), int(self.to_move[i]),
                          int(self.t[i]), int(self.prev_black[i]), int(self.prev_white[i]),
                          bool(self.ko_armed[i]), bool(self.last_pass[i]), int(self.captured[i]),
                          int(self.last_action[i]), end, loser)

    def set_state(self, i: int, s: Any) -> None:
        """Make game ``i`` the rules-core state ``s`` (same board size, komi and limit).

        Raises:
            TypeError / ValueError: not a state of this variant, or not a position legal
                play reaches (``LittleGo.check_state``).
        """
        if not isinstance(s, self._state_type):
            raise TypeError(f"expected a littlego.GoState, got {type(s).__name__}")
        if s.game is not self.game:
            raise ValueError(f"state is for {s.game!r}, this engine plays {self.game!r}")
        self.game.check_state(s)
        self.black[i], self.white[i] = s.black, s.white
        self.prev_black[i], self.prev_white[i] = s.prev_black, s.prev_white
        self.to_move[i], self.t[i] = s.to_move, s.t
        self.ko_armed[i], self.last_pass[i] = s.ko_armed, s.last_pass
        self.captured[i], self.last_action[i] = s.captured, s.last_action
        self.end[i] = _END_CODES[s.end]
        self.done[i] = s.end is not None
        w = self.game.winner(s)
        self.winner[i] = -1 if w is None else w
