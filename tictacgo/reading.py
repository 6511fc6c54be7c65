"""Reading files a user gives, within bounds: nothing is allocated for what a file merely declares.

Certificates, books, check records, frontier runs and Q-tables come from the
user and may be damaged or crafted. The readers of those formats
(``tictacgo.proof.proof_file``, ``tictacgo.proof.check_records``,
``tictacgo.baselines.qlearning_go_file``, ``tictacgo.baselines.qlearning``)
read them through this module:

* ``open_regular``: only a regular file is opened (a named pipe, a device
  such as ``/dev/zero``, a folder is refused without blocking on it), and one
  over a size cap is refused before it is read;
* ``parse_json``: UTF-8 JSON whose arrays and objects nest at most
  ``max_depth`` deep (counted on the raw text, so a deeply nested file never
  reaches the parser) and whose numbers are finite (``NaN``, ``Infinity``,
  ``1e400``) and of at most ``MAX_INT_DIGITS`` digits;
* ``open_zip``: a zip archive whose members, as its directory declares them,
  are few enough, unpack to at most a cap in all, and to at most
  ``max_ratio`` times the archive's own size (an all-zero member that
  deflate packs a thousandfold is refused unread);
* ``npy_declared`` and ``read_npy``: an ``.npy`` member's header is read
  alone first; its declared shape and type must account for the member's
  size exactly before any array is allocated, and the array is then read in
  chunks (a 1 KB member declaring ``(2**40,)`` is one error, never an
  allocation).

Every refusal is a ``ReadError`` (a ``ValueError``) whose message says what is
wrong, in one line, without the file's name: the caller, which knows what
the file is, puts the name in front.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import zipfile
from typing import IO, Any

import numpy as np

#: The deepest nesting of JSON arrays and objects read by default (the formats here need 4).
MAX_JSON_DEPTH = 32
#: The most digits of a JSON integer (a 64-bit integer has at most 20).
MAX_INT_DIGITS = 20
#: The most members of a zip archive.
MAX_MEMBERS = 4096
#: The largest ``.npy`` header read.
MAX_NPY_HEADER = 10_000
_CHUNK = 16 << 20


class ReadError(ValueError):
    """A file refused by a bounded reader: the message says what is wrong (not which file)."""


class NestingError(ReadError):
    """JSON whose arrays and objects nest deeper than the reader takes."""


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words (``"a named pipe"``)."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike, max_bytes: int | None = None) -> IO[bytes]:
    """``path`` opened for reading in binary mode, which must be a regular file of at most ``max_bytes``.

    The file is opened without blocking (a named pipe with no writer would hang a plain ``open``) and
    judged by ``fstat`` of what was opened.

    Raises:
        ReadError: not a regular file (the message says what it is), or larger than ``max_bytes``.
        OSError: the file is missing or cannot be opened.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | \
        getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ReadError(f"{kind_of(st.st_mode)}, not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise ReadError(f"{st.st_size:,} bytes, more than the {max_bytes:,} bytes this reader takes")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` (``open_regular``'s checks; a file
    that grows past the cap while it is read is refused too)."""
    with open_regular(path, max_bytes) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ReadError(f"more than the {max_bytes:,} bytes this reader takes")
    return data


_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(data: bytes) -> int:
    """How deep arrays and objects nest in the JSON text ``data`` (0 for a bare number or string),
    brackets inside strings not counted; for text that is not JSON, the deepest run of unclosed
    brackets."""
    structure = _STRING.sub(b"", _ESCAPE.sub(b"", data)).translate(None, _NOT_BRACKET)
    if not structure:
        return 0
    codes = np.frombuffer(structure, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(max(0, np.cumsum(steps).max()))


class _Refused(Exception):
    """A number the JSON hooks refuse (carried out of ``json.loads`` and turned into a ReadError)."""


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {shorten(text)} is not finite")
    return value


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {digits:,} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _constant(text: str):
    raise _Refused(f"{text} is not a finite number")


def parse_json(data: bytes | str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value of ``data``, its nesting and numbers bounded (see the module docstring).

    Raises:
        ReadError: not UTF-8, not JSON, nested more than ``max_depth`` deep (``NestingError``), or a
            number that is not finite or has more than ``MAX_INT_DIGITS`` digits.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    depth = json_depth(raw)
    if depth > max_depth:
        raise NestingError(f"arrays and objects nest {depth:,} deep, more than the {max_depth} this reader "
                           "takes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReadError(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        return json.loads(text, parse_float=_float, parse_int=_int, parse_constant=_constant)
    except _Refused as e:
        raise ReadError(str(e)) from None
    except (ValueError, RecursionError) as e:
        raise ReadError(f"not JSON ({shorten(str(e), 120)})") from None


def read_json(path: str | os.PathLike, max_bytes: int, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``parse_json`` of the regular file ``path`` of at most ``max_bytes`` (``read_regular``)."""
    return parse_json(read_regular(path, max_bytes), max_depth)


def shorten(text: str, limit: int = 80) -> str:
    """``text`` on one line of at most ``limit`` characters (for messages that quote a file)."""
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= limit else text[:limit] + "..."


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` on one line of at most ``limit`` characters (control characters escaped)."""
    return shorten(repr(value), limit)


def open_zip(f: IO[bytes], *, max_unpacked: int | None, max_ratio: float | None = None,
             ratio_floor: int = 1 << 20, max_members: int = MAX_MEMBERS) -> zipfile.ZipFile:
    """The zip archive in the open file ``f``, its directory checked before any member is read.

    Args:
        f: the archive (from ``open_regular``).
        max_unpacked: the most bytes its members may unpack to, in all (None: no cap).
        max_ratio: the most its members may unpack to, as a multiple of the archive's size (None: no
            cap); an archive may always unpack to ``ratio_floor`` bytes.
        ratio_floor: see ``max_ratio``.
        max_members: the most members.
    Raises:
        ReadError: not a zip archive, too many members, or members that unpack past a cap.
    """
    size = os.fstat(f.fileno()).st_size
    try:
        z = zipfile.ZipFile(f)
    except Exception as e:  # BadZipFile, and struct, codec and NotImplementedError for crafted directories
        raise ReadError(f"not a zip archive ({type(e).__name__}: {shorten(str(e))})") from None
    try:
        infos = z.infolist()
        if len(infos) > max_members:
            raise ReadError(f"{len(infos):,} members, more than the {max_members:,} this reader takes")
        unpacked = sum(i.file_size for i in infos)
        if max_unpacked is not None and unpacked > max_unpacked:
            raise ReadError(f"its members unpack to {unpacked:,} bytes, more than the {max_unpacked:,} bytes "
                            "this reader takes")
        if max_ratio is not None and unpacked > max(ratio_floor, max_ratio * size):
            raise ReadError(f"its members unpack to {unpacked:,} bytes, {unpacked / max(size, 1):,.0f} times "
                            f"the file's {size:,}: more than the {max_ratio:g} times a file of this kind "
                            "expands")
    except BaseException:
        z.close()
        raise
    return z


#: What an ``.npy`` member declares: ``(shape, dtype, fortran order, where its data starts)``.
Declared = tuple[tuple[int, ...], np.dtype, bool, int]


def npy_declared(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> Declared:
    """What the ``.npy`` member ``info`` declares, read from its header alone and checked against the
    member's size: the declared array must take exactly the bytes the member holds after its header.

    Raises:
        ReadError: not an ``.npy`` array, an array of Python objects, or a shape that the member's
            size does not hold (the message names the member).
    """
    name = info.filename
    try:
        with z.open(info) as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f, max_header_size=MAX_NPY_HEADER)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f, max_header_size=MAX_NPY_HEADER)
            else:
                raise ReadError(f"{name}: an array format {version} this reader does not take")
            start = f.tell()
    except ReadError:
        raise
    except Exception as e:  # zipfile, zlib and numpy raise many kinds for damaged bytes
        raise ReadError(f"{name}: not an .npy array ({type(e).__name__}: {shorten(str(e))})") from None
    if dtype.hasobject:
        raise ReadError(f"{name}: an array of Python objects, which is never loaded")
    if not isinstance(shape, tuple) or any(not isinstance(n, int) or n < 0 for n in shape):
        raise ReadError(f"{name}: the shape {shown(shape)} is not a shape")
    nbytes = math.prod(shape) * dtype.itemsize
    held = info.file_size - start
    if nbytes != held:
        raise ReadError(f"{name}: declares shape {shape} of {dtype} ({nbytes:,} bytes), but holds {held:,} "
                        "bytes of data")
    return tuple(shape), dtype, bool(fortran), start


def read_npy(z: zipfile.ZipFile, info: zipfile.ZipInfo, declared: Declared | None = None) -> np.ndarray:
    """The array of the ``.npy`` member ``info`` (``declared``: its ``npy_declared``, if already known),
    allocated once its header is accepted and read in chunks; a writable array.

    Raises:
        ReadError: as ``npy_declared``, or a member cut short or damaged.
    """
    shape, dtype, fortran, start = declared if declared is not None else npy_declared(z, info)
    out = np.empty(math.prod(shape), dtype=dtype)
    view = out.view(np.uint8)
    try:
        with z.open(info) as f:
            f.read(start)
            got = 0
            while got < view.size:
                chunk = f.read(min(_CHUNK, view.size - got))
                if not chunk:
                    break
                view[got:got + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
                got += len(chunk)
    except Exception as e:  # a bad CRC, damaged deflate data
        raise ReadError(f"{info.filename}: cannot be unpacked ({type(e).__name__}: "
                        f"{shorten(str(e))})") from None
    if got != view.size:
        raise ReadError(f"{info.filename}: cut short ({got:,} of {view.size:,} bytes)")
    return out.reshape(shape[::-1]).T if fortran else out.reshape(shape)


__all__ = ["MAX_INT_DIGITS", "MAX_JSON_DEPTH", "NestingError", "ReadError", "json_depth", "kind_of",
           "npy_declared", "open_regular", "open_zip", "parse_json", "read_json", "read_npy", "read_regular",
           "shorten", "shown"]
