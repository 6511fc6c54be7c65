"""A short match of our agents, through the GTP engine, against GNU Go, refereed by Little-Go's rules.

Each agent runs as ``tictacgo gtp --agent SPEC --seed S`` and GNU Go as
``gnugo --mode gtp --chinese-rules --never-resign --level L`` (a resignation
judged by territory means nothing under stone scoring with an action limit); ``tictacgo.protocol.gtp_match``
asks each for its moves, checks them against the rules core, and ends and
scores the games as the course host does (24 actions, two passes, Black
passing first; stones on the board plus komi 2.5 for White). Colours
alternate: our agent is Black in the even games.

GNU Go plays for territory (and passes once it judges the game settled), so
under this variant's stone scoring it is not a strong anchor: read the table
as a check that the engine speaks GTP to another program and as a rough
sanity test, not as a rating.

    python scripts/gtp_vs_gnugo.py --agents random greedy mcts:sims=1000 --games 4
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass

from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.protocol.gtp_match import END_DISAGREEMENT, END_FORFEIT, GtpProcess, play_refereed_game


@dataclass
class Args:
    agents: list[str] = setting(["random", "greedy", "mcts:sims=1000"],
                                "Agent specs to play (each through tictacgo gtp).")
    games: int = setting(4, "Games per agent (colours alternate, ours Black in the even games).")
    level: int = setting(10, "GNU Go's --level (0..10; 10 is its default strength).")
    seed: int = setting(0, "Seed of our agents (game i of an agent uses seed + i).")
    gnugo: str = setting("gnugo", "The GNU Go executable.")


def find_gnugo(name: str = "gnugo") -> str | None:
    """The GNU Go executable: on PATH, or in /usr/games where Debian puts it."""
    return shutil.which(name) or shutil.which(name, path="/usr/games")


def engine_command(spec: str, seed: int) -> list[str]:
    return [sys.executable, "-m", "tictacgo.cli", "gtp", "--agent", spec, "--seed", str(seed)]


def run(args: Args) -> list[dict]:
    """Play the match; one row per agent (its W/D/L from its own view, split by colour)."""
    gnugo = find_gnugo(args.gnugo)
    if gnugo is None:
        raise SystemExit("GNU Go not found (Debian: apt-get install gnugo)")
    rows = []
    with GtpProcess([gnugo, "--mode", "gtp", "--chinese-rules", "--never-resign", "--level", str(args.level)],
                    name="gnugo") as gnu:
        for spec in args.agents:
            row = {"agent": spec, "games": 0, "wins": 0, "losses": 0, "other": 0,
                   "wins_black": 0, "wins_white": 0, "margins": [], "reasons": {}}
            for i in range(args.games):
                with GtpProcess(engine_command(spec, args.seed + i), name=spec) as ours:
                    ours_black = i % 2 == 0
                    game = (play_refereed_game(ours, gnu) if ours_black else play_refereed_game(gnu, ours))
                ours_colour = 1 if ours_black else 2
                row["games"] += 1
                row["reasons"][game.reason] = row["reasons"].get(game.reason, 0) + 1
                if game.reason not in (END_FORFEIT, END_DISAGREEMENT):  # scored by the rules
                    b, w = game.scores
                    row["margins"].append((b - w) if ours_black else (w - b))
                if game.winner == ours_colour:
                    row["wins"] += 1
                    row["wins_black" if ours_black else "wins_white"] += 1
                elif game.winner == 3 - ours_colour:
                    row["losses"] += 1
                else:
                    row["other"] += 1
                if game.detail:
                    print(f"  {spec} game {i}: {game.detail}", file=sys.stderr)
            rows.append(row)
    return rows


def table(rows: list[dict], level: int) -> str:
    """A markdown table of the rows."""
    lines = ["| agent (via tictacgo gtp) | games | wins | losses | no result | wins as Black | "
             "wins as White | mean margin of scored games (ours - GNU Go) | how games ended |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(r["reasons"].items()))
        margin = f"{sum(r['margins']) / len(r['margins']):+.2f}" if r["margins"] else "n/a"
        lines.append(f"| {r['agent']} | {r['games']} | {r['wins']} | {r['losses']} | {r['other']} | "
                     f"{r['wins_black']} | {r['wins_white']} | {margin} | "
                     f"{reasons} |")
    lines.append(f"\nopponent: GNU Go --level {level} --chinese-rules --never-resign, "
                 "refereed by Little-Go's rules (stone scoring, komi 2.5, 24 actions)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.splitlines()[0])
    if args.games < 1:
        print(f"gtp_vs_gnugo.py: error: --games must be at least 1, got {args.games}", file=sys.stderr)
        return 2
    print(table(run(args), args.level))
    return 0


if __name__ == "__main__":
    sys.exit(main())
