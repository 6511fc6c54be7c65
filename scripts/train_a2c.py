"""Train A2C on a tictacgo game, top to bottom (cleanrl style).

A2C sees no action masks: it learns through the illegal-move penalty with
the actor-critic chapter's credit assignment (``IllegalAwareA2C``).

Every setting is a field of ``TrainConfig`` (with its help text and default
there, the ``--help``); this script only changes the defaults to the recipe of the shipped
Tic-Tac-Toe model and calls the same library code as ``tictacgo train``:

    python scripts/train_a2c.py --out runs/ttt_a2c
    python scripts/train_a2c.py --steps 3000000 --seed 1

It prints an evaluation line every ``--eval-every`` steps and leaves
``best_model.zip``, ``final_model.zip``, ``checkpoint.zip``,
``progress.json``, TensorBoard logs and ``learning_curve.png`` in ``--out``.
"""

from __future__ import annotations

import sys

from tictacgo.baselines.learning.training_config import TrainConfig
from tictacgo.cli.options import parse_options
from tictacgo.cli.train import train_and_report

# The recipe of baselines/models/tictactoe_a2c.zip (see baselines/models/README.md).
RECIPE = TrainConfig(
    game="tictactoe", algo="a2c", policy="two_branch", opponents=["random", "minimax@2"], self_play=True,
    snapshot_every=50_000, random_opening=6, steps=1_500_000, seed=0, n_envs=8, gamma=0.9,
    eval_every=150_000, eval_games=100, eval_opponents=["minimax", "random"], out="runs/ttt_a2c",
    progress_bar=False)


def main(argv: list[str] | None = None) -> int:
    try:
        cfg = parse_options(RECIPE, argv, description=__doc__.split("\n\n")[0])
    except ValueError as e:  # a setting out of range: one line, as tictacgo train says it
        print(f"train_a2c.py: error: {e}", file=sys.stderr)
        return 2
    if cfg.algo != "a2c":
        print(f"train_a2c.py trains a2c, not {cfg.algo!r}; use train_ppo.py", file=sys.stderr)
        return 2
    return train_and_report(cfg, "train_a2c.py")


if __name__ == "__main__":
    sys.exit(main())
