"""The proof of a Little-Go value: certificates, their independent checker, books, and the whole game's proof.

What the exact search (``tictacgo.solver``) proves can be written as a
certificate and checked by a checker built on the rules core alone:

    from tictacgo.proof import prove, verify, book_from_certificates
    prove(state).write("position.cert")              # tictacgo.proof.certificate (the solver: numba)
    report = verify("position.cert")                 # tictacgo.proof.checker: raises if it fails
    book_from_certificates(["position.cert"]).write("my.book")   # tictacgo.proof.book

Two parts, one above the other:

* **on the rules core alone** (no search, no numba): the position codes
  (``position_code``), the file layout of certificates and books
  (``proof_file``), the checker's leaf rules (``leaf_rules``), the checker
  (``checker``), books (``book``), the records of checks (``check_records``)
  and the minimax over proved values (``combine``);
* **on the search**: making a certificate (``certificate``, with its
  compiled walk ``compiled_extraction``), the certificates of the positions
  a proof passes through (``proof_leaves``; the job of
  ``scripts/certify_leaves.py``: ``leaf_job``), the whole game's proof
  (``proof_job``, behind ``tictacgo prove``) and the shipped books
  (``shipped_books``, behind ``scripts/make_books.py``).

Nothing in the search imports this package. ``prove`` and ``Certificate`` are
imported from ``certificate`` when first asked for, so ``import
tictacgo.proof`` (and ``verify``) needs no numba.
"""

from tictacgo.proof.book import Book, book_from_certificates, book_from_frontier, load_book
from tictacgo.proof.checker import CertificateError, CheckReport, verify

#: Names taken from ``tictacgo.proof.certificate`` when first asked for (it needs the solver: numba).
_FROM_CERTIFICATE = ("Certificate", "prove")


def __getattr__(name: str):
    if name in _FROM_CERTIFICATE:
        from tictacgo.proof import certificate  # the solver, and numba, only when a proof is made

        return getattr(certificate, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Book", "Certificate", "CertificateError", "CheckReport", "book_from_certificates",
           "book_from_frontier", "load_book", "prove", "verify"]
