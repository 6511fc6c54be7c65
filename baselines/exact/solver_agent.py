"""The ``solver`` agent: exact play where a proof comes in time, another agent's move elsewhere.

    agent = make_agent("solver:fallback=mcts:time=0.5;c=1.4,max_left=12,time=1", "littlego")

First the book (``tictacgo.proof.book``): where it holds the position,
the agent plays the book's proved-best move (a move the independent checker
verified keeps the position's value) without searching. The package ships
books for the course's game on 3x3, 4x4 (both solved from the empty board:
the agent plays them perfectly from the first move) and 5x5 (positions of
one strong line, 5 or more actions in); ``book=FILE`` reads another,
``book=none`` plays without one. With ``margin=true`` the book is not used
(its entries keep the outcome, not necessarily the largest margin).

Elsewhere, in a position with at most ``max_left`` actions to go, it solves
the game within ``time`` seconds:

* proved won: a move that keeps the win (with ``margin=true``, one that
  keeps the largest margin);
* proved drawn: a move that keeps the draw;
* proved lost: every move loses, so it plays the one that loses by the
  least (the exact margin search, in the time left), which makes the
  opponent's win the hardest to keep; if that search does not finish, the
  fallback's move;
* not proved in time (or more than ``max_left`` actions to go): the move of
  the fallback agent, a registry spec whose own parameters are separated
  by ``;`` (the fallback's own budget comes on top of ``time`` in those moves).

The transposition table is kept across moves and games: its entries are
exact values of positions, true in any game.
"""

from __future__ import annotations

import time as _time

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.registry import make_agent
from tictacgo.games.base import Game
from tictacgo.proof.book import Book, book_for_spec
from tictacgo.solver.search import MAX_SIZE, Solver, SolveResult, actions_left
from tictacgo.validate import check_number


class SolverAgent(Agent):
    """Exact play near the end of a Little-Go game, a fallback agent's move elsewhere.

    Args:
        game: the Little-Go game (boards up to 7x7: the solver's bitboards).
        fallback: the agent that moves where the solver cannot prove the result.
        max_left: solve only positions with at most this many actions to go.
        time_limit: seconds of search per move (None: no limit).
        margin: among winning moves, keep the largest margin (slower than keeping the win).
        table_bits: log2 of the transposition table's entries.
        rng: the agent's generator.
        book: proved-best moves played before any search (None: no book; see ``tictacgo.proof.book``).
    """

    name = "solver"
    games = ("littlego",)

    def __init__(self, game: Game, fallback: Agent, max_left: int = 12, time_limit: float | None = 1.0,
                 margin: bool = False, table_bits: int = 21, rng: np.random.Generator | None = None,
                 book: Book | None = None):
        super().__init__(game, rng)
        if game.size > MAX_SIZE:
            raise ValueError(f"the solver handles boards up to {MAX_SIZE}x{MAX_SIZE}, got "
                             f"{game.size}x{game.size}")
        if isinstance(max_left, bool) or not isinstance(max_left, (int, np.integer)) or max_left < 0:
            raise ValueError(f"max_left must be a non-negative int, got {max_left!r}")
        if not isinstance(margin, bool):
            raise ValueError(f"margin must be true or false, got {margin!r}")
        if not isinstance(fallback, Agent):
            raise TypeError(f"fallback must be an Agent, got {fallback!r}")
        self.fallback = fallback
        self.max_left = int(max_left)
        self.time_limit = check_number("time_limit", time_limit, positive=True, allow_none=True,
                                       expected="a finite positive number of seconds")
        self.margin = margin
        if book is not None and not (isinstance(book, Book) and book.fits(game)):
            what = f"a book of {book.variant()}" if isinstance(book, Book) else repr(book)
            variant = (game.size, game.komi, game.max_actions)
            raise ValueError(f"book must be a Book of this game's variant {variant}, got {what}")
        self.book = book
        self.solver = Solver(table_bits)
        self.last_result: SolveResult | None = None  # the last move's proof, None when not tried
        self.last_exact = False                      # whether the last move came from a proof
        self.last_book = False                       # whether the last move came from the book

    def reset(self) -> None:
        self.fallback.reset()

    def seed(self, rng: np.random.Generator) -> None:
        super().seed(rng)
        self.fallback.seed(rng.spawn(1)[0])

    def act(self, state) -> int:
        if self.game.is_terminal(state):
            raise ValueError("act() called on a finished game")
        self.last_result, self.last_exact, self.last_book = None, False, False
        if self.book is not None and not self.margin:
            hit = self.book.lookup(state)
            if hit is not None:
                self.last_exact = self.last_book = True
                return hit[0]
        if actions_left(state) <= self.max_left:
            start = _time.perf_counter()
            result = self.solver.solve(state, time_limit=self.time_limit, margin=self.margin)
            self.last_result = result
            if result.value is not None and (result.value >= 0 or result.margin is not None):
                self.last_exact = True
                return result.best_move
            if result.value is not None:
                # Lost whatever it plays: lose by as little as possible.
                left = None if self.time_limit is None else self.time_limit - (_time.perf_counter() - start)
                if left is None or left > 0:
                    least = self.solver.solve(state, time_limit=left, margin=True)
                    if least.value is not None:
                        self.last_result, self.last_exact = least, True
                        return least.best_move
        return self.fallback.act(state)

    def __repr__(self) -> str:
        book = "none" if self.book is None else f"{len(self.book):,} positions"
        return (f"SolverAgent(fallback={self.fallback!r}, max_left={self.max_left}, "
                f"time_limit={self.time_limit}, margin={self.margin}, book={book})")


def make_solver_agent(game, rng, fallback: str = "mcts", max_left: int = 12, time: float | None = 1.0,
                      margin: bool = False, book: str | None = "default") -> SolverAgent:
    """The registry's ``solver`` factory; ``fallback`` is an agent spec with ``;`` between its parameters.

    ``book`` is ``default`` (the package's book of the game's variant, if it ships one), ``none``, or
    the path of a book file (``tictacgo solve --book``).
    """
    if not isinstance(fallback, str) or not fallback.strip():
        raise ValueError(f"fallback must be an agent spec such as 'mcts' or 'mcts:sims=400', "
                         f"got {fallback!r}")
    inner = fallback.replace(";", ",")
    try:
        agent = make_agent(inner, game, rng=rng.spawn(1)[0])
    except ValueError as e:
        raise ValueError(f"fallback {inner!r}: {e}") from None
    return SolverAgent(game, agent, max_left=max_left, time_limit=time, margin=margin, rng=rng,
                       book=book_for_spec(book, game))
