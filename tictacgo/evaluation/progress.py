"""Progress of a long evaluation: games done of the total, elapsed time and an estimate of the time
left, on stderr while it is a terminal, and nothing at all in a pipe or a file (whose reader wants
the tables only). The bar is the arena's (``tictacgo.arena.progress``: tqdm where installed, else a
line every few seconds).
"""

from __future__ import annotations

import sys

from tictacgo.arena.progress import Progress


def games_progress(total: int, desc: str, unit: str = "game") -> Progress:
    """A bar over ``total`` games (or other ``unit``), shown only when stderr is a terminal.

    Args:
        total: the games the evaluation will play.
        desc: what it plays, shown before the count.
        unit: what it counts, in the singular.

    Returns:
        A ``Progress``: call ``update()`` after each game and ``close()`` at the end.
    """
    return Progress(total, sys.stderr.isatty(), desc, unit=unit)
