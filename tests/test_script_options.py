"""The solver scripts' command lines, now settings dataclasses: the flags and defaults they had with argparse.

Each script's ``Args`` goes through ``tictacgo.cli.options.parse_options``;
these check that the flags of the argparse versions still parse to the same
values (``--no-moves`` is solve_small's ``moves`` off, list flags take several
values) and that the defaults are the old ones.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tictacgo.cli.options import parse_options

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def script(name: str):
    key = f"_script_{name}"
    if key not in sys.modules:  # a dataclass reads its module's names while the module runs
        spec = importlib.util.spec_from_file_location(key, SCRIPTS / f"{name}.py")
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]


@pytest.mark.parametrize(("name", "argv", "expected"), [
    ("bench_solver", [], {"games": 10, "lefts": [10, 14], "seed": 0, "time_limit": 120.0, "margin": False,
                          "table_bits": 22, "json": None,
                          "pairings": ["mcts:sims=400/greedy", "greedy/mcts:sims=400"]}),
    ("bench_solver", ["--games", "3", "--lefts", "6", "8", "--pairings", "a/b", "--seed", "2",
                      "--time-limit", "1.5", "--margin", "--table-bits", "14", "--json", "x.json"],
     {"games": 3, "lefts": [6, 8], "pairings": ["a/b"], "seed": 2, "time_limit": 1.5, "margin": True,
      "table_bits": 14, "json": "x.json"}),
    ("check_endgames_bounds", ["--every", "10", "--file", "f.npz"], {"every": 10, "file": "f.npz"}),
    ("make_books", [], {"out": "certificates", "sizes": [3, 4, 5], "max_left": 15, "book_max_left": 13,
                        "table_bits": 23, "json": None, "leaf_rules": "none"}),
    ("make_books", ["--sizes", "3", "--max-left", "9", "--book-max-left", "8", "--books", "b",
                    "--leaf-rules", "pass_bound"],
     {"sizes": [3], "max_left": 9, "book_max_left": 8, "books": "b", "leaf_rules": "pass_bound"}),
    ("make_endgames", [], {"count": 10_000, "max_left": 10, "seed": 0, "workers": 1,
                           "agents": ["random", "greedy", "aggressive", "alphabeta", "mcts:sims=200",
                                      "ppo"]}),
    ("make_endgames", ["--count", "30", "--agents", "random", "greedy", "--out", "e.npz", "--workers", "2"],
     {"count": 30, "agents": ["random", "greedy"], "out": "e.npz", "workers": 2}),
    ("solve_small", [], {"sizes": [3, 4], "time_limit": None, "moves": True, "table_bits": 22,
                         "komi_table": False, "json": None}),
    ("solve_small", ["--sizes", "5", "--time-limit", "7200", "--no-moves", "--komi-table"],
     {"sizes": [5], "time_limit": 7200.0, "moves": False, "komi_table": True}),
    ("solve_subtrees", [], {"dir": None, "opening": "", "size": 5, "seed": 0, "line": "az", "start_left": 12,
                            "hint_depth": 0, "table_bits": 24, "workers": None, "ray": False,
                            "share_tables": True, "every": 600.0, "progress": 60.0, "resume": False}),
    ("solve_subtrees", ["--dir", "d", "--opening", "2,2 PASS", "--workers", "2", "--ray", "--no-share-tables",
                        "--resume"],
     {"dir": "d", "opening": "2,2 PASS", "workers": 2, "ray": True, "share_tables": False, "resume": True}),
])
def test_the_flags_parse_as_the_argparse_versions_did(name, argv, expected):
    args = parse_options(script(name).Args(), argv)
    assert {k: getattr(args, k) for k in expected} == expected


@pytest.mark.parametrize("name", ["check_endgames_bounds", "make_books", "make_endgames"])
def test_the_default_files_are_the_ones_in_the_repository(name):
    args = parse_options(script(name).Args(), [])
    path = Path(args.file if name == "check_endgames_bounds" else args.books if name == "make_books"
                else args.out)
    assert path.is_absolute() and path.exists()  # the benchmark file, the shipped books folder
