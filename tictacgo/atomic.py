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
file (the rename replaces the link, not what it points to).

Example::

    from tictacgo.atomic import atomic_write, atomic_write_json, atomic_write_text

    atomic_write_json("results.json", {"wins": 3}, indent=1)
    atomic_write_text("output.txt", "C3", encoding="ascii", newline="")
    atomic_write("plot.png", lambda f: fig.savefig(f, format="png"), binary=True)
"""

from __future__ import annotations

import codecs
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write", "atomic_write_bytes", "atomic_write_json", "atomic_write_text"]

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
        Whatever ``write``, the file system or the rename raises; the old file
        is then unchanged and no temporary file is left behind.
    """
    path = Path(path)
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


def _mode_for(path: Path) -> int:
    """The permission bits to give the new file: the old file's, or ``NEW_FILE_MODE``."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return NEW_FILE_MODE
