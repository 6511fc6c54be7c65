"""Leaf evaluations per second of the batched AlphaZero search, and where self-play's time goes.

For each batch size B, B Little-Go games a few random moves in search with
an untrained network of the given size (``--channels`` x ``--blocks``); a
row gives the median over ``--repeats`` searches of network evaluations per
second of wall time (roots and leaves), next to the evaluator's network
passes alone on batches of B. torch runs on one thread (``--threads``), as training does.

With ``--selfplay`` it times ``SelfPlay.step`` instead (the self-play of
``tictacgo train littlego --algo alphazero``, no gradient steps: the rows of
``scripts/bench.py --cases go5_alphazero_selfplay``) for ``--moves`` moves of
the B games, and splits the wall time by where it is spent, each part's own
time (nested calls are counted in their own part, not their caller's):

* network: the torch forward passes (``NetworkEvaluator.evaluate_planes``);
* input planes: encoding positions for the network and the training record;
* engine: the batched engine's calls (``play``, ``legal_mask``, ``returns``,
  ``reset``, ``boards``, ``snapshot``);
* search bookkeeping: the rest of the search (selection, expansion's array
  copies, backup, the Gumbel root);
* self-play bookkeeping: the rest of ``step`` (recording trajectories,
  finishing games).

    python scripts/bench_alphazero.py --batches 64,256 --sims 32
    python scripts/bench_alphazero.py --selfplay --batches 256 --sims 32 --moves 24 [--precision bfloat16]
    python scripts/bench_alphazero.py --batches 1 --sims 128 --precision auto
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from tictacgo.baselines.learning.alphazero.network import (
    Architecture,
    NetworkEvaluator,
    PolicyValueNet,
)
from tictacgo.baselines.learning.alphazero.precision import PRECISION_CHOICES, resolve_precision
from tictacgo.baselines.learning.alphazero.search import gumbel_search
from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig, SelfPlay
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.games import make_game
from tictacgo.games.base import Game
from tictacgo.games.batched_engines import make_batched_engine

PARTS = ("network", "input planes", "engine", "search bookkeeping", "self-play bookkeeping")
ENGINE_METHODS = ("play", "legal_mask", "returns", "reset", "boards", "snapshot")


def roots(variant: Game, batch: int, moves: int, rng: np.random.Generator):
    """An engine of ``batch`` live games after ``moves`` random placements each."""
    eng = make_batched_engine(variant, batch)
    for _ in range(moves):
        legal = eng.legal_mask()
        legal[:, eng.pass_action] = False
        eng.play((rng.random(legal.shape) * legal).argmax(-1))
    eng.reset(eng.done.copy())
    return eng


class SelfTimer:
    """Adds each timed call's own time (its wall time less that of the timed calls inside it) to its part."""

    def __init__(self):
        self.seconds = dict.fromkeys(PARTS, 0.0)
        self.stack: list[list] = []

    def wrap(self, part: str, fn):
        def timed(*args, **kwargs):
            self.stack.append([time.perf_counter(), 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                start, inner = self.stack.pop()
                elapsed = time.perf_counter() - start
                self.seconds[part] += elapsed - inner
                if self.stack:
                    self.stack[-1][1] += elapsed
        return timed


@contextmanager
def timing(selfplay: SelfPlay, evaluator: NetworkEvaluator, timer: SelfTimer):
    """Wrap the calls of one ``SelfPlay`` in ``timer`` (the engine class's methods while inside)."""
    engine_cls = type(selfplay.engine)
    saved = {m: engine_cls.__dict__.get(m) for m in ENGINE_METHODS}
    originals = {m: getattr(engine_cls, m) for m in ENGINE_METHODS}
    for m in ENGINE_METHODS:
        setattr(engine_cls, m, timer.wrap("engine", originals[m]))
    evaluator.evaluate_planes = timer.wrap("network", evaluator.evaluate_planes)
    evaluator.planes = timer.wrap("input planes", evaluator.planes)
    selfplay.encoder.from_engine = timer.wrap("input planes", selfplay.encoder.from_engine)
    search_run = SearchConfig.run
    SearchConfig.run = timer.wrap("search bookkeeping", search_run)
    step = selfplay.step
    selfplay.step = timer.wrap("self-play bookkeeping", step)
    try:
        yield
    finally:
        for m in ENGINE_METHODS:
            if saved[m] is None:
                delattr(engine_cls, m)
            else:
                setattr(engine_cls, m, saved[m])
        SearchConfig.run = search_run
        for obj, name in ((evaluator, "evaluate_planes"), (evaluator, "planes"),
                          (selfplay.encoder, "from_engine"), (selfplay, "step")):
            del obj.__dict__[name]


def selfplay_split(variant: Game, net: PolicyValueNet, batch: int, sims: int, moves: int,
                   precision: str = "float32", device: str = "cpu") -> None:
    """Print positions/s of ``moves`` self-play moves of ``batch`` games and the split of their time."""
    evaluator = NetworkEvaluator(net, variant, device=device, precision=precision)
    sp = SelfPlay(variant, evaluator, batch, SearchConfig("gumbel", sims), np.random.default_rng(0))
    sp.step()  # warm-up (the first call of the kernels)
    plain = []
    for _ in range(max(1, moves // 4)):
        t = time.perf_counter()
        sp.step()
        plain.append(batch / (time.perf_counter() - t))
    timer = SelfTimer()
    evals = evaluator.positions
    t = time.perf_counter()
    with timing(sp, evaluator, timer):
        for _ in range(moves):
            sp.step()
    wall = time.perf_counter() - t
    evals = evaluator.positions - evals
    print(f"B={batch}, {sims} simulations: {moves} moves timed, {batch * moves / wall:,.0f} positions/s "
          f"({statistics.median(plain):,.0f} untimed), {evals / wall:,.0f} network evaluations/s, "
          f"{evals / (batch * moves):.1f} a position; {sp.games_finished} games finished")
    print("| part | seconds | share |")
    print("|---|---:|---:|")
    for part in PARTS:
        print(f"| {part} | {timer.seconds[part]:.2f} | {timer.seconds[part] / wall:.0%} |")
    print(f"| (untimed: the loop and the timers) | {wall - sum(timer.seconds.values()):.2f} | |")


@dataclass
class Args:
    batches: list[int] = setting([64, 256], "Batch sizes B (games searched at once).")
    sims: int = setting(32, "Simulations a search.")
    channels: int = setting(32, "Network channels.")
    blocks: int = setting(4, "Network residual blocks.")
    repeats: int = setting(3, "Searches a batch size (the median is reported).")
    threads: int = setting(1, "torch threads (1: as training runs).")
    selfplay: bool = setting(False, "Time SelfPlay.step and split its time instead.")
    moves: int = setting(24, "--selfplay: moves timed (24: one course game).")
    precision: str = setting("float32", 'The network\'s arithmetic ("auto": bfloat16 where the CPU has AMX '
                             'or AVX512-BF16, as training\'s --inference-precision auto).',
                             choices=PRECISION_CHOICES)
    device: str = setting("cpu", "Where the network runs.", choices=("cpu", "cuda"))


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    picked = resolve_precision(args.precision, args.device)
    if args.precision == "auto":
        print(picked.reason)
    args.precision = picked.used
    variant = make_game("littlego")
    net = PolicyValueNet(Architecture.for_variant(variant, channels=args.channels, blocks=args.blocks))
    net = net.to(args.device).eval()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.channels} channels x {args.blocks} blocks, "
          f"{args.sims} simulations, torch threads {args.threads}, {args.precision}, on {args.device}")
    if args.selfplay:
        for batch in args.batches:
            selfplay_split(variant, net, batch, args.sims, args.moves, args.precision, args.device)
        print(f"load average {os.getloadavg()[0]:.2f} after")
        return 0
    evaluator = NetworkEvaluator(net, variant, device=args.device, precision=args.precision)
    rng = np.random.default_rng(0)
    print("| B | search evals/s (median) | network alone evals/s |")
    print("|---:|---:|---:|")
    for batch in args.batches:
        eng = roots(variant, batch, 6, rng)
        gumbel_search(eng, evaluator, 2, rng)  # warm-up
        rates = []
        for _ in range(args.repeats):
            before = evaluator.positions
            t = time.perf_counter()
            gumbel_search(eng, evaluator, args.sims, rng)
            rates.append((evaluator.positions - before) / (time.perf_counter() - t))
        x = rng.random((batch, len(evaluator.encoder.network_planes), 5, 5), dtype=np.float32)
        t, n = time.perf_counter(), 0
        while time.perf_counter() - t < 1.0:
            evaluator.evaluate_planes(x)
            n += 1
        alone = n * batch / (time.perf_counter() - t)
        print(f"| {batch} | {statistics.median(rates):,.0f} | {alone:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
