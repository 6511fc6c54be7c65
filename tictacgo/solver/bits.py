"""Bit tricks and the board layout that the solver's compiled modules share.

``geo`` is an int64 array of board constants (``G_*`` its fields); a
bitboard is an int64 with bit ``i*n + j`` for point ``(i, j)``.
``popcount`` and ``trailing_zeros`` compile to one machine instruction each.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

# Layout of the ``geo`` array: board constants.
G_N, G_POINTS, G_FULL, G_LEFT, G_RIGHT, G_MAX_ACTIONS = 0, 1, 2, 3, 4, 5


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer (one machine instruction)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def trailing_zeros(typingctx, x):
    """The index of the lowest set bit of a non-zero integer (one machine instruction)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen
