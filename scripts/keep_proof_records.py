"""Keep a proof job's checked leaves: their records into a kept folder, their moves into the shipped book.

A leaf job (``tictacgo prove``, ``scripts/certify_leaves.py``) writes each
certificate and its check record to its ``--dir``; the certificates take GBs
and stay there, the records are what the project keeps (``docs/data``), and
the book that ``perfect`` plays grows with every leaf checked. This copies
the records of the leaves checked in RUN (their certificates beside them,
the very bytes the checker accepted) into KEPT, and with ``--book``
rebuilds the proof's book from RUN and KEPT (``tictacgo prove --list
--book``) and replaces BOOK with it only when it keeps every row of BOOK
(a row's move may change where both moves are proved wins):

    python scripts/keep_proof_records.py runs/proof_5x5 docs/data/proof_5x5_leaves \\
        --book tictacgo/proof/books/littlego_5x5_komi2.5_24_proof.book
    python scripts/keep_proof_records.py runs/proof_komi3.5 docs/data/proof_komi3.5_leaves

Then ``python scripts/leaf_records.py KEPT`` prints the table of the docs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from tictacgo.atomic import atomic_write_bytes
from tictacgo.cli import guard_output
from tictacgo.proof.book import grown_book, load_book
from tictacgo.proof.check_records import keep_records
from tictacgo.proof.proof_file import ProofFileError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="the job's folder (its NAME.cert and NAME.json)")
    p.add_argument("kept", help="the folder of kept records")
    p.add_argument("--book", default=None, help="the shipped book to grow from the leaves of RUN and KEPT "
                   "(default: no book)")
    p.add_argument("--size", type=int, default=5, help="board size of the proof, for --book (default 5)")
    p.add_argument("--komi", type=float, default=None,
                   help="komi of the proof, for --book (default: the course's for --size)")
    args = p.parse_args(argv)
    try:
        copied = keep_records(args.run, args.kept)
    except ValueError as e:
        print(f"keep_proof_records.py: error: {e}", file=sys.stderr)
        return 2
    print(f"{len(copied)} records copied into {args.kept}" + "".join(f"\n  {p.name}" for p in copied))
    if not args.book:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        new_path = Path(tmp) / "proof.book"
        done = subprocess.run([sys.executable, "-m", "tictacgo.cli", "prove", "--size", str(args.size),
                               *(["--komi", str(args.komi)] if args.komi is not None else []),
                               "--dir", args.run, "--records", args.kept, "--list", "--book", str(new_path)],
                              capture_output=True, text=True)
        if done.returncode != 0 or not new_path.exists():
            print(f"keep_proof_records.py: error: tictacgo prove did not write the book (exit "
                  f"{done.returncode}); {args.book} is left as it was:\n{done.stderr or done.stdout}",
                  file=sys.stderr)
            return 1
        try:
            old, new = load_book(args.book), load_book(new_path)
            moved = grown_book(old, new)
        except ProofFileError as e:
            print(f"keep_proof_records.py: error: {e}", file=sys.stderr)
            return 2
        except ValueError as e:
            print(f"keep_proof_records.py: error: {e}; {args.book} is left as it was", file=sys.stderr)
            return 1
        atomic_write_bytes(args.book, new_path.read_bytes())
    print(f"{args.book}: {len(new):,} rows ({len(new) - len(old):,} new; every old row kept, {moved:,} of "
          f"them with another proved winning move)")
    return 0


if __name__ == "__main__":
    sys.exit(guard_output("keep_proof_records.py", main))
