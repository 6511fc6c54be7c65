"""Build the Little-Go endgame benchmark: positions near the end, each with its exact value and optimal moves.

The recipe (stored in the file, and the same on every machine):

* agents: the course ladder (random, greedy, aggressive, alphabeta), MCTS
  (``mcts:sims=200``) and the shipped PPO model (``ppo``);
* games: every ordered pairing of them (Black, White), game ``g`` of pairing
  ``k`` seeded with ``(seed, g, colour)`` for each agent; the games are
  taken round by round (game 0 of every pairing, then game 1, ...);
* one position per game: with ``left`` actions to go, ``left`` drawn
  uniformly from 1..``--max-left`` with the generator ``(seed, k, g)``;
  games over before that position give none, and a position whose table key
  (shared by its 8 symmetric images) was already taken is skipped;
* each position is solved exactly (``tictacgo.solver.endgames.label``) for
  its value and every legal move's value, until ``--count`` positions.

    python scripts/make_endgames.py --count 10000 --workers 2
    python scripts/make_endgames.py --count 500 --out /tmp/endgames.npz

The shipped benchmark (tests/data/littlego_endgames.npz) was made before
``aggressive`` came to play as the course's TA's player does: its 2,972
positions from games with ``aggressive`` came from the earlier rule, so a
rerun of the recipe today gives other positions there (the other 7,028 come
from games of agents that did not change).
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tictacgo.atomic import check_writable
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.sampling import game_states
from tictacgo.solver import Solver, position_key
from tictacgo.solver.endgames import Endgame, label, save_endgames
from tictacgo.solver.search import variant

POOL = ("random", "greedy", "aggressive", "alphabeta", "mcts:sims=200", "ppo")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "littlego_endgames.npz"
_solver: Solver | None = None  # one per worker process


def make_position(task: tuple[int, int, str, str, int, int]):
    """Play game ``g`` of pairing ``k`` and label its sampled position; None if it has none."""
    global _solver
    seed, max_left, black, white, k, g = task
    left = 1 + int(np.random.default_rng([seed, k, g]).integers(max_left))
    states = game_states(black, white, seed, g)
    t = variant(states[0])[2] - left
    if t >= len(states) or states[t].end is not None:
        return None
    state = states[t]
    if _solver is None:
        _solver = Solver(20)
    value, optimal = label(state, _solver)
    return Endgame(state, value, optimal, black, white, g)


@dataclass
class Args:
    count: int = setting(10_000, "Positions to keep.")
    max_left: int = setting(10, "At most this many actions to go.")
    seed: int = setting(0, "Seeds the games and the positions taken from them.")
    workers: int = setting(1, "Processes.")
    agents: list[str] = setting(list(POOL), "The agent specs that play the games.")
    out: str = setting(str(DEFAULT_OUT), "The .npz file to write.",
                       default_text="tests/data/littlego_endgames.npz")


def main(argv: list[str] | None = None) -> None:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    check_writable(args.out)
    pairings = [(b, w) for b in args.agents for w in args.agents]
    rounds = -(-2 * args.count // len(pairings))  # room for early ends and repeats
    tasks = [(args.seed, args.max_left, b, w, k, g)
             for g in range(rounds) for k, (b, w) in enumerate(pairings)]
    kept: list[Endgame] = []
    seen: set[int] = set()
    start = last = time.perf_counter()
    pool = mp.get_context("spawn").Pool(args.workers) if args.workers > 1 else None
    results = pool.imap(make_position, tasks, chunksize=4) if pool else map(make_position, tasks)
    try:
        for done, e in enumerate(results, 1):
            if e is not None:
                key = position_key(e.state)
                if key not in seen:
                    seen.add(key)
                    kept.append(e)
            now = time.perf_counter()
            if now - last > 10:
                last = now
                print(f"  {done} games, {len(kept)} positions, {now - start:.0f} s", file=sys.stderr,
                      flush=True)
            if len(kept) >= args.count:
                break
    finally:
        if pool is not None:
            pool.terminate()
    if len(kept) < args.count:
        print(f"only {len(kept)} positions from {len(tasks)} games", file=sys.stderr)
    recipe = {"agents": list(args.agents), "pairings": "every ordered pair (Black, White)",
              "seed": args.seed, "max_left": args.max_left, "count": len(kept),
              "games": "game g of pairing k: agent seeds (seed, g, 0) Black, (seed, g, 1) White; "
                       "rounds g = 0, 1, ... over the pairings in order",
              "position": "left = 1 + Generator((seed, k, g)).integers(max_left); the state with left "
                          "actions to go; repeats by solver table key (symmetries included) skipped"}
    save_endgames(args.out, kept, recipe)
    values = Counter(e.value for e in kept)
    lefts = Counter(e.left for e in kept)
    print(f"{len(kept)} positions in {time.perf_counter() - start:.0f} s -> {args.out}")
    print(f"values: {dict(sorted(values.items()))}; decisive: {sum(e.decisive for e in kept)}; "
          f"by actions left: {dict(sorted(lefts.items()))}")


if __name__ == "__main__":
    main()
