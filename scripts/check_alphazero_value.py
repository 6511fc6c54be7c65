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
3. For Tic-Tac-Toe, the sign of the raw value against the exact minimax
   value over all 4,520 live positions.

    python scripts/check_alphazero_value.py --model runs/go_az --games 256
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from tictacgo.baselines.learning.alphazero.network import NetworkEvaluator, load_model
from tictacgo.baselines.learning.alphazero.replay import NUM_SYMMETRIES, transform_boards, transform_policy
from tictacgo.baselines.learning.alphazero.search import softmax
from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig, SelfPlay


def held_out(evaluator: NetworkEvaluator, games: int, sims: int, seed: int):
    """The planes and results (mover's view) of the positions of ``games`` self-play games."""
    sp = SelfPlay(evaluator.variant, evaluator, min(games, 256), SearchConfig("gumbel", sims),
                  np.random.default_rng(seed))
    planes, values = [], []
    while sp.games_finished < games:
        pos = sp.step()
        if pos is not None:
            planes.append(pos.planes)
            values.append(pos.value)
    return np.concatenate(planes), np.concatenate(values)


def symmetry_spread(evaluator: NetworkEvaluator, planes: np.ndarray) -> dict[str, float]:
    n = planes.shape[-1]
    values, policies = [], []
    for s in range(NUM_SYMMETRIES):
        logits, v = evaluator.evaluate_planes(np.ascontiguousarray(transform_boards(planes, s)))
        # Back to the original orientation: the inverse of s (rotations invert, mirrors are their own).
        inverse = (4 - s) % 4 if s < 4 else s
        policies.append(transform_policy(softmax(logits), inverse, n))
        values.append(v)
    values, policies = np.stack(values), np.stack(policies)
    spread = values.max(0) - values.min(0)
    tv = 0.5 * np.abs(policies - policies.mean(0, keepdims=True)).sum(-1).mean()
    return {"value_spread_mean": float(spread.mean()), "value_spread_max": float(spread.max()),
            "policy_tv_to_mean": float(tv)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="model folder")
    p.add_argument("--games", type=int, default=256)
    p.add_argument("--sims", type=int, default=16)
    p.add_argument("--seed", type=int, default=12345)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    net, variant, _ = load_model(args.model)
    evaluator = NetworkEvaluator(net, variant)
    planes, z = held_out(evaluator, args.games, args.sims, args.seed)
    _, v = evaluator.evaluate_planes(planes)
    print(f"held-out: {args.games} games, {len(z)} positions")
    decided = z != 0
    print(f"  value MSE {np.mean((v - z) ** 2):.4f} (best constant: {np.var(z):.4f})")
    if decided.any():
        print(f"  sign of the value = the result in {np.mean(np.sign(v[decided]) == z[decided]):.1%} "
              f"of the positions of decided games ({decided.mean():.1%} of all)")
    for k, val in symmetry_spread(evaluator, planes).items():
        print(f"  {k} {val:.4f}")
    if variant.module.spec.solvable:
        from tictacgo.baselines.audit import reachable_positions
        from tictacgo.baselines.learning.alphazero.features import encoder_for
        from tictacgo.baselines.minimax import MinimaxAgent

        game = variant.module
        positions = reachable_positions(game)
        solver = MinimaxAgent(game)
        exact = np.array([np.sign(round(max(solver.action_values(s).values()), 9)) for s in positions])
        enc = encoder_for(variant)
        _, v = evaluator.evaluate_planes(np.stack([enc.from_state(game, s) for s in positions]))
        pred = np.where(v > 0.5, 1, np.where(v < -0.5, -1, 0))
        print(f"exact values over {len(positions)} positions: the raw value's class (>0.5 win, <-0.5 loss, "
              f"else draw) matches minimax in {np.mean(pred == exact):.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
