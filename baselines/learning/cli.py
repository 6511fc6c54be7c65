"""``tictacgo train GAME --algo maskable-ppo|a2c ...``: train a learned baseline.

Examples:

    tictacgo train tictactoe --algo maskable-ppo --opponent random --opponent minimax@2 \\
        --self-play --steps 200000 --seed 0 --out runs/ttt_ppo
    tictacgo train tictactoe --algo a2c --policy two_branch --steps 300000 --out runs/ttt_a2c
    tictacgo train tictactoe --out runs/ttt_ppo --steps 400000 --resume   # continue the run

Writes into ``--out``: best_model.zip (best evaluation so far), final_model.zip,
checkpoint.zip and progress.json (for ``--resume``), tb/ (TensorBoard) and
learning_curve.png. Play the result: ``tictacgo arena tictactoe
ppo:path=runs/ttt_ppo/best_model.zip minimax``. Exit status 0 when done, 2 for
bad arguments, 130 when interrupted (the last checkpoint is kept).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tictacgo.baselines.learning.training_config import TrainConfig

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__
    defaults = TrainConfig()
    parser.add_argument("game", choices=["tictactoe", "littlego"])
    parser.add_argument("--algo", choices=["maskable-ppo", "a2c"], default=defaults.algo)
    parser.add_argument("--opponent", action="append", default=None, metavar="SPEC[@WEIGHT]",
                        help="an opponent to train against (repeat for a weighted mixture; default random)")
    parser.add_argument("--self-play", action="store_true", help="add frozen snapshots of the learner")
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--out", default=None, help="output folder (default runs/GAME_ALGO)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out")
    parser.add_argument("--policy", choices=["mlp", "two_branch", "resnet"], default=defaults.policy)
    parser.add_argument("--observation", choices=["flat", "board", "planes"], default=defaults.observation)
    parser.add_argument("--n-envs", type=int, default=defaults.n_envs)
    parser.add_argument("--first-player-envs", type=int, default=defaults.first_player_envs, metavar="K",
                        help="envs where the learner always moves first (Black, X); the rest alternate "
                             "(more practice for the harder side)")
    parser.add_argument("--eval-every", type=int, default=defaults.eval_every)
    parser.add_argument("--eval-games", type=int, default=defaults.eval_games)
    parser.add_argument("--eval-opponent", action="append", default=None, metavar="SPEC",
                        help="an opponent to evaluate against (repeatable; default random)")
    parser.add_argument("--snapshot-every", type=int, default=defaults.snapshot_every)
    parser.add_argument("--self-play-weight", type=float, default=defaults.self_play_weight)
    parser.add_argument("--pool-size", type=int, default=defaults.pool_size)
    parser.add_argument("--random-opening", type=int, default=defaults.random_opening, metavar="N",
                        help="exploring starts: open each training game with 0..N random moves")
    parser.add_argument("--gamma", type=float, default=defaults.gamma)
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument("--n-steps", type=int, default=defaults.n_steps,
                        help="rollout length per env (0: 256 for PPO, 5 for A2C)")
    parser.add_argument("--anneal-lr", action="store_true", help="decay the learning rate linearly to 0")
    parser.add_argument("--ent-coef", type=float, default=defaults.ent_coef)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size, help="PPO minibatch size")
    parser.add_argument("--n-epochs", type=int, default=defaults.n_epochs, help="PPO epochs per rollout")
    parser.add_argument("--net-arch", type=_sizes, default=defaults.net_arch, metavar="N,N,...",
                        help="hidden layer sizes of the mlp policy (default 64,64)")
    parser.add_argument("--board-size", type=int, default=None, help="Little-Go board size")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated layer sizes like 64,64, got {text!r}") \
            from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"layer sizes must be positive, got {text!r}")
    return sizes


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("sb3_contrib") is None or importlib.util.find_spec("torch") is None:
        print("tictacgo train: error: training needs the train extra: pip install 'tictacgo[train]'",
              file=sys.stderr)
        return 2
    from tictacgo.baselines.learning.training import TrainConfig, train

    cfg = TrainConfig(game=args.game, algo=args.algo, opponents=args.opponent or ["random"],
                      self_play=args.self_play, steps=args.steps, seed=args.seed,
                      out=args.out or f"runs/{args.game}_{args.algo}", resume=args.resume, policy=args.policy,
                      observation=args.observation, n_envs=args.n_envs,
                      first_player_envs=args.first_player_envs, eval_every=args.eval_every,
                      eval_games=args.eval_games, eval_opponents=args.eval_opponent or ["random"],
                      snapshot_every=args.snapshot_every, self_play_weight=args.self_play_weight,
                      pool_size=args.pool_size, random_opening=args.random_opening,
                      gamma=args.gamma, learning_rate=args.learning_rate, anneal_lr=args.anneal_lr,
                      n_steps=args.n_steps, ent_coef=args.ent_coef, batch_size=args.batch_size,
                      n_epochs=args.n_epochs, net_arch=args.net_arch, board_size=args.board_size,
                      progress_bar=not args.no_progress)
    print("training:", {k: v for k, v in dataclasses.asdict(cfg).items()})
    try:
        train(cfg)
    except (ValueError, FileNotFoundError) as e:
        print(f"tictacgo train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tictacgo train: interrupted; the last checkpoint is in {cfg.out}", file=sys.stderr)
        return 130
    print(f"wrote {cfg.out}/best_model.zip, final_model.zip, learning_curve.png")
    return 0
