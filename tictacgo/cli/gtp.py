"""``tictacgo gtp --agent SPEC``: a GTP engine for Little-Go on stdin and stdout (``tictacgo.protocol.gtp``).

Exit status 0 after ``quit`` or the end of the input, 1 when stdout is closed
or cannot be written (a full disk), 2 for bad arguments (an unknown agent or
parameter, a negative seed, a board size or komi out of range or one the
agent cannot play), 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from tictacgo.baselines.registry import make_agent, parse_agent_spec
from tictacgo.protocol.gtp import ENGINE_NAME, GtpEngine


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", required=True,
                        help="agent spec for genmove, e.g. mcts:sims=2000 (see `tictacgo agents littlego`)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the agent (default: fresh entropy)")
    parser.add_argument("--board-size", type=int, default=5,
                        help="the board size to start with, 2..19 (default 5; `boardsize` changes it)")
    parser.add_argument("--komi", type=float, default=None,
                        help="the komi to start with (default half the board size; `komi` changes it)")
    parser.add_argument("--name", default=ENGINE_NAME, help=f"what `name` answers (default {ENGINE_NAME})")


def run(args: argparse.Namespace) -> int:
    if args.seed is not None and args.seed < 0:
        print(f"tictacgo gtp: --seed must be a non-negative int, got {args.seed}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    try:
        spec = parse_agent_spec(args.agent)  # read once; an agent per game (size, komi) the GUI sets
        engine = GtpEngine(lambda game: make_agent(spec, game, rng=rng), name=args.name,
                           agent_spec=args.agent, size=args.board_size, komi=args.komi)
    except (TypeError, ValueError) as e:  # a bad spec or variant fails now, building the first agent
        print(f"tictacgo gtp: {e}", file=sys.stderr)
        return 2
    for stream in (sys.stdin, sys.stdout):  # bytes that are not UTF-8 become a syntax error, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    try:
        engine.serve(sys.stdin, sys.stdout)
    except KeyboardInterrupt:
        print("tictacgo gtp: interrupted", file=sys.stderr)
        return 130
    # A closed stdout (BrokenPipeError) or a full disk under it goes to the command line's handler:
    # one line at most, status 1 (docs/errors.md).
    return 0
