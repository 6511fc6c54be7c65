#!/usr/bin/env python3
"""Random legal play through the batched engines: game plies per second at several batch sizes.

One ply is one player's action (as pgx and OpenSpiel count). Every step reads
the ``(B, A)`` legal mask, picks a uniformly random legal action per game
(PASS included, as the single-game benchmark's ``legal_actions`` does) and
calls ``step`` (play, then auto-reset of the finished games); only the actions
of live games are counted. Each (game, B) case runs for ``--budget`` seconds,
``--repeats`` times; the table shows the median and the runs.

Usage:  python scripts/bench_batched.py [--budget 1.0] [--repeats 3] [--batches 1,64,1024,8192]
                                        [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from dataclasses import dataclass

import numpy as np

from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.batched_tictactoe import BatchedTicTacToe

CASES = {"ttt_random_play": BatchedTicTacToe, "go5_random_play": lambda b: BatchedLittleGo(b, n=5)}


@dataclass
class Args:
    budget: float = 1.0
    """Seconds per run."""
    repeats: int = 3
    """Runs per case; the median is reported."""
    batches: tuple[int, ...] = (1, 64, 1024, 8192)
    """Batch sizes B."""
    seed: int = 0
    """Seeds the action choices."""
    json: str | None = None
    """Write the rows as JSON here."""


def plies_per_second(make, batch: int, budget: float, rng: np.random.Generator) -> float:
    engine = make(batch)
    plies = 0
    start = time.perf_counter()
    while True:
        mask = engine.legal_mask()
        plies += int((~engine.done).sum())
        engine.step(np.argmax(mask * rng.random(mask.shape), axis=1))
        elapsed = time.perf_counter() - start
        if elapsed >= budget:
            return plies / elapsed


def main(args: Args) -> list[dict]:
    rng = np.random.default_rng(args.seed)
    rows = []
    for case, make in CASES.items():
        for batch in args.batches:
            runs = [plies_per_second(make, batch, args.budget, rng) for _ in range(args.repeats)]
            rows.append({"case": case, "impl": "tictacgo_batched_engine", "batch": batch,
                         "per_s": statistics.median(runs), "runs": runs})
    print("| case | B | plies/s (median) | runs |")
    print("|---|---:|---:|---|")
    for r in rows:
        print(f"| {r['case']} | {r['batch']} | {r['per_s']:,.0f} | "
              f"{', '.join(f'{x:,.0f}' for x in r['runs'])} |")
    if args.json:
        machine = {"python": platform.python_version(), "numpy": np.__version__,
                   "processor": platform.processor() or platform.machine(), "system": platform.system()}
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "machine": machine}, f, indent=1)
    return rows


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=Args.budget)
    p.add_argument("--repeats", type=int, default=Args.repeats)
    p.add_argument("--batches", default=",".join(map(str, Args.batches)))
    p.add_argument("--seed", type=int, default=Args.seed)
    p.add_argument("--json", default=None)
    a = p.parse_args()
    main(Args(a.budget, a.repeats, tuple(int(x) for x in a.batches.split(",")), a.seed, a.json))
