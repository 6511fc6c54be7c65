"""Exact codes of Little-Go positions, the same for the 8 symmetric images of a position.

A certificate or a book names a position by its *code*: everything the
rest of the game depends on, read from the rules core
(``tictacgo.games.littlego``) alone, so that the checker needs nothing
else:

* Black's and White's stones (bitboards, bit ``i*n + j`` is point ``(i, j)``);
* the point the ko rule forbids to the mover (``ko_bits``), or none;
* the actions played (``t``), whether the last one was a pass, the mover.

The legal moves and every later position follow from these (the previous
board matters only through the ko point and the pending pass), so two
positions with one code have one value. A code is exact, not a hash: two
different positions never share one.

The 8 symmetries of the square board (rotations and reflections) map a
position to positions of the same value, since the rules treat every
direction alike. ``canonical`` returns the smallest code of the 8 images
and the symmetry that gives it; a stored move is kept in the frame of the
smallest image and mapped back with ``from_canonical``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from tictacgo.games import littlego
from tictacgo.games.symmetry import board_symmetries, inverse

#: Largest board a code holds: the stones of 7x7 fit 64-bit columns.
MAX_SIZE = 7


#: Bits a look-up table of ``Symmetries.chunks`` maps at once (a 5x5 board is two look-ups).
CHUNK_BITS = 13


@dataclass(frozen=True, eq=False)
class Symmetries:
    """The 8 symmetries of an ``n x n`` board as point maps and look-up tables.

    ``points[s][p]`` is the image of point ``p`` under symmetry ``s`` (PASS,
    ``n*n``, maps to itself; symmetry 0 is the identity); ``inverse[s]`` undoes
    it. ``chunks[s][k][r]`` is the image of the stones ``r`` of bits
    ``k*CHUNK_BITS`` and up (``CHUNK_BITS`` of them) as a bitboard, so that a
    board maps with one look-up per chunk.
    """

    n: int
    points: tuple[tuple[int, ...], ...]
    inverse: tuple[tuple[int, ...], ...]
    chunks: tuple[tuple[tuple[int, ...], ...], ...]


@cache
def symmetries(n: int) -> Symmetries:
    """The (cached) symmetries of the ``n x n`` board: the rules core's (``games.symmetry``), in its order."""
    maps = board_symmetries(n, n, n * n + 1)
    points = tuple(tuple(int(q) for q in row) for row in maps)
    back = tuple(tuple(int(p) for p in row) for row in inverse(maps))
    return Symmetries(n, points, back, tuple(_chunk_images(image, n * n) for image in points))


def _chunk_images(image: tuple[int, ...], points: int) -> tuple[tuple[int, ...], ...]:
    """``[k][r]``: the bitboard image, under the point map ``image``, of the stones ``r`` on points
    ``k*CHUNK_BITS`` to ``(k+1)*CHUNK_BITS - 1``."""
    out = []
    for first in range(0, points, CHUNK_BITS):
        width = min(CHUNK_BITS, points - first)
        table = [0] * (1 << width)
        for r in range(1, 1 << width):
            low = r & -r  # the image of r is the image of its lowest stone and of the rest
            table[r] = table[r ^ low] | 1 << image[first + low.bit_length() - 1]
        out.append(tuple(table))
    return tuple(out)


def map_bits(sym: Symmetries, s: int, bits: int) -> int:
    """The image of a bitboard under symmetry ``s``."""
    out, shift = 0, 0
    for table in sym.chunks[s]:
        out |= table[(bits >> shift) & ((1 << CHUNK_BITS) - 1)]
        shift += CHUNK_BITS
    return out


class Code(NamedTuple):
    """A position's exact code (see the module docstring); tuples order, so the smallest image is defined."""

    black: int
    white: int
    ko: int          # the point the ko rule forbids to the mover, -1 for none
    t: int           # actions played
    last_pass: bool  # the last action was a pass
    to_move: int     # 1 Black, 2 White


def code_of(state: littlego.GoState) -> Code:
    """The code of a live state, read through the rules core.

    Raises:
        ValueError: the game is over, or more than one point is forbidden by ko
            (no legal game reaches that: simple ko forbids one single-stone recapture).
    """
    return Code(state.black, state.white, ko_point(state), state.t, bool(state.last_pass), state.to_move)


def ko_point(state: littlego.GoState) -> int:
    """The point the ko rule forbids to the mover of a live state, or -1 (see ``code_of``)."""
    if state.end is not None:
        raise ValueError(f"a finished game ({state.end}) has no position code")
    ko_points = littlego.ko_bits(state)
    if ko_points & (ko_points - 1):
        raise ValueError(f"the ko rule forbids more than one point here ({ko_points:b}); no legal game "
                         "reaches such a position")
    return ko_points.bit_length() - 1


def canonical(state: littlego.GoState) -> tuple[Code, int]:
    """(the smallest code of the state's 8 images, the first symmetry that gives it)."""
    code = code_of(state)
    sym = symmetries(state.game.size)
    best, best_s = code, 0
    for s in range(1, 8):
        black = map_bits(sym, s, code.black)
        if black > best.black:
            continue  # cannot be smaller: skip mapping the rest
        other = Code(black, map_bits(sym, s, code.white), -1 if code.ko < 0 else sym.points[s][code.ko],
                     code.t, code.last_pass, code.to_move)
        if other < best:
            best, best_s = other, s
    return best, best_s


@dataclass(frozen=True)
class KeyLayout:
    """How a code packs into one int, its *key* (``key_layout``): from the top, Black's stones, White's
    stones, the ko point + 1, the actions played, the pending pass and the mover, each in a field of
    fixed width. Keys order as codes do (fields from the most significant, in ``Code``'s order for
    the images of one position), and a dict of ints takes far less memory than one of ``Code``s."""

    points: int   # n*n: the width of each colour's field
    ko_bits: int  # width of the ko point + 1 (0 for none)
    t_bits: int   # width of the actions played

    @property
    def bits(self) -> int:
        return 2 * self.points + self.ko_bits + self.t_bits + 2


@cache
def key_layout(n: int, max_actions: int) -> KeyLayout:
    """The key layout of the ``n x n`` board with an action limit."""
    return KeyLayout(n * n, (n * n + 1).bit_length(), max(max_actions, 1).bit_length())


def pack_key(layout: KeyLayout, black: int, white: int, ko: int, t: int, last_pass: bool,
             to_move: int) -> int:
    """A code's fields as its key."""
    return ((((black << layout.points | white) << layout.ko_bits | (ko + 1)) << layout.t_bits | t) << 2
            | int(last_pass) << 1 | (to_move - 1))


def code_of_key(layout: KeyLayout, key: int) -> Code:
    """The code a key packs (``pack_key``'s inverse)."""
    to_move, last_pass = 1 + (key & 1), bool(key >> 1 & 1)
    key >>= 2
    t = key & ((1 << layout.t_bits) - 1)
    key >>= layout.t_bits
    ko = (key & ((1 << layout.ko_bits) - 1)) - 1
    key >>= layout.ko_bits
    mask = (1 << layout.points) - 1
    return Code(key >> layout.points, key & mask, ko, t, last_pass, to_move)


def canonical_key(state: littlego.GoState) -> tuple[int, int]:
    """``canonical`` as a key: (the key of the smallest of the 8 images' codes, the first symmetry
    that gives it), without building a ``Code`` for each image.

    Raises:
        ValueError: as ``code_of``.
    """
    ko = ko_point(state)
    game = state.game
    sym = symmetries(game.size)
    black, white = state.black, state.white
    best_b, best_w, best_k, best_s = black, white, ko, 0
    for s in range(1, 8):
        b = map_bits(sym, s, black)
        if b > best_b:
            continue  # cannot be smaller: skip mapping the rest
        w = map_bits(sym, s, white)
        k = sym.points[s][ko] if ko >= 0 else -1
        if b < best_b or w < best_w or (w == best_w and k < best_k):
            best_b, best_w, best_k, best_s = b, w, k, s
    layout = key_layout(game.size, game.max_actions)
    return pack_key(layout, best_b, best_w, best_k, state.t, bool(state.last_pass), state.to_move), best_s


def to_canonical(action: int, s: int, n: int) -> int:
    """An action of the state mapped into the frame of its canonical image (symmetry ``s``)."""
    return symmetries(n).points[s][action]


def from_canonical(action: int, s: int, n: int) -> int:
    """An action of the canonical image mapped back into the state's own frame."""
    return symmetries(n).inverse[s][action]


def image(code: Code, s: int, n: int) -> Code:
    """The code of the position's image under symmetry ``s`` on the ``n x n`` board."""
    sym = symmetries(n)
    ko = -1 if code.ko < 0 else sym.points[s][code.ko]
    return Code(map_bits(sym, s, code.black), map_bits(sym, s, code.white), ko, code.t, code.last_pass,
                code.to_move)


def move_name(action: int, n: int) -> str:
    """An action as the course writes it: ``i,j`` (row from the top, column from the left) or ``PASS``."""
    return "PASS" if action == n * n else f"{action // n},{action % n}"


def move_action(text: str, n: int) -> int:
    """The action of a move as the course writes it (``i,j`` or ``PASS``) on the ``n x n`` board: the
    inverse of ``move_name``.

    Raises:
        ValueError: not ``i,j`` or ``PASS``, or off the board, naming the text.
    """
    if text == "PASS":
        return n * n
    parts = text.split(",") if isinstance(text, str) else ()
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"move {text!r} is not i,j (row and column from 0) or PASS")
    i, j = (int(p) for p in parts)
    if not (0 <= i < n and 0 <= j < n):
        raise ValueError(f"move {text!r} is off the {n}x{n} board")
    return i * n + j


def line_name(actions: list[int] | tuple[int, ...], n: int) -> str:
    """A sequence of actions in the course's notation, or ``the start`` for none."""
    return " ".join(move_name(a, n) for a in actions) if actions else "the start"
