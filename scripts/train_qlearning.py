"""Train the tabular Q-learning agents: Tic-Tac-Toe by self-play, or Little-Go (``littlego`` first).

The same as ``tictacgo train GAME --algo qlearning`` (``tictacgo.cli.train_qlearning``,
which a wheel's user has too; ``--help`` lists the options):

    python scripts/train_qlearning.py --games 50000 --seed 0 --out runs/ttt_q.json
    python scripts/train_qlearning.py littlego --max-seconds 1800 --seed 0 --out runs/littlego_q.npz

One measurement is this script's own: ``littlego --recurrence N`` plays N
games for two pairings of the course's opponents (or ``--black SPEC
--white SPEC``) and prints how often the positions of each ply recur
(``tictacgo.baselines.qlearning_go_train.board_recurrence``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from tictacgo.atomic import atomic_write_json
from tictacgo.baselines.learning.training_config import setting
from tictacgo.baselines.qlearning_go_train import board_recurrence
from tictacgo.cli import main as tictacgo
from tictacgo.cli.options import parse_options


@dataclass
class RecurrenceArgs:
    recurrence: int = setting(0, "Games per pairing of how often positions recur.")
    recurrence_out: str | None = setting(None, "Where the recurrence table is written (JSON).")
    black: str | None = setting(None, "Measure this agent spec (Black) against --white instead of the two "
                                "pairings of the course's opponents.")
    white: str = setting("aggressive", "Black's opponent with --black.")
    seed: int = setting(0, "Seeds the games, once.")


def recurrence(argv: list[str]) -> int:
    """Print (and save) how often positions recur by ply, for two pairings of the course's opponents."""
    args = parse_options(RecurrenceArgs(), argv, description="How often Little-Go positions recur by ply.")
    rng = np.random.default_rng(args.seed)
    out = {}
    pairings = ((args.black, args.white),) if args.black else (("greedy", "random"), ("aggressive", "greedy"))
    for first, second in pairings:
        rows = board_recurrence(first, second, args.recurrence, rng)
        out[f"{first} vs {second}"] = rows
        print(f"{first} (Black) vs {second}, {args.recurrence:,} games: "
              "share of positions met in an earlier game")
        print("  " + "  ".join(f"t={r['t']}: {r['seen_before']:.0%}" for r in rows[:14]))
        print("  distinct positions by ply: " + " ".join(str(r["distinct"]) for r in rows))
    if args.recurrence_out:
        atomic_write_json(args.recurrence_out, {"games": args.recurrence, "seed": args.seed, "pairings": out},
                          indent=1)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    game = argv[0] if argv[:1] in (["tictactoe"], ["littlego"]) else "tictactoe"
    rest = argv[1:] if argv[:1] == [game] else argv
    if any(a.startswith("--recurrence") for a in rest):   # a Little-Go measurement, not a training
        return recurrence(rest)
    return tictacgo(["train", game, "--algo", "qlearning", *rest])


if __name__ == "__main__":
    sys.exit(main())
