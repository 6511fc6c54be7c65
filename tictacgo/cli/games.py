"""The game and variant options shared by the subcommands that play (``--board-size``)."""

from __future__ import annotations

import argparse

from tictacgo.games import make_game


def add_board_size(parser: argparse.ArgumentParser) -> None:
    """Add ``--board-size N`` (Little-Go's board; the game's own when not given)."""
    parser.add_argument("--board-size", type=int, default=None, metavar="N",
                        help="littlego: play on an N x N board (2..19; default 5, the course's)")


def game_from_options(name: str, board_size: int | None):
    """The game ``name`` (and its ``--board-size`` variant, when given).

    Raises:
        ValueError: an unknown game or a size it does not take, the message naming ``--board-size``.
    """
    try:
        return make_game(name, size=board_size)
    except (TypeError, ValueError) as e:
        raise ValueError(str(e) if board_size is None else f"--board-size {board_size}: {e}") from None
