"""Train an AlphaZero network for Tic-Tac-Toe or Little-Go by batched self-play.

Every option is a field of ``AlphaZeroConfig``
(``tictacgo.baselines.learning.alphazero.train``), with its documentation as
the help text. The run writes into ``--out``: model.pt + model.json (the
latest network; play it with ``az:path=OUT``), checkpoints/, resume/ (for
``--resume``), config.json and tb/ (TensorBoard). Interrupt it with Ctrl-C:
the last checkpoint stays, and ``--resume`` continues from it.

The shipped Tic-Tac-Toe model:

    python scripts/train_alphazero.py --game tictactoe --seed 0 --max-seconds 240 --out runs/ttt_az \\
        --channels 32 --blocks 2 --num-games 128 --simulations 16 --random-opening 6 \\
        --checkpoint-every 30 --min-buffer 500

Little-Go (continue a run with --resume and a larger --max-seconds):

    python scripts/train_alphazero.py --game littlego --seed 0 --max-seconds 7200 --out runs/go_az \\
        --channels 32 --blocks 4 --num-games 256 --simulations 32 --random-opening 4 \\
        --buffer-size 200000 --checkpoint-every 600 --min-buffer 5000
"""

from __future__ import annotations

import argparse
import sys

from tictacgo.cli.train_alphazero import add_arguments, config_from_args, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        config_from_args(args)
    except ValueError as e:
        parser.error(str(e))
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
