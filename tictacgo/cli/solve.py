"""``tictacgo solve``: solve a Little-Go position, write its proof, check a proof, build a book.

    tictacgo solve --size 3 --certificate 3x3.cert       # solve the empty 3x3 board, write the proof
    tictacgo solve --line "2,2 3,3 2,3" --time-limit 60  # a 5x5 position, after these moves
    tictacgo solve --verify 3x3.cert                     # check a proof with the rules core alone
    tictacgo solve --book my.book 3x3.cert more.cert     # a book for the solver agent (solver:book=my.book)

The first form prints the value (and the time and positions searched);
``--certificate`` writes the proof (``tictacgo.proof.certificate``), its lines
ending at game ends or where the pass bound settles a position
(``--leaf-rules none``: every line to the game's end).
``--verify`` checks a certificate (``tictacgo.proof.checker``) and prints what
it proves, or the first position where the proof fails. ``--book`` checks
each certificate and writes their moves as a book (each ``--frontier`` adds
the positions a ``scripts/solve_frontier.py`` run proved won). Exit status 0 on
success, 1 when a certificate does not prove its claim or a position is not
solved in time, 2 for bad arguments or a file that cannot be read or
written, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=int, default=5, help="board size (2 to 7; default 5)")
    parser.add_argument("--komi", type=float, default=None, help="komi (default: size / 2)")
    parser.add_argument("--max-actions", type=int, default=None,
                        help="the action limit, 1 to 127 (default: size * size - 1)")
    parser.add_argument("--line", default="", metavar="MOVES",
                        help="solve the position after these moves from the empty board, as the course "
                             "writes them: 'i,j' or PASS separated by spaces (default: the empty board)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                        help="give up after this many seconds of search (default: no limit)")
    parser.add_argument("--table-bits", type=int, default=None,
                        help="log2 of the solver's table entries, 4 to 30, 13 bytes each (default: by the "
                             "machine's memory, an eighth of it, from 22 (52 MB) to 26 (872 MB))")
    parser.add_argument("--no-book", action="store_true",
                        help="search even where the package's book or proof gives the value")
    parser.add_argument("--progress", type=float, default=None, metavar="SECONDS",
                        help="print the positions searched and the rate every this many seconds of a "
                             "search without --time-limit (default: every 5 s on a terminal, else never)")
    parser.add_argument("--certificate", default=None, metavar="OUT",
                        help="write the proof of the value to this file")
    parser.add_argument("--leaf-rules", default="pass_bound", metavar="RULES",
                        help="with --certificate: the checker's rules that may settle a position before the "
                             "game ends, separated by commas (pass_bound: the side passing every time "
                             "still gets the outcome; pass_alive: the same, counting pass-alive chains), "
                             "or none to follow every line to the game's end (default pass_bound)")
    parser.add_argument("--prefer-known", action="store_true",
                        help="with --certificate: where the winner moves, first a move that ends the game "
                             "won, reaches a position the proof has met, or one the leaf rules settle, and "
                             "the solver's only where there is none (a smaller certificate)")
    parser.add_argument("--verify", default=None, metavar="FILE",
                        help="check the certificate FILE with the rules core alone (nothing is solved)")
    parser.add_argument("--book", default=None, metavar="OUT",
                        help="check the certificates given as arguments and write their moves as a book")
    parser.add_argument("--frontier", action="append", default=None, metavar="JSON",
                        help="with --book: add the positions a scripts/solve_frontier.py run proved won "
                             "(or scripts/combine_proofs.py found); repeat it for more runs")
    parser.add_argument("certificates", nargs="*", metavar="CERT", help="with --book: certificate files")
    parser.add_argument("--max-mb", type=float, default=512,
                        help="refuse a certificate larger than this many MB (default 512)")


def _error(message: str) -> int:
    print(f"tictacgo solve: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from tictacgo.validate import MissingExtraError

    try:
        import tictacgo.solver  # noqa: F401 (the command needs numba in every mode, --verify included)
    except MissingExtraError as e:
        return _error(str(e))
    if args.verify is not None and args.book is not None:
        return _error("give either --verify FILE or --book OUT, not both")
    from tictacgo.validate import check_options

    try:
        check_options(args, numeric_options())
    except ValueError as e:
        return _error(str(e))
    if args.certificates and args.book is None:
        return _error(f"certificate files ({' '.join(args.certificates)}) are read only with --book OUT")
    if args.frontier is not None and args.book is None:
        return _error("--frontier is read only with --book OUT")
    if args.verify is not None:
        return _verify(args.verify, int(args.max_mb * 2**20))
    if args.book is not None:
        return _book(args)
    return _solve(args)


def numeric_options() -> dict[str, dict]:
    """The numeric options and their bounds, checked at once before any work
    (``tictacgo.validate.check_options``): finite, in range, named by their flags."""
    from tictacgo.proof.proof_file import MAX_ACTIONS, MAX_KOMI

    return {"komi": {"min": -MAX_KOMI, "max": MAX_KOMI, "allow_none": True},
            "max_actions": {"min": 1, "max": MAX_ACTIONS, "allow_none": True},
            "time_limit": {"positive": True, "allow_none": True},
            "table_bits": {"min": 4, "max": 30, "allow_none": True},
            "progress": {"positive": True, "allow_none": True},
            "max_mb": {"positive": True}}


def _verify(path: str, max_bytes: int) -> int:
    from tictacgo.proof.checker import CertificateError, verify
    from tictacgo.proof.proof_file import ProofFileError

    try:
        report = verify(path, max_bytes=max_bytes)
    except ProofFileError as e:
        return _error(str(e))
    except CertificateError as e:
        print(f"tictacgo solve: not proved: {e}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


def _book(args: argparse.Namespace) -> int:
    from tictacgo.atomic import check_writable
    from tictacgo.proof.book import book_from_certificates, book_from_frontier
    from tictacgo.proof.checker import CertificateError
    from tictacgo.proof.proof_file import ProofFileError

    if not args.certificates and args.frontier is None:
        return _error("--book OUT needs certificate files (CERT ...) or --frontier JSON")
    try:
        check_writable(args.book)
    except ValueError as e:
        return _error(f"--book: {e}")
    try:
        book = book_from_certificates(args.certificates, max_bytes=int(args.max_mb * 2**20)) \
            if args.certificates else None
        for path in args.frontier or ():
            book = book_from_frontier(path, book)
    except ProofFileError as e:  # a file that cannot be read (a certificate's malformed header too)
        return _error(str(e))
    except CertificateError as e:
        print(f"tictacgo solve: not proved: {e}", file=sys.stderr)
        return 1
    except (ValueError, OSError) as e:
        return _error(str(e))
    path = book.write(args.book)
    print(f"wrote {path}: {len(book):,} positions ({path.stat().st_size:,} bytes)")
    for source in book.sources:
        print(f"  {source}")
    return 0


def _solve(args: argparse.Namespace) -> int:
    from tictacgo.atomic import check_writable
    from tictacgo.games import littlego
    from tictacgo.proof.certificate import leaf_rule_names
    from tictacgo.protocol.coords import course_to_action
    from tictacgo.solver.search import MAX_SIZE

    try:
        game = littlego.LittleGo(args.size, args.komi, args.max_actions)
        if game.size > MAX_SIZE:
            raise ValueError(f"the solver handles boards up to {MAX_SIZE}x{MAX_SIZE}, got --size {game.size}")
        state, line = game.initial_state(), []
        for text in args.line.split():
            action = game.pass_action if text == "PASS" else course_to_action(text, game.size)
            state = littlego.play(state, action)
            line.append(action)
        if state.end is not None:
            raise ValueError(f"the game is over after --line {args.line!r} ({state.end}); nothing to solve")
        if args.certificate is not None:
            check_writable(args.certificate)
        leaf_rules = leaf_rule_names(args.leaf_rules)
    except ValueError as e:  # also the rules' IllegalActionError
        return _error(str(e))
    from tictacgo.proof.certificate import claim_of, print_progress, prove
    from tictacgo.solver import Solver

    where = f"after {args.line.strip()}" if line else "the empty board"
    if args.certificate is None and not args.no_book:
        known = known_value(state)
        if known is not None:
            print(f"{claim_of(known[0], state.to_move)} ({game.size}x{game.size}, komi {game.komi:g}, "
                  f"{game.max_actions} actions, {where}): {known[1]}; not searched (--no-book searches)")
            return 0
    try:
        solver = Solver(args.table_bits if args.table_bits is not None else default_table_bits())
    except ValueError as e:
        return _error(f"--table-bits: {e}")
    every = args.progress if args.progress is not None else 5.0 if sys.stderr.isatty() else None
    if every is not None and args.time_limit is None:
        solver.progress = _progress_printer(every)
    start = time.perf_counter()
    if args.certificate is None:
        result = solver.solve(state, time_limit=args.time_limit)
        if result.value is None:
            print(f"unknown: not solved within {args.time_limit} s ({result.nodes:,} positions)")
            return 1
        print(f"{claim_of(result.value, state.to_move)} ({game.size}x{game.size}, komi {game.komi:g}, "
              f"{game.max_actions} actions, {where}); {result.nodes:,} positions in {result.seconds:.2f} s")
        return 0
    try:
        cert = prove(state, solver, line=line, time_limit=args.time_limit, progress=print_progress,
                     leaf_rules=leaf_rules, prefer_known=args.prefer_known)
    except TimeoutError as e:
        print(f"unknown: {e}")
        return 1
    path = cert.write(args.certificate)
    rows = ", ".join(f"{name} {len(t):,}" for name, t in cert.strategies.items())
    if cert.settled:
        rows += f"; {cert.settled:,} settled by {', '.join(cert.leaves[1:])}"
    print(f"{cert.claim} ({game.size}x{game.size}, komi {game.komi:g}, {game.max_actions} actions, {where}); "
          f"wrote {path}: {cert.rows:,} rows ({rows}), {path.stat().st_size:,} bytes, "
          f"{cert.oracle_nodes:,} positions searched in {time.perf_counter() - start:.1f} s")
    return 0


def known_value(state) -> tuple[int, str] | None:
    """(the mover's value, where it comes from) when the package's book of the variant settles ``state``
    without a search, else None: the book holds it (won or drawn, with a move that keeps it), or every
    legal action leads to a game end or a position the book holds won for the opponent."""
    from tictacgo.games import littlego
    from tictacgo.proof.book import default_book

    game = state.game
    book = default_book(game.size, game.komi, game.max_actions)
    if book is None:
        return None
    hit = book.lookup(state)
    what = ("the package's book (its moves come from certificates the checker verified and from "
            "positions the solver's runs proved; docs/value-5x5.md)")
    if hit is not None:
        move = "PASS" if hit[0] == game.pass_action else f"{hit[0] // game.size},{hit[0] % game.size}"
        return hit[1], f"from {what}: {move} keeps it"
    for action in littlego.legal_actions(state):
        child = littlego.play(state, action)
        if child.end is not None:
            if littlego.returns(child)[state.to_move - 1] >= 0:
                return None
            continue
        reply = book.lookup(child)
        if reply is None or reply[1] <= 0:
            return None
    return -1, f"every move leads to a position that {what} holds won for the opponent"


def default_table_bits(low: int = 22, high: int = 26) -> int:
    """The solver's table size for this machine: the largest ``2**bits`` entries (13 bytes each) in an
    eighth of its memory, between ``low`` and ``high``."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the small table
        return low
    bits = low
    while bits < high and 13 * 2 ** (bits + 1) <= memory / 8:
        bits += 1
    return bits


def _progress_printer(every: float):
    """A ``Solver.progress`` that prints a line on stderr every ``every`` seconds."""
    last = [0.0]

    def show(positions: int, seconds: float) -> None:
        if seconds - last[0] >= every:
            last[0] = seconds
            print(f"tictacgo solve: {positions:,} positions in {seconds:,.0f} s "
                  f"({positions / max(seconds, 1e-9):,.0f} a second)", file=sys.stderr, flush=True)

    return show
