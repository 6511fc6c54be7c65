"""``tictacgo demo``: a short tour of the envs and agents (``tictacgo.demo``).

Exit status 0; 2 for bad arguments (``--games`` below 1, a negative
``--seed``); 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys

from tictacgo.demo import tour


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=20, help="games per pairing in the table (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="non-negative seed (default 0)")


def run(args: argparse.Namespace) -> int:
    for flag, value, least in (("--games", args.games, 1), ("--seed", args.seed, 0)):
        if value < least:
            print(f"tictacgo demo: error: {flag} must be at least {least}, got {value}", file=sys.stderr)
            return 2
    tour(args.games, args.seed)
    return 0
