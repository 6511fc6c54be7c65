"""The GTP v2 engine: a scripted session over stdin/stdout, failures as `?` responses, GNU Go."""

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tictacgo.games import littlego as go
from tictacgo.protocol.coords import vertex_to_action
from tictacgo.protocol.gtp import GtpEngine, render_board
from tictacgo.protocol.gtp_match import GtpProcess, play_refereed_game

REQUIRED = ["protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
            "clear_board", "komi", "play", "genmove", "undo", "showboard", "time_settings", "time_left",
            "final_score", "final_status_list", "quit"]


class ScriptedAgent:
    """Plays the given actions in turn; counts resets."""

    def __init__(self, actions):
        self.actions = list(actions)
        self.resets = 0

    def act(self, state):
        return self.actions.pop(0)

    def reset(self):
        self.resets += 1


class TimedAgent(ScriptedAgent):
    """A scripted agent with a time option: records the ``time_limit`` it was asked to keep."""

    def __init__(self, actions, time_limit=None):
        super().__init__(actions)
        self.time_limit = time_limit
        self.limits = []

    def act(self, state):
        self.limits.append(self.time_limit)
        return super().act(state)


class BrokenAgent:
    def act(self, state):
        raise RuntimeError("boom")


def engine(agent=None) -> GtpEngine:
    agent = agent if agent is not None else ScriptedAgent([])
    return GtpEngine(lambda game: agent, log=io.StringIO())


def session(commands: list[str], *args: str) -> tuple[list[str], subprocess.CompletedProcess]:
    proc = subprocess.run([sys.executable, "-m", "tictacgo.cli", "gtp", *args],
                          input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=60)
    responses = [r for r in proc.stdout.split("\n\n") if r.strip()]
    return responses, proc


def test_a_scripted_session_over_stdin_and_stdout():
    responses, proc = session([
        "1 protocol_version", "2 name", "3 version", "known_command genmove", "known_command resign",
        "list_commands", "boardsize 5", "clear_board", "komi 2.5", "play black C3", "play white C3",
        "play black pass", "# a comment line", "", "genmove w", "showboard", "undo", "final_score",
        "quit", "name"], "--agent", "random", "--seed", "0")
    assert proc.returncode == 0, proc.stderr
    assert responses[:5] == ["=1 2", "=2 tictacgo", "=3 0.1.0 (random)", "= true", "= false"]
    assert responses[5].removeprefix("= ").split("\n") == REQUIRED
    assert responses[6:10] == ["=", "=", "=", "="]
    assert responses[10] == "? illegal move: occupied"
    assert responses[11].startswith("? illegal move: it is White's turn; a pass out of turn")
    assert responses[12].startswith("= ")
    reply = vertex_to_action(responses[12][2:], 5)
    expected = go.play(go.play(go.LittleGo().initial_state(), 12), reply)  # Black C3, then the engine's move
    assert responses[13] == "= \n" + render_board(expected)
    assert responses[14:16] == ["=", "= W+1.5"]  # after undo: Black C3 only, 1 : 0 + 2.5
    assert responses[16] == "="
    assert len(responses) == 17, "nothing is answered after quit"


def test_the_genmove_answer_is_played_on_the_engines_board():
    agent = ScriptedAgent([0])
    e = engine(agent)
    assert e.handle("genmove b") == "= A5\n\n"
    assert e.state.black == 1 and e.moves == [0]
    assert e.handle("play w B5") == "=\n\n"
    assert e.moves == [0, 1]


def test_corners_are_read_as_gtp_vertices():
    e = engine()
    for vertex, action in (("A5", 0), ("E5", 4), ("A1", 20), ("E1", 24)):
        e.handle("clear_board")
        assert e.handle(f"play b {vertex}") == "=\n\n"
        assert e.moves == [action]


def test_illegal_moves_are_failures_and_leave_the_position():
    e = engine()
    for v in ("C1", "D1", "B2", "A2", "A1", "B1"):  # White's B1 captures A1
        assert e.handle(f"play {'b' if len(e.moves) % 2 == 0 else 'w'} {v}") == "=\n\n"
    before = e.state
    assert e.handle("play b A1") == "? illegal move: ko\n\n"
    assert e.state == before


def test_black_passing_first_ends_the_game_and_later_moves_fail():
    e = engine(ScriptedAgent([12]))
    assert e.handle("play b pass") == "=\n\n"
    assert e.handle("final_score") == "= W+2.5\n\n"
    assert e.handle("play w C3").startswith("? illegal move: the game is over (pass_on_empty_start)")
    assert e.handle("genmove w").startswith("? illegal move: the game is over")


def test_malformed_commands_fail_without_killing_the_engine():
    e = engine(BrokenAgent())
    answers = {
        "frobnicate": "? unknown command",
        "7 frobnicate": "?7 unknown command",
        "play": "? syntax error: play takes a color and a vertex",
        "play purple C3": "? invalid color 'purple'",
        "play b Z9": "? syntax error: 'Z9' is off the 5x5 board",
        "play b resign": "? illegal move: resign",
        "boardsize 1": "? unacceptable size: 1",
        "boardsize x": "? syntax error",
        "komi lots": "? syntax error: komi 'lots' is not a number",
        "komi nan": "? syntax error: komi must be finite",
        "undo": "? cannot undo",
        "known_command": "? syntax error",
        "genmove b": "? the agent failed: RuntimeError: boom",
    }
    for command, expected in answers.items():
        assert e.handle(command).startswith(expected), command
    assert e.handle("name") == "= tictacgo\n\n"
    assert e.moves == []


def test_an_agent_returning_an_illegal_action_is_a_failure():
    e = engine(ScriptedAgent([12, 12]))
    assert e.handle("genmove b") == "= C3\n\n"
    e.handle("play w pass")
    assert e.handle("genmove b").startswith("? the agent chose an illegal action 12")
    assert e.moves == [12, 25]


def test_komi_rescores_and_boardsize_clears_the_board():
    e = engine()
    e.handle("play b C3")
    assert e.handle("final_score") == "= W+1.5\n\n"
    assert e.handle("komi 0.5") == "=\n\n"
    assert e.moves == [12] and e.handle("final_score") == "= B+0.5\n\n"
    assert e.handle("boardsize 9") == "=\n\n"
    assert e.moves == [] and e.state.game.size == 9 and e.state.game.komi == 0.5
    assert e.handle("play b J9") == "=\n\n" and e.moves == [8]


def test_boardsize_and_komi_give_the_agent_the_game_being_played():
    from tictacgo.baselines import make_agent

    e = GtpEngine(lambda game: make_agent("random", game), log=io.StringIO())
    assert e.agent.game == go.LittleGo(5)
    e.handle("komi 0.5")
    assert e.agent.game == go.LittleGo(5, 0.5) == e.state.game
    first = e.agent
    e.handle("clear_board")
    assert e.agent is first  # the same game: the same agent, reset
    e.handle("boardsize 7")
    assert e.agent.game == go.LittleGo(7, 0.5) == e.state.game
    assert e.handle("genmove b").startswith("= ")


def test_a_size_the_agent_cannot_play_is_an_unacceptable_size_and_the_game_goes_on():
    from tictacgo.baselines import make_agent

    log = io.StringIO()
    eng = GtpEngine(lambda game: make_agent("ppo", game), log=log)  # the shipped 5x5 model
    eng.handle("play b C3")
    for size in ("19", "4"):
        response = eng.handle(f"boardsize {size}")
        assert response.startswith("? unacceptable size"), response
        assert "5x5" in response or "(6, 5, 5)" in response
    assert "Traceback" not in log.getvalue()
    assert eng.size == 5 and eng.moves == [vertex_to_action("C3", 5)]  # a refused boardsize changes nothing
    assert eng.handle("genmove w").startswith("= ")
    assert eng.handle("boardsize 5") == "=\n\n" and eng.moves == []


def test_a_komi_the_agent_cannot_play_fails_and_the_game_keeps_its_komi():
    def default_komi_only(game):
        if game.komi != game.size / 2:
            raise ValueError(f"the model was trained with komi {game.size / 2:g}")
        return ScriptedAgent([])

    e = GtpEngine(default_komi_only, log=io.StringIO())
    e.handle("play b C3")
    response = e.handle("komi 0.5")
    assert response.startswith("? komi 0.5 is refused") and "trained with komi 2.5" in response
    assert e.state.game.komi == 2.5 and e.handle("final_score") == "= W+1.5\n\n"


def test_undo_and_clear_board_reset_the_agent():
    agent = ScriptedAgent([])
    e = engine(agent)
    e.handle("play b C3")
    e.handle("undo")
    e.handle("clear_board")
    assert agent.resets == 2 and e.moves == []


def test_the_engine_serves_until_quit():
    e = engine()
    out = io.StringIO()
    e.serve(io.StringIO("name\nquit\nname\n"), out)
    assert out.getvalue() == "= tictacgo\n\n=\n\n"


def test_a_bad_agent_spec_exits_2_before_serving():
    _, proc = session(["name"], "--agent", "nosuchagent")
    assert proc.returncode == 2 and "nosuchagent" in proc.stderr and proc.stdout == ""


def find_gnugo():
    return shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


def engine_command(spec: str, seed: int) -> list[str]:
    return [sys.executable, "-m", "tictacgo.cli", "gtp", "--agent", spec, "--seed", str(seed)]


def test_two_of_our_engines_play_a_refereed_game():
    with GtpProcess(engine_command("random", 1), "a") as a, GtpProcess(engine_command("greedy", 2), "b") as b:
        game = play_refereed_game(a, b)
    state = go.LittleGo().initial_state()
    for m in game.moves:
        state = go.play(state, m)
    assert state.end == game.reason and go.winner(state) == game.winner
    assert game.scores == go.scores(state)


@pytest.mark.skipif(find_gnugo() is None, reason="GNU Go is not installed (Debian package gnugo)")
def test_a_game_against_gnu_go_through_gtp_is_refereed_by_our_rules():
    gnugo = [find_gnugo(), "--mode", "gtp", "--chinese-rules", "--never-resign", "--level", "1"]
    with GtpProcess(gnugo, "gnugo") as gnu, GtpProcess(engine_command("random", 0), "random") as ours:
        game = play_refereed_game(ours, gnu)
    # GNU Go forbids suicide and retakes no simple ko, as Little-Go: no forfeit, no disagreement.
    assert game.reason in (go.END_MAX_ACTIONS, go.END_DOUBLE_PASS), game
    state = go.LittleGo().initial_state()
    for m in game.moves:
        state = go.play(state, m)
    assert state.end == game.reason and go.winner(state) == game.winner in (go.BLACK, go.WHITE)


@pytest.mark.skipif(find_gnugo() is None, reason="GNU Go is not installed (Debian package gnugo)")
def test_the_gnu_go_match_script_prints_a_table_of_refereed_games():
    script = Path(__file__).resolve().parents[1] / "scripts" / "gtp_vs_gnugo.py"
    proc = subprocess.run([sys.executable, str(script), "--agents", "random", "--games", "2", "--level", "1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("| random |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    games, wins, losses, other, wins_black, wins_white = map(int, cells[1:7])
    assert games == 2 and wins + losses + other == 2 and wins_black + wins_white == wins


def test_a_gui_session_in_the_order_gogui_and_sabaki_send_it():
    responses, proc = session([
        "protocol_version", "name", "version", "list_commands", "boardsize 5", "clear_board", "komi 2.5",
        "time_settings 60 0 0", "play b C3", "genmove w", "time_left w 55 0", "play b C2", "genmove w",
        "final_score", "final_status_list alive", "final_status_list dead", "final_status_list seki",
        "quit"], "--agent", "mcts:sims=50", "--seed", "0")
    assert proc.returncode == 0, proc.stderr
    assert responses[0] == "= 2" and responses[1] == "= tictacgo"
    assert responses[2].startswith("= 0.1.0")
    listed = responses[3].removeprefix("= ").split("\n")
    for command in ("time_settings", "time_left", "final_status_list"):
        assert command in listed
    assert responses[4:9] == ["="] * 5
    assert responses[9].startswith("= ") and responses[10:12] == ["=", "="]
    assert responses[12].startswith("= ")
    white = [vertex_to_action(r[2:], 5) for r in (responses[9], responses[12])]
    state = go.LittleGo().initial_state()
    for a in (12, white[0], 17, white[1]):
        state = go.play(state, a)
    b, w = go.scores(state)
    assert responses[13] == f"= {'B' if b > w else 'W'}+{abs(b - w):g}"
    alive = responses[14].removeprefix("= ").split()
    assert sorted(vertex_to_action(v, 5) for v in alive) == sorted(
        p for p in range(25) if (state.black | state.white) >> p & 1)
    assert responses[15:18] == ["=", "=", "="]
    assert "budget" in proc.stderr  # mcts has a time option: its moves followed the clock


def test_setup_stones_of_one_colour_in_a_row_are_accepted_and_undone_together():
    e = engine()
    assert e.handle("play b C3") == "=\n\n"
    assert e.handle("play b D4") == "=\n\n"  # Sabaki sends an edited position as plays
    assert e.moves == [12, 25, 8] and e.state.t == 3 and e.state.to_move == go.WHITE
    assert go.to_board(e.state)[2, 2] == go.to_board(e.state)[1, 3] == go.BLACK
    assert e.handle("play w B2") == "=\n\n"
    assert e.handle("undo") == "=\n\n" and e.moves == [12, 25, 8]
    assert e.handle("undo") == "=\n\n" and e.moves == [12] and e.state.t == 1


def test_a_white_setup_stone_first_does_not_end_the_game():
    e = engine()
    assert e.handle("play w C3") == "=\n\n"  # a Black pass on action 1 would end the game
    assert e.state.end is None and e.state.to_move == go.BLACK and e.state.t == 2
    assert e.handle("play w D4") == "=\n\n"  # after a skip, a second one: no double-pass end either
    assert e.state.end is None and go.scores(e.state) == (0.0, 4.5)
    assert e.handle("komi 0.5") == "=\n\n" and e.state.end is None and e.moves == [25, 12, 25, 8]


def test_a_setup_stone_with_no_action_left_fails_and_an_out_of_turn_pass_fails():
    e = GtpEngine(lambda game: ScriptedAgent([]), log=io.StringIO())
    e.handle("boardsize 2")  # three actions in all
    assert e.handle("play b A1") == "=\n\n" and e.handle("play w B2") == "=\n\n"
    before = e.state
    assert e.handle("play w A2").startswith("? illegal move: no action is left for White")
    assert e.handle("play w pass").startswith("? illegal move: it is Black's turn")
    assert e.state == before


def test_final_status_list_names_every_stone_alive_one_group_a_line():
    e = engine()
    for v in ("A5", "E1", "B5", "D1", "C3"):
        e.handle(f"play {'b' if len(e.moves) % 2 == 0 else 'w'} {v}")
    groups = e.handle("final_status_list alive").removeprefix("= ").strip().split("\n")
    assert sorted(sorted(g.split()) for g in groups) == [["A5", "B5"], ["C3"], ["D1", "E1"]]
    assert e.handle("final_status_list dead") == "=\n\n"
    assert e.handle("final_status_list seki") == "=\n\n"
    assert e.handle("final_status_list").startswith("? syntax error")
    assert e.handle("final_status_list dying").startswith("? syntax error")


def test_under_a_clock_an_agent_with_a_time_option_gets_its_share_of_the_time_left():
    agent = TimedAgent([12, 13, 14], time_limit=None)
    e = engine(agent)
    assert e.handle("time_settings 120 0 0") == "=\n\n"
    e.handle("genmove b")  # 12 Black actions to go: 120 s / 12, less the safety share and latency
    assert agent.limits[-1] == pytest.approx(10 * 0.9 - 0.05)
    assert agent.time_limit is None  # its own setting is back after the move
    e.handle("play w A1")
    assert e.handle("time_left b 11 0") == "=\n\n"
    e.handle("genmove b")  # 11 actions to go
    assert agent.limits[-1] == pytest.approx(0.9 - 0.05)
    e.handle("play w A2")
    e.handle("time_left b 6 3")  # byo-yomi: 6 s for 3 stones
    e.handle("genmove b")
    assert agent.limits[-1] == pytest.approx(2 * 0.9 - 0.05)


def test_the_clock_never_raises_an_agents_own_time_limit_and_no_limit_leaves_it():
    agent = TimedAgent([12, 13], time_limit=0.5)
    e = engine(agent)
    e.handle("time_settings 600 0 0")
    e.handle("genmove b")
    assert agent.limits == [0.5]
    e.handle("time_settings 0 1 0")  # byo-yomi time without stones: no time limit, as GTP says
    e.handle("play w A1")
    e.handle("genmove b")
    assert agent.limits == [0.5, 0.5] and agent.time_limit == 0.5


def test_the_engine_counts_its_own_thinking_off_its_clock():
    from tictacgo.protocol.gtp_clock import GtpClock

    clock = GtpClock()
    clock.settings(10, 5, 2)
    clock.spend(1, 4.0)
    assert clock.clocks[1].seconds == 6.0 and clock.clocks[1].stones == 0
    clock.spend(1, 7.0)  # main time is over: the first byo-yomi period starts
    assert (clock.clocks[1].seconds, clock.clocks[1].stones) == (5.0, 2)
    clock.spend(1, 1.0)
    clock.spend(1, 1.0)  # two stones in the period: a new period
    assert (clock.clocks[1].seconds, clock.clocks[1].stones) == (5.0, 2)
    assert clock.budget(2, 12) == pytest.approx((10 / 12 + 5 / 2) * 0.9 - 0.05)
    clock.settings(0, 0, 0)
    assert clock.budget(1, 12) is None


def test_bad_time_commands_are_syntax_errors():
    e = engine()
    for command in ("time_settings 60 0", "time_settings -1 0 0", "time_settings 1.5 0 0",
                    "time_left b", "time_left purple 10 0", "time_left b nan 0", "time_left b -3 0",
                    "time_left b 10 x"):
        response = e.handle(command)
        assert response.startswith("? "), (command, response)
    assert e.clock.budget(1, 12) is None


def test_numbers_in_other_scripts_superscripts_and_very_long_numbers_are_syntax_errors():
    log = io.StringIO()
    e = GtpEngine(lambda game: ScriptedAgent([]), log=log)
    for command in ("boardsize ²", "boardsize ٧", "boardsize " + "7" * 5000, "time_settings ¹ 0 0",
                    "time_settings 60 ² 0", "time_settings " + "9" * 5000 + " 0 0", "time_left b 10 ³",
                    "time_left b ١٠ 0", "time_left b " + "1" * 5000 + " 0", "komi ٢.٥", "komi 1_0",
                    "komi " + "5" * 5000, "komi 1e999", "komi -inf", "play b C" + "3" * 5000, "play b C³"):
        response = e.handle(command)
        assert response.startswith("? syntax error"), (command[:40], response)
        assert len(response) < 300, "a long argument is cut in the answer"
    assert "Traceback" not in log.getvalue()
    assert e.size == 5 and e.komi is None and e.clock.budget(1, 12) is None


def test_gtp_numbers_are_ascii_whole_and_real_numbers():
    e = engine()
    assert e.handle("boardsize 07") == "=\n\n" and e.size == 7
    assert e.handle("komi -0.5") == "=\n\n" and e.komi == -0.5
    assert e.handle("komi 2e0") == "=\n\n" and e.komi == 2.0
    assert e.handle("time_left b 9.5 0") == "=\n\n"
    assert e.handle("12 name") == "=12 tictacgo\n\n"
    assert e.handle("²12 name") == "? unknown command\n\n"  # an id is ASCII digits too


def test_a_line_over_the_cap_is_refused_and_the_engine_goes_on():
    from tictacgo.protocol.gtp import MAX_LINE

    e = engine()
    out = io.StringIO()
    e.serve(io.StringIO("name " + "x" * (3 * MAX_LINE) + "\nname\n" + "y" * MAX_LINE + "\nquit\n"), out)
    answers = out.getvalue().split("\n\n")
    assert answers[0] == f"? syntax error: a command line is longer than {MAX_LINE} characters"
    assert answers[1:] == ["= tictacgo", "? unknown command", "=", ""]  # a line of exactly MAX_LINE is read


class EndlessLine:
    """A stream of one line that never ends (``/dev/zero``): records the largest read asked of it."""

    def __init__(self, chars: int):
        self.left = chars
        self.largest = 0

    def readline(self, size=-1):
        assert size > 0, "an unbounded read of an endless line"
        self.largest = max(self.largest, size)
        n = min(size, self.left)
        self.left -= n
        return "\0" * n


def test_an_endless_line_is_read_in_bounded_chunks_and_answered_once():
    from tictacgo.protocol.gtp import MAX_LINE, read_lines

    stream = EndlessLine(50 * MAX_LINE + 17)
    assert list(read_lines(stream)) == [None]
    assert stream.left == 0 and stream.largest == MAX_LINE + 1


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the memory use from /proc")
def test_256_mib_without_a_newline_keep_the_engines_memory_small():
    proc = subprocess.Popen([sys.executable, "-m", "tictacgo.cli", "gtp", "--agent", "random"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        chunk = b"\0" * (1 << 20)
        for _ in range(256):  # a write blocks until the engine has read most of the one before
            proc.stdin.write(chunk)
        proc.stdin.flush()
        rss = _rss_kib(proc.pid)
        out, err = proc.communicate(b"\nname\n", timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert rss < 128 * 1024, f"{rss} KiB held after reading 256 MiB without a newline"
    assert proc.returncode == 0, err
    assert out.decode().split("\n\n")[:2] == [
        "? syntax error: a command line is longer than 4096 characters", "= tictacgo"]
    assert b"Traceback" not in err


def test_bytes_that_are_not_utf8_are_a_syntax_error_not_a_crash():
    proc = subprocess.run([sys.executable, "-m", "tictacgo.cli", "gtp", "--agent", "random"],
                          input=b"play b \xff\xfe\nname\n", capture_output=True, timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert proc.stdout.decode().split("\n\n")[:2] == [
        "? syntax error: '\ufffd\ufffd' is not a vertex; expected a column letter and a row number "
        "such as C3, or pass", "= tictacgo"]


def test_the_starting_board_size_and_komi_are_options():
    responses, proc = session(["showboard", "final_score"], "--agent", "random", "--board-size", "7",
                              "--komi", "0.5")
    assert proc.returncode == 0, proc.stderr
    assert "action 0/48" in responses[0] and responses[1] == "= W+0.5"


@pytest.mark.parametrize("args,expected", [
    (("--board-size", "1"), "board size must be an int in [2, 19], got 1"),
    (("--board-size", "20"), "board size must be an int in [2, 19], got 20"),
    (("--komi", "nan"), "komi must be a finite number"),
    (("--komi", "inf"), "komi must be a finite number"),
])
def test_a_starting_size_or_komi_out_of_range_exits_2_in_one_line(args, expected):
    _, proc = session(["name"], "--agent", "random", *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("tictacgo gtp: ") and expected in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_a_starting_size_the_agent_cannot_play_exits_2_in_one_line():
    _, proc = session(["name"], "--agent", "ppo", "--board-size", "7")  # the shipped 5x5 model
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("tictacgo gtp: ") and proc.stderr.count("\n") == 1


def test_boardsize_beyond_the_solvers_boards_is_an_unacceptable_size_and_the_game_goes_on():
    pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")
    from tictacgo.baselines import make_agent

    log = io.StringIO()
    e = GtpEngine(lambda game: make_agent("solver:fallback=random", game), log=log)
    e.handle("play b C3")
    response = e.handle("boardsize 9")
    assert response.startswith("? unacceptable size: 9; the agent cannot play it: ")
    assert response.endswith("the solver handles boards up to 7x7, got 9x9\n\n")
    assert e.size == 5 and e.moves == [12] and e.agent.game == go.LittleGo(5)
    assert e.handle("genmove w").startswith("= ")
    assert e.handle("boardsize 7") == "=\n\n" and e.agent.game == go.LittleGo(7)
    assert "Traceback" not in log.getvalue()


def test_a_trained_model_refuses_another_board_size_or_komi_and_the_game_goes_on():
    from tictacgo.baselines import make_agent

    log = io.StringIO()
    e = GtpEngine(lambda game: make_agent("az:sims=0", game), log=log)
    e.handle("play b C3")
    for command in ("boardsize 7", "komi 7.5"):
        response = e.handle(command)
        assert response.startswith("? "), command
        assert "plays littlego 5x5, komi 2.5" in response
    assert response.startswith("? komi 7.5 is refused")
    assert e.size == 5 and e.moves == [12] and e.agent.game == go.LittleGo(5)
    assert e.handle("genmove w").startswith("= ")
    assert "Traceback" not in log.getvalue()
