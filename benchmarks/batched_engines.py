"""Random legal play through the batched engines: game plies per second at several batch sizes.

One ply is one player's action (as pgx and OpenSpiel count). Every step reads
the ``(B, A)`` legal mask, picks a uniformly random legal action per game
(PASS included, as the single-game benchmark's ``legal_actions`` does) and
calls ``step`` (play, then auto-reset of the finished games); only the actions
of live games are counted. Each (game, B, backend) case runs for ``--budget``
seconds, ``--repeats`` times, after one untimed warm-up step (numba's first-call
compile or cache load is measured apart); the table shows the median and the runs.

``--compile-cost`` measures instead what the numba backend costs before its
first step: in fresh Python processes, the import of numba and of the kernels,
then the first ``legal_mask``, ``step``, ``play`` (and Little-Go's
``capture_counts``) of each engine, once with an empty on-disk cache (the
kernels are compiled and written to it) and once with that cache warm (they are
loaded from it). The cache is a fresh ``NUMBA_CACHE_DIR``, so the package's own
``__pycache__`` is neither used nor touched.

``--backend`` is ``numpy``, ``numba`` or ``both`` (the default when numba
imports; see ``tictacgo.games.batched_common`` for the backends).

Usage:  python scripts/bench_batched.py [--budget 1.0] [--repeats 3] [--batches 1,64,1024,8192]
                                        [--backend both|numpy|numba] [--json PATH]
        python scripts/bench_batched.py --compile-cost [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from tictacgo.games.batched_common import load_kernels
from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.batched_tictactoe import BatchedTicTacToe

CASES = {"ttt_random_play": lambda b, backend: BatchedTicTacToe(b, backend=backend),
         "go5_random_play": lambda b, backend: BatchedLittleGo(b, backend=backend)}


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
    backends: tuple[str, ...] = ("numpy", "numba")
    """The engine backends to measure."""


def plies_per_second(make, batch: int, backend: str, budget: float, rng: np.random.Generator) -> float:
    engine = make(batch, backend)
    engine.step(np.argmax(engine.legal_mask(), axis=1))  # warm-up: compiles or loads the numba kernels
    engine.reset()
    plies = 0
    start = time.perf_counter()
    while True:
        mask = engine.legal_mask()
        plies += int((~engine.done).sum())
        engine.step(np.argmax(mask * rng.random(mask.shape), axis=1))
        elapsed = time.perf_counter() - start
        if elapsed >= budget:
            return plies / elapsed


FIRST_CALLS = """
import json, time
t0 = time.perf_counter()
import numba
t1 = time.perf_counter()
import numpy as np
from tictacgo.games.batched_common import load_kernels
from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.batched_tictactoe import BatchedTicTacToe
assert load_kernels() is not None
t2 = time.perf_counter()
out = {"import_numba": t1 - t0, "import_kernels": t2 - t1}
for name, engine in (("ttt", BatchedTicTacToe(4, backend="numba")),
                     ("go5", BatchedLittleGo(4, backend="numba"))):
    t = time.perf_counter()
    mask = engine.legal_mask()
    engine.step(np.argmax(mask, axis=1))
    engine.play(np.argmax(engine.legal_mask(), axis=1))
    if name == "go5":
        engine.capture_counts()
    out["first_calls_" + name] = time.perf_counter() - t
print(json.dumps(out))
"""


def compile_cost(repeats: int) -> list[dict]:
    """First-call cost of the numba backend, cold and warm on-disk cache, in fresh processes."""
    rows = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            for state in ("empty cache", "warm cache"):
                t = time.perf_counter()
                res = subprocess.run([sys.executable, "-c", FIRST_CALLS], env=env, check=True,
                                     capture_output=True, text=True)
                row = json.loads(res.stdout)
                row.update(cache=state, process_wall=time.perf_counter() - t,
                           cache_files=sum(len(f) for _, _, f in os.walk(cache)))
                rows.append(row)
    print("| cache | import numba (s) | import kernels (s) | first TTT calls (s) | first Go calls (s) "
          "| process wall (s) | cache files |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for state in ("empty cache", "warm cache"):
        rs = [r for r in rows if r["cache"] == state]
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0] if k != "cache"}
        print(f"| {state} | {med['import_numba']:.2f} | {med['import_kernels']:.2f} | "
              f"{med['first_calls_ttt']:.2f} | {med['first_calls_go5']:.2f} | {med['process_wall']:.2f} "
              f"| {med['cache_files']:.0f} |")
    return rows


def main(args: Args) -> list[dict]:
    rng = np.random.default_rng(args.seed)
    rows = []
    for case, make in CASES.items():
        for batch in args.batches:
            for backend in args.backends:
                runs = [plies_per_second(make, batch, backend, args.budget, rng) for _ in range(args.repeats)]
                rows.append({"case": case, "impl": "tictacgo_batched_engine", "backend": backend,
                             "batch": batch, "per_s": statistics.median(runs), "runs": runs})
    print("| case | backend | B | plies/s (median) | runs |")
    print("|---|---|---:|---:|---|")
    for r in rows:
        print(f"| {r['case']} | {r['backend']} | {r['batch']} | {r['per_s']:,.0f} | "
              f"{', '.join(f'{x:,.0f}' for x in r['runs'])} |")
    if args.json:
        kernels = load_kernels()
        machine = {"python": platform.python_version(), "numpy": np.__version__,
                   "numba": kernels.numba_version if kernels else None,
                   "processor": platform.processor() or platform.machine(), "system": platform.system()}
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "machine": machine}, f, indent=1)
    return rows


def cli(argv: list[str] | None = None) -> int:
    """The command line of ``scripts/bench_batched.py``: measure the engines, or numba's compile cost."""
    p = argparse.ArgumentParser(prog="bench_batched.py", description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=Args.budget)
    p.add_argument("--repeats", type=int, default=Args.repeats)
    p.add_argument("--batches", default=",".join(map(str, Args.batches)))
    p.add_argument("--seed", type=int, default=Args.seed)
    p.add_argument("--json", default=None)
    p.add_argument("--backend", choices=("both", "numpy", "numba"), default=None,
                   help="engine backend(s) to measure (default: both when numba imports, else numpy)")
    p.add_argument("--compile-cost", action="store_true",
                   help="measure numba's first-call cost with an empty and a warm on-disk cache instead")
    a = p.parse_args(argv)
    if a.compile_cost:
        if load_kernels() is None:
            p.error("--compile-cost needs numba: pip install -e '.[fast]'")
        compile_cost(a.repeats)
        return 0
    backend = a.backend or ("both" if load_kernels() is not None else "numpy")
    if backend == "numba" or backend == "both":
        if load_kernels() is None:
            p.error("--backend numba needs numba: pip install -e '.[fast]'")
    backends = ("numpy", "numba") if backend == "both" else (backend,)
    main(Args(a.budget, a.repeats, tuple(int(x) for x in a.batches.split(",")), a.seed, a.json, backends))
    return 0


if __name__ == "__main__":
    sys.exit(cli())
