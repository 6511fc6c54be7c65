"""``tictacgo my-player --agent SPEC``: the course player (``tictacgo.protocol.player`` answers the move).

Exit status 0 with ``output.txt`` written; 1 (a bad ``input.txt``, an agent
failure) or 2 (bad arguments) with no ``output.txt`` left in ``--dir``.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from tictacgo.protocol.player import SEED_ENV, answer_move, remove_output, warm_up


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", required=True,
                        help="agent spec, e.g. random, greedy, alphabeta:depth=2, mcts:time=5 "
                             "(see `tictacgo agents littlego`)")
    parser.add_argument("--dir", default=".", help="working directory holding input.txt (default: .)")
    parser.add_argument("--time-budget", type=float, default=9.0,
                        help="CPU seconds for the move, loading the agent included (default 9.0, "
                             "which leaves ~1 s of the course's 10 for interpreter start-up)")
    parser.add_argument("--seed", type=int, default=None,
                        help=f"seed for the agent (default: ${SEED_ENV} if set, else random)")
    parser.add_argument("--warm-up", action="store_true",
                        help="build the agent and compile its numba kernels into numba's disk cache, then "
                             "exit (no input.txt read, no output.txt written): run once after installing, so "
                             "the course's first moves load the kernels instead of compiling them")


def on_argument_error(argv: list[str]) -> None:
    """Called by ``tictacgo.cli`` when the arguments do not parse (exit 2).

    Every error leaves no ``output.txt``: a stale one in ``--dir`` (found
    leniently in ``argv``) is removed here too, so the host sees no answer
    rather than the answer to an earlier position.
    """
    lenient = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    lenient.add_argument("--dir", default=".")
    try:
        known, _ = lenient.parse_known_args(argv)
    except (argparse.ArgumentError, SystemExit):
        return
    if os.path.isdir(known.dir):
        remove_output(Path(known.dir) / "output.txt")


def run(args: argparse.Namespace) -> int:
    if args.warm_up:
        return warm_up(args.agent, args.seed)
    return answer_move(args.dir, args.agent, args.time_budget, args.seed, start_cpu=time.process_time())
