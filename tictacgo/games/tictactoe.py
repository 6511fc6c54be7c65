"""Tic-Tac-Toe as a pure rules core.

Cells are numbered 0..8 row-major (the actor-critic chapter numbers them 1..9):

    0 | 1 | 2
    3 | 4 | 5
    6 | 7 | 8

X (1) moves first, O (2) second. Three in a row wins; a full board without
one is a draw. The state is an immutable ``TTTState`` with one 9-bit int per
player. The interface matches ``tictacgo.games.littlego`` (``initial_state``,
``legal_actions``, ``legal_mask``, ``play``, ``is_terminal``, ``returns``,
``current_player``, ``to_board``), so search agents are written once for both.

Version history: v0, the first release.
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

import numpy as np

from tictacgo.games.base import Game, GameSpec
from tictacgo.games.batched_common import unpack
from tictacgo.games.batched_tictactoe import BatchedTicTacToe
from tictacgo.games.bits import unpack_bits
from tictacgo.games.errors import GameOverError, IllegalActionError, check_action_type
from tictacgo.games.pictures import tictactoe_image
from tictacgo.games.playouts import ttt_playout
from tictacgo.games.registry import register_game
from tictacgo.games.svg import tictactoe_svg
from tictacgo.games.symmetry import board_symmetries
from tictacgo.games.tictactoe_lines import (
    EMPTY,
    END_DRAW,
    END_ILLEGAL,
    END_WIN,
    FULL,
    LINES,
    NUM_ACTIONS,
    OCCUPIED,
    O,
    X,
    has_line,
)
from tictacgo.games.tictactoe_lines import HAS_LINE as _HAS_LINE

__all__ = ["X", "O", "EMPTY", "NAME", "NUM_ACTIONS", "FULL", "LINES", "END_WIN", "END_DRAW", "END_ILLEGAL",
           "OCCUPIED", "TTTState", "SPEC", "TicTacToe", "has_line", "num_actions", "pass_action",
           "current_player", "is_terminal", "legal_bits", "legal_actions", "legal_mask", "illegal_reason",
           "play", "forfeit", "winner", "returns", "stone_bits", "ko_bits", "end_reason", "to_board",
           "from_board", "check_state", "render_ascii", "IllegalActionError", "GameOverError"]

NAME = "tictactoe"


class TTTState(NamedTuple):
    """One Tic-Tac-Toe position. Treat as immutable; build with ``initial_state``."""

    x: int
    o: int
    to_move: int            # X or O
    end: str | None = None  # "win", "draw", "illegal"; None while live
    winner: int = 0         # X or O once won (or won by the opponent's illegal move)
    last_action: int = -1

    def _repr_svg_(self) -> str:
        """The position as an SVG picture (Jupyter shows it; ``tictacgo.games.svg``)."""
        return TicTacToe().svg(self)

    @property
    def t(self) -> int:
        """Moves played so far."""
        return (self.x | self.o).bit_count()


SPEC = GameSpec(
    name=NAME, title="Tic-Tac-Toe", player_names=("X", "O"), agent_names=("player_1", "player_2"),
    board_shape=(3, 3), num_actions=NUM_ACTIONS, pass_action=None, komi=None, max_actions=None,
    planes=("own", "opponent", "legal", "to_move"), captures=False, solvable=True, pieces="marks")


def num_actions(state: TTTState | None = None) -> int:
    return NUM_ACTIONS


def pass_action(state: TTTState) -> None:
    """Tic-Tac-Toe has no pass: None."""
    return None


def current_player(state: TTTState) -> int:
    """The player to move: 1 X, 2 O."""
    return state.to_move


def is_terminal(state: TTTState) -> bool:
    return state.end is not None


def legal_bits(state: TTTState) -> int:
    """Legal actions as a 9-bit mask; 0 once the game is over."""
    if state.end is not None:
        return 0
    return FULL & ~(state.x | state.o)


def legal_actions(state: TTTState) -> list[int]:
    """The empty cells in increasing order; [] once the game is over."""
    bits = legal_bits(state)
    return [c for c in range(9) if (bits >> c) & 1]


def legal_mask(state: TTTState) -> np.ndarray:
    """An int8 vector of 9 entries, 1 where the cell is a legal move."""
    return unpack_bits(legal_bits(state), NUM_ACTIONS).view(np.int8)


def illegal_reason(state: TTTState, action: int) -> str | None:
    """"occupied" if the cell is taken, None if the move is legal."""
    a = check_action_type(action, NUM_ACTIONS)
    if state.end is not None:
        raise GameOverError(f"the game is over ({state.end}); no move can be played")
    return OCCUPIED if ((state.x | state.o) >> a) & 1 else None


def play(state: TTTState, action: int) -> TTTState:
    """The state after the mover marks cell ``action``.

    Raises:
        TypeError / ValueError: not an int in 0..8.
        IllegalActionError: the cell is taken (the state is untouched).
        GameOverError: the game is over.
    """
    a = check_action_type(action, NUM_ACTIONS)
    if state.end is not None:
        raise GameOverError(f"the game is over ({state.end}); no move can be played")
    bit = 1 << a
    if (state.x | state.o) & bit:
        raise IllegalActionError(f"cell {a} is already taken", reason=OCCUPIED)
    if state.to_move == X:
        x, o = state.x | bit, state.o
        mine = x
    else:
        x, o = state.x, state.o | bit
        mine = o
    if _HAS_LINE[mine]:
        return TTTState(x, o, 3 - state.to_move, END_WIN, state.to_move, a)
    if (x | o) == FULL:
        return TTTState(x, o, 3 - state.to_move, END_DRAW, 0, a)
    return TTTState(x, o, 3 - state.to_move, None, 0, a)


def forfeit(state: TTTState) -> TTTState:
    """The state where the player to move has lost by an illegal move."""
    if state.end is not None:
        raise GameOverError(f"the game is over ({state.end}); no move can be played")
    return state._replace(end=END_ILLEGAL, winner=3 - state.to_move)


def winner(state: TTTState) -> int | None:
    """1 or 2 for the winner, 0 for a draw, None while the game goes on."""
    if state.end is None:
        return None
    return state.winner


def returns(state: TTTState) -> tuple[float, float]:
    """(X's return, O's return): +1 win, -1 loss, 0 draw or game not over."""
    w = winner(state)
    if not w:
        return 0.0, 0.0
    return (1.0, -1.0) if w == X else (-1.0, 1.0)


def stone_bits(state: TTTState) -> tuple[int, int]:
    """(X's cells, O's cells) as bitboards (bit ``c`` is cell ``c``)."""
    return state.x, state.o


def ko_bits(state: TTTState) -> int:
    """Points refused by a ko rule: none in Tic-Tac-Toe."""
    return 0


def end_reason(state: TTTState) -> str | None:
    """Why the game ended (``win``, ``draw``, ``illegal``), or None while it goes on."""
    return state.end


def to_board(state: TTTState) -> np.ndarray:
    """The board as a 3x3 int8 array: 0 empty, 1 X, 2 O."""
    cells = [X if (state.x >> c) & 1 else O if (state.o >> c) & 1 else EMPTY for c in range(9)]
    return np.array(cells, dtype=np.int8).reshape(3, 3)


def from_board(board, to_move: int | None = None) -> TTTState:
    """A state from a 3x3 array-like of 0/1/2 or an ASCII string like "XO. / .X. / ..O".

    ``to_move`` defaults to whoever's turn the counts imply. A board with a
    line already on it comes back as a finished game.
    """
    if isinstance(board, str):
        table = {"X": X, "O": O, ".": EMPTY, "-": EMPTY}
        cells = [c for c in board if not c.isspace() and c not in "|/"]
        try:
            board = [table[c] for c in cells]
        except KeyError as e:
            raise ValueError(f"unknown board character {e.args[0]!r}; use X, O or .") from None
    arr = np.asarray(board).ravel()
    if arr.size != 9 or not np.isin(arr, (0, 1, 2)).all():
        raise ValueError(f"a Tic-Tac-Toe board is 9 cells of 0/1/2, got {board!r}")
    x = sum(1 << c for c in range(9) if arr[c] == X)
    o = sum(1 << c for c in range(9) if arr[c] == O)
    nx, no = x.bit_count(), o.bit_count()
    if nx - no not in (0, 1):
        raise ValueError(f"X has {nx} marks and O {no}; X moves first, so X has as many or one more")
    implied = X if nx == no else O
    if to_move is None:
        to_move = implied
    if to_move != implied:
        raise ValueError(f"with {nx} X and {no} O on the board it is {implied}'s turn, not {to_move}")
    if has_line(x) and has_line(o):
        raise ValueError("both X and O have three in a row; no game reaches that board")
    if has_line(x) and nx != no + 1 or has_line(o) and nx != no:
        raise ValueError("play went on after a line was made; no game reaches that board")
    if has_line(x) or has_line(o):
        return TTTState(x, o, to_move, END_WIN, X if has_line(x) else O)
    if (x | o) == FULL:
        return TTTState(x, o, to_move, END_DRAW, 0)
    return TTTState(x, o, to_move)


def check_state(state: TTTState) -> None:
    """Raise unless ``state`` is a position that legal play reaches.

    Checked: the field types; marks on the nine cells, non-negative and not
    overlapping; X with as many marks as O or one more, and the player to
    move the one the counts imply; a line only as the game's last move (the
    last action in it), with ``end`` "win" and its ``winner``; a draw only on
    a full board without a line; the loser of an illegal move the player to move.

    Raises:
        TypeError: not a ``TTTState``, or a field of the wrong type.
        ValueError: the first inconsistency found, named.
    """
    if not isinstance(state, TTTState):
        raise TypeError(f"expected a tictactoe.TTTState, got {type(state).__name__}")
    for field in ("x", "o", "to_move", "winner", "last_action"):
        value = getattr(state, field)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"state.{field} must be an int, got {value!r} ({type(value).__name__})")
    x, o, to_move, last, end = (int(state.x), int(state.o), int(state.to_move), int(state.last_action),
                                state.end)
    for name, bits in (("X", x), ("O", o)):
        if bits < 0 or bits & ~FULL:
            raise ValueError(f"the {name} marks {bits} are not bits of the nine cells (0 to {FULL})")
    if x & o:
        raise ValueError(f"X and O marks share cells {[c for c in range(9) if (x & o) >> c & 1]}")
    nx, no = x.bit_count(), o.bit_count()
    if nx - no not in (0, 1):
        raise ValueError(f"X has {nx} marks and O {no}; X moves first, so X has as many or one more")
    if to_move != (X if nx == no else O):
        raise ValueError(f"with {nx} X and {no} O on the board it is {'X' if nx == no else 'O'}'s turn "
                         f"(to_move {X if nx == no else O}), got to_move {to_move}")
    mover_bits = o if to_move == X else x  # the last move was the other player's
    if not -1 <= last < NUM_ACTIONS or last >= 0 and not (mover_bits >> last) & 1:
        raise ValueError(f"state.last_action must be -1 (unknown) or a cell marked by the player who "
                         f"moved last, got {last}")
    if has_line(x) and has_line(o):
        raise ValueError("both X and O have three in a row; no game reaches that board")
    line = X if has_line(x) else O if has_line(o) else 0
    if line and (line == to_move or last >= 0 and has_line(mover_bits & ~(1 << last))):
        raise ValueError("play went on after a line was made; no game reaches that board")
    expected = {END_WIN: (bool(line), line), END_DRAW: (not line and (x | o) == FULL, 0),
                END_ILLEGAL: (not line and (x | o) != FULL, 3 - to_move),
                None: (not line and (x | o) != FULL, 0)}
    if end not in expected:
        raise ValueError(f"state.end must be one of {tuple(expected)}, got {end!r}")
    possible, winner_ = expected[end]
    if not possible or state.winner != winner_:
        board = f"a line of {'XO'[line - 1]}" if line else "full" if (x | o) == FULL else "no line"
        raise ValueError(f"end {end!r} with winner {state.winner} does not fit the board ({board})")


def render_ascii(state: TTTState) -> str:
    """The board with cell numbers on empty cells, and whose turn it is."""
    sym = {X: "X", O: "O"}
    board = to_board(state).ravel()
    rows = [" | ".join(sym.get(int(board[r * 3 + c]), str(r * 3 + c)) for c in range(3))
            for r in range(3)]
    status = (f"over ({state.end}, winner {sym.get(state.winner, 'none')})" if state.end
              else f"{sym[state.to_move]} to move")
    return "\n---------\n".join(rows) + "\n" + status


class TicTacToe(Game):
    """Tic-Tac-Toe, the game object (one variant, so ``TicTacToe() is TicTacToe()``).

    It holds ``spec``; the rules are the pure functions of this module,
    offered as methods (``game.play(state, a)`` is ``play(state, a)``), with
    its batched engine, playouts, drawings and words.
    """

    name = NAME
    spec = SPEC
    END_REASONS = (END_WIN, END_DRAW, END_ILLEGAL)
    END_WORDS: ClassVar[dict[str, str]] = {
        END_WIN: "{winner} has three in a row",
        END_DRAW: "the board is full",
        END_ILLEGAL: "{loser} played an illegal action and forfeits",
    }
    fast_rollout = None  # no fast playout engine: capture rollouts play through play()
    _instance: TicTacToe | None = None

    def __new__(cls):
        if cls.__dict__.get("_instance") is None:  # each class its own: a subclass is another game
            cls._instance = super().__new__(cls)
        return cls._instance

    def __reduce__(self):
        return (type(self), ())

    def __copy__(self) -> TicTacToe:
        return self

    def __deepcopy__(self, memo) -> TicTacToe:
        return self

    def __repr__(self) -> str:
        return "TicTacToe()"

    @property
    def params(self) -> dict[str, Any]:
        """One variant: no parameters."""
        return {}

    num_actions = NUM_ACTIONS
    num_points = NUM_ACTIONS
    pass_action = None

    def initial_state(self) -> TTTState:
        """The empty board, X to move."""
        return TTTState(0, 0, X)

    # -- the rules: the pure functions of this module ---------------------------------------
    def current_player(self, state: TTTState) -> int:
        return state.to_move

    def legal_bits(self, state: TTTState) -> int:
        return legal_bits(state)

    def legal_actions(self, state: TTTState) -> list[int]:
        return legal_actions(state)

    def legal_mask(self, state: TTTState) -> np.ndarray:
        return legal_mask(state)

    def illegal_reason(self, state: TTTState, action: int) -> str | None:
        return illegal_reason(state, action)

    def play(self, state: TTTState, action: int) -> TTTState:
        return play(state, action)

    def forfeit(self, state: TTTState) -> TTTState:
        return forfeit(state)

    def is_terminal(self, state: TTTState) -> bool:
        return state.end is not None

    def winner(self, state: TTTState) -> int | None:
        return winner(state)

    def returns(self, state: TTTState) -> tuple[float, float]:
        return returns(state)

    def to_board(self, state: TTTState) -> np.ndarray:
        return to_board(state)

    def from_board(self, board, to_move: int | None = None) -> TTTState:
        return from_board(board, to_move)

    def stone_bits(self, state: TTTState) -> tuple[int, int]:
        return state.x, state.o

    def ko_bits(self, state: TTTState) -> int:
        return 0

    def end_reason(self, state: TTTState) -> str | None:
        return state.end

    def check_state(self, state: TTTState) -> None:
        check_state(state)

    def render_ascii(self, state: TTTState) -> str:
        return render_ascii(state)

    # -- engines and drawings -------------------------------------------------------------
    def batched(self, batch_size: int, backend: str | None = None) -> BatchedTicTacToe:
        """``BatchedTicTacToe``: B games as numpy bitboards (numba kernels when installed)."""
        return BatchedTicTacToe(batch_size, self, backend=backend)

    #: ``f(state, seed, pass_prob=0.0, backend=None) -> winner``: a seeded uniformly random playout, the
    #: leaf evaluation of plain UCT search, compiled with numba when it is installed
    #: (``tictacgo.games.playouts.ttt_playout``)
    random_playout = staticmethod(ttt_playout)

    def board_image(self, board: np.ndarray, cell: int | None = None, last: int | None = None,
                    coords: bool = False) -> np.ndarray:
        """The 3 x 3 grid of X and O (``tictacgo.games.pictures.tictactoe_image``)."""
        return tictactoe_image(board, cell, last=last, coords=coords)

    def board_svg(self, board: np.ndarray, last: int | None = None, caption: str = "",
                  captured: Any = (), every_point: bool = False) -> str:
        """The grid as SVG, a line of three marked (``tictacgo.games.svg.tictactoe_svg``)."""
        return tictactoe_svg(board, last=last, caption=caption, captured=captured, every_point=every_point)

    # -- features and symmetries (tictacgo.games.features, tictacgo.games.symmetry) ---------------
    #: The network's input planes (AlphaZero): the mover's marks, the opponent's, X to move.
    network_plane_names = ("own", "opponent", "x_to_move")

    def symmetries(self) -> np.ndarray:
        """The board's 8 symmetries as cell maps, ``(8, 9)`` (``tictacgo.games.symmetry``)."""
        return board_symmetries(3, 3, NUM_ACTIONS)

    def network_planes(self, state: TTTState) -> np.ndarray:
        """The network's ``(3, 3, 3)`` float32 planes of one state (``network_plane_names``)."""
        x_moves = state.to_move == 1
        own, opp = (state.x, state.o) if x_moves else (state.o, state.x)
        rows = [unpack_bits(own, 9), unpack_bits(opp, 9), np.full(9, float(x_moves), dtype=np.float32)]
        return np.stack(rows).astype(np.float32).reshape(3, 3, 3)

    def network_planes_batch(self, engine, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``(len(rows), 3, 3, 3)`` float32 planes of a batched engine's games ``rows`` (``legal`` unused)."""
        x_moves = engine.to_move[rows] == 1
        x, o = engine.x[rows], engine.o[rows]
        out = np.empty((len(rows), 3, 9), dtype=np.float32)
        out[:, 0] = unpack(np.where(x_moves, x, o), 9)
        out[:, 1] = unpack(np.where(x_moves, o, x), 9)
        out[:, 2] = x_moves[:, None]
        return out.reshape(len(rows), 3, 3, 3)


register_game(TicTacToe, aliases=("ttt", "tic-tac-toe", "tic_tac_toe"))
