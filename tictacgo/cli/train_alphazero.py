"""``tictacgo train GAME --algo alphazero ...``: train an AlphaZero network by self-play.

Examples:

    tictacgo train tictactoe --algo alphazero --seed 0 --max-positions 318720 --max-seconds 0 \\
        --out runs/ttt_az --channels 32 --blocks 2 --num-games 128 --simulations 16 --random-opening 6 \\
        --checkpoint-every 30 --min-buffer 500
    tictacgo train littlego --algo alphazero --seed 0 --max-seconds 7200 --out runs/go_az \\
        --channels 32 --blocks 4 --num-games 256 --simulations 32 --random-opening 4 \\
        --buffer-size 200000 --checkpoint-every 600 --min-buffer 5000

Every option is a field of ``AlphaZeroConfig``, with its help text and
default there. Writes into ``--out``: model.pt, model.npz and model.json (the
latest network; play it with ``az:path=OUT``), checkpoints/, resume/ (for
``--resume``), config.json and tb/ (TensorBoard); a folder that already
holds a run is refused unless ``--resume`` or ``--force``, and so is a folder
another run is writing. Ctrl-C keeps the last checkpoint (exit status 130);
``--resume`` continues from it. A run whose loss or weights become non-finite,
or whose checkpoint the disk refuses, stops with exit status 1, the last whole
checkpoint kept.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

from tictacgo.cli.options import add_options


def wanted(argv: list[str]) -> bool:
    """Whether the ``train`` arguments ask for AlphaZero (``--algo alphazero``)."""
    return any(a == "--algo=alphazero" or (a == "--algo" and nxt == "alphazero")
               for a, nxt in zip(argv, [*argv[1:], ""], strict=True))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tictacgo.cli.train import missing_train_extra

    missing = missing_train_extra()
    if missing:  # the options are the fields of a module that needs torch: even --help cannot list them
        print(missing, file=sys.stderr)
        raise SystemExit(2)
    from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__
    parser.add_argument("--algo", choices=("alphazero",), default="alphazero",
                        help="the algorithm (maskable-ppo and a2c take other options)")
    add_options(parser, AlphaZeroConfig(), positional=("game",))


def config_from_args(args: argparse.Namespace):
    """The ``AlphaZeroConfig`` of parsed options.

    Raises:
        ValueError: settings the config refuses.
    """
    from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig

    names = {f.name for f in dataclasses.fields(AlphaZeroConfig)}
    return AlphaZeroConfig(**{k: v for k, v in vars(args).items() if k in names})


def run(args: argparse.Namespace) -> int:
    """Train; print a JSON summary. Exit status 0, 1 for a failed run, 2 for bad settings, 130 when
    interrupted."""
    from tictacgo.baselines.learning.alphazero.train import train
    from tictacgo.baselines.learning.training_config import TrainingFailed

    try:
        cfg = config_from_args(args)
    except ValueError as e:
        print(f"tictacgo train: error: {e}", file=sys.stderr)
        return 2
    started = time.time()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    # The command as typed: a script (python scripts/NAME.py ...) or tictacgo train ...
    typed = ["python", *sys.argv] if sys.argv[0].endswith(".py") else ["tictacgo", *sys.argv[1:]]
    command = " ".join(typed)

    def say_where() -> None:  # once the folder is taken: a refused run prints only its error
        print(f"training {cfg.game} into {cfg.out_dir} (seed {cfg.seed}, load average {load:.2f})",
              flush=True)

    try:
        progress = train(cfg, info={"command": command}, on_start=say_where)
    except ValueError as e:
        print(f"tictacgo train: error: {e}", file=sys.stderr)
        return 2
    except TrainingFailed as e:
        print(f"tictacgo train: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; the last checkpoint is kept (continue with --resume)", file=sys.stderr)
        return 130
    summary = {"command": command, "wall_seconds": round(time.time() - started, 1),
               "load_average_at_start": load, **{k: v for k, v in progress.items() if k != "checkpoints"},
               "last_checkpoint": progress["checkpoints"][-1]}
    print(json.dumps(summary, indent=1))
    return 0
