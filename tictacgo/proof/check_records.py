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
"""

from __future__ import annotations

import hashlib
import time
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
        checked = record.get("checked")
        if checked is None:
            continue
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
        out.append((moves, claim, path))
    return out


def _is_count(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0
