"""Check an AlphaZero network's value head: a held-out set of games, and the board's symmetries.

1. **Held-out games**: ``--games`` fresh self-play games (Gumbel search with
   noise, ``--sims`` simulations, a seed the training did not use); the mean
   squared error of the raw value against each position's result from the
   mover's view, next to the error of the best constant (the results' mean).
2. **Symmetry**: the value of every held-out position under the eight
   symmetries of the board: the mean and largest spread (max - min), and the
   mean total-variation distance between the policy of a transformed position
   and the transformed policy. A network that learnt the game's symmetry
   shows small numbers (training augments with all eight).
3. Exact values: for Tic-Tac-Toe, the raw value's class against the exact
   minimax value over all 4,520 live positions; for 5x5 Little-Go, the sign
   of the raw value against the solver's exact value over the endgame
   benchmark (``--endgames``, by default ``tests/data/littlego_endgames.npz``:
   10,000 positions with at most 10 actions to go), over all of them and
   over the decisive ones (where some move throws the value away).

The checks are ``tictacgo.evaluation.value_check``.

    python scripts/check_alphazero_value.py --model runs/go_az --games 256
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from tictacgo.baselines.learning.alphazero.network import NetworkEvaluator, load_model
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.value_check import (
    endgame_values,
    exact_value_classes,
    held_out,
    held_out_errors,
    symmetry_spread,
)

ENDGAMES = Path(__file__).resolve().parents[1] / "tests" / "data" / "littlego_endgames.npz"


@dataclass
class Args:
    model: str = setting("", "The model folder (model.pt and model.json).", default_text="none: required")
    games: int = setting(256, "Held-out self-play games.")
    sims: int = setting(16, "Simulations a move of the held-out games.")
    seed: int = setting(12345, "Seeds the held-out games (one the training did not use).")
    endgames: str | None = setting(
        None, "Little-Go endgame benchmark (.npz) of the network's variant; '' to skip.",
        default_text="the 5x5 benchmark for a network of the course's game")


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    if not args.model:
        print("check_alphazero_value.py: error: --model DIR is required", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    net, variant, _ = load_model(args.model)
    evaluator = NetworkEvaluator(net, variant)
    planes, results = held_out(evaluator, args.games, args.sims, args.seed)
    errors = held_out_errors(evaluator, planes, results)
    print(f"held-out: {args.games} games, {len(results)} positions")
    print(f"  value MSE {errors['mse']:.4f} (best constant: {errors['constant_mse']:.4f})")
    if "sign_matches_decided" in errors:
        print(f"  sign of the value = the result in {errors['sign_matches_decided']:.1%} "
              f"of the positions of decided games ({errors['decided_share']:.1%} of all)")
    for k, val in symmetry_spread(evaluator, planes).items():
        print(f"  {k} {val:.4f}")
    if variant.spec.solvable:
        r = exact_value_classes(evaluator)
        print(f"exact values over {r['positions']} positions: the raw value's class (>0.5 win, <-0.5 loss, "
              f"else draw) matches minimax in {r['matches']:.2%}")
    elif args.endgames != "":
        try:
            r = endgame_values(evaluator, args.endgames or ENDGAMES)
        except ValueError:
            if args.endgames is not None:
                raise
            return 0  # the default benchmark is of another game or variant
        print(f"exact values over {r['positions']} endgame positions: the raw value's sign matches the "
              f"solver in {r['sign_matches']:.2%} ({r['sign_matches_decisive']:.2%} of the decisive ones), "
              f"MSE {r['mse']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
