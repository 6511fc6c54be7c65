"""``tictacgo train GAME --algo qlearning ...``: train a tabular Q-learning agent (numpy only).

Examples:

    tictacgo train tictactoe --algo qlearning --games 50000 --seed 0 --out runs/ttt_q.json
    tictacgo train littlego --algo qlearning --keys 3 --episodes 100000 --seed 0 \\
        --mix random=1,greedy=1,aggressive=1,self=1 --out runs/littlego_q.npz

Tic-Tac-Toe: self-play; every ``--eval-every`` games the table is checked
against the exact minimax (sampled games, and every line against minimax's
best moves and against any move) and saved; the summary says from which
checkpoint on each check held. Little-Go: a table (``--keys 3``: afterstate
values in lookup tables over the board's windows and lines, the shipped
table's kind; 1 or 2: move patterns and opening boards) trained against a
mix of the course's first-stage opponents and itself, a learning curve every ``--eval-every`` games, saved
at each checkpoint (``--resume`` continues it). Play the result with
``qlearning:path=OUT``. Options marked with one game are ignored for the
other. Exit status 0 when done, 2 for bad arguments, 130 when interrupted
(the table saved so far is kept).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from dataclasses import dataclass

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import add_options

# Per game: where the table goes and the checkpoints' cadence, when not given.
GAME_DEFAULTS = {"tictactoe": {"out": "runs/ttt_q.json", "eval_every": 500, "eval_games": 50},
                 "littlego": {"out": "runs/littlego_q.npz", "eval_every": 5000, "eval_games": 20}}


@dataclass
class QLearningOptions:
    """The options of ``tictacgo train GAME --algo qlearning``."""

    game: str = setting("tictactoe", "The game.", choices=tuple(GAME_DEFAULTS))
    algo: str = setting("qlearning", "The algorithm (maskable-ppo, a2c and alphazero take other options).",
                        choices=("qlearning",))
    out: str | None = setting(None, "Where the table is saved (JSON for Tic-Tac-Toe, npz for Little-Go), at "
                              "every checkpoint.", default_text="runs/ttt_q.json or runs/littlego_q.npz")
    seed: int = setting(0, "Seeds everything, once.")
    eval_every: int | None = setting(None, "Games between checkpoints.",
                                     default_text="500 (Tic-Tac-Toe) or 5000 (Little-Go)")
    eval_games: int | None = setting(None, "Games a side (a colour against each opponent, Little-Go) at a "
                                     "checkpoint.", default_text="50 (Tic-Tac-Toe) or 20 (Little-Go)")
    alpha: float | None = setting(None, "Step size.", default_text="the table's default (Little-Go: 0.3 "
                                  "for afterstate tables, 0.02 for pattern tables)")
    gamma: float | None = setting(None, "Discount.", default_text="the table's default (Little-Go: 1 for "
                                  "afterstate tables, 0.9 for pattern tables)")
    epsilon: float | None = setting(None, "Exploration rate during training.",
                                    default_text="the table's default (Little-Go: 0.05 for afterstate "
                                    "tables, 0.1 for pattern tables)")
    games: int = setting(50_000, "Tic-Tac-Toe: self-play training games.")
    symmetry: bool = setting(True, "Tic-Tac-Toe: key the table by the board under its 8 symmetries "
                             "(--no-symmetry: by the board as it is, for comparison).")
    quiet: bool = setting(False, "Tic-Tac-Toe: print only the summary.")
    episodes: int | None = setting(None, "Little-Go: training games (with --max-seconds: whichever comes "
                                   "first; one of the two is needed).")
    max_seconds: float | None = setting(None, "Little-Go: seconds of training, checkpoints excluded.")
    mix: str | None = setting(None, "Little-Go: opponents and weights (random, greedy, aggressive, "
                              "alphabeta, self).",
                              default_text="random=1,greedy=2,aggressive=4,alphabeta=1,self=1")
    board_plies: int | None = setting(None, "Little-Go: actions from the start that get whole-board keys.",
                                      default_text="the table's default")
    black_share: float = setting(0.5, "Little-Go: share of games with the learner as Black.")
    keys: int | None = setting(None, "Little-Go: the table's kind. 3: afterstate values in lookup tables "
                               "over every 3x3 window, row and column (the shipped table's); 2: move "
                               "patterns, the phase in the mover's moves left and what the reply could "
                               "capture; 1: move patterns by quarters of the game.", choices=(1, 2, 3),
                               default_text="2, or a resumed table's")
    min_board_visits: int = setting(2, "Little-Go: board keys updated fewer times are left out of the file.")
    resume: bool = setting(False, "Little-Go: continue the table at --out if there is one.")
    curve: str | None = setting(None, "Little-Go: also write the learning curve to this JSON file.")


def wanted(argv: list[str]) -> bool:
    """Whether the ``train`` arguments ask for Q-learning (``--algo qlearning``)."""
    return any(a == "--algo=qlearning" or (a == "--algo" and nxt == "qlearning")
               for a, nxt in zip(argv, [*argv[1:], ""], strict=True))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__
    add_options(parser, QLearningOptions(), positional=("game",))


def options_of(args: argparse.Namespace) -> QLearningOptions:
    """The parsed options, with the game's defaults where none was given."""
    opts = QLearningOptions(**{f.name: getattr(args, f.name) for f in dataclasses.fields(QLearningOptions)})
    for name, value in GAME_DEFAULTS[opts.game].items():
        if getattr(opts, name) is None:
            setattr(opts, name, value)
    return opts


def tictactoe_config(opts: QLearningOptions):
    """The Tic-Tac-Toe run of ``opts``."""
    from tictacgo.baselines.qlearning_ttt_train import TicTacToeRun

    given = {k: getattr(opts, k) for k in ("alpha", "gamma", "epsilon") if getattr(opts, k) is not None}
    return TicTacToeRun(out=opts.out, games=opts.games, seed=opts.seed, eval_every=opts.eval_every,
                        eval_games=opts.eval_games, symmetry=opts.symmetry, quiet=opts.quiet, **given)


def littlego_config(opts: QLearningOptions):
    """The Little-Go run of ``opts``.

    Raises:
        ValueError: a setting out of range, or neither --episodes nor --max-seconds.
    """
    from tictacgo.baselines.qlearning_go_train import RunConfig, parse_mix

    if opts.episodes is None and opts.max_seconds is None:
        raise ValueError("give --episodes or --max-seconds")
    if not 0 <= opts.black_share <= 1:
        raise ValueError(f"--black-share must be in [0, 1], got {opts.black_share}")
    if opts.eval_every < 1 or opts.eval_games < 1 or opts.min_board_visits < 1 or (opts.board_plies or 0) < 0:
        raise ValueError("--eval-every, --eval-games and --min-board-visits must be positive, --board-plies "
                         f">= 0; got {opts.eval_every}, {opts.eval_games}, {opts.min_board_visits} and "
                         f"{opts.board_plies}")
    given = {k: getattr(opts, k) for k in ("alpha", "gamma", "epsilon", "board_plies", "mix", "keys")
             if getattr(opts, k) is not None}
    if "mix" in given:
        parse_mix(given["mix"])
    return RunConfig(out=opts.out, seed=opts.seed, episodes=opts.episodes, max_seconds=opts.max_seconds,
                     black_share=opts.black_share, eval_every=opts.eval_every, eval_games=opts.eval_games,
                     min_board_visits=opts.min_board_visits, resume=opts.resume, curve=opts.curve, **given)


def run_tictactoe(opts: QLearningOptions) -> int:
    from tictacgo.baselines.qlearning_ttt_train import CHECKS, holds_from, run

    result = run(tictactoe_config(opts), log=lambda s: print(s, flush=True))
    agent, total = result.agent, result.wall_seconds
    print(f"\n{agent.games:,} games, {len(agent):,} table states, {total:.1f}s "
          f"({total - result.eval_seconds:.1f}s training, {result.eval_seconds:.1f}s evaluation); "
          f"saved {opts.out}")
    for name in CHECKS:
        first = holds_from(result.checkpoints, name)
        if first is None:
            print(f"  {name:17s}: still loses at the last checkpoint")
        else:
            print(f"  {name:17s}: never loses from {first.games:,} games on "
                  f"({first.train_seconds:.1f}s training, {first.wall_seconds:.1f}s with evaluation)")
    return 0


def run_littlego(opts: QLearningOptions) -> int:
    from tictacgo.baselines.qlearning_go_train import run

    table = run(littlego_config(opts), log=lambda s: print(s, flush=True))
    kept = (f"{len(table):,} entries" if table.key_scheme == 3 else
            f"{len(table):,} keys ({table.board_keys():,} board keys)")
    print(f"{table.meta['games']:,} games, {kept}, {table.meta['train_seconds']:.0f}s training, "
          f"{table.meta.get('wall_seconds', 0):.0f}s wall; saved {opts.out}")
    return 0


TRAINERS = {"tictactoe": run_tictactoe, "littlego": run_littlego}


def run(args: argparse.Namespace) -> int:
    """Train; exit status 0, 2 for bad settings, 130 when interrupted (the table saved so far kept)."""
    opts = options_of(args)
    try:
        return TRAINERS[opts.game](opts)
    except ValueError as e:
        print(f"tictacgo train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tictacgo train: interrupted; the table saved so far is in {opts.out}", file=sys.stderr)
        return 130
