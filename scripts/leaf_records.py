"""The check records of a proof's leaf certificates as a table: one row per leaf, and the totals.

``scripts/certify_leaves.py`` writes a record beside each certificate it
makes and checks (``tictacgo.proof.check_records``: how it was made, what
the checker said). This prints them as the Markdown rows of docs/solver.md's
table of the empty board's leaves, in the order their checks ended, then
the totals and the rate of checks in a time window:

    python scripts/leaf_records.py docs/data/empty_board_leaves
    python scripts/leaf_records.py runs/empty_board_certs --since 2026-11-27T15:00:00Z

A figure a record does not hold (a record written before it held how the
certificate was made, or held it under another name) is shown as "—"; a
record that is not bounded JSON with finite numbers is an error naming it.
"winner's moves": how the certificate chose the winner's move at each of its
positions (``prove``'s ``prefer_known``: known moves first, or the solver's
own).
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path

from tictacgo.cli import guard_output
from tictacgo.proof.check_records import moves_of, read_record, recorded_checks


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", help="a folder of check records (NAME.json)")
    p.add_argument("--since", default=None, metavar="TIME",
                   help="only the leaves whose check ended at or after this UTC time (2026-11-27T15:00:00Z)")
    args = p.parse_args(argv)
    folder = Path(args.folder)
    if not folder.is_dir():
        p.error(f"{args.folder!r} is not a folder")
    since = None
    if args.since is not None:
        try:
            since = parse_time(args.since)
        except ValueError:
            p.error(f"--since {args.since!r}: expected a UTC time such as 2026-11-27T15:00:00Z")
    records = []
    try:
        checks = recorded_checks(folder)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for _moves, _claim, path in checks:
        record = read_record(path.with_suffix(".cert"))
        try:
            at = parse_time(record["checked"]["at"])
        except (KeyError, TypeError, ValueError):
            print(f"error: {path}: the check's 'at' is not a UTC time such as 2026-11-27T15:00:00Z",
                  file=sys.stderr)
            return 2
        if since is None or at >= since:
            records.append((path.stem, record))
    records.sort(key=lambda r: r[1]["checked"]["at"])
    print("| leaf (moves from the empty board) | winner's moves | rows | positions searched | to make "
          "| positions checked | to check |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, record in records:
        print(row(name, record))
    if not records:
        print("no checked records" + (f" since {args.since}" if since else ""))
        return 1
    checks = [r["checked"] for _, r in records]
    makes = [x for _, r in records if (x := _figure(r.get("made"), "seconds")) is not None]
    micro = [1e6 * c["seconds"] / c["positions"] for c in checks if c["positions"]]
    print(f"\n{len(records)} checked: {sum(c['rows'] for c in checks):,} rows, "
          f"{sum(c['seconds'] for c in checks):,.0f} s of checks "
          f"({min(c['seconds'] for c in checks):,.0f} to {max(c['seconds'] for c in checks):,.0f} s each"
          + (f", {min(micro):.0f} to {max(micro):.0f} us a position" if micro else "") + ")"
          + (f"; {min(makes):,.0f} to {max(makes):,.0f} s to make" if makes else ""))
    claims = sorted({c["claim"] for c in checks})
    print(f"claims: {', '.join(claims)}")
    first, last = parse_time(checks[0]["at"]), parse_time(checks[-1]["at"])
    start = since or first
    hours = (last - start).total_seconds() / 3600
    ended = len(records) - (since is None)  # the first check's end opens the window without --since
    if hours > 0:
        print(f"checks ended from {start:%H:%M} to {last:%H:%M} UTC: {ended / hours:.1f} leaves an hour")
    return 0


def row(name: str, record: dict) -> str:
    """One leaf's Markdown row."""
    made, checked = record.get("made"), record["checked"]
    moves = " ".join(moves_of(name))  # recorded_checks has checked that a record's moves are its name's
    if isinstance(made, dict):
        how = "known moves first" if made.get("prefer_known") else "solver's moves"
        searched, seconds = _figure(made, "solver_positions"), _figure(made, "seconds")
        searched = "—" if searched is None else f"{searched:,}"
        seconds = "—" if seconds is None else f"{seconds:,.0f} s"
    else:
        how, searched, seconds = "—", "—", "—"
    return (f"| `{moves}` | {how} | {checked['rows']:,} | {searched} | {seconds} | "
            f"{checked['positions']:,} | {checked['seconds']:,.0f} s |")


def _figure(part, key: str) -> float | None:
    """A figure of a record's part (``made``), or None where the part does not hold one (a record
    written before it held that figure); non-finite numbers never reach here (``read_record``)."""
    x = part.get(key) if isinstance(part, dict) else None
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 else None


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


if __name__ == "__main__":
    sys.exit(guard_output("leaf_records.py", main))
