"""A solver search that runs in slices, and can be saved to arrays and taken up again later.

The compiled search keeps its whole stack in arrays (``tictacgo.solver.kernels.run``),
so a search paused between two slices is nothing but those arrays and the
solver's transposition table. ``ResumableSearch`` holds them for one
position (the outcome: win, loss or draw for the player to move),
``arrays()`` hands them out as plain integer arrays (for an ``.npz`` file:
no pickle) and ``ResumableSearch(solver, state, arrays)`` takes them up
again, so a search stopped in one process goes on in another exactly where
it stopped; ``table_arrays`` and ``restore_table`` do the same for the
solver's table. Long runs (``scripts/solve_frontier.py``) write both
to disk now and then.

    search = ResumableSearch(solver, state)
    while not search.advance(1_000_000):
        save({**search.arrays(), **table_arrays(solver, state)})
    search.result()
"""

from __future__ import annotations

import numpy as np

from tictacgo.games import littlego
from tictacgo.solver import kernels as K
from tictacgo.solver.search import Solver, SolveResult, board_tables, check_position, kernel_position, variant

SEARCH_FIELDS = ("control", "frames", "keys", "hs", "mv", "mown", "mopp", "mdead", "msc", "hist", "stats")
TABLE_FIELDS = ("key", "lo", "hi", "move", "depth")


class ResumableSearch:
    """The outcome search of one live position, run in slices (see the module docstring).

    Args:
        solver: the ``Solver`` whose table and options (bounds, life) the search uses.
        state: the position.
        arrays: a paused search's ``arrays()`` of the same position, to go on with it.
        seconds: the time the search already spent (kept in its result).
    Raises:
        ValueError: an impossible or finished state; arrays of another shape.
    """

    def __init__(self, solver: Solver, state: littlego.GoState, arrays: dict | None = None,
                 seconds: float = 0.0):
        check_position(state)
        self.solver = solver
        self.pos = pos = kernel_position(state)
        self.tables = board_tables(pos.n, pos.max_actions)
        self.table = solver.table(False, (pos.n, pos.komi, pos.max_actions))
        self.seconds = float(seconds)
        plies, N = pos.max_actions - pos.t + 2, pos.n * pos.n
        shapes = {"control": (4,), "frames": (plies, K.FRAME_FIELDS), "keys": (plies,), "hs": (plies, 8),
                  "hist": (2, N + 1), "stats": (4,), **{f: (plies, N + 1) for f in SEARCH_FIELDS[4:9]}}
        if arrays is None:
            a = {f: np.zeros(s, dtype=_dtype(f)) for f, s in shapes.items()}
            black_stones, white_stones = (pos.own, pos.opp) if pos.black else (pos.opp, pos.own)
            K.stone_hashes(np.int64(black_stones), np.int64(white_stones), self.tables.zs, a["hs"][0])
            root = [K.F_OWN, K.F_OPP, K.F_BLACK, K.F_T, K.F_LAST_PASS, K.F_KO, K.F_ALPHA, K.F_BETA]
            # The window (-1, +1): a null window on win against loss (see ``Solver``).
            a["frames"][0, root] = (pos.own, pos.opp, pos.black, pos.t, int(pos.last_pass), pos.ko, -1, 1)
            a["stats"][K.S_BEST] = -1
        else:
            a = {}
            for f, s in shapes.items():
                if f not in arrays or tuple(np.shape(arrays[f])) != s:
                    raise ValueError(f"the saved search's {f!r} does not fit this position: expected shape "
                                     f"{s}, got {None if f not in arrays else np.shape(arrays[f])}")
                a[f] = np.array(arrays[f], dtype=_dtype(f))
            if a["frames"][0, K.F_OWN] != pos.own or a["frames"][0, K.F_OPP] != pos.opp:
                raise ValueError("the saved search is of another position")
        self._a = a

    def arrays(self) -> dict[str, np.ndarray]:
        """The paused search as plain integer arrays (copies)."""
        return {f: v.copy() for f, v in self._a.items()}

    @property
    def done(self) -> bool:
        return bool(self._a["control"][K.C_DONE])

    @property
    def nodes(self) -> int:
        return int(self._a["stats"][K.S_NODES])

    def advance(self, nodes: int) -> bool:
        """Search up to ``nodes`` more positions; True once the value is known."""
        if self.done:
            return True
        a, tb, t = self._a, self.tables, self.table
        moves = (a["mv"], a["mown"], a["mopp"], a["mdead"], a["msc"])
        return bool(K.run(a["control"], a["frames"], a["keys"], a["hs"], moves,
                          (t.key, t.lo, t.hi, t.move, t.depth), a["hist"], tb.geo, tb.nb, tb.zs, tb.zk, tb.zt,
                          tb.zmisc, tb.inv, tb.sym, K.MODE_OUTCOME, self.pos.komi, a["stats"],
                          np.int64(self.nodes + nodes), np.int64(self.solver.opts)))

    def result(self) -> SolveResult:
        """What the search proved so far (``value`` None until it is done)."""
        st = self._a["stats"]
        nodes, probes, hits = int(st[K.S_NODES]), int(st[K.S_PROBES]), int(st[K.S_HITS])
        if not self.done:
            return SolveResult(None, None, None, nodes, self.seconds, probes, hits)
        return SolveResult(int(self._a["control"][K.C_VALUE]), None, int(st[K.S_BEST]), nodes, self.seconds,
                           probes, hits)


def table_arrays(solver: Solver, state: littlego.GoState) -> dict[str, np.ndarray]:
    """The solver's outcome table for the game of ``state`` as arrays (the table itself, not copies)."""
    t = solver.table(False, variant(state))
    return {f: getattr(t, f) for f in TABLE_FIELDS}


def restore_table(solver: Solver, state: littlego.GoState, arrays: dict) -> None:
    """Fill the solver's outcome table for the game of ``state`` from ``table_arrays`` output.

    Raises:
        ValueError: arrays of another table size or type.
    """
    t = solver.table(False, variant(state))
    for f in TABLE_FIELDS:
        target = getattr(t, f)
        got = arrays.get(f)
        if got is None or got.shape != target.shape or got.dtype != target.dtype:
            raise ValueError(f"the saved table's {f!r} does not fit a table of 2**{solver.table_bits} "
                             f"entries: expected {target.dtype}{target.shape}, got "
                             f"{None if got is None else f'{got.dtype}{got.shape}'}")
        target[:] = got


def _dtype(field: str):
    return np.uint64 if field in ("keys", "hs") else np.int64
