"""Draw the Little-Go Q-learning curve: win rate against each course opponent, by colour, over training.

Reads the learning curve that ``tictacgo train littlego --algo qlearning --curve FILE``
writes (or the ``curve`` of a saved table's record) and draws one panel per
opponent, Black and White as two lines, against training CPU minutes (needs
matplotlib).

    python scripts/plot_qlearning_go.py docs/data/qlearning_littlego.json \\
        --png docs/img/qlearning_littlego.png
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from dataclasses import dataclass

from tictacgo.atomic import atomic_write, check_writable
from tictacgo.baselines.learning.training_config import setting
from tictacgo.baselines.qlearning_go_train import OPPONENTS
from tictacgo.cli.options import add_options


@dataclass
class Args:
    curve: str = setting("", "The learning-curve JSON written by tictacgo train littlego --algo qlearning "
                         "--curve.")
    png: str = setting("", "The picture to write.", default_text="none: required")


def draw(curve: list[dict], png: str) -> None:
    """Write the curve's picture to ``png`` atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [p["train_seconds"] / 60 for p in curve]
    fig, axes = plt.subplots(1, len(OPPONENTS), figsize=(12, 3), sharey=True)
    for ax, name in zip(axes, OPPONENTS, strict=True):
        for side, style in (("black", "k-"), ("white", "k--")):
            ax.plot(minutes, [100 * p[name][side] for p in curve], style, label=f"as {side.title()}")
        ax.set_title(f"against {name}")
        ax.set_xlabel("training CPU minutes")
        ax.set_ylim(-2, 102)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate (%)")
    axes[0].legend(loc="lower right")
    fig.tight_layout()
    atomic_write(png, lambda f: fig.savefig(f, format="png", dpi=80), binary=True)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(p, Args(), positional=("curve",))
    args = dataclasses.replace(Args(), **vars(p.parse_args(argv)))
    if not args.png:
        p.error("--png FILE is required")
    check_writable(args.png)
    with open(args.curve, encoding="utf-8") as f:
        curve = json.load(f)["curve"]
    draw(curve, args.png)
    print(f"{len(curve)} checkpoints drawn to {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
