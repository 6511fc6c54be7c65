"""``tictacgo replay FILE.sgf``: replay a Little-Go record and check every move.

``tictacgo.protocol.replay`` does the work and says what the exit status means.
"""

from __future__ import annotations

import argparse

from tictacgo.protocol.replay import replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="an SGF record of a Little-Go game")
    parser.add_argument("--quiet", action="store_true", help="print only the verdict")


def run(args: argparse.Namespace) -> int:
    return replay(args.file, args.quiet)
