"""numba kernels of the batched engines: one compiled loop over the games instead of many numpy calls.

The batched engines (``batched_tictactoe``, ``batched_littlego``) run on one of
two backends with exactly the same results:

* ``"numpy"``: whole-array operations (always available);
* ``"numba"``: the loops of this module, compiled by numba (the ``fast`` extra,
  ``pip install 'tictacgo[fast]'``). Each kernel walks the games one by one on
  scalar int64 bitboards; for Little-Go the placement is the rules core's
  ``littlego.place_bits`` line for line (captures only of the opponent groups
  next to the new stone, the own group flooded only without an empty neighbour,
  then suicide, then ko).

Importing this module imports numba (ImportError when it is missing or does
not support the installed numpy). The kernels are compiled on their first call
and cached on disk (``cache=True``): in ``__pycache__`` next to this file, or,
where that folder is not writable (a read-only install), in numba's user cache
(``~/.cache/numba``); the environment variable ``NUMBA_CACHE_DIR`` overrides
both. ``tests/test_batched_engines.py`` and ``tests/test_conformance.py`` run
every check against both backends.

Conventions: a kernel takes the engine's state arrays and updates them in
place; ``play`` kernels first check every game and change nothing when one is
illegal (they return the first illegal game, -1 when none, and the number of
illegal games); with ``autoreset`` they also write each ended game's returns
and start it again (the engines' ``step``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

numba_version = numba.__version__

# End codes and placement outcomes, as in batched_tictactoe / batched_littlego (checked there).
TTT_END_NONE, TTT_END_WIN, TTT_END_DRAW = 0, 1, 2
GO_END_NONE, GO_END_MAX_ACTIONS, GO_END_DOUBLE_PASS, GO_END_PASS_ON_EMPTY_START = 0, 1, 2, 3
LEGAL, OCCUPIED, SUICIDE, KO = 0, 1, 2, 3
TTT_FULL = 0x1FF


@njit(cache=True)
def popcount(x):
    """Set bits of one non-negative int64."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _write_returns(ret, i, w):
    if w == 1:
        ret[i, 0], ret[i, 1] = 1.0, -1.0
    elif w == 2:
        ret[i, 0], ret[i, 1] = -1.0, 1.0
    else:
        ret[i, 0], ret[i, 1] = 0.0, 0.0


# -- Tic-Tac-Toe ---------------------------------------------------------------------
@njit(cache=True)
def ttt_legal_mask(x, o, done, out):
    """Fill ``out`` (B, 9) bool: the empty cells of each live game."""
    for i in range(x.shape[0]):
        occ = x[i] | o[i]
        live = not done[i]
        for c in range(9):
            out[i, c] = live and ((occ >> c) & 1) == 0


@njit(cache=True)
def ttt_play(x, o, to_move, last_action, done, end, winner, actions, where, has_line,
             autoreset, ended, ret):
    """Mark ``actions`` in the live games of ``where``; see the module docstring."""
    B = x.shape[0]
    first, bad = -1, 0
    for i in range(B):
        if where[i] and not done[i] and ((x[i] | o[i]) >> actions[i]) & 1:
            bad += 1
            if first < 0:
                first = i
    if bad:
        return first, bad
    for i in range(B):
        ended[i] = False
        if not where[i] or done[i]:
            continue
        a = actions[i]
        bit = np.int64(1) << a
        mover = to_move[i]
        if mover == 1:
            x[i] |= bit
            mine = x[i]
        else:
            o[i] |= bit
            mine = o[i]
        last_action[i] = a
        to_move[i] = 3 - mover
        if has_line[mine]:
            end[i], winner[i], done[i] = TTT_END_WIN, mover, True
        elif (x[i] | o[i]) == TTT_FULL:
            end[i], winner[i], done[i] = TTT_END_DRAW, 0, True
        if autoreset and done[i]:
            ended[i] = True
            _write_returns(ret, i, winner[i])
            x[i], o[i], to_move[i], last_action[i] = 0, 0, 1, -1
            done[i], end[i], winner[i] = False, TTT_END_NONE, -1
    return -1, 0


# -- Little-Go -----------------------------------------------------------------------
@njit(cache=True)
def nbrs(bits, n, full, left, right):
    """Points orthogonally next to any point of ``bits`` (as ``LittleGo.neighbours``)."""
    return ((bits << 1) & left) | ((bits >> 1) & right) | ((bits << n) & full) | (bits >> n)


@njit(cache=True)
def flood(seed, within, n, full, left, right):
    """The groups of ``within`` that touch ``seed`` (as ``LittleGo.flood``)."""
    group = seed
    while True:
        grown = (group | nbrs(group, n, full, left, right)) & within
        if grown == group:
            return group
        group = grown


@njit(cache=True)
def go_place(own, opp, p, ko_own, ko_opp, nb, n, full, left, right):
    """``littlego.place_bits`` on scalars: ``(code, own2, opp2, dead)``."""
    stone = np.int64(1) << p
    if (own | opp) & stone:
        return OCCUPIED, own, opp, np.int64(0)
    own2 = own | stone
    empty = full & ~(own2 | opp)
    touching = opp & nb[p]
    dead = np.int64(0)
    if touching:
        groups = flood(touching, opp, n, full, left, right)
        breathing = groups & nbrs(empty, n, full, left, right)
        dead = groups & ~flood(breathing, groups, n, full, left, right) if breathing else groups
    if nb[p] & empty:
        return LEGAL, own2, opp & ~dead, dead
    around = nbrs(flood(stone, own2, n, full, left, right), n, full, left, right)
    if around & empty:
        return LEGAL, own2, opp & ~dead, dead
    if not dead or not (around & dead):
        return SUICIDE, own, opp, np.int64(0)
    opp2 = opp & ~dead
    if own2 == ko_own and opp2 == ko_opp:
        return KO, own, opp, np.int64(0)
    return LEGAL, own2, opp2, dead


@njit(cache=True)
def _own_opp_ko(black, white, prev_black, prev_white, to_move, ko_armed, i):
    if to_move[i] == 1:
        own, opp, ko_own, ko_opp = black[i], white[i], prev_black[i], prev_white[i]
    else:
        own, opp, ko_own, ko_opp = white[i], black[i], prev_white[i], prev_black[i]
    if not ko_armed[i]:
        ko_own, ko_opp = np.int64(-1), np.int64(-1)
    return own, opp, ko_own, ko_opp


@njit(cache=True)
def go_legal_mask(black, white, prev_black, prev_white, to_move, ko_armed, done, nb, n, full, left, right,
                  out):
    """Fill ``out`` (B, n*n + 1) bool: the legal actions of each live game (PASS last)."""
    N = n * n
    for i in range(black.shape[0]):
        if done[i]:
            for p in range(N + 1):
                out[i, p] = False
            continue
        own, opp, ko_own, ko_opp = _own_opp_ko(black, white, prev_black, prev_white, to_move, ko_armed, i)
        empty = full & ~(own | opp)
        for p in range(N):
            if not (empty >> p) & 1:
                out[i, p] = False
            elif nb[p] & empty:
                out[i, p] = True
            else:
                out[i, p] = go_place(own, opp, p, ko_own, ko_opp, nb, n, full, left, right)[0] == LEGAL
        out[i, N] = True


@njit(cache=True)
def go_capture_counts(black, white, prev_black, prev_white, to_move, ko_armed, done, nb, n, full, left,
                      right, out):
    """Fill ``out`` (B, n*n) int: stones each placement captures, -1 where illegal or the game is over."""
    for i in range(black.shape[0]):
        own, opp, ko_own, ko_opp = _own_opp_ko(black, white, prev_black, prev_white, to_move, ko_armed, i)
        for p in range(n * n):
            if done[i]:
                out[i, p] = -1
                continue
            code, _, _, dead = go_place(own, opp, p, ko_own, ko_opp, nb, n, full, left, right)
            out[i, p] = popcount(dead) if code == LEGAL else -1


@njit(cache=True)
def go_most_captures(allowed, own, opp, ko_own, ko_opp, nb, n, full, left, right, counts):
    """``greedy.most_captures`` on one game's bits: of the placements ``allowed`` (bits, legal ones),
    those that capture the most stones (bits; ``counts`` (n*n) is scratch for the counts)."""
    best = -1
    for p in range(n * n):
        if (allowed >> p) & 1:
            counts[p] = popcount(go_place(own, opp, p, ko_own, ko_opp, nb, n, full, left, right)[3])
            best = max(best, counts[p])
    for p in range(n * n):
        if (allowed >> p) & 1 and counts[p] != best:
            allowed &= ~(np.int64(1) << p)
    return allowed


@njit(cache=True)
def go_play(black, white, prev_black, prev_white, to_move, t, ko_armed, last_pass, captured, last_action,
            done, end, winner, actions, where, nb, n, full, left, right, pass_action, max_actions, komi,
            autoreset, ended, ret):
    """Play ``actions`` in the live games of ``where``; see the module docstring.

    Returns ``(first illegal game, illegal count, first refusal code)``, ``(-1, 0, 0)`` when all are legal.
    """
    B = black.shape[0]
    own2s = np.empty(B, np.int64)
    opp2s = np.empty(B, np.int64)
    deads = np.empty(B, np.int64)
    first, bad, first_code = -1, 0, 0
    for i in range(B):
        a = actions[i]
        if not where[i] or done[i] or a == pass_action:
            continue
        own, opp, ko_own, ko_opp = _own_opp_ko(black, white, prev_black, prev_white, to_move, ko_armed, i)
        code, own2, opp2, dead = go_place(own, opp, a, ko_own, ko_opp, nb, n, full, left, right)
        own2s[i], opp2s[i], deads[i] = own2, opp2, dead
        if code != LEGAL:
            bad += 1
            if first < 0:
                first, first_code = i, code
    if bad:
        return first, bad, first_code
    for i in range(B):
        ended[i] = False
        if not where[i] or done[i]:
            continue
        a = actions[i]
        prev_black[i], prev_white[i] = black[i], white[i]
        e = GO_END_NONE
        if a == pass_action:
            if t[i] == 0:
                e = GO_END_PASS_ON_EMPTY_START
            elif last_pass[i]:
                e = GO_END_DOUBLE_PASS
            ko_armed[i], captured[i], last_pass[i] = False, 0, True
        else:
            if to_move[i] == 1:
                black[i], white[i] = own2s[i], opp2s[i]
            else:
                white[i], black[i] = own2s[i], opp2s[i]
            ko_armed[i] = deads[i] != 0
            captured[i] = popcount(deads[i])
            last_pass[i] = False
        t[i] += 1
        if t[i] >= max_actions:
            e = GO_END_MAX_ACTIONS
        end[i] = e
        last_action[i] = a
        to_move[i] = 3 - to_move[i]
        if e != GO_END_NONE:
            done[i] = True
            b = float(popcount(black[i]))
            w = popcount(white[i]) + komi
            winner[i] = 1 if b > w else (2 if w > b else 0)
            if autoreset:
                ended[i] = True
                _write_returns(ret, i, winner[i])
                black[i], white[i], prev_black[i], prev_white[i] = 0, 0, 0, 0
                t[i], captured[i], to_move[i] = 0, 0, 1
                ko_armed[i], last_pass[i], last_action[i] = False, False, -1
                done[i], end[i], winner[i] = False, GO_END_NONE, -1
    return -1, 0, 0


@njit(cache=True)
def go_network_planes(rows, legal, black, white, prev_black, prev_white, to_move, t, last_pass, num_points,
                      max_actions, out):
    """The network's planes of the games ``rows`` into ``out`` (``(len(rows), 8, n * n)`` float32):
    ``LittleGo.network_planes_batch``'s eight planes, point by point, from each game's mover's view."""
    limit = np.float32(max_actions)
    for k in range(rows.shape[0]):
        i = rows[k]
        black_moves = to_move[i] == 1
        own, opp = (black[i], white[i]) if black_moves else (white[i], black[i])
        pown, popp = (prev_black[i], prev_white[i]) if black_moves else (prev_white[i], prev_black[i])
        left = (limit - np.float32(t[i])) / limit
        passed = np.float32(1.0) if last_pass[i] else np.float32(0.0)
        mover = np.float32(1.0) if black_moves else np.float32(0.0)
        for p in range(num_points):
            out[k, 0, p] = np.float32((own >> p) & 1)
            out[k, 1, p] = np.float32((opp >> p) & 1)
            out[k, 2, p] = np.float32((pown >> p) & 1)
            out[k, 3, p] = np.float32((popp >> p) & 1)
            out[k, 4, p] = np.float32(1.0) if legal[k, p] else np.float32(0.0)
            out[k, 5, p] = mover
            out[k, 6, p] = left
            out[k, 7, p] = passed
