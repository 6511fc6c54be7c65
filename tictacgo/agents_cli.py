"""``tictacgo agents GAME``: the registered agents for a game."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", default=None, help="tictactoe or littlego (default: all)")


def run(args: argparse.Namespace) -> int:
    from tictacgo.baselines.registry import describe_agents

    print(describe_agents(args.game))
    return 0
