"""Depth-first proof-number search (df-pn) over the solver's compiled Little-Go rules.

A second exact search beside the alpha-beta of ``tictacgo.solver.kernels``,
kept apart from it for comparison. It proves or disproves "the player to move
reaches at least ``target``" (``target`` 1: a win; 0: at least a draw), in
negamax form: a node is proved when one of its moves leads to a position
whose mover (the opponent) cannot reach ``1 - target``. Each node has a proof
number (the least number of leaves to prove, guessed) and a disproof number;
a proved node has proof number 0 and an infinite disproof number. In negamax
form a node's proof number is the least disproof number of its children and
its disproof number the sum of their proof numbers. Nagai's df-pn searches
depth first down the child with the least disproof number until the node's
numbers pass the thresholds its parent gave it, with the 1 + epsilon trick
(Pawlewicz and Lew: the second-best child's number times ``1 + epsilon`` as
the threshold, so the search does not jump back and forth between two
children). The numbers live in a table keyed like the alpha-beta's (Zobrist
keys of the position's smallest image over the 8 symmetries of the board)
plus the target; the game has no cycles (the actions taken are part of
every position), so no cycle handling is needed.

Like the alpha-beta, a move that ends the game is scored on the spot and a
move whose position the static bounds settle (``kernels.bound_cut``: the
action-cap bound and Benson's pass-alive chains, ``tictacgo.solver.bounds``)
is settled without a node; neither is counted. A node is counted each time
the search enters it, a table look-up that settles it included, as the
alpha-beta counts its positions. The value of a position (+1, 0, -1) takes
one proof with a fractional komi (no draws: a win or not) and at most two
with an integer komi (a win? else at least a draw?); both share the table.

The search keeps its stack in arrays, as the alpha-beta does, rather than
recursing. A recursive df-pn (an earlier draft, and this module's first
version) died with a call to a null address inside the compiled recursion
(seen in gdb): every time it was loaded from numba's disk cache
(``cache=True``), and the draft once in the process that compiled it, on
reaching 12 actions to go on 5x5; numba issues 6061 and 6713 report the same
with caching and recursion. A node keeps its children's numbers in its own
frame, refreshed from the table (transpositions may have moved them), so an
entry lost to another position in the table costs work, never a loop; a node
budget stops the search with "unknown", never a guess.

A new leaf's numbers start at 1 and 1 (``weight`` 0, plain df-pn) or are
guessed from the stone count: ``weight`` more for every half point (komi
counted) by which its mover falls short of its target (the proof number) or
passes it (the disproof number).

How it compares (docs/solver.md, ``scripts/compare_solver_techniques.py
--pns-weights 0 8``, on the positions of a line from 12 to 19 actions to
go): plain df-pn searches more positions than the alpha-beta with the same
bounds at 12 and 13 to go and where the mover has a win to find, and from 14
to 18 1.6 to 1.9 times fewer where every move of a lost position has to be
refuted; with the stone count it searches 1.7 to 2.4 times fewer at 14, 16,
17 and 18 (but 1.8 times more at 15) and 3.5 times fewer at 19. Up to 18 to
go it still takes longer: a third of the alpha-beta's positions a second
(each visit lists all of a node's children with their keys, table entries
and bounds; the alpha-beta only the moves it tries before a cut-off). At 19
to go it is the faster (270 s against 485 s): its positions grew 3 times
from 18 to 19 to go, the alpha-beta's 6.2 times. Little-Go's tree is shallow
and uniform (about as many moves as empty points everywhere, every line as
long), so proof numbers, which pay where some lines are much narrower than
others, have little to tell apart near the end.

    from tictacgo.solver.pns import pns_solve
    result = pns_solve(state)      # result.value: +1 / 0 / -1 for the mover, None when the budget ran out
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from tictacgo.games import littlego
from tictacgo.solver import kernels as K
from tictacgo.solver.bits import G_FULL, G_POINTS, popcount, trailing_zeros
from tictacgo.solver.search import board_tables, check_position, kernel_position
from tictacgo.validate import check_bool

INF = np.int64(1) << 62  # the proof number of a disproved node, the disproof number of a proved one
_TARGET_KEY = np.uint64(0x9E3779B97F4A7C15)  # mixed into the key of a position searched for "at least a draw"
# Layout of the ``stats`` array.
P_NODES, P_EXPANDED, P_PROBES, P_HITS, P_BEST, P_ABORT = range(6)
# What a move leads to: a position to search, or one already settled (game end or static bound)
# whose mover reaches its target, or does not.
OPEN, CHILD_REACHES, CHILD_FAILS = 0, 1, 2


@dataclass(frozen=True)
class PnsResult:
    """What df-pn proved, from the view of the player to move.

    Attributes:
        value: +1 win, -1 loss, 0 draw (integer komi only); None when the node budget ran out.
        best_move: an action that keeps ``value`` (None when unknown, or when every move loses).
        nodes: positions searched (every entry into a node, table hits included).
        expanded: the entries that generated the node's moves (the rest were settled by the table).
        seconds: wall time of the search.
        tt_probes: table look-ups.
        tt_hits: look-ups that found the position.
    """

    value: int | None
    best_move: int | None
    nodes: int
    expanded: int
    seconds: float
    tt_probes: int
    tt_hits: int

    @property
    def known(self) -> bool:
        return self.value is not None


@njit(cache=True)
def _key(hs, ko, t, last_pass, black, target, zk, zt, zmisc):
    """The table key of a position searched for ``target``."""
    key = K.table_key(hs, ko, t, last_pass, black, zk, zt, zmisc)[0]
    return key ^ _TARGET_KEY if target == 0 else key


@njit(cache=True)
def _lookup(table, key, stats):
    """``(found, pn, dn)`` of ``key`` in the table's 2-slot bucket."""
    tkey, tpn, tdn, twork = table
    stats[P_PROBES] += 1
    i = np.int64(key % np.uint64(tkey.shape[0] >> 1)) * 2
    for j in (i, i + 1):
        if tkey[j] == key:
            stats[P_HITS] += 1
            return True, tpn[j], tdn[j]
    return False, np.int64(1), np.int64(1)


@njit(cache=True)
def _store(table, key, pn, dn, work):
    """Store a node's numbers: slot ``i`` of the bucket keeps the entry with the most work under it,
    slot ``i + 1`` the latest."""
    tkey, tpn, tdn, twork = table
    i = np.int64(key % np.uint64(tkey.shape[0] >> 1)) * 2
    for j in (i, i + 1):
        if tkey[j] == key:
            tpn[j], tdn[j], twork[j] = pn, dn, max(twork[j], work)
            return
    j = i if work >= twork[i] else i + 1
    tkey[j], tpn[j], tdn[j], twork[j] = key, pn, dn, work


@njit(cache=True)
def _initial_numbers(own, opp, black, target, komi, weight):
    """A new leaf's ``(pn, dn)``, guessed from the stones: 1 each, plus ``weight`` for every half point
    by which the mover's stone count (komi counted) falls short of its target (to pn) or passes it
    (to dn). ``weight`` 0 gives the usual 1 and 1."""
    half_points = 2 * (popcount(own) - popcount(opp)) + (-np.int64(2 * komi) if black else np.int64(2 * komi))
    lead = half_points - (1 if target == 1 else -1)  # past the least score that reaches the target
    return 1 + max(0, -lead) * weight, 1 + max(0, lead) * weight


@njit(cache=True)
def _expand(own, opp, black, t, last_pass, ko, target, ply, ws, table, geo, nb, zs, zk, zt, zmisc, komi,
            opts, weight, stats):
    """List the node's moves in ``ws[ply]``: what each leads to, its key and its numbers; the count."""
    hs, cmv, cown, copp, cdead, ckey, cflag, cpn, cdn = ws
    N = geo[G_POINTS]
    cnt = 0
    e = geo[G_FULL] & ~(own | opp)
    while e:
        p = trailing_zeros(e)
        e &= e - 1
        ok, o2, p2, dead = K.place(own, opp, p, ko, geo, nb)
        if ok:
            cmv[ply, cnt], cown[ply, cnt], copp[ply, cnt], cdead[ply, cnt] = p, o2, p2, dead
            cnt += 1
    cmv[ply, cnt], cown[ply, cnt], copp[ply, cnt], cdead[ply, cnt] = N, own, opp, 0  # PASS, always legal
    cnt += 1
    child_target = 1 - target
    for i in range(cnt):
        p = cmv[ply, i]
        ended, c_own, c_opp, c_t, c_pass, c_ko = K.after_move(own, opp, t, last_pass, p, cown[ply, i],
                                                              copp[ply, i], cdead[ply, i], geo, nb)
        if ended:
            v = K.final_value(c_opp, c_own, black, komi, K.MODE_OUTCOME)
            cflag[ply, i] = CHILD_FAILS if v >= target else CHILD_REACHES
            continue
        # The child's mover reaches its target t' when its value is at least t': outside the
        # window (t' - 1, t') the bounds settle that.
        cut, v = K.bound_cut(c_own, c_opp, 1 - black, c_t, np.int64(child_target - 1), np.int64(child_target),
                             geo, komi, K.MODE_OUTCOME, opts)
        if cut:
            cflag[ply, i] = CHILD_REACHES if v >= child_target else CHILD_FAILS
            continue
        cflag[ply, i] = OPEN
        K.child_hashes(hs, ply, p, cdead[ply, i], black, N, zs)
        ckey[ply, i] = _key(hs[ply + 1], c_ko, c_t, c_pass, 1 - black, child_target, zk, zt, zmisc)
        found, c_pn, c_dn = _lookup(table, ckey[ply, i], stats)
        if not found:
            c_pn, c_dn = _initial_numbers(c_own, c_opp, 1 - black, child_target, komi, weight)
        cpn[ply, i], cdn[ply, i] = c_pn, c_dn
    return cnt


# Fields of one frame of the explicit search stack (``frames[ply, F_*]``).
(F_OWN, F_OPP, F_BLACK, F_T, F_LAST_PASS, F_KO, F_TARGET, F_THPN, F_THDN, F_START, F_COUNT,
 F_CHILD) = range(12)
FRAME_FIELDS = 12


@njit(cache=True)
def _numbers(ply, cnt, cflag, ckey, cpn, cdn, table, stats):
    """``(pn, dn, best, second_dn)`` of the node at ``ply`` from its children's numbers: ``best`` the
    child with the least disproof number, ``second_dn`` the next least."""
    pn, dn = INF, np.int64(0)
    best, second_dn = -1, INF
    for i in range(cnt):
        f = cflag[ply, i]
        if f == CHILD_FAILS:
            c_pn, c_dn = INF, np.int64(0)
        elif f == CHILD_REACHES:
            c_pn, c_dn = np.int64(0), INF
        else:
            # Transpositions may have moved the child's numbers since; a lost entry keeps ours.
            found, tp, td = _lookup(table, ckey[ply, i], stats)
            if found:
                cpn[ply, i], cdn[ply, i] = tp, td
            c_pn, c_dn = cpn[ply, i], cdn[ply, i]
        if c_dn < pn:
            second_dn = pn
            pn, best = c_dn, i
        elif c_dn < second_dn:
            second_dn = c_dn
        dn = INF if c_pn >= INF or dn + c_pn >= INF else dn + c_pn
    return pn, dn, best, second_dn


@njit(cache=True)
def _search(frames, ws, table, geo, nb, zs, zk, zt, zmisc, komi, opts, eps_pct, weight, stats, budget):
    """Prove or disprove the root (frame 0: its position, target and thresholds) by df-pn; its
    ``(pn, dn)``: pn 0 when its mover reaches the target, dn 0 when it cannot.

    A node is searched until its proof number reaches its threshold ``F_THPN`` or its disproof
    number ``F_THDN``, or it is settled. The stack is explicit, not a recursion (see the module
    docstring). Sets ``stats[P_ABORT]`` and returns when the node budget runs out (nothing is
    stored then).
    """
    hs, cmv, cown, copp, cdead, ckey, cflag, cpn, cdn = ws
    N = geo[G_POINTS]
    ply = 0
    entering = True
    while True:
        f = frames[ply]
        own, opp, black, t, last_pass, ko = f[F_OWN], f[F_OPP], f[F_BLACK], f[F_T], f[F_LAST_PASS], f[F_KO]
        target = f[F_TARGET]
        key = _key(hs[ply], ko, t, last_pass, black, target, zk, zt, zmisc)
        if entering:
            if stats[P_NODES] >= budget:
                stats[P_ABORT] = 1
                return np.int64(1), np.int64(1)
            stats[P_NODES] += 1
            f[F_START] = stats[P_NODES]
            found, pn, dn = _lookup(table, key, stats)
            if found and (pn >= f[F_THPN] or dn >= f[F_THDN] or pn == 0 or dn == 0):
                done = True
            else:
                stats[P_EXPANDED] += 1
                f[F_COUNT] = _expand(own, opp, black, t, last_pass, ko, target, ply, ws, table, geo, nb, zs,
                                     zk, zt, zmisc, komi, opts, weight, stats)
                done = False
        if not entering or not done:
            cnt = f[F_COUNT]
            pn, dn, best, second_dn = _numbers(ply, cnt, cflag, ckey, cpn, cdn, table, stats)
            done = pn == 0 or dn == 0 or pn >= f[F_THPN] or dn >= f[F_THDN]
            if done:
                _store(table, key, pn, dn, stats[P_NODES] - f[F_START] + 1)
                if ply == 0 and pn == 0:
                    stats[P_BEST] = cmv[ply, best]
        if done:
            if ply == 0:
                return pn, dn
            # Back to the parent, with the numbers it searched this child for.
            ply -= 1
            i = frames[ply, F_CHILD]
            cpn[ply, i], cdn[ply, i] = pn, dn
            entering = False
            continue
        # Down the child with the least disproof number, until its disproof number passes the
        # second least (times 1 + epsilon) or the node's disproof number passes its threshold.
        thpn, thdn = f[F_THPN], f[F_THDN]
        p = cmv[ply, best]
        ended, c_own, c_opp, c_t, c_pass, c_ko = K.after_move(own, opp, t, last_pass, p, cown[ply, best],
                                                              copp[ply, best], cdead[ply, best], geo, nb)
        K.child_hashes(hs, ply, p, cdead[ply, best], black, N, zs)
        f[F_CHILD] = best
        c = frames[ply + 1]
        c[F_OWN], c[F_OPP], c[F_BLACK], c[F_T] = c_own, c_opp, 1 - black, c_t
        c[F_LAST_PASS], c[F_KO] = c_pass, c_ko
        c[F_TARGET] = 1 - target
        c[F_THPN] = min(thdn - dn + cpn[ply, best], INF)
        c[F_THDN] = thpn if second_dn >= INF else min(thpn, second_dn + max(1, second_dn * eps_pct // 100))
        ply += 1
        entering = True


class PnsTable:
    """df-pn's table: 2-slot buckets of key, proof and disproof number, and the work under the entry
    (32 bytes an entry: 2**22 entries is 134 MB)."""

    def __init__(self, bits: int):
        if isinstance(bits, bool) or not isinstance(bits, int) or not 4 <= bits <= 30:
            raise ValueError(f"table_bits must be an int in [4, 30], got {bits!r}")
        size = 1 << bits
        self.arrays = (np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.int64),
                       np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64))


def pns_solve(state: littlego.GoState, budget_nodes: int | None = None, table_bits: int = 20,
              bounds: bool = True, life: bool = True, epsilon: float = 0.25, weight: int = 8) -> PnsResult:
    """The value of a live state for the player to move by df-pn (see the module docstring).

    Args:
        state: a live Little-Go state, board up to 7x7.
        budget_nodes: stop after this many positions (None: no limit); the value is then None.
        table_bits: log2 of the table's entries.
        bounds: settle positions by the action-cap bounds (as ``Solver(bounds=True)``).
        life: count pass-alive chains in those bounds.
        epsilon: the 1 + epsilon trick's epsilon, in [0, 4] (0: Nagai's plain df-pn).
        weight: how much the stone count shapes a new leaf's numbers, an int in [0, 1000] (0: every
            new leaf starts at 1 and 1, plain df-pn; see the module docstring).
    Returns:
        A ``PnsResult``.
    Raises:
        ValueError: an impossible or finished state, a board over 7x7, a bad budget, table size,
            epsilon or weight.
    """
    check_position(state)
    pos = kernel_position(state)
    if budget_nodes is None:
        budget = np.iinfo(np.int64).max
    elif isinstance(budget_nodes, bool) or not isinstance(budget_nodes, (int, np.integer)) \
            or budget_nodes < 1:
        raise ValueError(f"budget_nodes must be a positive int or None, got {budget_nodes!r}")
    else:
        budget = int(budget_nodes)
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0 <= epsilon <= 4:
        raise ValueError(f"epsilon must be a number in [0, 4], got {epsilon!r}")
    if isinstance(weight, bool) or not isinstance(weight, (int, np.integer)) or not 0 <= weight <= 1000:
        raise ValueError(f"weight must be an int in [0, 1000], got {weight!r}")
    bounds, life = check_bool("bounds", bounds), check_bool("life", life)
    opts = np.int64((K.OPT_BOUNDS if bounds else 0) | (K.OPT_LIFE if bounds and life else 0))
    table = PnsTable(table_bits).arrays
    tb = board_tables(pos.n, pos.max_actions)
    plies, N = pos.max_actions - pos.t + 2, pos.n * pos.n
    hs = np.zeros((plies, 8), dtype=np.uint64)
    black_stones, white_stones = (pos.own, pos.opp) if pos.black else (pos.opp, pos.own)
    K.stone_hashes(np.int64(black_stones), np.int64(white_stones), tb.zs, hs[0])
    ints = [np.zeros((plies, N + 1), dtype=np.int64) for _ in range(4)]
    ws = (hs, *ints, np.zeros((plies, N + 1), dtype=np.uint64), np.zeros((plies, N + 1), dtype=np.int64),
          np.zeros((plies, N + 1), dtype=np.int64), np.zeros((plies, N + 1), dtype=np.int64))
    stats = np.zeros(6, dtype=np.int64)
    frames = np.zeros((plies, FRAME_FIELDS), dtype=np.int64)
    start = time.perf_counter()
    value, best = -1, None
    for target in (1, 0) if pos.komi == int(pos.komi) else (1,):
        stats[P_BEST] = -1
        frames[0, :F_THDN + 1] = (pos.own, pos.opp, pos.black, pos.t, int(pos.last_pass), pos.ko, target, INF,
                                  INF)
        pn, dn = _search(frames, ws, table, tb.geo, tb.nb, tb.zs, tb.zk, tb.zt, tb.zmisc, pos.komi, opts,
                         np.int64(round(epsilon * 100)), np.int64(weight), stats, np.int64(budget))
        if stats[P_ABORT]:
            value = None
            break
        if pn == 0:
            value, best = target, int(stats[P_BEST])
            break
    seconds = time.perf_counter() - start
    return PnsResult(value, best if best is not None and best >= 0 else None, int(stats[P_NODES]),
                     int(stats[P_EXPANDED]), seconds, int(stats[P_PROBES]), int(stats[P_HITS]))
