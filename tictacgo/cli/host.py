"""``tictacgo host BLACK_CMD WHITE_CMD``: two player programs through the course file protocol.

The games are played by ``tictacgo.protocol.host``; this prints each game's
result and the tally. Exit status 0 when the games were played (whoever
won), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys

from tictacgo.games import littlego
from tictacgo.protocol.host import play_programs
from tictacgo.protocol.player import SEED_ENV


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("black_cmd", metavar="BLACK_CMD",
                        help="shell command of the first player (Black in game 1)")
    parser.add_argument("white_cmd", metavar="WHITE_CMD",
                        help="shell command of the second player (White in game 1)")
    parser.add_argument("--games", type=int, default=1,
                        help="games to play; colours swap every game (default 1)")
    parser.add_argument("--board-size", type=int, default=5, metavar="N",
                        help="play on an N x N board (2..19; default 5, the course's)")
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="wall-clock seconds per move; running past it loses (default 10)")
    parser.add_argument("--seed", type=int, default=None,
                        help=f"derive a seed per player run, passed in ${SEED_ENV}")
    parser.add_argument("--verbose", action="store_true", help="print every move and board")


def _short(command: str, limit: int = 60) -> str:
    return command if len(command) <= limit else command[: limit - 3] + "..."


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        print(f"host: error: --games must be at least 1, got {args.games}", file=sys.stderr)
        return 2
    if args.seed is not None and args.seed < 0:
        print(f"host: error: --seed must be a non-negative int, got {args.seed}", file=sys.stderr)
        return 2
    if not (math.isfinite(args.time_limit) and args.time_limit > 0):
        print(f"host: error: --time-limit must be a finite positive number of seconds, got {args.time_limit}",
              file=sys.stderr)
        return 2
    try:
        game = littlego.LittleGo(args.board_size)  # built once, for every game
    except (TypeError, ValueError) as e:
        print(f"host: error: --board-size: {e}", file=sys.stderr)
        return 2
    for cmd in (args.black_cmd, args.white_cmd):
        try:
            if not shlex.split(cmd):
                raise ValueError("empty command")
        except ValueError as e:
            print(f"host: error: bad player command {cmd!r}: {e}", file=sys.stderr)
            return 2

    labels = {"A": args.black_cmd, "B": args.white_cmd}
    wins = {key: {littlego.BLACK: 0, littlego.WHITE: 0} for key in labels}
    draws = 0
    log = print if args.verbose else None
    print(f"A = {labels['A']}\nB = {labels['B']}")
    for g in range(args.games):
        black_key, white_key = ("A", "B") if g % 2 == 0 else ("B", "A")
        print(f"game {g + 1}/{args.games}: Black = {black_key}, White = {white_key}", flush=True)
        result = play_programs(labels[black_key], labels[white_key], size=args.board_size,
                           time_limit=args.time_limit, seed=args.seed, game_index=g, log=log, game=game)
        if result.winner == 0:
            draws += 1
        else:
            wins[black_key if result.winner == littlego.BLACK else white_key][result.winner] += 1
        print(f"  {result.detail}", flush=True)
    print(f"\nresult after {args.games} game(s):")
    as_black = {"A": (args.games + 1) // 2, "B": args.games // 2}
    for key, cmd in labels.items():
        w = wins[key]
        print(f"  {key} ({_short(cmd)}): {w[1] + w[2]}/{args.games} won "
              f"(as Black {w[1]}/{as_black[key]}, as White {w[2]}/{args.games - as_black[key]})")
    if draws:
        print(f"  draws: {draws}")
    return 0
