"""Train MaskablePPO or A2C on a tictacgo game, top to bottom (cleanrl style).

Every setting is a field of ``TrainConfig`` (with its help text and default
there, the ``--help``); this script only changes the defaults to the recipe of
the shipped Tic-Tac-Toe model of ``--algo`` and calls the same library code as
``tictacgo train``:

    python scripts/train_sb3.py --out runs/ttt_ppo                  # tictactoe_ppo.zip's recipe
    python scripts/train_sb3.py --algo a2c --out runs/ttt_a2c       # tictactoe_a2c.zip's recipe
    python scripts/train_sb3.py --game littlego --opponents random greedy@2 aggressive@2 --steps 3000000

A2C sees no action masks: it learns through the illegal-move penalty with
the actor-critic chapter's credit assignment (``IllegalAwareA2C``).

It prints an evaluation line every ``--eval-every`` steps and leaves
``best_model.zip``, ``final_model.zip``, ``checkpoint.zip``,
``progress.json``, TensorBoard logs and ``learning_curve.png`` in ``--out``.
"""

from __future__ import annotations

import argparse
import sys

from tictacgo.baselines.learning.training_config import TrainConfig
from tictacgo.cli.options import parse_options
from tictacgo.cli.train import train_and_report

# The recipes of baselines/models/tictactoe_ppo.zip and tictactoe_a2c.zip (see baselines/models/README.md).
RECIPES = {
    "maskable-ppo": TrainConfig(
        game="tictactoe", algo="maskable-ppo", opponents=["random", "minimax@2"], self_play=True,
        snapshot_every=25_000, random_opening=6, steps=600_000, seed=0, n_envs=8, gamma=0.99,
        learning_rate=1e-3, anneal_lr=True, n_steps=128, net_arch=[128, 128], eval_every=100_000,
        eval_games=100, eval_opponents=["minimax", "random"], out="runs/ttt_ppo", progress_bar=False),
    "a2c": TrainConfig(
        game="tictactoe", algo="a2c", policy="two_branch", opponents=["random", "minimax@2"], self_play=True,
        snapshot_every=50_000, random_opening=6, steps=1_500_000, seed=0, n_envs=8, gamma=0.9,
        eval_every=150_000, eval_games=100, eval_opponents=["minimax", "random"], out="runs/ttt_a2c",
        progress_bar=False),
}


def main(argv: list[str] | None = None) -> int:
    chosen = argparse.ArgumentParser(add_help=False)
    chosen.add_argument("--algo", choices=tuple(RECIPES), default="maskable-ppo")
    algo = chosen.parse_known_args(argv)[0].algo   # the recipe whose settings are the defaults
    try:
        cfg = parse_options(RECIPES[algo], argv, description=__doc__.split("\n\n")[0])
    except ValueError as e:  # a setting out of range: one line, as tictacgo train says it
        print(f"train_sb3.py: error: {e}", file=sys.stderr)
        return 2
    return train_and_report(cfg, "train_sb3.py")


if __name__ == "__main__":
    sys.exit(main())
