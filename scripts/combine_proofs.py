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
values and searches nothing (``tictacgo.proof.combine``); a value that needs
only game ends and certificates is marked "checked".

    python scripts/combine_proofs.py --opening "2,2" docs/data/frontier_22_to_go.json \\
        docs/data/after_centre/*.json --json docs/data/empty_board.json

Exit status 0 when the position after the opening is decided, 1 when
children are missing (they are named), 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.cli import guard_output
from tictacgo.evaluation.frontier import fmt_value
from tictacgo.proof.combine import CHECKED, MAX_RESULT_BYTES, RECORDED, UNCHECKED, combine, trust_words
from tictacgo.proof.proof_file import check_result_files


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
    try:
        check_result_files(args.results, MAX_RESULT_BYTES)  # bounded, before combine reads them
        result = combine(args.results, args.opening, args.depth)
    except ValueError as e:  # CertificateError and ProofFileError included
        print(f"error: {e}", file=sys.stderr)
        return 2
    g = result.game
    root = f"after '{' '.join(result.opening)}'" if result.opening else "the empty board"
    print(f"{g.size}x{g.size}, komi {g.komi:g}, {g.max_actions} actions; {len(result.sources)} results read")
    print(f"the {len(result.children)} legal actions {root}:")
    for c in result.children:
        mark = {CHECKED: "checked ", RECORDED: "recorded, not re-checked ", UNCHECKED: ""}[c.checked]
        print(f"  {c.move:>5}  {fmt_value(c.value_for_black):<11} {mark}{c.how}")
    print("values:")
    for k, (v, best) in enumerate(zip(result.values, result.best_moves, strict=True)):
        where = f"after '{' '.join(result.opening[:k])}'" if k else "the empty board"
        move = f" (the mover plays {best})" if best else ""
        how = "" if v is None else {
            CHECKED: ", checked: from game ends and certificates checked now alone",
            RECORDED: f", {trust_words(RECORDED)}", UNCHECKED: ", from the runs' values"}[result.checked[k]]
        print(f"  {where}: {fmt_value(v)}{move}{how}")
    if args.json:
        atomic_write_json(args.json, result.to_json())
        print(f"written to {args.json}")
    if result.root_value is None:
        print(f"undecided: not proved: the position after {', '.join(result.missing)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(guard_output("combine_proofs.py", main))
