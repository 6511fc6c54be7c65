"""The extraction of a certificate's strategy, compiled: the walk of ``certificate._Extraction`` in numba.

A certificate's strategy table comes from a walk (``tictacgo.proof.certificate``):
where the strategy's side moves, one move that keeps the value (the solver's
best move); where the other side moves, every legal action; a position that
the pass bound settles is written settled and the walk stops there. On the
5x5 board the walk, not the search, took most of a certificate's time: it
runs in Python, a few tens of microseconds a position, and a position 20
actions from the end needs tens of millions of them. This module walks the
same positions in the same order with the solver's compiled rules
(``tictacgo.solver.kernels``), asks the same search the same questions, and
so writes the same rows (a test compares the two tables row for row), with
``prove``'s ``prefer_known`` too (``known_move``: a move that needs no search,
taken before the solver's).

Nothing here needs to be trusted: the checker (``tictacgo.proof.checker``)
walks the certificate again with the rules core alone.

The walk keeps its state in arrays: a stack of positions to visit, the rows
written, and a hash set of the codes met (the strategy's rows and the other
side's positions, which differ in their mover and so never collide). A code
is packed into one int64 (``pack``), which holds boards up to 5x5 and up to
31 actions; ``walk`` returns when the stack is empty, when the rows or the
set need more room (the caller grows them and calls again: the walk goes on
where it stopped), or after ``step_stop`` positions (so the caller can
report progress and take Ctrl-C between slices).

The position's code is that of ``tictacgo.proof.position_code``: the
smallest of the 8 symmetric images of (Black's stones, White's stones, ko
point, actions played, pending pass, mover), with the symmetries in that
module's order, so a move is written in the same frame.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

from tictacgo.games import littlego
from tictacgo.proof import position_code, proof_file
from tictacgo.proof.checker import COLOUR_NAMES, SETTLED
from tictacgo.proof.position_code import Code
from tictacgo.solver import kernels as K  # first: without numba it raises the error naming the extra
from tictacgo.solver.bits import G_POINTS, trailing_zeros
from tictacgo.solver.search import Solver, board_tables, kernel_position
from tictacgo.validate import MissingExtraError

try:
    from numba import njit
except ImportError as e:  # pragma: no cover (kernels above raises first)
    raise MissingExtraError(f"the solver needs numba: pip install 'tictacgo[fast]' ({e})") from e


class ProofExtractionError(RuntimeError):
    """The solver's answers do not form a proof (it would be a bug of the solver); raised by both walks,
    this compiled one and ``certificate``'s Python walk."""


#: Largest board and action limit a packed code holds.
MAX_SIZE, MAX_T = 5, 31

#: ``walk``'s answers.
DONE, NEED_ROWS, NEED_SET, PAUSED, FAILED = 0, 1, 2, 3, 4

#: An unused slot of the hash set (no packed code sets bit 63).
EMPTY = np.int64(-1)

# Fields of a stack entry: the mover's and the other's stones, mover is Black, actions played,
# pending pass, ko point.
E_OWN, E_OPP, E_BLACK, E_T, E_LAST_PASS, E_KO = range(6)
ENTRY_FIELDS = 6

# Counters of ``walk``: stack height, rows written, codes in the set, positions searched, steps.
W_TOP, W_ROWS, W_SET, W_NODES, W_STEPS = range(5)


@njit(cache=True)
def pack(black, white, ko, t, last_pass, to_move):
    """A code as one int64: Black's 25 bits, White's 25, ko + 1 (5 bits), t (5), pending pass, mover."""
    return (black | white << 25 | (ko + 1) << 50 | t << 55 | np.int64(last_pass) << 60
            | np.int64(to_move - 1) << 61)


@njit(cache=True)
def map_stones(stones, image):
    """A bitboard's image under a point map."""
    out = np.int64(0)
    rest = stones
    while rest:
        p = trailing_zeros(rest)
        out |= np.int64(1) << image[p]
        rest &= rest - 1
    return out


@njit(cache=True)
def canonical(black, white, ko, points):
    """(smallest image's Black stones, White stones, ko point, the first symmetry giving it), as
    ``position_code.canonical`` orders images: by Black's stones, then White's, then the ko point."""
    best_b, best_w, best_k, best_s = black, white, ko, 0
    for s in range(1, 8):
        b = map_stones(black, points[s])
        if b > best_b:
            continue
        w = map_stones(white, points[s])
        k = points[s, ko] if ko >= 0 else -1
        if b < best_b or w < best_w or (w == best_w and k < best_k):
            best_b, best_w, best_k, best_s = b, w, k, s
    return best_b, best_w, best_k, best_s


@njit(cache=True)
def slot_of(key, mask):
    """The first slot of a key in the hash set (a multiplicative hash)."""
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(20)) & mask


@njit(cache=True)
def slot_holding(keys, key):
    """The slot of the open-addressing set ``keys`` holding ``key``, or the empty slot where it would go."""
    mask = len(keys) - 1
    i = slot_of(key, mask)
    while keys[i] != key and keys[i] != EMPTY:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def set_add(keys, key):
    """Add ``key`` to the set ``keys``; False if it was there already."""
    i = slot_holding(keys, key)
    if keys[i] == key:
        return False
    keys[i] = key
    return True


@njit(cache=True)
def set_has(keys, key):
    return keys[slot_holding(keys, key)] == key


@njit(cache=True)
def outcome_of(margin):
    """+1 for a positive margin, 0 for zero, -2 (the rule cannot tell) below."""
    if margin > 0:
        return 1
    if margin == 0:
        return 0
    return -2


@njit(cache=True)
def pass_bound(own, opp, black, t, colour_moves, colour_black, komi, geo):
    """The leaf rule ``pass_bound`` (``tictacgo.proof.leaf_rules``) for the strategy's colour, from the
    solver's compiled bounds without life: +1, 0, or -2 when it cannot tell."""
    if colour_moves:
        margin = K.lower_bound(own, opp, t, geo, False) * 1.0
    else:
        margin = -K.upper_bound(own, opp, t, geo, False) * 1.0
    return outcome_of(margin - komi if colour_black else margin + komi)


@njit(cache=True)
def search(own, opp, black, t, last_pass, ko, control, frames, keys, hs, moves, tt, hist, geo, nb, zs,
           zk, zt, zmisc, inv, sym, komi, stats, opts):
    """The solver's outcome search of one position, as ``Solver.solve`` runs it: (value, best move, nodes)."""
    frames[:, :] = 0
    keys[:] = 0
    hs[:, :] = 0
    for m in moves:
        m[:, :] = 0
    hist[:, :] = 0
    stats[:] = 0
    control[:] = 0
    b, w = (own, opp) if black else (opp, own)
    K.stone_hashes(b, w, zs, hs[0])
    f = frames[0]
    f[K.F_OWN], f[K.F_OPP], f[K.F_BLACK], f[K.F_T] = own, opp, black, t
    f[K.F_LAST_PASS], f[K.F_KO], f[K.F_ALPHA], f[K.F_BETA] = last_pass, ko, -1, 1
    stats[K.S_BEST] = -1
    while not K.run(control, frames, keys, hs, moves, tt, hist, geo, nb, zs, zk, zt, zmisc, inv, sym,
                    K.MODE_OUTCOME, komi, stats, np.int64(1) << 62, opts):
        pass
    return control[K.C_VALUE], stats[K.S_BEST], stats[K.S_NODES]


@njit(cache=True)
def known_move(own, opp, black, t, last_pass, ko, seen, colour_black, needed, settle, komi, geo, nb, points):
    """A move of the strategy's side (to move) that needs no search, or -1: the first action
    (placements in increasing order, then PASS) that ends the game with what the side needs or
    reaches a position the walk has met already (its proof is under way); failing those, the first
    whose position the pass bound settles (with ``settle``)."""
    N = geo[G_POINTS]
    settled = np.int64(-1)
    for a in range(N + 1):
        if a == N:
            legal, own2, opp2, dead = True, own, opp, np.int64(0)
        else:
            legal, own2, opp2, dead = K.place(own, opp, a, ko, geo, nb)
            if not legal:
                continue
        ended, o, p, t2, lp, k2 = K.after_move(own, opp, t, last_pass, a, own2, opp2, dead, geo, nb)
        if ended:
            if K.final_value(own2, opp2, black, komi, K.MODE_OUTCOME) >= needed:
                return np.int64(a)
            continue
        b, w = (p, o) if black else (o, p)  # the next mover is the other side
        cb, cw, ck, _ = canonical(b, w, k2, points)
        if set_has(seen, pack(cb, cw, ck, t2, lp, 2 if black else 1)):
            return np.int64(a)
        if settled < 0 and settle \
                and pass_bound(o, p, 1 - black, t2, False, colour_black, komi, geo) >= needed:
            settled = np.int64(a)
    return settled


@njit(cache=True)
def push(stack, top, own, opp, black, t, last_pass, ko):
    e = stack[top]
    e[E_OWN], e[E_OPP], e[E_BLACK], e[E_T], e[E_LAST_PASS], e[E_KO] = own, opp, black, t, last_pass, ko
    return top + 1


@njit(cache=True)
def walk(stack, counters, row_keys, row_moves, seen, colour_black, needed, settle, prefer, step_stop,
         node_stop, points, control, frames, keys, hs, moves, tt, hist, geo, nb, zs, zk, zt, zmisc, inv, sym,
         komi, stats, opts):
    """Walk the strategy from the positions on ``stack`` (see the module docstring); returns ``DONE``,
    ``NEED_ROWS``, ``NEED_SET``, ``PAUSED`` or ``FAILED`` (the search gave less than ``needed`` at the
    position left on top of the stack). ``settle``: let the pass bound settle positions; ``prefer``:
    where the strategy's side moves, take a ``known_move`` when there is one, else ask the search."""
    N = geo[G_POINTS]
    top = counters[W_TOP]
    steps, nodes_before = 0, counters[W_NODES]
    while top > 0:
        if counters[W_ROWS] + 1 > len(row_keys):
            counters[W_TOP] = top
            return NEED_ROWS
        if 2 * (counters[W_SET] + 1) > len(seen):
            counters[W_TOP] = top
            return NEED_SET
        if steps >= step_stop or counters[W_NODES] - nodes_before >= node_stop:
            counters[W_TOP] = top
            return PAUSED
        steps += 1
        counters[W_STEPS] += 1
        e = stack[top - 1]
        own, opp, black, t, last_pass, ko = e[E_OWN], e[E_OPP], e[E_BLACK], e[E_T], e[E_LAST_PASS], e[E_KO]
        b, w = (own, opp) if black else (opp, own)
        cb, cw, ck, s = canonical(b, w, ko, points)
        key = pack(cb, cw, ck, t, last_pass, 1 if black else 2)
        colour_moves = black == colour_black
        if colour_moves:
            if set_has(seen, key):
                top -= 1
                continue
            if settle and pass_bound(own, opp, black, t, True, colour_black, komi, geo) >= needed:
                set_add(seen, key)
                counters[W_SET] += 1
                row_keys[counters[W_ROWS]], row_moves[counters[W_ROWS]] = key, SETTLED
                counters[W_ROWS] += 1
                top -= 1
                continue
            best = np.int64(-1)
            if prefer:
                best = known_move(own, opp, black, t, last_pass, ko, seen, colour_black, needed, settle, komi,
                                  geo, nb, points)
            if best >= 0:
                value = needed
            else:
                value, best, nodes = search(own, opp, black, t, last_pass, ko, control, frames, keys,
                                            hs, moves, tt, hist, geo, nb, zs, zk, zt, zmisc, inv, sym, komi,
                                            stats, opts)
                counters[W_NODES] += nodes
            if value < needed or best < 0 or best > N:
                counters[W_TOP] = top
                stats[K.S_BEST] = best
                control[K.C_VALUE] = value
                return FAILED
            set_add(seen, key)
            counters[W_SET] += 1
            row_keys[counters[W_ROWS]], row_moves[counters[W_ROWS]] = key, points[s, best]
            counters[W_ROWS] += 1
            top -= 1
            if best == N:
                ended, own2, opp2, dead = False, own, opp, np.int64(0)
            else:
                legal, own2, opp2, dead = K.place(own, opp, best, ko, geo, nb)
                if not legal:
                    counters[W_TOP] = top + 1
                    stats[K.S_BEST] = best
                    control[K.C_VALUE] = value
                    return FAILED
            ended, o, p, t2, lp, k2 = K.after_move(own, opp, t, last_pass, best, own2, opp2, dead, geo, nb)
            if not ended:
                top = push(stack, top, o, p, 1 - black, t2, lp, k2)
        else:
            top -= 1
            if not set_add(seen, key):
                continue
            counters[W_SET] += 1
            if settle and pass_bound(own, opp, black, t, False, colour_black, komi, geo) >= needed:
                row_keys[counters[W_ROWS]], row_moves[counters[W_ROWS]] = key, SETTLED
                counters[W_ROWS] += 1
                continue
            # Every legal action, pushed from the last so that they are visited in increasing order.
            ended, o, p, t2, lp, k2 = K.after_move(own, opp, t, last_pass, N, own, opp, np.int64(0), geo, nb)
            if not ended:
                top = push(stack, top, o, p, 1 - black, t2, lp, k2)
            for a in range(N - 1, -1, -1):
                legal, own2, opp2, dead = K.place(own, opp, a, ko, geo, nb)
                if not legal:
                    continue
                ended, o, p, t2, lp, k2 = K.after_move(own, opp, t, last_pass, a, own2, opp2, dead, geo, nb)
                if not ended:
                    top = push(stack, top, o, p, 1 - black, t2, lp, k2)
    counters[W_TOP] = 0
    return DONE


@njit(cache=True)
def rehash(old, new):
    """Copy the set ``old`` into the (larger, empty) set ``new``."""
    for k in old:
        if k != EMPTY:
            set_add(new, k)


# ---------------------------------------------------------------------------------------------------
# The caller's side: arrays in, a table of rows out.

#: Steps (positions visited) and positions searched of one call of ``walk``, at most (the step that
#: passes the second ends the call): the caller reports progress and takes Ctrl-C between calls.
SLICE_STEPS, SLICE_NODES = 1 << 20, 1 << 24
#: First sizes of the rows' arrays and of the hash set (a power of 2); both double as needed.
INITIAL_ROWS, INITIAL_SET = 1 << 16, 1 << 17


class PackedTable(Mapping):
    """A strategy table as sorted columns (``proof_file``'s ``black``, ``white``, ``meta``, ``move``):
    a read-only mapping code -> move that holds tens of millions of rows in a few bytes each."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays
        self._codes: list[Code] | None = None

    @classmethod
    def from_keys(cls, keys: np.ndarray, moves: np.ndarray) -> PackedTable:
        """The table of packed codes (``pack``) and their moves, sorted as ``proof_file`` writes them."""
        mask = (1 << 25) - 1
        black, white = keys & mask, (keys >> 25) & mask
        ko1, t = (keys >> 50) & 31, (keys >> 55) & 31
        last_pass, mover = (keys >> 60) & 1, (keys >> 61) & 1
        # Code order: black, white, ko, t, last_pass, to_move; 62 bits in all.
        order = np.argsort(black << 37 | white << 12 | ko1 << 7 | t << 2 | last_pass << 1 | mover,
                           kind="stable")
        meta = t | ko1 << 7 | last_pass << 13 | mover << 14  # proof_file.pack_meta
        return cls({"black": black[order].astype(np.uint64), "white": white[order].astype(np.uint64),
                    "meta": meta[order].astype(np.uint16), "move": moves[order].astype(np.uint8)})

    def codes(self) -> list[Code]:
        if self._codes is None:
            self._codes = proof_file.table_codes(self.arrays)
        return self._codes

    def __len__(self) -> int:
        return len(self.arrays["move"])

    def __iter__(self) -> Iterator[Code]:
        return iter(self.codes())

    def __getitem__(self, code: Code) -> int:
        codes = self.codes()  # sorted by code, as the rows are
        k = bisect.bisect_left(codes, code)
        if k == len(codes) or codes[k] != code:
            raise KeyError(code)
        return int(self.arrays["move"][k])

    def settled(self) -> int:
        """Rows settled by the leaf rule (no move)."""
        return int(np.count_nonzero(self.arrays["move"] == SETTLED))


def usable(state: littlego.GoState, rules: Sequence[str]) -> bool:
    """Whether the compiled walk can make this strategy: a board up to 5x5, at most 31 actions, and
    the pass bound alone (or no rule) to settle positions."""
    game = state.game
    return game.size <= MAX_SIZE and game.max_actions <= MAX_T and set(rules) <= {"pass_bound"}


def strategy(solver: Solver, state: littlego.GoState, colour: int, needed: int, settle: bool,
             progress: Callable[[str], None] | None = None, prefer_known: bool = False
             ) -> tuple[PackedTable, int]:
    """``colour``'s strategy from ``state`` (see ``certificate.prove``): (its table, positions searched).

    Args:
        solver: the oracle; its outcome table is searched and filled.
        state: a live position (``usable``).
        colour: 1 Black or 2 White, the side whose moves the table holds.
        needed: the outcome the side keeps: +1 a win, 0 at least a draw.
        settle: let the pass bound settle positions.
        progress: called with a line of text after each slice of the walk.
        prefer_known: take a move that needs no search where there is one (``known_move``).
    Raises:
        ProofExtractionError: the solver's answers do not form a proof.
    """
    pos = kernel_position(state)
    n, N = pos.n, pos.n * pos.n
    tb = board_tables(n, pos.max_actions)
    table = solver.table(False, (n, pos.komi, pos.max_actions))
    points = np.array(position_code.symmetries(n).points, dtype=np.int64)
    plies = pos.max_actions + 2
    mv = np.zeros((plies, N + 1), dtype=np.int64)
    moves = (mv, np.zeros_like(mv), np.zeros_like(mv), np.zeros_like(mv), np.zeros_like(mv))
    scratch = (np.zeros(4, dtype=np.int64), np.zeros((plies, K.FRAME_FIELDS), dtype=np.int64),
               np.zeros(plies, dtype=np.uint64), np.zeros((plies, 8), dtype=np.uint64), moves,
               (table.key, table.lo, table.hi, table.move, table.depth), np.zeros((2, N + 1), dtype=np.int64),
               tb.geo, tb.nb, tb.zs, tb.zk, tb.zt, tb.zmisc, tb.inv, tb.sym, np.float64(pos.komi),
               np.zeros(4, dtype=np.int64), np.int64(solver.opts))
    control, stats = scratch[0], scratch[16]
    stack = np.zeros(((plies + 1) * (N + 1), ENTRY_FIELDS), dtype=np.int64)
    stack[0] = (pos.own, pos.opp, pos.black, pos.t, int(pos.last_pass), pos.ko)
    counters = np.zeros(5, dtype=np.int64)
    counters[W_TOP] = 1
    row_keys, row_moves = np.empty(INITIAL_ROWS, dtype=np.int64), np.empty(INITIAL_ROWS, dtype=np.uint8)
    seen = np.full(INITIAL_SET, EMPTY, dtype=np.int64)
    colour_black = np.int64(colour == littlego.BLACK)
    while True:
        answer = walk(stack, counters, row_keys, row_moves, seen, colour_black, np.int64(needed), settle,
                      prefer_known, np.int64(SLICE_STEPS), np.int64(SLICE_NODES), points, *scratch)
        if answer == DONE:
            break
        if answer == NEED_ROWS:
            row_keys = np.concatenate([row_keys, np.empty(len(row_keys), dtype=np.int64)])
            row_moves = np.concatenate([row_moves, np.empty(len(row_moves), dtype=np.uint8)])
        elif answer == NEED_SET:
            bigger = np.full(2 * len(seen), EMPTY, dtype=np.int64)
            rehash(seen, bigger)
            seen = bigger
        elif answer == FAILED:
            raise ProofExtractionError(
                f"the solver gave {int(control[K.C_VALUE])} (move {int(stats[K.S_BEST])}) at a position "
                f"of the {COLOUR_NAMES[colour]} strategy that needs {needed}")
        elif progress is not None:
            progress(f"{COLOUR_NAMES[colour]}'s strategy: {int(counters[W_ROWS]):,} rows")
    del seen
    rows = int(counters[W_ROWS])
    return PackedTable.from_keys(row_keys[:rows], row_moves[:rows]), int(counters[W_NODES])
