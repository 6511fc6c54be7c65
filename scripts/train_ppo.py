"""Train MaskablePPO on a tictacgo game, top to bottom (cleanrl style).

Every setting is a field of ``TrainConfig`` (with its help text and default
there, the ``--help``); this script only changes the defaults to the recipe of the shipped
Tic-Tac-Toe model and calls the same library code as ``tictacgo train``:

    python scripts/train_ppo.py --out runs/ttt_ppo
    python scripts/train_ppo.py --game littlego --opponents random greedy@2 aggressive@2 --steps 3000000

It prints an evaluation line every ``--eval-every`` steps and leaves
``best_model.zip``, ``final_model.zip``, ``checkpoint.zip``,
``progress.json``, TensorBoard logs and ``learning_curve.png`` in ``--out``.
"""

from __future__ import annotations

import sys

from tictacgo.baselines.learning.training_config import TrainConfig
from tictacgo.cli.options import parse_options
from tictacgo.cli.train import train_and_report

# The recipe of baselines/models/tictactoe_ppo.zip (see baselines/models/README.md).
RECIPE = TrainConfig(
    game="tictactoe", algo="maskable-ppo", opponents=["random", "minimax@2"], self_play=True,
    snapshot_every=25_000, random_opening=6, steps=600_000, seed=0, n_envs=8, gamma=0.99,
    learning_rate=1e-3, anneal_lr=True, n_steps=128, net_arch=[128, 128], eval_every=100_000,
    eval_games=100, eval_opponents=["minimax", "random"], out="runs/ttt_ppo", progress_bar=False)


def main(argv: list[str] | None = None) -> int:
    try:
        cfg = parse_options(RECIPE, argv, description=__doc__.split("\n\n")[0])
    except ValueError as e:  # a setting out of range: one line, as tictacgo train says it
        print(f"train_ppo.py: error: {e}", file=sys.stderr)
        return 2
    if cfg.algo != "maskable-ppo":
        print(f"train_ppo.py trains maskable-ppo, not {cfg.algo!r}; use train_a2c.py", file=sys.stderr)
        return 2
    return train_and_report(cfg, "train_ppo.py")


if __name__ == "__main__":
    sys.exit(main())
