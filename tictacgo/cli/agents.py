"""``tictacgo agents [GAME]``: the registered agents for a game, with their parameters."""

from __future__ import annotations

import argparse
import sys

from tictacgo.baselines.registry import describe_agents


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", default=None,
                        help="the game: tictactoe, littlego, or another registered game (default: all)")


def run(args: argparse.Namespace) -> int:
    try:
        text = describe_agents(args.game)
    except ValueError as e:  # an unknown game: the registry's message, no traceback
        print(f"tictacgo agents: error: {e}", file=sys.stderr)
        return 2
    print(text)
    return 0
