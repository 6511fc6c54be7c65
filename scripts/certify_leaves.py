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
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import time
from pathlib import Path

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.cli import guard_output
from tictacgo.evaluation.frontier import fmt_value
from tictacgo.proof.combine import CHECKED, MAX_RESULT_BYTES, RECORDED, UNCHECKED, combine, trust_words
from tictacgo.proof.proof_file import MAX_ACTIONS, check_result_files
from tictacgo.proof.proof_leaves import Made, certify, proof_leaves
from tictacgo.validate import check_options

#: The numeric options and their bounds, checked at once before any work (``check_options``).
NUMERIC_OPTIONS = {"depth": {"min": 1, "max": MAX_ACTIONS}, "table_bits": {"min": 4, "max": 30},
                   "checks_at_once": {"min": 1, "max": 1024}, "max_mb": {"positive": True},
                   "book_until": {"min": 0, "max": MAX_ACTIONS, "allow_none": True}}


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
    if args.json:
        try:
            check_writable(args.json)
        except (OSError, ValueError) as e:
            p.error(f"--json {args.json!r}: {e}")
    try:
        check_options(args, NUMERIC_OPTIONS)
    except ValueError as e:
        p.error(str(e))
    if args.recheck and args.records is not None:
        p.error("--recheck checks every certificate again, which --records' leaves no longer have: leave "
                "out --records to make and check them again")
    max_bytes = int(args.max_mb * (1 << 20))
    from tictacgo.proof.certificate import leaf_rule_names

    try:
        rules = leaf_rule_names(args.leaf_rules)
        shard = parse_shard(args.shard)
        check_result_files(args.results, MAX_RESULT_BYTES)  # bounded, before they are combined
        leaves = proof_leaves(args.results, args.opening, args.depth)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    everything = len(leaves)
    game = leaves[0].state.game if leaves else None
    recorded: dict = {}
    if args.records is not None:
        try:
            recorded = recorded_leaves(leaves, args.records)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        leaves = [leaf for leaf in leaves if leaf.name not in recorded]
    if shard is not None:
        leaves = leaves[shard[0]::shard[1]]
    folder = Path(args.dir)
    if folder.exists() and not folder.is_dir():
        p.error(f"--dir {args.dir!r} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a read-only file system, a missing permission
        p.error(f"--dir {args.dir!r} cannot be made: {e.strerror or e}")
    print(f"{everything} leaves, {args.depth} actions below "
          f"{repr(args.opening) if args.opening else 'the empty board'}"
          f"{f'; {len(recorded)} checked by earlier jobs ({args.records})' if args.records else ''}"
          f"{f'; this shard makes {len(leaves)} of them' if shard else ''}", flush=True)
    if args.list:
        from tictacgo.proof.check_records import moves_of, read_record
        from tictacgo.proof.position_code import canonical
        from tictacgo.proof.proof_leaves import certificates_in

        try:
            found = certificates_in(folder)
        except ValueError as e:  # a .cert in the folder that is not a certificate
            print(f"error: {e}", file=sys.stderr)
            return 2
        done, rows, seconds, waiting = 0, 0, 0.0, 0
        for leaf in leaves:
            path = found.get(canonical(leaf.state)[0])
            record = read_record(path) if path else {}
            checked, made = _figures(record.get("checked")), _figures(record.get("made"))
            state = "to make" if path is None else f"{path.name}, " + (
                f"checked: {_shown(checked['rows'])} rows" if checked is not None else
                f"made ({_shown(made['rows'])} rows in {_shown(made['seconds'], ',.0f')} s), not checked yet"
                if made is not None else "not checked yet")
            print(f"  {' '.join(leaf.moves)}: {state}")
            if checked is not None and None not in (checked["rows"], checked["seconds"]):
                done, rows, seconds = done + 1, rows + checked["rows"], seconds + checked["seconds"]
            waiting += path is not None and checked is None
        for name, record in recorded.items():
            checked = record["checked"]
            print(f"  {' '.join(moves_of(name))}: checked by an earlier job: {checked['rows']:,} rows")
            done, rows, seconds = done + 1, rows + checked["rows"], seconds + checked["seconds"]
        total = len(leaves) + len(recorded)
        print(f"{done} of {total} checked ({rows:,} rows, {seconds:,.0f} s of checks), {waiting} made "
              f"and not checked yet, {total - done - waiting} to make")
        return 0

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    start = time.time()

    def report(m: Made) -> None:
        made, checked = m.record.get("made", {}), m.record.get("checked", {})
        if m.made:
            print(f"[{time.strftime('%H:%M:%S')}] {' '.join(m.leaf.moves)}: {made['rows']:,} rows, "
                  f"{made['solver_positions']:,} positions searched, {made['seconds']:.0f} s -> "
                  f"{m.path.name}", flush=True)
        if m.checked_now:
            print(f"[{time.strftime('%H:%M:%S')}] {m.path.name}: checked, {checked['claim']}, "
                  f"{checked['positions']:,} positions in {checked['seconds']:.0f} s", flush=True)

    try:
        done = certify(leaves, folder, args.table_bits, rules, report=report,
                       checks_at_once=args.checks_at_once, prefer_known=not args.solver_moves,
                       max_bytes=max_bytes, fresh_table=not args.shared_table, book_until=args.book_until)
    except KeyboardInterrupt:
        print(f"stopped after {time.time() - start:.0f} s; the same command goes on with the next leaf",
              flush=True)
        return 130
    except ValueError as e:  # a certificate in the folder that the checker refuses
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{len(done)} of {len(leaves)} leaves certified and checked ({sum(m.made for m in done)} made "
          f"now, {sum(m.checked_now for m in done)} checked now)", flush=True)
    if shard is not None:
        print("a shard's leaves alone do not decide the value: run the command without --shard once "
              "every shard is done")
        return 1
    try:
        result = combine([m.path for m in done], args.opening, args.depth, records=not args.recheck,
                         max_bytes=max_bytes, kept=args.records, game=game,
                         checked_now=[m.path for m in done if m.checked_now])
    except ValueError as e:  # a record that disagrees with its certificate, a conflict, a bad certificate
        print(f"error: {e}", file=sys.stderr)
        return 2
    if result.kept:
        print(f"  ({result.kept} of the leaves from records of earlier checks, their certificates not kept)")
    for k, (v, level) in enumerate(zip(result.values, result.checked, strict=True)):
        where = f"after '{' '.join(result.opening[:k])}'" if k else "the empty board"
        how = "" if v is None or level == UNCHECKED else f", {trust_words(level)}"
        print(f"  {where}: {fmt_value(v)}{how}")
    if args.json:
        atomic_write_json(args.json, result.to_json())
        print(f"written to {args.json}")
    wanted = RECORDED if args.trust_records else CHECKED
    return 0 if result.root_value is not None and result.checked[0] >= wanted else 1


def recorded_leaves(leaves, folder) -> dict[str, dict]:
    """The records in ``folder`` of a check of one of ``leaves`` (its position or an image of it), each
    by the leaf's name; a record of a position that is no leaf is refused (ValueError)."""
    from tictacgo.proof.check_records import read_record, recorded_checks
    from tictacgo.proof.combine import states_along
    from tictacgo.proof.position_code import canonical

    by_code = {canonical(leaf.state)[0]: leaf for leaf in leaves}
    out = {}
    for moves, _claim, path in recorded_checks(folder):
        state = states_along(path, leaves[0].state.game, moves)[-1] if leaves else None
        leaf = by_code.get(canonical(state)[0]) if state is not None else None
        if leaf is None:
            raise ValueError(f"{path}: a record of the position after '{' '.join(moves)}', which is not one "
                             f"of the {len(leaves)} leaves")
        out[leaf.name] = read_record(path.with_suffix(".cert"))
    return out


def _figures(part) -> dict | None:
    """A record's ``checked`` or ``made`` (``check_records``) as ``{"rows", "seconds"}``, each a
    non-negative finite number or None where the record does not hold one; None for no such part."""
    if not isinstance(part, dict):
        return None
    return {key: x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
            and x >= 0 else None for key, x in ((k, part.get(k)) for k in ("rows", "seconds"))}


def _shown(x: float | None, spec: str = ",") -> str:
    """A record's figure, or "?" where it holds none."""
    return "?" if x is None else format(x, spec)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"I/N"`` as ``(I, N)``, with ``0 <= I < N``; None for None."""
    if text is None:
        return None
    parts = text.split("/")
    if len(parts) != 2 or not all(x.strip().isdigit() for x in parts) \
            or not 0 <= int(parts[0]) < int(parts[1]):
        raise ValueError(f"--shard {text!r}: expected I/N with 0 <= I < N, such as 0/2")
    return int(parts[0]), int(parts[1])


if __name__ == "__main__":
    sys.exit(guard_output("certify_leaves.py", main))
