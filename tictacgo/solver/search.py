"""Exact Little-Go solving from Python: ``solve``, ``move_values`` and the reusable ``Solver``.

    from tictacgo.solver import solve
    result = solve(state, time_limit=1.0)
    result.value        # +1 the mover wins, -1 loses, 0 draw, None unknown (budget ran out)
    result.best_move    # a move that keeps that value (None when unknown)

The search runs to the end of the game (see ``tictacgo.solver.kernels``);
a node or time budget bounds it, and when it runs out the answer is
"unknown" (``value`` None), never a guess. With ``margin=True`` the search
finds the exact final margin instead: the mover's stones minus the
opponent's, komi counted (for Black: stone difference minus komi), and the
best move is one that reaches it.

A ``Solver`` keeps its transposition tables between calls (a game's
successive positions share most of their subtrees); ``solve`` and
``move_values`` build a fresh one each call.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cache

import numpy as np

from tictacgo.games import littlego
from tictacgo.solver import kernels as K
from tictacgo.validate import check_bool

MAX_SIZE = 7  # boards up to 7x7 fit one int64 bitboard
_UNLIMITED = np.iinfo(np.int64).max
_SLICE = 20_000  # nodes between two looks at the clock
#: Nodes between two returns to Python when no clock runs (about a second or less): Ctrl-C and SIGTERM
#: are seen there, and a progress report can be made; the search is the same in slices as in one go.
_LONG_SLICE = 1_000_000


@dataclass(frozen=True)
class SolveResult:
    """What one search proved, from the view of the player to move.

    Attributes:
        value: +1 win, -1 loss, 0 draw (integer komi only); None when the budget ran out.
        margin: the exact final margin (mover's stones minus the opponent's,
            komi counted: Black's is stone difference minus komi) when asked
            for and proved; else None.
        best_move: an action that keeps ``value`` (and ``margin`` when asked);
            None when unknown.
        nodes: positions searched.
        seconds: wall time of the search.
        tt_probes: transposition-table look-ups.
        tt_hits: look-ups that found the position.
    """

    value: int | None
    margin: float | None
    best_move: int | None
    nodes: int
    seconds: float
    tt_probes: int
    tt_hits: int

    @property
    def known(self) -> bool:
        return self.value is not None

    @property
    def hit_rate(self) -> float:
        """Share of table look-ups that found the position (0 with no look-up)."""
        return self.tt_hits / self.tt_probes if self.tt_probes else 0.0

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class KernelPosition:
    """A rules-core state as the kernels take it (the mover's view; see ``tictacgo.solver.kernels``)."""

    n: int
    komi: float
    max_actions: int
    own: int
    opp: int
    black: int
    t: int
    last_pass: bool
    ko: int


def variant(state: littlego.GoState) -> tuple[int, float, int]:
    """(board size, komi, action limit) of a state's game."""
    game = state.game
    return game.size, game.komi, game.max_actions


def actions_left(state: littlego.GoState) -> int:
    """Actions still to be played before the action limit ends the game."""
    return variant(state)[2] - state.t


def kernel_position(state: littlego.GoState) -> KernelPosition:
    """The kernels' inputs for a live rules-core state.

    The ko memory becomes one point: the one the rules' placement primitive
    refuses for ko (only a single-stone recapture on the point just captured
    can be refused).

    Raises:
        TypeError: not a Little-Go state, or a field of the wrong type.
        ValueError: fields no position has (``to_move`` not 1 or 2, stones off the board or on
            both colours, ``t`` outside the action limit), a finished game, or a board larger
            than 7x7.
    """
    _check_kernel_fields(state)
    if state.end is not None:
        raise ValueError(f"the game is over ({state.end}); there is nothing to solve")
    n, komi, max_actions = variant(state)
    if n > MAX_SIZE:
        raise ValueError(f"the solver handles boards up to {MAX_SIZE}x{MAX_SIZE}, got {n}x{n}")
    black = state.to_move == littlego.BLACK
    own, opp = (state.black, state.white) if black else (state.white, state.black)
    ko = littlego.ko_bits(state).bit_length() - 1  # the one point the ko rule forbids, or -1
    return KernelPosition(n, float(komi), max_actions, own, opp, int(black), state.t, bool(state.last_pass),
                          ko)


def _check_kernel_fields(state: littlego.GoState) -> None:
    """Refuse the fields the kernels cannot take (``kernel_position`` and ``position_key``; a
    value is asked for with ``check_position``, which checks the whole state)."""
    if not isinstance(state, littlego.GoState):
        raise TypeError(f"the solver takes a Little-Go state (GoState), got {type(state).__name__}")
    game = state.game
    for field in ("black", "white", "to_move", "t"):
        value = getattr(state, field)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"state.{field} must be an int, got {value!r} ({type(value).__name__})")
    reason = None
    if state.to_move not in (littlego.BLACK, littlego.WHITE):
        reason = f"state.to_move must be 1 (Black) or 2 (White), got {state.to_move}"
    elif not 0 <= state.t <= game.max_actions:
        reason = f"state.t must be in [0, {game.max_actions}] (actions played), got {state.t}"
    for colour, bits in (("Black", int(state.black)), ("White", int(state.white))):
        if bits < 0 or bits & ~game.full:
            reason = f"the {colour} stones {bits} are not bits of the {game.size}x{game.size} board"
    if reason is None and state.black & state.white:
        reason = (f"the board has Black and White stones on the same points "
                  f"{game.bits_to_list(int(state.black & state.white))}")
    if reason is not None:
        raise ValueError(f"the solver takes a position that legal play reaches: {reason}")


def check_position(state: littlego.GoState) -> None:
    """Refuse a state that legal play does not reach (``littlego.check_state``), before a value
    of it is searched: the value of an impossible position would mean nothing.

    Raises:
        TypeError: not a Little-Go state, or a field of the wrong type.
        ValueError: the first inconsistency, named.
    """
    _check_kernel_fields(state)
    try:
        littlego.check_state(state)
    except ValueError as e:
        raise ValueError(f"the solver takes a position that legal play reaches: {e}") from None


def symmetries(n: int) -> np.ndarray:
    """The 8 symmetries of the ``n x n`` square as point maps: ``(8, n*n + 1)``, PASS fixed.

    Row ``s`` maps point ``p`` to its image under symmetry ``s`` (row 0 is the identity): the
    game's own (``LittleGo.symmetries``), whose order the table's keys depend on.
    """
    return littlego.LittleGo(n).symmetries()


@dataclass(frozen=True, eq=False)
class BoardTables:
    """The kernels' constant arrays for one board size and action limit.

    ``geo`` (board constants, ``kernels.G_*``), ``nb`` (each point's
    neighbours as bits), ``sym``/``inv`` (the symmetries and their inverses,
    see ``symmetries``) and the Zobrist keys: ``zs[s, colour, p]`` (a stone,
    hashed as its image under symmetry ``s``), ``zk[s, p]`` (the ko point),
    ``zt[t]`` (actions taken), ``zmisc`` (a pending pass, Black to move).
    """

    geo: np.ndarray
    nb: np.ndarray
    sym: np.ndarray
    inv: np.ndarray
    zs: np.ndarray
    zk: np.ndarray
    zt: np.ndarray
    zmisc: np.ndarray


@cache
def board_tables(n: int, max_actions: int) -> BoardTables:
    """The (cached) kernel tables of an ``n x n`` board with an action limit."""
    N = n * n
    full = (1 << N) - 1
    first_col = sum(1 << (i * n) for i in range(n))
    left, right = full & ~first_col, full & ~(first_col << (n - 1))
    geo = np.array([n, N, full, left, right, max_actions], dtype=np.int64)
    nb = np.empty(N, dtype=np.int64)
    for p in range(N):
        i, j = divmod(p, n)
        nb[p] = sum(1 << (a * n + b) for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1))
                    if 0 <= a < n and 0 <= b < n)
    sym = symmetries(n)
    inv = np.empty_like(sym)
    for s in range(8):
        inv[s, sym[s]] = np.arange(N + 1)
    # Fixed random keys: the same tables in every process, so searches are reproducible.
    rng = np.random.default_rng(0x5EED5017)
    def keys(*shape):
        return rng.integers(0, 2**64 - 1, size=shape, dtype=np.uint64, endpoint=True)

    z_stone, z_ko, zt, zmisc = keys(2, N), keys(N), keys(max_actions + 1), keys(2)
    # zs[s, c, p]: colour c's stone on p, hashed as the image of the position under symmetry s.
    zs = np.stack([z_stone[:, sym[s, :N]] for s in range(8)])
    zk = np.stack([z_ko[sym[s, :N]] for s in range(8)])
    return BoardTables(geo, nb, sym, inv, np.ascontiguousarray(zs), np.ascontiguousarray(zk), zt, zmisc)


def position_key(state: littlego.GoState) -> int:
    """The solver's table key of a live state: equal for the 8 symmetric images of a position.

    It hashes everything the rest of the game depends on: the stones, the ko
    point, the actions taken, a pending pass and the mover.
    """
    pos = kernel_position(state)
    tb = board_tables(pos.n, pos.max_actions)
    hs = np.zeros(8, dtype=np.uint64)
    black_stones, white_stones = (pos.own, pos.opp) if pos.black else (pos.opp, pos.own)
    K.stone_hashes(np.int64(black_stones), np.int64(white_stones), tb.zs, hs)
    key, _ = K.table_key(hs, np.int64(pos.ko), np.int64(pos.t), int(pos.last_pass), pos.black, tb.zk, tb.zt,
                         tb.zmisc)
    return int(key)


class _Table:
    """One transposition table: 2-slot buckets of key, lower and upper bound, move, depth."""

    def __init__(self, bits: int):
        size = 1 << bits
        self.key = np.zeros(size, dtype=np.uint64)
        self.lo = np.zeros(size, dtype=np.int8)
        self.hi = np.zeros(size, dtype=np.int8)
        self.move = np.zeros(size, dtype=np.int8)
        self.depth = np.zeros(size, dtype=np.int8)
        self.variant: tuple | None = None  # the (n, komi, max_actions) its entries belong to


class Solver:
    """An exact Little-Go solver that keeps its transposition tables between calls.

    Args:
        table_bits: log2 of the entries of each table (one for outcomes, one
            for margins; 13 bytes an entry: 2**22 entries is 52 MB).
        bounds: cut positions whose static bounds (``tictacgo.solver.bounds``:
            the stones each side can still place and lose within the action
            limit) settle them, without searching them.
        life: count pass-alive chains (Benson's unconditional life) in those bounds.

    ``progress``, when set to a function ``f(positions, seconds)``, is called about once a second of a
    search without a time limit, between the slices of the search (where Ctrl-C is also seen).
    """

    progress = None  # f(positions searched, seconds) between slices of a long search; None: quiet

    def __init__(self, table_bits: int = 22, bounds: bool = True, life: bool = True):
        if isinstance(table_bits, bool) or not isinstance(table_bits, int) or not 4 <= table_bits <= 30:
            raise ValueError(f"table_bits must be an int in [4, 30], got {table_bits!r}")
        self.table_bits = table_bits
        self.bounds = check_bool("bounds", bounds)
        self.life = check_bool("life", life)
        self._tables: dict[int, _Table] = {}

    @property
    def opts(self) -> int:
        """The search's ``kernels.OPT_*`` bits."""
        return (K.OPT_BOUNDS if self.bounds else 0) | (K.OPT_LIFE if self.bounds and self.life else 0)

    def clear(self) -> None:
        """Forget every stored position."""
        self._tables.clear()

    # A copy (pickle, deepcopy) starts with empty tables: they are a cache, and large.
    def __getstate__(self) -> dict:
        return {"table_bits": self.table_bits, "bounds": self.bounds, "life": self.life}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["table_bits"], state.get("bounds", True), state.get("life", True))

    def table(self, margin: bool, variant: tuple) -> _Table:
        """The outcome (or margin) table for ``variant`` ``(n, komi, max_actions)``, made if needed."""
        return self._table(K.MODE_MARGIN if margin else K.MODE_OUTCOME, variant)

    def _table(self, mode: int, variant: tuple) -> _Table:
        table = self._tables.get(mode)
        if table is None or table.variant != variant:
            # Entries of another board size, komi or limit mean other things: start afresh.
            table = self._tables[mode] = _Table(self.table_bits)
            table.variant = variant
        return table

    def solve(self, state: littlego.GoState, budget_nodes: int | None = None, time_limit: float | None = None,
              margin: bool = False, check: bool = True) -> SolveResult:
        """Solve ``state`` to the end of the game (see the module docstring).

        Args:
            state: a live Little-Go state, board up to 7x7.
            budget_nodes: stop after this many positions (None: no limit).
            time_limit: stop after this many seconds (None: no limit).
            margin: find the exact final margin, not only who wins.
            check: check first that legal play reaches ``state`` (``check_position``); False is for
                states the rules' own moves made from a checked one (a certificate's extraction
                asks millions of them), where the check would only repeat itself.
        Returns:
            A ``SolveResult``; ``value`` None when a budget ran out first.
        Raises:
            ValueError: an impossible state (see ``kernel_position``), a finished game, a board
                over 7x7, a bad budget.
        """
        if check_bool("check", check):
            check_position(state)
        pos = kernel_position(state)
        budget, deadline = _budget(budget_nodes, time_limit)
        return self._run(pos, budget, deadline, check_bool("margin", margin), time.perf_counter())

    def hint(self, state: littlego.GoState, action: int, margin: bool = False, replace: bool = False) -> None:
        """Have the search try ``action`` first at ``state`` (a move-ordering hint, say a policy's).

        The hint is a table entry with no bounds and that move, as a finished search would leave
        its best move: it changes the order of the search, never a value. A position already in
        the table keeps its entry (with ``replace``, its bounds but this move); a deeper one may
        later take the hint's slot.
        """
        check_position(state)
        pos = kernel_position(state)
        if not 0 <= action <= pos.n * pos.n:
            raise ValueError(f"action must be in [0, {pos.n * pos.n}], got {action!r}")
        tb = board_tables(pos.n, pos.max_actions)
        table = self.table(margin, (pos.n, pos.komi, pos.max_actions))
        hs = np.zeros(8, dtype=np.uint64)
        black_stones, white_stones = (pos.own, pos.opp) if pos.black else (pos.opp, pos.own)
        K.stone_hashes(np.int64(black_stones), np.int64(white_stones), tb.zs, hs)
        key, ks = K.table_key(hs, np.int64(pos.ko), np.int64(pos.t), int(pos.last_pass), pos.black, tb.zk,
                              tb.zt, tb.zmisc)
        key = np.uint64(key)  # numba hands it back as a Python int
        slot = int(K.bucket(key, len(table.key)))  # the bucket the search probes
        move = np.int64(tb.sym[ks, action])
        for j in (slot, slot + 1):
            if table.key[j] == key:
                if replace:
                    table.move[j] = move
                return
        K.store_entry(table.key, table.lo, table.hi, table.move, table.depth, key, np.int64(-K.INF),
                 np.int64(K.INF), move, np.int64(0))

    def move_values(self, state: littlego.GoState, budget_nodes: int | None = None,
                    time_limit: float | None = None, margin: bool = False) -> dict[int, SolveResult]:
        """The exact value of every legal action of ``state``, from the mover's view.

        Each entry is the value of the position after the action, turned to
        the mover's view (``best_move`` there is the opponent's best reply,
        None when the action ends the game). The budgets hold for all actions
        together; actions not reached in time get an unknown result.
        """
        check_position(state)
        pos = kernel_position(state)
        budget, deadline = _budget(budget_nodes, time_limit)
        margin = check_bool("margin", margin)
        out: dict[int, SolveResult] = {}
        spent = 0
        for a in littlego.legal_actions(state):
            child = littlego.play(state, a)
            t0 = time.perf_counter()
            if child.end is not None:
                out[a] = _finished_value(child, pos.black, margin, time.perf_counter() - t0)
                continue
            res = self._run(kernel_position(child), max(budget - spent, 0), deadline, margin, t0)
            spent += res.nodes
            out[a] = SolveResult(None if res.value is None else -res.value,
                                 None if res.margin is None else 0.0 - res.margin, res.best_move, res.nodes,
                                 res.seconds, res.tt_probes, res.tt_hits)
        return out

    def _run(self, pos: KernelPosition, budget: int, deadline: float, margin: bool,
             start: float) -> SolveResult:
        tb = board_tables(pos.n, pos.max_actions)
        mode = K.MODE_MARGIN if margin else K.MODE_OUTCOME
        table = self._table(mode, (pos.n, pos.komi, pos.max_actions))
        N = pos.n * pos.n
        plies = pos.max_actions - pos.t + 2
        hs = np.zeros((plies, 8), dtype=np.uint64)
        black_stones, white_stones = (pos.own, pos.opp) if pos.black else (pos.opp, pos.own)
        K.stone_hashes(np.int64(black_stones), np.int64(white_stones), tb.zs, hs[0])
        mv = np.zeros((plies, N + 1), dtype=np.int64)
        moves = (mv, np.zeros_like(mv), np.zeros_like(mv), np.zeros_like(mv), np.zeros_like(mv))
        hist = np.zeros((2, N + 1), dtype=np.int64)
        stats = np.zeros(4, dtype=np.int64)
        frames = np.zeros((plies, K.FRAME_FIELDS), dtype=np.int64)
        keys = np.zeros(plies, dtype=np.uint64)
        control = np.zeros(4, dtype=np.int64)
        tt = (table.key, table.lo, table.hi, table.move, table.depth)
        opts = np.int64(self.opts)

        def probe(alpha: int, beta: int) -> tuple[bool, int, int]:
            """One search of the root within (alpha, beta): (finished, value, best move)."""
            frames[0, [K.F_OWN, K.F_OPP, K.F_BLACK, K.F_T, K.F_LAST_PASS, K.F_KO, K.F_ALPHA, K.F_BETA]] = (
                pos.own, pos.opp, pos.black, pos.t, int(pos.last_pass), pos.ko, alpha, beta)
            control[:] = 0
            stats[K.S_BEST] = -1
            while True:
                # Short slices when a clock is running, so that the deadline is kept to a few ms; else
                # long ones, between which Python handles signals (Ctrl-C) and reports progress.
                stop = min(budget, int(stats[K.S_NODES]) + (_SLICE if deadline else _LONG_SLICE))
                if K.run(control, frames, keys, hs, moves, tt, hist, tb.geo, tb.nb, tb.zs, tb.zk, tb.zt,
                         tb.zmisc, tb.inv, tb.sym, mode, pos.komi, stats, np.int64(stop), opts):
                    return True, int(control[K.C_VALUE]), int(stats[K.S_BEST])
                if stats[K.S_NODES] >= budget or (deadline and time.perf_counter() > deadline):
                    return False, 0, -1
                if self.progress is not None:
                    self.progress(int(stats[K.S_NODES]), time.perf_counter() - start)

        if mode == K.MODE_OUTCOME:
            # Values are -1, 0, +1: the window (-1, +1) holds no value but the draw, so
            # without draws (a fractional komi) it is a null window on win against loss.
            done, v, best = probe(-1, 1)
        else:
            # MTD(f): null-window searches on the margin, each through the same table,
            # closing in on the value from the present stone difference.
            lo, hi = -K.INF, K.INF
            v = pos.own.bit_count() - pos.opp.bit_count()
            best, done = -1, True
            while lo < hi and done:
                b = v + 1 if v == lo else v
                done, v, move = probe(b - 1, b)
                if v < b:
                    hi = v
                else:
                    lo, best = v, move
        seconds = time.perf_counter() - start
        nodes, probes, hits = int(stats[K.S_NODES]), int(stats[K.S_PROBES]), int(stats[K.S_HITS])
        if not done:
            return SolveResult(None, None, None, nodes, seconds, probes, hits)
        if mode == K.MODE_OUTCOME:
            value, m = v, None
        else:
            m = v - pos.komi if pos.black else v + pos.komi
            value = 1 if m > 0 else -1 if m < 0 else 0
        return SolveResult(value, m, best, nodes, seconds, probes, hits)


def static_bounds(state: littlego.GoState, life: bool = True) -> tuple[int, int]:
    """Bounds of a live state's final stone difference from the mover's view (the mover's stones
    minus the opponent's, komi not counted): ``(lower, upper)`` (see ``tictacgo.solver.bounds``).

    Args:
        state: a live Little-Go state.
        life: count pass-alive chains (Benson) as never captured.
    """
    check_position(state)
    pos = kernel_position(state)
    geo = board_tables(pos.n, pos.max_actions).geo
    lo, hi = K.margin_bounds(np.int64(pos.own), np.int64(pos.opp), np.int64(pos.t), geo,
                             check_bool("life", life))
    return int(lo), int(hi)


def pass_alive_stones(state: littlego.GoState) -> tuple[int, int]:
    """The stones of Black's and of White's pass-alive chains (Benson's unconditional life) as bits."""
    _check_kernel_fields(state)
    geo = board_tables(state.game.size, state.game.max_actions).geo
    b, w = np.int64(state.black), np.int64(state.white)
    return int(K.pass_alive(b, w, geo)), int(K.pass_alive(w, b, geo))


def _finished_value(state: littlego.GoState, mover_black: int, margin: bool, seconds: float) -> SolveResult:
    """The result of a finished game from the view of the player who moved into it."""
    b, w = littlego.scores(state)
    m = b - w if mover_black else w - b
    return SolveResult(1 if m > 0 else -1 if m < 0 else 0, m if margin else None, None, 0, seconds, 0, 0)


def _budget(budget_nodes, time_limit) -> tuple[int, float]:
    """(node budget, deadline on ``time.perf_counter``'s clock, 0.0 for none)."""
    if budget_nodes is None:
        budget = _UNLIMITED
    elif isinstance(budget_nodes, bool) or not isinstance(budget_nodes, (int, np.integer)) \
            or budget_nodes < 1:
        raise ValueError(f"budget_nodes must be a positive int or None, got {budget_nodes!r}")
    else:
        budget = int(budget_nodes)
    if time_limit is None:
        return budget, 0.0
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) \
            or not math.isfinite(time_limit) or time_limit <= 0:
        raise ValueError(f"time_limit must be a finite positive number of seconds or None, "
                         f"got {time_limit!r}")
    return budget, time.perf_counter() + float(time_limit)


def solve(state: littlego.GoState, budget_nodes: int | None = None, time_limit: float | None = None,
          margin: bool = False, table_bits: int = 20) -> SolveResult:
    """Solve ``state`` with a fresh ``Solver`` (see ``Solver.solve``)."""
    return Solver(table_bits).solve(state, budget_nodes, time_limit, margin)


def move_values(state: littlego.GoState, budget_nodes: int | None = None, time_limit: float | None = None,
                margin: bool = False, table_bits: int = 20) -> dict[int, SolveResult]:
    """The value of every legal action of ``state`` with a fresh ``Solver`` (see ``Solver.move_values``)."""
    return Solver(table_bits).move_values(state, budget_nodes, time_limit, margin)
