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
there (an interrupted run writes the games finished before the interrupt).

Where the system lets an open file be removed (Linux, macOS and other
POSIX systems) the spool's name is removed as soon as it is opened: the
file lives only while the run holds it, so no run, however it ends (a
SIGKILL, a power cut), leaves one behind. Elsewhere it is
``.tictacgo-games.<random>.jsonl`` beside the results file, removed when
the spool is closed. If a write to the spool fails (the disk is full), the
games from then on are held in memory instead and ``failure`` says why:
no finished game is lost.
"""

from __future__ import annotations

import heapq
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from tictacgo.arena.game_stream import GameStream  # noqa: F401 -- its old home: the name stays importable
from tictacgo.arena.results import MatchGame, MatchTally
from tictacgo.atomic import atomic_write
from tictacgo.game_loop import GameRecord


class GameSpool:
    """Finished games' records in a temporary JSON-lines file; a few numbers per game in memory.

    One spool serves one run (its keys are that run's matches).

    Args:
        folder: where the temporary file goes (``.tictacgo-games.<random>.jsonl``, its name removed at
            once where the system allows it).

    Attributes:
        failure: why the spool stopped writing to disk (a full disk, say), or None; the games
            added since are held in memory.
    """

    def __init__(self, folder: str | os.PathLike = "."):
        fd, name = tempfile.mkstemp(dir=folder, prefix=".tictacgo-games.", suffix=".jsonl")
        self.path = Path(name)
        # Unbuffered: a write that fails loses only the game being written, never a buffer of others.
        self._file: IO[bytes] | None = os.fdopen(fd, "w+b", buffering=0)
        self._named = True
        if os.name == "posix":  # the open file stays readable and writable; its name goes now
            self._remove_name()
        self._where: dict[int, list[tuple[int, int, int]]] = {}  # key -> [(index, offset, length)]
        self._held: dict[int, list[MatchGame]] = {}  # key -> games added after a failed write
        self.failure: str | None = None

    def add(self, key: int, game: MatchGame) -> None:
        """Append one finished game of the match ``key`` (to memory if the disk has failed)."""
        if self._file is None:
            raise ValueError("the spool is closed")
        if self.failure is None:
            line = json.dumps({"index": game.index, "a_first": game.a_first,
                               "record": game.record.to_json()}, separators=(",", ":")).encode() + b"\n"
            offset = self._file.seek(0, os.SEEK_END)
            try:
                self._write(line)
            except OSError as e:
                self._give_up_disk(offset, e)
            else:
                self._where.setdefault(key, []).append((game.index, offset, len(line)))
                return
        self._held.setdefault(key, []).append(game)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[self._file.write(view):]

    def _give_up_disk(self, offset: int, error: OSError) -> None:
        """After a failed write: cut the partial line off (freeing what it took) and hold the games
        from now on in memory."""
        self.failure = (f"the disk would not take more game records ({error.strerror or error}) "
                        f"after {self.count()} games; the others were held in memory")
        try:
            self._file.truncate(offset)
        except OSError:
            pass  # the partial line stays, past every offset kept: it is never read

    def count(self, key: int | None = None) -> int:
        """How many games of the match ``key`` (None: of every match) the spool holds."""
        if key is None:
            return sum(map(len, self._where.values())) + sum(map(len, self._held.values()))
        return len(self._where.get(key, ())) + len(self._held.get(key, ()))

    def games(self, key: int) -> Iterator[MatchGame]:
        """The games of the match ``key``, in index order, read back one at a time."""
        if self._file is None:
            raise ValueError("the spool is closed")
        held = sorted(self._held.get(key, ()), key=lambda g: g.index)
        return heapq.merge(self._read(sorted(self._where.get(key, ()))), held, key=lambda g: g.index)

    def _read(self, places: list[tuple[int, int, int]]) -> Iterator[MatchGame]:
        for _, offset, length in places:
            if self._file is None:
                raise ValueError("the spool is closed")
            self._file.seek(offset)
            data = json.loads(self._file.read(length))
            yield MatchGame(int(data["index"]), bool(data["a_first"]), GameRecord.from_json(data["record"]))

    def close(self) -> None:
        """Remove the file (the records are gone; write the results first)."""
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None
            self._held.clear()
            self._remove_name()

    def _remove_name(self) -> None:
        if self._named:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
            self._named = False

    def __enter__(self) -> GameSpool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a spool nobody closed still leaves no file behind
        try:
            self.close()
        except Exception:
            pass


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
