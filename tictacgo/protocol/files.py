"""Reading the files a protocol command is handed: regular files only, and only so many bytes.

A named pipe or a device would block or never end (``/dev/zero``), and a huge
file would be read whole before any check; so the file is refused before it
is opened unless it is a regular file (a symlink to one included), and
refused once it is found to be larger than the cap.
"""

from __future__ import annotations

import os
import stat


def read_regular_file(path: str | os.PathLike, limit: int, name: str,
                      error: type[ValueError] = ValueError) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``limit`` bytes.

    Args:
        path: the file.
        limit: the most bytes accepted.
        name: what the file is, for the messages (``"input.txt"``, ``"the SGF file"``).
        error: the ValueError subclass raised for a refused file.
    Raises:
        error: not a regular file (a folder, a named pipe, a device), or more than ``limit`` bytes.
        OSError: the file is missing or cannot be read.
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise error(f"{name} is {kind} ({os.fspath(path)})")
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise error(f"{name} is larger than {limit} bytes ({os.fspath(path)})")
    return data
