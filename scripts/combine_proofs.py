"""The value of a Little-Go position from frontier runs and certificates that proved positions below it.

Each run (``scripts/solve_frontier.py --json``) proves the positions of one
line; each certificate (``tictacgo solve --certificate``) one position, once
the checker accepts it. Given those that start with ``--opening`` and one
reply each, this plays every legal action at the position after the opening
with the rules core, finds each resulting position (or one of its 8
symmetric images) among the proved ones (``--depth`` above 1: looks that many
actions deep), and prints the minimax value: the position after the
opening, then each position of the opening back to the empty board (a win
for its mover where the opening's move there wins). It trusts the runs'
values and searches nothing (``tictacgo.proof.combine``: ``combine_and_report``
is this command's work); a value that needs only game ends and certificates
is marked "checked".

    python scripts/combine_proofs.py --opening "2,2" docs/data/frontier_22_to_go.json \\
        docs/data/after_centre/*.json --json docs/data/empty_board.json

Exit status 0 when the position after the opening is decided, 1 when
children are missing (they are named), 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys

from tictacgo.atomic import check_writable
from tictacgo.cli import guard_output
from tictacgo.proof.combine import combine_and_report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", metavar="RESULT",
                   help="frontier runs' JSON files and certificates, of one variant")
    p.add_argument("--opening", default="",
                   help="the moves from the empty board to the position to decide ('row,col' or PASS, "
                        "space-separated; default: none, the empty board itself)")
    p.add_argument("--depth", type=int, default=1,
                   help="actions below the position to look for proved ones (default 1: its children)")
    p.add_argument("--json", default=None, metavar="OUT",
                   help="write the values here, as a frontier run's JSON (a book can read it)")
    args = p.parse_args(argv)
    if args.json:
        try:
            check_writable(args.json)
        except (OSError, ValueError) as e:
            p.error(f"--json {args.json!r}: {e}")
    return combine_and_report(args.results, args.opening, args.depth, args.json)


if __name__ == "__main__":
    sys.exit(guard_output("combine_proofs.py", main))
