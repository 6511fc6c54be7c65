"""The file that holds certificates and books: a zip of a JSON header and tables of position codes.

One file layout serves both (``tictacgo.proof.checker`` and
``tictacgo.proof.book`` read it; neither runs code from it: no pickles):

* ``header.json``: UTF-8 JSON, a dict with ``"format"`` (which kind of file)
  and ``"version"``, the variant (``"game": {"size", "komi",
  "max_actions"}``) and what the kind needs.
* for each table ``NAME``, the ``.npy`` arrays ``NAME.black``, ``NAME.white``
  (uint64 bitboards), ``NAME.meta`` (uint16: ``t`` in bits 0-6, the ko point
  plus one in bits 7-12, a pending pass in bit 13, White to move in bit 14)
  and ``NAME.move`` (uint8, an action in the frame of the position's
  canonical image, see ``tictacgo.proof.position_code``), all of one length,
  one row a position; a kind may add columns (a book's ``NAME.value``, int8).

Rows are sorted by code, which makes the file compress well (deflate).
A reader takes only a regular file and refuses, before it allocates any
array, a file larger than its cap, members that unpack to more than the cap
or to more than ``MAX_EXPANSION`` times the file's size, a header that is
not bounded JSON (``tictacgo.reading.parse_json``), and arrays whose
declared type, shape or length is not the layout's, the header's ``rows``
or what the member holds.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from tictacgo import reading
from tictacgo.atomic import atomic_write
from tictacgo.proof.position_code import MAX_SIZE, Code

#: The columns every table has, with their types.
COLUMNS = {"black": np.uint64, "white": np.uint64, "meta": np.uint16, "move": np.uint8}
HEADER = "header.json"
MAX_HEADER_BYTES = 1 << 20
#: The deepest nesting of the header's arrays and objects (the formats here need 3).
MAX_HEADER_DEPTH = 16
#: Default cap on a file's size (and on what its members unpack to, in all).
DEFAULT_MAX_BYTES = 512 << 20
#: The most a file's members unpack to, as a multiple of its size (the certificates and books made here
#: expand about 10 times; deflate can pack an all-zero column a thousandfold).
MAX_EXPANSION = 64
#: The largest komi a header may give (a board of 7x7 has 49 points).
MAX_KOMI = 1000
#: The most actions a variant may allow: ``meta`` holds the actions played in 7 bits.
MAX_ACTIONS = 127


class ProofFileError(ValueError):
    """A certificate or book file that cannot be read: the message names the file and what is wrong."""


def pack_meta(code: Code) -> int:
    return code.t | (code.ko + 1) << 7 | int(code.last_pass) << 13 | (code.to_move - 1) << 14


def unpack_meta(meta: int) -> tuple[int, int, bool, int]:
    """(t, ko point or -1, pending pass, mover) of a packed ``meta`` value."""
    return meta & 0x7F, ((meta >> 7) & 0x3F) - 1, bool(meta >> 13 & 1), 1 + (meta >> 14 & 1)


def table_arrays(rows: dict[Code, int], extra: dict[str, tuple[dict[Code, int], type]] | None = None
                 ) -> dict[str, np.ndarray]:
    """The columns of a table of ``code -> move`` rows (plus ``extra`` columns), sorted by code."""
    codes = sorted(rows)
    out = {"black": np.array([c.black for c in codes], dtype=np.uint64),
           "white": np.array([c.white for c in codes], dtype=np.uint64),
           "meta": np.array([pack_meta(c) for c in codes], dtype=np.uint16),
           "move": np.array([rows[c] for c in codes], dtype=np.uint8)}
    for name, (values, dtype) in (extra or {}).items():
        out[name] = np.array([values[c] for c in codes], dtype=dtype)
    return out


def table_codes(arrays: dict[str, np.ndarray]) -> list[Code]:
    """The codes of a table's rows."""
    out = []
    for b, w, m in zip(arrays["black"].tolist(), arrays["white"].tolist(), arrays["meta"].tolist(),
                       strict=True):
        t, ko, last_pass, to_move = unpack_meta(m)
        out.append(Code(b, w, ko, t, last_pass, to_move))
    return out


def write(path: str | os.PathLike, header: dict, tables: dict[str, dict[str, np.ndarray]]) -> Path:
    """Write a header and tables atomically (temporary file and rename); the file's path."""
    def fill(f) -> None:
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            z.writestr(_member(HEADER), json.dumps(header, indent=1, sort_keys=True), compresslevel=9)
            for name, arrays in tables.items():
                for column, array in arrays.items():
                    buf = io.BytesIO()
                    np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
                    z.writestr(_member(f"{name}.{column}.npy"), buf.getvalue(), compresslevel=9)

    return atomic_write(path, fill, binary=True)


#: The time stamp of every member: a fixed one, so that the same contents give the same bytes.
MEMBER_TIME = (1980, 1, 1, 0, 0, 0)


def _member(name: str) -> zipfile.ZipInfo:
    """A member's entry with a fixed time and mode: the file's bytes depend on its contents alone."""
    info = zipfile.ZipInfo(name, date_time=MEMBER_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def read(path: str | os.PathLike, kind: str, columns: dict[str, type] | None = None,
         max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[dict, dict[str, dict[str, np.ndarray]]]:
    """Read a file of format ``kind``: its header and its tables (name -> column -> array).

    Everything is bounded before it is allocated (``tictacgo.reading``): the file must be a regular
    file of at most ``max_bytes``; its members must unpack to at most ``max_bytes`` in all and at most
    ``MAX_EXPANSION`` times the file's size; the header is JSON of at most ``MAX_HEADER_BYTES``,
    nested at most ``MAX_HEADER_DEPTH`` deep, with finite numbers; and every ``.npy`` member's declared
    type, shape and length (one length a table, at most the header's ``rows`` where it gives them) are
    checked against the layout and the member's size before any array is read.

    Args:
        path: the file.
        kind: the ``"format"`` the header must name (``"tictacgo-certificate"``, ...).
        columns: the columns every table must have, with their types (default ``COLUMNS``).
        max_bytes: refuse a file larger than this, or whose members unpack to more.
    Raises:
        ProofFileError: a missing, oversized or malformed file, naming what is wrong.
    """
    columns = COLUMNS if columns is None else columns
    path = Path(path)
    try:
        with reading.open_regular(path, max_bytes) as f, \
                reading.open_zip(f, max_unpacked=max_bytes, max_ratio=MAX_EXPANSION) as z:
            infos = {i.filename: i for i in z.infolist()}
            header = _read_header(z, infos, path, kind)
            declared: dict[str, tuple[str, str, reading.Declared]] = {}
            for member, info in infos.items():
                if member == HEADER:
                    continue
                parts = member.split(".")
                if len(parts) != 3 or parts[2] != "npy" or parts[1] not in columns:
                    raise ProofFileError(f"{path}: unexpected member {reading.shown(member)} (expected "
                                         f"{HEADER} and TABLE.COLUMN.npy with COLUMN one of "
                                         f"{', '.join(columns)})")
                try:
                    declared[member] = (parts[0], parts[1], reading.npy_declared(z, info))
                except reading.ReadError as e:
                    raise ProofFileError(f"{path}: a member could not be read ({e})") from None
            _check_declared(path, header, declared, columns)
            tables: dict[str, dict[str, np.ndarray]] = {}
            for member, (name, column, decl) in declared.items():
                try:
                    array = reading.read_npy(z, infos[member], decl)
                except reading.ReadError as e:
                    raise ProofFileError(f"{path}: a member could not be read ({e})") from None
                tables.setdefault(name, {})[column] = array
    except ProofFileError:
        raise
    except reading.ReadError as e:
        what = f"not a {kind} file ({e})" if str(e).startswith("not a zip") else str(e)
        raise ProofFileError(f"{path}: {what}") from None
    except OSError as e:
        raise ProofFileError(f"{path}: cannot read it ({e.strerror or e})") from None
    return header, tables


def read_json(path: str | os.PathLike, max_bytes: int, max_depth: int = MAX_HEADER_DEPTH) -> Any:
    """A JSON file that goes with the proofs (a frontier run, a combined result), read within bounds:
    a regular file of at most ``max_bytes``, nested at most ``max_depth`` deep, with finite numbers
    (``tictacgo.reading.read_json``).

    Raises:
        ProofFileError: a missing, oversized or malformed file, naming it and what is wrong.
    """
    try:
        return reading.read_json(path, max_bytes, max_depth)
    except reading.ReadError as e:
        raise ProofFileError(f"{path}: {e}") from None
    except OSError as e:
        raise ProofFileError(f"{path}: cannot read it ({e.strerror or e})") from None


def check_result_files(paths, max_json_bytes: int) -> None:
    """Refuse result files before ``tictacgo.proof.combine`` reads them: each must be a regular file
    (a named pipe would hang the reader), and one that is not a zip (a certificate, read by ``read``
    in its turn) must be bounded JSON of at most ``max_json_bytes`` (``read_json``: no deep nesting,
    no infinite numbers such as ``1e400``, no integers of hundreds of digits).

    Raises:
        ProofFileError: the first file refused, naming it and what is wrong.
    """
    for path in paths:
        try:
            with reading.open_regular(path) as f:
                is_zip = f.read(4) == b"PK\x03\x04"
        except reading.ReadError as e:
            raise ProofFileError(f"{path}: {e}") from None
        except OSError as e:
            raise ProofFileError(f"{path}: cannot read it ({e.strerror or e})") from None
        if not is_zip:
            read_json(path, max_json_bytes)


def read_header(path: str | os.PathLike, kind: str) -> dict:
    """The header of a file of format ``kind`` alone, without its tables (nothing in it is checked
    beyond its format; the file must be a regular file, and only the header is read).

    Raises:
        ProofFileError: a missing or malformed file, naming what is wrong.
    """
    path = Path(path)
    try:
        with reading.open_regular(path) as f, reading.open_zip(f, max_unpacked=None) as z:
            return _read_header(z, {i.filename: i for i in z.infolist()}, path, kind)
    except ProofFileError:
        raise
    except reading.ReadError as e:
        what = f"not a {kind} file ({e})" if str(e).startswith("not a zip") else str(e)
        raise ProofFileError(f"{path}: {what}") from None
    except OSError as e:
        raise ProofFileError(f"{path}: cannot read it ({e.strerror or e})") from None


def _read_header(z: zipfile.ZipFile, infos: dict, path: Path, kind: str) -> dict:
    info = infos.get(HEADER)
    if info is None:
        raise ProofFileError(f"{path}: no {HEADER} in it; not a {kind} file")
    if info.file_size > MAX_HEADER_BYTES:
        raise ProofFileError(f"{path}: {HEADER} is {info.file_size:,} bytes, more than {MAX_HEADER_BYTES:,}")
    try:
        with z.open(info) as f:
            data = f.read(MAX_HEADER_BYTES + 1)
        header = reading.parse_json(data, MAX_HEADER_DEPTH)
    except reading.ReadError as e:
        why = f"is {e}" if str(e).startswith("not ") else f"is refused: {e}"
        raise ProofFileError(f"{path}: {HEADER} {why}") from None
    except Exception as e:  # zipfile and zlib raise many kinds for damaged bytes
        raise ProofFileError(f"{path}: {HEADER} cannot be unpacked ({type(e).__name__}: "
                             f"{reading.shorten(str(e))})") from None
    if not isinstance(header, dict) or header.get("format") != kind:
        found = header.get("format") if isinstance(header, dict) else type(header).__name__
        raise ProofFileError(f"{path}: format {reading.shown(found)}, expected {kind!r}")
    return header


def _check_declared(path: Path, header: dict, declared: dict, columns: dict[str, type]) -> None:
    """Refuse, before any array is read, columns of another type or shape than the layout's, tables
    whose columns differ in length or lack one, and more rows than the header's ``rows`` (a dict by
    table, or one number for a file of one table) where it gives them."""
    lengths: dict[str, set[int]] = {}
    for name, column, (shape, dtype, _, _) in declared.values():
        if dtype != np.dtype(columns[column]) or len(shape) != 1:
            raise ProofFileError(f"{path}: {name}.{column} is {dtype} with shape {shape}, "
                                 f"expected a 1-D array of {np.dtype(columns[column])}")
        lengths.setdefault(name, set()).add(shape[0])
    for name, found in lengths.items():
        missing = [c for c in columns if (name, c) not in {(n, c) for n, c, _ in declared.values()}]
        if missing:
            raise ProofFileError(f"{path}: table {reading.shown(name)} lacks the column(s) "
                                 f"{', '.join(missing)}")
        if len(found) > 1:
            raise ProofFileError(f"{path}: the columns of table {reading.shown(name)} differ in length "
                                 f"{sorted(found)}")
    rows = header.get("rows")
    if rows is None:
        return
    if isinstance(rows, dict) and all(_is_count(v) for v in rows.values()):
        said = rows
    elif _is_count(rows) and len(lengths) <= 1:
        said = {name: rows for name in lengths}
    else:
        raise ProofFileError(f"{path}: the header's rows are {reading.shown(rows)}; expected a count of "
                             "rows for each table")
    for name, found in lengths.items():
        count = said.get(name)
        if count is not None and next(iter(found)) > count:
            raise ProofFileError(f"{path}: the header says {count:,} rows in table {reading.shown(name)}, "
                                 f"its columns hold {next(iter(found)):,}")


def _is_count(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def check_variant(path: str | os.PathLike, header: dict) -> tuple[int, float, int]:
    """The header's variant ``(size, komi, max_actions)``, checked.

    Raises:
        ProofFileError: a missing or malformed variant, or a board the codes cannot hold.
    """
    game = header.get("game")
    try:
        size, komi, max_actions = game["size"], game["komi"], game["max_actions"]
    except (TypeError, KeyError):
        raise ProofFileError(f"{path}: the header's 'game' must be {{'size', 'komi', 'max_actions'}}, "
                             f"got {reading.shown(game)}") from None
    if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= MAX_SIZE:
        raise ProofFileError(f"{path}: board size {reading.shown(size)}, expected an int in [2, {MAX_SIZE}]")
    if isinstance(komi, bool) or not isinstance(komi, (int, float)) or not _finite(komi) \
            or abs(komi) > MAX_KOMI:
        raise ProofFileError(f"{path}: komi {reading.shown(komi)}, expected a finite number in "
                             f"[-{MAX_KOMI}, {MAX_KOMI}]")
    if isinstance(max_actions, bool) or not isinstance(max_actions, int) \
            or not 1 <= max_actions <= MAX_ACTIONS:
        raise ProofFileError(f"{path}: max_actions {reading.shown(max_actions)}, expected an int in "
                             f"[1, {MAX_ACTIONS}]")
    return size, float(komi), max_actions


def _finite(x: int | float) -> bool:
    try:
        return math.isfinite(x)
    except OverflowError:  # an int too large for a float
        return False
