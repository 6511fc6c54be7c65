"""Seeded fingerprints, a test helper: the moves that seeded agents and arena matches play.

A refactor that claims "behaviour unchanged" must leave these moves alone:
``tests/test_fingerprints.py`` replays every case and compares it with
``tests/data/fingerprints.json``. Regenerate the file only when a change of
moves is intended (and say so in the commit):

    python tests/fingerprints.py --write tests/data/fingerprints.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

# (game, board size or None, first agent, second agent, seed)
GAME_CASES = [
    ("tictactoe", None, "mcts:sims=60", "random", 1),
    ("tictactoe", None, "random", "mcts:sims=60,c=2.0", 2),
    ("tictactoe", None, "minimax", "mcts:sims=40", 3),
    ("tictactoe", None, "think3", "think2", 4),
    ("tictactoe", None, "fast_minimax", "think1", 5),
    ("tictactoe", None, "policy_mcts:sims=20", "random", 6),
    ("tictactoe", None, "mix_mcts:sims=30", "mcts:sims=30", 7),
    ("tictactoe", None, "ppo:sample=true", "random", 8),
    ("tictactoe", None, "a2c", "think2", 9),
    ("littlego", None, "mcts:sims=60", "random", 11),
    ("littlego", None, "greedy", "mcts:sims=40,rollout=capture", 12),
    ("littlego", None, "minimax:depth=2", "aggressive", 13),
    ("littlego", None, "alphabeta", "greedy", 14),
    ("littlego", None, "policy_mcts:sims=10", "random", 15),
    ("littlego", None, "mix_mcts:sims=20", "mcts:sims=20", 16),
    ("littlego", None, "ppo:sample=true", "aggressive", 17),
    ("littlego", 4, "mcts:sims=50", "greedy", 18),
    ("littlego", 3, "minimax:depth=3", "random", 19),
    ("tictactoe", None, "az:sims=32", "random", 31),
    ("tictactoe", None, "az:sims=16,search=puct", "mcts:sims=30", 32),
    ("tictactoe", None, "qlearning", "think3", 33),
    ("littlego", None, "az:sims=32", "greedy", 34),
    ("littlego", None, "az:sims=16,search=puct", "mcts:sims=30", 35),
    ("littlego", None, "qlearning", "alphabeta", 36),
    ("littlego", None, "solver:max_left=10,time=60,fallback=az:sims=8", "aggressive", 37),
    ("littlego", None, "championship:nodes=2000,opening=none", "random", 38),
    ("littlego", None, "az:sims=0", "ppo", 39),
]

# (game, agent A, agent B, games, seed): ``tictacgo arena`` matches.
ARENA_CASES = [
    ("tictactoe", "mcts:sims=30", "think2", 4, 21),
    ("littlego", "mcts:sims=20", "aggressive", 4, 22),
    ("littlego", "az:sims=16", "qlearning", 2, 23),
]


def game_moves(game: str, size: int | None, first: str, second: str, seed: int) -> list[int]:
    """The moves of one seeded ``play_game`` (on a ``size`` x ``size`` board when given)."""
    from tictacgo.baselines import make_agent
    from tictacgo.game_loop import play_game
    from tictacgo.games import make_game

    variant = make_game(game, size=size)
    record = play_game(variant, make_agent(first, variant), make_agent(second, variant),
                       rng=np.random.default_rng(seed))
    return list(record.moves)


def arena_moves(game: str, a: str, b: str, games: int, seed: int) -> list[list[int]]:
    """The moves of every game of one seeded ``tictacgo arena`` match (one worker)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.json"
        subprocess.run([sys.executable, "-m", "tictacgo.cli", "arena", game, a, b, "--games", str(games),
                        "--seed", str(seed), "--workers", "1", "--out", str(out), "--no-progress"],
                       check=True, capture_output=True, text=True)
        data = json.loads(out.read_text())
    return [g["moves"] for g in data["games"]]


def case_key(case: tuple) -> str:
    return "|".join(str(x) for x in case)


def compute() -> dict[str, dict[str, list]]:
    """Every case's moves, keyed by the case written as one string."""
    return {
        "games": {case_key(c): game_moves(*c) for c in GAME_CASES},
        "arena": {case_key(c): arena_moves(*c) for c in ARENA_CASES},
    }


def dumps(data: dict[str, dict[str, list]]) -> str:
    """JSON with one line per case, so a diff shows which case moved."""
    parts = []
    for group in sorted(data):
        rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(data[group].items()))
        parts.append(f" {json.dumps(group)}: {{\n{rows}\n }}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="FILE", help="write the fingerprints here (else print them)")
    args = parser.parse_args(argv)
    text = dumps(compute())
    if args.write:
        Path(args.write).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
