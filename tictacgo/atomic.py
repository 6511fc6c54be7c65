"""Atomic file writes: readers see the old file or the complete new one.

Files a user keeps (results, Q-tables, plots, the course's ``input.txt`` and
``output.txt``) are written through this module. The content goes to a
temporary file in the target's folder (``.<name>.<random>.tmp``, so the final
rename never crosses a file system), is flushed and ``fsync``-ed, gets the old
file's permission bits (or ``0o644`` for a new file; ``mkstemp`` would leave
it private, ``0o600``), and is renamed over the target with ``os.replace``.
On any error, ``KeyboardInterrupt`` included, the temporary file is removed,
the old file is left exactly as it was, and the exception propagates.

The target's folder must exist. A symlink at ``path`` is replaced by a plain
file (the rename replaces the link, not what it points to). Anything else
that is not a regular file (a folder, a device such as ``/dev/null``, a named
pipe, a socket) is refused with a ``ValueError`` before anything is written:
the writer never renames a file over it. ``check_writable`` makes the same
check and also tries the folder, so that a command can refuse a bad output
path before it does any long work.

Example:

    from tictacgo.atomic import atomic_write, atomic_write_json, atomic_write_text

    atomic_write_json("results.json", {"wins": 3}, indent=1)
    atomic_write_text("output.txt", "C3", encoding="ascii", newline="")
    atomic_write("plot.png", lambda f: fig.savefig(f, format="png"), binary=True)
"""

from __future__ import annotations

import codecs
import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write", "atomic_write_bytes", "atomic_write_json", "atomic_write_text", "check_target",
           "check_writable", "same_file"]

NEW_FILE_MODE = 0o644


def atomic_write(path: str | os.PathLike, write: Callable[[IO], Any], *, binary: bool = False,
                 encoding: str = "utf-8", newline: str | None = None) -> Path:
    """Create or replace ``path`` atomically with what ``write`` puts in a file.

    Args:
        path: the file to create or replace; its folder must exist.
        write: called once with the open temporary file (text, or bytes when
            ``binary``); it writes the whole content. Its return value is ignored.
        binary: open the temporary file in binary mode (``"wb"``).
        encoding: text encoding (ignored when ``binary``).
        newline: as for ``open`` (``""`` writes ``"\\n"`` untranslated on every
            platform); ignored when ``binary``.

    Returns:
        ``path`` as a ``Path``.

    Raises:
        ValueError: ``path`` is empty, or exists and is not a regular file (or
            a symlink): a folder, a device, a pipe, a socket.
        Whatever ``write``, the file system or the rename raises; the old file
        is then unchanged and no temporary file is left behind.
    """
    path = check_target(path)
    if not binary:
        codecs.lookup(encoding)  # a bad name raises LookupError here, before any file exists
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # If fdopen itself fails, io.open has already closed fd; only the name is left to remove.
        f = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _mode_for(path))
        check_target(path)  # again: something may have appeared at the path while we wrote
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8",
                      newline: str | None = None) -> Path:
    """Create or replace ``path`` atomically with ``text`` (see ``atomic_write``).

    Args:
        path: the file; its folder must exist.
        text: the whole content.
        encoding: text encoding; a character it cannot encode raises
            ``UnicodeEncodeError`` and leaves the old file as it was.
        newline: as for ``open``; ``""`` keeps ``"\\n"`` as is on every platform.

    Returns:
        ``path`` as a ``Path``.
    """
    return atomic_write(path, lambda f: f.write(text), encoding=encoding, newline=newline)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Create or replace ``path`` atomically with ``data`` (see ``atomic_write``).

    Returns:
        ``path`` as a ``Path``.
    """
    return atomic_write(path, lambda f: f.write(data), binary=True)


def atomic_write_json(path: str | os.PathLike, data: Any, **json_kw: Any) -> Path:
    """Create or replace ``path`` atomically with ``data`` as UTF-8 JSON and a final newline.

    Args:
        path: the file; its folder must exist.
        data: anything ``json.dump`` accepts (with ``json_kw``).
        **json_kw: passed to ``json.dump`` (``indent``, ``separators``, ...).

    Returns:
        ``path`` as a ``Path``.
    """
    def write(f: IO[str]) -> None:
        json.dump(data, f, **json_kw)
        f.write("\n")

    return atomic_write(path, write)


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def check_target(path: str | os.PathLike) -> Path:
    """Refuse a path that the atomic writer must not replace.

    Args:
        path: the file to be written.

    Returns:
        ``path`` as a ``Path``.

    Raises:
        ValueError: ``path`` is empty, or exists and is neither a regular file
            nor a symlink (a folder, a device, a named pipe, a socket); the
            message names the path and what it is.
        TypeError: ``path`` is not a string or path.
    """
    if isinstance(path, (str, os.PathLike)) and os.fspath(path) in ("", b""):
        raise ValueError("the output path is empty: expected a file name")
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError:
        return path  # e.g. a component is not a folder: the write reports it
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise ValueError(f"{os.fspath(path)!r} is {_kind(mode)}; expected a regular file "
                         "(or a new file name) to write")
    return path


def check_writable(path: str | os.PathLike) -> Path:
    """Check, before any long work, that ``atomic_write(path, ...)`` can succeed.

    The path must be non-empty, not an existing folder, device, pipe or
    socket (``check_target``), and its folder must exist and accept a new
    file: a temporary file is created there and removed again.

    Args:
        path: the file to be written later.

    Returns:
        ``path`` as a ``Path``.

    Raises:
        ValueError: any of the above, with the path and the reason.
    """
    path = check_target(path)
    folder = path.parent
    if not folder.is_dir():
        what = "does not exist" if not os.path.lexists(folder) else "is not a folder"
        raise ValueError(f"{os.fspath(path)!r}: the folder {os.fspath(folder)!r} {what}")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise ValueError(f"{os.fspath(path)!r}: cannot create a file in {os.fspath(folder)!r} "
                         f"({e.strerror or e})") from None
    os.close(fd)
    os.unlink(tmp)
    return path


def _mode_for(path: Path) -> int:
    """The permission bits to give the new file: the old file's, or ``NEW_FILE_MODE``."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return NEW_FILE_MODE


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file: the same existing file (also through a symlink, a hard
    link or another spelling of the path), or, where either is missing, the same path once resolved.

    A command refuses an output that is one of its inputs (or another of its outputs) with it, so
    that writing one never replaces the other.
    """
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return os.path.realpath(a) == os.path.realpath(b)
