"""``tictacgo play GAME --agent SPEC``: play an agent yourself (``tictacgo.play`` holds the session).

Exit status: 0 for a finished game or ``quit``, 1 when the input ends before
the game does, 2 for bad arguments (unknown game, board size or agent), 130
on Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from tictacgo.baselines.registry import make_agent, parse_agent_spec
from tictacgo.cli.games import add_board_size, game_from_options
from tictacgo.play import play_session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="the game: tictactoe, littlego, or another registered game")
    parser.add_argument("--agent", default="random",
                        help="the agent to play (default: random), e.g. minimax, mcts:sims=2000 "
                             "(see `tictacgo agents GAME`)")
    parser.add_argument("--as", dest="side", choices=("first", "second"), default="first",
                        help="move first (Black / X, the default) or second")
    add_board_size(parser)
    parser.add_argument("--seed", type=int, default=None, help="seed for the agent (default: fresh entropy)")


def run(args: argparse.Namespace) -> int:
    if args.seed is not None and args.seed < 0:
        print(f"tictacgo play: error: --seed must be a non-negative int, got {args.seed}", file=sys.stderr)
        return 2
    try:
        game = game_from_options(args.game, args.board_size)  # built once, for the session
        agent = make_agent(parse_agent_spec(args.agent), game, rng=np.random.default_rng(args.seed))
    except (TypeError, ValueError) as e:
        print(f"tictacgo play: error: {e}", file=sys.stderr)
        return 2
    human = 1 if args.side == "first" else 2
    interactive = sys.stdin.isatty()

    def read_line(prompt: str) -> str:
        if interactive:
            return input(prompt)
        sys.stdout.write(prompt)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    try:
        return play_session(game, agent, args.agent, human, read_line, sys.stdout, echo=not interactive)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
