"""Fuzzing ``tictacgo view``'s readers: random mutations of a valid results file of ``tictacgo arena`` and
of a valid SGF record give either a page or one clean refusal (a ``ValueError`` from the library; one
line and exit status 2 from the command), never another exception.

The mutations are seeded (the same cases every run) and few enough for a few seconds: structural ones
on the parsed JSON (a value swapped for one of another kind or out of range, a key deleted, an item
repeated), byte-level ones on the file's text (SGF tokens and stray bytes inserted, bytes deleted or
overwritten), and both together.
"""

from __future__ import annotations

import copy
import importlib.util
import json

import numpy as np
import pytest

from tictacgo.arena import run_match, run_round_robin
from tictacgo.cli import main
from tictacgo.protocol import viewer
from tictacgo.protocol.grading import run_course_report

CASES = 150  # per kind of input

_VALUES = [None, True, False, -1, 0, 1, 2, 3, 24, 25, 26, 10**20, -(10**20), 1.5, float("nan"), "x",
           "<!--", "</script>", "@DATA@", "", [], {}, [1], [[]], {"by": 1}, {"by": 2, "detail": 5},
           "tictactoe", "littlego", {"size": 3}, {"size": 1000}, {"komi": "x"}, "tictacgo-arena-match/1"]
_TOKENS = [b"(", b")", b";", b"[", b"]", b"\\", b"{", b"}", b'"', b",", b"B[aa]", b"W[ee]", b"B[]",
           b"SZ[1]", b"SZ[99]", b"SZ[3]", b"KM[nan]", b"KM[1e308]", b"AB[aa]", b"AW[ab:cd]", b"PL[W]",
           b"RE[B+R]", b"GM[2]", b"FF[3]", b"CA[latin1]", b"\xff", b"\x00", b"PB[<!--]",
           b"ACTIONLIMIT[0]", b"ACTIONLIMIT[99999999999]", b"[" * 50, b"9" * 5000]


def _paths(x, path=()):
    yield path
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _paths(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _paths(v, path + (i,))


def mutate_json(data, rng: np.random.Generator):
    """``data`` with one to three random changes: a value swapped, a key deleted, an item repeated."""
    data = copy.deepcopy(data)
    for _ in range(int(rng.integers(1, 4))):
        paths = [p for p in _paths(data) if p]
        where = paths[int(rng.integers(len(paths)))]
        parent = data
        for k in where[:-1]:
            parent = parent[k]
        r = rng.random()
        if r < 0.2 and isinstance(parent, dict):
            del parent[where[-1]]
        elif r < 0.3 and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[where[-1]]))
        else:
            parent[where[-1]] = copy.deepcopy(_VALUES[int(rng.integers(len(_VALUES)))])
    return data


def mutate_bytes(data: bytes, rng: np.random.Generator) -> bytes:
    """``data`` with one to three random edits: a token inserted, a few bytes deleted or one overwritten."""
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        i = int(rng.integers(len(out) + 1))
        r = rng.random()
        if r < 0.4:
            out[i:i] = _TOKENS[int(rng.integers(len(_TOKENS)))]
        elif r < 0.7 and out:
            del out[i:i + int(rng.integers(1, 8))]
        elif out:
            out[min(i, len(out) - 1)] = int(rng.integers(256))
    return bytes(out)


def page_or_refusal(path) -> str:
    """``"page"`` or ``"refused"``; any other exception fails the test (with the file's start)."""
    try:
        html = viewer.page_html(viewer.load_games(path), path.name)
    except ValueError:
        return "refused"
    except Exception as e:  # the point: nothing else may come out
        pytest.fail(f"{type(e).__name__}: {e} on {path.read_bytes()[:300]!r}")
    viewer.read_page_data(html)  # the page's data is always valid JSON
    return "page"


@pytest.fixture(scope="module")
def results_files():
    match = run_match("littlego", "greedy", "random", games=2, seed=1, workers=1, progress=False)
    rr = run_round_robin("tictactoe", ["random", "think1"], games_per_pair=2, seed=0, workers=1,
                         progress=False)
    course = run_course_report("random", 0, games=1, workers=1, progress=False)
    return [match.to_json(), rr.to_json(), course.to_json()]


def test_mutated_results_files_give_a_page_or_one_clean_refusal(tmp_path, results_files):
    rng = np.random.default_rng(20260501)
    seen = {"page": 0, "refused": 0}
    for k in range(CASES):
        text = json.dumps(mutate_json(results_files[k % 3], rng)).encode()
        if rng.random() < 0.3:
            text = mutate_bytes(text, rng)
        path = tmp_path / "results.json"
        path.write_bytes(text)
        seen[page_or_refusal(path)] += 1
    assert seen["page"] > CASES // 10 and seen["refused"] > CASES // 10, seen  # both outcomes reached


@pytest.mark.skipif(importlib.util.find_spec("sgfmill") is None, reason="needs the sgf extra")
def test_mutated_sgf_records_give_a_page_or_one_clean_refusal(tmp_path):
    from tictacgo.protocol import sgf

    record = sgf.record_to_sgf([12, 13, 7, 8, 17, 18, 11, 25, 25], black="Ann", white="Bo")
    rng = np.random.default_rng(20260502)
    seen = {"page": 0, "refused": 0}
    for _ in range(CASES):
        path = tmp_path / "game.sgf"
        path.write_bytes(mutate_bytes(record, rng))
        seen[page_or_refusal(path)] += 1
    assert seen["page"] > CASES // 10 and seen["refused"] > CASES // 10, seen


def test_the_command_answers_a_mutated_file_with_a_page_or_one_line_and_status_2(
        tmp_path, capsys, results_files):
    rng = np.random.default_rng(20260503)
    for k in range(20):
        path = tmp_path / "results.json"
        path.write_bytes(mutate_bytes(json.dumps(mutate_json(results_files[k % 3], rng)).encode(), rng))
        rc = main(["view", str(path), "--html", str(tmp_path / "page.html")])
        err = capsys.readouterr().err
        assert rc in (0, 2), err
        if rc == 2:
            assert err.startswith("tictacgo view: error: ") and len(err.splitlines()) == 1, err
