"""The check records of a proof's leaf certificates as a table: one row per leaf, and the totals.

``scripts/certify_leaves.py`` writes a record beside each certificate it
makes and checks (``tictacgo.proof.check_records``: how it was made, what
the checker said). This prints them as the Markdown rows of docs/solver.md's
table of the empty board's leaves, in the order their checks ended, then
the totals and the rate of checks in a time window:

    python scripts/leaf_records.py docs/data/empty_board_leaves
    python scripts/leaf_records.py runs/empty_board_certs --since 2026-11-27T15:00:00Z

A figure a record does not hold (a record written before it held how the
certificate was made, or held it under another name) is shown as "—"; a
record that is not bounded JSON with finite numbers is an error naming it.
"winner's moves": how the certificate chose the winner's move at each of its
positions (``prove``'s ``prefer_known``: known moves first, or the solver's
own). The work is ``tictacgo.proof.check_records.print_records_table``; this
script is its command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tictacgo.cli import guard_output
from tictacgo.proof.check_records import estimate_left, parse_time, print_records_table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", help="a folder of check records (NAME.json)")
    p.add_argument("--since", default=None, metavar="TIME",
                   help="only the leaves whose check ended at or after this UTC time (2026-11-27T15:00:00Z)")
    p.add_argument("--left-from", default=None, metavar="FOLDER",
                   help="also estimate the process time of the leaves still to do from the records of an "
                        "earlier run over the same leaves (their checks' positions)")
    args = p.parse_args(argv)
    folder = Path(args.folder)
    if not folder.is_dir():
        p.error(f"{args.folder!r} is not a folder")
    since = None
    if args.since is not None:
        try:
            since = parse_time(args.since)
        except ValueError:
            p.error(f"--since {args.since!r}: expected a UTC time such as 2026-11-27T15:00:00Z")
    code = print_records_table(folder, since, args.since)
    if args.left_from and code == 0:
        try:
            print(estimate_left(folder, args.left_from))
        except ValueError as e:
            print(f"leaf_records.py: error: {e}", file=sys.stderr)
            return 2
    return code


if __name__ == "__main__":
    sys.exit(guard_output("leaf_records.py", main))
