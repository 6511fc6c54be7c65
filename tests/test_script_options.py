"""The solver scripts' command lines, settings dataclasses since they left argparse: the flags and the
defaults they had with argparse, read from each script's ``--help`` (the script run as a command), and
the way ``tictacgo.cli.options.parse_options`` reads list and on/off flags.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"


def help_defaults(name: str) -> dict[str, str]:
    """``scripts/NAME.py --help`` run as a command: each option's first flag -> its default as shown."""
    env = {**os.environ, "COLUMNS": "1000"}  # one option's help on one line
    done = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.py"), "--help"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    entries: list[list[str]] = []
    for line in done.stdout.split("options:", 1)[1].splitlines():
        if line.startswith("  -"):
            entries.append([line])
        elif entries and line.startswith("   "):
            entries[-1].append(line)
    out = {}
    for entry in entries:
        text = " ".join(part.strip() for part in entry)
        flag = text.split()[0].rstrip(",")
        found = re.search(r"\(default: (.*)\)$", text)
        if found:
            out[flag] = found.group(1)
    return out


@pytest.mark.parametrize(("name", "expected"), [
    ("bench_solver", {"--games": "10", "--lefts": "10 14",
                      "--pairings": "mcts:sims=400/greedy greedy/mcts:sims=400", "--seed": "0",
                      "--time-limit": "120.0", "--margin": "False", "--table-bits": "22", "--json": "None"}),
    ("check_endgames_bounds", {"--file": "tests/data/littlego_endgames.npz", "--every": "1"}),
    ("make_books", {"--out": "certificates", "--books": "tictacgo/proof/books", "--sizes": "3 4 5",
                    "--max-left": "15", "--book-max-left": "13", "--table-bits": "23", "--json": "None",
                    "--leaf-rules": "none"}),
    ("make_endgames", {"--count": "10000", "--max-left": "10", "--seed": "0", "--workers": "1",
                       "--agents": "random greedy aggressive alphabeta mcts:sims=200 ppo",
                       "--out": "tests/data/littlego_endgames.npz"}),
    ("solve_small", {"--sizes": "3 4", "--time-limit": "none", "--moves": "True", "--table-bits": "22",
                     "--komi-table": "False", "--json": "None"}),
    ("solve_subtrees", {"--dir": "none: required", "--opening": "the empty board", "--size": "5",
                        "--seed": "0", "--workers": "the CPU count; with --ray, the cluster's CPUs",
                        "--line": "az", "--start-left": "12", "--hint-depth": "0", "--table-bits": "24",
                        "--ray": "False", "--share-tables": "True", "--every": "600.0", "--progress": "60.0",
                        "--resume": "False"}),
])
def test_the_flags_and_defaults_are_the_argparse_versions(name, expected):
    shown = help_defaults(name)
    assert {flag: shown.get(flag) for flag in expected} == expected


@pytest.mark.parametrize(("name", "flag"), [("check_endgames_bounds", "--file"), ("make_books", "--books"),
                                            ("make_endgames", "--out")])
def test_the_default_files_are_the_ones_in_the_repository(name, flag):
    assert (ROOT / help_defaults(name)[flag]).exists()  # the benchmark file, the shipped books folder


@dataclass
class Flags:
    sizes: list[int] = setting([3, 4], "Board sizes.")
    pairings: list[str] = setting(["a/b"], "Pairings.")
    moves: bool = setting(True, "Solve the moves.")
    time_limit: float | None = setting(None, "Seconds.")
    out: str = setting("x", "A file.")


def test_lists_take_several_values_and_on_off_flags_both_ways():
    args = parse_options(Flags(), ["--sizes", "5", "6", "--pairings", "c/d", "--no-moves",
                                   "--time-limit", "7200"])
    assert (args.sizes, args.pairings, args.moves, args.time_limit) == ([5, 6], ["c/d"], False, 7200.0)
    assert args.out == "x"
    args = parse_options(Flags(), ["--sizes", "3,4", "--sizes", "7", "--moves"])
    assert (args.sizes, args.moves, args.time_limit) == ([3, 4, 7], True, None)
    assert parse_options(Flags(), []) == Flags()
