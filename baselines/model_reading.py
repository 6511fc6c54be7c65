"""Reading model files within bounds: every malformed file becomes one ``ValueError``.

A model file comes from the user and may be damaged or crafted. Each reader
here bounds what it allocates before it allocates it: a file's size is
checked before it is read (``read_file``), JSON is read from a size-capped
file and a nesting too deep for the parser is refused (``parse_json``), and
an ``.npz`` archive's members are judged by their headers (the declared
shape and dtype, against what the caller's architecture needs) before any
array is read, so a zip bomb or a header declaring a huge shape is refused
without inflating it (``read_npz``). Arrays of floats must be finite: a
network with NaN weights would play nonsense (or crash) at its first move.
The errors name the file and what is wrong with it.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np

MAX_JSON_BYTES = 1 << 20   # a model's JSON description: a few kB
MAX_NPZ_MEMBERS = 4096     # arrays in one export (the largest AlphaZero network allowed has about 420)
_MAX_HEADER_BYTES = 10_000

#: What an npz member's header declares: ``(shape, dtype)``.
Declared = tuple[tuple[int, ...], np.dtype]


def read_file(path: str | os.PathLike, cap: int, what: str = "model file") -> bytes:
    """The bytes of the regular file ``path``, refused if it is larger than ``cap`` bytes.

    Raises:
        ValueError: no such file, not a regular file (a folder, a pipe), too large, unreadable.
    """
    name = os.fspath(path)
    if not os.path.exists(name):
        raise ValueError(f"{name} is missing")
    if not os.path.isfile(name):
        raise ValueError(f"{name} is not a regular file (a {what} is expected)")
    too_big = ValueError(f"{name} is over the {cap:,} bytes a {what} may have")
    try:
        with open(name, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > cap:
                raise too_big
            data = f.read(size + 1)  # the file may grow under us: one byte more tells
    except OSError as e:
        raise ValueError(f"{name} cannot be read: {e.strerror or e}") from None
    if len(data) > cap:
        raise too_big
    return data


def parse_json(data: bytes | str, name: str) -> Any:
    """The JSON value of ``data`` (the contents of the file ``name``).

    Raises:
        ValueError: not UTF-8, not JSON, or nested too deeply to parse.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return json.loads(text)
    except UnicodeDecodeError as e:
        raise ValueError(f"{name} is not UTF-8 text: {e}") from None
    except RecursionError:
        raise ValueError(f"{name} is nested too deeply to be a model description") from None
    except ValueError as e:  # JSONDecodeError, and integers with too many digits
        raise ValueError(f"{name} is not valid JSON: {e}") from None


def read_json(path: str | os.PathLike, cap: int = MAX_JSON_BYTES) -> Any:
    """``parse_json`` of the file ``path``, at most ``cap`` bytes."""
    return parse_json(read_file(path, cap, "JSON file"), os.fspath(path))


def read_npz(data: bytes, name: str, check: Callable[[dict[str, Declared]], None]) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` archive, read only once ``check`` accepts what their headers declare.

    Args:
        data: the archive's bytes.
        name: the file's name, for messages.
        check: called with ``{array name: (shape, dtype)}`` of every member before any array is
            read; raises ValueError for anything the caller's model does not need exactly (a shape,
            a dtype, a missing or unexpected array). It bounds what is then allocated.
    Returns:
        ``{array name: array}`` (read-only arrays).
    Raises:
        ValueError: a damaged archive, a member that is not a plain array, what ``check`` refuses,
            or NaN or infinite floats.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = zf.infolist()
            if len(members) > MAX_NPZ_MEMBERS:
                raise ValueError(f"it holds {len(members):,} members, over the {MAX_NPZ_MEMBERS:,} allowed")
            declared = {_array_name(info): _header(zf, info)[0] for info in members}
            if len(declared) != len(members):
                raise ValueError("it holds two arrays of the same name")
            check(declared)
            arrays = {_array_name(info): _array(zf, info) for info in members}
    except ValueError as e:
        raise ValueError(f"{name} is not a usable model export: {first_line(e)}") from None
    except MemoryError:
        raise
    except Exception as e:  # zipfile, zlib and numpy raise many kinds for damaged bytes
        raise ValueError(f"{name} is not a readable .npz archive ({type(e).__name__}: {first_line(e)}); "
                         f"is the file corrupt?") from None
    for key, array in arrays.items():
        if array.dtype.kind in "fc" and not np.isfinite(array).all():
            raise ValueError(f"{name} holds NaN or infinite values in {key!r}: the weights are damaged")
    return arrays


def first_line(error: BaseException, limit: int = 200) -> str:
    """An exception's message on one line, at most ``limit`` characters (errors here are one line)."""
    text = (str(error).splitlines() or [""])[0]
    return text if len(text) <= limit else text[:limit] + "..."


def _array_name(info: zipfile.ZipInfo) -> str:
    if not info.filename.endswith(".npy"):
        raise ValueError(f"its member {info.filename!r} is not an array (.npy)")
    return info.filename[:-len(".npy")]


def _header(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[Declared, bool, int]:
    """``((shape, dtype), fortran_order, header length)`` of a member, its data left unread."""
    with zf.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f, max_header_size=_MAX_HEADER_BYTES)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f, max_header_size=_MAX_HEADER_BYTES)
        else:
            raise ValueError(f"its member {info.filename!r} has an array format {version} this reader "
                             f"does not take")
        start = f.tell()
    if dtype.hasobject:
        raise ValueError(f"its array {info.filename!r} holds Python objects, which are never loaded")
    if any(n < 0 for n in shape):
        raise ValueError(f"its array {info.filename!r} declares a negative shape {shape}")
    return (tuple(int(n) for n in shape), dtype), bool(fortran), start


def _array(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    """A member's array (its header already accepted), read to its declared size and no further."""
    (shape, dtype), fortran, start = _header(zf, info)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    with zf.open(info) as f:
        f.read(start)
        raw = f.read(size)
    if len(raw) != size:
        raise ValueError(f"its array {info.filename!r} is cut short ({len(raw):,} of {size:,} bytes)")
    array = np.frombuffer(raw, dtype=dtype)
    return array.reshape(shape[::-1]).T if fortran else array.reshape(shape)


def expect_arrays(declared: dict[str, Declared], expected: dict[str, tuple[int, ...]],
                  dtype: np.dtype | type = np.float32) -> None:
    """Refuse arrays that are not exactly ``expected``'s names and shapes, of ``dtype``.

    Raises:
        ValueError: naming the first difference.
    """
    missing = sorted(set(expected) - set(declared))
    if missing:
        raise ValueError(f"it lacks the arrays {missing[:6]}{' ...' if len(missing) > 6 else ''}")
    extra = sorted(set(declared) - set(expected))
    if extra:
        raise ValueError(f"it holds arrays the model does not have: {extra[:6]}"
                         f"{' ...' if len(extra) > 6 else ''}")
    for key, shape in expected.items():
        got_shape, got_dtype = declared[key]
        if got_shape != tuple(shape):
            raise ValueError(f"its array {key!r} has shape {got_shape}, the model needs {tuple(shape)}")
        if got_dtype != np.dtype(dtype):
            raise ValueError(f"its array {key!r} holds {got_dtype}, the model needs {np.dtype(dtype)}")


def check_zip_size(data: bytes, cap: int) -> None:
    """Refuse a zip (torch's weights format is one) whose members would inflate past ``cap`` bytes.

    Raises:
        ValueError: too many members, or more than ``cap`` bytes once inflated.
        zipfile.BadZipFile: not a zip at all.
    """
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = zf.infolist()
        if len(members) > MAX_NPZ_MEMBERS:
            raise ValueError(f"it holds {len(members):,} members, over the {MAX_NPZ_MEMBERS:,} allowed")
        total = sum(info.file_size for info in members)
    if total > cap:
        raise ValueError(f"it inflates to {total:,} bytes, over the {cap:,} its architecture needs")
