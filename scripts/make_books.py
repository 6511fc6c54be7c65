"""Prove, check and ship: the certificates behind the solver agent's books, and the books.

For the course's game on 3x3 and 4x4 it proves the value of the empty board
and writes its certificate; on 5x5 it proves the positions of the frontier
run's line (``docs/data/solver_frontier_5x5.json``) with at most
``--max-left`` actions to go. Every certificate is then checked by the
independent checker (``tictacgo.proof.checker``), its size reported
(positions, bytes, time to extract and to check), and the books are built
from the checked certificates (5x5: those with at most ``--book-max-left``
actions to go, which keeps the shipped book small, plus the positions the
frontier runs proved further from the end, ``FRONTIER_RESULTS``):

    python scripts/make_books.py --out certificates --books tictacgo/solver/books

Each search runs on one core. By default every line of a certificate goes to
the game's end (``--leaf-rules none``), as in the certificates the shipped
books were built from: a book takes its moves from a certificate's rows, and
a position settled by a leaf rule (``--leaf-rules pass_bound``) holds none.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.games import littlego
from tictacgo.proof.book import BOOKS_DIR, book_file_name, book_from_certificates, book_from_frontier
from tictacgo.proof.certificate import leaf_rule_names, print_progress, prove
from tictacgo.proof.checker import verify
from tictacgo.solver import Solver

DATA = Path(__file__).resolve().parents[1] / "docs" / "data"
FRONTIER = DATA / "solver_frontier_5x5.json"
#: The frontier results whose won positions the 5x5 book adds (not checked by a certificate): the
#: line's run, the runs after Black's centre, and what combine_proofs.py found from them.
FRONTIER_RESULTS = [FRONTIER, DATA / "frontier_22_to_go.json",
                    *sorted((DATA / "after_centre").glob("*.json")), DATA / "empty_board.json"]


def line_positions(frontier: Path, max_left: int) -> list[tuple[list[int], littlego.GoState]]:
    """The frontier line's positions with at most ``max_left`` actions to go that the run proved."""
    run = json.loads(frontier.read_text())
    game = littlego.LittleGo(run["size"], run["komi"], run["max_actions"])
    n = game.size
    line = [n * n if m == "PASS" else int(m.split(",")[0]) * n + int(m.split(",")[1]) for m in run["line"]]
    out = []
    for entry in run["positions"]:
        if entry["value_for_black"] is None or entry["left"] > max_left:
            continue
        state = game.initial_state()
        for a in line[:entry["taken"]]:
            state = littlego.play(state, a)
        out.append((line[:entry["taken"]], state))
    return sorted(out, key=lambda x: x[1].t, reverse=True)


def certify(state: littlego.GoState, line: list[int], path: Path, table_bits: int,
            leaf_rules: tuple[str, ...] = ()) -> dict:
    """Prove ``state``, write and check its certificate; what it cost."""
    cert = prove(state, Solver(table_bits), line=line, progress=print_progress, leaf_rules=leaf_rules)
    cert.write(path)
    report = verify(path)
    row = {"file": path.name, "claim": cert.claim, "root": report.root_line, "rows": cert.rows,
           "settled": cert.settled, "bytes": path.stat().st_size, "solver_positions": cert.oracle_nodes,
           "extract_seconds": round(cert.seconds, 1), "check_seconds": round(report.seconds, 1),
           "checked_positions": report.positions}
    print(json.dumps(row), flush=True)
    return row


@dataclass
class Args:
    out: str = setting("certificates", "Folder for the certificates.")
    books: str = setting(str(BOOKS_DIR), "Folder for the books.", default_text="tictacgo/solver/books")
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
    out, books = Path(args.out), Path(args.books)
    out.mkdir(parents=True, exist_ok=True)
    books.mkdir(parents=True, exist_ok=True)
    Solver(8).solve(littlego.LittleGo(2).initial_state())  # compile the search before any timing
    rows = []
    for n in args.sizes:
        start = time.perf_counter()
        game = littlego.LittleGo(n)
        if n < 5:
            jobs = [([], game.initial_state())]
        else:
            jobs = [(line, state) for line, state in line_positions(FRONTIER, args.max_left)]
        paths = []
        for line, state in jobs:
            path = out / f"littlego_{n}x{n}_{'empty' if not line else f'after{len(line)}'}.cert"
            rows.append(certify(state, line, path, args.table_bits, leaf_rules))
            if n < 5 or game.max_actions - state.t <= args.book_max_left:
                paths.append(path)
        book = book_from_certificates(paths)
        if n == 5:
            for path in FRONTIER_RESULTS:
                book = book_from_frontier(path, book)
        target = books / book_file_name(game)
        book.write(target)
        print(f"{n}x{n}: book {target}: {len(book):,} positions, {target.stat().st_size:,} bytes "
              f"({time.perf_counter() - start:.0f} s in all)", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
