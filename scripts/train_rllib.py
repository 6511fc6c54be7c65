"""Train a masked PPO policy with RLlib by shared-policy self-play, here or on a Ray cluster.

Both agents of the PettingZoo env map to one policy (the observation is
player-relative, so one network plays both sides); illegal actions are masked
in the RLModule. Each iteration prints the games played, the illegal moves
taken (0 with the mask), first-mover wins and draws; at the end the greedy
policy plays ``--eval-games`` games against each of ``--eval-opponents`` per
colour, and the checkpoint goes to ``--out`` (``Algorithm.from_checkpoint``
loads it).

    python scripts/train_rllib.py --iterations 50                       # a local Ray instance
    python scripts/train_rllib.py --address auto --num-env-runners 16   # a running Ray cluster
    python scripts/train_rllib.py --game littlego --board-size 5 --iterations 200 --num-env-runners 4

Needs the ``rllib`` extra: ``pip install 'tictacgo[rllib]'``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict, dataclass

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import add_options
from tictacgo.games import make_game


@dataclass
class Args:
    game: str = setting("tictactoe", "tictactoe or littlego.")
    iterations: int = setting(20, "Training iterations (each collects --train-batch-size env steps, "
                              "then updates).")
    address: str = setting("local", 'Ray address: "local" starts a Ray instance in this process; "auto" '
                           'joins the running cluster (started with `ray start`); "ray://HOST:10001" goes '
                           "through Ray Client.")
    num_env_runners: int = setting(0, "Remote EnvRunner actors that play the games (0: in this process). "
                                   "On a cluster, give it the CPUs.")
    train_batch_size: int = setting(2000, "Env steps (both players' moves) per iteration.")
    minibatch_size: int = setting(128, "SGD minibatch size.")
    num_epochs: int = setting(4, "Passes over each batch.")
    lr: float = setting(3e-4, "Learning rate.")
    entropy_coeff: float = setting(0.01, "Entropy bonus.")
    hidden: list[int] = setting([64, 64], "Hidden layer sizes of the policy and value networks.")
    board_size: int | None = setting(None, "The board size, for games whose env takes one (littlego).",
                                     default_text="the game's own")
    seed: int = setting(0, "RLlib's seed and the evaluation's.")
    eval_games: int = setting(50, "Greedy evaluation games per opponent and colour after training (0: none).")
    eval_opponents: list[str] = setting(["random"], "Registry specs the evaluation plays against "
                                        "(`tictacgo agents GAME` lists them).")
    out: str = setting("runs/rllib", "Where the final checkpoint is written (a folder).")


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(parser, Args())
    args = Args(**vars(parser.parse_args(argv)))
    try:
        args.game = make_game(args.game).spec.name
    except ValueError as e:
        parser.error(f"--game: {e}")
    for name in ("iterations", "train_batch_size", "minibatch_size", "num_epochs", "board_size"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    for name in ("num_env_runners", "eval_games", "seed"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be non-negative, got {getattr(args, name)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        import numpy as np
        import ray

        from tictacgo.baselines.learning import rllib
    except ImportError as e:
        print(f"train_rllib.py needs ray[rllib]: pip install 'tictacgo[rllib]' ({e})", file=sys.stderr)
        return 2
    from tictacgo.arena import play_wdl
    from tictacgo.baselines.registry import make_agent

    try:
        game = make_game(args.game, size=args.board_size)
    except (TypeError, ValueError) as e:
        print(f"train_rllib.py: error: --board-size: {e}", file=sys.stderr)
        return 2
    env_config = {}
    if args.board_size is not None:
        env_config["board_size"] = args.board_size
    config = rllib.self_play_config(
        args.game, env_config, num_env_runners=args.num_env_runners, hidden=tuple(args.hidden), lr=args.lr,
        train_batch_size=args.train_batch_size, minibatch_size=args.minibatch_size,
        num_epochs=args.num_epochs, entropy_coeff=args.entropy_coeff, seed=args.seed)
    print("training:", asdict(args), flush=True)
    ray.init(address=args.address, include_dashboard=False)
    try:
        print(f"ray: {ray.cluster_resources().get('CPU', 0):.0f} CPUs in the cluster", flush=True)
        algo = config.build_algo()
        start = time.monotonic()
        for it in range(1, args.iterations + 1):
            runners = algo.train()["env_runners"]
            games = int(runners.get("games_ended", 0))
            print(f"iter {it:4d}  {time.monotonic() - start:7.1f} s  games {games:5d}  "
                  f"illegal {int(runners.get('illegal_moves', 0))}  "
                  f"first-mover wins {int(runners.get('games_won_first', 0))}  "
                  f"draws {int(runners.get('games_drawn', 0))}", flush=True)
        path = algo.save(os.path.abspath(args.out)).checkpoint.path
        print(f"wrote the checkpoint {path}")
        if args.eval_games:
            policy = rllib.ModulePolicy(algo.get_module(rllib.SHARED_POLICY), game)
            for spec in args.eval_opponents:
                for colour, label in ((1, "first"), (2, "second")):
                    rng = np.random.default_rng([args.seed, colour])
                    opponent = make_agent(spec, game, rng=rng)
                    w, d, losses = play_wdl(game, policy, opponent, args.eval_games, colour=colour)
                    print(f"greedy policy moving {label} vs {spec}: {w} won, {d} drawn, {losses} lost")
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
