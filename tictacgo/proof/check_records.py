"""A record of a certificate's check, kept beside it, so that a long job checks each certificate once.

Checking the certificates of a deep proof takes hours (minutes each, for
over a hundred), so ``tictacgo.proof.proof_leaves`` checks each one as soon
as it is made and writes what the checker said to ``NAME.json`` beside
``NAME.cert``: the file's SHA-256, the claim, its rows and positions and
the time the check took, and the time it was made (``made``: what it cost,
written as soon as the certificate is, so that a job stopped before the
check still knows it).
``combine(..., records=True)`` then takes a certificate whose record holds
its very bytes (the same SHA-256) as checked without checking it again;
any other certificate, and every certificate without ``records``, is
checked. A record is the user's own: ``--recheck`` (``records=False``)
checks everything again.

A record also outlives its certificate: the certificates of a deep proof
take GBs, and a folder of their records (kept in git, say) is what a later
job has. ``recorded_checks`` reads such a folder: each record names its
position by its file name (the leaf's moves, ``2-2_0-0_1-2_2-0.json``, as
``proof_leaves.certify`` names it), and ``combine(..., kept=...)`` takes the
claim the checker accepted there as that position's checked value.

``print_records_table`` prints a folder's records as the Markdown rows of
the proof's tables (``scripts/leaf_records.py`` is its command line).
"""

from __future__ import annotations

import hashlib
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from tictacgo import reading
from tictacgo.atomic import atomic_write_json
from tictacgo.proof import proof_file

#: Records larger than this are not records.
MAX_RECORD_BYTES = 1 << 16


def record_path(cert: str | Path) -> Path:
    """Where the record of ``cert`` lives: the same name with ``.json``."""
    return Path(cert).with_suffix(".json")


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with reading.open_regular(path) as f:  # a named pipe would block a plain open
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_record(cert: str | Path) -> dict:
    """The record beside ``cert`` (an empty dict when there is none or it is not a JSON object of at most
    ``MAX_RECORD_BYTES``, nested at most ``tictacgo.reading.MAX_JSON_DEPTH`` deep, with finite
    numbers: ``tictacgo.reading.read_json``)."""
    try:
        record = reading.read_json(record_path(cert), MAX_RECORD_BYTES)
    except (OSError, ValueError):  # missing, not a regular file, too large, not bounded JSON
        return {}
    return record if isinstance(record, dict) else {}


def checked_claim(cert: str | Path) -> str | None:
    """The claim the record says the checker accepted for these very bytes of ``cert``, or None."""
    checked = read_record(cert).get("checked")
    if not isinstance(checked, dict) or checked.get("sha256") != sha256_of(cert):
        return None
    claim = checked.get("claim")
    return claim if isinstance(claim, str) else None


def record_made(cert: str | Path, made: dict) -> dict:
    """Write how ``cert`` was just made (``made``) to its record, before any check: a job stopped before
    the check keeps it. A record of a check of earlier bytes is dropped. Returns the record."""
    record = read_record(cert)
    record.pop("checked", None)
    record["made"] = made
    atomic_write_json(record_path(cert), record, indent=1)
    return record


def check_and_record(cert: str | Path, max_bytes: int = proof_file.DEFAULT_MAX_BYTES,
                     on_report=None) -> dict:
    """Check ``cert`` with the checker and write its record (keeping what the record holds of how it was
    made, ``record_made``); the record. ``max_bytes``: ``verify``'s cap. ``on_report``, when given, is
    called with the checker's report (``CheckReport``) before the record is written.

    Raises:
        CertificateError, ProofFileError: as ``verify`` (no record is written then).
    """
    from tictacgo.proof.checker import VERSION, verify

    digest = sha256_of(cert)
    report = verify(cert, max_bytes=max_bytes)
    if on_report is not None:
        on_report(report)
    record = read_record(cert)
    record["checked"] = {"sha256": digest, "claim": report.claim, "rows": report.rows,
                         "positions": report.positions, "seconds": round(report.seconds, 1),
                         "checker_version": VERSION,
                         "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    atomic_write_json(record_path(cert), record, indent=1)
    return record


def moves_of(name: str) -> list[str]:
    """The moves a certificate's or record's name stands for (``proof_leaves.Leaf.name`` backwards):
    ``"2-2_PASS_1-1"`` is ``["2,2", "PASS", "1,1"]``."""
    return [w.replace("-", ",") for w in name.split("_")]


#: The claims a checker's record may hold.
CLAIMS = {"black wins": 1, "white wins": -1, "draw": 0}


def recorded_checks(folder: str | Path) -> list[tuple[list[str], str, Path]]:
    """The checks recorded in ``folder`` (its ``*.json`` records): for each, the moves from the empty
    board to the certificate's root (from the file's name: ``2-2_PASS_1-1.json`` is ``2,2 PASS
    1,1``), the claim the checker accepted, and the record's path. A record without a check (made,
    not checked yet) is left out.

    Raises:
        ValueError: a folder that is not one, a record that is not JSON, a check without one of the
            three claims (or without its rows, positions and seconds), or moves in the record
            (``made``) that are not the ones its name gives (each named).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder of check records")
    out = []
    for path in sorted(folder.glob("*.json")):
        record = read_record(path.with_suffix(".cert"))
        if not record:
            raise ValueError(f"{path}: not a check record (a JSON object of at most {MAX_RECORD_BYTES:,} "
                             f"bytes)")
        claim = recorded_claim(path, record)
        if claim is not None:
            out.append((moves_of(path.stem), claim, path))
    return out


def recorded_claim(path: Path, record: dict) -> str | None:
    """The claim a check record (``record``, to be kept as ``path``) says the checker accepted; None when
    it holds no check yet.

    Raises:
        ValueError: a check without one of the three claims (or without its certificate's SHA-256, rows,
            positions and seconds), or moves in the record (``made``) that are not the ones ``path``'s
            name gives.
    """
    checked = record.get("checked")
    if checked is None:
        return None
    claim = checked.get("claim") if isinstance(checked, dict) else None
    if claim not in CLAIMS or not isinstance(checked.get("sha256"), str) \
            or not all(_is_count(checked.get(k)) for k in ("rows", "positions", "seconds")):
        raise ValueError(f"{path}: 'checked' is {reading.shown(checked)}; expected the checker's claim "
                         f"(one of {', '.join(map(repr, CLAIMS))}), the certificate's sha256, and its "
                         f"rows, positions and seconds")
    moves = moves_of(path.stem)
    made = record.get("made")
    if isinstance(made, dict) and "moves" in made and made["moves"] != " ".join(moves):
        raise ValueError(f"{path}: the record was made for '{made['moves']}', but its name says "
                         f"'{' '.join(moves)}'")
    return claim


def keep_records(run: str | Path, kept: str | Path) -> list[Path]:
    """Copy into the folder ``kept`` each record of the folder ``run`` whose certificate the checker
    accepted there (the record's check holds the very bytes of ``NAME.cert`` beside it:
    ``checked_claim``) and that ``kept`` does not hold yet; the copies' paths, in name order. A record
    that ``kept`` already holds is left as it is when it records the same check.

    This is how a long job's checks outlive its certificates (``recorded_checks`` reads them back).

    Raises:
        ValueError: ``run`` or ``kept`` is not a folder, ``kept`` holds a record of the same name that
            records another check (another certificate's SHA-256 or claim), or a record to copy is not
            one ``recorded_checks`` reads back (``recorded_claim``): the files are named and nothing is
            copied.
    """
    run, kept = Path(run), Path(kept)
    for folder in (run, kept):
        if not folder.is_dir():
            raise ValueError(f"{folder}: not a folder of check records")
    todo = []
    for cert in sorted(run.glob("*.cert")):
        if checked_claim(cert) is None:
            continue  # not checked yet, or its record is of other bytes
        record, target = read_record(cert), kept / record_path(cert).name
        if target.exists():
            old = read_record(target.with_suffix(".cert")).get("checked")
            new = record["checked"]
            if not isinstance(old, dict) or (old.get("sha256"), old.get("claim")) != \
                    (new["sha256"], new["claim"]):
                raise ValueError(f"{target} records another check than {record_path(cert)} "
                                 f"({reading.shown(old)} against {reading.shown(new)}); nothing copied")
            continue
        recorded_claim(record_path(cert), record)  # a record the kept folder could not be read with
        todo.append((record, target))
    for record, target in todo:
        atomic_write_json(target, record, indent=1)
    return [target for _, target in todo]


def _is_count(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0


def parse_time(text: str) -> datetime:
    """A record's UTC time, ``2026-11-27T15:00:00Z``, as an aware datetime.

    Raises:
        ValueError: any other text.
    """
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def print_records_table(folder: str | Path, since: datetime | None = None, since_text: str | None = None
                        ) -> int:
    """Print the checked records of ``folder`` as Markdown rows (one per leaf, in the order their checks
    ended), then the totals and the rate of checks: the work of ``scripts/leaf_records.py``.

    Args:
        folder: a folder of check records.
        since: only the records whose check ended at or after this time.
        since_text: ``since`` as the user wrote it (said when no record is that recent).
    Returns:
        The exit status: 0, 1 when no record is shown, 2 for a folder or a record that is not one
        (one line on stderr).
    """
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
        print(record_row(name, record))
    if not records:
        print("no checked records" + (f" since {since_text}" if since else ""))
        return 1
    checks = [r["checked"] for _, r in records]
    makes = [x for _, r in records if (x := _figure(r.get("made"), "seconds")) is not None]
    micro = [1e6 * c["seconds"] / c["positions"] for c in checks if c["positions"]]
    print(f"\n{len(records)} checked: {sum(c['rows'] for c in checks):,} rows, "
          f"{sum(c['seconds'] for c in checks):,.0f} s of checks "
          f"({min(c['seconds'] for c in checks):,.0f} to {max(c['seconds'] for c in checks):,.0f} s each"
          + (f", {min(micro):.0f} to {max(micro):.0f} us a position" if micro else "") + ")"
          + (f"; {min(makes):,.0f} to {max(makes):,.0f} s to make" if makes else ""))
    check_hours = sum(c["seconds"] for c in checks) / 3600
    if len(makes) == len(records):
        print(f"process time: {sum(makes) / 3600:,.1f} h to make and {check_hours:,.1f} h to check, "
              f"{sum(makes) / 3600 + check_hours:,.1f} h in all (each make and check is one process; its "
              f"wall time, more than its core time where the cores were shared)")
    sizes = [x for _, r in records if (x := _figure(r.get("made"), "bytes")) is not None]
    if sizes:
        said = f" ({len(sizes)} of the {len(records)} records say)" if len(sizes) < len(records) else ""
        print(f"certificates: {sum(sizes) / 1e6:,.1f} MB in all (deflate-compressed zip), "
              f"{min(sizes) / 1e6:,.1f} to {max(sizes) / 1e6:,.1f} MB each{said}")
    claims = sorted({c["claim"] for c in checks})
    print(f"claims: {', '.join(claims)}")
    first, last = parse_time(checks[0]["at"]), parse_time(checks[-1]["at"])
    start = since or first
    hours = (last - start).total_seconds() / 3600
    ended = len(records) - (since is None)  # the first check's end opens the window without a start
    if hours > 0:
        print(f"checks ended from {start:%H:%M} to {last:%H:%M} UTC: {ended / hours:.1f} leaves an hour")
    return 0


def estimate_left(folder: str | Path, earlier: str | Path) -> str:
    """What the leaves still to do may cost, in one line: the leaves that ``earlier`` (the records of a
    run over the same leaves, made another way) holds and ``folder`` does not, their positions checked
    there against those of ``folder``'s leaves, and ``folder``'s process time scaled by that ratio.

    Raises:
        ValueError: a folder that is not one of check records (``recorded_checks``), or one whose
            records do not all say what making and checking took (no estimate then).
    """
    here = {path.stem: read_record(path.with_suffix(".cert")) for _, _, path in recorded_checks(folder)}
    there = {path.stem: read_record(path.with_suffix(".cert")) for _, _, path in recorded_checks(earlier)}
    done = [name for name in here if name in there]
    left = [name for name in there if name not in here]
    make_seconds = [_figure(here[name].get("made"), "seconds") for name in here]
    then_done = sum(there[name]["checked"]["positions"] for name in done)
    if not done or None in make_seconds or then_done == 0:
        raise ValueError(f"{folder}: no estimate: its records need both a check and how long the make "
                         f"took, and some leaves that {earlier} holds too, with positions checked there")
    spent = (sum(make_seconds) + sum(r["checked"]["seconds"] for r in here.values())) / 3600
    then_left = sum(there[name]["checked"]["positions"] for name in left)
    scale = spent * len(done) / len(here) / then_done  # hours a position checked then, here
    return (f"left: {len(left)} leaves that {earlier} holds and this folder does not; their checks there met "
            f"{then_left / 1e6:,.0f} million positions, against {then_done / 1e6:,.0f} million for the "
            f"{len(done)} done here, so about {then_left * scale:,.1f} h of process time more at this "
            f"folder's rate ({spent:,.1f} h so far)")


def record_row(name: str, record: dict) -> str:
    """One leaf's Markdown row: its moves, how the winner's moves were chosen, its rows, what making and
    checking it took ("—" for a figure the record does not hold)."""
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
