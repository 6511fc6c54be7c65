"""Solve a Little-Go position as one job for each class of its moves, on both cores or on Ray, for days.

The root is the position after ``--opening`` (moves from the empty board).
Its legal moves, PASS included, are grouped into classes of moves whose
positions are images of each other under the board's 8 symmetries; each
class is a job that proves one of its moves' value the way
``scripts/solve_frontier.py`` does (the opening, the move and the ``--line``
agent's play to the end, solved backward from ``--start-left`` actions to go
up to the move's position). ``--workers`` jobs run at once, in processes
here or, with ``--ray``, as Ray actors (a Ray started for the run, or the
cluster at ``RAY_ADDRESS``). The root's mover wins as soon as one job proves
a win for it; then the other jobs are stopped.

Everything is kept in ``--dir``: ``run.json`` (the settings), ``status.json``
(every job's state and value, the root's value) and each job's checkpoint and
results in ``jobs/``, in solve_frontier's formats. The same command again, or
``--resume --dir DIR``, goes on: proved jobs are not searched again, the
others go on from their checkpoints. Ctrl-C or SIGTERM: every job
checkpoints, and the command exits with status 130. The work is
``tictacgo.evaluation.subtree_jobs``; this script is its command line.

    python scripts/solve_subtrees.py --dir runs/after_2-2 --opening "2,2" --workers 2
    python scripts/solve_subtrees.py --dir runs/after_2-2 --resume
    python scripts/solve_subtrees.py --dir runs/3x3 --size 3 --line random --start-left 8
"""

from __future__ import annotations

import dataclasses
import signal
import sys
from dataclasses import dataclass

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.subtree_jobs import Settings, SubtreeRun, make_settings, normal_moves, open_folder

SETTINGS = [f.name for f in dataclasses.fields(Settings)]  # the fields kept in run.json


@dataclass
class Args:
    dir: str | None = setting(None, "The run's folder: run.json, status.json and jobs/.",
                              default_text="none: required")
    opening: str = setting("", "The root: its moves from the empty board ('row,col' or PASS, "
                           "space-separated; '': the empty board).", default_text="the empty board")
    size: int = setting(5, "Board size (the course's game at that size).")
    seed: int = setting(0, "Seeds the line agent.")
    line: str = setting("az", "The agent that plays each job's line on after its move (a registry spec).")
    start_left: int = setting(12, "Actions to go at the first position of each job's line solved.")
    hint_depth: int = setting(0, "Try the shipped AlphaZero network's move first within this many actions "
                              "of each position solved (0: no hints).")
    table_bits: int = setting(24, "Log2 of each job's table entries (13 bytes each, a table a worker).")
    workers: int | None = setting(None, "Jobs at once.", default_text="the CPU count; with --ray, the "
                                  "cluster's CPUs")
    ray: bool = setting(False, "Run the jobs as Ray actors (the ray extra): a Ray started for the run, or "
                        "the cluster at RAY_ADDRESS.")
    share_tables: bool = setting(True, "Start each new job's table as the latest proved job's (read from its "
                                 "checkpoint): what that job proved is then found, not searched again.")
    every: float = setting(600.0, "Seconds between two checkpoints of a job.")
    progress: float = setting(60.0, "Seconds between two progress lines.")
    resume: bool = setting(False, "Go on with the run in --dir, with its settings (run.json).")


def main(argv: list[str] | None = None) -> int:
    description = __doc__.split("\n\n")[0]
    args = parse_options(Args(), argv, description=description)

    def refuse(message: str) -> int:
        print(f"solve_subtrees.py: error: {message}", file=sys.stderr)
        return 2

    if not args.dir:
        return refuse("--dir DIR is required (the run's folder)")
    if args.workers is not None and args.workers < 1:
        return refuse(f"--workers must be at least 1, got {args.workers}")
    if args.every <= 0 or args.progress < 0:
        return refuse(f"--every must be positive and --progress 0 or more, got {args.every} and "
                      f"{args.progress}")
    try:
        if args.resume:
            settings = open_folder(args.dir, None)
            default = Args()
            given = {k: getattr(args, k) for k in SETTINGS if getattr(args, k) != getattr(default, k)}
            if "opening" in given:
                given["opening"] = normal_moves(given["opening"], settings.size)
            other = {k: v for k, v in given.items() if v != getattr(settings, k)}
            if other:
                return refuse(f"--resume goes on with the settings of {args.dir}/run.json; "
                              + "; ".join(f"{k} is {getattr(settings, k)!r} there, {v!r} here"
                                          for k, v in other.items()))
            run = SubtreeRun(args.dir, settings, args.workers, args.ray, args.every, args.progress,
                             args.share_tables)
        else:
            settings = make_settings(**{k: getattr(args, k) for k in SETTINGS})
            # Built first, so that a bad line agent is refused before the folder keeps the settings.
            run = SubtreeRun(args.dir, settings, args.workers, args.ray, args.every, args.progress,
                             args.share_tables)
            open_folder(args.dir, settings)
    except ValueError as e:
        return refuse(str(e))

    stopping: list[int] = []
    old = {s: signal.signal(s, lambda signum, frame: stopping.append(signum))
           for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        how = run.run(stop=lambda: bool(stopping))
    except ValueError as e:  # a job's files of another line, or another master on the folder
        return refuse(str(e))
    except RuntimeError as e:
        print(f"solve_subtrees.py: {e}; everything proved is kept in {args.dir}: go on with --resume",
              file=sys.stderr)
        return 1
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    print(run.summary(), flush=True)
    if how == "stopped":
        print(f"stopped; every job is kept in {args.dir}: go on with --dir {args.dir} --resume",
              file=sys.stderr, flush=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
