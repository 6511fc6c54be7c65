"""The peer benchmark's driver: it plans the rows, starts one worker process per family of libraries,
sets every row up once, then measures the rows round-robin (``--repeats`` rounds after a warm-up) so
the machine's noise falls on all of them alike, and prints the table and writes the JSON."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .args import parse_args
from .cases import AZ_CASES, RANDOM_PLAY_CASES, WORKER_OF
from .report import alphazero_notes, az_settings, machine_info, markdown, ppo_settings, unit

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Row:
    case: str
    impl: str
    batch: int
    position: str | None = None
    runs: list = field(default_factory=list)
    eval_runs: list = field(default_factory=list)
    games: int = 0
    count: int = 0
    evals: int = 0
    setup_s: float = 0.0
    compile_s: float | None = None

    @property
    def key(self) -> str:
        return f"{self.case}/{self.impl}/{self.batch}/{self.position}"


# XLA's CPU flags for one thread, as torch's set_num_threads(1) (the AlphaZero rows' --az-threads 1).
XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def worker_env(name: str, az_threads: int) -> dict:
    """The environment of a worker: jax's on the CPU (and, for pgx_mctx, on one thread when asked)."""
    env = dict(os.environ)
    # the benchmarks package sits at the repository's root, which the worker finds first on its path
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    if name in ("pgx", "pgx_mctx"):
        env["JAX_PLATFORMS"] = "cpu"
    if name == "pgx_mctx" and az_threads == 1:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + XLA_ONE_THREAD).strip()
    return env


class Worker:
    def __init__(self, name: str, env: dict):
        self.log = tempfile.TemporaryFile(mode="w+")
        self.name = name
        self.proc = subprocess.Popen([sys.executable, "-m", "benchmarks.peers.worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, env=env)

    def ask(self, req: dict) -> dict:
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self.log.seek(0)
            return {"ok": False, "error": f"worker {self.name} died: {self.log.read()[-1500:]}"}
        return json.loads(line)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def plan(cases: list[str], impls: list[str], batches: list[int], ppo_envs: int,
         az_games: int = 256) -> list[Row]:
    """The rows to measure; a MaskablePPO row's batch is its n_envs, an AlphaZero row's its games."""
    rows = []
    for case in cases:
        if case in RANDOM_PLAY_CASES:
            for impl, bs in (("tictacgo_core", batches), ("tictacgo_aec", [1]), ("tictacgo_gym", [1]),
                             ("tictacgo_vector", batches), ("pettingzoo", [1]), ("openspiel", [1]),
                             ("pgx", batches), ("envpool", batches)):
                rows += [Row(case, impl, b) for b in bs if b in batches and impl in impls]
        elif case == "go5_mcts":
            rows += [Row(case, impl, 1, pos) for pos in ("empty", "midgame")
                     for impl in ("tictacgo_mcts", "openspiel_mctsbot") if impl in impls]
        elif case == "ttt_mcts":
            rows += [Row(case, impl, 1) for impl in ("tictacgo_mcts", "openspiel_mctsbot") if impl in impls]
        elif case in AZ_CASES:
            rows += [Row(case, impl, az_games) for impl in ("tictacgo_az", "pgx_mctx") if impl in impls]
        else:
            rows += [Row(case, impl, ppo_envs) for impl in ("dummy_vec_env", "tictacgo_vecenv")
                     if impl in impls]
    return rows


def set_up(rows: list[Row], args, ppo: dict, az: dict, workers: dict[str, Worker],
           skipped: list[dict]) -> list[Row]:
    """Set every row up once in its family's worker (imports, jit compiles); the rows that can run.

    A row whose library is missing or whose set-up fails goes to ``skipped`` with the reason.
    """
    live = []
    for row in rows:
        name = WORKER_OF[row.impl]
        if name not in workers:
            workers[name] = Worker(name, worker_env(name, az["threads"]))
        spec = {"case": row.case, "impl": row.impl, "batch": row.batch, "position": row.position,
                "sims": args.sims, "ppo": ppo, "az": az}
        out = workers[name].ask({"op": "setup", "key": row.key, "spec": spec})
        if not out["ok"]:
            reason = out.get("unavailable") or out.get("error")
            skipped.append({"case": row.case, "impl": row.impl, "batch": row.batch,
                            **({"position": row.position} if row.position else {}), "reason": reason})
            print(f"skipped {row.key}: {reason}", file=sys.stderr, flush=True)
            continue
        row.setup_s = out["setup_s"]
        row.compile_s = out.get("compile_s")
        live.append(row)
    return live


def measure(live: list[Row], args, workers: dict[str, Worker], skipped: list[dict], t_start: float) -> None:
    """A warm-up round, then ``args.repeats`` rounds, each measuring every live row once in turn."""
    for rep in range(-1, args.repeats):   # -1: the warm-up round, not recorded
        for row in list(live):
            budget = min(0.3, args.budget) if rep < 0 else args.budget
            out = workers[WORKER_OF[row.impl]].ask({"op": "measure", "key": row.key, "budget": budget})
            if not out["ok"]:
                skipped.append({"case": row.case, "impl": row.impl, "batch": row.batch,
                                "reason": out.get("unavailable") or out.get("error")})
                live.remove(row)
                continue
            if rep >= 0:
                row.runs.append(out["count"] / out["seconds"])
                if "evals" in out:
                    row.eval_runs.append(out["evals"] / out["seconds"])
                    row.evals += out["evals"]
                row.games += out["games"]
                row.count += out["count"]
        print(f"round {rep + 1}/{args.repeats} done at {time.perf_counter() - t_start:.0f}s",
              file=sys.stderr, flush=True)


def result(row: Row) -> dict:
    """A measured row as the JSON has it: the median rate, the runs and what else the row counted."""
    r = {"case": row.case, "impl": row.impl, "batch": row.batch}
    if row.position:
        r["position"] = row.position
    r.update(per_s=statistics.median(row.runs), runs=row.runs, unit=unit(row.case),
             setup_s=round(row.setup_s, 3))
    if row.case in RANDOM_PLAY_CASES and row.batch == 1 and row.games:
        # whole games only: a batch's games start together, so a short window of a large batch
        # sees too few of them end for a fair mean length
        r["plies_per_game"] = round(row.count / row.games, 2)
    if row.eval_runs:
        r["evals_per_s"] = statistics.median(row.eval_runs)
        r["eval_runs"] = row.eval_runs
        r["evals_per_position"] = round(row.evals / row.count, 2)
    if row.compile_s is not None:
        r["compile_s"] = row.compile_s
    return r


def close_workers(workers: dict[str, Worker]) -> dict:
    """Ask every worker for its libraries' versions, then stop it; the versions."""
    versions: dict = {}
    for w in workers.values():
        versions.update(w.ask({"op": "versions"}).get("versions", {}))
        w.close()
    return versions


def print_report(args, results: list[dict], skipped: list[dict], machine: dict) -> None:
    """The table, the AlphaZero notes, the rows left out and the machine's line."""
    print(markdown(results) + "\n")
    if any(r["case"] in AZ_CASES for r in results):
        print(alphazero_notes(results) + "\n")
    for s in skipped:
        pos = f" ({s['position']})" if s.get("position") else ""
        print(f"left out: {s['case']}{pos} {s['impl']} B={s['batch']}: {s['reason']}")
    print(f"medians of {args.repeats} interleaved runs of {args.budget}s each; python {machine['python']}, "
          f"{machine['cpu_count']} CPUs ({machine['cpu']}), load {machine['loadavg_before'][0]:.2f} before, "
          f"{machine['loadavg_after'][0]:.2f} after, {machine['wall_s']}s in all")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark with the command line ``argv``; print the table, write the JSON if asked."""
    args = parse_args(argv)
    ppo, az = ppo_settings(args), az_settings(args)
    rows = plan(args.cases, args.impls, args.batches, ppo["n_envs"], az["games"])
    workers: dict[str, Worker] = {}
    skipped: list[dict] = []
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    live = set_up(rows, args, ppo, az, workers, skipped)
    measure(live, args, workers, skipped, t_start)
    versions = close_workers(workers)
    results = [result(row) for row in live]
    machine = machine_info(args, versions, load_before, os.getloadavg())
    machine["wall_s"] = round(time.perf_counter() - t_start, 1)
    print_report(args, results, skipped, machine)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": results, "skipped": skipped, "machine": machine}, f, indent=1)
    return 0
