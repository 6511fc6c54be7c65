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
  liberties, eyes (points only their owner can fill), and room: the
  placements each side still has safe points for before the action limit.
* A finished game scores ``WIN`` plus the final margin, so any proved win
  beats any evaluation.

The search stops (``stats[S_ABORT]``) once it has seen ``stats[S_STOP]``
positions, or once the monotonic clock (``now_us``, the clock of Python's
``time.monotonic`` in microseconds) passes ``stats[S_CLOCK_STOP]``.
"""

from __future__ import annotations

import ctypes

import numpy as np
from numba import njit

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
# Evaluation weights (hundredths of a stone), the layout of the ``weights`` array.
W_ATARI_OWN, W_ATARI_OPP, W_TWO_LIBS, W_LIBS, W_EYE, W_TEMPO, W_ROOM = range(7)
DEFAULT_WEIGHTS = (80, 80, 15, 10, 0, 0, 100)
# Layout of the ``stats`` array (``S_TIMESPEC``: two slots the clock writes into).
S_NODES, S_STOP, S_ABORT, S_CLOCK_STOP, S_TIMESPEC = range(5)
STATS_SIZE = 6
NO_CLOCK = np.iinfo(np.int64).max  # ``S_CLOCK_STOP`` of a search without a deadline
_CLOCK_EVERY = 63  # look at the clock once in this many positions (plus one)

_clock_gettime = ctypes.CDLL(None).clock_gettime  # POSIX; called from compiled code too
_clock_gettime.restype = ctypes.c_int
_clock_gettime.argtypes = [ctypes.c_int, ctypes.c_void_p]
_CLOCK_MONOTONIC = 1


@njit
def now_us(stats):
    """The monotonic clock in microseconds (written through ``stats[S_TIMESPEC:]``)."""
    _clock_gettime(_CLOCK_MONOTONIC, stats.ctypes.data + S_TIMESPEC * 8)
    return stats[S_TIMESPEC] * 1_000_000 + stats[S_TIMESPEC + 1] // 1000
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


@njit  # recursive: numba's disk cache of a recursive function crashes on load
def qsearch(own, opp, black, t, last_pass, ko, alpha, beta, qdepth, komi100, geo, nb, w, stats):
    """Quiescence: the evaluation, or better through captures and escapes from atari."""
    stats[S_NODES] += 1
    stand = evaluate(own, opp, black, t, komi100, geo, w)
    if stand >= beta or qdepth <= 0:
        return stand
    best = stand
    if stand > alpha:
        alpha = stand
    n, full, left, right = geo[G_N], geo[G_FULL], geo[G_LEFT], geo[G_RIGHT]
    empty = full & ~(own | opp)
    targets = np.int64(0)  # the last liberties of every group in atari, either colour's
    for side in (own, opp):
        rest = side
        while rest:
            g = flood(rest & -rest, side, n, full, left, right)
            rest &= ~g
            libs = nbrs(g, n, full, left, right) & empty
            if libs & (libs - 1) == 0:
                targets |= libs
    while targets:
        p = trailing_zeros(targets)
        targets &= targets - 1
        ok, o2, p2, dead = place(own, opp, p, ko, geo, nb)
        if not ok:
            continue
        if not dead:
            g = flood(np.int64(1) << p, o2, n, full, left, right)
            libs = nbrs(g, n, full, left, right) & (full & ~(o2 | p2))
            if libs & (libs - 1) == 0:
                continue  # an escape that stays in atari, or a move into atari: not quiet-breaking
        ended, c_own, c_opp, c_t, c_pass, c_ko = after_move(own, opp, t, last_pass, p, o2, p2, dead, geo, nb)
        if ended:
            v = final_score(c_opp, c_own, black, komi100)
        else:
            v = -qsearch(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, -beta, -alpha, qdepth - 1, komi100, geo,
                         nb, w, stats)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return best


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


@njit  # recursive: numba's disk cache of a recursive function crashes on load
def negamax(own, opp, black, t, last_pass, ko, h, depth, alpha, beta, ply, ctx):
    """The position's value for the mover, searched ``depth`` plies (see ``make_context``)."""
    geo, nb, w, zs, zk, zt, zpass, tt, killers, hist, moves, stats, komi100, qdepth = ctx
    if depth <= 0 or ply >= MAX_PLY - qdepth - 1:
        return qsearch(own, opp, black, t, last_pass, ko, alpha, beta, qdepth, komi100, geo, nb, w, stats)
    if stats[S_NODES] >= stats[S_STOP] or (
            stats[S_NODES] & _CLOCK_EVERY == 0 and now_us(stats) >= stats[S_CLOCK_STOP]):
        stats[S_ABORT] = 1
        return np.int64(0)
    stats[S_NODES] += 1
    tkey, tval, tdepth, tflag, tmove = tt
    key = _key(h, ko, t, last_pass, zk, zt, zpass)
    slot = np.int64(key & np.uint64(tkey.shape[0] - 1))
    tt_move = -1
    if tkey[slot] == key:
        tt_move = tmove[slot]
        if tdepth[slot] >= depth:
            v = np.int64(tval[slot])
            f = tflag[slot]
            if f == EXACT or (f == LOWER and v >= beta) or (f == UPPER and v <= alpha):
                return v
    N = geo[G_POINTS]
    alpha0 = alpha
    best = np.int64(-2 * WIN)
    best_move = -1
    passing_ends = pass_ends(t, last_pass, geo[G_MAX_ACTIONS])
    if passing_ends:
        best = final_score(own, opp, black, komi100)  # a pass that ends the game: scored at once
        best_move = N
        if best > alpha:
            alpha = best
        if best >= beta:
            return best
    mv, mown, mopp, mdead, msc = moves
    cnt = _gen_moves(own, opp, black, ko, ply, tt_move, passing_ends, geo, nb, killers, hist, mv, mown, mopp,
                     mdead, msc)
    for k in range(cnt):
        bi = k
        for m in range(k + 1, cnt):
            if msc[ply, m] > msc[ply, bi]:
                bi = m
        if bi != k:
            mv[ply, k], mv[ply, bi] = mv[ply, bi], mv[ply, k]
            mown[ply, k], mown[ply, bi] = mown[ply, bi], mown[ply, k]
            mopp[ply, k], mopp[ply, bi] = mopp[ply, bi], mopp[ply, k]
            mdead[ply, k], mdead[ply, bi] = mdead[ply, bi], mdead[ply, k]
            msc[ply, k], msc[ply, bi] = msc[ply, bi], msc[ply, k]
        p, o2, p2, dead = mv[ply, k], mown[ply, k], mopp[ply, k], mdead[ply, k]
        ended, c_own, c_opp, c_t, c_pass, c_ko = after_move(own, opp, t, last_pass, p, o2, p2, dead, geo, nb)
        if ended:
            v = final_score(c_opp, c_own, black, komi100)
        else:
            ch = _child_hash(h, p, dead, black, N, zs)
            if k == 0 or best_move < 0:
                v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -beta, -alpha,
                             ply + 1, ctx)
            else:
                v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -alpha - 1, -alpha,
                             ply + 1, ctx)
                if alpha < v < beta and not stats[S_ABORT]:
                    v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -beta, -alpha,
                                 ply + 1, ctx)
            if stats[S_ABORT]:
                return np.int64(0)
        if v > best:
            best = v
            best_move = p
            if v > alpha:
                alpha = v
                if v >= beta:
                    if not mdead[ply, k] and p != N and killers[ply, 0] != p:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = p
                    hist[black, p] += depth * depth
                    break
    flag = UPPER if best <= alpha0 else (LOWER if best >= beta else EXACT)
    # Always replace: the key holds ``t``, so older moves' entries are never asked for again.
    tkey[slot], tval[slot], tdepth[slot], tflag[slot], tmove[slot] = key, best, depth, flag, best_move
    return best


@njit  # recursive: numba's disk cache of a recursive function crashes on load
def search_root(own, opp, black, t, last_pass, ko, actions, depth, ctx, values):
    """Search each of ``actions`` (in that order) ``depth`` plies; their values go to ``values``.

    A move after the first is searched with a null window first, so its
    value is exact only when it beats the moves before it (else an upper
    bound). Returns ``(index of the best action, its value, actions fully
    searched)``; on abort the count tells how far the search got.
    """
    geo, nb, zs, stats, komi100 = ctx[0], ctx[1], ctx[3], ctx[11], ctx[12]
    N = geo[G_POINTS]
    h = stone_hash(own, opp, black, zs)
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
        ended, c_own, c_opp, c_t, c_pass, c_ko = after_move(own, opp, t, last_pass, p, o2, p2, dead, geo, nb)
        if ended:
            v = final_score(c_opp, c_own, black, komi100)
        else:
            ch = _child_hash(h, p, dead, black, N, zs)
            if best_i < 0:
                v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -beta, -alpha,
                             1, ctx)
            else:
                v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -alpha - 1, -alpha,
                             1, ctx)
                if v > alpha and not stats[S_ABORT]:
                    v = -negamax(c_own, c_opp, 1 - black, c_t, c_pass, c_ko, ch, depth - 1, -beta, -alpha,
                                 1, ctx)
            if stats[S_ABORT]:
                return best_i, alpha, i
        values[i] = v
        if v > alpha:
            alpha = v
            best_i = i
    return best_i, alpha, actions.shape[0]
