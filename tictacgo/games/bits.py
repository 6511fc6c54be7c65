"""Bitboard helpers shared by the rules cores and the envs."""

from __future__ import annotations

import numpy as np


def unpack_bits(bits: int, count: int) -> np.ndarray:
    """The low ``count`` bits of a Python int as a uint8 array (bit 0 first).

    Args:
        bits: a non-negative int (a bitboard or a legal-action mask).
        count: how many bits to unpack.
    Returns:
        uint8 array of shape ``(count,)`` holding 0 and 1.
    """
    raw = bits.to_bytes((count + 7) // 8, "little")
    return np.unpackbits(np.frombuffer(raw, dtype=np.uint8), count=count, bitorder="little")
