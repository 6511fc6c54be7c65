"""A course-protocol program plays as an agent (``program:cmd=...``), as the course's host runs it."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

from tictacgo.baselines import make_agent
from tictacgo.game_loop import play_game
from tictacgo.games import make_game

# A course player: the first empty point that is not obviously suicide is not checked on
# purpose; it counts its runs in a helper file to show the file survives between moves.
PLAYER = textwrap.dedent("""\
    import pathlib
    lines = pathlib.Path("input.txt").read_text().split()
    board = lines[6:11]
    count = pathlib.Path("runs.txt")
    n = int(count.read_text()) + 1 if count.exists() else 1
    count.write_text(str(n))
    move = "PASS"
    for i, row in enumerate(board):
        j = row.find("0")
        if j >= 0 and n % 7:
            move = f"{i},{j}"
            break
    pathlib.Path("output.txt").write_text(move)
    """)


@pytest.fixture
def player(tmp_path):
    path = tmp_path / "my_player3.py"
    path.write_text(PLAYER)
    return f"program:cmd={sys.executable} {path}"


def test_a_program_plays_whole_games_and_its_helper_files_survive_between_moves(player):
    go = make_game("littlego")
    agent = make_agent(player, go, rng=np.random.default_rng(0))
    for first, second in ((agent, make_agent("random", go)), (make_agent("random", go), agent)):
        record = play_game(go, first, second, rng=np.random.default_rng(1))
        assert record.winner in (0, 1, 2)
    runs = int((agent.workdir / "runs.txt").read_text())
    assert runs == len(agent.moves) and runs >= 4


def test_a_program_that_writes_nonsense_forfeits_as_at_the_host(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("open('output.txt', 'w').write('nine,nine')\n")
    go = make_game("littlego")
    agent = make_agent(f"program:cmd={sys.executable} {bad}", go)
    record = play_game(go, agent, make_agent("random", go))
    assert record.winner == 2 and record.forfeit == "malformed"


@pytest.mark.parametrize("spec, message", [("program", "cmd must be the program's command line"),
                                           ("program:cmd=x,time=0", "time must be"),
                                           ("program:cmd=x,time=nan", "time must be")])
def test_a_program_spec_is_checked_when_built(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, "littlego")


def test_a_program_plays_only_little_go():
    with pytest.raises(ValueError, match="unknown|does not play|plays"):
        make_agent("program:cmd=x", "tictactoe")


def test_the_course_report_grades_a_program(player, capsys):
    from tictacgo.cli import main

    assert main(["arena", "littlego", "--course-report", player, "--games", "2", "--seed", "0",
                 "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "1st grading stage" in out and "time, stage 1: " in out


# A player as students write it: it reads input.txt beside itself and imports a helper module of its
# folder (as the course's read.py and write.py are imported).
BESIDE = textwrap.dedent("""\
    import os
    from helper import first_empty
    here = os.path.dirname(os.path.abspath(__file__))
    lines = open(os.path.join(here, "input.txt")).read().split()
    open(os.path.join(here, "output.txt"), "w").write(first_empty(lines[6:11]))
    """)
HELPER = textwrap.dedent("""\
    def first_empty(board):
        return next((f"{i},{r.find('0')}" for i, r in enumerate(board) if "0" in r), "PASS")
    """)


def test_a_programs_folder_is_copied_in_as_the_course_does(tmp_path):
    folder = tmp_path / "hw2"
    folder.mkdir()
    (folder / "my_player3.py").write_text(BESIDE)
    (folder / "helper.py").write_text(HELPER)
    (folder / "input.txt").write_text("stale\n")  # the host writes its own
    go = make_game("littlego")
    # run from its own path, it reads the input.txt beside it there and forfeits
    alone = make_agent(f"program:cmd={sys.executable} {folder / 'my_player3.py'}", go)
    assert play_game(go, alone, make_agent("random", go)).forfeit
    agent = make_agent(f"program:cmd={sys.executable} my_player3.py,dir={folder}", go)
    assert (agent.workdir / "helper.py").is_file() and not (agent.workdir / "input.txt").exists()
    record = play_game(go, agent, make_agent("random", go), rng=np.random.default_rng(0))
    assert not record.forfeit and len(agent.moves) >= 2
    assert (folder / "input.txt").read_text() == "stale\n"  # the original folder is left as it was


def test_a_dir_that_is_not_a_folder_is_refused(tmp_path):
    with pytest.raises(ValueError, match="is not a folder"):
        make_agent(f"program:cmd=x,dir={tmp_path / 'missing'}", "littlego")
