"""Static bounds on a Little-Go position's final margin: the action cap and unconditional life.

The score is stones on the board and the game ends after a fixed number of
actions, so a position's value is boxed in without search. From the view of
the player to move, with ``R`` actions left, the mover has ``ceil(R/2)`` of
them and the opponent ``floor(R/2)``.

* **Upper bound.** The true value is at most what the mover gets against an
  opponent that passes every time (the opponent has that strategy; choosing it
  can only help the mover). Then the mover's stones are never captured, and it
  ends with at most its stones now plus one a placement. An opponent group is
  captured only when every one of its liberties holds a mover stone: a group
  with more liberties than the mover's placements left keeps its stones, and so
  does a pass-alive group (below), whatever the number of placements. Stones on
  the board are at most ``n*n``.
* **Lower bound.** The same with the roles swapped: the mover passes every time.

The bounds are on the stone difference (the mover's stones minus the
opponent's, komi not counted): ``margin_bounds``. The search cuts a node
whose bound cannot reach its window (``tictacgo.solver.kernels``).

**Unconditional life** (Benson 1976): a chain is pass-alive when it cannot be
captured even if its owner passes every time and the opponent plays as many
moves as it likes; that holds where suicide is illegal (the course's rules: a
placement whose group has no liberty after its captures is refused). The
algorithm keeps a set of chains and of regions (the connected parts of the
points not of the chain's colour): it drops each chain that has fewer than two
vital regions (regions whose every empty point is a liberty of the chain), and
each region that touches a dropped chain, until nothing changes; the chains
left are pass-alive. Regions without an empty point are never counted (they
cannot occur in play; leaving them out only keeps the answer safe).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tictacgo.games.batched_kernels import flood, nbrs
from tictacgo.solver.bits import G_FULL, G_LEFT, G_MAX_ACTIONS, G_N, G_POINTS, G_RIGHT, popcount, stack_int64s

MAX_PARTS = 63  # chains or regions of one colour on a board of at most 7x7 (49 points: at most 25);
# a set of them is the bits of an int64


@njit(cache=True, _nrt=False)
def pass_alive(c, o, geo):
    """The stones of ``c``'s pass-alive chains (Benson's unconditional life), ``o`` the other colour's."""
    n, full, left, right = geo[G_N], geo[G_FULL], geo[G_LEFT], geo[G_RIGHT]
    if c == 0:
        return np.int64(0)
    empty = full & ~(c | o)
    # Scratch on the stack (this runs at a good share of the search's nodes: no heap allocation).
    chains = stack_int64s(MAX_PARTS)
    libs = stack_int64s(MAX_PARTS)
    nc = 0
    rest = c
    while rest:
        g = flood(rest & -rest, c, n, full, left, right)
        rest &= ~g
        chains[nc] = g
        libs[nc] = nbrs(g, n, full, left, right) & empty
        nc += 1
    reg_empty = stack_int64s(MAX_PARTS)
    reg_border = stack_int64s(MAX_PARTS)
    nr = 0
    other = full & ~c
    rest = other
    while rest:
        r = flood(rest & -rest, other, n, full, left, right)
        rest &= ~r
        if r & empty:  # a region of the other colour's stones alone cannot occur in play
            reg_empty[nr] = r & empty
            reg_border[nr] = nbrs(r, n, full, left, right) & c
            nr += 1
    alive = c
    # The chains and regions still in the sets, as bit j for chain (region) j.
    live_chains = (np.int64(1) << nc) - 1
    live_regions = (np.int64(1) << nr) - 1
    changed = True
    while changed:
        changed = False
        for j in range(nc):
            if not live_chains >> j & 1:
                continue
            vital = 0
            for i in range(nr):
                if live_regions >> i & 1 and reg_empty[i] & ~libs[j] == 0:
                    vital += 1
                    if vital == 2:
                        break
            if vital < 2:
                live_chains &= ~(np.int64(1) << j)
                alive &= ~chains[j]
                changed = True
        for i in range(nr):
            if live_regions >> i & 1 and reg_border[i] & ~alive:
                live_regions &= ~(np.int64(1) << i)
                changed = True
    return alive


@njit(cache=True, _nrt=False)
def capturable(stones, other, k, alive, geo):
    """How many of ``stones`` the other side could capture with ``k`` placements while ``stones``' owner
    passes: the stones of groups with at most ``k`` liberties, less those in ``alive``."""
    if k <= 0:
        return np.int64(0)
    n, full, left, right = geo[G_N], geo[G_FULL], geo[G_LEFT], geo[G_RIGHT]
    empty = full & ~(stones | other)
    total = np.int64(0)
    rest = stones & ~alive
    while rest:
        g = flood(rest & -rest, stones, n, full, left, right)
        rest &= ~g
        if popcount(nbrs(g, n, full, left, right) & empty) <= k:
            total += popcount(g)
    return total


@njit(cache=True, _nrt=False)
def upper_bound(own, opp, t, geo, life):
    """An upper bound of the final stone difference (mover's view; see the module docstring)."""
    left = geo[G_MAX_ACTIONS] - t
    placements = (left + 1) >> 1
    alive = pass_alive(opp, own, geo) if life else np.int64(0)
    opp_min = popcount(opp) - capturable(opp, own, placements, alive, geo)
    return min(popcount(own) + placements, geo[G_POINTS] - opp_min) - opp_min


@njit(cache=True, _nrt=False)
def lower_bound(own, opp, t, geo, life):
    """A lower bound of the final stone difference (mover's view; see the module docstring)."""
    left = geo[G_MAX_ACTIONS] - t
    placements = left >> 1
    alive = pass_alive(own, opp, geo) if life else np.int64(0)
    own_min = popcount(own) - capturable(own, opp, placements, alive, geo)
    return own_min - min(popcount(opp) + placements, geo[G_POINTS] - own_min)


@njit(cache=True, _nrt=False)
def margin_bounds(own, opp, t, geo, life):
    """``(lower, upper)`` bounds of the final stone difference from the mover's view."""
    return lower_bound(own, opp, t, geo, life), upper_bound(own, opp, t, geo, life)
