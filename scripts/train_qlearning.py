"""Train the tabular Q-learning agents: Tic-Tac-Toe by self-play, or Little-Go (``littlego`` first).

Little-Go (``python scripts/train_qlearning.py littlego --help``): a table of
pattern and opening-board keys (``tictacgo.baselines.qlearning_go``) trained
against a mix of the course's first-stage opponents and itself, with a
learning curve every ``--eval-every`` games, saved atomically at each
checkpoint (``--resume`` continues it):

    python scripts/train_qlearning.py littlego --max-seconds 1800 --seed 0 --out runs/littlego_q.npz

Tic-Tac-Toe (the default, or ``tictactoe`` first): self-play, checked
against the exact minimax.

Every ``--eval-every`` games the table is checked against the exact minimax
(``MinimaxAgent``, ties broken at random so it varies its lines):

- sampled: ``--eval-games`` games with the Q agent as X and as many as O;
- exact: every line where the Q agent plays any of its tied greedy moves and
  minimax any of its best moves (``vs minimax``), or the opponent any legal
  move at all (``vs any``, i.e. perfect play).

At the end it reports the first checkpoint from which each check held at
every later checkpoint, with the training time (evaluation excluded) and the
wall time to get there. The table is saved atomically at every checkpoint and
at the end (Ctrl-C saves what is there and stops).

    python scripts/train_qlearning.py --games 50000 --seed 0 --out runs/ttt_q.json
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, fields

import numpy as np

from tictacgo.arena import play_wdl
from tictacgo.atomic import atomic_write_json
from tictacgo.baselines.minimax import MinimaxAgent
from tictacgo.baselines.qlearning import DEFAULTS as TTT_DEFAULTS
from tictacgo.baselines.qlearning import QLearningAgent, train, worst_result
from tictacgo.baselines.qlearning_go import DEFAULTS
from tictacgo.baselines.qlearning_go_train import DEFAULT_MIX, RunConfig, board_recurrence, parse_mix, run
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()


def sampled(q: QLearningAgent, minimax: MinimaxAgent, games: int) -> dict[str, tuple[int, int, int]]:
    """W/D/L of the Q agent against minimax, as X and as O."""
    return {name: play_wdl(TTT, q, minimax, games, colour=side)
            for name, side in (("X", ttt.X), ("O", ttt.O))}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["littlego"]:
        return main_littlego(argv[1:])
    if argv[:1] == ["tictactoe"]:
        argv = argv[1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=50_000, help="self-play training games (default 50000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/ttt_q.json",
                   help="where to save the table (JSON; default runs/ttt_q.json)")
    p.add_argument("--eval-every", type=int, default=500, help="games between checkpoints")
    p.add_argument("--eval-games", type=int, default=50, help="sampled games per side per checkpoint")
    p.add_argument("--alpha", type=float, default=TTT_DEFAULTS["alpha"])
    p.add_argument("--gamma", type=float, default=TTT_DEFAULTS["gamma"])
    p.add_argument("--epsilon", type=float, default=TTT_DEFAULTS["epsilon"])
    p.add_argument("--no-symmetry", action="store_true",
                   help="key the table by the raw board, as the seeds do (for comparison)")
    p.add_argument("--quiet", action="store_true", help="only the summary")
    args = p.parse_args(argv)
    if args.games < 1 or args.eval_every < 1 or args.eval_games < 0:
        p.error("--games and --eval-every must be positive, --eval-games non-negative")

    rng = np.random.default_rng(args.seed)
    train_rng, q_rng, mm_rng = rng.spawn(3)
    agent = QLearningAgent(TTT, rng=q_rng)
    minimax = MinimaxAgent(TTT, rng=mm_rng)
    log = (lambda s: None) if args.quiet else (lambda s: print(s, flush=True))

    checks = ("sampled", "exact vs minimax", "exact vs any")
    history: list[tuple[int, float, float, dict[str, bool]]] = []
    eval_time = 0.0
    t0 = time.perf_counter()

    def checkpoint(games: int, ag: QLearningAgent) -> bool:
        nonlocal eval_time
        e0 = time.perf_counter()
        s = sampled(ag, minimax, args.eval_games)
        ok = {
            "sampled": s["X"][2] == 0 and s["O"][2] == 0,
            "exact vs minimax": min(worst_result(ag, side, "minimax", minimax) for side in (1, 2)) >= 0,
            "exact vs any": min(worst_result(ag, side, "any") for side in (1, 2)) >= 0,
        }
        ag.save(args.out)
        eval_time += time.perf_counter() - e0
        wall = time.perf_counter() - t0
        history.append((games, wall - eval_time, wall, ok))
        log(f"  eval @ {games:,}: vs minimax as X W/D/L {'/'.join(map(str, s['X']))}, "
            f"as O {'/'.join(map(str, s['O']))}; "
            f"exact vs minimax {'ok' if ok['exact vs minimax'] else 'LOSES'}, "
            f"vs any {'ok' if ok['exact vs any'] else 'LOSES'}")
        return False

    print(f"training {args.games:,} self-play games (alpha {args.alpha}, gamma {args.gamma}, "
          f"epsilon {args.epsilon}, symmetry {not args.no_symmetry}, seed {args.seed}); "
          f"checkpoints every {args.eval_every:,}")
    try:
        train(args.games, train_rng, alpha=args.alpha, gamma=args.gamma, epsilon=args.epsilon,
              symmetry=not args.no_symmetry, agent=agent, progress=not args.quiet,
              every=args.eval_every, callback=checkpoint, log=log)
        if not history or history[-1][0] != agent.games:
            checkpoint(agent.games, agent)
    except KeyboardInterrupt:
        agent.save(args.out)
        print(f"\ninterrupted after {agent.games:,} games; table saved to {args.out}")
        return 130
    total = time.perf_counter() - t0

    print(f"\n{agent.games:,} games, {len(agent):,} table states, {total:.1f}s "
          f"({total - eval_time:.1f}s training, {eval_time:.1f}s evaluation); saved {args.out}")
    for name in checks:
        # The first checkpoint from which the check held at every later one.
        first = None
        for games, train_s, wall_s, ok in reversed(history):
            if not ok[name]:
                break
            first = (games, train_s, wall_s)
        if first is None:
            print(f"  {name:17s}: still loses at the last checkpoint")
        else:
            print(f"  {name:17s}: never loses from {first[0]:,} games on "
                  f"({first[1]:.1f}s training, {first[2]:.1f}s with evaluation)")
    return 0


@dataclass
class GoArgs:
    """The Little-Go run's arguments (``tictacgo.baselines.qlearning_go_train.RunConfig``)."""

    out: str = "runs/littlego_q.npz"  #: where the table is saved (npz), at every checkpoint
    seed: int = 0                      #: seeds everything, once
    episodes: int | None = None        #: training games (with --max-seconds: whichever comes first)
    max_seconds: float | None = None   #: seconds of training, checkpoints excluded
    mix: str = DEFAULT_MIX             #: opponents and weights: random, greedy, aggressive, alphabeta, self
    alpha: float = DEFAULTS["alpha"]   #: step size once a key has 1/alpha visits (1/visits before)
    gamma: float = DEFAULTS["gamma"]   #: discount of the next turn's best value
    epsilon: float = DEFAULTS["epsilon"]  #: exploration rate during training
    board_plies: int = DEFAULTS["board_plies"]  #: actions from the start that get whole-board keys
    black_share: float = 0.5           #: share of games against an opponent with the learner as Black
    eval_every: int = 5000             #: games between checkpoints (evaluation, learning curve, save)
    eval_games: int = 20               #: games a colour against each opponent at a checkpoint
    min_board_visits: int = 2          #: board keys updated fewer times are left out of the file
    resume: bool = False               #: continue the table at --out if there is one
    curve: str | None = None           #: also write the learning curve to this JSON file
    recurrence: int = 0                #: only measure: games per pairing of how often positions recur
    recurrence_out: str | None = None  #: where --recurrence writes its table (JSON)


def main_littlego(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="train_qlearning.py littlego",
                                description="Train the Little-Go Q-table against the course's opponents.")
    for f in fields(GoArgs):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            p.add_argument(flag, action="store_true")
            continue
        kind = {"int": int, "float": float, "int | None": int, "float | None": float}.get(f.type, str)
        p.add_argument(flag, type=kind, default=f.default, help=f"default {f.default}")
    args = GoArgs(**vars(p.parse_args(argv)))
    if args.recurrence:
        return recurrence(args)
    if args.episodes is None and args.max_seconds is None:
        p.error("give --episodes or --max-seconds")
    if not 0 <= args.black_share <= 1:
        p.error(f"--black-share must be in [0, 1], got {args.black_share}")
    if args.eval_every < 1 or args.eval_games < 1 or args.board_plies < 0 or args.min_board_visits < 1:
        p.error("--eval-every, --eval-games and --min-board-visits must be positive, --board-plies >= 0")
    try:
        parse_mix(args.mix)
    except ValueError as e:
        p.error(str(e))
    try:
        config = {k: v for k, v in vars(args).items() if not k.startswith("recurrence")}
        table = run(RunConfig(**config), log=lambda s: print(s, flush=True))
    except KeyboardInterrupt:
        return 130
    print(f"{table.meta['games']:,} games, {len(table):,} keys ({table.board_keys():,} board keys), "
          f"{table.meta['train_seconds']:.0f}s training, {table.meta['wall_seconds']:.0f}s wall; "
          f"saved {args.out}")
    return 0


def recurrence(args: GoArgs) -> int:
    """Print (and save) how often positions recur by ply, for two pairings of the course's opponents."""
    rng = np.random.default_rng(args.seed)
    out = {}
    for first, second in (("greedy", "random"), ("aggressive", "greedy")):
        rows = board_recurrence(first, second, args.recurrence, rng)
        out[f"{first} vs {second}"] = rows
        print(f"{first} (Black) vs {second}, {args.recurrence:,} games: "
              "share of positions met in an earlier game")
        print("  " + "  ".join(f"t={r['t']}: {r['seen_before']:.0%}" for r in rows[:14]))
    if args.recurrence_out:
        atomic_write_json(args.recurrence_out, {"games": args.recurrence, "seed": args.seed, "pairings": out},
                          indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
