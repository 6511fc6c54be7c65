"""A position solved as one job per class of symmetric moves (tictacgo.evaluation.subtree_jobs,
scripts/solve_subtrees.py), in two worker processes or on Ray.

The root's value is the exact solver's on that position; every job's value is the solver's on its
move's position; a run stopped by SIGTERM and started again proves the same; a job begun by hand
with solve_frontier's run under the job's name is taken up, not started again; a folder keeps the
settings it was started with.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")

from tictacgo.evaluation import frontier, subtree_jobs  # noqa: E402
from tictacgo.evaluation.subtree_jobs import SubtreeRun, make_settings, open_folder  # noqa: E402
from tictacgo.games import littlego  # noqa: E402
from tictacgo.solver import Solver  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "solve_subtrees.py"


def run_script(*argv: str, script: Path = SCRIPT) -> subprocess.CompletedProcess:
    """``scripts/solve_subtrees.py ARGV`` (or another script) run as a command."""
    return subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True, timeout=600)
LINE_14_TO_GO = "2,2 3,3 2,3 1,3 2,4 2,1 3,1 1,1 1,2 3,0"  # az's line (docs/solver.md), 14 actions to go
LINE_16_TO_GO = "2,2 3,3 2,3 1,3 2,4 2,1 3,1 1,1"  # two actions earlier: jobs long enough to be stopped


def black_value(state, solver=None) -> int:
    """The solver's value for Black (one table for a test's positions: it changes no value)."""
    if state.end is not None:
        return subtree_jobs.finished_value(state)
    v = (solver or Solver(20)).solve(state).value
    return v if state.to_move == littlego.BLACK else -v


def moves(text: str, n: int) -> list[int]:
    return frontier.parse_moves(text, n)


def check_every_value(folder: Path, settings) -> dict:
    """The status's root value is the solver's, and each proved job's value is the solver's on its move."""
    status = json.loads((folder / "status.json").read_text())
    root = settings.root()
    solver = Solver(20)
    assert status["root"]["value_for_black"] == black_value(root, solver)
    n = root.game.size
    for job in status["jobs"]:
        assert job["state"] in ("proved", "unknown")
        if job["state"] == "proved":
            for move in job["moves"]:  # every member of the class has the value
                child = littlego.play(root, frontier.course_to_action(move, n) if move != "PASS" else n * n)
                assert job["value_for_black"] == black_value(child, solver), move
    return status


def test_the_moves_after_the_5x5_centre_fall_into_five_classes_and_pass():
    root = make_settings("2,2", size=5).root()
    jobs = subtree_jobs.subtree_jobs(root)
    assert [j.name for j in jobs] == ["0-0", "0-1", "0-2", "1-1", "1-2", "pass"]
    assert sorted(len(j.members) for j in jobs) == [1, 4, 4, 4, 4, 8]
    assert sum(len(j.members) for j in jobs) == 25  # the 24 empty points and PASS
    knight = next(j for j in jobs if j.name == "0-1")  # the eight points a knight's move from the centre
    assert set(knight.moves(5)) == {"0,1", "0,3", "1,0", "1,4", "3,0", "3,4", "4,1", "4,3"}


def test_the_empty_3x3_board_has_corner_edge_centre_and_pass_and_the_line_agents_class_goes_first():
    root = make_settings("", size=3).root()
    jobs = subtree_jobs.subtree_jobs(root)
    assert {j.name: len(j.members) for j in jobs} == {"0-0": 4, "0-1": 4, "1-1": 1, "pass": 1}
    assert [j.name for j in jobs] == ["0-0", "0-1", "1-1", "pass"]  # row-major, PASS last
    first = subtree_jobs.subtree_jobs(root, first=moves("2,1", 3)[0])
    assert [j.name for j in first] == ["0-1", "0-0", "1-1", "pass"]


def test_the_root_is_decided_by_one_win_for_the_mover_or_by_every_value():
    black = make_settings("", size=4).root()
    white = make_settings("1,1", size=4).root()
    assert subtree_jobs.root_value(black, [None, 1, None]) == 1  # one win for Black: enough
    assert subtree_jobs.root_value(black, [None, 0, -1]) is None  # a draw so far: the others may win
    assert subtree_jobs.root_value(black, [-1, 0, -1]) == 0
    assert subtree_jobs.root_value(white, [1, None, -1]) == -1  # White to move: a White win decides
    assert subtree_jobs.root_value(white, [1, 1, 1]) == 1


def test_two_workers_prove_the_empty_4x4_board_a_draw_as_the_solver_does(tmp_path):
    settings = open_folder(tmp_path, make_settings("", size=4, line="greedy", table_bits=18))
    run = SubtreeRun(tmp_path, settings, workers=2, progress=0.5)
    assert run.run() == "decided"
    status = check_every_value(tmp_path, settings)
    assert status["root"]["value_for_black"] == 0
    assert [j["state"] for j in status["jobs"]] == ["proved"] * 4  # a draw: every move had to be proved
    for job in status["jobs"][:3]:  # each job's files are solve_frontier's
        out = frontier.FrontierRun.load(tmp_path / "jobs" / f"{job['name']}.npz").out
        assert out["positions"][-1]["taken"] == 1 and out["end_left"] == 14
        assert json.loads((tmp_path / "jobs" / f"{job['name']}.json").read_text())["line"] == out["line"]


def test_a_win_for_the_mover_stops_the_search_and_leaves_the_other_jobs_unknown(tmp_path):
    settings = open_folder(tmp_path, make_settings("1,1", size=3, line="random"))
    run = SubtreeRun(tmp_path, settings, workers=1)
    assert run.run() == "decided"
    status = check_every_value(tmp_path, settings)
    assert status["root"]["value_for_black"] == -1  # White, to move, wins
    states = [j["state"] for j in status["jobs"]]
    assert states.index("proved") == 0 and "unknown" in states  # one worker: the first win ends it
    assert status["root"]["decided_by"] == [status["jobs"][0]["name"]]


def test_a_run_stopped_by_sigterm_and_started_again_proves_the_same_values(tmp_path):
    folder = tmp_path / "run"
    cmd = [sys.executable, str(SCRIPT), "--dir", str(folder), "--opening", LINE_16_TO_GO, "--line", "greedy",
           "--workers", "2", "--table-bits", "18", "--every", "0.2", "--progress", "0.5"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    status_file = folder / "status.json"
    deadline = time.monotonic() + 120
    running: list[str] = []
    while time.monotonic() < deadline:  # stop it once a first job is proved and another is under way
        try:
            status = json.loads(status_file.read_text())
        except (OSError, ValueError):
            status = None
        if status and any(j["state"] == "proved" for j in status["jobs"]):
            running = [j["name"] for j in status["jobs"] if j["state"] == "running"
                       and (folder / "jobs" / f"{j['name']}.npz").exists()]
            if running:
                break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    assert running, "no job was running with a checkpoint after the first was proved"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    stopped = json.loads(status_file.read_text())
    assert stopped["root"]["value_for_black"] is None
    waiting = [j["name"] for j in stopped["jobs"] if j["state"] == "waiting"]
    assert waiting and {j["state"] for j in stopped["jobs"]} == {"proved", "waiting"}
    for name in running:  # the jobs running when the signal came kept their search (or had just ended)
        state = next(j["state"] for j in stopped["jobs"] if j["name"] == name)
        assert state == "proved" or (folder / "jobs" / f"{name}.npz").exists()
    proved_before = {j["name"]: j["value_for_black"] for j in stopped["jobs"] if j["state"] == "proved"}
    again = subprocess.run([sys.executable, str(SCRIPT), "--dir", str(folder), "--resume", "--workers", "2"],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"({len(proved_before)} proved already)" in again.stdout
    for name in proved_before:
        assert f"started {name} " not in again.stdout  # a proved job is never searched again
    status = check_every_value(folder, make_settings(LINE_16_TO_GO, line="greedy", table_bits=18))
    assert status["root"]["value_for_black"] == -1  # White wins here too (docs/solver.md)


def test_a_job_begun_by_hand_under_its_name_is_taken_up(tmp_path):
    settings = open_folder(tmp_path, make_settings("", size=4, line="greedy", table_bits=18))
    game = littlego.LittleGo(4)
    # By hand, under the name of the move 2,2 (an image of the class's first move, 1,1): another
    # agent's line, solve_frontier's defaults (toward the empty board, then every move there),
    # stopped inside a search.
    states, actions = frontier.line_from_agent(game, "random", seed=5, opening=moves("2,2", 4))
    hand = frontier.FrontierRun(states, actions, 12, True, 18)
    slices = []
    assert hand.run(600, stop=lambda: len(slices) >= 2, progress=lambda r: slices.append(1)) == "stopped"
    hand.save(tmp_path / "jobs" / "2-2.npz")
    run = SubtreeRun(tmp_path, settings, workers=2)
    assert run.run() == "decided"
    status = check_every_value(tmp_path, settings)
    assert "2-2" in [j["name"] for j in status["jobs"]]  # the job goes by the hand run's name
    assert not (tmp_path / "jobs" / "1-1.npz").exists()
    out = json.loads((tmp_path / "jobs" / "2-2.json").read_text())
    assert out["line"] == [frontier.action_to_course(a, 4) for a in actions]  # the hand line, taken up
    assert out["positions"][-1]["taken"] == 1 and out["moves_at_deepest"] is None


def test_a_job_file_of_another_line_is_refused(tmp_path):
    settings = open_folder(tmp_path, make_settings("", size=4, line="greedy", table_bits=16))
    states, actions = frontier.line_from_agent(littlego.LittleGo(4), "greedy", 0, moves("0,0", 4))
    frontier.FrontierRun(states, actions, 12, False, 16).save(tmp_path / "jobs" / "1-1.npz")
    with pytest.raises(ValueError, match="1-1.npz is a run of another line"):
        SubtreeRun(tmp_path, settings, workers=1).run()


def test_ray_with_two_local_workers_proves_the_same_value(tmp_path):
    pytest.importorskip("ray", reason="needs ray: pip install 'tictacgo[ray]'")
    settings = open_folder(tmp_path, make_settings("", size=4, line="greedy", table_bits=18))
    run = SubtreeRun(tmp_path, settings, workers=2, use_ray=True)
    assert run.run() == "decided"
    assert check_every_value(tmp_path, settings)["root"]["value_for_black"] == 0


def test_a_folder_refuses_other_settings_and_resume_needs_a_run(tmp_path):
    open_folder(tmp_path, make_settings("2,2", line="greedy", table_bits=16))
    with pytest.raises(ValueError, match="other settings .*table_bits 16 there, 18 here"):
        open_folder(tmp_path, make_settings("2,2", line="greedy", table_bits=18))
    done = run_script("--dir", str(tmp_path), "--opening", "2,2", "--line", "random", "--table-bits", "16")
    assert done.returncode == 2 and "line 'greedy' there, 'random' here" in done.stderr
    done = run_script("--dir", str(tmp_path), "--resume", "--seed", "3")
    assert done.returncode == 2 and "seed is 0 there, 3 here" in done.stderr
    done = run_script("--dir", str(tmp_path / "new"), "--resume")
    assert done.returncode == 2 and "nothing to go on with" in done.stderr


@pytest.mark.parametrize("argv, message", [
    (["--opening", "2,5"], "'2,5' is off the 5x5 board"),
    (["--opening", "2,2 2,2"], "move 2 (2,2) is illegal"),
    (["--opening", "x"], "'x' is not a course move"),
    (["--opening", "PASS", "--size", "3"], "is finished"),
    (["--workers", "0"], "--workers must be at least 1, got 0"),
    (["--line", "nosuch"], "unknown agent 'nosuch'"),
])
def test_bad_input_is_refused_with_the_value_named(tmp_path, argv, message):
    done = run_script("--dir", str(tmp_path / "run"), *argv)
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / "run" / "run.json").exists()



def test_a_second_master_on_the_same_folder_is_refused(tmp_path):
    settings = open_folder(tmp_path, make_settings("", size=3, line="random"))
    with subtree_jobs.folder_lock(tmp_path):
        with pytest.raises(ValueError, match="another solve_subtrees.py is running on"):
            SubtreeRun(tmp_path, settings, workers=1).run()


def test_a_job_seeded_with_a_proved_siblings_table_searches_less_for_the_same_values(tmp_path):
    game = littlego.LittleGo(4)

    def job_run(move: str) -> frontier.FrontierRun:
        states, actions = frontier.line_from_agent(game, "greedy", 0, moves(move, 4))
        return frontier.FrontierRun(states, actions, 12, False, 18, end_left=14)

    sibling = job_run("0,0")
    assert sibling.run(600) == "done"
    sibling.save(tmp_path / "0-0.npz")
    alone, seeded = job_run("1,1"), job_run("1,1")
    subtree_jobs.seed_table(seeded, tmp_path / "0-0.npz")
    assert alone.run(600) == seeded.run(600) == "done"
    values = [[(e["taken"], e["value_for_black"]) for e in r.out["positions"]] for r in (alone, seeded)]
    assert values[0] == values[1]
    searched = [sum(e["nodes"] for e in r.out["positions"]) for r in (alone, seeded)]
    assert searched[1] < searched[0]


def test_a_job_proved_by_hand_with_solve_frontier_is_not_searched_again(tmp_path, capsys):
    settings = open_folder(tmp_path, make_settings("1,1", size=4, line="greedy", table_bits=16))
    jobs = tmp_path / "jobs"
    done = run_script("--size", "4", "--opening", "1,1 2,2", "--line", "random", "--end-left", "13",
                      "--no-all-moves", "--table-bits", "16", "--checkpoint", str(jobs / "2-2.npz"),
                      "--json", str(jobs / "2-2.json"), script=SCRIPT.parent / "solve_frontier.py")
    assert done.returncode == 0, done.stderr
    run = SubtreeRun(tmp_path, settings, workers=1)
    run.take_files()
    assert run.info["2-2"]["state"] == "proved"  # 2,2 after 1,1: its own class
    assert run.run() == "decided"
    assert "started 2-2 " not in capsys.readouterr().out
    check_every_value(tmp_path, settings)
