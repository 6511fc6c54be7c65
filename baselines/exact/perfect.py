"""The ``perfect`` agent: plays the proof of the game where it has one, and says where each move came from.

    agent = make_agent("perfect", "littlego")        # the course's 5x5 game, 10 s a move is plenty
    action = agent.act(state)
    agent.last_source, agent.note()                   # "book", "solved" or "fallback", in words

The course's 5x5 Little-Go is a proved Black win. The proof is a strategy:
Black's centre, then for every White reply a move that keeps the win, down
to positions with 20 actions to go whose certificates the checker verified
(``tictacgo.proof.proof_leaves``). A Black player that never loses needs
that strategy's move at every Black-to-move position it can meet, within
the course's 10 seconds a move. The agent gets it in three steps:

1. **the book** (``tictacgo.proof.book``): where the package's book of the
   variant holds the position, its move, which keeps the position's proved
   value (a win, or a draw on 4x4), at once. The
   shipped 5x5 book holds the proof's top moves and, for every leaf whose
   certificate has been made and checked, the certificate's moves at the
   positions with at most 10 actions played (``fragment_of``): Black's
   whole strategy down to 14 actions to go;
2. **a live proof**: with at most ``max_left`` actions to go, the exact
   solver within the time left; a move that keeps a proved win (or draw)
   is played (12 actions to go, where the book ends, take hundredths of a
   second to a second);
3. **the fallback** (``az`` by default) everywhere else: as White in a lost
   position, from positions the proof does not cover, or when no proof
   comes in time.

The fallback and the live solver are built the first time a move needs
them, not with the agent: a game the proof covers never builds the
fallback, and a move from the book imports neither the solver nor numba, so
through ``tictacgo my-player`` (a process a move) a book move costs little
more than starting Python and reading the book (about half a second).

``last_source`` and ``note()`` say which step gave the last move and what
it rests on; ``tictacgo my-player`` prints the note on stderr. On 3x3 and
4x4 the shipped books hold the whole solved game, so it plays those
perfectly from the first move with either colour.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.registry import check_agent_spec, make_agent
from tictacgo.games.base import Game
from tictacgo.proof.book import Book, book_for_spec
from tictacgo.proof.position_code import move_name
from tictacgo.validate import check_installed, check_number

#: Seconds of the move's time kept for the fallback when the live proof does not come.
FALLBACK_RESERVE = 1.0
#: The largest board the live solver takes (``tictacgo.solver.search.MAX_SIZE``: its bitboards; a test
#: holds the two equal). Kept here so that a move from the book imports no solver and no numba: through
#: ``tictacgo my-player``, one process a move, that is a third of a book move's time.
MAX_SIZE = 7


class PerfectAgent(Agent):
    """The proof's move from the book, else a move proved live, else the fallback's (see the module).

    Args:
        game: a Little-Go game (boards up to 7x7: the solver's bitboards).
        fallback: the agent that moves where no proof is at hand, or a function without arguments
            that builds it (called the first time a move needs it).
        time_limit: seconds a move for the live proof and the fallback together.
        max_left: try a live proof only with at most this many actions to go (above it the search
            cannot finish in seconds, and the time goes to the fallback).
        book: the proved moves played first (None: none).
        table_bits: log2 of the live solver's table entries.
        rng: the agent's generator.
    """

    name = "perfect"
    games = ("littlego",)

    def __init__(self, game: Game, fallback: Agent, time_limit: float = 8.0, max_left: int = 16,
                 book: Book | None = None, table_bits: int = 22, rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        check_installed("numba", "the perfect agent's live solver", "fast")  # found, not imported
        if game.size > MAX_SIZE:
            raise ValueError(f"the solver handles boards up to {MAX_SIZE}x{MAX_SIZE}, got "
                             f"{game.size}x{game.size}")
        if not isinstance(fallback, Agent) and not callable(fallback):
            raise TypeError(f"fallback must be an Agent or a function that builds one, got {fallback!r}")
        if isinstance(max_left, bool) or not isinstance(max_left, (int, np.integer)) or max_left < 0:
            raise ValueError(f"max_left must be a non-negative int, got {max_left!r}")
        if book is not None and not (isinstance(book, Book) and book.fits(game)):
            what = f"a book of {book.variant()}" if isinstance(book, Book) else repr(book)
            raise ValueError(f"book must be a Book of this game's variant "
                             f"{(game.size, game.komi, game.max_actions)}, got {what}")
        self._fallback = fallback if isinstance(fallback, Agent) else None
        self._build_fallback = None if isinstance(fallback, Agent) else fallback
        self._fallback_rng: np.random.Generator | None = None  # a seed given before the fallback was built
        self.time_limit = check_number("time_limit", time_limit, positive=True,
                                       expected="a finite positive number of seconds")
        self.max_left = int(max_left)
        self.book = book
        self.table_bits = table_bits
        self._solver = None
        self.last_source: str | None = None   # "book", "solved" or "fallback"
        self.last_action: int | None = None
        self.last_why = ""                    # what the move rests on, in words
        self.last_seconds = 0.0

    @property
    def solver(self):
        """The live solver (``tictacgo.solver.Solver``), built the first time a move needs it."""
        if self._solver is None:
            from tictacgo.solver.search import Solver

            self._solver = Solver(self.table_bits)
        return self._solver

    @property
    def fallback(self) -> Agent:
        """The fallback agent, built now if it was not yet."""
        if self._fallback is None:
            agent = self._build_fallback()
            if not isinstance(agent, Agent):
                raise TypeError(f"the fallback's builder gave {agent!r}, not an Agent")
            if self._fallback_rng is not None:
                agent.seed(self._fallback_rng)
            self._fallback = agent
        return self._fallback

    @property
    def fallback_built(self) -> bool:
        """Whether the fallback has been built (a game inside the proof never builds it)."""
        return self._fallback is not None

    def reset(self) -> None:
        if self._fallback is not None:
            self._fallback.reset()

    def seed(self, rng: np.random.Generator) -> None:
        super().seed(rng)
        child = rng.spawn(1)[0]
        if self._fallback is not None:
            self._fallback.seed(child)
        else:
            self._fallback_rng = child

    def act(self, state) -> int:
        if self.game.is_terminal(state):
            raise ValueError("act() called on a finished game")
        start = _time.perf_counter()
        action = self._choose(state, start)
        self.last_action, self.last_seconds = action, _time.perf_counter() - start
        return action

    def _choose(self, state, start: float) -> int:
        hit = self.book.lookup(state) if self.book is not None else None
        if hit is not None:  # a book holds won and drawn positions, with a move that keeps the value
            self.last_source = "book"
            self.last_why = f"keeps a proved {'win' if hit[1] > 0 else 'draw'} (the book's move)"
            return hit[0]
        left = state.game.max_actions - state.t  # tictacgo.solver's actions_left, without importing it
        why = f"{left} actions to go, more than the {self.max_left} a live proof can take"
        if left <= self.max_left:
            solver = self.solver  # built by the first live move: its import and table count in the budget
            budget = self.time_limit - FALLBACK_RESERVE - (_time.perf_counter() - start)
            if budget > 0:
                result = solver.solve(state, time_limit=budget)
                if result.value is not None and result.value >= 0:
                    self.last_source = "solved"
                    self.last_why = (f"keeps a proved {'win' if result.value > 0 else 'draw'} (solved now: "
                                     f"{result.nodes:,} positions)")
                    return result.best_move
                why = ("every move loses against perfect play" if result.value is not None else
                       f"no proof within {budget:.1f} s ({result.nodes:,} positions)")
            else:
                why = "no time for a live proof"
        self.last_source = "fallback"
        self.last_why = f"the fallback's move ({why})"
        return self.fallback.act(state)

    def note(self) -> str:
        """The last move, where it came from and what it rests on, in one line."""
        if self.last_action is None:
            return "no move yet"
        return (f"{move_name(self.last_action, self.game.size)}: {self.last_why}, "
                f"{self.last_seconds:.2f} s")

    def __repr__(self) -> str:
        book = "none" if self.book is None else f"{len(self.book):,} positions"
        fallback = repr(self._fallback) if self._fallback is not None else "not built yet"
        return (f"PerfectAgent(fallback={fallback}, time_limit={self.time_limit}, "
                f"max_left={self.max_left}, book={book})")


def make_perfect_agent(game, rng, fallback: str = "az", time: float = 8.0, max_left: int = 16,
                       book: str | None = "default") -> PerfectAgent:
    """The registry's ``perfect`` factory; ``fallback`` is an agent spec with ``;`` between its parameters,
    ``book`` is ``default`` (the package's book of the variant), ``none`` or a book file's path.

    The fallback's spec is checked here (its form, that the agent exists for this game and takes
    those parameters); the agent itself is built the first time a move needs it, so a value its
    factory refuses is reported then, naming the spec."""
    if not isinstance(fallback, str) or not fallback.strip():
        raise ValueError(f"fallback must be an agent spec such as 'az' or 'mcts:sims=400', got {fallback!r}")
    inner = fallback.replace(";", ",")
    try:
        spec = check_agent_spec(inner, game)
    except ValueError as e:
        raise ValueError(f"fallback {inner!r}: {e}") from None
    build = FallbackBuilder(inner, spec, game, rng.spawn(1)[0])
    return PerfectAgent(game, build, time_limit=time, max_left=max_left, book=book_for_spec(book, game),
                        rng=rng)


@dataclass
class FallbackBuilder:
    """Builds the fallback from its spec when first called (a class, not a closure: agents pickle)."""

    text: str
    spec: object
    game: Game
    rng: np.random.Generator

    def __call__(self) -> Agent:
        try:
            return make_agent(self.spec, self.game, rng=self.rng)
        except ValueError as e:
            raise ValueError(f"fallback {self.text!r}: {e}") from None
