"""The actor-critic chapter's Tic-Tac-Toe table: search agents against the "think three steps ahead" player.

Two parts, each game from the empty board, results from the first-named
agent's view as W/D/L:

1. ``minimax``, ``fast_minimax`` and ``mcts`` (if registered; skipped
   otherwise) against ``think3``, moving first and second (the chapter reports
   its actor-critic agent at 72 W / 0 L / 28 D first and 9 W / 0 L / 91 D
   second over 100 games each). ``--qtable FILE`` adds a trained Q-learning
   table (``scripts/train_qlearning.py``).
2. The exact ``minimax`` never loses: ``--games`` games each side against
   ``random``, ``think3`` and itself. The script exits 1 if it lost a game.

On a terminal a bar counts each pairing's games (stderr; nothing in a pipe).

    python scripts/eval_tictactoe.py --games 1000 --seed 0
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from tictacgo.arena import play_wdl
from tictacgo.baselines.learning.training_config import setting
from tictacgo.baselines.registry import available_agents, make_agent
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.progress import games_progress
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()


@dataclass
class Args:
    games: int = setting(1000, "Games per side and pairing.")
    seed: int = setting(0, "Seeds every agent, once.")
    mcts: str = setting("mcts", "MCTS spec for part 1.")
    mcts_games: int | None = setting(None, "Games per side for the MCTS pairing.", default_text="--games")
    qtable: str | None = setting(None, "Also evaluate a Q-learning table (JSON) against think3.")


def match(spec_a: str, spec_b: str, games: int, rng: np.random.Generator) -> dict[str, tuple[int, int, int]]:
    """W/D/L of ``spec_a`` against ``spec_b`` with ``spec_a`` first ("first") and second ("second")."""
    ra, rb = rng.spawn(2)
    # Two instances even for self-play, each with its own generator.
    a = make_agent(spec_a, "tictactoe", rng=ra)
    b = make_agent(spec_b, "tictactoe", rng=rb)
    bar = games_progress(2 * games, f"{spec_a} vs {spec_b}")
    try:
        return {label: play_wdl(TTT, a, b, games, colour=side, on_game=bar.update)
                for label, side in (("first", ttt.X), ("second", ttt.O))}
    finally:
        bar.close()


def report(spec_a: str, spec_b: str, games: int, rng: np.random.Generator,
           width: int = 14) -> dict[str, tuple[int, int, int]]:
    """Run ``match`` and print one W/D/L line per side."""
    t0 = time.perf_counter()
    res = match(spec_a, spec_b, games, rng)
    dt = time.perf_counter() - t0
    for label in ("first", "second"):
        w, d, lost = res[label]
        print(f"  {spec_a:>{width}s} vs {spec_b:<8s} {label:>6s}: {w:5d} W {d:5d} D {lost:5d} L")
    print(f"  {'':>{width}s}    ({2 * games} games, {dt:.1f}s)")
    return res


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    if args.games < 1:
        print(f"eval_tictactoe.py: error: --games must be positive, got {args.games}", file=sys.stderr)
        return 2

    rng = np.random.default_rng(args.seed)
    names = available_agents("tictactoe")
    print(f"Part 1: against think3 (the actor-critic chapter's table), {args.games} games each side, "
          f"seed {args.seed}")
    contenders = [("minimax", args.games), ("fast_minimax", args.games)]
    if "mcts" in names:
        contenders.append((args.mcts, args.mcts_games or args.games))
    else:
        print("  (mcts is not registered: skipped)")
    if args.qtable:
        contenders.append((f"qlearning:path={args.qtable}", args.games))
    width = max(len(spec) for spec, _ in contenders)
    for spec, n in contenders:
        report(spec, "think3", n, rng.spawn(1)[0], width)

    print(f"\nPart 2: minimax never loses, {args.games} games each side")
    losses = 0
    for opponent in ("random", "think3", "minimax"):
        res = report("minimax", opponent, args.games, rng.spawn(1)[0])
        losses += res["first"][2] + res["second"][2]
    print(f"\nminimax lost {losses} game(s)" + ("" if losses == 0 else "  <-- should be 0"))
    return 0 if losses == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
