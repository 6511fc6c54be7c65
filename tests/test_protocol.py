"""The course file protocol: input.txt/output.txt, `tictacgo my-player`, `tictacgo host`.

Verdicts are checked against littlego_host_illegal.jsonl.gz, bad outputs
recorded from the course's real host.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tictacgo import cli
from tictacgo.agent import Agent
from tictacgo.baselines import registry
from tictacgo.games import littlego
from tictacgo.protocol import course, host, player

EMPTY = [[0] * 5 for _ in range(5)]


def board(text: str) -> np.ndarray:
    """An ASCII board (X Black, O White, . empty) as a 0/1/2 array."""
    table = {".": 0, "X": 1, "O": 2}
    rows = [line.split() for line in text.strip().splitlines()]
    return np.array([[table[c] for c in row] for row in rows], dtype=np.int8)


# A ko: White has just captured the Black stone at (1, 2) by playing (1, 1);
# Black's recapture at (1, 2) would restore the previous board.
KO_PREVIOUS = board("""
    . X O . .
    X . X O .
    . X O . .
    . . . . .
    . . . . .
""")
KO_BOARD = board("""
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . . . . .
""")
KO_POINT = (1, 2)


def my_player(tmp_path: Path, *extra: str) -> int:
    return cli.main(["my-player", "--dir", str(tmp_path), *extra])


def player_command(agent: str = "random") -> str:
    return f"{shlex.quote(sys.executable)} -m tictacgo.cli my-player --agent {agent} --dir ."


# ------------------------------------------------------------ parse_output

@pytest.mark.parametrize("text, move", [
    ("2,3", (2, 3)), ("2, 3", (2, 3)), ("+2,3", (2, 3)), ("2,3,9", (2, 3)),
    ("PASS", "PASS"), ("PASS,1", "PASS"), (" PASS \n", "PASS"), ("2,3\nPASS", (2, 3)),
    ("2,3\r\n", (2, 3)), ("-1,2", (-1, 2)), ("7,7", (7, 7)),
])
def test_parse_output_accepts_what_the_host_accepts(text, move):
    assert course.parse_output(text) == move


@pytest.mark.parametrize("text", ["pass", "Pass", "2 3", "2.0,3", "3", "", "\n", "a,b", "2;3",
                                  "\n2,3", "PASS2", "2,"])
def test_parse_output_rejects_what_the_host_rejects(text):
    with pytest.raises(ValueError, match="output.txt"):
        course.parse_output(text)


def test_missing_output_file_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        course.read_output(tmp_path / "output.txt")


@pytest.mark.parametrize("action, n, text", [(0, 5, "0,0"), (13, 5, "2,3"), (24, 5, "4,4"),
                                             (25, 5, "PASS"), (9, 3, "PASS"), (np.int64(7), 3, "2,1")])
def test_format_move_round_trips_through_parse_output(action, n, text):
    assert course.format_move(action, n) == text
    assert course.move_to_action(course.parse_output(text), n) == int(action)


@pytest.mark.parametrize("action", [-1, 26, 2.0, True, None])
def test_format_move_refuses_bad_actions(action):
    with pytest.raises((TypeError, ValueError)):
        course.format_move(action, 5)


# --------------------------------------------------- the recorded host data

def test_every_recorded_bad_output_gets_the_hosts_verdict(host_illegal):
    records = host_illegal
    kinds = set()
    for r in records:
        kinds.add(r["kind"])
        assert r["exit"] == 3 - r["to_move"]  # a forfeit: the opponent wins
        if r["kind"] == "missing_file":
            assert r["output_txt"] is None
            with pytest.raises(ValueError):
                course.parse_output(r["output_txt"])
            continue
        if r["kind"] == "malformed":
            with pytest.raises(ValueError):
                course.parse_output(r["output_txt"])
            continue
        move = course.parse_output(r["output_txt"])
        state = littlego.from_boards([[int(c) for c in row] for row in r["board"]], r["to_move"],
                                     [[int(c) for c in row] for row in r["prev"]], t=r["t"])
        action, reason = course.judge_move(state, move)
        expected = "ko" if r["kind"] == "ko_replay" else r["kind"]
        assert action is None and reason == expected, r
    assert kinds == {"out_of_bounds", "occupied", "suicide", "ko", "ko_replay", "malformed", "missing_file"}


def test_recorded_bad_outputs_forfeit_through_the_host(tmp_path, host_illegal):
    """The same verdicts through run_player: the file really written and read back."""
    records = host_illegal
    workdir = tmp_path / "player"
    workdir.mkdir()
    for k, r in enumerate(records):
        if r["output_txt"] is None:
            command = "true"
        else:
            src = tmp_path / f"answer{k}.txt"
            src.write_bytes(r["output_txt"].encode())
            command = f"cp {shlex.quote(str(src))} output.txt"
        prev = [[int(c) for c in row] for row in r["prev"]]
        cur = [[int(c) for c in row] for row in r["board"]]
        run = host.run_player(command, workdir, r["to_move"], prev, cur, time_limit=10)
        if r["kind"] in ("missing_file", "malformed"):
            assert run.failure == (host.MISSING if r["kind"] == "missing_file" else host.MALFORMED)
            assert run.move is None
        else:
            assert run.failure is None
            state = littlego.from_boards(cur, r["to_move"], prev, t=r["t"])
            assert course.judge_move(state, run.move)[1] is not None
        assert course.read_input(workdir / "input.txt")[0] == r["to_move"]


# ----------------------------------------------------------------- input.txt

def test_write_input_is_byte_exact_and_round_trips(tmp_path):
    path = tmp_path / "input.txt"
    course.write_input(path, 2, KO_PREVIOUS, KO_BOARD)
    text = path.read_bytes().decode()
    assert not text.endswith("\n")
    assert text.split("\n") == ["2", "01200", "10120", "01200", "00000", "00000",
                                "01200", "12020", "01200", "00000", "00000"]
    colour, prev, cur = course.read_input(path)
    assert colour == 2
    assert prev.dtype == np.int8 and prev.shape == (5, 5)
    np.testing.assert_array_equal(prev, KO_PREVIOUS)
    np.testing.assert_array_equal(cur, KO_BOARD)
    assert [p.name for p in tmp_path.iterdir()] == ["input.txt"]  # no temporary left behind


@pytest.mark.parametrize("ending", ["", "\n", "\r\n"])
@pytest.mark.parametrize("sep", ["\n", "\r\n"])
def test_read_input_tolerates_line_endings(tmp_path, sep, ending):
    text = course.format_input(1, EMPTY, KO_BOARD).replace("\n", sep) + ending
    (tmp_path / "input.txt").write_bytes(text.encode())
    colour, _, cur = course.read_input(tmp_path / "input.txt")
    assert colour == 1
    np.testing.assert_array_equal(cur, KO_BOARD)


def test_read_input_accepts_other_board_sizes(tmp_path):
    course.write_input(tmp_path / "input.txt", 1, np.zeros((3, 3)), np.zeros((3, 3)))
    assert course.read_input(tmp_path / "input.txt")[2].shape == (3, 3)


GOOD = course.format_input(1, EMPTY, EMPTY)
BAD_INPUTS = {
    "ten_lines": "\n".join(GOOD.split("\n")[:10]),
    "twelve_lines": GOOD + "\n00000",
    "two_final_newlines": GOOD + "\n\n",
    "bad_character": GOOD[:-1] + "a",
    "digit_3": GOOD[:-1] + "3",
    "space_in_row": GOOD[:-5] + "00 00",
    "short_row": GOOD[:-1],
    "long_rows": "1\n" + "\n".join(["000000"] * 10),
    "colour_3": "3" + GOOD[1:],
    "colour_0": "0" + GOOD[1:],
    "colour_missing": GOOD[2:] + "\n00000",
    "empty": "",
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_read_input_rejects_malformed_files(tmp_path, name):
    (tmp_path / "input.txt").write_text(BAD_INPUTS[name], newline="")
    with pytest.raises(ValueError, match="input.txt"):
        course.read_input(tmp_path / "input.txt")


def test_estimate_t_matches_the_colour_to_move():
    assert course.estimate_t(1, EMPTY, EMPTY) == 0
    assert course.estimate_t(2, EMPTY, board("X . . . .\n" + ". . . . .\n" * 4)) == 1
    assert course.estimate_t(1, KO_PREVIOUS, KO_BOARD) == 8
    assert course.estimate_t(2, KO_PREVIOUS, KO_BOARD) == 7
    full = np.ones((5, 5), dtype=np.int8)
    assert course.estimate_t(1, full, full) == 22
    assert course.estimate_t(2, full, full) == 23


def test_state_from_input_carries_the_ko():
    state = course.state_from_input(1, KO_PREVIOUS, KO_BOARD)
    assert course.judge_move(state, KO_POINT) == (None, "ko")
    # Without the previous board the recapture looks legal (and captures).
    naive = course.state_from_input(1, KO_BOARD, KO_BOARD)
    assert course.judge_move(naive, KO_POINT)[1] is None


# ---------------------------------------------------------------- my-player

def test_my_player_writes_a_legal_move(tmp_path):
    prev = board("""
        X . . . .
        . . . . .
        . . O . .
        . . . . .
        . . . . .
    """)
    cur = prev.copy()
    cur[3, 3] = 1
    course.write_input(tmp_path / "input.txt", 2, prev, cur)
    for seed in range(5):
        assert my_player(tmp_path, "--agent", "random", "--seed", str(seed)) == 0
        text = (tmp_path / "output.txt").read_text()
        assert "\n" not in text
        state = course.state_from_input(2, prev, cur)
        action, reason = course.judge_move(state, course.parse_output(text))
        assert reason is None and action != 25


def test_my_player_keeps_the_exact_move_count_through_passes_in_its_folder(tmp_path):
    # White passes twice: with Black to move after 4 actions the board holds 2 stones, which the
    # estimate alone takes for 2 actions; the folder's tictacgo_moves.json carries the count.
    game = littlego.LittleGo(5)
    state = game.initial_state()
    for k in range(3):
        previous, current = littlego.previous_board(state), littlego.to_board(state)
        course.write_input(tmp_path / "input.txt", 1, previous, current)
        if k == 2:
            assert state.t == 4 and course.estimate_t(1, previous, current) == 2
        assert my_player(tmp_path, "--agent", "greedy", "--seed", "0") == 0
        assert json.loads((tmp_path / player.MOVES_FILE).read_text())["t"] == state.t == 2 * k
        action, _ = course.judge_move(state, course.parse_output((tmp_path / "output.txt").read_text()))
        state = littlego.play(state, action)
        if k < 2:
            state = littlego.play(state, 25)  # White passes
    # another game in the same folder (its previous board is not the one the answer left): estimated
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    assert my_player(tmp_path, "--agent", "greedy", "--seed", "0") == 0
    assert json.loads((tmp_path / player.MOVES_FILE).read_text())["t"] == 0
    (tmp_path / player.MOVES_FILE).write_text('{"colour": 1, "t": "many"')  # not ours: ignored
    assert my_player(tmp_path, "--agent", "greedy", "--seed", "0") == 0


def test_my_player_takes_its_seed_from_the_environment(tmp_path, monkeypatch):
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    answers = []
    for seed in ("11", "11", "12", "13", "14"):
        monkeypatch.setenv(player.SEED_ENV, seed)
        assert my_player(tmp_path, "--agent", "random") == 0
        answers.append((tmp_path / "output.txt").read_text())
    assert answers[0] == answers[1]
    assert len(set(answers)) > 1


@pytest.mark.parametrize("agent", ["random", "greedy"])
def test_my_player_never_recaptures_the_ko(tmp_path, agent):
    if agent not in registry.available_agents("littlego"):
        pytest.skip(f"agent {agent!r} is not registered")
    course.write_input(tmp_path / "input.txt", 1, KO_PREVIOUS, KO_BOARD)
    seen = set()
    for seed in range(25):
        assert my_player(tmp_path, "--agent", agent, "--seed", str(seed)) == 0
        move = course.parse_output((tmp_path / "output.txt").read_text())
        seen.add(move)
        assert move != KO_POINT
    assert len(seen) > 1 or agent != "random"


NOT_CONNECTED = {
    # The previous board has a White stone that is gone without Black capturing it.
    "stone_vanished": (2, board("O . . . .\n" + ". . . . .\n" * 4),
                       board(". . . . .\n" * 4 + ". . . . X")),
    # Two Black stones appeared at once.
    "two_new_stones": (2, np.zeros((5, 5), dtype=np.int8), board("X X . . .\n" + ". . . . .\n" * 4)),
    # The mover's own stone appeared.
    "own_stone_appeared": (1, np.zeros((5, 5), dtype=np.int8), board("X . . . .\n" + ". . . . .\n" * 4)),
    # A White group without liberties on the board.
    "dead_group_on_board": (1, board("O X . . .\n" + ". . . . .\n" * 4),
                            board("O X . . .\nX . . . .\n" + ". . . . .\n" * 3)),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_my_player_refuses_malformed_input(tmp_path, capsys, name):
    (tmp_path / "input.txt").write_text(BAD_INPUTS[name], newline="")
    (tmp_path / "output.txt").write_text("2,2")  # stale: must not survive
    assert my_player(tmp_path, "--agent", "random") != 0
    assert "input.txt" in capsys.readouterr().err
    assert not (tmp_path / "output.txt").exists()


@pytest.mark.parametrize("name", sorted(NOT_CONNECTED))
def test_my_player_refuses_boards_no_move_connects(tmp_path, capsys, name):
    colour, prev, cur = NOT_CONNECTED[name]
    course.write_input(tmp_path / "input.txt", colour, prev, cur)
    assert my_player(tmp_path, "--agent", "random") != 0
    err = capsys.readouterr().err
    assert "bad input.txt" in err
    assert not (tmp_path / "output.txt").exists()


def test_my_player_refuses_a_missing_input_and_an_unknown_agent(tmp_path, capsys):
    assert my_player(tmp_path, "--agent", "random") != 0
    assert "input.txt" in capsys.readouterr().err
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    assert my_player(tmp_path, "--agent", "no-such-agent") != 0
    assert "no-such-agent" in capsys.readouterr().err
    assert not (tmp_path / "output.txt").exists()


# Positions with the most stones a live game can hold, and one stone too many.
BLACK_13 = board("X X X X X\n" "X X X X X\n" "X X X . .\n" ". . . . .\n" ". . . . .")
BLACK_12_WHITE_12 = board("X X X X X\n" "X X X X X\n" "X X . O O\n" "O O O O O\n" "O O O O O")
BLACK_24 = board("X X X X X\n" "X X X X X\n" "X X . X X\n" "X X X X X\n" "X X X X X")
WHITE_12 = board("O O O O O\n" "O O O O O\n" "O O . . .\n" ". . . . .\n" ". . . . .")
BLACK_12_WHITE_11 = board("X X X X X\n" "X X X X X\n" "X X . . O\n" "O O O O O\n" "O O O O O")
BLACK_11_WHITE_11 = board("X X X X X\n" "X X X X X\n" "X . . . O\n" "O O O O O\n" "O O O O O")


@pytest.mark.parametrize("colour, cur, reason", [
    (2, BLACK_13, "White to move with 13 Black and 0 White stones after a pass means Black has played "
                  "at least 14 actions, so at least 27 actions were played, more than the 24 a whole game "
                  "lasts"),
    (1, BLACK_12_WHITE_12, "Black to move with 12 Black and 12 White stones after a pass means White has "
                           "played at least 13 actions, so at least 26 actions were played"),
    (1, BLACK_24, "at least 48 actions were played"),
    (2, BLACK_24, "Black has played at least 25 actions"),
    (1, WHITE_12, "White has played at least 13 actions"),
    (2, EMPTY, "White to move on an empty board"),
])
def test_my_player_refuses_positions_no_legal_game_reaches(tmp_path, capsys, colour, cur, reason):
    course.write_input(tmp_path / "input.txt", colour, cur, cur)
    (tmp_path / "output.txt").write_text("2,2")  # stale: must not survive
    assert my_player(tmp_path, "--agent", "random") == 1
    err = capsys.readouterr().err
    assert "bad input.txt: no legal game reaches this position" in err and reason in err
    assert not (tmp_path / "output.txt").exists()


def _without(cur: np.ndarray, point: tuple[int, int]) -> np.ndarray:
    prev = cur.copy()
    prev[point] = 0
    return prev


def test_stone_counts_are_checked_against_the_24_action_limit():
    # Without a pass: each stone is one action of its colour.
    with pytest.raises(ValueError, match="White to move with 13 Black and 0 White stones means Black has "
                                         "played at least 13 actions, so at least 25 actions were played"):
        course.state_from_input(2, _without(BLACK_13, (2, 2)), BLACK_13)
    with pytest.raises(ValueError, match="Black to move with 12 Black and 12 White stones means Black has "
                                         "played at least 12 actions, so at least 24 actions were played, "
                                         "and the game ends after 24, so it is over"):
        course.state_from_input(1, _without(BLACK_12_WHITE_12, (2, 3)), BLACK_12_WHITE_12)
    # The fullest live positions: White's 12th action is the game's 24th and last ...
    state = course.state_from_input(2, _without(BLACK_12_WHITE_11, (2, 1)), BLACK_12_WHITE_11)
    assert state.t == 23 and not littlego.is_terminal(state)
    # ... and Black's 12th the 23rd.
    state = course.state_from_input(1, _without(BLACK_11_WHITE_11, (2, 4)), BLACK_11_WHITE_11)
    assert state.t == 22
    # After White's pass, though, that pass was White's 12th action, the 24th: the game is over.
    with pytest.raises(ValueError, match="White has played at least 12 actions, so at least 24"):
        course.state_from_input(1, BLACK_11_WHITE_11, BLACK_11_WHITE_11)


def test_every_position_of_random_games_is_reachable_and_t_is_a_lower_bound():
    rng = np.random.default_rng(7)
    for n in (3, 4, 5):
        for _ in range(60):
            state = littlego.LittleGo(n).initial_state()
            while not littlego.is_terminal(state):
                prev, cur = littlego.previous_board(state), littlego.to_board(state)
                rebuilt = course.state_from_input(state.to_move, prev, cur)
                assert rebuilt.t <= state.t and rebuilt.t % 2 == state.t % 2
                legal = littlego.legal_actions(state)
                state = littlego.play(state, legal[int(rng.integers(len(legal)))])


def test_my_player_refuses_a_dir_that_is_not_a_folder(tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    assert cli.main(["my-player", "--agent", "random", "--dir", str(tmp_path / "afile")]) == 2
    err = capsys.readouterr().err
    assert "is not a folder" in err and "Traceback" not in err
    assert cli.main(["my-player", "--agent", "random", "--dir", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["afile"]


def test_my_player_reports_an_output_txt_that_is_a_folder_and_leaves_it_alone(tmp_path, capsys):
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    (tmp_path / "output.txt").mkdir()
    (tmp_path / "output.txt" / "keep").write_text("mine")
    assert my_player(tmp_path, "--agent", "random") == 1
    err = capsys.readouterr().err
    assert "output.txt is a folder, so the answer cannot be written there" in err and "Traceback" not in err
    assert (tmp_path / "output.txt" / "keep").read_text() == "mine"


@pytest.mark.parametrize("argv, env, message", [
    (["--seed=-1"], None, "--seed must be a non-negative int, got -1"),
    ([], "-5", "$TICTACGO_SEED must be a non-negative integer, got -5"),
    ([], "x", "$TICTACGO_SEED must be a non-negative integer, got 'x'"),
])
def test_my_player_refuses_a_negative_seed_and_leaves_no_output(tmp_path, capsys, monkeypatch, argv, env,
                                                                 message):
    if env is not None:
        monkeypatch.setenv(player.SEED_ENV, env)
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    (tmp_path / "output.txt").write_text("2,2")  # stale: must not survive
    assert my_player(tmp_path, "--agent", "random", *argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "output.txt").exists()


@pytest.mark.parametrize("argv", [
    [],                                                      # --agent is required
    ["--agent", "random", "--time-budget", "soon"],
    ["--agent", "random", "--seed", "x"],
    ["--agent", "random", "--no-such-option"],
])
def test_my_player_argument_errors_leave_no_stale_output(tmp_path, capsys, argv):
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    (tmp_path / "output.txt").write_text("2,2")  # the answer to an earlier position
    with pytest.raises(SystemExit) as exit_info:
        my_player(tmp_path, *argv)
    assert exit_info.value.code == 2
    assert "error" in capsys.readouterr().err
    assert not (tmp_path / "output.txt").exists()


def _read_with_timeout(read, path, seconds=5.0):
    """``read(path)``'s exception (or None), failing the test if it does not return in time."""
    import threading

    box = {}

    def target():
        try:
            read(path)
        except Exception as e:  # noqa: BLE001
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{read.__name__} blocked on {path}"
    return box.get("error")


@pytest.mark.parametrize("read", [course.read_input, course.read_output])
def test_protocol_files_that_are_pipes_or_folders_are_refused_without_blocking(tmp_path, read):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    for name, kind in (("pipe", "not a regular file"), ("folder", "a folder")):
        error = _read_with_timeout(read, tmp_path / name)
        assert isinstance(error, ValueError) and kind in str(error)


def test_protocol_files_larger_than_the_limit_are_refused(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"0" * (course.MAX_FILE_BYTES + 1))
    with pytest.raises(ValueError, match="larger than"):
        course.read_input(big)
    with pytest.raises(ValueError, match="larger than"):
        course.read_output(big)


def test_my_player_as_a_process_exits_nonzero_on_bad_input(tmp_path):
    (tmp_path / "input.txt").write_text("3" + GOOD[1:])
    proc = subprocess.run([sys.executable, "-m", "tictacgo.cli", "my-player", "--agent", "random"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert "colour" in proc.stderr and proc.stdout == ""
    assert not (tmp_path / "output.txt").exists()


class _TimedAgent(Agent):
    """Records the time it was given; spins for ``spin`` CPU seconds if asked."""

    last_time = None

    def __init__(self, game, rng, time=None, spin=False):
        super().__init__(game, rng)
        type(self).last_time = time
        self.spin = spin

    def act(self, state):
        while self.spin:
            pass
        return self.game.legal_actions(state)[0]


@pytest.fixture
def timed_agent(monkeypatch):
    """Registers ``_test_timed`` for one test only (other tests may list the agents)."""
    registry.available_agents()
    monkeypatch.setitem(registry._REGISTRY, "_test_timed",
                        registry.AgentEntry("_test_timed", _TimedAgent, ("littlego",), "test agent"))
    return _TimedAgent


def test_my_player_passes_its_time_budget_to_agents_that_take_one(tmp_path, timed_agent):
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    assert my_player(tmp_path, "--agent", "_test_timed", "--time-budget", "4") == 0
    assert 3 < _TimedAgent.last_time <= 4 - player.SAFETY_MARGIN
    assert my_player(tmp_path, "--agent", "_test_timed:time=1.5") == 0
    assert _TimedAgent.last_time == 1.5
    assert (tmp_path / "output.txt").read_text() == "0,0"


class _SlowBuildAgent(Agent):
    """Spends ``build`` CPU seconds being built; remembers the time it had when asked to move."""

    time_at_move = None

    def __init__(self, game, rng, time=None, build=0.0):
        super().__init__(game, rng)
        self.time_limit = time
        end = _cpu_seconds() + build  # (``time`` is the agent's parameter here, not the module)
        while _cpu_seconds() < end:
            pass

    def act(self, state):
        type(self).time_at_move = self.time_limit
        return self.game.legal_actions(state)[0]


def _cpu_seconds() -> float:
    return time.process_time()


def test_my_player_gives_the_agent_the_time_left_after_its_build(tmp_path, monkeypatch):
    # the budget counts the build: an agent that took 0.6 s of CPU to load searches 0.6 s less
    registry.available_agents()
    monkeypatch.setitem(registry._REGISTRY, "_test_slow_build",
                        registry.AgentEntry("_test_slow_build", _SlowBuildAgent, ("littlego",), "test agent"))
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    assert my_player(tmp_path, "--agent", "_test_slow_build:build=0.6", "--time-budget", "4") == 0
    assert 0.05 <= _SlowBuildAgent.time_at_move <= 4 - player.SAFETY_MARGIN - 0.6
    assert my_player(tmp_path, "--agent", "_test_slow_build:build=0.6,time=3", "--time-budget", "4") == 0
    assert _SlowBuildAgent.time_at_move == 3  # the spec's own time is the user's choice


def test_my_player_warm_up_builds_the_agent_and_writes_no_answer(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["my-player", "--agent", "greedy", "--warm-up", "--seed", "0"]) == 0
    assert "'greedy' is ready" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    assert cli.main(["my-player", "--agent", "no_such_agent", "--warm-up"]) == 2


@pytest.mark.skipif(not hasattr(player.signal, "setitimer"), reason="needs a CPU-time timer")
def test_my_player_falls_back_to_a_legal_move_when_the_agent_overruns(tmp_path, capsys, timed_agent):
    course.write_input(tmp_path / "input.txt", 1, KO_PREVIOUS, KO_BOARD)
    start = time.perf_counter()
    assert my_player(tmp_path, "--agent", "_test_timed:spin=true", "--time-budget", "0.5") == 0
    assert time.perf_counter() - start < 5
    assert "budget" in capsys.readouterr().err
    state = course.state_from_input(1, KO_PREVIOUS, KO_BOARD)
    move = course.parse_output((tmp_path / "output.txt").read_text())
    assert course.judge_move(state, move)[1] is None


# --------------------------------------------------------------------- host

def test_host_plays_a_full_game_between_two_my_player_processes():
    result = host.play_programs(player_command("random"), player_command("random"), seed=7, time_limit=30)
    assert result.forfeit is None
    assert result.end in (littlego.END_MAX_ACTIONS, littlego.END_DOUBLE_PASS)
    # Replaying the moves on the rules core gives the same game.
    state = littlego.LittleGo().initial_state()
    for text in result.moves:
        state = littlego.play(state, course.move_to_action(course.parse_output(text), 5))
    assert littlego.is_terminal(state) and littlego.winner(state) == result.winner
    np.testing.assert_array_equal(littlego.to_board(state), result.final_board)
    assert result.n_actions == len(result.moves) == state.t


def test_host_sends_the_course_input_files(tmp_path):
    log = tmp_path / "inputs.log"
    record = f"cat input.txt >> {shlex.quote(str(log))}; echo '|' >> {shlex.quote(str(log))}"
    black = (f"{record}; if [ -f seen ]; then echo PASS > output.txt; "
             "else touch seen; echo 2,2 > output.txt; fi")
    white = f"{record}; echo PASS > output.txt"
    result = host.play_programs(black, white)
    assert result.moves == ["2,2", "PASS", "PASS"]
    assert result.end == littlego.END_DOUBLE_PASS and result.winner == 2
    empty, one = "00000\n" * 5, "00000\n00000\n00100\n00000\n00000\n"
    inputs = log.read_text().split("|\n")[:-1]
    assert inputs == ["1\n" + empty + empty[:-1],       # Black, first move
                      "2\n" + empty + one[:-1],         # White: previous = before Black's move
                      "1\n" + one + one[:-1]]           # Black: White passed, previous = current


@pytest.mark.parametrize("command, failure", [("echo pass > output.txt", host.MALFORMED),
                                              ("echo Pass > output.txt", host.MALFORMED),
                                              ("echo '2 3' > output.txt", host.MALFORMED),
                                              ("true", host.MISSING),
                                              ("touch output.txt", host.MALFORMED),
                                              ("echo 5,0 > output.txt", "out_of_bounds"),
                                              ("echo -1,2 > output.txt", "out_of_bounds"),
                                              ("mkdir output.txt", host.MALFORMED),
                                              ("mkdir -p output.txt/inside", host.MALFORMED)])
def test_host_forfeits_a_bad_answer(command, failure):
    result = host.play_programs(command, "echo 2,2 > output.txt")
    assert result.forfeit == failure and result.winner == 2 and result.end == littlego.END_ILLEGAL
    result = host.play_programs("echo 2,2 > output.txt", command)
    assert result.forfeit == failure and result.winner == 1


def test_host_clears_whatever_a_player_left_at_input_txt_before_the_next_move():
    vandal = "rm input.txt && mkdir input.txt && echo 2,2 > output.txt"
    result = host.play_programs(vandal, "echo PASS > output.txt")
    # Black's second move arrives through a fresh input.txt; it repeats 2,2 and forfeits.
    assert result.forfeit == "occupied" and result.winner == 2 and result.moves == ["2,2", "PASS", "2,2"]


def test_host_refuses_a_negative_seed(capsys):
    assert cli.main(["host", "true", "true", "--seed=-1"]) == 2
    err = capsys.readouterr().err
    assert "--seed must be a non-negative int, got -1" in err and "Traceback" not in err


def test_host_forfeits_an_occupied_point():
    result = host.play_programs("echo 2,2 > output.txt", "echo ' 2, 2,7' > output.txt")
    assert result.forfeit == "occupied" and result.winner == 1 and result.moves == ["2,2", "2,2"]


def test_host_forfeits_a_player_that_times_out():
    start = time.perf_counter()
    result = host.play_programs("echo 2,2 > output.txt", "sleep 20; echo 1,1 > output.txt", time_limit=0.5)
    assert time.perf_counter() - start < 10
    assert result.forfeit == host.TIMEOUT and result.winner == 1


def test_host_command_swaps_colours_and_tallies(capsys):
    passer, placer = "echo PASS > output.txt", "echo 2,2 > output.txt"
    # Game 1: the passer is Black and passes first: White (placer) wins at once.
    # Game 2: the placer is Black; it repeats 2,2 on its second move and forfeits.
    assert cli.main(["host", passer, placer, "--games", "2", "--time-limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "game 1/2: Black = A, White = B" in out and "game 2/2: Black = B, White = A" in out
    assert "pass_on_empty_start" in out and "occupied" in out
    assert "A (echo PASS > output.txt): 1/2 won (as Black 0/1, as White 1/1)" in out
    assert "B (echo 2,2 > output.txt): 1/2 won (as Black 0/1, as White 1/1)" in out


@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_time_limits_must_be_finite_for_the_host_and_the_player(tmp_path, capsys, value):
    assert cli.main(["host", "true", "true", f"--time-limit={value}"]) == 2
    assert f"--time-limit must be a finite positive number of seconds, got {value}" in capsys.readouterr().err
    course.write_input(tmp_path / "input.txt", 1, EMPTY, EMPTY)
    (tmp_path / "output.txt").write_text("2,2")  # stale: must not survive
    assert my_player(tmp_path, "--agent", "random", f"--time-budget={value}") == 2
    err = capsys.readouterr().err
    assert f"--time-budget must be a finite positive number of seconds, got {value}" in err
    assert "Traceback" not in err and "agent failed" not in err
    assert not (tmp_path / "output.txt").exists()


def test_host_command_refuses_bad_arguments(capsys):
    assert cli.main(["host", "true", "true", "--games", "0"]) == 2
    assert cli.main(["host", "true", "true", "--time-limit", "0"]) == 2
    assert cli.main(["host", "true", "  ", "--games", "1"]) == 2
    assert "error" in capsys.readouterr().err
