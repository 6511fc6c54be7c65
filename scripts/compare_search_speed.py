"""The searches' speed in two checkouts, measured interleaved in one run: MCTS and AlphaZero self-play.

A change to the search must keep its speed; on a shared machine only a
side-by-side run says whether it did. This script starts one worker process
per checkout (this one and ``--base``, e.g. a worktree of the commit before
the change: ``git worktree add /tmp/base_search 596d787``), each importing
its own checkout's ``tictacgo``, and measures the rows in turn, alternating
which checkout goes first, ``--rounds`` times; it prints each row's median
rate in both and their ratio, and the load average before and after.

Rows (the cases of ``scripts/bench.py``, built by its ``build``):

* ``go5_mcts`` (empty board and midgame) and ``ttt_mcts``: UCT MCTS
  simulations per second (``mcts:sims=400,rollout=random,reuse=false``);
* ``go5_alphazero_selfplay``: self-play positions per second (256 games,
  32 simulations, an untrained 32x4 network, float32, one thread);
* ``go5_alphazero_tiny``: the same self-play at 4 games, 4 simulations and an
  untrained 8x1 network (``scripts/bench.py --quick``'s settings), where the
  search's own cost per step, not the network, sets the rate;
* ``az_agent``: the ``az`` agent's simulations per second on one game
  (B = 1, 256 simulations, the shipped Little-Go network, one thread);
* ``az_bookkeeping``: the same search with an evaluator that costs nothing
  (zero logits and values): the array tree's own cost per simulation at B = 1;
* ``az_time``: simulations a move that ``az:time=0.2,sims=100000`` (the clock
  stops the search) gets, over the moves of seeded random Little-Go games.

    nice python scripts/compare_search_speed.py --base /tmp/base_search [--rounds 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The import package as Python sees it: these folders are mapped into tictacgo (pyproject's package-dir).
MAPPED = {"envs": "envs", "wrappers": "wrappers", "baselines": "baselines"}


@dataclass
class Args:
    base: str
    rounds: int = 5
    mcts_budget: float = 1.5
    az_budget: float = 6.0
    agent_budget: float = 3.0
    rows: str = ("go5_mcts_empty,go5_mcts_midgame,ttt_mcts,go5_alphazero_selfplay,go5_alphazero_tiny,"
                 "az_agent,az_bookkeeping")
    json: str | None = None
    worker: bool = False


ROWS = {
    "go5_mcts_empty": ({"case": "go5_mcts", "impl": "tictacgo_mcts", "batch": 1, "position": "empty",
                        "sims": 400}, "sims/s", "mcts_budget"),
    "go5_mcts_midgame": ({"case": "go5_mcts", "impl": "tictacgo_mcts", "batch": 1, "position": "midgame",
                          "sims": 400}, "sims/s", "mcts_budget"),
    "ttt_mcts": ({"case": "ttt_mcts", "impl": "tictacgo_mcts", "batch": 1, "sims": 400}, "sims/s",
                 "mcts_budget"),
    "go5_alphazero_selfplay": ({"case": "go5_alphazero_selfplay", "impl": "tictacgo_az", "batch": 256,
                                "az": {"games": 256, "sims": 32, "channels": 32, "blocks": 4, "threads": 1,
                                       "precision": "float32"}}, "positions/s", "az_budget"),
    "go5_alphazero_tiny": ({"case": "go5_alphazero_selfplay", "impl": "tictacgo_az", "batch": 4,
                            "az": {"games": 4, "sims": 4, "channels": 8, "blocks": 1, "threads": 1,
                                   "precision": "float32"}}, "positions/s", "agent_budget"),
    "ttt_aec": ({"case": "ttt_random_play", "impl": "tictacgo_aec", "batch": 1}, "steps/s", "mcts_budget"),
    "go5_aec": ({"case": "go5_random_play", "impl": "tictacgo_aec", "batch": 1}, "steps/s", "mcts_budget"),
    "ttt_vector_1024": ({"case": "ttt_random_play", "impl": "tictacgo_vector", "batch": 1024}, "steps/s",
                        "mcts_budget"),
    "go5_vector_1024": ({"case": "go5_random_play", "impl": "tictacgo_vector", "batch": 1024}, "steps/s",
                        "mcts_budget"),
    "go5_batched_1024": ({"case": "go5_random_play", "impl": "tictacgo_core", "batch": 1024}, "steps/s",
                         "mcts_budget"),
    "az_agent": ({"case": "az_agent", "sims": 256}, "sims/s", "agent_budget"),
    "az_bookkeeping": ({"case": "az_bookkeeping", "sims": 256}, "sims/s", "agent_budget"),
    "az_time": ({"case": "az_time", "time": 0.2}, "sims/move", "agent_budget"),
}


def parse_args(argv=None) -> Args:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="/tmp/base_search", help="the other checkout (its repository root)")
    ap.add_argument("--rounds", type=int, default=Args.rounds, help="interleaved runs per row (median)")
    ap.add_argument("--mcts-budget", type=float, default=Args.mcts_budget, help="seconds per MCTS run")
    ap.add_argument("--az-budget", type=float, default=Args.az_budget, help="seconds per self-play run")
    ap.add_argument("--agent-budget", type=float, default=Args.agent_budget, help="seconds per az agent run")
    ap.add_argument("--rows", default=Args.rows, help=f"comma-separated, of {', '.join(ROWS)}")
    ap.add_argument("--json", default=None, help="write the runs and the medians to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    for row in ns.rows.split(","):
        if row not in ROWS:
            ap.error(f"--rows: {row!r} is not one of {', '.join(ROWS)}")
    if ns.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {ns.rounds}")
    return Args(**vars(ns))


# -- inside a worker ------------------------------------------------------------------------------

def az_agent_runner(sims: int):
    """The ``az`` agent searching a Little-Go position again and again: (simulations, 0) per search."""
    import numpy as np
    import torch

    from tictacgo.baselines import make_agent
    from tictacgo.games import make_game

    torch.set_num_threads(1)
    game = make_game("littlego")
    agent = make_agent(f"az:sims={sims}", game, rng=np.random.default_rng(0))
    state = game.play(game.play(game.initial_state(), 12), 7)

    def search():
        return int(agent.search(state).visits.sum()), 0

    return search


def az_time_runner(seconds: float):
    """The ``az`` agent with a clock (``time=seconds``) choosing a move in seeded random games:
    (simulations, 1) per move: the row divides the simulations by the moves."""
    import numpy as np

    from tictacgo.baselines import make_agent
    from tictacgo.games import make_game

    game = make_game("littlego")
    agent = make_agent(f"az:time={seconds},sims=100000", game, rng=np.random.default_rng(0))
    rng = np.random.default_rng(3)
    state = [game.initial_state()]

    def move():
        if game.is_terminal(state[0]):
            state[0] = game.initial_state()
        sims = agent.search(state[0]).simulations
        state[0] = game.play(state[0], int(rng.choice(game.legal_actions(state[0]))))
        return sims, 1

    return move


def import_from_pythonpath() -> None:
    """Let ``PYTHONPATH`` decide which checkout ``tictacgo`` comes from: an editable install's finder
    would answer first with its own."""
    sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, "__name__", "") != "_EditableFinder"]
    for name in [m for m in sys.modules if m == "tictacgo" or m.startswith("tictacgo.")]:
        del sys.modules[name]


def bookkeeping_runner(sims: int):
    """Gumbel search of one Little-Go game over a free evaluator: (simulations, 0) per search."""
    import numpy as np

    from tictacgo.baselines.learning.alphazero.search import gumbel_search
    from tictacgo.games import make_game
    from tictacgo.games.batched_engines import make_batched_engine

    game = make_game("littlego")
    engine = make_batched_engine(game, 1)
    engine.set_state(0, game.play(game.play(game.initial_state(), 12), 7))

    def free(engine, rows, legal):
        return np.zeros((len(rows), engine.num_actions)), np.zeros(len(rows))

    def search():
        out = gumbel_search(engine, free, sims, np.random.default_rng(0), gumbel_scale=0.0)
        return int(out.visits.sum()), 0

    return search


def bench_of(checkout: Path):
    """The bench cases of ``checkout`` (``build(spec)`` and ``timed(chunk, budget)``): its
    ``benchmarks.peers`` package, or, in checkouts older than that package, its ``scripts/bench.py``."""
    import types

    if (checkout / "benchmarks" / "peers" / "worker.py").is_file():
        # appended, after PYTHONPATH's staged tictacgo: the checkout's bare folder lacks the mapped parts
        sys.path.append(str(checkout))
        from benchmarks.peers.cases import timed
        from benchmarks.peers.worker import build

        return types.SimpleNamespace(build=build, timed=timed)
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench", checkout / "scripts" / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = bench  # dataclasses look their module up while it runs
    spec.loader.exec_module(bench)
    return bench


def worker_main() -> None:
    """Serve JSON requests on stdin (``setup`` a row, ``measure`` it), one reply a line."""
    import_from_pythonpath()
    bench = bench_of(Path(os.environ["COMPARE_CHECKOUT"]))

    reply = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    runners = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "setup":
                spec = req["spec"]
                if spec["case"] in ("az_agent", "az_bookkeeping", "az_time"):
                    make = {"az_agent": az_agent_runner, "az_bookkeeping": bookkeeping_runner,
                            "az_time": az_time_runner}[spec["case"]]
                    chunk = make(spec.get("sims", spec.get("time")))
                    runners[req["key"]] = lambda budget, chunk=chunk: bench.timed(chunk, budget)
                else:
                    runners[req["key"]] = bench.build(spec)
                runners[req["key"]](0.2)  # warm-up: compiled kernels, first allocations
                import tictacgo.baselines

                out = {"ok": True, "from": str(Path(tictacgo.baselines.__file__).resolve().parent)}
            else:
                out = {"ok": True, **runners[req["key"]](req["budget"])}
        except Exception as e:  # reported to the driver
            out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        reply.write(json.dumps(out) + "\n")


# -- the driver -----------------------------------------------------------------------------------

def stage(checkout: Path, dest: Path) -> Path:
    """``dest`` holding ``tictacgo/`` as Python sees it in ``checkout`` (links), for ``PYTHONPATH``."""
    pkg = dest / "tictacgo"
    pkg.mkdir(parents=True)
    for entry in (checkout / "tictacgo").iterdir():
        (pkg / entry.name).symlink_to(entry)
    for name, folder in MAPPED.items():
        (pkg / name).symlink_to(checkout / folder)
    return dest


class Worker:
    def __init__(self, name: str, path: Path, checkout: Path):
        self.name = name
        self.log = tempfile.TemporaryFile(mode="w+")
        env = dict(os.environ, PYTHONPATH=str(path), COMPARE_CHECKOUT=str(checkout))
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, env=env)

    def ask(self, req: dict) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.log.seek(0)
            raise RuntimeError(f"worker {self.name} died: {self.log.read()[-2000:]}")
        out = json.loads(line)
        if not out["ok"]:
            raise RuntimeError(f"worker {self.name}: {out['error']}")
        return out

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    rows = args.rows.split(",")
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        checkouts = {"base": Path(args.base).resolve(), "this": ROOT}
        workers = {name: Worker(name, stage(path, Path(tmp) / name), path)
                   for name, path in checkouts.items()}
        runs = {row: {name: [] for name in workers} for row in rows}
        try:
            for row in rows:
                for name, w in workers.items():
                    where = w.ask({"op": "setup", "key": row, "spec": ROWS[row][0]})["from"]
                    if Path(where) != checkouts[name] / "baselines":
                        raise RuntimeError(f"the {name} worker imported {where}, not {checkouts[name]}")
            for r in range(args.rounds):
                order = list(workers.values()) if r % 2 == 0 else list(workers.values())[::-1]
                for row in rows:
                    budget = getattr(args, ROWS[row][2])
                    for w in order:
                        out = w.ask({"op": "measure", "key": row, "budget": budget})
                        per = out["games"] if ROWS[row][1] == "sims/move" else out["seconds"]
                        runs[row][w.name].append(out["count"] / per)
        finally:
            for w in workers.values():
                w.close()
    load_after = os.getloadavg()
    wall = time.perf_counter() - t0
    print(f"base: {checkouts['base']}  this: {checkouts['this']}  rounds: {args.rounds}  "
          f"load before {load_before[0]:.2f}, after {load_after[0]:.2f}  wall {wall:.0f} s")
    print("| row | unit | base (median) | this (median) | this / base | runs (base; this) |")
    print("|---|---|---:|---:|---:|---|")
    medians = {}
    for row in rows:
        b, t = (statistics.median(runs[row][n]) for n in ("base", "this"))
        medians[row] = {"base": b, "this": t, "ratio": t / b}
        runs_text = (", ".join(f"{x:,.0f}" for x in runs[row]["base"]) + "; "
                     + ", ".join(f"{x:,.0f}" for x in runs[row]["this"]))
        print(f"| {row} | {ROWS[row][1]} | {b:,.0f} | {t:,.0f} | {t / b:.3f} | {runs_text} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "load_before": load_before,
                                               "load_after": load_after, "runs": runs, "medians": medians},
                                              indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
