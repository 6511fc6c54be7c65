"""The CSCI-561 course file protocol: ``input.txt`` in, ``output.txt`` out.

A course player is a program that the host runs once per move, in a working
directory of its own (see docs/littlego.md, "The course's player protocol"):

``input.txt`` (written by the host, no final newline):

    1            <- the colour to move: 1 Black, 2 White
    00000        <- n rows: the previous board, the board before the
    00000           opponent's last action (equal to the current board
    00000           when the opponent passed)
    00000
    00000
    00100        <- n rows: the current board, 0 empty, 1 Black, 2 White
    ...

So the file has ``1 + 2n`` lines (11 on the course's 5x5 board).
``read_input`` is strict: the line count, the colour, the digits and the
row lengths are all checked; it tolerates only line-ending differences (a
missing or present final newline, CRLF line ends).

``output.txt`` (written by the player): one line, ``i,j`` (row, column) or
``PASS``. The host reads it with a particular tolerance, which
``parse_output`` reproduces exactly: only the first line is read, it is
stripped and split on ``,``; field 0 exactly ``PASS`` is a pass (so
``PASS,1`` is too), otherwise the move is ``int(field0), int(field1)`` as
Python's ``int`` parses them. ``2, 3``, ``+2,3`` and ``2,3,9`` are accepted;
``pass``, ``Pass``, ``2 3``, ``2.0,3``, ``3`` and an empty file are not, and
each of those (or no file at all) loses the game for the player. A move that
parses but is out of bounds, on an occupied point, suicide or a ko
recapture loses too (``judge_move``).

The previous board carries the ko information: ``state_from_input`` rebuilds
the full rules state (ko included) with ``littlego.from_boards``. The number
of actions played is not in the file; ``estimate_t`` guesses it from the
stones on the board.

Files are written atomically (a temporary file in the same directory, then
a rename), so a reader never sees half a file.
"""

from __future__ import annotations

import os
import re

import numpy as np

from tictacgo.atomic import atomic_write_text
from tictacgo.games import littlego
from tictacgo.games.errors import check_action_type
from tictacgo.protocol.files import read_regular_file
from tictacgo.validate import check_int

PASS = "PASS"
OUT_OF_BOUNDS = "out_of_bounds"
# The most bytes read from input.txt or output.txt (a 19x19 input.txt has under 800).
MAX_FILE_BYTES = 65536

_NEWLINE = re.compile(r"\r\n|\r|\n")


class InputFormatError(ValueError):
    """``input.txt`` does not follow the course format (or is inconsistent)."""


# ---------------------------------------------------------------- input.txt

def format_input(colour: int, previous, board) -> str:
    """The text of ``input.txt`` exactly as the host writes it (no final newline).

    Args:
        colour: 1 (Black) or 2 (White), the colour to move.
        previous: ``n x n`` array-like of 0/1/2, the board before the opponent's last action.
        board: ``n x n`` array-like of 0/1/2, the current board.
    Returns:
        ``1 + 2n`` lines joined by ``\\n``.
    Raises:
        ValueError: bad colour, shapes or cell values.
    """
    check_int("colour", colour, min=1, max=2, expected="1 (Black) or 2 (White)")
    rows = []
    shape = None
    for what, b in (("previous board", previous), ("board", board)):
        arr = np.asarray(b)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise ValueError(f"{what} must be a square n x n array, got shape {arr.shape}")
        if shape is not None and arr.shape != shape:
            raise ValueError(f"previous board and board differ in shape: {shape} vs {arr.shape}")
        shape = arr.shape
        if not np.isin(arr, (0, 1, 2)).all():
            raise ValueError(f"{what} may hold only 0, 1 and 2, got {sorted(set(arr.ravel().tolist()))}")
        rows.extend("".join(str(int(v)) for v in row) for row in arr)
    return "\n".join([str(int(colour))] + rows)


def write_input(path: str | os.PathLike, colour: int, previous, board) -> None:
    """Write ``input.txt`` exactly as the course host does (atomically, no final newline).

    Args:
        path: the file to write.
        colour: 1 or 2, the colour to move.
        previous: the previous board (``n x n``, 0/1/2).
        board: the current board (``n x n``, 0/1/2).
    """
    atomic_write_text(path, format_input(colour, previous, board), encoding="ascii", newline="")


def parse_input(text: str) -> tuple[int, np.ndarray, np.ndarray]:
    """Parse the text of ``input.txt`` strictly.

    Args:
        text: the file's contents.
    Returns:
        ``(colour, previous_board, board)``, the boards as ``n x n`` int8 arrays.
    Raises:
        InputFormatError (a ValueError): wrong line count, colour not 1 or 2,
            characters other than 0/1/2, rows of unequal or wrong length.
    """
    lines = _NEWLINE.split(text)
    if len(lines) > 1 and lines[-1] == "":  # one final line end is fine
        lines.pop()
    if len(lines) < 5 or len(lines) % 2 == 0:
        raise InputFormatError(
            f"input.txt must have 1 + 2n lines (11 for a 5x5 board: the colour, then the "
            f"previous and the current board), got {len(lines)} line(s)")
    n = (len(lines) - 1) // 2
    head = lines[0].strip()
    if head not in ("1", "2"):
        raise InputFormatError(f"line 1 of input.txt must be the colour to move, 1 or 2, got {lines[0]!r}")
    for k, row in enumerate(lines[1:], start=2):
        bad = sorted(set(row) - set("012"))
        if bad:
            raise InputFormatError(f"line {k} of input.txt may hold only the digits 0, 1, 2; "
                                   f"got {row!r} (bad characters {''.join(bad)!r})")
        if len(row) != n:
            raise InputFormatError(f"line {k} of input.txt must have {n} digits (the file has {len(lines)} "
                                   f"lines, so the board is {n}x{n}), got {len(row)}: {row!r}")
    if not 2 <= n <= 19:
        raise InputFormatError(f"board size must be between 2 and 19, got {n}")
    grid = np.array([[int(c) for c in row] for row in lines[1:]], dtype=np.int8)
    return int(head), grid[:n].copy(), grid[n:].copy()


def read_input(path: str | os.PathLike) -> tuple[int, np.ndarray, np.ndarray]:
    """Read and strictly validate ``input.txt``.

    Args:
        path: the file to read.
    Returns:
        ``(colour, previous_board, board)``; the boards are ``n x n`` int8 arrays.
    Raises:
        InputFormatError (a ValueError): the format is wrong (see ``parse_input``),
            the file is not text, not a regular file (a folder, a named pipe)
            or larger than ``MAX_FILE_BYTES``.
        OSError: the file cannot be read.
    """
    data = _read_small_file(path, "input.txt", InputFormatError)
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise InputFormatError(f"{path} is not ASCII text; input.txt holds only digits "
                               "and line ends") from None
    return parse_input(text)


def _read_small_file(path: str | os.PathLike, name: str, error: type[ValueError]) -> bytes:
    """The bytes of a protocol file, refused (``error``) unless it is a small regular file.

    A folder, a named pipe or a device (a symlink to one included) is refused
    before it is opened: reading a pipe or ``/dev/zero`` would never end.

    Raises:
        error: not a regular file, or more than ``MAX_FILE_BYTES`` bytes.
        OSError: the file is missing or cannot be read.
    """
    return read_regular_file(path, MAX_FILE_BYTES, name, error)


def estimate_t(colour: int, previous, board, max_actions: int | None = None) -> int:
    """A guess at the number of actions already played (input.txt does not say).

    The stone count is a lower bound when nothing was captured and nobody
    passed; the guess is that count, raised by one if needed so that its
    parity matches the colour to move (Black moves on even t), and kept below
    ``max_actions`` (the mover is asked to play, so the game is not over).

    Args:
        colour: 1 or 2, the colour to move.
        previous: the previous board (unused today; kept so better guesses fit the signature).
        board: the current board.
        max_actions: the game's action limit (default ``n*n - 1``).
    Returns:
        The estimate, ``0 <= t < max_actions``, with ``t % 2 == colour - 1``.
    """
    arr = np.asarray(board)
    n = arr.shape[0]
    if max_actions is None:
        max_actions = n * n - 1
    t = int(np.count_nonzero(arr))
    if t % 2 != colour - 1:
        t += 1
    while t > max_actions - 1 and t >= 2:
        t -= 2
    return max(t, colour - 1)


def minimum_actions(colour: int, previous, board) -> int:
    """The fewest actions (passes included) that any legal game plays to reach this ``input.txt``.

    Each stone on the board took one action of its colour (captures only
    remove stones), and an unchanged board means the opponent's last action
    was a pass, one more action of theirs. Black moves at even ``t`` and
    White at odd ``t``, so with Black to move both have played ``t / 2``
    actions, and with White to move Black has played one more than White.

    Args:
        colour: 1 or 2, the colour to move.
        previous: the previous board.
        board: the current board.
    Returns:
        The least ``t`` consistent with the stone counts and the colour to move.
    """
    return _minimum_actions(colour, previous, board)[0]


def _minimum_actions(colour: int, previous, board) -> tuple[int, str, int]:
    """``(t, side, k)``: the least ``t``, and the side whose ``k`` actions force it."""
    cur = np.asarray(board)
    b = int(np.count_nonzero(cur == littlego.BLACK))
    w = int(np.count_nonzero(cur == littlego.WHITE))
    passed = int(b + w > 0 and np.array_equal(np.asarray(previous), cur))
    if colour == littlego.BLACK:
        if b >= w + passed:
            return 2 * b, "Black", b
        return 2 * (w + passed), "White", w + passed
    if w >= b - 1 + passed:
        return 2 * w + 1, "White", w
    return 2 * (b + passed) - 1, "Black", b + passed


def check_reachable(colour: int, previous, board, max_actions: int | None = None) -> None:
    """Refuse an ``input.txt`` position that no legal game reaches with ``colour`` to move.

    The course's game lasts at most ``max_actions`` actions (``n*n - 1``, 24
    on 5x5; passes count), so a player asked to move has seen at most
    ``max_actions - 1``. ``minimum_actions`` must fit in that: White to move
    with 13 Black stones needs 25 actions, Black to move with 12 Black and 12
    White stones needs 24 (the game is over), 24 stones of one colour need
    more than a whole game. White is never to move on an empty board (Black's
    first action is a stone, or a pass, which ends the game).

    Raises:
        ValueError: the reason, with the stone counts.
    """
    if colour not in (littlego.BLACK, littlego.WHITE):
        raise ValueError(f"the colour to move must be 1 (Black) or 2 (White), got {colour!r}")
    cur = np.asarray(board)
    n = cur.shape[0]
    limit = n * n - 1 if max_actions is None else max_actions
    b = int(np.count_nonzero(cur == littlego.BLACK))
    w = int(np.count_nonzero(cur == littlego.WHITE))
    mover = "Black" if colour == littlego.BLACK else "White"
    if colour == littlego.WHITE and b + w == 0:
        raise ValueError("no legal game reaches this position: White to move on an empty board "
                         "(Black's first action places a stone, or passes, which ends the game)")
    t, side, k = _minimum_actions(colour, previous, board)
    if t >= limit:
        passed = " after a pass" if np.array_equal(np.asarray(previous), cur) else ""
        over = (f"and the game ends after {limit}, so it is over" if t == limit
                else f"more than the {limit} a whole game lasts")
        raise ValueError(f"no legal game reaches this position: {mover} to move with {b} Black and {w} "
                         f"White stones{passed} means {side} has played at least {k} actions, so at least "
                         f"{t} actions were played, {over}")


def state_from_input(colour: int, previous, board, t: int | None = None) -> littlego.GoState:
    """The rules state that ``input.txt`` describes, ko information included.

    Args:
        colour: 1 or 2, the colour to move.
        previous: the previous board (the board before the opponent's last action).
        board: the current board.
        t: actions already played; None estimates it: ``estimate_t``, raised
            to ``minimum_actions`` where the stones show more were played.
    Returns:
        A ``littlego.GoState`` with ``colour`` to move.
    Raises:
        ValueError: a group without liberties, boards that no single legal
            action of the opponent connects, or a position that no legal game
            reaches with ``colour`` to move (``check_reachable``).
    """
    check_reachable(colour, previous, board)
    if t is None:
        t = max(estimate_t(colour, previous, board), minimum_actions(colour, previous, board))
    state = littlego.from_boards(board, colour, previous, t=t)
    _check_connected(state)
    return state


def _check_connected(state: littlego.GoState) -> None:
    """Replay the opponent's last action on the previous board: it must give the board.

    ``from_boards`` checks which stones appeared; this also checks that the
    stones that vanished are exactly the ones that action captures.
    """
    if (state.prev_black, state.prev_white) == (state.black, state.white):
        return  # the opponent passed
    n = state.game.size
    opponent = 3 - state.to_move
    try:
        before = littlego.from_boards(littlego.previous_board(state), opponent)
    except ValueError as e:
        raise ValueError(f"previous board: {e}") from None
    try:
        after = littlego.play(before, state.last_action)
    except ValueError as e:  # IllegalActionError is a ValueError
        i, j = divmod(state.last_action, n)
        raise ValueError(f"the opponent's last move ({i},{j}) is illegal on the previous board: "
                         f"{e}") from None
    if (after.black, after.white) != (state.black, state.white):
        i, j = divmod(state.last_action, n)
        raise ValueError(f"the opponent's move ({i},{j}) on the previous board does not give the "
                         "current board (stones vanished that it does not capture)")


# --------------------------------------------------------------- output.txt

def parse_output(text: str | None) -> str | tuple[int, int]:
    """Parse ``output.txt`` with the course host's exact tolerance.

    Only the first line counts; it is stripped and split on ``,``. Field 0
    exactly ``PASS`` is a pass; otherwise the move is ``(int(field0), int(field1))``
    as Python's ``int`` parses them (whitespace and a sign are fine; extra
    fields are ignored). Bounds are not checked here (see ``judge_move``).

    Args:
        text: the file's contents; None stands for a missing file.
    Returns:
        ``"PASS"`` or ``(i, j)``.
    Raises:
        ValueError: the text is not a move the host accepts (the player loses).
    """
    if text is None:
        raise ValueError("output.txt is missing")
    line = _NEWLINE.split(text, maxsplit=1)[0].strip()
    fields = line.split(",")
    if fields[0] == PASS:
        return PASS
    if len(fields) < 2:
        raise ValueError(f"output.txt must hold 'i,j' or 'PASS' on its first line, got {line!r}")
    try:
        return int(fields[0]), int(fields[1])
    except ValueError:
        raise ValueError(f"output.txt must hold 'i,j' (two integers) or 'PASS' (uppercase) "
                         f"on its first line, got {line!r}") from None


def read_output(path: str | os.PathLike) -> str | tuple[int, int]:
    """Read and parse ``output.txt`` as the host does.

    Args:
        path: the file to read.
    Returns:
        ``"PASS"`` or ``(i, j)`` (bounds unchecked).
    Raises:
        ValueError: the file is missing, unreadable, not a regular file (a
            folder, a named pipe), larger than ``MAX_FILE_BYTES``, not UTF-8
            text, or malformed.
    """
    try:
        data = _read_small_file(path, "output.txt", ValueError)
    except FileNotFoundError:
        raise ValueError(f"output.txt not found ({path})") from None
    except OSError as e:
        raise ValueError(f"output.txt cannot be read ({path}: {e.strerror or e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"output.txt is not UTF-8 text ({path})") from None
    return parse_output(text)


def format_move(action: int, size: int) -> str:
    """The ``output.txt`` text for an action: ``"i,j"`` or ``"PASS"``.

    Args:
        action: ``i * size + j`` for a placement, ``size * size`` for PASS.
        size: the board size.
    Returns:
        ``"i,j"`` or ``"PASS"`` (no newline).
    Raises:
        TypeError / ValueError: the action is not an int in ``[0, size * size]``.
    """
    a = check_action_type(action, size * size + 1)
    if a == size * size:
        return PASS
    i, j = divmod(a, size)
    return f"{i},{j}"


def write_output(path: str | os.PathLike, action: int, size: int) -> None:
    """Write ``output.txt`` for an action (atomically, one line, no newline).

    Args:
        path: the file to write.
        action: ``i * size + j`` or ``size * size`` for PASS.
        size: the board size.
    """
    atomic_write_text(path, format_move(action, size), encoding="ascii", newline="")


def move_to_action(move: str | tuple[int, int], size: int) -> int:
    """A parsed move as an action index.

    Args:
        move: ``"PASS"`` or ``(i, j)``.
        size: the board size.
    Returns:
        ``size * size`` for PASS, else ``i * size + j``.
    Raises:
        ValueError: the point is off the board (no negative wrap-around).
    """
    if move == PASS:
        return size * size
    i, j = move
    if not (0 <= i < size and 0 <= j < size):
        raise ValueError(f"move ({i}, {j}) is off the {size}x{size} board")
    return i * size + j


def judge_move(state: littlego.GoState, move: str | tuple[int, int]) -> tuple[int | None, str | None]:
    """The host's verdict on a parsed move in ``state``.

    Args:
        state: the position (not over).
        move: ``"PASS"`` or ``(i, j)`` from ``parse_output``.
    Returns:
        ``(action, None)`` when legal, or ``(None, reason)`` with reason one of
        ``"out_of_bounds"``, ``"occupied"``, ``"suicide"``, ``"ko"``.
    """
    n = state.game.size
    try:
        action = move_to_action(move, n)
    except ValueError:
        return None, OUT_OF_BOUNDS
    reason = littlego.illegal_reason(state, action)
    return (None, reason) if reason else (action, None)
