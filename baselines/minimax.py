"""Minimax with alpha-beta pruning and a transposition table (negamax form).

``MinimaxAgent(game)`` with no depth searches to the end of the game: exact
for Tic-Tac-Toe (perfect play; the game's value is a draw). With ``depth`` and
an ``evaluate`` function it is a depth-limited search with iterative deepening
(and an optional time budget), for Little-Go.

Values are from the mover's view in [-1, 1]. Each ply away from the position
shrinks a value by ``SHRINK`` so that, among winning moves, the quickest win
scores highest and, among losing ones, the slowest loss: a value then
depends only on the position, so the transposition table stays sound.
Ties between equally good root moves are broken with the agent's generator.

The search itself is ``AlphaBeta``, parameterised by the moves it tries and
their order, the value of a leaf, the shrink per ply and whether it keeps a
table; ``MinimaxAgent`` and the course's alpha-beta opponent
(``tictacgo.baselines.course_ladder``) are two settings of it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.registry import register_agent
from tictacgo.games.base import Game
from tictacgo.validate import check_int, check_number

SHRINK = 0.99
EXACT, LOWER, UPPER = 0, 1, 2


def terminal_value(game: Game, state) -> float:
    """The game result from the view of the player to move in ``state``."""
    return game.returns(state)[game.current_player(state) - 1]


class _OutOfTime(Exception):
    pass


class AlphaBeta:
    """Negamax with alpha-beta pruning, parameterised (one instance per agent: it holds the table).

    Args:
        game: the game object.
        evaluate: ``f(state) -> float`` from the mover's view, the value of a
            live position at the depth limit (None: search to the end only).
        terminal: ``f(state) -> float`` from the mover's view, the value of a
            finished game (default: ``terminal_value``, the result in [-1, 1]).
        moves: ``f(state) -> iterable of actions``, the moves tried, in order
            (default: the game's ``legal_actions``).
        play: ``f(state, action) -> next state`` (default: the game's ``play``).
        shrink: each ply away shrinks a value by this factor (1: none).
        table: keep a transposition table (it needs values that depend on the
            position only, as ``shrink`` makes them).

    ``nodes`` counts the live positions searched; past ``deadline`` (a
    ``time.perf_counter()`` time) the search raises ``_OutOfTime``.
    """

    def __init__(self, game: Game, evaluate: Callable | None = None, *, terminal: Callable | None = None,
                 moves: Callable | None = None, play: Callable | None = None, shrink: float = SHRINK,
                 table: bool = True):
        self.game = game
        self.evaluate = evaluate
        self.terminal = terminal if terminal is not None else functools.partial(terminal_value, game)
        self.moves = moves if moves is not None else game.legal_actions
        self.play = play if play is not None else game.play
        self.shrink = shrink
        self.table: dict | None = {} if table else None
        self.deadline = float("inf")
        self.nodes = 0

    def value(self, state, depth: float, alpha: float, beta: float) -> float:
        """The negamax value of ``state`` for its mover, searched ``depth`` plies within ``(alpha, beta)``:
        exact inside the window, else a bound on the side it falls."""
        if self.game.is_terminal(state):
            return self.terminal(state)
        if depth <= 0:
            return self.evaluate(state)
        self.nodes += 1
        if self.nodes & 1023 == 0 and time.perf_counter() > self.deadline:
            raise _OutOfTime
        table = self.table
        if table is not None:
            entry = table.get(state)
            if entry is not None and entry[0] >= depth:
                _, flag, value = entry
                if flag == EXACT:
                    return value
                if flag == LOWER and value >= beta:
                    return value
                if flag == UPPER and value <= alpha:
                    return value
        alpha0 = alpha
        best = -float("inf")
        shrink, play = self.shrink, self.play
        for a in self.moves(state):
            child = play(state, a)
            # v = -shrink * c, so v > alpha  <=>  c < -alpha / shrink.
            v = -shrink * self.value(child, depth - 1, -beta / shrink, -alpha / shrink)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        if table is not None:
            table[state] = (depth, UPPER if best <= alpha0 else LOWER if best >= beta else EXACT, best)
        return best

    def action_values(self, state, depth: float, ties_only: bool = False) -> dict[int, float]:
        """The value of each move ``moves`` gives at ``state`` (which is live), searched to ``depth``.

        Every value is exact; with ``ties_only`` each move is searched within
        a window just below the best so far instead (faster): the values of
        the moves that tie the best stay exact, the others are upper bounds.
        """
        values: dict[int, float] = {}
        best = -float("inf")
        shrink = self.shrink
        for a in self.moves(state):
            child = self.play(state, a)
            floor = best - 1e-9 if ties_only else -float("inf")
            values[a] = v = -shrink * self.value(child, depth - 1, -float("inf"), -floor / shrink)
            best = max(best, v)
        return values


class MinimaxAgent(Agent):
    """Negamax alpha-beta with a transposition table (an ``AlphaBeta`` search).

    Args:
        game: a rules module from ``tictacgo.games``.
        depth: plies to search; None searches to the end (exact).
        evaluate: ``f(state) -> float`` in (-1, 1) from the mover's view, used
            at the depth limit; required when ``depth`` is given.
        time_limit: seconds per move for iterative deepening (None: no limit).
        rng: tie-breaking generator.
    """

    name = "minimax"

    def __init__(self, game: Game, depth: int | None = None,
                 evaluate: Callable | None = None, time_limit: float | None = None,
                 rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        # Deeper than any game here is no limit at all: such a number is a typo.
        depth = check_int("depth", depth, min=1, max=1000, allow_none=True)
        if depth is not None and evaluate is None:
            raise ValueError("a depth-limited search needs an evaluate function")
        time_limit = check_number("time_limit", time_limit, positive=True, allow_none=True,
                                  expected="a finite positive number of seconds")
        self.depth = depth
        self.evaluate = evaluate
        self.time_limit = time_limit
        # Exact values are kept across moves and games: they never go stale.
        self.search = AlphaBeta(game, evaluate)
        self._table = self.search.table

    @property
    def nodes(self) -> int:
        """Live positions searched so far."""
        return self.search.nodes

    def reset(self) -> None:
        if self.depth is not None:
            self._table.clear()

    def action_values(self, state, depth: float | None = None) -> dict[int, float]:
        """Each legal action's value for the mover, searched to ``depth`` (default: the agent's)."""
        d = (self.depth if depth is None else depth) or float("inf")
        return self.search.action_values(state, d)

    def act(self, state) -> int:
        if self.game.is_terminal(state):
            raise ValueError("act() called on a finished game")
        self.search.deadline = (time.perf_counter() + self.time_limit) if self.time_limit else float("inf")
        if self.depth is None:
            # Exact search, one root action at a time: when the clock runs out,
            # choose among the actions valued so far (any legal one if none).
            values = {}
            try:
                for a in self.game.legal_actions(state):
                    child = self.game.play(state, a)
                    values[a] = -SHRINK * self.search.value(child, float("inf"), -2.0, 2.0)
            except _OutOfTime:
                if not values:
                    acts = self.game.legal_actions(state)
                    return acts[int(self.rng.integers(len(acts)))]
        else:
            values = None
            for d in range(1, self.depth + 1):  # iterative deepening
                try:
                    values = self.action_values(state, d)
                except _OutOfTime:
                    break
            if values is None:  # not even depth 1 finished: any legal action
                acts = self.game.legal_actions(state)
                return acts[int(self.rng.integers(len(acts)))]
        best = max(values.values())
        ties = [a for a, v in values.items() if v >= best - 1e-12]
        return ties[int(self.rng.integers(len(ties)))]


def _make(game, rng, depth: int | None = None, time: float | None = None):
    # The game's spec picks only the default: a game small enough to solve (solvable) is searched to
    # the end; any other is searched 2 plies deep. With depth= any game is searched that deep, on its
    # heuristic_value where the search stops (Little-Go: the score margin; 0 where a game has none).
    if depth is None and not game.spec.solvable:
        depth = 2
    evaluate = game.heuristic_value if depth is not None else None
    return MinimaxAgent(game, depth=depth, evaluate=evaluate, time_limit=time, rng=rng)


register_agent("minimax", _make,
               description="alpha-beta with a transposition table; exact for Tic-Tac-Toe (or any game "
                           "small enough to solve) unless depth= is given, depth-limited on the game's "
                           "heuristic (depth=, default 2; time=) for Little-Go")
