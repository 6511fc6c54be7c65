"""Train an AlphaZero network for Tic-Tac-Toe or Little-Go by batched self-play.

Every option is a field of ``AlphaZeroConfig``
(``tictacgo.baselines.learning.alphazero.train``), with its documentation as
the help text. The run writes into ``--out``: model.pt + model.json (the
latest network; play it with ``az:path=OUT``), checkpoints/, resume/ (for
``--resume``), config.json and tb/ (TensorBoard). Interrupt it with Ctrl-C:
the last checkpoint stays, and ``--resume`` continues from it.

    python scripts/train_alphazero.py --game tictactoe --max-seconds 300 --out runs/ttt_az
    python scripts/train_alphazero.py --game littlego --max-seconds 7200 --out runs/go_az
    python scripts/train_alphazero.py --game littlego --max-seconds 10800 --out runs/go_az --resume
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

from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig, train


def field_docs(cls) -> dict[str, str]:
    """The docstring written under each field of a dataclass (cleanrl's habit), by field name."""
    body = ast.parse(inspect.getsource(cls)).body[0].body
    docs = {}
    for stmt, nxt in zip(body, body[1:], strict=False):
        documented = isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
        if isinstance(stmt, ast.AnnAssign) and documented:
            docs[stmt.target.id] = " ".join(str(nxt.value.value).split())
    return docs


def parse_args(argv: list[str] | None = None) -> AlphaZeroConfig:
    """An ``AlphaZeroConfig`` from the command line (one ``--option`` per field)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    docs = field_docs(AlphaZeroConfig)
    defaults = AlphaZeroConfig()
    for f in dataclasses.fields(AlphaZeroConfig):
        default = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(default, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=default,
                           help=docs.get(f.name))
            continue
        kind = {int: int, float: float, str: str}.get(type(default), str)
        if f.name == "board_size":
            kind = int
        p.add_argument(flag, type=kind, default=default, help=docs.get(f.name), metavar=f.name.upper())
    args = p.parse_args(argv)
    try:
        return AlphaZeroConfig(**vars(args))
    except ValueError as e:
        p.error(str(e))


def main(argv: list[str] | None = None) -> int:
    cfg = parse_args(argv)
    started = time.time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"training {cfg.game} into {cfg.out_dir} (seed {cfg.seed}, load average {load:.2f})", flush=True)
    command = " ".join(["python", *sys.argv])
    try:
        progress = train(cfg, info={"command": command})
    except KeyboardInterrupt:
        print("interrupted; the last checkpoint is kept (continue with --resume)", file=sys.stderr)
        return 130
    summary = {"command": command,
               "wall_seconds": round(time.time() - started, 1),
               "load_average_at_start": load, **{k: v for k, v in progress.items() if k != "checkpoints"},
               "last_checkpoint": progress["checkpoints"][-1]}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
