"""Where a MaskablePPO training step's time goes, and which setting steps fastest on this machine.

Each configuration is sb3-contrib's ``MaskablePPO`` (``MlpPolicy`` 64x64,
gamma 0.95, entropy 0.01: ``scripts/bench.py``'s MaskablePPO rows) learning
against the ``random`` opponent, learner colours alternating, torch on one
thread, on one of two VecEnvs:

* ``dummy_vec_env``: SB3's ``DummyVecEnv`` of ``n_envs`` single Gymnasium envs
  (what ``tictacgo train`` uses);
* ``tictacgo_vecenv``: ``tictacgo.baselines.learning.batched_vec_env.BatchedVecEnv``,
  the ``n_envs`` games as rows of one batched engine.

A measurement is ``learn()`` over whole iterations (one rollout of
``n_envs * n_steps`` env steps, then ``n_epochs`` passes of minibatches of
``batch_size``), at least ``--min-steps`` env steps, after a warm-up
iteration. Its wall time is split into

* ``rollout``: ``collect_rollouts`` (the policy's forward pass per step, the
  rollout buffer, SB3's callbacks), and within it ``env``: the VecEnv's own
  calls (``step_async``/``step_wait``, ``reset``, ``env_method``: the action masks);
* ``update``: ``train()`` (the gradient steps).

Rates are medians of ``--repeats`` measurements taken round-robin over all
the configurations, so the machine's noise falls on all of them alike. The
rate is env steps per wall second, which is not learning per second: a
larger ``batch_size`` or more envs make fewer gradient steps per sample
(``grad_steps_per_1k_samples`` in the JSON).

    python scripts/bench_ppo_split.py                     # the split: both VecEnvs, both games
    python scripts/bench_ppo_split.py --sweep --games go5 --envs tictacgo_vecenv \\
        --n-envs 16,64,256 --n-steps 32,128 --batch-sizes 64,256,1024 --json sweep.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

import tictacgo  # noqa: F401  (registers the env ids)
from tictacgo.baselines.learning.batched_vec_env import BatchedVecEnv
from tictacgo.baselines.learning.training import quiet_logger
from tictacgo.envs.game_envs import env_id

SEED = 0
GAMES = {"ttt": "tictactoe", "go5": "littlego"}
ENVS = ("dummy_vec_env", "tictacgo_vecenv")
ENV_CALLS = ("step_async", "step_wait", "reset", "env_method")


@dataclass
class Setting:
    game: str
    env: str
    n_envs: int
    n_steps: int
    batch_size: int
    n_epochs: int

    @property
    def samples(self) -> int:
        return self.n_envs * self.n_steps

    def grad_steps_per_iteration(self) -> int:
        return self.n_epochs * math.ceil(self.samples / self.batch_size)


@dataclass
class Timings:
    rollout: float = 0.0
    env: float = 0.0
    update: float = 0.0


@dataclass
class Row:
    setting: Setting
    model: MaskablePPO
    timings: Timings
    iterations: int
    runs: list = field(default_factory=list)
    splits: list = field(default_factory=list)


def make_env(s: Setting):
    if s.env == "dummy_vec_env":
        gym_id = env_id(GAMES[s.game])
        env = DummyVecEnv([lambda: gymnasium.make(gym_id, opponent="random", learner="alternate")] * s.n_envs)
    else:
        env = BatchedVecEnv(GAMES[s.game], num_envs=s.n_envs, opponent="random", learner="alternate")
    env.seed(SEED)
    return env


def add_timer(obj, name: str, timings: Timings, part: str) -> None:
    """Make ``obj.name`` add its wall time to ``timings.part`` (an instance attribute over the method)."""
    fn = getattr(obj, name)

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            setattr(timings, part, getattr(timings, part) + time.perf_counter() - t)

    setattr(obj, name, timed)


def build(s: Setting, min_steps: int) -> Row:
    model = MaskablePPO("MlpPolicy", make_env(s), n_steps=s.n_steps, batch_size=s.batch_size,
                        n_epochs=s.n_epochs, gamma=0.95, ent_coef=0.01, seed=SEED, device="cpu",
                        policy_kwargs={"net_arch": [64, 64]}, verbose=0)
    model.set_logger(quiet_logger())  # no empty SB3-<date> folder left in the temporary folder
    timings = Timings()
    add_timer(model, "collect_rollouts", timings, "rollout")
    add_timer(model, "train", timings, "update")
    for call in ENV_CALLS:
        add_timer(model.env, call, timings, "env")
    model.learn(s.samples)  # warm-up iteration
    return Row(s, model, timings, iterations=max(1, math.ceil(min_steps / s.samples)))


def measure(row: Row) -> None:
    t = row.timings
    t.rollout = t.env = t.update = 0.0
    before = row.model.num_timesteps
    start = time.perf_counter()
    row.model.learn(row.iterations * row.setting.samples, reset_num_timesteps=False)
    wall = time.perf_counter() - start
    row.runs.append((row.model.num_timesteps - before) / wall)
    row.splits.append({"rollout": t.rollout / wall, "env": t.env / wall, "update": t.update / wall})


def result(row: Row) -> dict:
    s = row.setting
    mid = sorted(range(len(row.runs)), key=row.runs.__getitem__)[len(row.runs) // 2]
    split = row.splits[mid]  # the split of the median run
    return {**asdict(s), "env_steps_per_s": statistics.median(row.runs), "runs": row.runs,
            "iterations_per_run": row.iterations,
            "share": {"rollout": split["rollout"], "env_in_rollout": split["env"],
                      "policy_and_buffer_in_rollout": split["rollout"] - split["env"],
                      "update": split["update"], "other": 1 - split["rollout"] - split["update"]},
            "grad_steps_per_1k_samples": 1000 * s.grad_steps_per_iteration() / s.samples}


def markdown(rows: list[dict]) -> str:
    out = ["| game | VecEnv | n_envs | n_steps | batch | env steps/s (median) | rollout | env (in rollout) | "
           "update | grad steps / 1k samples |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        sh = r["share"]
        out.append(f"| {r['game']} | {r['env']} | {r['n_envs']} | {r['n_steps']} | {r['batch_size']} | "
                   f"{r['env_steps_per_s']:,.0f} | {sh['rollout']:.0%} | {sh['env_in_rollout']:.0%} | "
                   f"{sh['update']:.0%} | {r['grad_steps_per_1k_samples']:.0f} |")
    return "\n".join(out)


def int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected a comma list of positive integers, got {text!r}")
    return values


def choice_list(allowed):
    def parse(text: str) -> list[str]:
        values = [x.strip() for x in text.split(",") if x.strip()]
        if not values or set(values) - set(allowed):
            raise argparse.ArgumentTypeError(f"expected a comma list of {', '.join(allowed)}; got {text!r}")
        return values
    return parse


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_alphazero.py", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=choice_list(tuple(GAMES)), default=list(GAMES))
    ap.add_argument("--envs", type=choice_list(ENVS), default=list(ENVS))
    ap.add_argument("--n-envs", type=int_list, default=[64])
    ap.add_argument("--n-steps", type=int_list, default=[64])
    ap.add_argument("--batch-sizes", type=int_list, default=[256])
    ap.add_argument("--n-epochs", type=int, default=10)
    ap.add_argument("--sweep", action="store_true",
                    help="every combination of --n-envs, --n-steps and --batch-sizes (default: the first "
                         "of each)")
    ap.add_argument("--min-steps", type=int, default=4096, help="env steps a measurement runs at least")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", default=None, help="write the rows and the machine to this file")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    grid = (list(itertools.product(args.n_envs, args.n_steps, args.batch_sizes)) if args.sweep
            else [(args.n_envs[0], args.n_steps[0], args.batch_sizes[0])])
    settings = [Setting(g, e, n, k, b, args.n_epochs)
                for g in args.games for e in args.envs for n, k, b in grid]
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    rows = [build(s, args.min_steps) for s in settings]
    for rep in range(args.repeats):
        for row in rows:
            measure(row)
        print(f"round {rep + 1}/{args.repeats} done at {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    results = [result(r) for r in rows]
    print(markdown(results))
    machine = {"loadavg_before": load_before, "loadavg_after": os.getloadavg(), "cpu_count": os.cpu_count(),
               "torch_threads": 1, "repeats": args.repeats, "min_steps": args.min_steps,
               "wall_s": round(time.perf_counter() - t0, 1), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    print(f"medians of {args.repeats} round-robin runs of at least {args.min_steps} env steps; "
          f"load {load_before[0]:.2f} before, {machine['loadavg_after'][0]:.2f} after, "
          f"{machine['wall_s']}s in all")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": results, "machine": machine}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
