"""A 5x7 bitmap font for the coordinates in pictures, drawn with numpy alone (no font files, no pygame).

It holds the glyphs a board's coordinates need: the digits and the Go
column letters (A to T without I, as GTP and SGF viewers write them).
``text_mask(text, scale)`` gives a boolean mask to paint onto a picture.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

GLYPH_WIDTH = 5
GLYPH_HEIGHT = 7

_GLYPHS = {
    "0": ("01110", "10001", "10011", "10101", "11001", "10001", "01110"),
    "1": ("00100", "01100", "00100", "00100", "00100", "00100", "01110"),
    "2": ("01110", "10001", "00001", "00010", "00100", "01000", "11111"),
    "3": ("11111", "00010", "00100", "00010", "00001", "10001", "01110"),
    "4": ("00010", "00110", "01010", "10010", "11111", "00010", "00010"),
    "5": ("11111", "10000", "11110", "00001", "00001", "10001", "01110"),
    "6": ("00110", "01000", "10000", "11110", "10001", "10001", "01110"),
    "7": ("11111", "00001", "00010", "00100", "01000", "01000", "01000"),
    "8": ("01110", "10001", "10001", "01110", "10001", "10001", "01110"),
    "9": ("01110", "10001", "10001", "01111", "00001", "00010", "01100"),
    "A": ("01110", "10001", "10001", "11111", "10001", "10001", "10001"),
    "B": ("11110", "10001", "10001", "11110", "10001", "10001", "11110"),
    "C": ("01110", "10001", "10000", "10000", "10000", "10001", "01110"),
    "D": ("11100", "10010", "10001", "10001", "10001", "10010", "11100"),
    "E": ("11111", "10000", "10000", "11110", "10000", "10000", "11111"),
    "F": ("11111", "10000", "10000", "11110", "10000", "10000", "10000"),
    "G": ("01110", "10001", "10000", "10111", "10001", "10001", "01111"),
    "H": ("10001", "10001", "10001", "11111", "10001", "10001", "10001"),
    "J": ("00111", "00010", "00010", "00010", "00010", "10010", "01100"),
    "K": ("10001", "10010", "10100", "11000", "10100", "10010", "10001"),
    "L": ("10000", "10000", "10000", "10000", "10000", "10000", "11111"),
    "M": ("10001", "11011", "10101", "10101", "10001", "10001", "10001"),
    "N": ("10001", "10001", "11001", "10101", "10011", "10001", "10001"),
    "O": ("01110", "10001", "10001", "10001", "10001", "10001", "01110"),
    "P": ("11110", "10001", "10001", "11110", "10000", "10000", "10000"),
    "Q": ("01110", "10001", "10001", "10001", "10101", "10010", "01101"),
    "R": ("11110", "10001", "10001", "11110", "10100", "10010", "10001"),
    "S": ("01111", "10000", "10000", "01110", "00001", "00001", "11110"),
    "T": ("11111", "00100", "00100", "00100", "00100", "00100", "00100"),
}


@lru_cache(maxsize=256)
def text_mask(text: str, scale: int = 1) -> np.ndarray:
    """The pixels of ``text`` in this font: a bool array ``(7 * scale, (6 * len - 1) * scale)``.

    Args:
        text: digits and the letters A to T except I.
        scale: pixels per font pixel.

    Raises:
        ValueError: a character the font does not have.
    """
    missing = sorted(set(text) - set(_GLYPHS))
    if missing:
        raise ValueError(f"the coordinate font has no glyph for {''.join(missing)!r}")
    columns = []
    for k, ch in enumerate(text):
        if k:
            columns.append(np.zeros((GLYPH_HEIGHT, 1), bool))
        columns.append(np.array([[c == "1" for c in row] for row in _GLYPHS[ch]], bool))
    mask = np.hstack(columns) if columns else np.zeros((GLYPH_HEIGHT, 0), bool)
    return np.kron(mask, np.ones((scale, scale), bool)).astype(bool)


def draw_text(img: np.ndarray, text: str, cx: float, cy: float, scale: int,
              colour: tuple[int, int, int]) -> None:
    """Paint ``text`` centred on pixel ``(cy, cx)`` of float image ``img`` (clipped at its edges)."""
    mask = text_mask(text, scale)
    h, w = mask.shape
    y0, x0 = int(round(cy - h / 2)), int(round(cx - w / 2))
    ys, xs = max(0, y0), max(0, x0)
    ye, xe = min(img.shape[0], y0 + h), min(img.shape[1], x0 + w)
    if ye <= ys or xe <= xs:
        return
    sub = mask[ys - y0:ye - y0, xs - x0:xe - x0]
    img[ys:ye, xs:xe][sub] = colour
