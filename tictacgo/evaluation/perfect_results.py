"""The results file of ``scripts/eval_perfect.py``: a run's settings, and each White player's games.

A measurement of the ``perfect`` agent against every White player here, 100
games each, takes hours; this file lets it go on after a stop: it is written
every few games, and a run that resumes plays only the games it lacks. It is
JSON::

    {"settings": {"agent": ..., "games": ..., "seed": ..., "check": ...,
                  "check_book_from": ..., "white_first": [...], "books_sha256": {...}},
     "opponents": {"random": {"summary": {...}, "seconds": ..., "runs": [...],
                              "games": [{"index": 0, "winner": 1, "actions": [...], "moves": [...]},
                                        ...]}, ...}}

The settings include the SHA-256 of the books the package ships for the
game: they are what the agent plays from, so games played with another book
are another measurement. A run that resumes from the file keeps the games it
holds only when every setting is the same (``load_results``), and plays the
rest; a file from other settings is refused with the setting that differs,
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
        rows_of(entry, name, settings["games"], path)  # each entry: up to ``games`` games, in order
    return data


def opponent_entry(rows: list, runs: list[dict]) -> dict[str, Any]:
    """One White player's entry: the totals (``perfect_play.summary``), the wall time in all, each run
    of consecutive games as played (its first game, games, worker processes and seconds: the agent
    is built anew for each), and every game's index, winner, actions and Black moves."""
    from tictacgo.evaluation.perfect_play import summary

    return {"summary": summary(rows), "seconds": round(sum(r["seconds"] for r in runs), 1), "runs": runs,
            "games": [{"index": r.index, "winner": r.winner, "actions": r.actions,
                       "moves": [m.__dict__ for m in r.moves]} for r in rows]}


def rows_of(entry: Any, opponent: str, games: int, path: str | os.PathLike = "the results") -> list:
    """The games an entry holds, as ``perfect_play.GameRow``s: games 0, 1, ... in order, at most
    ``games`` of them (fewer: a run stopped after saving them).

    Raises:
        ValueError: an entry that is not one (the message names the player and what is wrong).
    """
    from tictacgo.evaluation.perfect_play import BlackMove, GameRow

    where = f"{path}: the entry of {shown(opponent)}"
    listed = entry.get("games") if isinstance(entry, dict) else None
    if not isinstance(listed, list) or len(listed) > games:
        raise ValueError(f"{where} is not a list of at most {games} games")
    runs = entry.get("runs")
    if not isinstance(runs, list) or not all(
            isinstance(r, dict) and all(type(r.get(k)) is int for k in ("first", "games", "workers"))
            and isinstance(r.get("seconds"), (int, float)) and not isinstance(r.get("seconds"), bool)
            for r in runs) or sum(r["games"] for r in runs) != len(listed):
        raise ValueError(f"{where}: its runs are {shown(runs)}; expected one per run of games (first, "
                         f"games, workers, seconds), {len(listed)} games in all")
    rows = []
    for i, game in enumerate(listed):
        try:
            if game["index"] != i or game["winner"] not in (1, 2):
                raise ValueError
            moves = [BlackMove(**m) for m in game["moves"]]
            if not all(isinstance(m.t, int) and isinstance(m.action, int) and isinstance(m.source, str)
                       and isinstance(m.seconds, (int, float)) for m in moves):
                raise ValueError
            actions = game["actions"]
            if not isinstance(actions, list) or not all(type(a) is int for a in actions):
                raise ValueError
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{where}: game {i} is {shown(game)}; expected its index {i}, the winner (1 "
                             "or 2), the game's actions and Black's moves (t, action, source, seconds, "
                             "checked)") from None
        rows.append(GameRow(opponent, i, game["winner"], moves, actions))
    return rows
