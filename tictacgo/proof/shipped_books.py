"""How the books the package ships are made: prove, check, then book the checked certificates' moves.

For the course's game on 3x3 and 4x4 it proves the value of the empty board
and writes its certificate; on 5x5 it proves the positions of the frontier
run's line (``solver_frontier_5x5.json`` in the data folder,
``docs/data`` in the repository) with at most ``max_left`` actions to go.
Every certificate is then checked by the independent checker
(``tictacgo.proof.checker``), its size reported (positions, bytes, time to
extract and to check), and the books are built from the checked
certificates (5x5: those with at most ``book_max_left`` actions to go, which
keeps the shipped book small, plus the positions the frontier runs proved
further from the end, ``frontier_results``). ``scripts/make_books.py`` is
the command line:

    make_books(Path("certificates"), BOOKS_DIR, data=Path("docs/data"))

Each search runs on one core. By default every line of a certificate goes to
the game's end (no leaf rule), as in the certificates the shipped books were
built from: a book takes its moves from a certificate's rows, and a position
settled by a leaf rule holds none.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tictacgo.games import littlego
from tictacgo.proof.book import book_file_name, book_from_certificates, book_from_frontier
from tictacgo.proof.certificate import print_progress, prove
from tictacgo.proof.checker import verify
from tictacgo.solver import Solver

#: The 5x5 frontier run whose line's proved positions get certificates, in the data folder.
FRONTIER = "solver_frontier_5x5.json"


def frontier_results(data: Path) -> list[Path]:
    """The frontier results whose won positions the 5x5 book adds (not checked by a certificate), in
    the data folder ``data``: the line's run, the runs after Black's centre, and what
    combine_proofs.py found from them."""
    return [data / FRONTIER, data / "frontier_22_to_go.json", *sorted((data / "after_centre").glob("*.json")),
            data / "empty_board.json"]


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
    """Prove ``state``, write and check its certificate; what it cost (printed as one JSON line too)."""
    cert = prove(state, Solver(table_bits), line=line, progress=print_progress, leaf_rules=leaf_rules)
    cert.write(path)
    report = verify(path)
    row = {"file": path.name, "claim": cert.claim, "root": report.root_line, "rows": cert.rows,
           "settled": cert.settled, "bytes": path.stat().st_size, "solver_positions": cert.oracle_nodes,
           "extract_seconds": round(cert.seconds, 1), "check_seconds": round(report.seconds, 1),
           "checked_positions": report.positions}
    print(json.dumps(row), flush=True)
    return row


def make_books(out: Path, books: Path, data: Path, sizes: tuple[int, ...] = (3, 4, 5), max_left: int = 15,
               book_max_left: int = 13, table_bits: int = 23, leaf_rules: tuple[str, ...] = ()) -> list[dict]:
    """Make the certificates in ``out`` and the books in ``books`` (see the module docstring), printing
    each certificate's figures and each book's size; the certificates' figures.

    Args:
        out: the folder for the certificates (made if missing).
        books: the folder for the books (made if missing).
        data: the folder of the frontier results (``docs/data`` in the repository).
        sizes: the board sizes.
        max_left: 5x5: the line's positions with at most this many actions to go get certificates.
        book_max_left: 5x5: the book takes the certificates with at most this many actions to go.
        table_bits: log2 of the solver's table entries.
        leaf_rules: the checker's rules that may settle a certificate's position before the game ends.
    """
    out.mkdir(parents=True, exist_ok=True)
    books.mkdir(parents=True, exist_ok=True)
    Solver(8).solve(littlego.LittleGo(2).initial_state())  # compile the search before any timing
    rows = []
    for n in sizes:
        start = time.perf_counter()
        game = littlego.LittleGo(n)
        if n < 5:
            jobs = [([], game.initial_state())]
        else:
            jobs = [(line, state) for line, state in line_positions(data / FRONTIER, max_left)]
        paths = []
        for line, state in jobs:
            path = out / f"littlego_{n}x{n}_{'empty' if not line else f'after{len(line)}'}.cert"
            rows.append(certify(state, line, path, table_bits, leaf_rules))
            if n < 5 or game.max_actions - state.t <= book_max_left:
                paths.append(path)
        book = book_from_certificates(paths)
        if n == 5:
            for path in frontier_results(data):
                book = book_from_frontier(path, book)
        target = books / book_file_name(game)
        book.write(target)
        print(f"{n}x{n}: book {target}: {len(book):,} positions, {target.stat().st_size:,} bytes "
              f"({time.perf_counter() - start:.0f} s in all)", flush=True)
    return rows
