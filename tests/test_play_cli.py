"""`tictacgo play`: a person against an agent, end to end in a pseudo-terminal and through a pipe."""

import io
import subprocess
import sys

import pytest

from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt
from tictacgo.play import parse_move, play_session, render

pexpect = pytest.importorskip("pexpect")

PLAY = [sys.executable, "-m", "tictacgo.cli", "play"]


def spawn(*args: str):
    child = pexpect.spawn(PLAY[0], PLAY[1:] + list(args), encoding="utf-8", timeout=30,
                          dimensions=(50, 200))
    return child


def pipe(stdin: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(PLAY + list(args), input=stdin, capture_output=True, text=True, timeout=60)


def test_in_a_terminal_a_person_moves_sees_the_reply_undoes_and_quits():
    child = spawn("littlego", "--agent", "random", "--seed", "0")
    child.expect(r"Your move as Black \(X\): ")
    assert "A B C D E" in child.before and "0 1 2 3 4" in child.before
    child.sendline("C3")
    child.expect(r"random as White \(O\) plays (\S+) \((\d),(\d)\) after \d+\.\d\d s")
    i, j = int(child.match.group(2)), int(child.match.group(3))
    child.expect("Your move as Black")
    rows = [line.split() for line in child.before.replace("\r", "").splitlines()
            if len(line.split()) == 7 and line.split()[-1].isdigit()]
    assert [r[0] for r in rows] == ["5", "4", "3", "2", "1"] and [r[-1] for r in rows] == list("01234")
    assert rows[2][1 + 2] == "X"  # C3 is course 2,2
    assert rows[i][1 + j] == "O"  # the agent's reply, where its i,j says
    child.sendline("2,2")
    child.expect(r"C3 \(2,2\) is illegal: occupied. Try again.")
    child.expect("Your move as Black")
    child.sendline("undo")
    child.expect("Undone: your last move and the reply.")
    child.expect("Your move as Black")
    assert "action 0/24" in child.before
    child.sendline("quit")
    child.expect("You quit; the game is abandoned.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_in_a_terminal_the_result_and_why_end_the_game():
    child = spawn("littlego", "--agent", "greedy", "--seed", "1")
    child.expect("Your move as Black")
    child.sendline("pass")
    child.expect(r"Game over: White \(O\) wins, Black 0 : White 2.5 .*Black passed on the very first action")
    child.expect("The agent wins.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_in_a_terminal_tic_tac_toe_takes_row_col_and_the_agent_moves_first_as_x():
    child = spawn("tictactoe", "--agent", "minimax", "--as", "second", "--seed", "0")
    child.expect(r"minimax as X plays (\d),(\d) \(cell (\d)\) after")
    cell = int(child.match.group(3))
    child.expect("Your move as O: ")
    child.sendline(f"{cell // 3},{cell % 3}")
    child.expect("is illegal: occupied")
    child.sendline("x")
    child.expect("Not a move: 'x' is not a move")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_scripted_game_from_a_pipe_answers_bad_lines_and_plays_to_the_end():
    # Every cell in order: a taken cell is answered and the next line read, so the game finishes.
    proc = pipe("hello\n" + "\n".join(str(c) for c in range(9)) + "\n", "tictactoe", "--agent", "minimax",
                "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Your move as X: hello\nNot a move" in out
    assert "is illegal: occupied" in out
    assert "Game over: " in out and ("three in a row" in out or "the board is full" in out)


def test_a_scripted_little_go_game_takes_course_and_go_coordinates():
    proc = pipe("2,2\nC3\nB4\npass\npass\npass\npass\npass\n" * 3, "littlego", "--agent", "random",
                "--as", "first", "--seed", "5")
    assert proc.returncode == 0, proc.stderr
    assert "Your move as Black (X): 2,2\n" in proc.stdout
    assert "C3 (2,2) is illegal: occupied" in proc.stdout
    assert "Game over:" in proc.stdout and "the game ended because" in proc.stdout


def test_a_pipe_that_ends_before_the_game_exits_1():
    proc = pipe("C3\n", "littlego", "--agent", "random", "--seed", "0")
    assert proc.returncode == 1
    assert "the input ended before the game was over" in proc.stderr


def test_unknown_game_or_agent_exits_2():
    proc = pipe("", "chess", "--agent", "random")
    assert proc.returncode == 2 and proc.stderr.startswith("tictacgo play: error: unknown game 'chess'")
    proc = pipe("", "littlego", "--agent", "nosuchagent")
    assert proc.returncode == 2 and "nosuchagent" in proc.stderr and "error:" in proc.stderr


def test_board_size_plays_little_go_on_that_board_and_tic_tac_toe_refuses_it():
    proc = pipe("B2\nquit\n", "littlego", "--board-size", "3", "--agent", "random", "--seed", "0")
    assert proc.returncode == 0, proc.stderr
    assert "     A B C\n" in proc.stdout and "action 0/8;" in proc.stdout  # 3x3: 8 actions
    assert "Your move as Black (X): B2\n" in proc.stdout
    proc = pipe("", "tictactoe", "--board-size", "4", "--agent", "random")
    assert proc.returncode == 2 and "--board-size 4" in proc.stderr


@pytest.mark.parametrize("text, action", [("2,2", 12), ("C3", 12), ("c3", 12), ("a5", 0), ("4,4", 24),
                                          ("E1", 24), ("pass", 25), ("PASS", 25), ("undo", "undo"),
                                          ("exit", "quit")])
def test_little_go_moves_are_read_in_both_spellings(text, action):
    assert parse_move(go.LittleGo(), text) == action


@pytest.mark.parametrize("text, action", [("1,2", 5), ("0, 0", 0), ("8", 8), ("2 1", 7), ("quit", "quit")])
def test_tic_tac_toe_moves_are_row_col_or_a_cell(text, action):
    assert parse_move(ttt.TicTacToe(), text) == action


@pytest.mark.parametrize("text", ["9", "3,0", "C3", "pass", ""])
def test_tic_tac_toe_refuses_what_is_not_a_cell(text):
    with pytest.raises(ValueError):
        parse_move(ttt.TicTacToe(), text)


class Scripted:
    def __init__(self, actions):
        self.actions = list(actions)
        self.resets = 0

    def act(self, state):
        return self.actions.pop(0)

    def reset(self):
        self.resets += 1


def run_session(game, agent, human, lines):
    feed = iter(lines)

    def read_line(prompt):
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    return play_session(game, agent, "bot", human, read_line, out), out.getvalue()


def test_undo_goes_back_to_the_persons_previous_turn():
    agent = Scripted([0, 1, 2])
    status, out = run_session(ttt.TicTacToe(), agent, ttt.O, ["4", "undo", "5", "undo", "undo", "quit"])
    assert status == 0
    assert out.count("Undone") == 2 and "Nothing to undo" in out
    assert agent.resets == 2


def test_an_agent_that_returns_an_illegal_move_forfeits():
    status, out = run_session(ttt.TicTacToe(), Scripted([4]), ttt.X, ["4"])
    assert status == 0
    assert "bot chose an illegal action 4" in out and "Game over: X wins" in out and "You win." in out


def test_the_go_board_shows_both_coordinate_systems():
    text = render(go.LittleGo(), go.play(go.LittleGo().initial_state(), 0))  # A5 = 0,0, the top-left corner
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDE")
    assert lines[1].split() == ["5", "X", ".", ".", ".", ".", "0"]
    assert lines[6].split() == ["0", "1", "2", "3", "4"]


def test_a_game_whose_rules_have_a_pass_accepts_pass_however_it_writes_its_moves():
    from types import SimpleNamespace

    from tictacgo.play import help_text, move_name

    # a board game written as row,col and cells (not Go vertices) whose rules have a pass, as Othello's
    othello = SimpleNamespace(spec=SimpleNamespace(board_shape=(4, 4)), pass_action=16, writes_vertices=False)
    assert parse_move(othello, "pass") == parse_move(othello, " PASS ") == 16
    assert parse_move(othello, "1,2") == 6 and parse_move(othello, "6") == 6
    assert move_name(othello, 16) == "pass" and "or pass" in help_text(othello)
    with pytest.raises(ValueError, match=r"cell number 0\.\.15, pass, undo or quit"):
        parse_move(othello, "nowhere")
    with pytest.raises(ValueError, match=r"cell number 0\.\.8, undo or quit"):  # Tic-Tac-Toe: no pass
        parse_move(ttt.TicTacToe(), "pass")
