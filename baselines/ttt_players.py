"""Tic-Tac-Toe players from the actor-critic chapter: the sped-up minimax and the rule-based "think" players.

``fast_minimax``
    The exact minimax (``MinimaxAgent``, alpha-beta with a transposition
    table) with the chapter's two shortcuts: with one free cell left it takes it
    at once, and while the centre (cell 4; the chapter's cell 5) is free it takes
    the centre. Both skip the costliest searches (the empty board and the
    first reply) and keep perfect play.

    Choice documented: the centre rule applies on the agent's first move only
    (at most one mark on the board). In a game it plays from the start that is
    the only time it can find the centre free, so this is the chapter's rule; in
    a position set up mid-game a free centre can miss a win or lose (with an
    opponent threat elsewhere), and there the agent searches instead, so it
    stays exact in every position.

``think1`` / ``think2`` / ``think3``
    Rule-based players that look one, two and three plies ahead, as the
    "think three steps ahead" player the chapter evaluates its actor-critic
    agent against (``X_think3`` / ``O_think3`` in the book's ``utils``):

    - think1: take a winning move if there is one, else a random move.
    - think2: as think1, then block the opponent's immediate win, else random.
    - think3: as think2; then, with three or more free cells, look three
      plies ahead (own move, opponent reply, own move) and play the move with
      the most winning three-ply sequences; else random. With no opponent
      win pending, that count equals ``threats x (free cells - 2)``, where
      ``threats`` is the number of cells that would complete a line after
      the move, so think3 plays a fork (two threats) when it can, otherwise
      a move making one threat, otherwise a random move. With one free cell
      left it takes it; with two left (no win, no block) it picks at random,
      as the book does.

    Choices documented: where the book returns the first qualifying cell in
    scan order (the first winning move, the first cell to block, the first
    most-frequent three-ply move), these players choose uniformly at random
    among all qualifying cells with the agent's generator, so they are not
    biased to the top-left corner and a seeded run is reproducible.

Cells are 0..8 row-major (the actor-critic chapter numbers them 1..9). All agents take an
explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.minimax import MinimaxAgent
from tictacgo.baselines.registry import register_agent
from tictacgo.games import tictactoe as ttt
from tictacgo.games.base import Game
from tictacgo.validate import check_int

CENTRE = 4


def _mine_theirs(state: ttt.TTTState) -> tuple[int, int]:
    """(mover's bits, opponent's bits)."""
    return (state.x, state.o) if state.to_move == ttt.X else (state.o, state.x)


def winning_cells(mine: int, empty: int) -> list[int]:
    """Empty cells that would complete a line of ``mine`` (bitboards).

    Args:
        mine: the player's marks as a 9-bit int.
        empty: the empty cells as a 9-bit int.
    Returns:
        The cells, in increasing order.
    """
    cells = 0
    for line in ttt.LINES:
        need = line & ~mine
        if need & (need - 1) == 0 and need & empty:  # exactly one cell missing, and it is free
            cells |= need
    return [c for c in range(9) if (cells >> c) & 1]


def winning_moves(state: ttt.TTTState) -> list[int]:
    """The mover's moves that win at once."""
    mine, _ = _mine_theirs(state)
    return winning_cells(mine, ttt.legal_bits(state))


def blocking_moves(state: ttt.TTTState) -> list[int]:
    """Cells where the opponent would win at once if it were their turn."""
    _, theirs = _mine_theirs(state)
    return winning_cells(theirs, ttt.legal_bits(state))


def threat_count(state: ttt.TTTState, action: int) -> int:
    """How many immediate winning cells the mover has after playing ``action``."""
    mine, _ = _mine_theirs(state)
    empty = ttt.legal_bits(state) & ~(1 << action)
    return len(winning_cells(mine | (1 << action), empty))


def fork_moves(state: ttt.TTTState) -> list[int]:
    """Moves that create two or more immediate winning threats at once."""
    return [a for a in ttt.legal_actions(state) if threat_count(state, a) >= 2]


def _pick(rng: np.random.Generator, moves: list[int]) -> int:
    return moves[int(rng.integers(len(moves)))]


class ThinkAgent(Agent):
    """A rule-based player that looks ``depth`` plies ahead (1, 2 or 3); see the module docstring.

    Args:
        game: the Tic-Tac-Toe rules module.
        depth: 1 (win), 2 (win, block) or 3 (win, block, fork/threat).
        rng: generator for the random choices.
    """

    games = ("tictactoe",)

    def __init__(self, game: Game, depth: int = 3, rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        self.depth = check_int("depth", depth, min=1, max=3, expected="1, 2 or 3")
        self.name = f"think{depth}"

    def act(self, state: ttt.TTTState) -> int:
        if ttt.is_terminal(state):
            raise ValueError("act() called on a finished game")
        moves = ttt.legal_actions(state)
        if len(moves) == 1:
            return moves[0]
        wins = winning_moves(state)
        if wins:
            return _pick(self.rng, wins)
        if self.depth >= 2:
            blocks = blocking_moves(state)
            if blocks:
                return _pick(self.rng, blocks)
        if self.depth >= 3 and len(moves) > 2:
            # Three plies ahead: the number of (reply, own win) pairs after a
            # move is threats * (free cells - 2); rank by threats.
            counts = {a: threat_count(state, a) for a in moves}
            best = max(counts.values())
            if best > 0:
                return _pick(self.rng, [a for a, n in counts.items() if n == best])
        return _pick(self.rng, moves)


class FastMinimaxAgent(Agent):
    """The actor-critic chapter's sped-up minimax: last free cell at once, centre if free, else exact minimax.

    The centre rule is for the agent's first move (see the module docstring).

    Args:
        game: the Tic-Tac-Toe rules module.
        rng: tie-breaking generator (shared with the inner ``MinimaxAgent``).
    """

    games = ("tictactoe",)

    name = "fast_minimax"

    def __init__(self, game: Game, rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        self.minimax = MinimaxAgent(game, rng=self.rng)

    def seed(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.minimax.seed(rng)

    def act(self, state: ttt.TTTState) -> int:
        if ttt.is_terminal(state):
            raise ValueError("act() called on a finished game")
        moves = ttt.legal_actions(state)
        if len(moves) == 1:
            return moves[0]
        if CENTRE in moves and state.t <= 1:
            return CENTRE
        return self.minimax.act(state)


def _make_think(depth: int):
    def factory(game, rng):
        return ThinkAgent(game, depth=depth, rng=rng)
    return factory


def _make_fast_minimax(game, rng):
    return FastMinimaxAgent(game, rng=rng)


register_agent("fast_minimax", _make_fast_minimax, games=("tictactoe",),
               description="sped-up exact minimax (the actor-critic chapter's): last cell at once, "
               "centre if free")
register_agent("think1", _make_think(1), games=("tictactoe",),
               description="rule-based: win if possible, else random")
register_agent("think2", _make_think(2), games=("tictactoe",),
               description="rule-based: win, else block the opponent's win, else random")
register_agent("think3", _make_think(3), games=("tictactoe",),
               description="rule-based, three plies ahead (the actor-critic chapter's): win, block, "
               "fork/threat, else random")
