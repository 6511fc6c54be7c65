"""The keys of the Little-Go Q-table: a move's local pattern, and the whole board in the opening.

A 5x5 board has far too many positions for a table to revisit past the
opening, so the table has two kinds of key, both unchanged by the board's 8
rotations and reflections (``tests/test_qlearning_go.py`` checks it):

* a **pattern key** for every move, as the course homework hints (patterns
  and symmetries of Go). A placement at point ``p`` is keyed by the 3x3
  window around ``p`` (each neighbour empty, the mover's, the opponent's or
  off the board), canonical under the window's 8 symmetries; which line
  ``p`` is on (edge, second line, centre); what the move does (opponent
  stones captured 0..3+, the liberties of the new stone's group: a lone stone
  in atari, a group in atari, 2, 3+; opponent stones next to it left in
  atari 0..3+; whether it joins an own group that was in atari; the most
  of the mover's stones anywhere on the board that the opponent's reply
  could then capture, 0..3+, which is what the course's greedy opponent
  plays for); the phase (the mover's own moves left: its last, 2 or 3, 4 to
  7, more) and the mover's colour (Black must capture to beat the komi,
  White must not be captured). PASS is keyed by the phase, the colour,
  whether the mover is ahead on the board and whether the opponent just
  passed.
* a **board key** in the first ``board_plies`` actions: the board under the
  smallest of its 8 symmetric images (Black's bits, then White's), the
  number of actions played (it fixes who moves and how many remain),
  whether the opponent just passed, and the move mapped through the same
  symmetry; where the board is itself symmetric, the smallest image of the
  move, so equivalent moves share one key. The ko state is not in the key:
  it changes which moves are legal, not what a legal move leads to.

Two **key schemes** exist, and a table plays with the one it was trained
with (``QTable.key_scheme``): scheme 2 (``KEY_SCHEME``, new tables) as
above; scheme 1, the shipped table's, counts the phase in quarters of the
action limit and has no field for what the reply could capture (its PASS
flag is bit 28).

Keys are Python ints (pattern keys below ``2**31``, board keys with bit 62
set), so the table is one dict and its file one uint64 array. The agent
always scores the real board's legal moves by their keys, so a move it
picks is legal where it is played; no move is mapped back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tictacgo.baselines.course_ladder import atari_capture
from tictacgo.games import littlego
from tictacgo.games.littlego import BLACK, place_bits

OFF_BOARD, OWN, OPP = 3, 1, 2  # a window cell's code (0: empty)
KEY_SCHEME = 2                 # the keys new tables get (see ``pass_flag`` and ``phase``)
KEY_SCHEMES = (1, 2)
BOARD_FLAG = 1 << 62
_PASS_FIELDS = 1 << 5          # a PASS key's fields below its flag
_POINT_BITS = 6                # a board key's move field (0..n*n, PASS = n*n)
_BOARD_BITS = 25               # each colour's stones in a board key: boards up to 5x5


# --- symmetries ------------------------------------------------------------------

def _window_symmetries() -> np.ndarray:
    """The 8 symmetries of the 3x3 window as permutations of its ring.

    The ring lists the neighbours clockwise from the top left (NW, N, NE, E,
    SE, S, SW, W): a quarter turn shifts it by two, the left-right mirror
    maps position ``i`` to ``2 - i`` (mod 8).
    """
    perms = []
    for mirror in (False, True):
        for turn in range(4):
            perms.append([((2 - i if mirror else i) + 2 * turn) % 8 for i in range(8)])
    return np.array(perms)


def _canonical_patterns() -> np.ndarray:
    """``table[code]``: the smallest code among the window symmetries of ring code ``code``."""
    codes = np.arange(1 << 16, dtype=np.int64)
    cells = (codes[:, None] >> (2 * np.arange(8))) & 3
    best = np.full(1 << 16, 1 << 16, dtype=np.int64)
    for perm in _window_symmetries():
        best = np.minimum(best, (cells[:, perm] << (2 * np.arange(8))).sum(axis=1))
    return best


CANONICAL_PATTERN_ARRAY = _canonical_patterns()
CANONICAL_PATTERN = tuple(CANONICAL_PATTERN_ARRAY.tolist())


def board_symmetries(size: int) -> tuple[tuple[int, ...], ...]:
    """The 8 symmetries of the ``size x size`` board as point permutations ``perm[p] = image of p``:
    the game's own (``LittleGo.symmetries``) without PASS. Keys take the smallest image, so they do
    not depend on the order."""
    n = size * size
    return tuple(tuple(int(p) for p in row[:n]) for row in littlego.LittleGo(size).symmetries())


@dataclass(frozen=True)
class Layout:
    """A board size's precomputed tables: windows, lines and symmetries."""

    size: int
    ring: tuple[tuple[int, ...], ...]       # each point's 8 window cells (-1 off the board)
    off_code: tuple[int, ...]               # the ring code of each point's off-board cells
    line: tuple[int, ...]                   # distance to the edge, at most 2
    perms: tuple[tuple[int, ...], ...]      # the board's 8 symmetries
    row_maps: tuple[tuple[tuple[int, ...], ...], ...]  # [g][row][row bits] -> moved bits

    @classmethod
    def of(cls, size: int) -> Layout:
        offsets = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))
        ring, off, line = [], [], []
        for p in range(size * size):
            i, j = divmod(p, size)
            cells = tuple((i + di) * size + j + dj if 0 <= i + di < size and 0 <= j + dj < size else -1
                          for di, dj in offsets)
            ring.append(cells)
            off.append(sum(OFF_BOARD << (2 * k) for k, c in enumerate(cells) if c < 0))
            line.append(min(i, j, size - 1 - i, size - 1 - j, 2))
        perms = board_symmetries(size)
        row_maps = tuple(
            tuple(tuple(sum(1 << perm[r * size + c] for c in range(size) if (b >> c) & 1)
                        for b in range(1 << size)) for r in range(size))
            for perm in perms)
        return cls(size, tuple(ring), tuple(off), tuple(line), perms, row_maps)


_LAYOUTS: dict[int, Layout] = {}


def layout(size: int) -> Layout:
    """The (cached) tables of a board size."""
    if size not in _LAYOUTS:
        _LAYOUTS[size] = Layout.of(size)
    return _LAYOUTS[size]


def transform_bits(lay: Layout, bits: int, g: int) -> int:
    """The point set ``bits`` moved by board symmetry ``g`` (0 is the identity)."""
    n, mask, maps = lay.size, (1 << lay.size) - 1, lay.row_maps[g]
    out = 0
    for r in range(n):
        row = (bits >> (r * n)) & mask
        if row:
            out |= maps[r][row]
    return out


# --- pattern keys ----------------------------------------------------------------

def pattern_code(lay: Layout, own: int, opp: int, p: int) -> int:
    """The canonical 3x3 pattern around point ``p`` (own stones 1, opponent's 2, off board 3)."""
    code = lay.off_code[p]
    for k, c in enumerate(lay.ring[p]):
        if c >= 0:
            if (own >> c) & 1:
                code |= OWN << (2 * k)
            elif (opp >> c) & 1:
                code |= OPP << (2 * k)
    return CANONICAL_PATTERN[code]


def pass_flag(scheme: int) -> int:
    """The bit that marks a PASS key: above the placement keys' fields, which scheme 2 widened."""
    return 1 << 30 if scheme >= 2 else 1 << 28


def moves_left(state: littlego.GoState) -> int:
    """The mover's actions left before the action limit, this one included (1 on its last move)."""
    return (state.game.max_actions - 1 - state.t) // 2 + 1


def phase(state: littlego.GoState, scheme: int = KEY_SCHEME) -> int:
    """How near the mover is to its end: 3 on its last move, 2 with 2 or 3 left, 1 with 4 to 7, else 0.

    Key scheme 1 (the first tables) used the quarter of the action limit instead.

    Counted in the mover's own moves left rather than in quarters of the
    game, since what a move is worth turns on what can still follow it: on
    the last move only what it captures (and what the opponent's one reply
    can capture) counts, an atari no longer threatens anything, and two or
    three moves before the end a threat has just the time to be carried out.
    """
    if scheme < 2:
        return min(3, 4 * state.t // state.game.max_actions)
    left = moves_left(state)
    return 3 if left <= 1 else 2 if left <= 3 else 1 if left <= 7 else 0


def _in_atari(game: littlego.LittleGo, seeds: int, stones: int, empty: int) -> int:
    """The stones of ``stones``' groups touching ``seeds`` that have exactly one liberty."""
    out = 0
    while seeds:
        group = game.flood(seeds & -seeds, stones)
        seeds &= ~group
        libs = game.neighbours(group) & empty
        if libs and not libs & (libs - 1):
            out |= group
    return out


def reply_capture(game: littlego.LittleGo, mover: int, other: int) -> int:
    """The most of ``other``'s stones one placement of ``mover`` captures (ko left aside): the
    course's greedy count (``course_ladder.atari_capture``) on the game's board."""
    return atari_capture(game, mover, other)


def placement_key(state: littlego.GoState, p: int, after: tuple[int, int, int],
                  scheme: int = KEY_SCHEME) -> int:
    """The pattern key of the legal placement ``p`` in ``state``, given ``place_bits``' result ``after``.

    Key scheme 1 has no field for what the reply could capture."""
    game = state.game
    lay = layout(game.size)
    own, opp = (state.black, state.white) if state.to_move == BLACK else (state.white, state.black)
    own2, opp2, dead = after
    empty2 = game.full & ~(own2 | opp2)
    group = game.flood(game.point_bits[p], own2)
    libs = (game.neighbours(group) & empty2).bit_count()
    libs_code = (0 if group & (group - 1) else 1) if libs == 1 else min(libs, 3)
    atari = _in_atari(game, opp2 & game.neighbour_bits[p], opp2, empty2).bit_count()
    rescue = 1 if _in_atari(game, own & game.neighbour_bits[p], own, game.full & ~(own | opp)) else 0
    key = (pattern_code(lay, own, opp, p)
           | min(dead.bit_count(), 3) << 16 | libs_code << 18 | min(atari, 3) << 20
           | rescue << 22 | phase(state, scheme) << 23 | (state.to_move - 1) << 25 | lay.line[p] << 26)
    return key | min(reply_capture(game, opp2, own2), 3) << 28 if scheme >= 2 else key


def pass_key(state: littlego.GoState, scheme: int = KEY_SCHEME) -> int:
    """The pattern key of PASS: phase, colour, ahead on the board, opponent just passed."""
    black, white = littlego.scores(state)
    ahead = (black > white) if state.to_move == BLACK else (white > black)
    return (pass_flag(scheme) | phase(state, scheme) | (state.to_move - 1) << 2 | int(ahead) << 3
            | int(state.last_pass) << 4)


# --- board keys ------------------------------------------------------------------

def canonical_board(state: littlego.GoState) -> tuple[int, tuple[int, ...]]:
    """The board key of ``state`` without its move field, and the symmetries that reach it.

    Returns:
        ``(base, syms)``: ``base`` holds the smallest image ``(Black, White)``
        of the board, the action count and the opponent's pass; ``syms`` every
        symmetry giving that image (several when the board is symmetric).
    """
    lay = layout(state.game.size)
    best, syms = -1, []
    for g in range(len(lay.perms)):
        k = transform_bits(lay, state.black, g) << _BOARD_BITS | transform_bits(lay, state.white, g)
        if best < 0 or k < best:
            best, syms = k, [g]
        elif k == best:
            syms.append(g)
    base = (BOARD_FLAG | int(state.last_pass) << 61 | state.t << 56 | best << _POINT_BITS)
    return base, tuple(syms)


def board_action_key(lay: Layout, base: int, syms: tuple[int, ...], action: int) -> int:
    """The board key of ``action`` (PASS is ``n*n``, unmoved) on the board ``canonical_board`` gave."""
    if action == lay.size * lay.size:
        return base | action
    perms = lay.perms
    return base | min(perms[g][action] for g in syms)


# --- every legal move's keys -----------------------------------------------------

def action_keys(state: littlego.GoState, board_plies: int = 0,
                scheme: int = KEY_SCHEME) -> list[tuple[int, int, int]]:
    """The moves the Q-learner considers in a live ``state``, with their keys.

    Every legal placement; PASS only when no placement is legal, as the
    course's players do (a pass keyed by little more than the phase would
    otherwise compete with every placement on an average over whole games).

    Args:
        state: the position.
        board_plies: the actions from the start that get board keys.
        scheme: the pattern keys' scheme (``KEY_SCHEMES``; a table plays with its own).
    Returns:
        ``[(action, pattern key, board key), ...]``; the board key is -1 from
        action ``board_plies`` on (and on boards larger than 5x5).
    """
    game = state.game
    lay = layout(game.size)
    own, opp = (state.black, state.white) if state.to_move == BLACK else (state.white, state.black)
    ko_own, ko_opp = littlego.ko_board(state)
    board = state.t < board_plies and game.size * game.size <= _BOARD_BITS
    base, syms = canonical_board(state) if board else (0, ())
    out = []
    for p in game.bits_to_list(littlego.legal_bits(state) & game.full):
        after = place_bits(game, own, opp, p, ko_own, ko_opp)
        out.append((p, placement_key(state, p, after, scheme),
                    board_action_key(lay, base, syms, p) if board else -1))
    if not out:
        pa = game.pass_action
        out.append((pa, pass_key(state, scheme), board_action_key(lay, base, syms, pa) if board else -1))
    return out


def describe_key(key: int, scheme: int = KEY_SCHEME) -> dict[str, int | bool | str]:
    """A key's fields by name (for reports and tests); ``exposed`` is always 0 in scheme 1."""
    if key & BOARD_FLAG:
        stones = key >> _POINT_BITS & ((1 << 2 * _BOARD_BITS) - 1)
        return {"kind": "board", "black": stones >> _BOARD_BITS, "white": stones & ((1 << _BOARD_BITS) - 1),
                "t": key >> 56 & 31, "after_pass": bool(key >> 61 & 1), "move": key & 63}
    if key & pass_flag(scheme):
        return {"kind": "pass", "phase": key & 3, "white": bool(key >> 2 & 1),
                "ahead": bool(key >> 3 & 1), "after_pass": bool(key >> 4 & 1)}
    return {"kind": "placement", "pattern": key & 0xFFFF, "captures": key >> 16 & 3,
            "liberties": key >> 18 & 3, "ataris": key >> 20 & 3, "rescue": bool(key >> 22 & 1),
            "phase": key >> 23 & 3, "white": bool(key >> 25 & 1), "line": key >> 26 & 3,
            "exposed": key >> 28 & 3}


def valid_keys(keys: np.ndarray, scheme: int = KEY_SCHEME) -> np.ndarray:
    """Which of ``keys`` (uint64) have the shape of a key ``action_keys`` makes in ``scheme`` (the loader's
    check); scheme 3, an afterstate table's, keys its entries (``qlearning_go_afterstate``)."""
    k = keys.astype(np.uint64)
    if scheme == 3:  # an afterstate table's entries (qlearning_go_afterstate): the flag, then an index
        return (k >> np.uint64(63)) == 1
    flag = pass_flag(scheme)
    board = (k >> np.uint64(62)) == 1
    is_pass = ~board & (k >= flag)
    ok = np.zeros(len(k), dtype=bool)
    ok[is_pass] = k[is_pass] < flag | _PASS_FIELDS
    place = ~board & ~is_pass
    code = (k[place] & np.uint64(0xFFFF)).astype(np.int64)
    ok[place] = (((k[place] >> np.uint64(26)) & np.uint64(3)) < 3) & (CANONICAL_PATTERN_ARRAY[code] == code)
    mask = np.uint64((1 << _BOARD_BITS) - 1)
    black = (k[board] >> np.uint64(_POINT_BITS + _BOARD_BITS)) & mask
    white = (k[board] >> np.uint64(_POINT_BITS)) & mask
    ok[board] = ((black & white) == 0) & ((k[board] & np.uint64(63)) <= 25)
    return ok
