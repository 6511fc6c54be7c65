"""numba kernels of the seeded random playouts: a whole game played to its end in one compiled call.

These are the compiled twins of ``tictacgo.games.playouts`` (read that
module first: it holds the move choice, the random stream and the pure-Python
twin, and says why the two agree move for move). The Little-Go placement is
``batched_kernels.go_place``, the line-for-line twin of the rules core's
``littlego.place_bits`` that the conformance suite checks; this module adds
whose turn it is, passes, the action limit, the ko memory and the score, as
``littlego_fast.play_out`` (the Python twin) does.

Importing this module imports numba (ImportError when it is missing). The
kernels are compiled on first use and cached on disk (``cache=True``), as the
batched engines' kernels are.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tictacgo.games.batched_kernels import LEGAL, go_place, popcount

# Layout of the ``geo`` array of a Little-Go variant (``playouts.go_tables``).
G_N, G_FULL, G_LEFT, G_RIGHT, G_MAX_ACTIONS = range(5)
NO_KO = -1  # as littlego.NO_KO: never equal to a bitboard

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U30, _U27, _U31, _U32, _U11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32), np.uint64(11)


@njit(cache=True, inline="always")
def _next(s):
    """splitmix64: the next state and its 64-bit output (see ``playouts.splitmix64``)."""
    s = s + _GOLDEN
    z = s
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return s, z ^ (z >> _U31)


@njit(cache=True, inline="always")
def _below(s, k):
    """A draw in ``[0, k)`` (``k < 2**32``) and the next state: the high 32 bits scaled."""
    s, z = _next(s)
    return s, np.int64(((z >> _U32) * np.uint64(k)) >> _U32)


@njit(cache=True, inline="always")
def _uniform(s):
    """A float in ``[0, 1)`` from the top 53 bits, and the next state."""
    s, z = _next(s)
    return s, np.float64(z >> _U11) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _nth_bit(bits, r):
    """The index of the ``r``-th lowest set bit of ``bits`` (``r`` < its popcount)."""
    while r:
        bits &= bits - 1
        r -= 1
    low = bits & -bits
    p = 0
    while low > 1:
        low >>= 1
        p += 1
    return p


@njit(cache=True)
def go_playout(own, opp, mover, t, last_pass, ko_own, ko_opp, seed, pass_prob, geo, nb, komi, script,
               record):
    """Play a Little-Go position to its end; ``(winner, actions played)``.

    Args:
        own, opp: the mover's and the opponent's stones.
        mover: the colour to move (1 Black, 2 White).
        t: actions already played; ``last_pass``: the opponent's last action was a pass.
        ko_own, ko_opp: the board the mover may not recreate (``NO_KO`` if none).
        seed: the random stream's start (a non-negative int64).
        pass_prob: chance of a voluntary pass at each action.
        geo, nb, komi: the variant (``playouts.go_tables``).
        script: actions to play instead of random ones while it lasts (empty:
            none); an illegal one stops the playout with winner -1.
        record: ``(max_actions, 6)`` int64, or empty: row k receives action k
            played, Black's and White's stones after it, the stones it
            captured, and the next mover's ko board.
    Returns:
        The winner (1, 2, 0 for a draw, -1 for an illegal scripted action)
        and the number of actions played.
    """
    n, full, left, right, max_actions = geo[G_N], geo[G_FULL], geo[G_LEFT], geo[G_RIGHT], geo[G_MAX_ACTIONS]
    pass_action = n * n
    s = np.uint64(seed)
    played = 0
    n_script = script.shape[0]
    keep = record.shape[0] > 0
    while True:
        empty = full & ~(own | opp)
        p = pass_action
        own2, opp2, dead = own, opp, np.int64(0)
        if played < n_script:
            p = script[played]
            if p != pass_action:
                code, own2, opp2, dead = go_place(own, opp, p, ko_own, ko_opp, nb, n, full, left, right)
                if code != LEGAL:
                    return -1, played
        else:
            voluntary = False
            if pass_prob > 0.0:
                s, u = _uniform(s)
                voluntary = u < pass_prob
            if not voluntary:
                cand = empty
                while cand:
                    s, r = _below(s, popcount(cand))
                    q = _nth_bit(cand, r)
                    stone = np.int64(1) << q
                    if nb[q] & empty and not nb[q] & opp:
                        # go_place's first exit, inlined for the commonest move: an empty point with
                        # an empty neighbour and no opponent stone next to it (legal, no capture).
                        p, own2 = q, own | stone
                        break
                    code, o2, p2, d = go_place(own, opp, q, ko_own, ko_opp, nb, n, full, left, right)
                    if code == LEGAL:
                        p, own2, opp2, dead = q, o2, p2, d
                        break
                    cand ^= stone
        t += 1
        ended = t >= max_actions
        if p == pass_action:
            ko_own, ko_opp = np.int64(NO_KO), np.int64(NO_KO)
            # A pass after a pass ends the game; so does a pass as the game's first action.
            ended = ended or last_pass or t == 1
            last_pass = True
        else:
            last_pass = False
            if dead:
                # The next mover may not restore the board as it stood before this move.
                ko_own, ko_opp = opp, own
            else:
                ko_own, ko_opp = np.int64(NO_KO), np.int64(NO_KO)
        if keep:
            black, white = (own2, opp2) if mover == 1 else (opp2, own2)
            record[played, 0], record[played, 1], record[played, 2] = p, black, white
            record[played, 3], record[played, 4], record[played, 5] = popcount(dead), ko_own, ko_opp
        played += 1
        own, opp = opp2, own2
        mover = 3 - mover
        if ended:
            break
    black, white = (own, opp) if mover == 1 else (opp, own)
    b = np.float64(popcount(black))
    w = popcount(white) + komi
    return (1 if b > w else (2 if w > b else 0)), played


@njit(cache=True)
def ttt_playout(x, o, mover, seed, has_line, script, record):
    """Play a live Tic-Tac-Toe position to its end; ``(winner, moves played)``.

    Args:
        x, o: the cells of X and O; ``mover``: 1 X, 2 O.
        seed: the random stream's start (a non-negative int64).
        has_line: (512,) bool, whether a set of cells holds three in a row.
        script: moves to play instead of random ones while it lasts (empty:
            none); an occupied cell stops the playout with winner -1.
        record: ``(9, 1)`` int64, or empty: row k receives move k played.
    """
    s = np.uint64(seed)
    played = 0
    while True:
        empty = 0x1FF & ~(x | o)
        if played < script.shape[0]:
            p = script[played]
            if not (empty >> p) & 1:
                return -1, played
        else:
            s, r = _below(s, popcount(empty))
            p = _nth_bit(empty, r)
        if record.shape[0] > 0:
            record[played, 0] = p
        played += 1
        if mover == 1:
            x |= np.int64(1) << p
            if has_line[x]:
                return 1, played
        else:
            o |= np.int64(1) << p
            if has_line[o]:
                return 2, played
        if (x | o) == 0x1FF:
            return 0, played
        mover = 3 - mover
