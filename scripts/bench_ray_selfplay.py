"""Self-play positions per second on 1, 2, ... Ray actors against self-play in this process.

For the self-play settings given (those of ``tictacgo train GAME --algo
alphazero``, default the shipped Tic-Tac-Toe recipe), each round measures
every count of ``--actors`` in turn (0: self-play in this process), the order
alternating between rounds, ``--seconds`` each (``actor_throughput``: no
gradient steps, an untrained network); prints the median positions per
second of each count, its ratio to the first count, the positions per CPU
second and the cores the self-play got (its CPU seconds per second), and the
load average (``uptime``) before and after. Ray is started once for the whole run (on this
machine, or at ``RAY_ADDRESS``).

    nice python scripts/bench_ray_selfplay.py --actors 1,2 --rounds 5 --seconds 20
    nice python scripts/bench_ray_selfplay.py littlego --channels 32 --blocks 4 --num-games 128 \\
        --simulations 32 --actor-moves 2 --actors 1,2 --rounds 3 --seconds 30 --json go.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from tictacgo.baselines.learning.alphazero.actor_throughput import self_play_rate
from tictacgo.baselines.learning.alphazero.actors import import_ray, ray_address
from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig

RECIPE = {
    "tictactoe": {"channels": 32, "blocks": 2, "num_games": 128, "simulations": 16, "random_opening": 6},
    "littlego": {"channels": 32, "blocks": 4, "num_games": 256, "simulations": 32, "random_opening": 4},
}


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average {:.2f}, {:.2f}, {:.2f}".format(*os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", nargs="?", default="tictactoe", choices=tuple(RECIPE))
    parser.add_argument("--actors", default="1,2", help="comma-separated actor counts (0: in this process)")
    parser.add_argument("--rounds", type=int, default=5, help="measurements of each count")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds counted per measurement")
    parser.add_argument("--channels", type=int)
    parser.add_argument("--blocks", type=int)
    parser.add_argument("--num-games", type=int, help="games at once, per actor")
    parser.add_argument("--simulations", type=int)
    parser.add_argument("--actor-moves", type=int, default=4)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    try:
        counts = [int(x) for x in args.actors.split(",")]
        given = {k: getattr(args, k) for k in ("channels", "blocks", "num_games", "simulations")}
        cfg = AlphaZeroConfig(game=args.game, actor_moves=args.actor_moves, max_positions=1,
                              **{**RECIPE[args.game], **{k: v for k, v in given.items() if v is not None}})
        if args.rounds < 1 or any(c < 0 for c in counts):
            raise ValueError(f"--rounds must be >= 1 and --actors counts >= 0, got {args.rounds}, {counts}")
    except ValueError as e:
        parser.error(str(e))
    before = uptime()
    print(before, flush=True)
    ray = None
    if any(counts):
        ray = import_ray()
        address = ray_address()
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="WARNING",
                 **({"num_cpus": os.cpu_count()} if address == "local" else {}))
    rates: dict[int, list[float]] = {c: [] for c in counts}
    per_cpu: dict[int, list[float]] = {c: [] for c in counts}
    cores: dict[int, list[float]] = {c: [] for c in counts}
    try:
        for r in range(args.rounds):
            for c in counts if r % 2 == 0 else counts[::-1]:
                row = self_play_rate(cfg, c, args.seconds)
                rates[c].append(row["positions_per_second"])
                per_cpu[c].append(row["positions_per_cpu_second"])
                cores[c].append(row["cores"])
                print(f"round {r + 1}: {c} actors: {row['positions_per_second']:.0f} positions/s "
                      f"({row['positions']} in {row['seconds']:.1f} s), "
                      f"{row['positions_per_cpu_second']:.0f} per CPU second, {row['cores']:.2f} cores",
                      flush=True)
    finally:
        if ray is not None:
            ray.shutdown()
    after = uptime()
    medians = {c: statistics.median(v) for c, v in rates.items()}
    median_per_cpu = {c: statistics.median(v) for c, v in per_cpu.items()}
    median_cores = {c: statistics.median(v) for c, v in cores.items()}
    print(f"\n{args.game}: {cfg.channels}x{cfg.blocks} network, {cfg.num_games} games per actor, "
          f"{cfg.simulations} simulations, {cfg.actor_moves} moves a call; medians of {args.rounds}:")
    for c in counts:
        print(f"  {c} actors: {medians[c]:8.0f} positions/s  ({medians[c] / medians[counts[0]]:.2f}x "
              f"{counts[0]} actors), {median_per_cpu[c]:.0f} per CPU second, {median_cores[c]:.2f} cores")
    print(after)
    if args.json:
        doc = {"command": " ".join(["python", *sys.argv]), "uptime_before": before, "uptime_after": after,
               "settings": {k: getattr(cfg, k) for k in ("game", "channels", "blocks", "num_games",
                                                         "simulations", "actor_moves")},
               "rates": {str(c): v for c, v in rates.items()},
               "medians": {str(c): m for c, m in medians.items()},
               "per_cpu_second": {str(c): v for c, v in per_cpu.items()},
               "cores": {str(c): v for c, v in cores.items()}}
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
