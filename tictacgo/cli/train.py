"""``tictacgo train GAME --algo maskable-ppo|a2c ...``: train a learned baseline.

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
done, 2 for bad arguments, 130 when interrupted (the last checkpoint is kept).
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


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("sb3_contrib") is None or importlib.util.find_spec("torch") is None:
        print("tictacgo train: error: training needs the train extra: pip install 'tictacgo[train]'",
              file=sys.stderr)
        return 2
    from tictacgo.baselines.learning.training import TrainConfig, train
    from tictacgo.baselines.learning.training_config import describe_config

    settings = {f.name: getattr(args, f.name) for f in dataclasses.fields(TrainConfig)}
    cfg = TrainConfig(**settings)
    try:
        cfg.out = cfg.output_folder()
        print(describe_config(cfg), flush=True)
        train(cfg)
    except ValueError as e:
        print(f"tictacgo train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tictacgo train: interrupted; the last checkpoint is in {cfg.out}", file=sys.stderr)
        return 130
    print(f"wrote {cfg.out}/best_model.zip, final_model.zip, learning_curve.png")
    return 0
