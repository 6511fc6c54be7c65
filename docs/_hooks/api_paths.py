"""MkDocs hook: lay out the import package ``tictacgo`` as Python sees it, for mkdocstrings.

The folders ``envs/``, ``wrappers/`` and ``baselines/`` sit at the top of the repository and are mapped into
``tictacgo.envs``, ``tictacgo.wrappers`` and ``tictacgo.baselines`` by setuptools' ``package-dir``. griffe
(mkdocstrings' loader) reads the source without importing it and does not know that mapping, so this hook
builds ``build/api-src/tictacgo/`` out of symbolic links (the files of ``tictacgo/`` plus the three mapped
folders) and mkdocs.yml points mkdocstrings there. Nothing is imported, so modules that need an optional
extra (torch, sb3) document as well as the rest.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE = ROOT / "build" / "api-src"
MAPPED = {"envs": "envs", "wrappers": "wrappers", "baselines": "baselines"}


def _stage() -> None:
    package = STAGE / "tictacgo"
    if STAGE.exists():
        shutil.rmtree(STAGE)
    package.mkdir(parents=True)
    for entry in (ROOT / "tictacgo").iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, package / entry.name)
    for name, folder in MAPPED.items():
        os.symlink(ROOT / folder, package / name)


def on_startup(command: str, dirty: bool) -> None:  # noqa: ARG001 (MkDocs passes both)
    _stage()
