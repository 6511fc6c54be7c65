"""Board coordinates as people and Go programs write them, and the actions they name.

Three spellings of a point on an ``n x n`` board, all mapped to the rules
cores' action ``i * n + j`` (``n * n`` is PASS in Little-Go):

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

# GTP and most Go software skip "I" (it looks like "J" and "1").
GO_LETTERS = "ABCDEFGHJKLMNOPQRST"

_COURSE_RE = re.compile(r"^\s*(-?\d+)\s*[,\s]\s*(-?\d+)\s*$")
_VERTEX_RE = re.compile(r"^\s*([A-Za-z])\s*(\d+)\s*$")


def check_size(n: int) -> int:
    """``n`` if it is a board size Go vertices can name (2..19), else ValueError."""
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= len(GO_LETTERS):
        raise ValueError(f"board size must be an int in 2..{len(GO_LETTERS)}, got {n!r}")
    return n


def action_to_vertex(action: int, n: int) -> str:
    """The Go vertex of an action (``"C3"``), or ``"pass"`` for ``n * n``.

    Args:
        action: ``i * n + j`` (row from the top), or ``n * n`` for PASS.
        n: board size.
    Returns:
        e.g. ``"A5"`` for action 0 on 5x5.
    """
    check_size(n)
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action <= n * n:
        raise ValueError(f"action must be an int in 0..{n * n} on a {n}x{n} board, got {action!r}")
    if action == n * n:
        return "pass"
    i, j = divmod(action, n)
    return f"{GO_LETTERS[j]}{n - i}"


def vertex_to_action(text: str, n: int) -> int:
    """The action a Go vertex names (``"C3"``, ``"pass"``; case-insensitive).

    Raises:
        ValueError: not a vertex, or off the ``n x n`` board (``"I"`` is never a column).
    """
    check_size(n)
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


def course_to_action(text: str, n: int) -> int:
    """The action the course's ``i,j`` names (row from the top, column, both 0-based).

    Raises:
        ValueError: not two integers, or off the board.
    """
    m = _COURSE_RE.match(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a course move; expected row,col such as 2,3")
    i, j = int(m.group(1)), int(m.group(2))
    if not (0 <= i < n and 0 <= j < n):
        raise ValueError(f"{text!r} is off the {n}x{n} board; row and column are 0..{n - 1}")
    return i * n + j


def action_to_course(action: int, n: int) -> str:
    """The course's ``i,j`` for a placement action (``"PASS"`` for ``n * n``)."""
    if action == n * n:
        return "PASS"
    i, j = divmod(action, n)
    return f"{i},{j}"
