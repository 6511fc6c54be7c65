"""Reading a results file of ``tictacgo arena --out`` that may come from anywhere.

A results file is bounded before it is parsed (``MAX_RESULTS_BYTES`` bytes,
``MAX_DEPTH`` levels of nested arrays and objects, counted on the raw bytes
so that a deeply nested file never reaches the parser), and every field a
reader uses is checked after: ``read_results_json`` returns the whole file as
a dict, and ``results_matches`` its matches (a match, a round robin's pairs,
a course report's opponents), each one checked by ``check_match``. Anything
malformed is one ``ValueError`` that names the file, where in it, what was
found and what was expected.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tictacgo.protocol.files import read_regular_file
from tictacgo.reading import json_depth

#: The largest results file read (a 100,000-game match is about 60 MB).
MAX_RESULTS_BYTES = 256 << 20
#: The deepest nesting of arrays and objects read (a results file needs 6).
MAX_DEPTH = 32

FORMATS = {"match": "tictacgo-arena-match/", "round_robin": "tictacgo-arena-round-robin/",
           "course": "tictacgo-arena-course-report/"}


def read_results_json(path: str | os.PathLike, data: bytes | None = None) -> dict[str, Any]:
    """The results file at ``path`` as a dict, its size, nesting and format checked.

    Args:
        path: the file.
        data: its bytes, if already read (at most ``MAX_RESULTS_BYTES``); None: read here.

    Raises:
        ValueError: not a regular file, over ``MAX_RESULTS_BYTES``, nested deeper than
            ``MAX_DEPTH``, not JSON, or not of a format in ``FORMATS``.
        OSError: the file cannot be read.
    """
    name = os.fspath(path)
    if data is None:
        data = read_regular_file(path, MAX_RESULTS_BYTES, "the results file")
    elif len(data) > MAX_RESULTS_BYTES:
        raise ValueError(f"{name}: the results file is larger than {MAX_RESULTS_BYTES} bytes")
    depth = json_depth(data)
    if depth > MAX_DEPTH:
        raise ValueError(f"{name}: arrays and objects nest {depth} deep; a results file of tictacgo "
                         f"arena nests at most {MAX_DEPTH} deep")
    try:
        results = json.loads(data)
    except (ValueError, RecursionError) as e:  # not UTF-8, not JSON, a number of over 4300 digits
        raise ValueError(f"{name}: neither an SGF record nor a JSON results file ({e})") from None
    fmt = results.get("format") if isinstance(results, dict) else None
    if not (isinstance(fmt, str) and fmt.startswith(tuple(FORMATS.values()))):
        found = f"format {_short(fmt)}" if isinstance(results, dict) else f"a JSON {_kind(results)}"
        raise ValueError(f"{name}: not a results file of tictacgo arena ({found}); expected a match, "
                         "a round robin or a course report")
    return results


def results_matches(results: dict[str, Any], path: str | os.PathLike) -> list[tuple[str, dict[str, Any]]]:
    """The matches of a results file (``read_results_json``), each with a label for its games
    (``""`` for a match, ``"A vs B, "`` for a round robin's pair, ``"vs OPPONENT, "`` for a course
    report's opponent), each checked by ``check_match``.

    Raises:
        ValueError: a field missing or of the wrong kind, named with where it is in the file.
    """
    name = os.fspath(path)
    fmt = results["format"]
    if fmt.startswith(FORMATS["match"]):
        return [("", check_match(results, name, "the match"))]
    matches = results.get("matches")
    if fmt.startswith(FORMATS["round_robin"]):
        if not isinstance(matches, list):
            raise ValueError(f"{name}: 'matches' is {_found(matches)}; a round robin lists its matches")
        out = []
        for k, m in enumerate(matches):
            m = check_match(m, name, f"matches[{k}]")
            out.append((f"{m['agent_a']} vs {m['agent_b']}, ", m))
        return out
    if not isinstance(matches, dict):
        raise ValueError(f"{name}: 'matches' is {_found(matches)}; a course report maps each opponent "
                         "to its match")
    return [(f"vs {opponent}, ", check_match(m, name, f"matches[{opponent!r}]"))
            for opponent, m in matches.items()]


def check_match(match: Any, path: str, where: str) -> dict[str, Any]:
    """``match`` if it is a match as ``MatchResult.to_json`` writes it, as far as a reader of its
    games needs: ``game`` and ``agent_a``/``agent_b`` strings, ``variant`` an object (or null),
    ``games`` a list of objects, each with an integer ``index``, ``moves`` a list of integers,
    ``first``/``second`` strings if given and ``illegal`` null or an object whose ``by`` is 1 or 2.

    Raises:
        ValueError: the first thing that is not so, with ``path`` and ``where``.
    """
    def bad(field: str, value: Any, expected: str) -> ValueError:
        return ValueError(f"{path}: {where}: {field} is {_found(value)}; expected {expected}")

    if not isinstance(match, dict):
        raise bad("the match", match, "an object")
    for key in ("game", "agent_a", "agent_b"):
        if not isinstance(match.get(key), str):
            raise bad(repr(key), match.get(key), "a string")
    if not isinstance(match.get("variant") or {}, dict):
        raise bad("'variant'", match["variant"], "an object of the game's parameters")
    games = match.get("games")
    if not isinstance(games, list):
        raise bad("'games'", games, "a list of games")
    for k, g in enumerate(games):
        _check_game(g, lambda field, value, expected, k=k: bad(f"games[{k}]{field}", value, expected))
    return match


def _check_game(g: Any, bad) -> None:
    if not isinstance(g, dict):
        raise bad("", g, "an object")
    if not _is_int(g.get("index")) or g["index"] < 0:
        raise bad(".index", g.get("index"), "a non-negative integer")
    moves = g.get("moves")
    if not isinstance(moves, list):
        raise bad(".moves", moves, "a list of actions")
    for m, action in enumerate(moves):
        if not _is_int(action):
            raise bad(f".moves[{m}]", action, "an integer action")
    for key in ("first", "second"):
        if key in g and not isinstance(g[key], str):
            raise bad(f".{key}", g[key], "an agent's spec")
    illegal = g.get("illegal")
    if illegal is not None:
        if not isinstance(illegal, dict):
            raise bad(".illegal", illegal, "null or an object")
        if illegal.get("by") not in (1, 2) or not _is_int(illegal.get("by")):
            raise bad(".illegal.by", illegal.get("by"), "1 or 2 (the player who lost by it)")
        if not isinstance(illegal.get("detail", ""), (str, type(None))):
            raise bad(".illegal.detail", illegal["detail"], "a string")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _found(value: Any) -> str:
    """A value found in a file, in words: ``missing``, or its kind and (short) text."""
    if value is None:
        return "missing (or null)"
    kind = _kind(value)
    return {"object": "an object", "array": "an array"}.get(kind, f"the {kind} {_short(value)}")
