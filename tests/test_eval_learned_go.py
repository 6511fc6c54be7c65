"""scripts/eval_learned_go.py: a learned Little-Go agent against the ladder or against other players."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "eval_learned_go.py"


def run_script(*argv: str) -> subprocess.CompletedProcess:
    """The script run as a command (tests import the library, never a script)."""
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, timeout=600)


def test_opponents_replace_the_ladder_and_the_qlearning_targets_apply_by_name():
    done = run_script("--agent", "random", "--opponents", "greedy, minimax:depth=1", "--games", "2",
                      "--mcts-games", "0", "--targets", "qlearning")
    rc, out = done.returncode, done.stdout
    rows = [line for line in out.splitlines() if line.startswith("| ") and "opponent" not in line]
    assert [r.split(" | ")[0] for r in rows] == ["| greedy", "| minimax:depth=1"]
    assert rows[0].endswith("| 80% |") and rows[1].endswith("| - |")  # a target only where one is named
    assert "greedy as" in out.splitlines()[-1]  # random cannot win every game against greedy: missed
    assert rc == 1


def test_a_bad_opponent_spec_fails_before_any_game():
    done = run_script("--agent", "random", "--opponents", "greedy,nosuchagent", "--games", "1")
    assert done.returncode == 2
    assert "nosuchagent" in done.stderr and "error" in done.stderr
    assert run_script("--agent", "random", "--opponents", " , ", "--games", "1").returncode == 2
