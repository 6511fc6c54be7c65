"""Prove, check and ship: the certificates behind the solver agent's books, and the books.

For the course's game on 3x3 and 4x4 it proves the value of the empty board
and writes its certificate; on 5x5 it proves the positions of the frontier
run's line (``docs/data/solver_frontier_5x5.json``) with at most
``--max-left`` actions to go. Every certificate is then checked by the
independent checker (``tictacgo.proof.checker``), its size reported
(positions, bytes, time to extract and to check), and the books are built
from the checked certificates (5x5: those with at most ``--book-max-left``
actions to go, which keeps the shipped book small, plus the positions the
frontier runs proved further from the end, ``shipped_books.frontier_results``):

    python scripts/make_books.py --out certificates --books tictacgo/proof/books

Each search runs on one core. By default every line of a certificate goes to
the game's end (``--leaf-rules none``), as in the certificates the shipped
books were built from: a book takes its moves from a certificate's rows, and
a position settled by a leaf rule (``--leaf-rules pass_bound``) holds none.
The work is ``tictacgo.proof.shipped_books``; this script is its command line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.proof.book import BOOKS_DIR
from tictacgo.proof.certificate import leaf_rule_names
from tictacgo.proof.shipped_books import make_books

DATA = Path(__file__).resolve().parents[1] / "docs" / "data"


@dataclass
class Args:
    out: str = setting("certificates", "Folder for the certificates.")
    books: str = setting(str(BOOKS_DIR), "Folder for the books.", default_text="tictacgo/proof/books")
    sizes: list[int] = setting([3, 4, 5], "Board sizes.")
    max_left: int = setting(15, "5x5: line positions with at most this many actions to go.")
    book_max_left: int = setting(13, "5x5: the book takes the certificates with at most this many actions "
                                 "to go.")
    table_bits: int = setting(23, "Log2 of the solver's table entries.")
    json: str | None = setting(None, "Write the certificates' sizes to this JSON file.")
    leaf_rules: str = setting("none", "The checker's rules that may settle a certificate's position before "
                              "the game ends, separated by commas (pass_bound, pass_alive), or none: every "
                              "line to the game's end, as the shipped books' certificates.")


def main(argv: list[str] | None = None) -> None:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    leaf_rules = leaf_rule_names(args.leaf_rules)
    rows = make_books(Path(args.out), Path(args.books), DATA, tuple(args.sizes), args.max_left,
                      args.book_max_left, args.table_bits, leaf_rules)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
