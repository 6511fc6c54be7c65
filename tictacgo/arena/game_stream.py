"""``GameStream``: a list whose items ``json.dump`` draws one at a time, so a results file is written
without every game in memory (the arena's match results, ``tictacgo.arena.results``, hand their games to
``tictacgo.arena.records.write_results_json`` this way)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


class GameStream(list):
    """A list that ``json.dump(..., indent=...)`` walks lazily: its items come from ``make()`` as the
    encoder reaches them, so a results file is written without every game in memory.

    Only for ``json.dump`` / ``json.dumps`` with ``indent`` (the pure-Python encoder, which iterates
    the list); the encoder without ``indent`` reads a list's own storage, which is empty here.
    """

    def __init__(self, make: Callable[[], Iterator[Any]], count: int):
        super().__init__()
        self._make = make
        self._count = count

    def __iter__(self) -> Iterator[Any]:
        return self._make()

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0
