"""Train the tabular Q-learning Tic-Tac-Toe agent by self-play and measure when it stops losing.

Every ``--eval-every`` games the table is checked against the exact minimax
(``MinimaxAgent``, ties broken at random so it varies its lines):

- sampled: ``--eval-games`` games with the Q agent as X and as many as O;
- exact: every line where the Q agent plays any of its tied greedy moves and
  minimax any of its best moves (``vs minimax``), or the opponent any legal
  move at all (``vs any``, i.e. perfect play).

At the end it reports the first checkpoint from which each check held at
every later checkpoint, with the training time (evaluation excluded) and the
wall time to get there. The table is saved atomically at every checkpoint and
at the end (Ctrl-C saves what is there and stops).

    python scripts/train_qlearning.py --games 50000 --seed 0 --out runs/ttt_q.json
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from tictacgo.arena import play_wdl
from tictacgo.baselines.minimax import MinimaxAgent
from tictacgo.baselines.qlearning import DEFAULTS, QLearningAgent, train, worst_result
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()


def sampled(q: QLearningAgent, minimax: MinimaxAgent, games: int) -> dict[str, tuple[int, int, int]]:
    """W/D/L of the Q agent against minimax, as X and as O."""
    return {name: play_wdl(TTT, q, minimax, games, colour=side)
            for name, side in (("X", ttt.X), ("O", ttt.O))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=50_000, help="self-play training games (default 50000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/ttt_q.json",
                   help="where to save the table (JSON; default runs/ttt_q.json)")
    p.add_argument("--eval-every", type=int, default=500, help="games between checkpoints")
    p.add_argument("--eval-games", type=int, default=50, help="sampled games per side per checkpoint")
    p.add_argument("--alpha", type=float, default=DEFAULTS["alpha"])
    p.add_argument("--gamma", type=float, default=DEFAULTS["gamma"])
    p.add_argument("--epsilon", type=float, default=DEFAULTS["epsilon"])
    p.add_argument("--no-symmetry", action="store_true",
                   help="key the table by the raw board, as the seeds do (for comparison)")
    p.add_argument("--quiet", action="store_true", help="only the summary")
    args = p.parse_args(argv)
    if args.games < 1 or args.eval_every < 1 or args.eval_games < 0:
        p.error("--games and --eval-every must be positive, --eval-games non-negative")

    rng = np.random.default_rng(args.seed)
    train_rng, q_rng, mm_rng = rng.spawn(3)
    agent = QLearningAgent(TTT, rng=q_rng)
    minimax = MinimaxAgent(TTT, rng=mm_rng)
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))

    checks = ("sampled", "exact vs minimax", "exact vs any")
    history: list[tuple[int, float, float, dict[str, bool]]] = []
    eval_time = 0.0
    t0 = time.perf_counter()

    def checkpoint(games: int, ag: QLearningAgent) -> bool:
        nonlocal eval_time
        e0 = time.perf_counter()
        s = sampled(ag, minimax, args.eval_games)
        ok = {
            "sampled": s["X"][2] == 0 and s["O"][2] == 0,
            "exact vs minimax": min(worst_result(ag, side, "minimax", minimax) for side in (1, 2)) >= 0,
            "exact vs any": min(worst_result(ag, side, "any") for side in (1, 2)) >= 0,
        }
        ag.save(args.out)
        eval_time += time.perf_counter() - e0
        wall = time.perf_counter() - t0
        history.append((games, wall - eval_time, wall, ok))
        log(f"  eval @ {games:,}: vs minimax as X W/D/L {'/'.join(map(str, s['X']))}, "
            f"as O {'/'.join(map(str, s['O']))}; "
            f"exact vs minimax {'ok' if ok['exact vs minimax'] else 'LOSES'}, "
            f"vs any {'ok' if ok['exact vs any'] else 'LOSES'}")
        return False

    print(f"training {args.games:,} self-play games (alpha {args.alpha}, gamma {args.gamma}, "
          f"epsilon {args.epsilon}, symmetry {not args.no_symmetry}, seed {args.seed}); "
          f"checkpoints every {args.eval_every:,}")
    try:
        train(args.games, train_rng, alpha=args.alpha, gamma=args.gamma, epsilon=args.epsilon,
              symmetry=not args.no_symmetry, agent=agent, progress=not args.quiet,
              every=args.eval_every, callback=checkpoint, log=log)
        if not history or history[-1][0] != agent.games:
            checkpoint(agent.games, agent)
    except KeyboardInterrupt:
        agent.save(args.out)
        print(f"\ninterrupted after {agent.games:,} games; table saved to {args.out}")
        return 130
    total = time.perf_counter() - t0

    print(f"\n{agent.games:,} games, {len(agent):,} table states, {total:.1f}s "
          f"({total - eval_time:.1f}s training, {eval_time:.1f}s evaluation); saved {args.out}")
    for name in checks:
        # The first checkpoint from which the check held at every later one.
        first = None
        for games, train_s, wall_s, ok in reversed(history):
            if not ok[name]:
                break
            first = (games, train_s, wall_s)
        if first is None:
            print(f"  {name:17s}: still loses at the last checkpoint")
        else:
            print(f"  {name:17s}: never loses from {first[0]:,} games on "
                  f"({first[1]:.1f}s training, {first[2]:.1f}s with evaluation)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
