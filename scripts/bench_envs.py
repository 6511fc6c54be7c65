#!/usr/bin/env python3
"""Random-play throughput: tictacgo against PettingZoo, side by side in one run.

Every step: read the legal set (or mask), pick a uniformly random legal
action, apply it; reset when the game ends. Cases:

  core   tictacgo rules core      legal_actions(state) -> play(state, a)
  aec    tictacgo AEC env         env.last() -> obs["action_mask"] -> env.step
  pz     PettingZoo tictactoe_v3 / go_v5(board_size=5, komi=2.5), same AEC loop

The loop is the one the peer libraries are measured with (AEC dead steps at game
end are executed but not counted). Each case runs for ``--budget`` seconds,
``--repeats`` times, interleaved round-robin so machine noise hits all cases
alike; the table shows the median steps/s and the ratio to the PettingZoo peer.

Usage:  python scripts/bench_envs.py [--budget 3] [--repeats 3] [--markdown]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

import numpy as np

SEED = 0


def core_player(game_name: str):
    from tictacgo.games import make_game

    game = make_game("tictactoe" if game_name == "ttt" else "littlego")
    rng = random.Random(SEED)
    init = game.initial_state
    legal_actions, play, is_terminal = game.legal_actions, game.play, game.is_terminal

    def play_one_game() -> int:
        s = init()
        n = 0
        while not is_terminal(s):
            legal = legal_actions(s)
            s = play(s, legal[rng.randrange(len(legal))])
            n += 1
        return n

    return play_one_game


def aec_player(env) -> callable:
    rng = random.Random(SEED)
    flatnonzero = np.flatnonzero
    env.reset(seed=SEED)

    def play_one_game() -> int:
        env.reset()
        n = 0
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            n += 1
        return n

    return play_one_game


def make_case(name: str):
    lib, game = name.split("_")
    if lib == "core":
        return core_player(game)
    if lib == "aec":
        from tictacgo.envs import littlego_v0, tictactoe_v0

        return aec_player(tictactoe_v0.env() if game == "ttt" else littlego_v0.env(board_size=5))
    if lib == "pz":
        if game == "ttt":
            from pettingzoo.classic import tictactoe_v3
            return aec_player(tictactoe_v3.env())
        from pettingzoo.classic import go_v5
        return aec_player(go_v5.env(board_size=5, komi=2.5))
    raise ValueError(f"unknown case {name!r}")


CASES = ("pz_ttt", "aec_ttt", "core_ttt", "pz_go", "aec_go", "core_go")
PEER = {"ttt": "pz_ttt", "go": "pz_go"}


def measure(play_one_game, budget: float) -> float:
    steps = 0
    t0 = time.perf_counter()
    deadline = t0 + budget
    while True:
        steps += play_one_game()
        if time.perf_counter() >= deadline:
            break
    return steps / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per measurement")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args()
    names = args.cases.split(",")
    players = {}
    for name in names:
        try:
            players[name] = make_case(name)
        except ImportError as e:
            print(f"skipping {name}: {e}")
    for play in players.values():  # warm-up
        measure(play, min(0.3, args.budget))
    runs = {name: [] for name in players}
    for _ in range(args.repeats):
        for name, play in players.items():
            runs[name].append(measure(play, args.budget))
    med = {name: statistics.median(r) for name, r in runs.items()}
    labels = {"pz_ttt": "PettingZoo tictactoe_v3 (AEC)", "aec_ttt": "tictacgo tictactoe_v0 (AEC)",
              "core_ttt": "tictacgo rules core, Tic-Tac-Toe", "pz_go": "PettingZoo go_v5 5x5 (AEC)",
              "aec_go": "tictacgo littlego_v0 5x5 (AEC)", "core_go": "tictacgo rules core, Little-Go 5x5"}
    print(f"python {platform.python_version()}, budget {args.budget}s x {args.repeats} repeats, medians")
    if args.markdown:
        print("| case | steps/s (median) | runs | vs PettingZoo |")
        print("|---|---:|---|---:|")
    for name in names:
        if name not in med:
            continue
        peer = PEER[name.split("_")[1]]
        ratio = f"{med[name] / med[peer]:.1f}x" if peer in med else "n/a"
        all_runs = ", ".join(f"{x:,.0f}" for x in runs[name])
        if args.markdown:
            print(f"| {labels[name]} | {med[name]:,.0f} | {all_runs} | {ratio} |")
        else:
            print(f"{labels[name]:36s} {med[name]:>12,.0f} steps/s  ({all_runs})  {ratio} vs PettingZoo")


if __name__ == "__main__":
    main()
