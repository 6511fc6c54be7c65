"""Board coordinates as people and Go programs write them, and the actions they name.

Three spellings of a point on a ``size x size`` board (``n x n`` below),
all mapped to the rules cores' action ``i * n + j`` (``n * n`` is PASS in
Little-Go):

* the course's ``i,j``: row ``i`` counted from the TOP (0-based), column ``j``
  from the left (0-based). Both games use it; ``(0, 0)`` is the top-left corner.
* Go vertices as GTP and GUIs write them (``C3``): a column letter ``A``..``T``
  skipping ``I``, then a row number counted from the BOTTOM, starting at 1.
  On 5x5, ``A5`` is the top-left corner ``0,0`` and ``E1`` the bottom-right
  ``4,4``. Letters are case-insensitive; ``pass`` is the PASS action.
* SGF points are handled by sgfmill in ``tictacgo.protocol.sgf``.

Functions here are pure and raise ValueError with the text that was refused
and what was expected.
"""

from __future__ import annotations

import re

from tictacgo.games.board_labels import GO_LETTERS  # GTP and most Go software skip "I"
from tictacgo.validate import check_int

_COURSE_RE = re.compile(r"^\s*(-?\d+)\s*[,\s]\s*(-?\d+)\s*$")
_VERTEX_RE = re.compile(r"^\s*([A-Za-z])\s*(\d+)\s*$")


def check_size(size: int) -> int:
    """``size`` if it is a board size Go vertices can name (2..19), else ValueError."""
    return check_int("board size", size, min=2, max=len(GO_LETTERS))


def action_to_vertex(action: int, size: int) -> str:
    """The Go vertex of an action (``"C3"``), or ``"pass"`` for ``size * size``.

    Args:
        action: ``i * size + j`` (row from the top), or ``size * size`` for PASS.
        size: the board size.
    Returns:
        e.g. ``"A5"`` for action 0 on 5x5.
    """
    n = check_size(size)
    action = check_int("action", action, min=0, max=n * n)
    if action == n * n:
        return "pass"
    i, j = divmod(action, n)
    return f"{GO_LETTERS[j]}{n - i}"


def vertex_to_action(text: str, size: int) -> int:
    """The action a Go vertex names (``"C3"``, ``"pass"``; case-insensitive) on a ``size x size`` board.

    Raises:
        ValueError: not a vertex, or off the board (``"I"`` is never a column).
    """
    n = check_size(size)
    s = str(text).strip()
    if s.lower() == "pass":
        return n * n
    m = _VERTEX_RE.match(s)
    if not m:
        raise ValueError(f"{text!r} is not a Go vertex; expected a column letter and a row number "
                         f"such as C3, or pass")
    letter, row = m.group(1).upper(), int(m.group(2))
    j = GO_LETTERS.find(letter)
    if j < 0 or j >= n or not 1 <= row <= n:
        raise ValueError(f"{text!r} is off the {n}x{n} board; columns are "
                         f"{GO_LETTERS[0]}..{GO_LETTERS[n - 1]} (no I), rows 1..{n} from the bottom")
    return (n - row) * n + j


def course_to_action(text: str, size: int) -> int:
    """The action the course's ``i,j`` names (row from the top, column, both 0-based) on a ``size x size``
    board.

    Raises:
        ValueError: not two integers, or off the board.
    """
    n = size
    m = _COURSE_RE.match(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a course move; expected row,col such as 2,3")
    i, j = int(m.group(1)), int(m.group(2))
    if not (0 <= i < n and 0 <= j < n):
        raise ValueError(f"{text!r} is off the {n}x{n} board; row and column are 0..{n - 1}")
    return i * n + j


def action_to_course(action: int, size: int) -> str:
    """The course's ``i,j`` for a placement action (``"PASS"`` for ``size * size``)."""
    if action == size * size:
        return "PASS"
    i, j = divmod(action, size)
    return f"{i},{j}"
