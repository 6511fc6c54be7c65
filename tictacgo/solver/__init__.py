"""Exact search for Little-Go: who wins a position with perfect play, and by how much.

Little-Go ends after at most ``n*n - 1`` actions, so its endgames (and the
whole game on small boards) can be searched to the end exactly:

    from tictacgo.solver import solve, move_values, Solver
    result = solve(state, time_limit=1.0)          # value +1 / -1 / 0, or None if unknown
    result = solve(state, margin=True)              # and the exact final margin
    values = move_values(state)                     # every legal action's value

The compiled search needs numba (the ``fast`` extra: ``pip install
'tictacgo[fast]'``); importing this package without it raises ImportError.
The ``solver`` agent of the registry plays exactly where it can prove the
result in time, and falls back to another agent elsewhere
(``tictacgo.baselines.exact.solver_agent``), first from its book of proved moves.

What the solver proves can be written as a certificate and checked by an
independent checker built on the rules core alone:

    from tictacgo.solver import prove, verify, book_from_certificates
    prove(state).write("position.cert")              # tictacgo.solver.certificate
    report = verify("position.cert")                 # tictacgo.solver.checker: raises if it fails
    book_from_certificates(["position.cert"]).write("my.book")   # tictacgo.solver.book
"""

from tictacgo.solver.book import Book, book_from_certificates, book_from_frontier, load_book
from tictacgo.solver.certificate import Certificate, prove
from tictacgo.solver.checker import CertificateError, CheckReport, verify
from tictacgo.solver.search import (
    KernelPosition,
    Solver,
    SolveResult,
    actions_left,
    kernel_position,
    move_values,
    position_key,
    solve,
)

__all__ = ["Book", "Certificate", "CertificateError", "CheckReport", "KernelPosition", "Solver",
           "SolveResult", "actions_left", "book_from_certificates", "book_from_frontier", "kernel_position",
           "load_book", "move_values", "position_key", "prove", "solve", "verify"]
