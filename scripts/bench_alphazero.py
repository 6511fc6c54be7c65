"""Leaf evaluations per second of the batched AlphaZero search, and of the network alone.

For each batch size B, B Little-Go games a few random moves in search with
an untrained network of the given size (``--channels`` x ``--blocks``); a
row gives the median over ``--repeats`` searches of network evaluations per
second of wall time (roots and leaves), next to the network's forward passes
alone on batches of B. torch runs on one thread (``--threads``), as training does.

    python scripts/bench_alphazero.py --batches 64,256 --sims 32
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch

from tictacgo.baselines.learning.alphazero.network import Architecture, NetworkEvaluator, PolicyValueNet
from tictacgo.baselines.learning.alphazero.search import gumbel_search
from tictacgo.baselines.learning.alphazero.variant import Variant


def roots(variant: Variant, batch: int, moves: int, rng: np.random.Generator):
    """An engine of ``batch`` live games after ``moves`` random placements each."""
    eng = variant.new_engine(batch)
    for _ in range(moves):
        legal = eng.legal_mask()
        legal[:, eng.pass_action] = False
        eng.play((rng.random(legal.shape) * legal).argmax(-1))
    eng.reset(eng.done.copy())
    return eng


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batches", default="64,256", help="comma-separated batch sizes")
    p.add_argument("--sims", type=int, default=32)
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--blocks", type=int, default=4)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    variant = Variant.make("littlego")
    net = PolicyValueNet(Architecture.for_variant(variant, channels=args.channels, blocks=args.blocks)).eval()
    evaluator = NetworkEvaluator(net, variant)
    rng = np.random.default_rng(0)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.channels} channels x {args.blocks} blocks, "
          f"{args.sims} simulations, torch threads {args.threads}")
    print("| B | search evals/s (median) | network alone evals/s |")
    print("|---:|---:|---:|")
    for batch in (int(b) for b in args.batches.split(",")):
        eng = roots(variant, batch, 6, rng)
        gumbel_search(eng, evaluator, 2, rng)  # warm-up
        rates = []
        for _ in range(args.repeats):
            before = evaluator.positions
            t = time.perf_counter()
            gumbel_search(eng, evaluator, args.sims, rng)
            rates.append((evaluator.positions - before) / (time.perf_counter() - t))
        x = torch.rand(batch, len(evaluator.encoder.planes), 5, 5)
        with torch.inference_mode():
            t, n = time.perf_counter(), 0
            while time.perf_counter() - t < 1.0:
                net(x)
                n += 1
            alone = n * batch / (time.perf_counter() - t)
        print(f"| {batch} | {statistics.median(rates):,.0f} | {alone:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
