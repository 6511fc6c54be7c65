"""The solver's compiled core: Little-Go rules on int64 bitboards and the depth-first search.

Everything here runs under numba (``@njit(cache=True, _nrt=False)``:
compiled on first use, cached on disk like the batched engines' kernels).
``_nrt=False`` compiles the kernels without numba's reference counting of
arrays: they allocate no array (the little scratch they need is on the stack,
``bits.stack_int64s``), so the counts would only guard arrays the caller
already holds, and keeping them (an atomic increment and decrement for every
array view the search takes: ``frames[ply]``, the table's and the move
lists' tuples) cost about a third of the search's time. A position is a
handful of scalars, from the view of the player to move:

* ``own``, ``opp``: the mover's and the opponent's stones (bit ``i*n + j``);
* ``black``: 1 when the mover is Black (komi counts for White);
* ``t``: actions already played (passes included);
* ``last_pass``: the opponent's last action was a pass (a pass now ends the game);
* ``ko``: the one empty point the ko rule forbids to the mover, -1 if none.

The simple-ko rule of the rules core (a placement may not recreate the board
as it stood before the opponent's last action, when that action captured)
can only refuse a placement that captures exactly one stone on the very point
where the opponent just captured exactly one stone; so the whole ko memory is
that point, worked out once by the rules' own placement primitive
(``batched_kernels.go_place``, the line-for-line twin of
``littlego.place_bits``) when the capture happens. The placement itself
(captures, suicide) is that primitive too (``place``); the search lists a
position's moves with ``placement``, which gives the same from each colour's
groups in atari worked out once for the position (a test checks the two at
every empty point of random positions). What this module adds (turns,
passes, the action limit, the end and the score) is checked against every
recorded host game by the conformance suite.

The search is negamax with alpha-beta over values from the mover's view:
the outcome (+1 win, 0 draw, -1 loss) or, in margin mode, the final stone
difference (the mover's stones minus the opponent's; komi is added by the
caller). A transposition table keyed by a Zobrist hash of the stones, the ko
point, ``t``, ``last_pass`` and the mover, reduced over the 8 symmetries of
the square (the smallest of the 8 keys), stores bounds and the best move.
Moves are tried in the order: the table's move, captures (largest first),
escapes of the mover's groups in atari, then by a history score; PASS last
unless it ends the game (then first: it costs nothing to score). A move whose
position the static bounds settle within the window (``bound_cut``, see
``tictacgo.solver.bounds``) is scored by that bound, without a node.

The search keeps its stack in arrays rather than recursing (``run``), so it
can stop after a number of positions and go on later exactly where it
stopped: the caller looks at the clock between such slices.
"""

from __future__ import annotations

import numpy as np

from tictacgo.validate import MissingExtraError

try:
    from numba import njit

    from tictacgo.games.batched_kernels import KO, LEGAL, flood, go_place, nbrs
    from tictacgo.solver.bits import (  # noqa: F401 (the board layout and bit tricks, re-exported)
        G_FULL,
        G_LEFT,
        G_MAX_ACTIONS,
        G_N,
        G_POINTS,
        G_RIGHT,
        popcount,
        prefetch,
        trailing_zeros,
    )
    from tictacgo.solver.bounds import lower_bound, margin_bounds, pass_alive, upper_bound  # noqa: F401
except ImportError as e:  # numba missing or broken (its llvmlite missing): one line, not numba's traceback
    raise MissingExtraError(f"the solver needs numba: pip install 'tictacgo[fast]' ({e})") from e

# Layout of the ``stats`` array: counters in, results out.
S_NODES, S_PROBES, S_HITS, S_BEST = 0, 1, 2, 3
INF = 100  # beyond any value (values are at most 49 stones in margin mode); fits the table's int8
MODE_OUTCOME, MODE_MARGIN = 0, 1
# Bits of the search's ``opts``: cut nodes by the action-cap bounds; count pass-alive chains in them.
OPT_BOUNDS, OPT_LIFE = 1, 2
EMPTY_KEY = np.uint64(0)  # an unused table slot (a real key of 0 is merely never found)


@njit(cache=True, _nrt=False)
def place(own, opp, p, ko, geo, nb):
    """The mover's placement at ``p``: ``(legal, own2, opp2, dead)``; the ko point is refused."""
    if p == ko:
        return False, own, opp, np.int64(0)
    stone = np.int64(1) << p
    empty = geo[G_FULL] & ~(own | opp)
    if nb[p] & empty and not nb[p] & opp:
        if not stone & empty:
            return False, own, opp, np.int64(0)
        return True, own | stone, opp, np.int64(0)
    code, own2, opp2, dead = go_place(own, opp, p, np.int64(-1), np.int64(-1), nb, geo[G_N], geo[G_FULL],
                                      geo[G_LEFT], geo[G_RIGHT])
    return code == LEGAL, own2, opp2, dead


@njit(cache=True, _nrt=False)
def ko_after(own2, opp2, own_before, opp_before, dead, geo, nb):
    """The point the next mover may not play after a placement that removed ``dead``; -1 if none.

    ``own2``/``opp2`` are the stones after the placement (the placer's, the
    other's); ``own_before``/``opp_before`` before it. The next mover is the
    other player, whose ko board is the board before the placement.
    """
    if dead == 0 or dead & (dead - 1):
        return np.int64(-1)
    q = trailing_zeros(dead)
    code = go_place(opp2, own2, q, opp_before, own_before, nb, geo[G_N], geo[G_FULL], geo[G_LEFT],
                    geo[G_RIGHT])[0]
    return np.int64(q) if code == KO else np.int64(-1)


@njit(cache=True, _nrt=False)
def pass_ends(t, last_pass, max_actions):
    """Whether a pass by the mover ends the game (limit reached, first action, or a second pass)."""
    return t + 1 >= max_actions or t == 0 or last_pass


@njit(cache=True, _nrt=False)
def after_move(own, opp, t, last_pass, p, own2, opp2, dead, geo, nb):
    """The position after the mover's action ``p`` (PASS is ``n*n``), from the next mover's view.

    ``own2``, ``opp2``, ``dead``: the placement's result (``place``); for a
    pass, the unchanged stones and 0. Returns ``(ended, own, opp, t,
    last_pass, ko)`` of the next position (its ``own`` is the next mover's).
    """
    max_actions = geo[G_MAX_ACTIONS]
    if p == geo[G_POINTS]:
        return pass_ends(t, last_pass, max_actions), opp, own, t + 1, True, np.int64(-1)
    return t + 1 >= max_actions, opp2, own2, t + 1, False, ko_after(own2, opp2, own, opp, dead, geo, nb)


@njit(cache=True, _nrt=False)
def final_value(own, opp, black, komi, mode):
    """The value of a finished game from the view of the player whose stones are ``own``."""
    return value_of(popcount(own) - popcount(opp), black, komi, mode)


@njit(cache=True, _nrt=False)
def value_of(d, black, komi, mode):
    """The value of a final stone difference ``d`` (the mover's stones minus the opponent's)."""
    if mode == MODE_MARGIN:
        return np.int64(d)
    score = d - komi if black else d + komi
    return np.int64(1) if score > 0 else (np.int64(-1) if score < 0 else np.int64(0))


@njit(cache=True, _nrt=False)
def bound_cut(own, opp, black, t, alpha, beta, geo, komi, mode, opts):
    """Whether the static bounds settle a position within ``(alpha, beta)`` (``tictacgo.solver.bounds``):
    ``(True, value)`` with a fail-soft value (an upper bound at most alpha or a lower bound at least
    beta), else ``(False, 0)``.

    The bounds without captures come first (a few instructions): captures only
    widen them, so when those cannot reach the window nothing can, and the
    groups are looked at only when they might; life only when liberties alone fall short.
    """
    if not opts & OPT_BOUNDS:
        return False, np.int64(0)
    left = geo[G_MAX_ACTIONS] - t
    points = geo[G_POINTS]
    mine, theirs = popcount(own), popcount(opp)
    if value_of(min(mine + ((left + 1) >> 1), points - theirs) - theirs, black, komi, mode) <= alpha:
        v = value_of(upper_bound(own, opp, t, geo, False), black, komi, mode)
        if v <= alpha:
            return True, v
        if opts & OPT_LIFE:
            v = value_of(upper_bound(own, opp, t, geo, True), black, komi, mode)
            if v <= alpha:
                return True, v
    if value_of(mine - min(theirs + (left >> 1), points - mine), black, komi, mode) >= beta:
        v = value_of(lower_bound(own, opp, t, geo, False), black, komi, mode)
        if v >= beta:
            return True, v
        if opts & OPT_LIFE:
            v = value_of(lower_bound(own, opp, t, geo, True), black, komi, mode)
            if v >= beta:
                return True, v
    return False, np.int64(0)


@njit(cache=True, _nrt=False)
def stone_hashes(black_stones, white_stones, zs, out):
    """Fill ``out`` (8,) with the Zobrist hash of the stones under each symmetry."""
    for s in range(8):
        h = np.uint64(0)
        b = black_stones
        while b:
            p = trailing_zeros(b)
            b &= b - 1
            h ^= zs[s, 0, p]
        w = white_stones
        while w:
            p = trailing_zeros(w)
            w &= w - 1
            h ^= zs[s, 1, p]
        out[s] = h


@njit(cache=True, _nrt=False)
def table_key(hs, ko, t, last_pass, black, zk, zt, zmisc):
    """The position's table key and the symmetry that gives it.

    ``hs``: the stones' hashes under the 8 symmetries (``stone_hashes``). The
    key is the smallest of the 8 keys of the position's images (stones and ko
    point moved together), so the 8 images share one entry.
    """
    best = np.uint64(0xFFFFFFFFFFFFFFFF)
    best_s = 0
    for s in range(8):
        k = hs[s]
        if ko >= 0:
            k ^= zk[s, ko]
        if k < best:
            best = k
            best_s = s
    best ^= zt[t]
    if last_pass:
        best ^= zmisc[0]
    if black:
        best ^= zmisc[1]
    if best == EMPTY_KEY:
        best = np.uint64(1)
    return best, best_s


@njit(cache=True, _nrt=False)
def bucket(key, entries):
    """The first slot of ``key``'s 2-slot bucket in a table of ``entries`` slots: ``key`` modulo the
    number of buckets, times 2 (a mask rather than a division when that number is a power of 2)."""
    buckets = np.uint64(entries >> 1)
    if buckets & (buckets - np.uint64(1)) == 0:
        return np.int64(key & (buckets - np.uint64(1))) * 2
    return np.int64(key % buckets) * 2


@njit(cache=True, _nrt=False)
def store_entry(tkey, tlo, thi, tmove, tdepth, key, lo, hi, move, depth):
    """Store bounds and a move for ``key`` in the table's 2-slot bucket (the move in the key's frame)."""
    i = bucket(key, tkey.shape[0])
    for j in (i, i + 1):
        if tkey[j] == key:
            # Bounds of the true value from two searches: both hold, keep the tighter. The move
            # stays the one proved to reach the lower bound: it changes only with a lower bound
            # at least as high (a fail-low search's best move is a guess).
            if lo > -INF and lo >= tlo[j] or tmove[j] < 0:
                tmove[j] = move
            tlo[j] = max(tlo[j], lo)
            thi[j] = min(thi[j], hi)
            return
    # Slot i keeps the deepest entry (the largest subtree), slot i + 1 the latest.
    j = i if depth >= tdepth[i] else i + 1
    tkey[j], tlo[j], thi[j], tmove[j], tdepth[j] = key, lo, hi, move, depth


@njit(cache=True, _nrt=False)
def prefetch_bucket(hs, ko, t, last_pass, black, zk, zt, zmisc, table):
    """Ask for the cache lines of a position's table bucket (its key, bounds, move and depth)."""
    key = table_key(hs, ko, t, last_pass, black, zk, zt, zmisc)[0]
    tkey, tlo, thi, tmove, tdepth = table
    slot = bucket(key, tkey.shape[0])
    prefetch(tkey, slot)
    prefetch(tlo, slot)
    prefetch(thi, slot)
    prefetch(tmove, slot)
    prefetch(tdepth, slot)


# Fields of one frame of the explicit search stack (``frames[ply, F_*]``).
(F_OWN, F_OPP, F_BLACK, F_T, F_LAST_PASS, F_KO, F_ALPHA, F_BETA, F_ALPHA0, F_BEST, F_BEST_MOVE, F_SYM,
 F_COUNT, F_NEXT, F_MOVE) = range(15)
FRAME_FIELDS = 15
# Phases of the search loop (``control[C_PHASE]``): enter the node at ``ply``, go on with its
# next move, or hand its value (``control[C_VALUE]``) to its parent.
ENTER, NEXT, RETURN = 0, 1, 2
C_PLY, C_PHASE, C_VALUE, C_DONE = 0, 1, 2, 3


@njit(cache=True, _nrt=False)
def groups_in_atari(stones, empty, geo):
    """``(atari, last)``: the stones of ``stones``' groups with one liberty, and those liberties."""
    n, full, left, right = geo[G_N], geo[G_FULL], geo[G_LEFT], geo[G_RIGHT]
    atari = np.int64(0)
    last = np.int64(0)
    rest = stones
    while rest:
        g = flood(rest & -rest, stones, n, full, left, right)
        rest &= ~g
        libs = nbrs(g, n, full, left, right) & empty
        if libs and libs & (libs - 1) == 0:
            atari |= g
            last |= libs
    return atari, last


@njit(cache=True, _nrt=False)
def atari_escapes(own, empty, geo):
    """The last liberties of ``own``'s groups in atari: the points that may save them."""
    return groups_in_atari(own, empty, geo)[1]


@njit(cache=True, _nrt=False)
def placement(own, opp, p, ko, empty, own_atari, opp_atari, opp_last, geo, nb):
    """``place`` at an empty point ``p`` from the groups in atari worked out once for the position
    (``groups_in_atari`` of each colour; ``empty`` the empty points): the same ``(legal, own2,
    opp2, dead)``, with a flood fill only for a capture.

    The placement captures the opponent's groups in atari next to ``p`` (``p`` is their last
    liberty); it is legal unless it is the ko point or leaves its own group without a liberty:
    no empty point next to it, no capture, and every own group next to it in atari.
    """
    if p == ko:
        return False, own, opp, np.int64(0)
    dead = np.int64(0)
    if opp_last >> p & 1:
        dead = flood(nb[p] & opp_atari, opp_atari, geo[G_N], geo[G_FULL], geo[G_LEFT], geo[G_RIGHT])
    if not (nb[p] & empty or dead or nb[p] & own & ~own_atari):
        return False, own, opp, np.int64(0)
    return True, own | (np.int64(1) << p), opp & ~dead, dead


@njit(cache=True, _nrt=False)
def _finish(ply, frames, keys, table, sym, stats, max_actions):
    """Store the node's result in the table; its value."""
    f = frames[ply]
    best = f[F_BEST]
    if best <= f[F_ALPHA0]:
        lo, hi = np.int64(-INF), best
    elif best >= f[F_BETA]:
        lo, hi = best, np.int64(INF)
    else:
        lo, hi = best, best
    move = f[F_BEST_MOVE]
    tkey, tlo, thi, tmove, tdepth = table
    store_entry(tkey, tlo, thi, tmove, tdepth, keys[ply], lo, hi, sym[f[F_SYM], move] if move >= 0 else -1,
                max_actions - f[F_T])
    if ply == 0:
        stats[S_BEST] = move
    return best


@njit(cache=True, _nrt=False)
def _enter(ply, frames, keys, hs, moves, table, hist, geo, nb, zk, zt, zmisc, inv, sym, mode, komi, stats):
    """Open the node at ``ply``: probe the table, list and order its moves.

    Returns ``(finished, value)``: finished when the table or a game-ending
    pass already settles the node.
    """
    f = frames[ply]
    own, opp, black, t, last_pass, ko = f[F_OWN], f[F_OPP], f[F_BLACK], f[F_T], f[F_LAST_PASS], f[F_KO]
    alpha, beta = f[F_ALPHA], f[F_BETA]
    N = geo[G_POINTS]
    max_actions = geo[G_MAX_ACTIONS]
    key, ks = table_key(hs[ply], ko, t, last_pass, black, zk, zt, zmisc)
    keys[ply] = key
    f[F_SYM] = ks
    tkey, tlo, thi, tmove, tdepth = table
    stats[S_PROBES] += 1
    slot = bucket(key, tkey.shape[0])
    # The bucket's bounds, move and depth lie in four other arrays: ask for their cache lines now,
    # so that they arrive with the key's (the bounds and move are read on a hit, the depth when
    # the node's result is stored) rather than one after the other.
    prefetch(tlo, slot)
    prefetch(thi, slot)
    prefetch(tmove, slot)
    prefetch(tdepth, slot)
    tt_move = -1
    for j in (slot, slot + 1):
        if tkey[j] == key:
            stats[S_HITS] += 1
            lo = np.int64(tlo[j])
            hi = np.int64(thi[j])
            if tmove[j] >= 0:
                tt_move = inv[ks, tmove[j]]
            if lo >= beta or hi <= alpha or lo == hi:
                if ply == 0:
                    stats[S_BEST] = tt_move
                return True, (lo if lo >= beta or lo == hi else hi)
            alpha = max(alpha, lo)
            beta = min(beta, hi)
            break
    f[F_ALPHA0] = alpha
    f[F_BETA] = beta
    best = np.int64(-INF)
    best_move = -1
    passing_ends = pass_ends(t, last_pass, max_actions)
    if passing_ends:
        # A pass that ends the game costs nothing to score: the node's first lower bound.
        best = final_value(own, opp, black, komi, mode)
        best_move = N
        alpha = max(alpha, best)
    f[F_BEST], f[F_BEST_MOVE], f[F_ALPHA] = best, best_move, alpha
    if best >= beta:
        return True, _finish(ply, frames, keys, table, sym, stats, max_actions)
    mv, mown, mopp, mdead, msc = moves
    full = geo[G_FULL]
    empty = full & ~(own | opp)
    own_atari, escapes = groups_in_atari(own, empty, geo)
    opp_atari, opp_last = groups_in_atari(opp, empty, geo)
    cnt = 0
    e = empty
    while e:
        p = trailing_zeros(e)
        e &= e - 1
        ok, o2, p2, dead = placement(own, opp, p, ko, empty, own_atari, opp_atari, opp_last, geo, nb)
        if not ok:
            continue
        sc = hist[black, p]
        if p == tt_move:
            sc = np.int64(1) << 60
        elif dead:
            sc += (np.int64(1) << 50) + (popcount(dead) << 40)
        elif escapes >> p & 1:
            sc += np.int64(1) << 45
        mv[ply, cnt], mown[ply, cnt], mopp[ply, cnt], mdead[ply, cnt], msc[ply, cnt] = p, o2, p2, dead, sc
        cnt += 1
    if not passing_ends:
        mv[ply, cnt], mown[ply, cnt], mopp[ply, cnt], mdead[ply, cnt] = N, own, opp, 0
        msc[ply, cnt] = np.int64(1) << 60 if tt_move == N else -1
        cnt += 1
    f[F_COUNT] = cnt
    f[F_NEXT] = 0
    return False, np.int64(0)


@njit(cache=True, _nrt=False)
def _child_value(ply, v, frames, hist, geo):
    """Take a move's value (the mover's view) into the node; True when it cuts the node off."""
    f = frames[ply]
    if v > f[F_BEST]:
        f[F_BEST] = v
        f[F_BEST_MOVE] = f[F_MOVE]
        if v > f[F_ALPHA]:
            f[F_ALPHA] = v
            if v >= f[F_BETA]:
                depth = geo[G_MAX_ACTIONS] - f[F_T]
                hist[f[F_BLACK], f[F_MOVE]] += depth * depth
                return True
    return False


@njit(cache=True, _nrt=False)
def child_hashes(hs, ply, p, dead, black, N, zs):
    """The 8 symmetries' stone hashes after the move ``p`` (capturing ``dead``) into ``hs[ply + 1]``."""
    colour = 0 if black else 1
    for s in range(8):
        h = hs[ply, s]
        if p != N:
            h ^= zs[s, colour, p]
            d = dead
            while d:
                q = trailing_zeros(d)
                d &= d - 1
                h ^= zs[s, 1 - colour, q]
        hs[ply + 1, s] = h


@njit(cache=True, _nrt=False)
def run(control, frames, keys, hs, moves, table, hist, geo, nb, zs, zk, zt, zmisc, inv, sym, mode, komi,
        stats, node_stop, opts):
    """Run the search on the explicit stack until it ends or has visited ``node_stop`` nodes.

    The stack (``frames``, ``keys``, ``hs``, ``moves``) and ``control`` hold
    everything, so a paused search goes on exactly where it stopped when
    called again. Before the first call, frame 0 holds the root (own, opp,
    black, t, last_pass, ko, alpha, beta), ``hs[0]`` its stone hashes and
    ``control`` is zero. ``opts``: ``OPT_*`` bits (static bounds, life in
    them): a move whose position the bounds settle is not searched. Returns True once the root's value is in
    ``control[C_VALUE]`` (and its best move in ``stats[S_BEST]``).
    """
    mv, mown, mopp, mdead, msc = moves
    N = geo[G_POINTS]
    max_actions = geo[G_MAX_ACTIONS]
    ply, phase, value = control[C_PLY], control[C_PHASE], control[C_VALUE]
    while True:
        if phase == ENTER:
            if stats[S_NODES] >= node_stop:
                control[C_PLY], control[C_PHASE], control[C_VALUE] = ply, phase, value
                return False
            stats[S_NODES] += 1
            finished, value = _enter(ply, frames, keys, hs, moves, table, hist, geo, nb, zk, zt, zmisc, inv,
                                     sym, mode, komi, stats)
            phase = RETURN if finished else NEXT
        elif phase == RETURN:
            if ply == 0:
                control[C_PLY], control[C_PHASE], control[C_VALUE], control[C_DONE] = 0, RETURN, value, 1
                return True
            ply -= 1
            if _child_value(ply, -value, frames, hist, geo):
                value = _finish(ply, frames, keys, table, sym, stats, max_actions)
            else:
                phase = NEXT
        else:  # NEXT: try the node's next move
            f = frames[ply]
            k = f[F_NEXT]
            cnt = f[F_COUNT]
            if k >= cnt:
                value = _finish(ply, frames, keys, table, sym, stats, max_actions)
                phase = RETURN
                continue
            # Selection sort, one step at a time: a cut-off usually comes early.
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
            f[F_NEXT] = k + 1
            p, o2, p2, dead = mv[ply, k], mown[ply, k], mopp[ply, k], mdead[ply, k]
            f[F_MOVE] = p
            own, opp, black, t = f[F_OWN], f[F_OPP], f[F_BLACK], f[F_T]
            ended, c_own, c_opp, c_t, c_pass, c_ko = after_move(own, opp, t, f[F_LAST_PASS], p, o2, p2, dead,
                                                                geo, nb)
            if ended:
                # The game's last action: score it here, no node needed.
                if _child_value(ply, final_value(c_opp, c_own, black, komi, mode), frames, hist, geo):
                    value = _finish(ply, frames, keys, table, sym, stats, max_actions)
                    phase = RETURN
                continue
            # The child's hashes and bucket now, its table lines asked for while the bounds are
            # worked out (the probe in ``_enter`` would otherwise wait for them).
            child_hashes(hs, ply, p, dead, black, N, zs)
            prefetch_bucket(hs[ply + 1], c_ko, c_t, c_pass, 1 - black, zk, zt, zmisc, table)
            cut, v = bound_cut(c_own, c_opp, 1 - black, c_t, -f[F_BETA], -f[F_ALPHA], geo, komi, mode, opts)
            if cut:
                # The bounds settle the position after the move: no node needed either.
                if _child_value(ply, -v, frames, hist, geo):
                    value = _finish(ply, frames, keys, table, sym, stats, max_actions)
                    phase = RETURN
                continue
            c = frames[ply + 1]
            c[F_OWN], c[F_OPP], c[F_BLACK], c[F_T] = c_own, c_opp, 1 - black, c_t
            c[F_LAST_PASS], c[F_KO] = c_pass, c_ko
            c[F_ALPHA], c[F_BETA] = -f[F_BETA], -f[F_ALPHA]
            ply += 1
            phase = ENTER
