#!/usr/bin/env python3
"""Plain UCT with seeded playouts against plain UCT with the rules' Python rollouts, same budget.

Uniform random rollouts run as the games' ``random_playout`` (one compiled
call from an integer seed, ``tictacgo.games.playouts``). Before, they were
Python loops drawing from the search's ``random.Random``: Little-Go's
``fast_rollout`` and Tic-Tac-Toe's rules-core ``random_rollout``. Both choose
uniformly among the legal moves, so the search should be as strong; this
script checks that by playing one against the other at the same number of
simulations, ``--games`` games with each colour, every game seeded from
``--seed`` and its index. The rollouts are the only difference: same tree,
same UCT constant, a fresh tree per move (as the speed benchmark runs it).

It prints a Markdown table of the new search's results by colour and in
total, with the score ``(W + D/2) / N`` and its 95% Wilson interval.

    python scripts/compare_rollouts.py --game littlego --sims 200 --games 200
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from tictacgo.arena.stats import wilson_interval
from tictacgo.baselines.learning.training_config import setting
from tictacgo.baselines.mcts import MCTSAgent
from tictacgo.baselines.mcts_evaluators import Evaluator, RandomRollout, random_rollout
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.progress import games_progress
from tictacgo.game_loop import play_game
from tictacgo.games import GAMES, make_game
from tictacgo.games.playouts import playout_backend

_WIN_VALUES = {0: (0.0, 0.0), 1: (1.0, -1.0), 2: (-1.0, 1.0)}


@dataclass
class Args:
    game: str = setting("littlego", "The game.", choices=GAMES)
    sims: int = setting(200, "Simulations per move for both searches.")
    games: int = setting(200, "Games with each colour (twice this many in all).")
    c: float = setting(1.0, "The UCT constant of both searches.")
    seed: int = setting(0, "Game i is seeded from (seed, i).")


class PythonRollout(Evaluator):
    """Uniform random rollouts as Python loops on the search's ``random.Random`` (the former evaluator)."""

    def __init__(self, game):
        self.game = game

    def evaluate(self, state, rnd: random.Random) -> tuple[float, float]:
        fast = getattr(self.game, "fast_rollout", None)
        if fast is not None:
            return _WIN_VALUES[fast(state, rnd, 0.0, 0.0)]
        return self.game.returns(random_rollout(self.game, state, rnd))


def main(argv: list[str] | None = None) -> None:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    game = make_game(args.game)

    def search(evaluator: Evaluator) -> MCTSAgent:
        return MCTSAgent(game, sims=args.sims, c=args.c, reuse=False, evaluator=evaluator)

    new, old = search(RandomRollout(game)), search(PythonRollout(game))
    results = {1: [0, 0, 0], 2: [0, 0, 0]}  # the new search's colour -> [wins, draws, losses]
    t0 = time.perf_counter()
    bar = games_progress(2 * args.games, "seeded playouts against Python rollouts")
    for i in range(2 * args.games):
        colour = 1 if i % 2 == 0 else 2
        first, second = (new, old) if colour == 1 else (old, new)
        record = play_game(game, first, second, rng=np.random.default_rng([args.seed, i]))
        results[colour][0 if record.winner == colour else 1 if record.winner == 0 else 2] += 1
        bar.update()
    bar.close()

    print(f"{args.game}: plain UCT, {args.sims} simulations a move, c={args.c}, a fresh tree per move; "
          f"seeded playouts on the {playout_backend()} backend against the Python rollouts; "
          f"{time.perf_counter() - t0:.0f} s\n")
    print("| seeded playouts play | games | W | D | L | score | 95% interval |")
    print("|---|---:|---:|---:|---:|---:|---|")
    names = game.spec.player_names
    rows = [(f"{names[0]} (first)", results[1]), (f"{names[1]} (second)", results[2]),
            ("both", [a + b for a, b in zip(results[1], results[2], strict=True)])]
    for label, (w, d, loss) in rows:
        n = w + d + loss
        lo, hi = wilson_interval(w + d / 2, n)
        print(f"| {label} | {n} | {w} | {d} | {loss} | {(w + d / 2) / n:.1%} | {lo:.1%} - {hi:.1%} |")


if __name__ == "__main__":
    main()
