"""Othello on a 4x4 board: a game from outside the package, with a pass, loaded as a plugin.

The tests load this file with ``--game-module tests/games/othello4.py`` (and
through an entry point of a tiny distribution) and play it from the command
line: importing it registers the game as ``othello4``.

Rules: the four centre cells start Black, White, White, Black on the
diagonals (``(1,1)`` and ``(2,2)`` White, ``(1,2)`` and ``(2,1)`` Black); Black
(player 1) moves first. A placement must flip at least one of the opponent's
discs: every straight line of the opponent's discs from the new disc that
ends at one of the mover's is turned over. A player with no such placement
passes (action 16, legal only then); the game ends when neither player can
place, and the one with more discs wins (equal: a draw).
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

import numpy as np

from tictacgo.games import Game, GameSpec, register_game
from tictacgo.games.errors import GameOverError, IllegalActionError, check_action_type

N = 4
CELLS = N * N
PASS = CELLS
DIRECTIONS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
WIN, DRAW, ILLEGAL = "win", "draw", "illegal"


class OthelloState(NamedTuple):
    """One position: each player's discs as bits, whose turn, the actions played, how it ended."""

    first: int
    second: int
    to_move: int = 1
    t: int = 0
    end: str | None = None
    winner: int = 0
    last_action: int = -1


def flips(own: int, opp: int, cell: int) -> int:
    """The opponent's discs that a disc of ``own``'s on ``cell`` turns over (0: not a legal placement)."""
    if (own | opp) >> cell & 1:
        return 0
    i, j = divmod(cell, N)
    out = 0
    for di, dj in DIRECTIONS:
        run, r, c = 0, i + di, j + dj
        while 0 <= r < N and 0 <= c < N and opp >> (r * N + c) & 1:
            run |= 1 << (r * N + c)
            r, c = r + di, c + dj
        if run and 0 <= r < N and 0 <= c < N and own >> (r * N + c) & 1:
            out |= run
    return out


def placements(own: int, opp: int) -> int:
    """The legal placements of ``own``'s player, as bits."""
    return sum(1 << c for c in range(CELLS) if flips(own, opp, c))


class Othello4(Game):
    """Othello on 4x4 (see the module docstring)."""

    name = "othello4"
    spec = GameSpec(name="othello4", title="Othello 4x4", player_names=("Black", "White"),
                    agent_names=("black_0", "white_0"), board_shape=(N, N), num_actions=CELLS + 1,
                    pass_action=PASS, komi=None, max_actions=None, planes=("own", "opponent", "legal"),
                    captures=False, solvable=True, pieces="stones")
    END_REASONS = (WIN, DRAW, ILLEGAL)
    END_WORDS: ClassVar[dict[str, str]] = {WIN: "{winner} has more discs", DRAW: "the discs are even",
                                           ILLEGAL: "{loser} played an illegal move and forfeits"}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Othello4)

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return "Othello4()"

    def initial_state(self) -> OthelloState:
        return OthelloState(first=1 << 6 | 1 << 9, second=1 << 5 | 1 << 10)

    def current_player(self, state: OthelloState) -> int:
        return state.to_move

    def _sides(self, state: OthelloState) -> tuple[int, int]:
        return (state.first, state.second) if state.to_move == 1 else (state.second, state.first)

    def legal_bits(self, state: OthelloState) -> int:
        if state.end is not None:
            return 0
        bits = placements(*self._sides(state))
        return bits if bits else 1 << PASS

    def illegal_reason(self, state: OthelloState, action: int) -> str | None:
        a = check_action_type(action, CELLS + 1)
        if state.end is not None:
            raise GameOverError(f"the game is over ({state.end}); no move can be played")
        if self.legal_bits(state) >> a & 1:
            return None
        if a == PASS:
            return "a placement is possible"
        return "occupied" if (state.first | state.second) >> a & 1 else "flips nothing"

    def play(self, state: OthelloState, action: int) -> OthelloState:
        reason = self.illegal_reason(state, action)
        if reason is not None:
            raise IllegalActionError(f"action {action}: {reason}", reason=reason)
        own, opp = self._sides(state)
        if action != PASS:
            turned = flips(own, opp, action)
            own, opp = own | turned | 1 << action, opp & ~turned
        first, second = (own, opp) if state.to_move == 1 else (opp, own)
        after = OthelloState(first, second, 3 - state.to_move, state.t + 1, None, 0, int(action))
        if not placements(first, second) and not placements(second, first):
            a, b = first.bit_count(), second.bit_count()
            after = after._replace(end=WIN if a != b else DRAW, winner=1 if a > b else 2 if b > a else 0)
        return after

    def forfeit(self, state: OthelloState) -> OthelloState:
        if state.end is not None:
            raise GameOverError(f"the game is over ({state.end}); no move can be played")
        return state._replace(end=ILLEGAL, winner=3 - state.to_move)

    def is_terminal(self, state: OthelloState) -> bool:
        return state.end is not None

    def winner(self, state: OthelloState) -> int | None:
        return None if state.end is None else state.winner

    def to_board(self, state: OthelloState) -> np.ndarray:
        cells = [1 if state.first >> c & 1 else 2 if state.second >> c & 1 else 0 for c in range(CELLS)]
        return np.array(cells, dtype=np.int8).reshape(N, N)

    def stone_bits(self, state: OthelloState) -> tuple[int, int]:
        return state.first, state.second

    def end_reason(self, state: OthelloState) -> str | None:
        return state.end

    def check_state(self, state: OthelloState) -> None:
        if not isinstance(state, OthelloState):
            raise TypeError(f"expected an OthelloState, got {type(state).__name__}")
        full = (1 << CELLS) - 1
        if state.first < 0 or state.second < 0 or (state.first | state.second) & ~full \
                or state.first & state.second:
            raise ValueError("the discs must be disjoint bits of the 16 cells")
        if state.to_move not in (1, 2) or state.t < 0:
            raise ValueError(f"to_move {state.to_move}, t {state.t}")

    def render_ascii(self, state: OthelloState) -> str:
        rows = [" ".join(".XO"[int(v)] for v in row) for row in self.to_board(state)]
        a, b = state.first.bit_count(), state.second.bit_count()
        status = (f"over ({state.end}, winner {self.spec.player_name(state.winner)})" if state.end
                  else f"{self.spec.player_name(state.to_move)} to move; discs {a} to {b}")
        return "\n".join([*rows, status])


register_game(Othello4, replace=True)
