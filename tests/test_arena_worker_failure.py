"""A worker process that dies or cannot start is an error within seconds, never a hang (issue 46, item 8).

Each run happens in a subprocess with a generous upper bound, so that the code before the fix (which
hung) fails the test instead of hanging it; every process a test starts is killed in its cleanup.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tictacgo.arena import runner

GAMES_DIR = Path(__file__).resolve().parent / "games"
CLI = "import sys; from tictacgo.cli import main; sys.exit(main(sys.argv[1:]))"
LIMIT = 180  # seconds: a bound on a run that fails at once, never a measure of it


def run_bounded(argv: list[str], env: dict | None = None,
                cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``argv``; a run past LIMIT seconds (a hang) is killed with all its processes and fails the test."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"still running after {LIMIT} s (a hang); stderr: {err[-2000:]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def test_a_script_without_a_main_guard_is_an_error_not_a_hang(tmp_path):
    """The docs' own "Add a game" case: a game registered at run time by a script with no
    ``if __name__ == "__main__":``. Each spawned worker imports the script, which starts a run of
    its own there, and fails; the script's run says so and exits 1 with the worker's error shown."""
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(GAMES_DIR)!r})
        from connect_three import ConnectThree
        from tictacgo.arena import run_match, runner
        from tictacgo.games import register_game

        runner.available_cpus = lambda: 4  # two workers even on a one-core machine
        register_game(ConnectThree, aliases=("c3",))
        result = run_match("connect_three", "random", "random", games=4, seed=0, workers=2, progress=False)
        print(result.summary())
        """))
    done = run_bounded([sys.executable, str(script)], cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "WorkerFailed" in done.stderr and "worker process" in done.stderr, done.stderr
    assert "bootstrapping phase" in done.stderr  # the worker's own error
    assert 'if __name__ == "__main__":' in done.stderr  # and what to do about it


# ``unseen``: the race where a worker dies before the parent lists the live children (a loaded
# machine), made certain: the exit status must come from the pool's own list of its workers.
@pytest.mark.parametrize("unseen", ["", "runner.multiprocessing.active_children = lambda: []"])
def test_a_worker_that_dies_during_a_game_is_an_error_naming_its_exit_status(tmp_path, unseen):
    script = tmp_path / "dies.py"
    script.write_text(textwrap.dedent("""\
        import multiprocessing, os
        from tictacgo.arena import run_match, runner
        from tictacgo.baselines import RandomAgent, register_agent

        PARENT = os.getpid()

        class Dies(RandomAgent):
            def act(self, state):
                if os.getpid() != PARENT:
                    os._exit(7)
                return super().act(state)

        if __name__ == "__main__":
            register_agent("dies", lambda game, rng: Dies(game, rng), games=("tictactoe",),
                           description="dies")
            # Forked workers see the agent registered here (spawned ones would not).
            fork = multiprocessing.get_context("fork")
            runner.multiprocessing.get_context = lambda method: fork
            runner.available_cpus = lambda: 4
            UNSEEN
            try:
                run_match("tictactoe", "dies", "random", games=8, seed=0, workers=2, progress=False)
            except Exception as e:
                print(type(e).__name__, e)
                raise SystemExit(3)
        """).replace("UNSEEN", unseen))
    done = run_bounded([sys.executable, str(script)], cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert done.stdout.startswith("WorkerFailed"), done.stdout
    assert "exit status 7" in done.stdout


@pytest.mark.skipif(runner.available_cpus() < 2, reason="the command caps --workers at the CPU cores")
def test_the_arena_command_shows_a_worker_that_cannot_start_and_exits_1(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    # Every worker process (and only they) fails as it starts.
    (site / "sitecustomize.py").write_text(textwrap.dedent("""\
        import os, sys
        if "--multiprocessing-fork" in sys.argv:
            sys.stderr.write("worker start-up failed: no licence for this worker\\n")
            sys.stderr.flush()
            os._exit(5)
        """))
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    done = run_bounded([sys.executable, "-c", CLI, "arena", "tictactoe", "random", "random", "--games", "20",
                        "--workers", "2", "--no-progress"], env=env, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "worker start-up failed: no licence for this worker" in done.stderr
    assert "tictacgo arena: error: a worker process" in done.stderr and "exit status 5" in done.stderr
    assert "Traceback" not in done.stderr, done.stderr
