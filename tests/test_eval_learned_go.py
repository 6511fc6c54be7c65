"""scripts/eval_learned_go.py: a learned Little-Go agent against the ladder or against other players."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "eval_learned_go.py"


def script():
    if "_script_eval_learned_go" not in sys.modules:
        spec = importlib.util.spec_from_file_location("_script_eval_learned_go", SCRIPT)
        sys.modules["_script_eval_learned_go"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["_script_eval_learned_go"]


def test_opponents_replace_the_ladder_and_the_qlearning_targets_apply_by_name(capsys):
    rc = script().main(["--agent", "random", "--opponents", "greedy, minimax:depth=1", "--games", "2",
                        "--mcts-games", "0", "--targets", "qlearning"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "opponent" not in line]
    assert [r.split(" | ")[0] for r in rows] == ["| greedy", "| minimax:depth=1"]
    assert rows[0].endswith("| 80% |") and rows[1].endswith("| - |")  # a target only where one is named
    assert "greedy as" in out.splitlines()[-1]  # random cannot win every game against greedy: missed
    assert rc == 1


def test_a_bad_opponent_spec_fails_before_any_game(capsys):
    assert script().main(["--agent", "random", "--opponents", "greedy,nosuchagent", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert "nosuchagent" in err and "error" in err
    assert script().main(["--agent", "random", "--opponents", " , ", "--games", "1"]) == 2
