"""The championship player's compiled search: depth-limited alpha-beta on a stone, liberty and eye evaluation.

Positions are the exact solver's kernel scalars (``tictacgo.solver.kernels``:
``own``, ``opp``, ``black``, ``t``, ``last_pass``, ``ko``, from the mover's
view), and moves go through its placement primitive, so the rules are the
ones the conformance suite checks. On top of them:

* ``negamax``: principal-variation alpha-beta to a depth, then a capture
  and escape quiescence search; a transposition table (one slot a key,
  always replaced), the table's move first, then captures (largest first),
  escapes from atari, two killer moves a ply and a history score.
* ``evaluate``: the final score of this variant is stones on the board, so
  the value is the stone difference (komi counted) in hundredths of a
  stone, plus what is at risk: groups in atari (the mover's may be taken
  next; the opponent's may be taken now), groups with two liberties,
  liberties, eyes (points only their owner can fill), room: the
  placements each side still has safe points for before the action limit,
  and reach: room again, with each empty point counted for the colour whose
  stones reach it first. The weights (``DEFAULT_WEIGHTS``) are a least-squares
  fit of exact final margins, from the solver, of 3,000 positions with 10 to
  14 actions to go (``scripts/fit_championship_weights.py --records
  docs/data/championship_fit/games.json --positions 3000 --seed 0``).
* A finished game scores ``WIN`` plus the final margin, so any proved win
  beats any evaluation.

The search stops (``stats[S_ABORT]``) once it has seen ``stats[S_STOP]``
positions, or once the monotonic clock (``now_us``; ``clock_us`` reads it
from Python) passes ``stats[S_CLOCK_STOP]``, in microseconds.

Every kernel is cached on disk by numba (``cache=True``), so a process after
the first loads the compiled search instead of compiling it (a course player
runs once a move): the recursions (``negamax``, ``_qsearch``) run on explicit
stacks, one row a ply, since numba's cache of a recursive function crashes
on load, and the clock is a C call by name (``_monotonic_us``), not a ctypes
pointer in a global, which numba cannot cache.
"""

from __future__ import annotations

import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from tictacgo.games.batched_kernels import flood, nbrs
from tictacgo.solver.kernels import (
    G_FULL,
    G_LEFT,
    G_MAX_ACTIONS,
    G_N,
    G_POINTS,
    G_RIGHT,
    after_move,
    atari_escapes,
    pass_ends,
    place,
    popcount,
    trailing_zeros,
)

SCALE = 100           # evaluation units a stone
WIN = 1_000_000       # a won game's value before its margin; evaluations stay far below it
MAX_PLY = 96          # deepest ply (main search and quiescence together)
# Evaluation weights (hundredths of a stone), the layout of the ``weights`` array; the defaults are fitted
# to exact margins (see the module docstring).
W_ATARI_OWN, W_ATARI_OPP, W_TWO_LIBS, W_LIBS, W_EYE, W_TEMPO, W_ROOM, W_REACH = range(8)
DEFAULT_WEIGHTS = (117, 225, 71, -89, 43, -11, 2, 58)
# Layout of the ``stats`` array: positions seen, the limit on them, whether the search stopped, the clock's
# limit (``clock_us``; ``NO_CLOCK``: none).
S_NODES, S_STOP, S_ABORT, S_CLOCK_STOP = range(4)
STATS_SIZE = 4
NO_CLOCK = np.iinfo(np.int64).max  # ``S_CLOCK_STOP`` of a search without a deadline
_CLOCK_EVERY = 63  # look at the clock once in this many positions (plus one)

_CLOCK = getattr(time, "CLOCK_MONOTONIC", 1)  # the clock of Python's ``time.monotonic`` on Linux


@intrinsic
def _monotonic_us(typingctx):
    """``clock_gettime(CLOCK_MONOTONIC)`` in microseconds, called from compiled code as a C function.

    An intrinsic, not a ctypes function pointer held in a global: numba's disk cache
    keeps compiled code that calls a C function by name (the symbol is found again
    in the process when the cache is loaded), not code that holds a pointer.
    """
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])  # tv_sec, tv_nsec: two longs on 64-bit POSIX
        ts = cgutils.alloca_once(builder, timespec)
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        builder.call(fn, [ir.Constant(ir.IntType(32), _CLOCK), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        micros = builder.sdiv(nsec, ir.Constant(i64, 1000))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000)), micros)

    return types.int64(), codegen


@njit(cache=True)
def now_us():
    """The monotonic clock in microseconds, as the compiled search reads it (``clock_us`` from Python)."""
    return _monotonic_us()


def clock_us() -> int:
    """The compiled search's clock read from Python, in microseconds (for ``stats[S_CLOCK_STOP]``)."""
    return time.clock_gettime_ns(_CLOCK) // 1000


# Table entry kinds.
EXACT, LOWER, UPPER = 0, 1, 2


@njit(cache=True)
def final_score(own, opp, black, komi100):
    """A finished game's value for the player whose stones are ``own``: +-``WIN`` plus the margin."""
    m = (popcount(own) - popcount(opp)) * SCALE + (-komi100 if black else komi100)
    return m + WIN if m > 0 else (m - WIN if m < 0 else m)


@njit(cache=True)
def _group_risk(stones, empty, n, full, left, right, w_one, w_two):
    """The weighted stones of ``stones``' groups with one liberty (``w_one``) and two (``w_two``)."""
    risk = np.int64(0)
    rest = stones
    while rest:
        g = flood(rest & -rest, stones, n, full, left, right)
        rest &= ~g
        libs = popcount(nbrs(g, n, full, left, right) & empty)
        if libs == 1:
            risk += w_one * popcount(g)
        elif libs == 2:
            risk += w_two * popcount(g)
    return risk


@njit(cache=True)
def _room(own, opp, empty, left_actions, n, full, left, right):
    """The mover's placements still to come minus the opponent's, as far as each has room for them.

    The board fills up before the action limit: a player without a safe
    point to play must pass (or fill its own eyes), and each pass is a stone
    fewer. Safe points: an empty region bordered by one colour only is that
    colour's (less two points kept as eyes); regions bordered by both are
    shared, the mover first.
    """
    near_own, near_opp = nbrs(own, n, full, left, right), nbrs(opp, n, full, left, right)
    mine = theirs = shared = 0
    e = empty
    while e:
        r = flood(e & -e, empty, n, full, left, right)
        e &= ~r
        k = popcount(r)
        if r & near_own and not r & near_opp:
            mine += k
        elif r & near_opp and not r & near_own:
            theirs += k
        else:
            shared += k
    room_mine = max(mine - 2, 0) + (shared + 1) // 2
    room_theirs = max(theirs - 2, 0) + shared // 2
    return min((left_actions + 1) // 2, room_mine) - min(left_actions // 2, room_theirs)


@njit(cache=True)
def _reach_room(own, opp, empty, left_actions, n, full, left, right):
    """``_room`` with the empty points split by distance: each goes to the colour whose stones reach it
    first through empty points (a point both reach at once is shared), so an open board is already
    divided the way walls will divide it."""
    mine = theirs = np.int64(0)
    front_own, front_opp = own, opp
    rest = empty
    while rest:
        grow_own = nbrs(front_own, n, full, left, right) & rest
        grow_opp = nbrs(front_opp, n, full, left, right) & rest
        if not (grow_own | grow_opp):
            break  # empty points no stone reaches (an empty board)
        mine |= grow_own & ~grow_opp
        theirs |= grow_opp & ~grow_own
        rest &= ~(grow_own | grow_opp)
        front_own, front_opp = grow_own & ~grow_opp, grow_opp & ~grow_own
    k_mine, k_theirs = popcount(mine), popcount(theirs)
    shared = popcount(empty) - k_mine - k_theirs
    room_mine = max(k_mine - 2, 0) + (shared + 1) // 2
    room_theirs = max(k_theirs - 2, 0) + shared // 2
    return min((left_actions + 1) // 2, room_mine) - min(left_actions // 2, room_theirs)


@njit(cache=True)
def evaluate(own, opp, black, t, komi100, geo, w):
    """The position's value for the mover, in hundredths of a stone (see the module docstring)."""
    n, full, left, right = geo[G_N], geo[G_FULL], geo[G_LEFT], geo[G_RIGHT]
    empty = full & ~(own | opp)
    v = (popcount(own) - popcount(opp)) * SCALE + (-komi100 if black else komi100)
    left_actions = geo[G_MAX_ACTIONS] - t
    if left_actions & 1:
        v += w[W_TEMPO]  # the mover has one placement more than the opponent before the end
    if w[W_ROOM]:
        v += w[W_ROOM] * _room(own, opp, empty, left_actions, n, full, left, right)
    if w[W_REACH]:
        v += w[W_REACH] * _reach_room(own, opp, empty, left_actions, n, full, left, right)
    v -= _group_risk(own, empty, n, full, left, right, w[W_ATARI_OWN], w[W_TWO_LIBS])
    v += _group_risk(opp, empty, n, full, left, right, w[W_ATARI_OPP], w[W_TWO_LIBS])
    v += w[W_LIBS] * (popcount(nbrs(own, n, full, left, right) & empty)
                      - popcount(nbrs(opp, n, full, left, right) & empty))
    # An eye: an empty point whose neighbours are all the owner's stones.
    eyes_own = empty & ~nbrs(empty | opp, n, full, left, right)
    eyes_opp = empty & ~nbrs(empty | own, n, full, left, right)
    v += w[W_EYE] * (popcount(eyes_own) - popcount(eyes_opp))
    return v


@njit(cache=True)
def stone_hash(own, opp, black, zs):
    """Zobrist hash of the stones (``zs[colour, point]``, colour 0 Black)."""
    h = np.uint64(0)
    c = 0 if black else 1
    b = own
    while b:
        h ^= zs[c, trailing_zeros(b)]
        b &= b - 1
    b = opp
    while b:
        h ^= zs[1 - c, trailing_zeros(b)]
        b &= b - 1
    return h


@njit(cache=True)
def _child_hash(h, p, dead, black, N, zs):
    """The stone hash after the mover's action ``p`` removed ``dead``."""
    if p == N:
        return h
    c = 0 if black else 1
    h ^= zs[c, p]
    while dead:
        h ^= zs[1 - c, trailing_zeros(dead)]
        dead &= dead - 1
    return h


@njit(cache=True)
def _key(h, ko, t, last_pass, zk, zt, zpass):
    return h ^ zk[ko + 1] ^ zt[t] ^ (zpass if last_pass else np.uint64(0))


# The quiescence search's explicit stack: one row a ply, these columns (int64).
_Q_OWN, _Q_OPP, _Q_BLACK, _Q_T, _Q_PASS, _Q_KO, _Q_ALPHA, _Q_BETA, _Q_DEPTH, _Q_BEST, _Q_TARGETS = range(11)
_Q_COLUMNS = 11
# What the loop of an explicit-stack search does next with the frame on top.
_ENTER, _NEXT, _RETURN, _RESULT = range(4)


@njit(cache=True)
def _qsearch(own, opp, black, t, last_pass, ko, alpha, beta, qdepth, komi100, geo, nb, w, stats, q):
    """Quiescence: the evaluation, or better through captures and escapes from atari.

    Fail-soft alpha-beta ``qdepth`` plies deep on the moves that take a group
    in atari or lead one out of atari to at least two liberties, each
    position's evaluation standing as its floor. The recursion runs on the
    explicit stack ``q`` (``qdepth + 1`` rows of ``_Q_COLUMNS``), so numba can
    cache the compiled function.
    """
    n, full, left, right = geo[G_N], geo[G_FULL], geo[G_LEFT], geo[G_RIGHT]
    sp = 0
    q[0, _Q_OWN], q[0, _Q_OPP], q[0, _Q_BLACK], q[0, _Q_T], q[0, _Q_PASS], q[0, _Q_KO] = (
        own, opp, black, t, last_pass, ko)
    q[0, _Q_ALPHA], q[0, _Q_BETA], q[0, _Q_DEPTH] = alpha, beta, qdepth
    mode = _ENTER
    ret = np.int64(0)
    v = np.int64(0)
    while True:
        if mode == _ENTER:
            stats[S_NODES] += 1
            f_own, f_opp = q[sp, _Q_OWN], q[sp, _Q_OPP]
            stand = evaluate(f_own, f_opp, q[sp, _Q_BLACK], q[sp, _Q_T], komi100, geo, w)
            if stand >= q[sp, _Q_BETA] or q[sp, _Q_DEPTH] <= 0:
                ret = stand
                mode = _RETURN
                continue
            q[sp, _Q_BEST] = stand
            if stand > q[sp, _Q_ALPHA]:
                q[sp, _Q_ALPHA] = stand
            empty = full & ~(f_own | f_opp)
            targets = np.int64(0)  # the last liberties of every group in atari, either colour's
            for side in (f_own, f_opp):
                rest = side
                while rest:
                    g = flood(rest & -rest, side, n, full, left, right)
                    rest &= ~g
                    libs = nbrs(g, n, full, left, right) & empty
                    if libs & (libs - 1) == 0:
                        targets |= libs
            q[sp, _Q_TARGETS] = targets
            mode = _NEXT
        elif mode == _NEXT:
            f_own, f_opp, f_black = q[sp, _Q_OWN], q[sp, _Q_OPP], q[sp, _Q_BLACK]
            targets = q[sp, _Q_TARGETS]
            mode = _RETURN
            ret = q[sp, _Q_BEST]
            while targets:
                p = trailing_zeros(targets)
                targets &= targets - 1
                q[sp, _Q_TARGETS] = targets
                ok, o2, p2, dead = place(f_own, f_opp, p, q[sp, _Q_KO], geo, nb)
                if not ok:
                    continue
                if not dead:
                    g = flood(np.int64(1) << p, o2, n, full, left, right)
                    libs = nbrs(g, n, full, left, right) & (full & ~(o2 | p2))
                    if libs & (libs - 1) == 0:
                        continue  # an escape that stays in atari, or a move into atari: not quiet-breaking
                ended, c_own, c_opp, c_t, c_pass, c_ko = after_move(f_own, f_opp, q[sp, _Q_T], q[sp, _Q_PASS],
                                                                    p, o2, p2, dead, geo, nb)
                if ended:
                    v = final_score(c_opp, c_own, f_black, komi100)
                    mode = _RESULT
                else:
                    c = sp + 1
                    q[c, _Q_OWN], q[c, _Q_OPP], q[c, _Q_BLACK], q[c, _Q_T], q[c, _Q_PASS], q[c, _Q_KO] = (
                        c_own, c_opp, 1 - f_black, c_t, c_pass, c_ko)
                    q[c, _Q_ALPHA], q[c, _Q_BETA] = -q[sp, _Q_BETA], -q[sp, _Q_ALPHA]
                    q[c, _Q_DEPTH] = q[sp, _Q_DEPTH] - 1
                    sp = c
                    mode = _ENTER
                break
        elif mode == _RETURN:
            if sp == 0:
                return ret
            sp -= 1
            v = -ret
            mode = _RESULT
        else:  # _RESULT: the value ``v`` of the frame's current move
            mode = _NEXT
            if v > q[sp, _Q_BEST]:
                q[sp, _Q_BEST] = v
                if v > q[sp, _Q_ALPHA]:
                    q[sp, _Q_ALPHA] = v
                    if v >= q[sp, _Q_BETA]:
                        ret = v
                        mode = _RETURN


@njit(cache=True)
def qsearch(own, opp, black, t, last_pass, ko, alpha, beta, qdepth, komi100, geo, nb, w, stats):
    """Quiescence: the evaluation, or better through captures and escapes from atari (see ``_qsearch``)."""
    return _qsearch(own, opp, black, t, last_pass, ko, alpha, beta, qdepth, komi100, geo, nb, w, stats,
                    np.zeros((max(qdepth, 0) + 1, _Q_COLUMNS), np.int64))


@njit(cache=True)
def _gen_moves(own, opp, black, ko, ply, tt_move, passing_ends, geo, nb, killers, hist, mv, mown, mopp, mdead,
               msc):
    """Fill row ``ply`` of the move buffers with the legal actions and their ordering scores; their count."""
    full, N = geo[G_FULL], geo[G_POINTS]
    empty = full & ~(own | opp)
    escapes = atari_escapes(own, empty, geo)
    cnt = 0
    e = empty
    while e:
        p = trailing_zeros(e)
        e &= e - 1
        ok, o2, p2, dead = place(own, opp, p, ko, geo, nb)
        if not ok:
            continue
        sc = hist[black, p]
        if p == tt_move:
            sc = np.int64(1) << 60
        elif dead:
            sc += (np.int64(1) << 50) + (popcount(dead) << 40)
        elif escapes >> p & 1:
            sc += np.int64(1) << 46
        elif p == killers[ply, 0]:
            sc += np.int64(1) << 45
        elif p == killers[ply, 1]:
            sc += np.int64(1) << 44
        mv[ply, cnt], mown[ply, cnt], mopp[ply, cnt], mdead[ply, cnt], msc[ply, cnt] = p, o2, p2, dead, sc
        cnt += 1
    if not passing_ends:
        # Passing is a real choice late in a game whose every placement hurts.
        mv[ply, cnt], mown[ply, cnt], mopp[ply, cnt], mdead[ply, cnt] = N, own, opp, 0
        msc[ply, cnt] = np.int64(1) << 60 if tt_move == N else -1
        cnt += 1
    return cnt


def make_context(geo, nb, weights, zs, zk, zt, zpass, table, killers, hist, moves, stats, komi100, qdepth):
    """What every node of one search shares, as the one tuple the kernels take.

    Args:
        geo: the board constants (``search.board_tables``).
        nb: each point's neighbours as bits.
        weights: the evaluation's weights (``DEFAULT_WEIGHTS``' layout), int64.
        zs: Zobrist keys of the stones, ``[colour, point]`` (colour 0 Black).
        zk: Zobrist keys of the ko point plus one (entry 0: no ko).
        zt: Zobrist keys of the actions taken.
        zpass: the Zobrist key of a pending pass.
        table: the transposition table (key, value, depth, kind, move), one slot a key.
        killers: two killer moves a ply.
        hist: history scores ``[black, action]``.
        moves: the move buffers of each ply (action, stones after, dead, ordering score).
        stats: counters and limits (``S_*``).
        komi100: komi in evaluation units.
        qdepth: the quiescence search's depth.
    Returns:
        The tuple ``negamax`` and ``search_root`` take as ``ctx``.
    """
    return (geo, nb, weights, zs, zk, zt, zpass, table, killers, hist, moves, stats, np.int64(komi100),
            np.int64(qdepth))


# The main search's explicit stack: one row a ply, these columns (int64; the hashes in a uint64 array).
(_F_OWN, _F_OPP, _F_BLACK, _F_T, _F_PASS, _F_KO, _F_DEPTH, _F_ALPHA, _F_BETA, _F_ALPHA0, _F_BEST, _F_MOVE,
 _F_K, _F_COUNT, _F_SLOT, _F_STAGE) = range(16)
_F_COLUMNS = 16
_H_HASH, _H_KEY = 0, 1
# Where a frame's current move stands in principal-variation search.
_FULL, _NULL, _RESEARCH = range(3)


@njit(cache=True)
def negamax(own, opp, black, t, last_pass, ko, h, depth, alpha, beta, ctx, fr, fh, q):
    """The value for the mover of a position at ply 1 (a root move's), searched ``depth`` plies.

    Principal-variation alpha-beta with the transposition table, move
    ordering and a quiescence search at the leaves. The recursion runs on
    explicit stacks (``fr`` and ``fh``: row ``ply`` holds the position at
    that ply, as the move buffers' rows do; ``q``: the quiescence search's),
    so numba can cache the compiled function; a node's work, its order and
    its counts are those of the recursive form.
    """
    geo, nb, w, zs, zk, zt, zpass, tt, killers, hist, moves, stats, komi100, qdepth = ctx
    tkey, tval, tdepth, tflag, tmove = tt
    mv, mown, mopp, mdead, msc = moves
    N = geo[G_POINTS]
    base = np.int64(1)  # not the literal 1: the kernels it calls are compiled for int64 plies only
    sp = base
    fr[sp, _F_OWN], fr[sp, _F_OPP], fr[sp, _F_BLACK], fr[sp, _F_T], fr[sp, _F_PASS], fr[sp, _F_KO] = (
        own, opp, black, t, last_pass, ko)
    fr[sp, _F_DEPTH], fr[sp, _F_ALPHA], fr[sp, _F_BETA] = depth, alpha, beta
    fh[sp, _H_HASH] = h
    mode = _ENTER
    ret = np.int64(0)
    v = np.int64(0)
    while True:
        if mode == _ENTER:
            f_own, f_opp, f_black, f_t = fr[sp, _F_OWN], fr[sp, _F_OPP], fr[sp, _F_BLACK], fr[sp, _F_T]
            f_pass, f_ko, f_depth = fr[sp, _F_PASS], fr[sp, _F_KO], fr[sp, _F_DEPTH]
            f_alpha, f_beta = fr[sp, _F_ALPHA], fr[sp, _F_BETA]
            mode = _RETURN
            if f_depth <= 0 or sp >= MAX_PLY - qdepth - 1:
                ret = _qsearch(f_own, f_opp, f_black, f_t, f_pass, f_ko, f_alpha, f_beta, qdepth, komi100,
                               geo, nb, w, stats, q)
                continue
            if stats[S_NODES] >= stats[S_STOP] or (
                    stats[S_NODES] & _CLOCK_EVERY == 0 and now_us() >= stats[S_CLOCK_STOP]):
                stats[S_ABORT] = 1
                ret = np.int64(0)
                continue
            stats[S_NODES] += 1
            key = _key(fh[sp, _H_HASH], f_ko, f_t, f_pass, zk, zt, zpass)
            slot = np.int64(key & np.uint64(tkey.shape[0] - 1))
            tt_move = -1
            if tkey[slot] == key:
                tt_move = tmove[slot]
                if tdepth[slot] >= f_depth:
                    tv = np.int64(tval[slot])
                    tf = tflag[slot]
                    if tf == EXACT or (tf == LOWER and tv >= f_beta) or (tf == UPPER and tv <= f_alpha):
                        ret = tv
                        continue
            best = np.int64(-2 * WIN)
            best_move = -1
            passing_ends = pass_ends(f_t, f_pass, geo[G_MAX_ACTIONS])
            if passing_ends:
                # a pass that ends the game: scored at once
                best = final_score(f_own, f_opp, f_black, komi100)
                best_move = N
                if best >= f_beta:
                    ret = best
                    continue
            fr[sp, _F_ALPHA0] = f_alpha
            if best > f_alpha:
                fr[sp, _F_ALPHA] = best
            fr[sp, _F_BEST], fr[sp, _F_MOVE], fr[sp, _F_K], fr[sp, _F_SLOT] = best, best_move, 0, slot
            fh[sp, _H_KEY] = key
            fr[sp, _F_COUNT] = _gen_moves(f_own, f_opp, f_black, f_ko, sp, tt_move, passing_ends, geo, nb,
                                          killers, hist, mv, mown, mopp, mdead, msc)
            mode = _NEXT
        elif mode == _NEXT:
            k, cnt = fr[sp, _F_K], fr[sp, _F_COUNT]
            if k >= cnt:
                ret = _store(fr, fh, sp, tt)
                mode = _RETURN
                continue
            bi = k
            for m in range(k + 1, cnt):
                if msc[sp, m] > msc[sp, bi]:
                    bi = m
            if bi != k:
                mv[sp, k], mv[sp, bi] = mv[sp, bi], mv[sp, k]
                mown[sp, k], mown[sp, bi] = mown[sp, bi], mown[sp, k]
                mopp[sp, k], mopp[sp, bi] = mopp[sp, bi], mopp[sp, k]
                mdead[sp, k], mdead[sp, bi] = mdead[sp, bi], mdead[sp, k]
                msc[sp, k], msc[sp, bi] = msc[sp, bi], msc[sp, k]
            p, o2, p2, dead = mv[sp, k], mown[sp, k], mopp[sp, k], mdead[sp, k]
            f_black = fr[sp, _F_BLACK]
            ended, c_own, c_opp, c_t, c_pass, c_ko = after_move(fr[sp, _F_OWN], fr[sp, _F_OPP], fr[sp, _F_T],
                                                                fr[sp, _F_PASS], p, o2, p2, dead, geo, nb)
            if ended:
                v = final_score(c_opp, c_own, f_black, komi100)
                mode = _RESULT
                continue
            c = sp + 1
            fr[c, _F_OWN], fr[c, _F_OPP], fr[c, _F_BLACK], fr[c, _F_T], fr[c, _F_PASS], fr[c, _F_KO] = (
                c_own, c_opp, 1 - f_black, c_t, c_pass, c_ko)
            fh[c, _H_HASH] = _child_hash(fh[sp, _H_HASH], p, dead, f_black, N, zs)
            fr[c, _F_DEPTH] = fr[sp, _F_DEPTH] - 1
            if k == 0 or fr[sp, _F_MOVE] < 0:
                fr[sp, _F_STAGE] = _FULL
                fr[c, _F_ALPHA], fr[c, _F_BETA] = -fr[sp, _F_BETA], -fr[sp, _F_ALPHA]
            else:
                fr[sp, _F_STAGE] = _NULL
                fr[c, _F_ALPHA], fr[c, _F_BETA] = -fr[sp, _F_ALPHA] - 1, -fr[sp, _F_ALPHA]
            sp = c
            mode = _ENTER
        elif mode == _RETURN:
            if sp == base:
                return ret
            sp -= 1
            v = -ret
            if (fr[sp, _F_STAGE] == _NULL and fr[sp, _F_ALPHA] < v < fr[sp, _F_BETA]
                    and not stats[S_ABORT]):
                # the null window failed high: search the move again with the full window
                fr[sp, _F_STAGE] = _RESEARCH
                c = sp + 1
                fr[c, _F_DEPTH] = fr[sp, _F_DEPTH] - 1
                fr[c, _F_ALPHA], fr[c, _F_BETA] = -fr[sp, _F_BETA], -fr[sp, _F_ALPHA]
                sp = c
                mode = _ENTER
            elif stats[S_ABORT]:
                ret = np.int64(0)
            else:
                mode = _RESULT
        else:  # _RESULT: the value ``v`` of the frame's current move
            k = fr[sp, _F_K]
            p = mv[sp, k]
            fr[sp, _F_K] = k + 1
            mode = _NEXT
            if v > fr[sp, _F_BEST]:
                fr[sp, _F_BEST] = v
                fr[sp, _F_MOVE] = p
                if v > fr[sp, _F_ALPHA]:
                    fr[sp, _F_ALPHA] = v
                    if v >= fr[sp, _F_BETA]:
                        if not mdead[sp, k] and p != N and killers[sp, 0] != p:
                            killers[sp, 1] = killers[sp, 0]
                            killers[sp, 0] = p
                        hist[fr[sp, _F_BLACK], p] += fr[sp, _F_DEPTH] * fr[sp, _F_DEPTH]
                        ret = _store(fr, fh, sp, tt)
                        mode = _RETURN


@njit(cache=True)
def _store(fr, fh, sp, tt):
    """Store the finished frame ``sp`` in the transposition table; its value."""
    tkey, tval, tdepth, tflag, tmove = tt
    best, beta = fr[sp, _F_BEST], fr[sp, _F_BETA]
    flag = UPPER if best <= fr[sp, _F_ALPHA0] else (LOWER if best >= beta else EXACT)
    # Always replace: the key holds ``t``, so older moves' entries are never asked for again.
    slot = fr[sp, _F_SLOT]
    tkey[slot], tval[slot], tdepth[slot], tflag[slot], tmove[slot] = (fh[sp, _H_KEY], best, fr[sp, _F_DEPTH],
                                                                     flag, fr[sp, _F_MOVE])
    return best


@njit(cache=True)
def search_root(own, opp, black, t, last_pass, ko, actions, depth, ctx, values):
    """Search each of ``actions`` (in that order) ``depth`` plies; their values go to ``values``.

    A move after the first is searched with a null window first, so its
    value is exact only when it beats the moves before it (else an upper
    bound). Returns ``(index of the best action, its value, actions fully
    searched)``; on abort the count tells how far the search got.
    """
    geo, nb, zs, stats, komi100, qdepth = ctx[0], ctx[1], ctx[3], ctx[11], ctx[12], ctx[13]
    fr = np.zeros((MAX_PLY + 1, _F_COLUMNS), np.int64)
    fh = np.zeros((MAX_PLY + 1, 2), np.uint64)
    q = np.zeros((max(qdepth, 0) + 1, _Q_COLUMNS), np.int64)
    N = geo[G_POINTS]
    h = stone_hash(own, opp, black, zs)
    pending = np.int64(1 if last_pass else 0)  # as the stack holds it: one compiled ``after_move``
    alpha = np.int64(-2 * WIN)
    beta = np.int64(2 * WIN)
    best_i = -1
    for i in range(actions.shape[0]):
        p = actions[i]
        if p == N:
            o2, p2, dead = own, opp, np.int64(0)
        else:
            ok, o2, p2, dead = place(own, opp, p, ko, geo, nb)
            if not ok:
                values[i] = -2 * WIN
                continue
        ended, c_own, c_opp, c_t, c_pass, c_ko = after_move(own, opp, t, pending, p, o2, p2, dead, geo, nb)
        if ended:
            v = final_score(c_opp, c_own, black, komi100)
        else:
            ch = _child_hash(h, p, dead, black, N, zs)
            if best_i < 0:
                v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -beta, -alpha,
                             ctx, fr, fh, q)
            else:
                v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -alpha - 1, -alpha,
                             ctx, fr, fh, q)
                if v > alpha and not stats[S_ABORT]:
                    v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -beta, -alpha,
                                 ctx, fr, fh, q)
            if stats[S_ABORT]:
                return best_i, alpha, i
        values[i] = v
        if v > alpha:
            alpha = v
            best_i = i
    return best_i, alpha, actions.shape[0]
