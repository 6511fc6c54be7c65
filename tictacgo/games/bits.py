"""Bitboard helpers shared by the rules cores and the envs: the one bit-unpacking path.

The rules keep boards and legal-action sets as Python ints (bit ``p`` is
point ``p``). The envs need them as numpy arrays, at every step, so the
conversion is on the hot path. It "spreads" the bits of the int to one byte
each (a 256-entry table, eight bits at a time) and reads the bytes with
``np.frombuffer``: about twice as fast as ``np.unpackbits`` on these small
boards, and a signed board (+1 / -1) costs a single conversion.
"""

from __future__ import annotations

import numpy as np

# Byte b -> the int whose byte k is bit k of b.
_SPREAD8 = tuple(sum(1 << (8 * k) for k in range(8) if b >> k & 1) for b in range(256))


def spread_bits(bits: int) -> int:
    """The int whose byte ``p`` (little-endian) is bit ``p`` of ``bits`` (0 or 1)."""
    out = 0
    shift = 0
    while bits:
        out |= _SPREAD8[bits & 255] << shift
        bits >>= 8
        shift += 64
    return out


def unpack_bits(bits: int, count: int) -> np.ndarray:
    """The low ``count`` bits of a Python int as a uint8 array (bit 0 first).

    Args:
        bits: a non-negative int below ``2**count`` (a bitboard or a legal-action mask).
        count: how many bits to unpack.
    Returns:
        A fresh, writable uint8 array of shape ``(count,)`` holding 0 and 1.
    """
    return np.frombuffer(bytearray(spread_bits(bits).to_bytes(count, "little")), dtype=np.uint8)


def signed_board(own: int, opp: int, count: int) -> np.ndarray:
    """An int8 array of ``count`` points: +1 where ``own`` has a bit, -1 where ``opp`` has, else 0.

    ``own`` and ``opp`` must be disjoint (they are two players' stones).
    Returns a fresh, writable array.
    """
    # One byte a point: 1 own, 0xFF (-1 as int8) the opponent's.
    raw = (spread_bits(own) + 255 * spread_bits(opp)).to_bytes(count, "little")
    return np.frombuffer(bytearray(raw), dtype=np.int8)


def signed_board_and_flags(own: int, opp: int, count: int, flags: int, flag_count: int) -> np.ndarray:
    """``signed_board(own, opp, count)`` followed by ``unpack_bits(flags, flag_count)``, as one
    fresh int8 array of ``count + flag_count``: a board and its legal-action mask in one conversion.
    """
    raw = spread_bits(own) + 255 * spread_bits(opp) + (spread_bits(flags) << (8 * count))
    return np.frombuffer(bytearray(raw.to_bytes(count + flag_count, "little")), dtype=np.int8)
