"""Bit tricks and the board layout that the solver's compiled modules share.

``geo`` is an int64 array of board constants (``G_*`` its fields); a
bitboard is an int64 with bit ``i*n + j`` for point ``(i, j)``.
``popcount`` and ``trailing_zeros`` compile to one machine instruction each;
``stack_int64s`` is scratch space on the stack (no heap allocation, nothing
to free) for the few small arrays a kernel needs at every node; ``prefetch``
asks for an array element's cache line ahead of its use (the search's table
buckets).
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


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to start bringing ``array[index]``'s cache line in (a hint: no effect on any
    value, and no fault for an index out of range). Nothing is returned."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        byte_ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr.type, i32, i32, i32])
        # declare_intrinsic mangles the name for this LLVM's pointers ("p0i8" before opaque pointers)
        fn = builder.module.declare_intrinsic("llvm.prefetch", [byte_ptr.type], fnty)
        # Read (0), keep in all cache levels (locality 3), data (1).
        builder.call(fn, [byte_ptr, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.none(array, index), codegen
