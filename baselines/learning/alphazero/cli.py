"""Command-line options for AlphaZero training, built from ``AlphaZeroConfig``'s fields.

One ``--option`` per field of ``AlphaZeroConfig``, its field docstring as the
help text, so the options and the settings cannot drift apart. Used by
``scripts/train_alphazero.py``; a subcommand (``tictacgo train GAME --algo
alphazero``) can call ``add_arguments`` on its parser and ``run`` on the
parsed namespace.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import os
import sys
import time

from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig


def field_docs(cls) -> dict[str, str]:
    """The docstring written under each field of a dataclass (cleanrl's habit), by field name."""
    body = ast.parse(inspect.getsource(cls)).body[0].body
    docs = {}
    for stmt, nxt in zip(body, body[1:], strict=False):
        documented = isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
        if isinstance(stmt, ast.AnnAssign) and documented:
            docs[stmt.target.id] = " ".join(str(nxt.value.value).split())
    return docs


def add_arguments(parser: argparse.ArgumentParser, skip: tuple[str, ...] = ()) -> None:
    """Add one ``--option`` per ``AlphaZeroConfig`` field (except those in ``skip``) to ``parser``."""
    docs = field_docs(AlphaZeroConfig)
    defaults = AlphaZeroConfig()
    for f in dataclasses.fields(AlphaZeroConfig):
        if f.name in skip:
            continue
        default = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default,
                                help=docs.get(f.name))
            continue
        kind = int if f.name == "board_size" else {int: int, float: float}.get(type(default), str)
        parser.add_argument(flag, type=kind, default=default, help=docs.get(f.name), metavar=f.name.upper())


def config_from_args(args: argparse.Namespace) -> AlphaZeroConfig:
    """The ``AlphaZeroConfig`` of parsed options (fields absent from ``args`` keep their defaults).

    Raises:
        ValueError: settings the config refuses.
    """
    names = {f.name for f in dataclasses.fields(AlphaZeroConfig)}
    return AlphaZeroConfig(**{k: v for k, v in vars(args).items() if k in names})


def run(args: argparse.Namespace) -> int:
    """Train with the parsed options; print a JSON summary. Exit status 0, or 130 when interrupted."""
    from tictacgo.baselines.learning.alphazero.train import train

    cfg = config_from_args(args)
    started = time.time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    command = " ".join(["python", *sys.argv])
    print(f"training {cfg.game} into {cfg.out_dir} (seed {cfg.seed}, load average {load:.2f})", flush=True)
    try:
        progress = train(cfg, info={"command": command})
    except KeyboardInterrupt:
        print("interrupted; the last checkpoint is kept (continue with --resume)", file=sys.stderr)
        return 130
    summary = {"command": command, "wall_seconds": round(time.time() - started, 1),
               "load_average_at_start": load, **{k: v for k, v in progress.items() if k != "checkpoints"},
               "last_checkpoint": progress["checkpoints"][-1]}
    print(json.dumps(summary, indent=1))
    return 0
