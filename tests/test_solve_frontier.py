"""The solver's frontier driver (tictacgo.evaluation.frontier, scripts/solve_frontier.py): a line of
play solved backward.

Every value it reports is the solver's own on that position, the line's
moves are judged by those values, and a run out of budget says "unknown"
where it stopped, never a guess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")

from tictacgo.evaluation import frontier  # noqa: E402
from tictacgo.games import littlego  # noqa: E402
from tictacgo.solver import solve  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "solve_frontier.py"  # frontier's command line


def run_script(*argv: str) -> subprocess.CompletedProcess:
    """``scripts/solve_frontier.py ARGV`` run as a command."""
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, timeout=600)


def black_value(state) -> int:
    v = solve(state).value
    return v if state.to_move == littlego.BLACK else -v


def test_a_3x3_line_is_solved_back_to_the_empty_board_with_the_solvers_values():
    game = littlego.LittleGo(3)
    states, actions = frontier.line_from_agent(game, "random", seed=3)
    out = frontier.solve_line(
        states, actions, start_left=5, budget=60, reserve=5, all_moves=True, table_bits=16
    )
    assert out["deepest"] == 0
    assert out["value_for_black"] == -1  # the course's game on 3x3 is lost for Black (docs/solver.md)
    taken = [e["taken"] for e in out["positions"]]
    assert taken == list(range(taken[0], -1, -1))
    for e in out["positions"]:
        assert e["value_for_black"] == black_value(states[e["taken"]])
    # Every first move loses for Black on 3x3, so the moves at the empty board all say White wins.
    assert out["moves_at_deepest"] and {v["value_for_black"] for v in out["moves_at_deepest"].values()} == {
        -1
    }


def test_the_line_moves_are_judged_by_the_values_before_and_after_them():
    game = littlego.LittleGo(4)
    states, actions = frontier.line_from_agent(game, "greedy", seed=0)
    out = frontier.solve_line(
        states, actions, start_left=9, budget=120, reserve=0, all_moves=False, table_bits=18
    )
    rows = out["positions"]
    assert rows[0]["line_move_keeps_value"] is None  # nothing solved after the first position
    for later, e in zip(rows, rows[1:], strict=False):
        assert e["line_move"] == frontier.action_to_course(actions[e["taken"]], 4)
        assert e["line_move_keeps_value"] == (later["value_for_black"] == e["value_for_black"])
    assert any(e["line_move_keeps_value"] is False for e in rows[1:])  # greedy throws values away


def test_a_budget_that_runs_out_reports_unknown_where_it_stopped(tmp_path):
    path = tmp_path / "frontier.json"
    moves = "2,2 1,2 2,1 1,1 1,3 2,3 3,2 3,3"
    done = run_script("--size", "5", "--moves", moves, "--start-left", "16", "--budget", "0.3",
                      "--no-all-moves", "--table-bits", "16", "--json", str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(path.read_text())
    last = out["positions"][-1]
    assert last["value_for_black"] is None and last["best_move"] is None
    assert out["deepest"] is None or out["deepest"] > last["taken"]


@pytest.mark.parametrize(
    "text, message", [("5,0", "off the 5x5 board"), ("a,b", "not a course move"), ("2,2 2,2", "illegal")]
)
def test_bad_moves_are_refused_with_the_move_named(text, message):
    with pytest.raises(ValueError, match=message):
        frontier.line_from_moves(littlego.LittleGo(5), frontier.parse_moves(text, 5))


def test_moves_read_as_row_column_points_and_pass():
    assert frontier.parse_moves("0,0 2,3 PASS pass", 5) == [0, 13, 25, 25]


def test_a_run_stopped_and_resumed_from_its_checkpoint_proves_the_same_as_one_in_a_go(tmp_path):
    game = littlego.LittleGo(4)
    states, actions = frontier.line_from_agent(game, "greedy", seed=1)
    whole = frontier.FrontierRun(states, actions, 12, True, 16)
    assert whole.run(600) == "done"
    part = frontier.FrontierRun(states, actions, 12, True, 16)
    slices = []
    stops = 0
    path = tmp_path / "run.npz"
    while True:
        how = part.run(600, stop=lambda: len(slices) >= 3, progress=lambda r: slices.append(1))
        if how == "done":
            break
        assert how == "stopped"
        stops += 1
        part.save(path)
        part = frontier.FrontierRun.load(path)  # a new process would do just this
        slices.clear()
    assert stops > 3
    for a, b in zip(whole.out["positions"], part.out["positions"], strict=True):
        assert (a["taken"], a["value_for_black"], a["best_move"], a["nodes"]) == (
            b["taken"], b["value_for_black"], b["best_move"], b["nodes"])
    assert {m: v["value_for_black"] for m, v in whole.out["moves_at_deepest"].items()} == {
        m: v["value_for_black"] for m, v in part.out["moves_at_deepest"].items()}


def test_sigterm_keeps_the_run_and_resume_finishes_it(tmp_path):
    import time

    ckpt, js = tmp_path / "run.npz", tmp_path / "run.json"
    line = "2,2 3,3 2,3 1,3 2,4 2,1 3,1 1,1 1,2 3,0 3,2 0,2 1,4 0,3 4,1 0,1 4,0 4,2 4,3 2,0 0,4 3,4 4,4 1,0"
    cmd = [sys.executable, str(SCRIPT), "--moves", line, "--start-left", "16", "--end-left", "16",
           "--no-all-moves", "--table-bits", "18", "--checkpoint", str(ckpt), "--json", str(js),
           "--budget", "600"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for text in proc.stdout:
        if text.startswith("solving backward"):
            break
    time.sleep(0.5)  # the search at 16 to go takes seconds: the signal comes in the middle of it
    proc.terminate()
    assert proc.wait(60) == 130
    assert ckpt.exists()
    stopped = frontier.FrontierRun.load(ckpt)
    assert stopped.phase == "line" and stopped.search is not None  # stopped inside a search
    done = subprocess.run(cmd + ["--resume", "--progress", "0"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(js.read_text())
    game = littlego.LittleGo(5)
    states = frontier.line_from_moves(game, frontier.parse_moves(line, 5))
    assert [e["left"] for e in out["positions"]] == [16]
    assert out["positions"][0]["value_for_black"] == black_value(states[8])


def test_resume_refuses_a_file_that_is_not_a_checkpoint_and_needs_one(tmp_path):
    import numpy as np

    other = tmp_path / "other.npz"
    np.savez(other, x=np.arange(3))
    done = run_script("--checkpoint", str(other), "--resume")
    assert done.returncode == 2 and "is not a checkpoint of solve_frontier.py" in done.stderr
    done = run_script("--resume")
    assert done.returncode == 2 and "--resume needs --checkpoint" in done.stderr


def test_a_saved_search_is_refused_for_another_position():
    from tictacgo.solver import Solver
    from tictacgo.solver.resumable import ResumableSearch

    game = littlego.LittleGo(4)
    start = game.initial_state()
    a, b = littlego.play(start, 5), littlego.play(start, 6)  # as many actions left, other stones
    search = ResumableSearch(Solver(12), a)
    search.advance(100)
    with pytest.raises(ValueError, match="of another position"):
        ResumableSearch(Solver(12), b, search.arrays())
    with pytest.raises(ValueError, match="does not fit this position"):  # another number of actions left
        ResumableSearch(Solver(12), start, search.arrays())


def test_network_hints_keep_every_value_and_are_kept_by_a_checkpoint(tmp_path):
    game = littlego.LittleGo(5)
    states, actions = frontier.line_from_agent(game, "greedy", seed=2)
    plain = frontier.FrontierRun(states, actions, 10, False, 18, end_left=12)
    hinted = frontier.FrontierRun(states, actions, 10, False, 18, end_left=12, hint_depth=2)
    assert plain.run(600) == hinted.run(600) == "done"
    assert [(p["taken"], p["value_for_black"]) for p in plain.out["positions"]] == [
        (p["taken"], p["value_for_black"]) for p in hinted.out["positions"]]
    hinted.save(tmp_path / "run.npz")
    assert frontier.FrontierRun.load(tmp_path / "run.npz").out["hint_depth"] == 2


def test_line_first_proves_a_win_kept_by_the_line_move_with_that_move_alone(tmp_path):
    game = littlego.LittleGo(5)
    states, actions = frontier.line_from_agent(game, "greedy", seed=2)
    plain = frontier.FrontierRun(states, actions, 10, False, 18, end_left=13)
    first = frontier.FrontierRun(states, actions, 10, False, 18, end_left=13, line_first=True)
    assert plain.run(600) == first.run(600) == "done"
    assert [(p["taken"], p["value_for_black"]) for p in plain.out["positions"]] == [
        (p["taken"], p["value_for_black"]) for p in first.out["positions"]]
    searched_before = []
    for was, row in zip(plain.out["positions"], first.out["positions"], strict=True):
        mover_wins = (row["value_for_black"] == 1) == (row["mover"] == "Black")
        if row["line_move_keeps_value"] and mover_wins:
            # the line's move leads to the position just proved: one step, a table hit
            assert row["nodes"] == 2 and row["best_move"] == row["line_move"]
            searched_before.append(was["nodes"])
    assert searched_before and max(searched_before) > 2  # without it the search tried other moves first
    first.save(tmp_path / "run.npz")
    assert frontier.FrontierRun.load(tmp_path / "run.npz").out["line_first"] is True


def test_the_estimate_skips_positions_the_table_answered_and_grows_per_action():
    rows = [{"left": 16, "nodes": 1_000_000, "value_for_black": -1},
            {"left": 17, "nodes": 2, "value_for_black": -1},
            {"left": 18, "nodes": 4_000_000, "value_for_black": -1},
            {"left": 19, "nodes": 2, "value_for_black": -1}]
    # 1 million at 16 to go, 4 million at 18: twice an action, so 16 million at 20 to go
    assert frontier.estimate(rows, 6_000_000, 1_000_000.0, 20) == (
        "estimate 10 s more (16,000,000 positions at a growth of 2.0x per action)")
    assert frontier.estimate(rows[:2], 10, 1.0, 18).startswith("no estimate yet")


def test_an_opening_is_played_first_and_the_agent_plays_on_from_it():
    game = littlego.LittleGo(4)
    opening = frontier.parse_moves("1,1 PASS 2,2", 4)
    states, actions = frontier.line_from_agent(game, "greedy", seed=0, opening=opening)
    assert actions[:3] == opening
    assert states[3] == frontier.line_from_moves(game, opening)[-1]
    assert states[-1].end is not None and len(states) == len(actions) + 1
    with pytest.raises(ValueError, match="illegal"):
        frontier.line_from_agent(game, "greedy", seed=0, opening=frontier.parse_moves("1,1 1,1", 4))


def test_the_script_refuses_an_opening_beside_moves():
    done = run_script("--size", "3", "--moves", "1,1", "--opening", "1,1")
    assert done.returncode == 2 and "not both" in done.stderr


def test_extending_a_run_in_its_moves_phase_drops_the_moves_search_and_goes_on_along_the_line(tmp_path):
    game = littlego.LittleGo(5)
    line = "2,2 3,3 2,3 1,3 2,4 2,1 3,1 1,1 1,2 3,0 3,2 0,2 1,4 0,3 4,1 0,1 4,0 4,2 4,3 2,0 0,4 3,4 4,4 1,0"
    actions = frontier.parse_moves(line, 5)
    states = frontier.line_from_moves(game, actions)
    run = frontier.FrontierRun(states, actions, 15, True, 20, end_left=15)
    how = run.run(600, stop=lambda: run.phase == "moves" and run.search is not None)
    assert how == "stopped" and run.search is not None  # inside the search of a move's position
    run.save(tmp_path / "run.npz")
    run = frontier.FrontierRun.load(tmp_path / "run.npz")
    run.extend_to(16)
    assert run.phase == "line" and run.search is None and run.moves_todo == []
    run.all_moves = False
    assert run.run(600) == "done"
    row = run.out["positions"][-1]
    assert row["left"] == 16 and row["value_for_black"] == black_value(states[8])
