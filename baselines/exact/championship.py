"""The ``championship`` agent: a strong classical Little-Go player, search and no network.

    agent = make_agent("championship:time=1", "littlego")

Each move, within ``time`` seconds:

1. With at most ``max_left`` actions to go, the exact solver
   (``tictacgo.solver``) gets up to ``solve_share`` of the time; a proved
   win or draw is played at once (its table is kept across moves, so a
   proof that failed one move often comes the next).
2. Elsewhere, or without such a proof, iterative-deepening alpha-beta
   (``tictacgo.baselines.exact.championship_search``: principal-variation search,
   quiescence on captures and escapes, a transposition table, killer and
   history move ordering, the previous iteration's moves first) on a stone,
   liberty and eye evaluation, until the time is spent or the search has
   reached the end of the game.

On the empty board it plays the centre point (``opening="centre"``): on 4x4
the solver proves the centre points the only first moves that keep the
game's value, AlphaZero's network opens there on 5x5, and the evaluation
alone prefers (1,1), which deeper searches then lose with against the
course's aggressive opponent (docs/strength.md).

With ``nodes`` set the clock plays no part: each move gets that many
positions of alpha-beta (and of the solver), so its moves are the same on
any machine. The evaluation's weights are ``championship_search.DEFAULT_WEIGHTS``.
"""

from __future__ import annotations

import time as _time

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.exact import championship_search as S
from tictacgo.games import littlego
from tictacgo.games.base import Game
from tictacgo.solver.search import MAX_SIZE, Solver, actions_left, board_tables, kernel_position
from tictacgo.validate import check_int, check_number

OPENINGS = ("centre", "none")
_FIRST_RATE = 200_000.0  # positions a second assumed before the first measurement
_NEXT_DEPTH_SHARE = 0.5  # start another iteration only while under this share of the time
_RATE_MARGIN = 3.0       # the node budget lets a faster stretch run on; the clock stops it
_DEADLINE_SHARE = 0.97  # what is left of the time covers the way in and out of the search
_LEAST_FIRST_NODES = 2000  # the first iteration's positions however late it starts (a ply is a few hundred)


class SearchTables:
    """The alpha-beta's arrays for one variant: Zobrist keys, the transposition table, move buffers."""

    def __init__(self, game, table_bits: int):
        n, N = game.size, game.size * game.size
        tb = board_tables(n, game.max_actions)
        self.geo, self.nb = tb.geo, tb.nb
        rng = np.random.default_rng(0xC4A3)  # fixed keys: the same search in every process

        def keys(*shape):
            return rng.integers(0, 2**64 - 1, size=shape, dtype=np.uint64, endpoint=True)

        self.zs, self.zk, self.zpass = keys(2, N), keys(N + 1), keys(1)[0]
        self.zt = keys(game.max_actions + 2)
        size = 1 << table_bits
        self.tt = (np.zeros(size, np.uint64), np.zeros(size, np.int64), np.zeros(size, np.int8),
                   np.zeros(size, np.int8), np.zeros(size, np.int64))
        self.killers = np.full((S.MAX_PLY, 2), -1, np.int64)
        self.hist = np.zeros((2, N + 1), np.int64)
        mv = np.zeros((S.MAX_PLY, N + 1), np.int64)
        self.moves = (mv, np.zeros_like(mv), np.zeros_like(mv), np.zeros_like(mv), np.zeros_like(mv))
        self.stats = np.zeros(S.STATS_SIZE, np.int64)

    def clear(self) -> None:
        """Forget every stored position and move-ordering score."""
        for array in self.tt:
            array[:] = 0
        self.killers[:] = -1
        self.hist[:] = 0

    def new_move(self) -> None:
        """Killers and history from the last move mislead more than they help two plies later."""
        self.killers[:] = -1
        self.hist //= 8


class ChampionshipAgent(Agent):
    """Alpha-beta on an evaluation, the exact solver near the end (see the module docstring).

    Args:
        game: a Little-Go game object (boards up to 7x7).
        time_limit: seconds a move (ignored when ``nodes`` is set).
        nodes: a fixed budget of positions a move instead of the clock (None: the clock).
        max_depth: the deepest iteration (None: to the end of the game).
        max_left: hand positions with at most this many actions to go to the solver first.
        solve_share: the share of the move's budget the solver may use.
        weights: the evaluation's weights, ``championship_search.DEFAULT_WEIGHTS``' layout.
        table_bits: log2 of the entries of the alpha-beta's table (the solver's too).
        qdepth: the quiescence search's depth.
        opening: ``"centre"``: the centre point on the empty board; ``"none"``: search there too.
        rng: the agent's generator (the search draws nothing: equal positions get equal moves).
    """

    name = "championship"
    games = ("littlego",)

    def __init__(self, game: Game, time_limit: float = 1.0, nodes: int | None = None,
                 max_depth: int | None = None, max_left: int = 14, solve_share: float = 0.5,
                 weights=S.DEFAULT_WEIGHTS, table_bits: int = 20, qdepth: int = 6, opening: str = "centre",
                 rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        if opening is None:  # the agent spec reads ``opening=none`` as None
            opening = "none"
        if opening not in OPENINGS:
            raise ValueError(f"opening must be one of {', '.join(map(repr, OPENINGS))}, got {opening!r}")
        self.opening = opening
        if game.size > MAX_SIZE:
            raise ValueError(f"the championship player handles boards up to {MAX_SIZE}x{MAX_SIZE}, "
                             f"got {game.size}x{game.size}")
        self.time_limit = check_number("time", time_limit, positive=True, max=10.0,
                                       expected="a number of seconds in (0, 10] (the course's limit)")
        self.nodes = check_int("nodes", nodes, min=1, allow_none=True)
        self.max_depth = check_int("max_depth", max_depth, min=1, allow_none=True)
        self.max_left = check_int("max_left", max_left, min=0)
        self.solve_share = check_number("solve_share", solve_share, min=0.0, max=1.0)
        self.qdepth = check_int("qdepth", qdepth, min=0, max=S.MAX_PLY // 4)
        table_bits = check_int("table_bits", table_bits, min=8, max=26)
        self.weights = np.array(weights, dtype=np.int64)
        if self.weights.shape != (len(S.DEFAULT_WEIGHTS),):
            raise ValueError(f"weights must be {len(S.DEFAULT_WEIGHTS)} numbers "
                             f"(see championship_search.DEFAULT_WEIGHTS), got {weights!r}")
        self.komi100 = int(round(game.komi * S.SCALE))
        self.tables = SearchTables(game, table_bits)
        # Without the static bounds: under a node budget they would prove more positions and change
        # the player's moves (its seeded games are recorded fingerprints); a stronger variant is a choice.
        self.solver = Solver(table_bits, bounds=False)
        self.rate = _FIRST_RATE
        self.last_depth = 0        # the last move's deepest finished iteration (0: solver or forced)
        self.last_value = 0        # its value for the mover (``WIN`` and more: a proved win)
        self.last_exact = False    # whether the last move came from the exact solver
        self.last_action = None    # the last move, where it came from, its time (``note``)
        self.last_why, self.last_seconds, self.last_warm_s = "", 0.0, 0.0
        self._warm = False         # whether the search's kernels are compiled (or loaded) in this process
        self._warm_solved = False  # the solver's

    def warm_up(self) -> None:
        """Compile the kernels a game may need, or load them from numba's disk cache, once a process.

        ``act`` does it lazily, each part before the first move that needs it (the search; the
        solver, from ``max_left`` actions to go), and its time counts in that move's. A process
        after the first loads the kernels from numba's cache (a few tenths of a second); the
        first one on a machine compiles them: about 6.5 s of CPU for the search and as much for
        the solver on the project's 2-core machine, which ``tictacgo my-player --agent
        championship --warm-up`` does once ahead (docs/course.md).
        """
        self._warm_search()
        if self.max_left > 0 and self.solve_share > 0:
            self._warm_solver()

    def _warm_search(self) -> None:
        if self._warm:
            return
        self._warm = True
        rate = self.rate
        self._search_state(self.game.initial_state(), 2, None)
        self.tables.clear()  # the warm-up's search leaves nothing behind: a game plays as without it
        self.rate = rate
        self.last_depth, self.last_value = 0, 0

    def _warm_solver(self) -> None:
        if self._warm_solved:
            return
        self._warm_solved = True
        Solver(8).solve(littlego.play(self.game.initial_state(), 0), budget_nodes=100)

    def reset(self) -> None:
        """A new game: a reused player plays as a fresh one would (the tables are a cache, not knowledge)."""
        self.tables.clear()
        self.solver.clear()
        self.rate = _FIRST_RATE

    def act(self, state) -> int:
        if not isinstance(state, littlego.GoState):
            raise TypeError(f"the championship player takes Little-Go states (GoState), got {state!r}")
        if self.game.is_terminal(state):
            raise ValueError("act() called on a finished game")
        start = _time.monotonic()
        self.last_depth, self.last_exact, self.last_warm_s = 0, False, 0.0
        action = self._choose(state, start)
        self.last_action, self.last_seconds = action, _time.monotonic() - start
        return action

    def _choose(self, state, start: float) -> int:
        legal = littlego.legal_actions(state)
        if len(legal) == 1:
            self.last_why = "the only legal action"
            return legal[0]
        if self.opening == "centre" and state.t == 0:
            self.last_why = "the centre opening"
            c = (self.game.size - 1) // 2
            return c * self.game.size + c
        # the move's time runs from its start: a first move's compile or cache load is part of it
        solve = actions_left(state) <= self.max_left and self.solve_share > 0
        if not self._warm or (solve and not self._warm_solved):
            began = _time.monotonic()
            self._warm_search()
            if solve:
                self._warm_solver()
            self.last_warm_s = _time.monotonic() - began
        left = max(self.time_limit - (_time.monotonic() - start), 0.05)
        if solve:
            if self.nodes is None:
                result = self.solver.solve(state, time_limit=left * self.solve_share)
            else:
                result = self.solver.solve(state, budget_nodes=max(1, int(self.nodes * self.solve_share)))
            if result.value is not None and result.value >= 0:
                self.last_exact, self.last_value = True, S.WIN
                self.last_why = "the exact solver's proved " + ("win" if result.value > 0 else "draw")
                return result.best_move
        deadline = None if self.nodes is not None else start + self.time_limit * _DEADLINE_SHARE
        action = self._search_state(state, self.max_depth, deadline)
        value = ("a proved win" if self.last_value >= S.WIN // 2 else "a proved loss"
                 if self.last_value <= -S.WIN // 2 else f"value {self.last_value / S.SCALE:+.2f} stones")
        self.last_why = f"alpha-beta to depth {self.last_depth}, {value}"
        return action

    def note(self) -> str:
        """The last move, where it came from and its time (``tictacgo my-player`` prints it), in one line."""
        if self.last_action is None:
            return "no move yet"
        n = self.game.size
        move = "PASS" if self.last_action == n * n else f"{self.last_action // n},{self.last_action % n}"
        budget = f"{self.nodes} positions" if self.nodes is not None else f"{self.time_limit:g} s"
        warm = f", {self.last_warm_s:.2f} s of it loading the kernels" if self.last_warm_s else ""
        return f"{move}: {self.last_why}, {self.last_seconds:.2f} s of its {budget}{warm}"

    def _search_state(self, state, max_depth: int | None, deadline: float | None) -> int:
        """Iterative deepening from ``state`` until ``deadline`` (or the node budget); the best action."""
        pos = kernel_position(state)
        tb = self.tables
        tb.new_move()
        actions = np.array(littlego.legal_actions(state), dtype=np.int64)
        values = np.zeros(len(actions), np.int64)
        left = actions_left(state)
        top = left if max_depth is None else min(max_depth, left)
        best, spent = int(actions[0]), 0
        ctx = S.make_context(tb.geo, tb.nb, self.weights, tb.zs, tb.zk, tb.zt, tb.zpass, tb.tt, tb.killers,
                             tb.hist, tb.moves, tb.stats, self.komi100, self.qdepth)
        start = _time.monotonic()
        for depth in range(1, top + 1):
            if deadline is None:
                budget = (self.nodes if self.nodes is not None else np.iinfo(np.int64).max // 2) - spent
                clock_stop = S.NO_CLOCK
            else:
                now = _time.monotonic()
                budget = int((deadline - now) * self.rate * _RATE_MARGIN)
                clock_stop = S.clock_us() + int((deadline - now) * 1e6)
                if depth == 1 and budget < _LEAST_FIRST_NODES:
                    # out of time already (a compile took it): one ply still beats the first legal action
                    budget, clock_stop = _LEAST_FIRST_NODES, S.NO_CLOCK
            if budget <= 0:
                break
            tb.stats[:] = (0, budget, 0, clock_stop)
            i, value, done = S.search_root(pos.own, pos.opp, pos.black, pos.t, pos.last_pass, pos.ko, actions,
                                           depth, ctx, values)
            spent += int(tb.stats[S.S_NODES])
            elapsed = _time.monotonic() - start
            if elapsed > 0.02:
                self.rate = max(spent / elapsed, 1000.0)
            if tb.stats[S.S_ABORT]:
                if done > 0 and i >= 0:
                    best = int(actions[i])  # it beat the last iteration's best move, searched first
                break
            best, self.last_depth, self.last_value = int(actions[i]), depth, int(value)
            # The next iteration tries the moves best first; a stable sort keeps ties in order.
            order = np.argsort(-values, kind="stable")
            order = np.concatenate(([i], order[order != i]))
            actions, values = actions[order], values[order]
            if abs(value) >= S.WIN // 2:
                break  # proved: every line it rests on reaches the end of the game
            if deadline is not None and elapsed > _NEXT_DEPTH_SHARE * (deadline - start):
                break
        return best

    def __repr__(self) -> str:
        budget = f"nodes={self.nodes}" if self.nodes is not None else f"time_limit={self.time_limit}"
        return f"ChampionshipAgent({budget}, max_left={self.max_left}, solve_share={self.solve_share})"


def make_championship_agent(game, rng, time: float = 1.0, nodes: int | None = None, depth: int | None = None,
                            max_left: int = 14, solve_share: float = 0.5,
                            opening: str = "centre") -> ChampionshipAgent:
    """The registry's ``championship`` factory (see ``ChampionshipAgent``)."""
    return ChampionshipAgent(game, time_limit=time, nodes=nodes, max_depth=depth, max_left=max_left,
                             solve_share=solve_share, opening=opening, rng=rng)
