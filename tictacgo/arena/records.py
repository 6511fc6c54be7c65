"""Game records on disk while a run goes on: a long match, round robin or course report holds counts in
memory and each finished game's record in a spool file, which the results file is streamed from.

``GameSpool(folder)`` opens a temporary file of JSON lines in ``folder``
(the results file's own folder, so nothing crosses a file system) and
``add(key, game)`` appends one finished game to it; only the game's key,
index and place in the file stay in memory. ``games(key)`` reads a match's
games back in index order. ``write_results_json(path, result)`` writes a
result (``MatchResult``, ``RoundRobinResult``, ``CourseReport``)
atomically, its games streamed from the spool: the file has exactly the
bytes that ``atomic_write_json(path, result.to_json(), indent=1)`` would
write with every record in memory, and the file is either complete or not
there (an interrupted run writes the games finished before the interrupt;
the spool is removed when it is closed, also after an error).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from tictacgo.arena.results import MatchGame, MatchTally
from tictacgo.atomic import atomic_write
from tictacgo.game_loop import GameRecord


class GameSpool:
    """Finished games' records in a temporary JSON-lines file; a few numbers per game in memory.

    One spool serves one run (its keys are that run's matches).

    Args:
        folder: where the temporary file goes (``.tictacgo-games.<random>.jsonl``).
    """

    def __init__(self, folder: str | os.PathLike = "."):
        fd, name = tempfile.mkstemp(dir=folder, prefix=".tictacgo-games.", suffix=".jsonl")
        self.path = Path(name)
        self._file: IO[bytes] | None = os.fdopen(fd, "w+b")
        self._where: dict[int, list[tuple[int, int, int]]] = {}  # key -> [(index, offset, length)]

    def add(self, key: int, game: MatchGame) -> None:
        """Append one finished game of the match ``key``."""
        if self._file is None:
            raise ValueError("the spool is closed")
        line = json.dumps({"index": game.index, "a_first": game.a_first, "record": game.record.to_json()},
                          separators=(",", ":")).encode() + b"\n"
        self._file.seek(0, os.SEEK_END)
        offset = self._file.tell()
        self._file.write(line)
        self._where.setdefault(key, []).append((game.index, offset, len(line)))

    def count(self, key: int | None = None) -> int:
        """How many games of the match ``key`` (None: of every match) the spool holds."""
        if key is None:
            return sum(map(len, self._where.values()))
        return len(self._where.get(key, ()))

    def games(self, key: int) -> Iterator[MatchGame]:
        """The games of the match ``key``, in index order, read back one at a time."""
        if self._file is None:
            raise ValueError("the spool is closed")
        self._file.flush()
        for _, offset, length in sorted(self._where.get(key, ())):
            self._file.seek(offset)
            data = json.loads(self._file.read(length))
            yield MatchGame(int(data["index"]), bool(data["a_first"]), GameRecord.from_json(data["record"]))

    def close(self) -> None:
        """Remove the file (the records are gone; write the results first)."""
        if self._file is not None:
            self._file.close()
            self._file = None
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass

    def __enter__(self) -> GameSpool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a spool nobody closed still leaves no file behind
        try:
            self.close()
        except Exception:
            pass


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


def write_results_json(path: str | os.PathLike, result: Any) -> Path:
    """Write ``result`` (a match, round robin or course report) to ``path`` as JSON, atomically, its
    games streamed from wherever the result keeps them (memory or a ``GameSpool``).

    Returns:
        ``path`` as a ``Path``.
    """
    def write(f: IO[str]) -> None:
        json.dump(result.to_json(lazy=True), f, indent=1)
        f.write("\n")

    return atomic_write(path, write)


def write_results_to(f: IO[str], result: Any) -> None:
    """``write_results_json``'s content into an open text file (a fallback when the path fails)."""
    json.dump(result.to_json(lazy=True), f, indent=1)
    f.write("\n")


class RunRecords:
    """What a run keeps of each finished game, by match key: the records in memory
    (``keep_games=True``), only counts (``False``), or counts and the records in a ``GameSpool``.
    Called with each ``(key, MatchGame)`` as it finishes (``execute_jobs``'s ``collect``).

    Args:
        keep_games: True, False or a ``GameSpool``.
        on_game: also called with each ``(key, MatchGame)`` as it finishes (SGF files are written
            so, one a game), or None.
    """

    def __init__(self, keep_games: bool | GameSpool = True,
                 on_game: Callable[[int, MatchGame], None] | None = None):
        if not isinstance(keep_games, (bool, GameSpool)):
            raise TypeError(f"keep_games must be True, False or a GameSpool, got {keep_games!r}")
        if isinstance(keep_games, GameSpool) and keep_games.count():
            raise ValueError("this GameSpool already holds the games of another run; give each run its own")
        self.keep_games = keep_games
        self.on_game = on_game
        self.kept: dict[int, list[MatchGame]] = {}
        self.tallies: dict[int, MatchTally] = {}

    def __call__(self, result: tuple[int, MatchGame]) -> None:
        key, game = result
        if self.keep_games is True:
            self.kept.setdefault(key, []).append(game)
        else:
            self.tallies.setdefault(key, MatchTally()).add(game)
            if isinstance(self.keep_games, GameSpool):
                self.keep_games.add(key, game)
        if self.on_game is not None:
            self.on_game(key, game)

    def match_fields(self, key: int) -> dict[str, Any]:
        """``MatchResult``'s ``games``, ``tally``, ``spool`` and ``spool_key`` for the match ``key``."""
        if self.keep_games is True:
            return {"games": sorted(self.kept.get(key, ()), key=lambda g: g.index)}
        spool = self.keep_games if isinstance(self.keep_games, GameSpool) else None
        return {"games": [], "tally": self.tallies.get(key, MatchTally()), "spool": spool, "spool_key": key}
