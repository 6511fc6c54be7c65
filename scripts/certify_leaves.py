"""Make a combined value checkable: certificates of the positions its proof passes through, then the check.

``scripts/combine_proofs.py`` finds the value of a position from frontier runs'
values. This finds the positions ``--depth`` actions below it that the proof
by those runs passes through (the mover's proved winning move where the
mover wins, every move elsewhere: ``tictacgo.proof.proof_leaves``), makes
the certificate of each that ``--dir`` does not hold yet (the solver, then the
extraction; one solver table for all), checks each with the checker as it
comes (``NAME.json`` beside ``NAME.cert`` records the check), and then
combines the certificates alone: the value they give needs nothing but the
rules core. Stopped (Ctrl-C, SIGTERM; either takes effect once the solver's
search in progress returns, which may take minutes, and a kill loses no
more), it loses the leaf in progress; the same command goes on with it.

    python scripts/certify_leaves.py --dir runs/empty_board_certs --opening "2,2" --depth 3 \\
        docs/data/frontier_22_to_go.json docs/data/after_centre/*.json

``--shard 0/2`` and ``--shard 1/2`` split the leaves between two such commands
(two cores); the command without ``--shard`` then finds them all made and
checks the value.

The certificates of a deep proof take GBs (6 to 73 MB each 20 actions from
the end); their records are small. ``--records DIR`` (a folder of records
kept from earlier jobs, such as docs/data/empty_board_leaves) counts each
leaf whose check is recorded there as done: it is not made again, and the
combination takes the claim the checker accepted from its record.

Values are printed with how they are known: "checked" only when they
follow from certificates the checker accepted in this run; a value that
rests on records of earlier checks (``--records``, or certificates whose
record holds their bytes, not read again without ``--recheck``) says so.

Exit status 0 when the value is checked in this run (or, with
``--trust-records``, rests on records too), 1 when it is not (yet), 2 on bad
input or a record that disagrees with its certificate, 130 when stopped.

The work is ``tictacgo.proof.leaf_job`` (``LeafJob``, whose fields are these
flags, and ``run_leaf_job``); this script is its command line.
"""

from __future__ import annotations

import argparse
import sys

from tictacgo.cli import guard_output
from tictacgo.proof.leaf_job import LeafJob, UsageError, run_leaf_job


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", metavar="RUN_JSON",
                   help="the frontier runs' JSON files whose values prove the position")
    p.add_argument("--dir", required=True,
                   help="folder for the certificates and status.json (made if missing)")
    p.add_argument("--opening", default="",
                   help="the moves from the empty board to the position ('row,col' or PASS, space-separated)")
    p.add_argument("--depth", type=int, default=1,
                   help="actions below the position to the leaves (default 1)")
    p.add_argument("--table-bits", type=int, default=26,
                   help="log2 of the solver's table entries, 13 bytes each (default 26: 872 MB)")
    p.add_argument("--leaf-rules", default="pass_bound",
                   help="the checker's rules that may settle a certificate's position, separated by commas, "
                        "or none (default pass_bound)")
    p.add_argument("--shard", default=None, metavar="I/N",
                   help="make only the leaves I, I+N, I+2N, ... (I from 0): N commands with I = 0 .. N-1 "
                        "share the work on N cores; a last run without it checks them all")
    p.add_argument("--checks-at-once", type=int, default=1,
                   help="jobs on one --dir check at most this many certificates at a time (default 1; "
                        "a 20-million-row certificate takes about 4 GB to check)")
    p.add_argument("--solver-moves", action="store_true",
                   help="take the solver's move at each of the winner's positions (default: first a move "
                        "that ends the game won, reaches a position the proof has met, or one the pass bound "
                        "settles, which makes smaller certificates)")
    p.add_argument("--max-mb", type=float, default=4096,
                   help="the checker reads certificates up to this size, packed and unpacked (default 4096 "
                        "MB: a certificate 20 actions from the end can unpack to more than the checker's "
                        "usual 512)")
    p.add_argument("--recheck", action="store_true",
                   help="at the end, check every certificate again (default: one whose record of a check "
                        "holds its very bytes is taken as checked)")
    p.add_argument("--records", default=None, metavar="DIR",
                   help="a folder of check records kept from earlier jobs (NAME.json, as --dir holds them): "
                        "the leaves they record a check of are not made again, and the value takes the "
                        "checker's claims from them (their certificates need not be kept)")
    p.add_argument("--shared-table", action="store_true",
                   help="carry one solver table from leaf to leaf (fewer positions searched, but a "
                        "certificate then depends on the leaves made before it; default: a new table for "
                        "each leaf, which makes each certificate the same file whenever it is made)")
    p.add_argument("--book-until", type=int, default=None, metavar="T",
                   help="also write NAME.book beside each checked certificate: its moves at positions with "
                        "at most T actions played (a book fragment)")
    p.add_argument("--trust-records", action="store_true",
                   help="exit 0 when the value rests on records of earlier checks too (it is still printed "
                        "as from records, not re-checked); by default only a value checked in this run does")
    p.add_argument("--list", action="store_true", help="print the leaves and what is done, make nothing")
    p.add_argument("--json", default=None, metavar="OUT",
                   help="write the combined values here, as combine_proofs.py --json does (with each "
                        "position's checked mark), once every leaf is done")
    args = p.parse_args(argv)
    job = LeafJob(**vars(args))
    try:
        job.check()
        return run_leaf_job(job)
    except UsageError as e:  # before any work, or a --dir that is not a folder: argparse's error, status 2
        p.error(str(e))


if __name__ == "__main__":
    sys.exit(guard_output("certify_leaves.py", main))
