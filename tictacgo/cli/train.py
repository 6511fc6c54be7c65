"""``tictacgo train GAME --algo maskable-ppo|a2c ...``: train a learned baseline
(``--algo alphazero`` has its own options: ``tictacgo train --algo alphazero --help``).

Examples:

    tictacgo train tictactoe --algo maskable-ppo --opponent random --opponent minimax@2 \\
        --self-play --steps 200000 --seed 0 --out runs/ttt_ppo
    tictacgo train tictactoe --algo a2c --policy two_branch --steps 300000 --out runs/ttt_a2c
    tictacgo train tictactoe --out runs/ttt_ppo --steps 400000 --resume   # continue the run

Every option is a field of ``TrainConfig``, with its help text and default
there. Writes into ``--out``: best_model.zip (best evaluation so far),
final_model.zip, checkpoint.zip and progress.json (for ``--resume``), tb/
(TensorBoard) and learning_curve.png; a folder that already holds a run is
refused unless ``--resume`` (continue it) or ``--force`` (replace it). Play the result: ``tictacgo arena
tictactoe ppo:path=runs/ttt_ppo/best_model.zip minimax``. Exit status 0 when
done, 1 when the run fails (its weights become non-finite, a checkpoint cannot be
written), 2 for bad arguments, 130 when interrupted (the last checkpoint is kept).
A second run into the same ``--out`` is refused while the first runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import sys

from tictacgo.cli.options import add_options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tictacgo.baselines.learning.training_config import TrainConfig

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__
    add_options(parser, TrainConfig(), positional=("game",))


def have_module(name: str) -> bool:
    """Whether ``import name`` can work (False also when ``sys.modules`` blocks it with None)."""
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing_train_extra() -> str | None:
    """The line that says the ``train`` extra is missing, or None when it is installed."""
    if all(have_module(m) for m in ("torch", "stable_baselines3", "sb3_contrib")):
        return None
    return "tictacgo train: error: training needs the train extra: pip install 'tictacgo[train]'"


def run(args: argparse.Namespace) -> int:
    missing = missing_train_extra()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    from tictacgo.baselines.learning.training import TrainConfig

    settings = {f.name: getattr(args, f.name) for f in dataclasses.fields(TrainConfig)}
    try:
        cfg = TrainConfig(**settings)
    except ValueError as e:
        print(f"tictacgo train: error: {e}", file=sys.stderr)
        return 2
    return train_and_report(cfg, "tictacgo train")


def train_and_report(cfg, prog: str) -> int:
    """Check ``cfg``, train it and say how it went in one line: the exit status.

    Shared by ``tictacgo train`` and the training scripts (``prog`` names the
    caller in messages): 0 trained, 2 a setting refused before anything was
    written, 1 a run that failed (a full disk, weights that became non-finite),
    130 interrupted (the last checkpoint kept).
    """
    from tictacgo.baselines.learning.training import train
    from tictacgo.baselines.learning.training_config import TrainingFailed, describe_config

    out = None
    try:
        cfg.validate()
        cfg.out = out = cfg.output_folder()
        print(describe_config(cfg), flush=True)
        train(cfg)
    except ValueError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except TrainingFailed as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; the last checkpoint is in {out}", file=sys.stderr)
        return 130
    plot = ", learning_curve.png" if have_module("matplotlib") else ""
    print(f"wrote {out}/best_model.zip, final_model.zip{plot}")
    return 0
