"""A job that makes a combined value checkable: the certificates of its leaves, their checks, the value.

``combine`` finds the value of a position from frontier runs' values. This
job finds the positions ``depth`` actions below it that the proof by those
runs passes through (``proof_leaves``), makes the certificate of each that
its folder does not hold yet, checks each as it comes (``NAME.json`` beside
``NAME.cert`` records the check), and then combines the certificates alone:
the value they give needs nothing but the rules core. It is the work of
``scripts/certify_leaves.py``, whose flags are ``LeafJob``'s fields:

    job = LeafJob(results=["run.json"], dir="runs/certs", opening="2,2", depth=3)
    job.check()                     # UsageError: settings refused before any work
    status = run_leaf_job(job)      # prints what it does; the command's exit status

``shard="I/N"`` makes only the leaves I, I+N, ...; ``records`` (a folder of
check records kept from earlier jobs) counts each leaf whose check is
recorded there as done; ``list`` prints where each leaf stands and makes
nothing. Values are printed with how they are known: "checked" only when
they follow from certificates the checker accepted in this run.

The exit status: 0 when the value is checked in this run (or, with
``trust_records``, rests on records too), 1 when it is not (yet), 2 on bad
input or a record that disagrees with its certificate, 130 when stopped
(Ctrl-C or SIGTERM, which take effect once the solver's search in progress
returns; the same job goes on with the leaf in progress).
"""

from __future__ import annotations

import math
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.proof.check_records import moves_of, read_record, recorded_checks
from tictacgo.proof.combine import (
    CHECKED,
    MAX_RESULT_BYTES,
    RECORDED,
    UNCHECKED,
    combine,
    fmt_value,
    states_along,
    trust_words,
)
from tictacgo.proof.position_code import canonical
from tictacgo.proof.proof_file import MAX_ACTIONS, check_result_files
from tictacgo.proof.proof_leaves import Leaf, Made, certificates_in, certify, proof_leaves
from tictacgo.validate import check_options

#: The numeric settings and their bounds, checked at once before any work (``check_options``).
NUMERIC_OPTIONS = {"depth": {"min": 1, "max": MAX_ACTIONS}, "table_bits": {"min": 4, "max": 30},
                   "checks_at_once": {"min": 1, "max": 1024}, "max_mb": {"positive": True},
                   "book_until": {"min": 0, "max": MAX_ACTIONS, "allow_none": True}}


class UsageError(ValueError):
    """Settings the job refuses as a command line's error: before any work, or a ``dir`` that is not
    a folder or cannot be made (the command line shows it as its usage error, exit status 2)."""


@dataclass
class LeafJob:
    """What to certify and how: the flags of ``scripts/certify_leaves.py``, with its defaults.

    Attributes:
        results: the frontier runs' JSON files whose values prove the position.
        dir: the folder for the certificates and their records (made if missing).
        opening: the moves from the empty board to the position ('row,col' or PASS, space-separated).
        depth: actions below the position to the leaves.
        table_bits: log2 of the solver's table entries, 13 bytes each.
        leaf_rules: the checker's rules that may settle a certificate's position, separated by commas,
            or ``none``.
        shard: ``"I/N"``: make only the leaves I, I+N, I+2N, ... (I from 0); None: all.
        checks_at_once: jobs on one ``dir`` check at most this many certificates at a time.
        solver_moves: take the solver's move at each of the winner's positions (default: first a known
            move, which makes smaller certificates).
        max_mb: the checker reads certificates up to this size, packed and unpacked.
        recheck: at the end, check every certificate again.
        records: a folder of check records kept from earlier jobs.
        shared_table: carry one solver table from leaf to leaf.
        book_until: also write ``NAME.book`` beside each checked certificate, its moves at positions
            with at most this many actions played.
        trust_records: exit 0 when the value rests on records of earlier checks too.
        list: print the leaves and what is done, make nothing.
        json: write the combined values here once every leaf is done.
    """

    results: list[str] = field(default_factory=list)
    dir: str = ""
    opening: str = ""
    depth: int = 1
    table_bits: int = 26
    leaf_rules: str = "pass_bound"
    shard: str | None = None
    checks_at_once: int = 1
    solver_moves: bool = False
    max_mb: float = 4096
    recheck: bool = False
    records: str | None = None
    shared_table: bool = False
    book_until: int | None = None
    trust_records: bool = False
    list: bool = False
    json: str | None = None

    def check(self) -> None:
        """Refuse settings before any work: an unwritable ``json``, a number out of its bounds,
        ``recheck`` with ``records``.

        Raises:
            UsageError: naming the flag.
        """
        if self.json:
            try:
                check_writable(self.json)
            except (OSError, ValueError) as e:
                raise UsageError(f"--json {self.json!r}: {e}") from None
        try:
            check_options(self, NUMERIC_OPTIONS)
        except ValueError as e:
            raise UsageError(str(e)) from None
        if self.recheck and self.records is not None:
            raise UsageError("--recheck checks every certificate again, which --records' leaves no longer "
                             "have: leave out --records to make and check them again")


def run_leaf_job(job: LeafJob) -> int:
    """Make, check and combine the leaves of ``job`` (see the module docstring), printing what it does
    on stdout and an error on stderr; the exit status.

    Raises:
        UsageError: ``job.dir`` is not a folder or cannot be made (found once the leaves are known).
    """
    max_bytes = int(job.max_mb * (1 << 20))
    from tictacgo.proof.certificate import leaf_rule_names  # the solver: numba, needed from here on

    try:
        rules = leaf_rule_names(job.leaf_rules)
        shard = parse_shard(job.shard)
        check_result_files(job.results, MAX_RESULT_BYTES)  # bounded, before they are combined
        leaves = proof_leaves(job.results, job.opening, job.depth)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    everything = len(leaves)
    game = leaves[0].state.game if leaves else None
    recorded: dict = {}
    if job.records is not None:
        try:
            recorded = recorded_leaves(leaves, job.records)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        leaves = [leaf for leaf in leaves if leaf.name not in recorded]
    if shard is not None:
        leaves = leaves[shard[0]::shard[1]]
    folder = Path(job.dir)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--dir {job.dir!r} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a read-only file system, a missing permission
        raise UsageError(f"--dir {job.dir!r} cannot be made: {e.strerror or e}") from None
    print(f"{everything} leaves, {job.depth} actions below "
          f"{repr(job.opening) if job.opening else 'the empty board'}"
          f"{f'; {len(recorded)} checked by earlier jobs ({job.records})' if job.records else ''}"
          f"{f'; this shard makes {len(leaves)} of them' if shard else ''}", flush=True)
    if job.list:
        return print_leaf_list(leaves, folder, recorded)

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
        done = certify(leaves, folder, job.table_bits, rules, report=report,
                       checks_at_once=job.checks_at_once, prefer_known=not job.solver_moves,
                       max_bytes=max_bytes, fresh_table=not job.shared_table, book_until=job.book_until)
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
        result = combine([m.path for m in done], job.opening, job.depth, records=not job.recheck,
                         max_bytes=max_bytes, kept=job.records, game=game,
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
    if job.json:
        atomic_write_json(job.json, result.to_json())
        print(f"written to {job.json}")
    wanted = RECORDED if job.trust_records else CHECKED
    return 0 if result.root_value is not None and result.checked[0] >= wanted else 1


def print_leaf_list(leaves: list[Leaf], folder: Path, recorded: dict[str, dict]) -> int:
    """Print where each leaf stands (to make, made, checked, checked by an earlier job) and the totals;
    the exit status (2: a ``.cert`` in the folder that is not a certificate)."""
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


def recorded_leaves(leaves: list[Leaf], folder) -> dict[str, dict]:
    """The records in ``folder`` of a check of one of ``leaves`` (its position or an image of it), each
    by the leaf's name; a record of a position that is no leaf is refused (ValueError)."""
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
