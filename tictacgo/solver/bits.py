"""Bit tricks and the board layout that the solver's compiled modules share.

``geo`` is an int64 array of board constants (``G_*`` its fields); a
bitboard is an int64 with bit ``i*n + j`` for point ``(i, j)``.
``popcount`` and ``trailing_zeros`` compile to one machine instruction each;
``stack_int64s`` is scratch space on the stack (no heap allocation, nothing
to free) for the few small arrays a kernel needs at every node.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
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


@intrinsic
def stack_int64s(typingctx, size):
    """A pointer to ``size`` (a compile-time constant) int64 slots on the calling function's
    stack, indexed like an array (``a[i]``, no bounds check), its contents undefined (as
    ``np.empty``'s). It lives until the function that asks for it returns: never return it."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    count = size.literal_value

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, ir.IntType(64), size=count)

    return types.CPointer(types.int64)(size), codegen

