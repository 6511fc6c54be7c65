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
            "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score", "quit"]


class ScriptedAgent:
    """Plays the given actions in turn; counts resets."""

    def __init__(self, actions):
        self.actions = list(actions)
        self.resets = 0

    def act(self, state):
        return self.actions.pop(0)

    def reset(self):
        self.resets += 1


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
        "play black D4", "# a comment line", "", "genmove w", "showboard", "undo", "final_score",
        "quit", "name"], "--agent", "random", "--seed", "0")
    assert proc.returncode == 0, proc.stderr
    assert responses[:5] == ["=1 2", "=2 tictacgo", "=3 0.1.0 (random)", "= true", "= false"]
    assert responses[5].removeprefix("= ").split("\n") == REQUIRED
    assert responses[6:10] == ["=", "=", "=", "="]
    assert responses[10] == "? illegal move: occupied"
    assert responses[11].startswith("? illegal move: it is White's turn")
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
