"""The file that holds certificates and books: a zip of a JSON header and tables of position codes.

One file layout serves both (``tictacgo.solver.checker`` and
``tictacgo.solver.book`` read it; neither runs code from it: no pickles):

* ``header.json``: UTF-8 JSON, a dict with ``"format"`` (which kind of file)
  and ``"version"``, the variant (``"game": {"size", "komi",
  "max_actions"}``) and what the kind needs.
* for each table ``NAME``, the ``.npy`` arrays ``NAME.black``, ``NAME.white``
  (uint64 bitboards), ``NAME.meta`` (uint16: ``t`` in bits 0-6, the ko point
  plus one in bits 7-12, a pending pass in bit 13, White to move in bit 14)
  and ``NAME.move`` (uint8, an action in the frame of the position's
  canonical image, see ``tictacgo.solver.position_code``), all of one length,
  one row a position; a kind may add columns (a book's ``NAME.value``, int8).

Rows are sorted by code, which makes the file compress well (deflate).
A reader refuses, before reading anything else, a file larger than its cap,
a member that unpacks to more than the cap, and arrays of another type or
length than the layout's.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np

from tictacgo.atomic import atomic_write
from tictacgo.solver.position_code import MAX_SIZE, Code

#: The columns every table has, with their types.
COLUMNS = {"black": np.uint64, "white": np.uint64, "meta": np.uint16, "move": np.uint8}
HEADER = "header.json"
MAX_HEADER_BYTES = 1 << 20
#: Default cap on a file's size (and on what its members unpack to, in all).
DEFAULT_MAX_BYTES = 512 << 20


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
        size = path.stat().st_size
    except OSError as e:
        raise ProofFileError(f"{path}: cannot read it ({e.strerror or e})") from None
    if size > max_bytes:
        raise ProofFileError(f"{path}: {size:,} bytes, more than the {max_bytes:,} bytes this reader takes "
                             "(raise max_bytes if you trust the file)")
    try:
        with zipfile.ZipFile(path) as z:
            infos = {i.filename: i for i in z.infolist()}
            unpacked = sum(i.file_size for i in infos.values())
            if unpacked > max_bytes:
                raise ProofFileError(f"{path}: its members unpack to {unpacked:,} bytes, more than the "
                                     f"{max_bytes:,} bytes this reader takes")
            header = _read_header(z, infos, path, kind)
            tables: dict[str, dict[str, np.ndarray]] = {}
            for member in infos:
                if member == HEADER:
                    continue
                parts = member.split(".")
                if len(parts) != 3 or parts[2] != "npy" or parts[1] not in columns:
                    raise ProofFileError(f"{path}: unexpected member {member!r} (expected {HEADER} and "
                                         f"TABLE.COLUMN.npy with COLUMN one of {', '.join(columns)})")
                with z.open(member) as f:
                    array = np.lib.format.read_array(io.BytesIO(f.read()), allow_pickle=False)
                tables.setdefault(parts[0], {})[parts[1]] = array
    except zipfile.BadZipFile as e:
        raise ProofFileError(f"{path}: not a {kind} file (not a zip archive: {e})") from None
    except (ValueError, OSError) as e:
        if isinstance(e, ProofFileError):
            raise
        raise ProofFileError(f"{path}: a member could not be read ({e})") from None
    for name, arrays in tables.items():
        _check_table(path, name, arrays, columns)
    return header, tables


def read_header(path: str | os.PathLike, kind: str) -> dict:
    """The header of a file of format ``kind`` alone, without its tables (nothing in it is checked
    beyond its format).

    Raises:
        ProofFileError: a missing or malformed file, naming what is wrong.
    """
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as z:
            return _read_header(z, {i.filename: i for i in z.infolist()}, path, kind)
    except zipfile.BadZipFile as e:
        raise ProofFileError(f"{path}: not a {kind} file (not a zip archive: {e})") from None
    except OSError as e:
        raise ProofFileError(f"{path}: cannot read it ({e.strerror or e})") from None


def _read_header(z: zipfile.ZipFile, infos: dict, path: Path, kind: str) -> dict:
    info = infos.get(HEADER)
    if info is None:
        raise ProofFileError(f"{path}: no {HEADER} in it; not a {kind} file")
    if info.file_size > MAX_HEADER_BYTES:
        raise ProofFileError(f"{path}: {HEADER} is {info.file_size:,} bytes, more than {MAX_HEADER_BYTES:,}")
    try:
        header = json.loads(z.read(HEADER).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ProofFileError(f"{path}: {HEADER} is not JSON ({e})") from None
    if not isinstance(header, dict) or header.get("format") != kind:
        found = header.get("format") if isinstance(header, dict) else type(header).__name__
        raise ProofFileError(f"{path}: format {found!r}, expected {kind!r}")
    return header


def _check_table(path: Path, name: str, arrays: dict[str, np.ndarray], columns: dict[str, type]) -> None:
    missing = [c for c in columns if c not in arrays]
    if missing:
        raise ProofFileError(f"{path}: table {name!r} lacks the column(s) {', '.join(missing)}")
    lengths = set()
    for column, array in arrays.items():
        if array.dtype != np.dtype(columns[column]) or array.ndim != 1:
            raise ProofFileError(f"{path}: {name}.{column} is {array.dtype} with shape {array.shape}, "
                                 f"expected a 1-D array of {np.dtype(columns[column])}")
        lengths.add(len(array))
    if len(lengths) > 1:
        raise ProofFileError(f"{path}: the columns of table {name!r} differ in length {sorted(lengths)}")


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
                             f"got {game!r}") from None
    if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= MAX_SIZE:
        raise ProofFileError(f"{path}: board size {size!r}, expected an int in [2, {MAX_SIZE}]")
    if isinstance(komi, bool) or not isinstance(komi, (int, float)) or not np.isfinite(komi):
        raise ProofFileError(f"{path}: komi {komi!r}, expected a finite number")
    if isinstance(max_actions, bool) or not isinstance(max_actions, int) or not 1 <= max_actions <= 127:
        raise ProofFileError(f"{path}: max_actions {max_actions!r}, expected an int in [1, 127]")
    return size, float(komi), max_actions
