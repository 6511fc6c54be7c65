"""The arena: single games, matches, round robins, results files and the CLI."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from tictacgo import arena, atomic
from tictacgo.agent import FunctionAgent
from tictacgo.arena.round_robin import pair_seed
from tictacgo.baselines import registry
from tictacgo.baselines.random_agent import RandomAgent
from tictacgo.cli import main
from tictacgo.games import littlego, tictactoe
from tictacgo.protocol import grading

TTT = tictactoe.TicTacToe()
GO = littlego.LittleGo()


def _summary(result: arena.MatchResult) -> list[tuple]:
    """What must not depend on the worker count (times do)."""
    return [(g.index, g.a_first, g.record.moves, g.record.winner, g.record.reason) for g in result.games]


# --------------------------------------------------------------------------- play_game


def test_played_moves_are_legal_and_replay_to_the_recorded_result():
    rng = np.random.default_rng(5)
    for _ in range(3):
        record = arena.play_game(GO, RandomAgent(GO), RandomAgent(GO), rng=rng)
        state = GO.initial_state()
        for a in record.moves:
            assert a in littlego.legal_actions(state)
            state = littlego.play(state, a)
        assert littlego.is_terminal(state)
        assert record.winner == littlego.winner(state)
        assert record.reason == state.end
        assert record.illegal_by == 0
        # Each agent timed once per move it made.
        assert len(record.times[0]) + len(record.times[1]) == len(record.moves)


def test_play_game_with_the_same_rng_seed_is_reproducible():
    def one(seed):
        return arena.play_game("littlego", RandomAgent(GO), RandomAgent(GO), rng=np.random.default_rng(seed))

    a, b, c = one(11), one(11), one(12)
    assert a.moves == b.moves and a.winner == b.winner
    assert a.moves != c.moves


def test_illegal_action_forfeits_the_game():
    always_centre = FunctionAgent(TTT, lambda s: 4)
    record = arena.play_game(TTT, always_centre, RandomAgent(TTT, np.random.default_rng(0)))
    # X takes the centre, O moves, X tries the centre again.
    assert record.moves[0] == 4 and len(record.moves) == 2
    assert record.reason == "illegal" and record.illegal_by == 1 and record.illegal_action == 4
    assert record.winner == 2
    assert "taken" in record.illegal_detail


def test_play_game_takes_callables_and_refuses_a_spec_with_a_pointer_to_make_agent():
    first_legal = arena.play_game(TTT, lambda s: TTT.legal_actions(s)[0], lambda s: TTT.legal_actions(s)[0])
    assert first_legal.moves == list(range(7)) and first_legal.winner == 1  # X completes the diagonal 2-4-6
    with pytest.raises(TypeError, match=r"'random' is an agent spec.*make_agent\(spec, game\)"):
        arena.play_game(TTT, "random", RandomAgent(TTT))


def test_action_that_is_not_an_int_forfeits_the_game():
    record = arena.play_game(TTT, RandomAgent(TTT), FunctionAgent(TTT, lambda s: "e4"))
    assert record.reason == "illegal" and record.illegal_by == 2 and record.winner == 1
    assert record.illegal_action == "'e4'"


@pytest.mark.parametrize("colour", [1, 2])
def test_play_wdl_counts_from_the_agents_view_and_minimax_never_loses(colour):
    def run(seed):
        mm_rng, rand_rng = np.random.default_rng(seed).spawn(2)
        minimax = registry.make_agent("minimax", TTT, rng=mm_rng)
        return arena.play_wdl(TTT, minimax, RandomAgent(TTT, rand_rng), 20, colour=colour)

    w, d, lo = run(5)
    assert w + d + lo == 20 and lo == 0 and w > 0
    assert run(5) == (w, d, lo)  # the agents' own generators make the run reproducible
    always_centre = FunctionAgent(TTT, lambda s: 4)
    # Forfeits lose.
    assert arena.play_wdl("tictactoe", always_centre, RandomAgent(TTT), 3, colour=1) == (0, 0, 3)


def test_play_wdl_rejects_a_colour_other_than_1_or_2():
    with pytest.raises(ValueError, match="colour"):
        arena.play_wdl(TTT, RandomAgent(TTT), RandomAgent(TTT), 1, colour=0)


# --------------------------------------------------------------------------- run_match


def test_same_seed_gives_the_same_match_with_one_or_two_workers():
    one = arena.run_match("tictactoe", "random", "random", games=12, seed=7, workers=1, progress=False)
    two = arena.run_match("tictactoe", "random", "random", games=12, seed=7, workers=2, progress=False)
    other = arena.run_match("tictactoe", "random", "random", games=12, seed=8, workers=1, progress=False)
    assert _summary(one) == _summary(two)
    assert _summary(one) != _summary(other)
    assert one.n == 12 and not one.interrupted


def test_colours_alternate_with_a_first_in_even_games():
    m = arena.run_match("tictactoe", "random", "minimax", games=6, seed=1, workers=1, progress=False)
    assert [g.a_first for g in m.games] == [True, False] * 3
    for colour in (1, 2):
        assert sum(m.wdl(colour)) == 3
    assert tuple(np.add(m.wdl(1), m.wdl(2))) == m.wdl()


def test_minimax_never_loses_to_random_at_tictactoe():
    m = arena.run_match("tictactoe", "minimax", "random", games=10, seed=3, workers=1, progress=False)
    w, _d, lo = m.wdl()
    assert lo == 0 and w > 0
    assert m.forfeits("a") == m.forfeits("b") == 0
    low, high, _ = m.score_ci()
    assert 0 <= low <= m.score <= high <= 1
    assert "X (first)" in m.table() and "95% CI" in m.table()


@pytest.mark.parametrize("wdl", [(0, 0, 10), (10, 0, 0), (3, 0, 7), (0, 10, 0), (4, 3, 3), (1, 0, 0),
                                 (0, 1, 0), (0, 0, 0), (50, 1, 0), (0, 2, 40)])
def test_score_interval_contains_the_score_and_stays_in_0_1(wdl):
    w, d, lo = wdl
    low, high, method = arena.score_interval(w, d, lo)
    n = w + d + lo
    assert 0 <= low <= high <= 1
    if n:
        assert low <= (w + d / 2) / n <= high
        assert method == "wilson"


def test_all_draws_get_the_wilson_interval_of_half_the_games_not_a_zero_width_one():
    low, high, method = arena.score_interval(0, 100, 0)
    assert (low, high) == pytest.approx(arena.wilson_interval(50, 100)) and method == "wilson"
    assert low < 0.41 and high > 0.59  # not [0.500, 0.500]
    assert arena.score_interval(30, 40, 30)[:2] == pytest.approx(arena.wilson_interval(50, 100))


def test_a_tictactoe_match_of_draws_prints_a_real_interval():
    m = arena.run_match("tictactoe", "minimax", "minimax", games=20, seed=0, workers=1, progress=False)
    assert m.wdl() == (0, 20, 0)
    assert "95% CI [0.500, 0.500]" not in m.table()
    assert "Wilson interval, a draw counted as half a win" in m.table()


def test_score_interval_narrows_with_more_games():
    small = arena.score_interval(6, 2, 2)
    large = arena.score_interval(600, 200, 200)
    assert large[1] - large[0] < small[1] - small[0]


def test_match_json_round_trips_and_keeps_every_game():
    m = arena.run_match("tictactoe", "random", "random", games=4, seed=2, workers=1, progress=False)
    data = json.loads(json.dumps(m.to_json()))
    assert len(data["games"]) == 4 and all(g["moves"] for g in data["games"])
    back = arena.MatchResult.from_json(data)
    assert _summary(back) == _summary(m)


def test_ctrl_c_keeps_the_games_already_played(monkeypatch):
    class StopsInTheFourthGame(RandomAgent):
        started = 0

        def reset(self):
            self.started += 1
            if self.started == 4:
                raise KeyboardInterrupt

    registry._load_builtins()
    monkeypatch.setitem(registry._REGISTRY, "interrupting",
                        registry.AgentEntry("interrupting", StopsInTheFourthGame, ("tictactoe",), "test"))
    m = arena.run_match("tictactoe", "interrupting", "random", games=10, seed=0, workers=1, progress=False)
    assert m.interrupted and m.n == 3
    assert [g.index for g in m.games] == [0, 1, 2]
    assert "INTERRUPTED" in m.table()


def test_unknown_agent_or_parameter_raises_value_error():
    with pytest.raises(ValueError, match="unknown agent"):
        arena.run_match("tictactoe", "random", "no_such_agent", games=2, seed=0, progress=False)
    with pytest.raises(ValueError, match="no parameter"):
        arena.run_match("tictactoe", "random:bogus=1", "random", games=2, seed=0, progress=False)
    with pytest.raises(ValueError, match="games"):
        arena.run_match("tictactoe", "random", "random", games=0, seed=0, progress=False)


# --------------------------------------------------------------------------- round robin, course


def test_round_robin_cross_table_is_complementary_and_rates_minimax_first():
    rr = arena.run_round_robin("tictactoe", ["random", "minimax", "random"], games_per_pair=6, seed=4,
                               workers=1, progress=False)
    cross = rr.cross_table()
    assert np.isnan(np.diag(cross)).all()
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose((cross + cross.T)[off], 1.0)
    assert rr.ratings.order()[0] == 1
    assert rr.labels == ["random", "minimax", "random#2"]
    assert np.isfinite(rr.ratings.elo).all() and np.isfinite(rr.ratings.se).all()
    # A pair replays on its own from its derived seed.
    alone = arena.run_match("tictactoe", "random", "minimax", 6, pair_seed(4, 0, 1), workers=1,
                            progress=False)
    assert _summary(alone) == _summary(rr.matches[(0, 1)])
    json.dumps(rr.to_json())


LONG = "mcts:sims=5,c=1.4,rollout=random"  # longer than any default column


def _columns_end_together(lines):
    """Right-aligned columns: every line of a table block has the same length."""
    assert len({len(line) for line in lines}) == 1, "\n".join(lines)


def test_a_match_table_keeps_its_columns_with_a_long_spec():
    m = arena.run_match("tictactoe", LONG, "random", games=2, seed=0, workers=1, progress=False)
    lines = m.table().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("time per move"))
    _columns_end_together(lines[start:start + 3])
    assert lines[start + 1].startswith(f"A {LONG} ")


def test_a_round_robin_with_long_specs_numbers_its_columns_and_keeps_them():
    rr = arena.run_round_robin("tictactoe", ["random", LONG], games_per_pair=2, seed=0, workers=1,
                               progress=False)
    lines = rr.table().splitlines()
    start = lines.index("score of row vs column")
    block = lines[start + 1:start + 4]
    _columns_end_together(block)
    assert block[0].split() == ["#1", "#2", "total"]
    assert block[1].startswith("#1 random") and block[2].startswith(f"#2 {LONG}")
    assert len(block[0]) < 2 * len(LONG) + 30  # the columns stay narrow
    _columns_end_together(lines[-2:])  # the ratings' rows


def test_course_points_reproduce_the_assignment_example():
    pts = [grading.course_points("random", 18 / 20), grading.course_points("greedy", 16 / 20),
           grading.course_points("aggressive", 14 / 20), grading.course_points("alphabeta", 11 / 20)]
    assert pts == pytest.approx([25, 12, 14, 2.75])
    assert sum(pts) == pytest.approx(53.75)
    assert grading.course_points("random", 0.65) == 0
    assert grading.course_points("aggressive", 0.5) == pytest.approx(5)
    for stage, points in ((1, 90), (2, 10)):
        assert sum(grading.COURSE_RUBRIC[o][0] for o in grading.STAGES[stage]) == points
    # The second stage's rubric: 5 points from 90%, 5 x winRate from 70%, below that
    # 0 against Q-learning and 2 x winRate against the championship player.
    assert grading.course_points("qlearning", 0.9) == 5
    assert grading.course_points("qlearning", 0.8) == pytest.approx(4)
    assert grading.course_points("qlearning", 0.65) == 0
    assert grading.course_points("championship", 0.5) == pytest.approx(1)


# --------------------------------------------------------------------------- files


def test_write_json_atomic_keeps_the_old_file_when_a_write_fails(tmp_path, monkeypatch):
    path = tmp_path / "results.json"
    arena.write_json_atomic(path, {"old": True})
    before = path.read_text()

    def broken_dump(obj, f, **kw):
        f.write('{"new": [1, 2')  # half a file, then the disk fills up
        raise OSError("no space left on device")

    monkeypatch.setattr(atomic.json, "dump", broken_dump)
    with pytest.raises(OSError, match="no space"):
        arena.write_json_atomic(path, {"new": [1, 2, 3]})
    assert path.read_text() == before
    assert json.loads(path.read_text()) == {"old": True}
    assert os.listdir(tmp_path) == ["results.json"]  # no temporary file left behind


# --------------------------------------------------------------------------- CLI


def test_cli_match_prints_the_table_and_writes_every_game(tmp_path, capsys):
    out = tmp_path / "results.json"
    rc = main(["arena", "tictactoe", "minimax", "random", "--games", "4", "--seed", "1", "--workers", "1",
               "--no-progress", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    for needle in ("X (first)", "O (second)", "95% CI", "time per move", "A minimax", "B random"):
        assert needle in text
    data = json.loads(out.read_text())
    assert data["games_played"] == 4 and len(data["games"]) == 4
    for g in data["games"]:
        state = TTT.initial_state()
        for a in g["moves"]:
            state = tictactoe.play(state, a)
        assert tictactoe.winner(state) == g["winner"]


def test_cli_round_robin_prints_cross_table_and_ratings(capsys):
    rc = main(["arena", "ttt", "--round-robin", "random", "minimax", "--games", "4", "--workers", "1",
               "--no-progress"])
    text = capsys.readouterr().out
    assert rc == 0
    assert "score of row vs column" in text and "Bradley-Terry" in text and "+-" in text


def test_cli_course_report_prints_the_grading_table_and_writes_every_game(tmp_path, capsys):
    out = tmp_path / "report.json"
    rc = main(["arena", "littlego", "--course-report", "random", "--games", "2", "--seed", "0",
               "--workers", "1", "--no-progress", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "opponent" in text and "win rate" in text and "total" in text
    assert "Grading Rubrics for the 1st Stage (max 90 points)" in text
    assert "random" in text
    matches = json.loads(out.read_text())["matches"]
    assert matches["greedy"]["game"] == "littlego" and matches["greedy"]["variant"]["size"] == 5
    assert all(len(m["games"]) == 2 for m in matches.values())


@pytest.mark.parametrize("argv, message", [
    (["arena", "tictactoe", "random", "no_such_agent"], "unknown agent 'no_such_agent'"),
    (["arena", "tictactoe", "random:depth=3", "random"], "no parameter"),
    (["arena", "chess", "random", "random"], "unknown game"),
    (["arena", "tictactoe", "random"], "needs two agents"),
    (["arena", "tictactoe", "--course-report", "random"], "littlego"),
])
def test_cli_bad_input_exits_2_with_a_clear_message(argv, message, capsys):
    rc = main(argv + ["--games", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err and "Traceback" not in err


def test_progress_falls_back_to_lines_on_stderr_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(__import__("sys").modules, "tqdm", None)  # import tqdm -> ImportError
    arena.run_match("tictactoe", "random", "random", games=4, seed=0, workers=1, progress=True)
    assert "4/4 games (100%)" in capsys.readouterr().err


def test_a_closed_pipe_ends_the_cli_without_a_traceback():
    import subprocess
    import sys

    code = "import sys; from tictacgo.cli import main; sys.exit(main(['agents']))"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    proc.wait(timeout=30)
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_agents_for_an_unknown_game_is_a_clean_error(capsys):
    assert main(["agents", "chess"]) == 2
    err = capsys.readouterr().err
    assert "chess" in err and "Traceback" not in err


# --------------------------------------------------------------------------- output paths and parameters


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test if the arena starts playing: mistakes must be caught before the first game."""
    def refuse(*args, **kw):
        raise AssertionError("a game was played before the arguments were checked")

    for name in ("run_match", "run_round_robin"):
        monkeypatch.setattr(arena, name, refuse)
    monkeypatch.setattr(grading, "run_course_report", refuse)


_MATCH = ["tictactoe", "random", "random"]
_RR = ["tictactoe", "--round-robin", "random", "minimax"]


@pytest.mark.parametrize("argv, message", [
    pytest.param(_MATCH + ["--out", "{d}/pipe"], "is a named pipe; expected a regular file", id="out-fifo"),
    pytest.param(_MATCH + ["--out", "{d}/folder"], "is a folder; expected a regular file", id="out-folder"),
    pytest.param(_MATCH + ["--out", "/proc/x.json"], "cannot create a file in '/proc'", id="out-unwritable"),
    pytest.param(_MATCH + ["--out", "{d}/missing/r.json"], "does not exist", id="out-missing-folder"),
    pytest.param(_MATCH + ["--out", ""], "--out needs a file or folder name", id="out-empty"),
    pytest.param(_RR + ["--plot", "{d}/missing/r.png"], "does not exist", id="plot-missing-folder"),
    pytest.param(_RR + ["--plot", "{d}/pipe"], "named pipe", id="plot-fifo"),
    pytest.param(_RR + ["--plot", "{d}/r.nosuchformat"], "matplotlib cannot write 'nosuchformat'",
                 id="plot-unknown-format"),
    pytest.param(_RR + ["--plot", "{d}/same.png", "--out", "{d}/same.png"], "the same file",
                 id="out-is-plot"),
    pytest.param(_RR + ["--prior", "-1"], "--prior must be a finite number >= 0, got -1.0",
                 id="prior-negative"),
    pytest.param(_RR + ["--prior", "nan"], "--prior must be a finite number >= 0, got nan", id="prior-nan"),
    pytest.param(_RR + ["--prior", "inf"], "got inf", id="prior-inf"),
    pytest.param(["littlego", "random", "random", "--sgf", "{d}/file"], "not a folder", id="sgf-file"),
    pytest.param(["littlego", "random", "random", "--sgf", ""], "--sgf needs a file or folder name",
                 id="sgf-empty"),
])
def test_cli_checks_outputs_and_parameters_before_the_first_game(argv, message, tmp_path, capsys, no_games):
    import stat

    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("")
    os.mkfifo(tmp_path / "pipe")
    if "--plot" in argv:
        pytest.importorskip("matplotlib")
    argv = [a.replace("{d}", str(tmp_path)) for a in argv]
    rc = main(["arena"] + argv + ["--games", "2", "--workers", "1", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)  # never replaced
    assert sorted(os.listdir(tmp_path)) == ["file", "folder", "pipe"]


def test_cli_keeps_the_results_in_a_temporary_file_when_saving_fails_at_the_end(
        tmp_path, capsys, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()

    def disk_full(path, result):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(arena, "write_results_json", disk_full)
    out = tmp_path / "results.json"
    rc = main(["arena", "tictactoe", "random", "random", "--games", "3", "--workers", "1", "--no-progress",
               "--out", str(out)])
    captured = capsys.readouterr()
    assert rc == 1
    assert "3 games" in captured.out  # the table is still printed
    assert "No space left on device" in captured.err and "Traceback" not in captured.err
    kept = [line.rsplit(" ", 1)[1] for line in captured.err.splitlines() if "results are kept in" in line]
    assert len(kept) == 1 and kept[0].startswith(str(tmp_path / "tmp"))
    data = json.loads(open(kept[0]).read())
    assert data["games_played"] == 3 and len(data["games"]) == 3
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["tmp"]  # the spool of records is gone too


# --------------------------------------------------------------------------- huge runs and Ctrl-C


def _count_jobs_and_stop_after(monkeypatch, module, games_before_ctrl_c: int) -> list[int]:
    """Count the jobs ``module`` makes; Ctrl-C after some games. Returns the count seen at each game."""
    from tictacgo.arena import jobs, runner

    made = {"n": 0}

    def counting_job(*args):
        made["n"] += 1
        return jobs.Job(*args)

    seen: list[int] = []
    real_play = jobs.play_job

    def play(job, agents):
        seen.append(made["n"])
        if len(seen) > games_before_ctrl_c:
            raise KeyboardInterrupt
        return real_play(job, agents)

    monkeypatch.setattr(module, "Job", counting_job)
    monkeypatch.setattr(runner, "play_job", play)
    return seen


def test_a_huge_match_makes_each_game_only_when_it_is_played(monkeypatch):
    from tictacgo.arena import match

    seen = _count_jobs_and_stop_after(monkeypatch, match, 3)
    m = arena.run_match("tictactoe", "random", "random", games=10**6, seed=0, workers=1, progress=False)
    assert seen == [1, 2, 3, 4]  # not 10**6 jobs made before the first game
    assert m.interrupted and m.n == 3 and m.games_requested == 10**6


def test_a_huge_round_robin_makes_each_game_only_when_it_is_played(monkeypatch):
    from tictacgo.arena import round_robin

    seen = _count_jobs_and_stop_after(monkeypatch, round_robin, 2)
    rr = arena.run_round_robin("tictactoe", ["random", "random", "random"], games_per_pair=10**6, seed=0,
                               workers=1, progress=False)
    assert seen == [1, 2, 3]
    assert rr.interrupted and sum(m.n for m in rr.matches.values()) == 2


def _ctrl_c_the_arena(tmp_path, args, wait_for_stderr: bool):
    """Run ``tictacgo arena`` in its own process group and Ctrl-C the group like a terminal does."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "tictacgo.cli", "arena", *args], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            # A shell's background job (`make test &`) inherits SIGINT ignored, and
                            # Python then keeps ignoring it: give the child the default, as a terminal does.
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        if wait_for_stderr:  # the progress bar: the games are about to start
            proc.stderr.peek(1)
            time.sleep(0.5)
        else:
            time.sleep(0.05)  # still starting up
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_during_a_huge_match_prints_the_table_and_exits_130(tmp_path, workers):
    rc, out, err = _ctrl_c_the_arena(
        tmp_path, ["tictactoe", "random", "random", "--games", "1000000000000", "--workers", workers,
                   "--out", "r.json"], wait_for_stderr=True)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert rc == 130
    # Drop the progress bar's frames (tqdm redraws on one line with carriage returns).
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "|" not in line]
    assert lines[-1] in ("interrupted: the table covers the games finished before Ctrl-C",
                         "tictacgo arena: interrupted"), err
    if lines[-1].startswith("interrupted:"):  # stopped while playing: the table and the file are there
        assert "(INTERRUPTED)" in out and "of 1000000000000" in out
        assert json.loads((tmp_path / "r.json").read_text())["interrupted"] is True


def test_ctrl_c_while_a_subcommand_loads_is_one_line_and_130(monkeypatch, capsys):
    import importlib

    real_import = importlib.import_module

    def slow_import(name, *args):
        if name == "tictacgo.cli.arena":
            raise KeyboardInterrupt  # Ctrl-C while the subcommand's module loads
        return real_import(name, *args)

    monkeypatch.setattr(importlib, "import_module", slow_import)
    assert main(["arena", "tictactoe", "random", "random"]) == 130
    assert capsys.readouterr().err == "tictacgo arena: interrupted\n"


# ------------------------------------------------------------------------ a full disk, a closed pipe, a kill


def _fail_spool_writes_from(monkeypatch, game: int) -> None:
    """The disk fills after ``game - 1`` records: every later write to a run's spool fails (ENOSPC)."""
    import errno

    from tictacgo.arena.records import GameSpool

    real, calls = GameSpool._write, {"n": 0}

    def write(self, data):
        calls["n"] += 1
        if calls["n"] >= game:
            self._file.write(data[:7])  # part of the line made it, as on a real disk that fills
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(GameSpool, "_write", write)


def _fail_fsync(monkeypatch, times: int) -> None:
    """The first ``times`` fsync calls (the atomic writer's, of --out and then of its fallback) fail."""
    import errno

    real, calls = os.fsync, {"n": 0}

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] <= times:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.parametrize("failing", ["spool", "spool-and-out", "spool-out-and-temporary-file"])
def test_a_disk_that_fills_during_the_games_loses_no_game_and_says_so_in_one_line(
        tmp_path, capsys, monkeypatch, failing):
    import tempfile

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    argv = ["arena", "tictactoe", "random", "think1", "--games", "6", "--seed", "3", "--workers", "1",
            "--no-progress", "--out"]
    assert main(argv + [str(tmp_path / "reference.json")]) == 0
    reference = json.loads((tmp_path / "reference.json").read_text())
    capsys.readouterr()

    _fail_spool_writes_from(monkeypatch, game=3)
    _fail_fsync(monkeypatch, {"spool": 0, "spool-and-out": 1, "spool-out-and-temporary-file": 99}[failing])
    out = tmp_path / "results.json"
    rc = main(argv + [str(out)])
    captured = capsys.readouterr()
    assert "6 games" in captured.out  # the table
    assert "Traceback" not in captured.err
    assert captured.err.startswith("tictacgo arena: note: the disk would not take more game records "
                                   "(No space left on device) after 2 games")
    kept = [line.rsplit(" ", 1)[1] for line in captured.err.splitlines() if "results are kept in" in line]
    if failing == "spool":
        assert rc == 0 and len(captured.err.splitlines()) == 1
        written = json.loads(out.read_text())
    elif failing == "spool-and-out":
        assert rc == 1 and not out.exists() and len(kept) == 1 and kept[0].startswith(str(temporary))
        written = json.loads(open(kept[0]).read())
    else:
        assert rc == 1 and not kept and not out.exists()
        assert "could not keep the results in a temporary file either" in captured.err
        assert os.listdir(temporary) == []  # no half-written copy
        written = None
    if written is not None:
        assert [(g["index"], g["moves"]) for g in written["games"]] == \
            [(g["index"], g["moves"]) for g in reference["games"]]
    assert sorted(os.listdir(tmp_path)) == sorted(["reference.json", "tmp"] + ([out.name] if written and
                                                                                 not kept else []))


def test_the_results_are_kept_when_stderr_cannot_take_the_message_that_says_where(tmp_path, monkeypatch):
    import sys
    import tempfile

    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    _fail_spool_writes_from(monkeypatch, game=2)
    _fail_fsync(monkeypatch, 1)  # --out fails; the temporary file does not
    monkeypatch.setattr(sys, "stderr", _Unwritable(BrokenPipeError(32, "Broken pipe")))
    rc = main(["arena", "tictactoe", "random", "random", "--games", "4", "--workers", "1", "--out",
               str(tmp_path / "r.json")])
    assert rc == 1
    (kept,) = os.listdir(tmp_path / "tmp")
    assert kept.startswith("tictacgo-arena-")
    assert json.loads((tmp_path / "tmp" / kept).read_text())["games_played"] == 4


def _arena_in_a_subprocess(tmp_path, argv, stderr=None, **env):
    import subprocess
    import sys

    code = "import sys; from tictacgo.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), **env}
    return subprocess.Popen([sys.executable, "-c", code, "arena", *argv], stdout=subprocess.PIPE,
                            stderr=stderr or subprocess.PIPE, env=env)


@pytest.mark.parametrize("unbuffered", ["", "1"])
@pytest.mark.parametrize("closed", ["stdout", "stdout-and-stderr"])
def test_a_closed_stdout_does_not_lose_or_spoil_the_results_file(tmp_path, unbuffered, closed):
    import subprocess

    (tmp_path / "tmp").mkdir()
    out = tmp_path / "r.json"
    both = closed == "stdout-and-stderr"
    proc = _arena_in_a_subprocess(tmp_path, ["tictactoe", "random", "random", "--games", "5", "--workers",
                                             "1", "--out", str(out)] + ([] if both else ["--no-progress"]),
                                  stderr=subprocess.STDOUT if both else None, PYTHONUNBUFFERED=unbuffered)
    proc.stdout.close()  # like `| true` (or `2>&1 | true`): the reader is gone before the table
    err = "" if both else proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1, err
    assert err == ""  # no "could not write --out", no BrokenPipeError, no "Exception ignored"
    assert json.loads(out.read_text())["games_played"] == 5
    assert sorted(os.listdir(tmp_path)) == ["r.json", "tmp"] and os.listdir(tmp_path / "tmp") == []


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to see the run's open files")
def test_a_killed_run_leaves_no_spool_of_records_beside_out(tmp_path):
    import signal
    import time

    (tmp_path / "tmp").mkdir()
    proc = _arena_in_a_subprocess(tmp_path, ["tictactoe", "random", "random", "--games", "100000000",
                                             "--workers", "1", "--no-progress", "--out",
                                             str(tmp_path / "r.json")])
    deadline = time.monotonic() + 120
    spooling = False
    while not spooling and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
        try:
            links = [os.readlink(f"/proc/{proc.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{proc.pid}/fd")]
        except OSError:
            continue
        spooling = any(".tictacgo-games." in link for link in links)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stdout.close()
    proc.stderr.close()
    assert spooling, "the run never opened its spool"
    assert sorted(os.listdir(tmp_path)) == ["tmp"]


@pytest.mark.parametrize("argv, message", [
    pytest.param(["--out", "{d}/games/game-0000.sgf", "--sgf", "{d}/games"], "game 1's record", id="match"),
    pytest.param(["--out", "{d}/games/./game-0001.sgf", "--sgf", "{d}/games"], "game 2's record",
                 id="another-spelling"),
    pytest.param(["--out", "{d}/link/game-0001.sgf", "--sgf", "{d}/games"], "game 2's record",
                 id="through-a-symlink"),
    pytest.param(["--out", "{d}/new", "--sgf", "{d}/new"], "a folder --sgf writes",
                 id="out-is-the-sgf-folder"),
    pytest.param(["--round-robin", "minimax", "--out", "{d}/games/00-02_random-vs-minimax/game-0000.sgf",
                  "--sgf", "{d}/games"], "game 1's record", id="round-robin"),
    pytest.param(["--round-robin", "minimax", "--out", "{d}/games/01-02_random_2-vs-minimax", "--sgf",
                  "{d}/games"], "a folder --sgf writes", id="round-robin-folder"),
    pytest.param(["--round-robin", "minimax", "--plot", "{d}/games/00-01_random-vs-random_2", "--sgf",
                  "{d}/games"], "--plot", id="plot"),
])
def test_out_and_plot_may_not_be_where_sgf_writes_a_record(argv, message, tmp_path, capsys, no_games):
    pytest.importorskip("sgfmill")
    if "--plot" in argv:
        pytest.importorskip("matplotlib")
    (tmp_path / "games" / "00-02_random-vs-minimax").mkdir(parents=True)  # an earlier run's
    (tmp_path / "games" / "game-0000.sgf").write_bytes(b"(;GM[1]SZ[5])")
    (tmp_path / "link").symlink_to(tmp_path / "games")
    argv = [a.replace("{d}", str(tmp_path)) for a in argv]
    rc = main(["arena", "littlego", "random", "random", *argv, "--games", "2", "--workers", "1",
               "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert message in err and len(err.splitlines()) == 1, err
    assert (tmp_path / "games" / "game-0000.sgf").read_bytes() == b"(;GM[1]SZ[5])"


def test_out_and_plot_through_a_symlink_to_one_file_are_refused(tmp_path, capsys, no_games):
    pytest.importorskip("matplotlib")
    (tmp_path / "r.png").write_bytes(b"")
    (tmp_path / "link.png").symlink_to(tmp_path / "r.png")
    rc = main(["arena", *_RR, "--out", str(tmp_path / "link.png"), "--plot", str(tmp_path / "r.png"),
               "--games", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "name the same file" in err and len(err.splitlines()) == 1, err


class _Unwritable:
    """A stderr that cannot be written: its reader is gone, or its file's disk is full."""

    def __init__(self, error: OSError):
        self.error = error

    def write(self, text):
        raise self.error

    def flush(self):
        raise self.error

    def isatty(self):
        return False


@pytest.mark.parametrize("bar", ["tqdm", "lines"])
@pytest.mark.parametrize("error", [BrokenPipeError(32, "Broken pipe"),
                                   OSError(28, "No space left on device")], ids=["pipe-closed", "disk-full"])
def test_a_progress_bar_that_cannot_be_written_does_not_stop_the_games(monkeypatch, bar, error):
    import sys

    if bar == "lines":
        monkeypatch.setitem(sys.modules, "tqdm", None)
    else:
        pytest.importorskip("tqdm")
    monkeypatch.setattr(sys, "stderr", _Unwritable(error))
    result = arena.run_match("tictactoe", "random", "random", games=5, seed=0, workers=1, progress=True)
    assert result.n == 5 and not result.interrupted


@pytest.mark.parametrize("signals", [["SIGINT"], ["SIGTERM"], ["SIGHUP"], ["SIGINT", "SIGTERM"]],
                         ids=["ctrl-c", "sigterm", "sighup", "twice"])
def test_a_signal_while_the_results_are_saved_waits_for_them_and_a_second_stops_at_once(
        tmp_path, capsys, monkeypatch, signals):
    import signal

    real = arena.write_results_json

    def write_while_signalled(path, result):
        for name in signals:
            os.kill(os.getpid(), getattr(signal, name))
        return real(path, result)

    monkeypatch.setattr(arena, "write_results_json", write_while_signalled)
    # Under nohup SIGHUP is ignored, and the arena leaves an ignored signal ignored: hear it here.
    sigs = [getattr(signal, name) for name in signals]
    ignored = [sig for sig in sigs if signal.getsignal(sig) is signal.SIG_IGN]
    for sig in ignored:
        signal.signal(sig, signal.SIG_DFL)
    out = tmp_path / "r.json"
    try:
        rc = main(["arena", "tictactoe", "random", "random", "--games", "4", "--workers", "1",
                   "--no-progress", "--out", str(out)])
    finally:
        for sig in ignored:
            signal.signal(sig, signal.SIG_IGN)
    err = capsys.readouterr().err
    assert rc == 130 and "Traceback" not in err and len(err.splitlines()) == 1, err
    if len(signals) == 1:
        assert err == "tictacgo arena: interrupted while saving; the results were saved first\n"
        assert json.loads(out.read_text())["games_played"] == 4
    else:
        assert err == "tictacgo arena: interrupted\n" and os.listdir(tmp_path) == []


def test_a_stdout_on_a_full_disk_does_not_stop_the_results_file(tmp_path, monkeypatch):
    import sys

    monkeypatch.setattr(sys, "stdout", _Unwritable(OSError(28, "No space left on device")))
    out = tmp_path / "r.json"
    rc = main(["arena", "tictactoe", "random", "random", "--games", "3", "--workers", "1", "--no-progress",
               "--out", str(out)])
    assert rc == 1
    assert json.loads(out.read_text())["games_played"] == 3


def test_the_second_stage_report_scores_its_two_opponents_out_of_ten_and_checks_the_time():
    from tictacgo.arena import run_match

    # Matches of cheap agents stand in for the two opponents: the report's arithmetic is what is tested.
    m = run_match("littlego", "greedy", "random", 4, 0, workers=1, progress=False)
    report = grading.CourseReport("greedy", 0, 4, {"qlearning": m, "championship": m}, [], stages=(2,))
    rate = report.rows()[0]["win_rate"]
    assert report.max_points == 10
    assert report.total == pytest.approx(grading.course_points("qlearning", rate)
                                         + grading.course_points("championship", rate))
    table = report.table()
    assert "2nd grading stage" in table and "Grading Rubrics for the 2nd Stage" in table
    assert "1st Stage" not in table
    t = report.time_check(2)
    assert t["games"] == 8 and t["budget_s"] == pytest.approx(8 * 90)
    assert t["within"] and "within the limits" in table
    assert report.to_json()["stages"] == [2] and report.to_json()["max_points"] == 10


def test_a_move_over_ten_seconds_breaks_the_courses_time_limit():
    from tictacgo.arena import run_match

    m = run_match("littlego", "greedy", "random", 2, 0, workers=1, progress=False)
    m.games[0].record.times[0][0] = 10.5  # agent A's first move
    report = grading.CourseReport("greedy", 0, 2, {"random": m}, [], stages=(1,))
    assert not report.time_check(1)["within"] and "OVER the limits" in report.table()


def test_stage_names_and_the_stage_flag():
    assert grading.stages_of("all") == (1, 2) and grading.stages_of(2) == (2,)
    with pytest.raises(ValueError, match="stage must be 1, 2 or 'all'"):
        grading.stages_of(3)
    assert main(["arena", "littlego", "random", "greedy", "--stage", "2"]) == 2
