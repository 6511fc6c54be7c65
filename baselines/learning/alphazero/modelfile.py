"""The files of a saved AlphaZero model, and reading its description (no torch needed).

A model folder holds ``model.json`` (the format tag, the game variant, the
architecture, the SHA-256 of each weights file and what the trainer adds),
``model.pt`` (the torch ``state_dict``) and ``model.npz`` (the same network
with batch norms folded, for ``numpy_net``). Weights are written before the
JSON that names them, each atomically, so a JSON never names weights that are
not there in full; ``checked_bytes`` refuses a file whose hash differs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

WEIGHTS_FILE = "model.pt"
NUMPY_FILE = "model.npz"
META_FILE = "model.json"
FORMAT = "tictacgo-alphazero-1"


def read_meta(folder: str | Path) -> dict:
    """The parsed ``model.json`` of a model folder.

    Raises:
        ValueError: no model there, or a JSON that is not one of ours.
    """
    path = Path(folder) / META_FILE
    if not path.is_file():
        raise ValueError(f"{folder} holds no AlphaZero model (no {META_FILE}); pass the folder "
                         f"that the AlphaZero training wrote")
    try:
        meta = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{path} is not an AlphaZero model description (format {FORMAT!r})")
    return meta


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checked_bytes(folder: str | Path, name: str, expected: str | None) -> bytes:
    """The bytes of ``folder/name``, refused unless their SHA-256 is ``expected``.

    Raises:
        ValueError: a missing file or another hash (a half-written or foreign file).
    """
    path = Path(folder) / name
    if not path.is_file():
        raise ValueError(f"{path} is missing")
    data = path.read_bytes()
    if sha256(data) != expected:
        raise ValueError(f"{path} is not the weights {META_FILE} describes (a half-written save?)")
    return data


# -- writing ---------------------------------------------------------------------------------

def publish_model(source: str | Path, folder: str | Path) -> Path:
    """Give ``folder`` the model files of the whole model folder ``source``.

    Each file is hard-linked (copied where the file system has no links)
    under a temporary name and renamed into place, ``model.json`` last: no
    file is ever half-written, a link costs no disk space (a full disk does
    not stop it), and a reader finds either the old files or the new ones,
    or, killed between two renames, weights that ``model.json`` does not
    describe, which ``checked_bytes`` refuses (the trainer's ``--resume``
    publishes the checkpoint again).

    Args:
        source: a model folder ``network.save_model`` wrote.
        folder: the folder to publish it in (it must exist).

    Returns:
        ``folder`` as a Path.
    """
    import os
    import shutil

    folder = Path(folder)
    for name in (WEIGHTS_FILE, NUMPY_FILE, META_FILE):
        src = Path(source) / name
        if name == NUMPY_FILE and not src.exists():
            continue  # an older model without the numpy export
        tmp = folder / f".{name}.publish-{os.getpid()}.tmp"
        tmp.unlink(missing_ok=True)
        try:
            try:
                os.link(src, tmp)
            except OSError:
                shutil.copyfile(src, tmp)
            _place(tmp, folder / name)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return folder


def _place(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` over ``target`` (one step of ``publish_model``)."""
    import os

    os.replace(tmp, target)
