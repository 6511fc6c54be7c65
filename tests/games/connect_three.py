"""Connect-Three: a third game in one file, defined only in the test suite.

Two players drop pieces into the five columns of a board of four rows; a
piece falls to the lowest empty cell of its column (gravity). Three of one
player's pieces in a row, column or diagonal win; a full board without one
is a draw. There is no pass and nothing is captured, and the board is not
square: the proof that a game is one ``Game`` subclass and a
``register_game`` call (docs/architecture.md, "Add a game" walks through this
file).

Actions are the columns 0..4; cells are numbered row-major from the top,
``i * 5 + j`` (row 0 is the top row, as ``to_board`` shows it). The state is
an immutable ``C3State`` with one 20-bit int per player.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

import gymnasium
import numpy as np

from tictacgo.games import Game, GameSpec, register_game, unregister_game
from tictacgo.games.errors import GameOverError, IllegalActionError, check_action_type
from tictacgo.registration import register_envs

ROWS, COLS = 4, 5
CELLS = ROWS * COLS
FULL = (1 << CELLS) - 1
TOP_ROW = (1 << COLS) - 1  # a column is full when its top cell is taken
WIN, DRAW, ILLEGAL = "win", "draw", "illegal"
COLUMN_FULL = "column full"


def _lines() -> tuple[int, ...]:
    """Every three cells in a row, column or diagonal, as bits."""
    out = []
    for i in range(ROWS):
        for j in range(COLS):
            for di, dj in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(i + k * di, j + k * dj) for k in range(3)]
                if all(0 <= r < ROWS and 0 <= c < COLS for r, c in cells):
                    out.append(sum(1 << (r * COLS + c) for r, c in cells))
    return tuple(out)


LINES = _lines()


def has_line(bits: int) -> bool:
    """Whether the cells of ``bits`` hold three in a row."""
    return any(bits & line == line for line in LINES)


class C3State(NamedTuple):
    """One position: each player's pieces as bits, whose turn, how the game ended."""

    first: int
    second: int
    to_move: int = 1
    end: str | None = None  # "win", "draw", "illegal"; None while the game goes on
    winner: int = 0         # 1 or 2 once won
    last_action: int = -1   # the column of the last move
    last_cell: int = -1     # the cell the last piece fell to

    @property
    def t(self) -> int:
        """Moves played so far (the envs report it)."""
        return (self.first | self.second).bit_count()


class ConnectThree(Game):
    """Connect-Three with gravity on 4 rows x 5 columns (see the module docstring)."""

    name = "connect_three"
    spec = GameSpec(name="connect_three", title="Connect-Three", player_names=("Red", "Yellow"),
                    agent_names=("player_1", "player_2"), board_shape=(ROWS, COLS), num_actions=COLS,
                    pass_action=None, komi=None, max_actions=None, planes=("own", "opponent"),
                    captures=False, solvable=False, pieces="marks")
    END_REASONS = (WIN, DRAW, ILLEGAL)
    END_WORDS: ClassVar[dict[str, str]] = {WIN: "{winner} has three in a row", DRAW: "the board is full",
                                           ILLEGAL: "{loser} played an illegal move and forfeits"}

    def __eq__(self, other: object) -> bool:  # one variant: every instance is the same game
        return isinstance(other, ConnectThree)

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return "ConnectThree()"

    def initial_state(self) -> C3State:
        return C3State(0, 0)

    def current_player(self, state: C3State) -> int:
        return state.to_move

    def legal_bits(self, state: C3State) -> int:
        if state.end is not None:
            return 0
        return TOP_ROW & ~(state.first | state.second)

    def illegal_reason(self, state: C3State, action: int) -> str | None:
        a = check_action_type(action, COLS)
        if state.end is not None:
            raise GameOverError(f"the game is over ({state.end}); no move can be played")
        return COLUMN_FULL if (state.first | state.second) >> a & 1 else None

    def play(self, state: C3State, action: int) -> C3State:
        if self.illegal_reason(state, action) is not None:
            raise IllegalActionError(f"column {action} is full", reason=COLUMN_FULL)
        taken = state.first | state.second
        row = max(i for i in range(ROWS) if not taken >> (i * COLS + action) & 1)
        cell = row * COLS + action
        first, second = state.first, state.second
        if state.to_move == 1:
            first |= 1 << cell
        else:
            second |= 1 << cell
        mine = first if state.to_move == 1 else second
        end, winner = (WIN, state.to_move) if has_line(mine) else (DRAW, 0) if (first | second) == FULL \
            else (None, 0)
        return C3State(first, second, 3 - state.to_move, end, winner, int(action), cell)

    def forfeit(self, state: C3State) -> C3State:
        if state.end is not None:
            raise GameOverError(f"the game is over ({state.end}); no move can be played")
        return state._replace(end=ILLEGAL, winner=3 - state.to_move)

    def is_terminal(self, state: C3State) -> bool:
        return state.end is not None

    def winner(self, state: C3State) -> int | None:
        return None if state.end is None else state.winner

    def to_board(self, state: C3State) -> np.ndarray:
        cells = [1 if state.first >> c & 1 else 2 if state.second >> c & 1 else 0 for c in range(CELLS)]
        return np.array(cells, dtype=np.int8).reshape(ROWS, COLS)

    def stone_bits(self, state: C3State) -> tuple[int, int]:
        return state.first, state.second

    def end_reason(self, state: C3State) -> str | None:
        return state.end

    def last_placement(self, state: C3State) -> int | None:
        return None if state.last_cell < 0 else state.last_cell

    def check_state(self, state: C3State) -> None:
        if not isinstance(state, C3State):
            raise TypeError(f"expected a C3State, got {type(state).__name__}")
        first, second = state.first, state.second
        if first < 0 or second < 0 or (first | second) & ~FULL or first & second:
            raise ValueError("the pieces must be disjoint bits of the 20 cells")
        for c in range(CELLS - COLS):  # no piece floats over an empty cell
            if (first | second) >> c & 1 and not (first | second) >> (c + COLS) & 1:
                raise ValueError(f"the piece on cell {c} floats over an empty cell")
        if first.bit_count() - second.bit_count() != (0 if state.to_move == 1 else 1):
            raise ValueError(f"{first.bit_count()} and {second.bit_count()} pieces: not player "
                             f"{state.to_move}'s turn")
        lines = (has_line(first), has_line(second))
        expected = {WIN: lines[state.winner - 1] if state.winner in (1, 2) else False,
                    DRAW: (first | second) == FULL and not any(lines),
                    ILLEGAL: not any(lines) and state.winner == 3 - state.to_move,
                    None: not any(lines) and (first | second) != FULL}
        if state.end not in expected or not expected[state.end]:
            raise ValueError(f"end {state.end!r} with winner {state.winner} does not fit the board")

    def render_ascii(self, state: C3State) -> str:
        board = self.to_board(state)
        rows = [" ".join(".XO"[int(v)] for v in row) for row in board]
        status = (f"over ({state.end}, winner {self.spec.player_name(state.winner)})" if state.end
                  else f"{self.spec.player_name(state.to_move)} to move")
        return "\n".join(rows + [" ".join(str(j) for j in range(COLS)), status])


def register() -> None:
    """Register Connect-Three as ``connect_three`` (alias ``c3``), its Gymnasium ids included."""
    register_game(ConnectThree, aliases=("c3",), replace=True)
    register_envs()


def unregister() -> None:
    """Forget Connect-Three and its Gymnasium ids again."""
    unregister_game("connect_three")
    for env_id in ("ConnectThree-v0", "tictacgo/ConnectThree-v0"):
        gymnasium.registry.pop(env_id, None)
