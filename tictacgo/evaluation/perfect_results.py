"""The results file of ``scripts/eval_perfect.py``: a run's settings, and each White player's games.

A measurement of the ``perfect`` agent against every White player here, 100
games each, takes hours; this file lets it go on after a stop. It is JSON::

    {"settings": {"agent": ..., "games": ..., "seed": ..., "check": ...,
                  "check_book_from": ..., "white_first": [...], "books_sha256": {...}},
     "opponents": {"random": {"summary": {...}, "seconds": ..., "workers": ..., "games": [...]}, ...}}

The settings include the SHA-256 of the books the package ships for the
game: they are what the agent plays from, so games played with another book
are another measurement. A run that resumes from the file keeps the opponents it
holds only when every setting is the same (``load_results``), and plays the
others; a file from other settings is refused with the setting that differs,
never mixed in.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from tictacgo.games import littlego
from tictacgo.reading import ReadError, read_json, shown

#: The largest results file read back (100 games of 14 players with every move is about 10 MB).
MAX_RESULTS_BYTES = 256 << 20


def books_sha256() -> dict[str, str]:
    """The SHA-256 of each book the package ships for the course's 5x5 game (the proof's, and the
    solver's that ``default_book`` merges with it), by file name."""
    from tictacgo.proof.book import default_book_path, proof_book_path

    game = littlego.LittleGo(5)
    paths = [p for p in (proof_book_path(game), default_book_path(game)) if p is not None and p.is_file()]
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def run_settings(agent: str, games: int, seed: int, check: bool, check_book_from: int,
                 white_first: list[str]) -> dict[str, Any]:
    """What makes two runs' games comparable: the options that choose the games, and the book."""
    return {"agent": agent, "games": games, "seed": seed, "check": check, "check_book_from": check_book_from,
            "white_first": list(white_first), "books_sha256": books_sha256()}


def load_results(path: str | os.PathLike, settings: dict[str, Any]) -> dict[str, Any]:
    """The results ``path`` holds from a run with these ``settings``; a fresh record when it is missing.

    Raises:
        ValueError: the file is not a results file (not JSON, no settings or opponents), or it was
            written with other settings (the message names the first that differs and both values).
    """
    path = Path(path)
    if not path.exists():
        return {"settings": dict(settings), "opponents": {}}
    try:
        data = read_json(path, MAX_RESULTS_BYTES)
    except (OSError, ReadError) as e:
        raise ValueError(f"{path}: cannot be read as a results file: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("settings"), dict) \
            or not isinstance(data.get("opponents"), dict):
        raise ValueError(f"{path}: not a results file of eval_perfect.py (expected a JSON object with "
                         "'settings' and 'opponents')")
    for key, value in settings.items():
        if data["settings"].get(key) != value:
            raise ValueError(f"{path}: written with {key} = {shown(data['settings'].get(key))}, this run "
                             f"has {shown(value)}: its games are another measurement (another --json file, "
                             "or the same settings, to go on with it)")
    for name, entry in data["opponents"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("summary"), dict) \
                or entry["summary"].get("games") != settings["games"]:
            raise ValueError(f"{path}: the entry of {shown(name)} is not {settings['games']} finished games")
    return data


def opponent_entry(rows: list, seconds: float, workers: int) -> dict[str, Any]:
    """One White player's entry: the totals (``perfect_play.summary``), the wall time, the processes,
    and every game's winner and Black moves."""
    from tictacgo.evaluation.perfect_play import summary

    return {"summary": summary(rows), "seconds": round(seconds, 1), "workers": workers,
            "games": [{"winner": r.winner, "moves": [m.__dict__ for m in r.moves]} for r in rows]}
