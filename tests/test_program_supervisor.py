"""A course program runs under one supervisor that owns its whole process tree (issue 46, items 6-7).

Its stderr is kept as a bounded tail and its logs are capped, whatever it writes; every process it
starts (a background job, one that left its session with ``setsid``) ends with the move; and an
arena stopped by SIGTERM or SIGINT while a program moves leaves neither a process nor its folder.
The programs here are small shell scripts; every process a test starts is killed in its cleanup.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tictacgo.protocol import host, supervisor

EMPTY = [[0] * 5 for _ in range(5)]
LINUX = sys.platform.startswith("linux")
CLI = "import sys; from tictacgo.cli import main; sys.exit(main(sys.argv[1:]))"


def wait_for(condition, limit: float = 60.0, step: float = 0.05) -> bool:
    """Poll ``condition`` until it holds or ``limit`` seconds have passed; whether it held."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that still runs (a zombie has ended: it only waits to be reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - reused by another user's process
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return not LINUX
    return stat[stat.rindex(")") + 2] != "Z"


def read_pids(path: Path) -> list[int]:
    try:
        return [int(word) for word in path.read_text().split()]
    except (OSError, ValueError):
        return []


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# ---------------------------------------------------------------------------------- item 6: stderr

def test_a_flood_of_stderr_keeps_memory_and_logs_bounded_and_the_tail_is_the_end(tmp_path):
    """200 MB of stderr and stdout in one move: the host's memory stays small, each log on disk is
    capped with a note that it was cut, and the tail shown is the last thing the program wrote."""
    workdir = tmp_path / "player"
    workdir.mkdir()
    size = 200_000_000
    command = (f"head -c {size} /dev/zero >&2; head -c {size} /dev/zero; "
               "echo 'the last words' >&2; echo 2,2 > output.txt")
    # The peak memory of this new process: VmHWM (ru_maxrss would count the image of the test's own
    # process that it was forked from); its children (the supervisor) are forked from it.
    script = (
        "import json, re, resource, sys\n"
        "from tictacgo.protocol import host\n"
        "empty = [[0] * 5 for _ in range(5)]\n"
        f"run = host.run_player({command!r}, {str(workdir)!r}, 1, empty, empty, time_limit=600)\n"
        "try:\n"
        "    peak = int(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1))\n"
        "except (OSError, AttributeError):\n"
        "    peak = 0  # no /proc: not measured\n"
        "print(json.dumps({'move': run.move, 'failure': run.failure, 'tail': run.stderr_tail,\n"
        "                  'self_kb': peak,\n"
        "                  'children_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["failure"] is None and result["move"] == [2, 2]
    assert result["tail"].endswith("the last words")
    assert len(result["tail"]) <= 800
    # The whole stream passed through; none of it was held (the run itself needs some tens of MB).
    assert result["self_kb"] < 150_000, result
    assert result["children_kb"] < 150_000 * (1024 if sys.platform == "darwin" else 1), result
    logs = tmp_path / ".player.log"
    for name in ("stdout.txt", "stderr.txt"):
        log = logs / name
        assert log.stat().st_size <= supervisor.LOG_CAP + 128 * 1024, name
        assert b"bytes cut here" in log.read_bytes()
    assert (logs / "stderr.txt").read_bytes().rstrip().endswith(b"the last words")


def test_a_small_stderr_is_kept_whole_in_the_log_without_a_note(tmp_path):
    workdir = tmp_path / "player"
    workdir.mkdir()
    run = host.run_player("echo hello >&2; echo out; echo PASS > output.txt", workdir, 1, EMPTY, EMPTY,
                          time_limit=60)
    assert run.failure is None and run.move == "PASS"
    assert run.stderr_tail == "hello"
    assert (tmp_path / ".player.log" / "stderr.txt").read_bytes() == b"hello\n"
    assert (tmp_path / ".player.log" / "stdout.txt").read_bytes() == b"out\n"


def test_without_a_python_to_start_the_supervisor_the_move_runs_in_this_process(tmp_path, monkeypatch):
    """The fallback (an embedded interpreter): the same loop here, its logs capped and its group killed."""
    monkeypatch.setattr(supervisor.sys, "executable", "")
    workdir = tmp_path / "player"
    workdir.mkdir()
    pids = tmp_path / "pids"
    try:
        run = host.run_player(f"sleep 1000 & echo $! > {pids}; head -c 5000000 /dev/zero; echo oops >&2",
                              workdir, 1, EMPTY, EMPTY, time_limit=120)
        assert run.failure == host.MISSING and run.stderr_tail == "oops"
        assert (tmp_path / ".player.log" / "stdout.txt").stat().st_size <= supervisor.LOG_CAP + 128 * 1024
        started = read_pids(pids)
        assert started and wait_for(lambda: not any(alive(pid) for pid in started))
    finally:
        kill_all(read_pids(pids))


# ------------------------------------------------------------------- item 7: the program's tree

@pytest.mark.skipif(not LINUX, reason="finding escaped processes needs Linux (/proc, a subreaper)")
def test_processes_that_leave_the_session_end_with_the_move(tmp_path):
    """A background job, a job in a new session and an orphan in a new session (its parent gone, so
    its ancestry is lost) are all ended when the program's move ends."""
    workdir = tmp_path / "player"
    workdir.mkdir()
    pids = tmp_path / "pids"
    script = tmp_path / "escape.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"P={pids}\n"
        "sleep 1000 &\n"
        "echo $! >> $P\n"
        "setsid sh -c 'echo $$ >> '$P'; exec sleep 1000' &\n"
        # a new session whose leader leaves at once: its sleep is an orphan
        "setsid sh -c 'sleep 1000 & echo $! >> '$P\n"
        "while [ $(wc -l < $P) -lt 3 ]; do sleep 0.05; done\n"
        "echo 1,1 > output.txt\n")
    try:
        run = host.run_player(f"sh {script}", workdir, 1, EMPTY, EMPTY, time_limit=120)
        assert run.failure is None and run.move == (1, 1)
        started = read_pids(pids)
        assert len(started) == 3
        assert wait_for(lambda: not any(alive(pid) for pid in started)), \
            [pid for pid in started if alive(pid)]
    finally:
        kill_all(read_pids(pids))


@pytest.mark.skipif(not LINUX, reason="finding escaped processes needs Linux (/proc, a subreaper)")
def test_a_timeout_ends_the_program_and_what_escaped_its_session(tmp_path):
    workdir = tmp_path / "player"
    workdir.mkdir()
    pids = tmp_path / "pids"
    script = tmp_path / "hang.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"P={pids}\n"
        "setsid sh -c 'sleep 1000 & echo $! >> '$P\n"
        "echo $$ >> $P\n"
        "exec sleep 1000\n")
    try:
        # The limit only has to outlast the two lines before the sleep; if it does not, nothing escaped.
        run = host.run_player(f"sh {script}", workdir, 1, EMPTY, EMPTY, time_limit=5)
        assert run.failure == host.TIMEOUT
        started = read_pids(pids)
        assert wait_for(lambda: not any(alive(pid) for pid in started)), \
            [pid for pid in started if alive(pid)]
    finally:
        kill_all(read_pids(pids))


@pytest.mark.skipif(not LINUX, reason="a parent-death signal needs Linux (prctl)")
def test_a_caller_killed_outright_takes_the_program_and_its_folder_with_it(tmp_path):
    """SIGKILL leaves the caller no clean-up of its own: the supervisor ends the tree and removes
    the player's folder."""
    owner = tmp_path / "tictacgo-program-killed"
    work = owner / "work"
    work.mkdir(parents=True)
    pids = tmp_path / "pids"
    script = tmp_path / "slow.sh"
    script.write_text(f"#!/bin/sh\necho $$ >> {pids}\nsh -c 'echo $$ >> {pids}; exec sleep 1000'\n")
    caller = subprocess.Popen(
        [sys.executable, "-c",
         "from tictacgo.protocol import host\n"
         "empty = [[0] * 5 for _ in range(5)]\n"
         f"host.run_player('sh {script}', {str(work)!r}, 1, empty, empty, 600, owner_dir={str(owner)!r})\n"],
        start_new_session=True)
    try:
        assert wait_for(lambda: len(read_pids(pids)) == 2, limit=120), "the program never started"
        caller.kill()
        caller.wait(timeout=60)
        started = read_pids(pids)
        assert wait_for(lambda: not any(alive(pid) for pid in started)), \
            [pid for pid in started if alive(pid)]
        assert wait_for(lambda: not owner.exists())
    finally:
        if caller.poll() is None:
            caller.kill()
            caller.wait()
        kill_all(read_pids(pids))


def _program(tmp_path: Path) -> str:
    """A program that notes its folder and the pid of a grandchild (sh -> sh -> sleep), then hangs."""
    script = tmp_path / "slow.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"pwd >> {tmp_path}/where\n"
        f"sh -c 'echo $$ >> {tmp_path}/pids; exec sleep 1000'\n")
    return f"program:cmd=sh {script},time=600"


@pytest.mark.parametrize("workers", [1, 2], ids=["in-process", "two-workers"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_an_arena_stopped_during_a_program_move_leaves_no_process_and_no_folder(tmp_path, sig, workers):
    """The program plays itself, so that each process holds two program agents, one of them idle
    while the other moves; every temporary folder goes (the run's TMPDIR is the test's own)."""
    pids, where, tmp = tmp_path / "pids", tmp_path / "where", tmp_path / "tmp"
    tmp.mkdir()
    program = _program(tmp_path)
    arena = subprocess.Popen(
        [sys.executable, "-c", CLI, "arena", "littlego", program, program, "--games", "2",
         "--workers", str(workers), "--no-progress", "--out", str(tmp_path / "results.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env=dict(os.environ, TMPDIR=str(tmp)))
    try:
        assert wait_for(lambda: read_pids(pids), limit=120), "the program never started"
        arena.send_signal(sig)
        _, err = arena.communicate(timeout=120)
        assert arena.returncode == 130, err
        assert "Traceback" not in err, err
        started = read_pids(pids)
        folders = [Path(line).parent for line in where.read_text().split()]
        assert folders and all(f.parent == tmp and f.name.startswith("tictacgo-program-") for f in folders)
        assert wait_for(lambda: not any(alive(pid) for pid in started)), \
            [pid for pid in started if alive(pid)]
        assert wait_for(lambda: not any(tmp.iterdir())), list(tmp.iterdir())
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
            arena.wait()
        kill_all(read_pids(pids))


def test_a_stop_signal_during_the_supervisors_set_up_is_a_clean_stop(tmp_path, monkeypatch):
    """A supervisor asked to stop while it is still setting up (its caller stopping as it starts the
    move) leaves with its stop status and removes the caller's folder, never with a traceback."""
    def stopped_now(option, value):  # the signal handler raises in the middle of the set-up
        raise supervisor.Stop("signal 15")

    monkeypatch.setattr(supervisor._Signals, "install", lambda self: None)  # leave pytest's handlers
    ignored = []
    monkeypatch.setattr(supervisor._Signals, "ignore", staticmethod(lambda: ignored.append(True)))
    monkeypatch.setattr(supervisor, "_prctl", stopped_now)
    orphan = tmp_path / "move"
    orphan.mkdir()
    spec = {"command": "true", "cwd": str(tmp_path), "time_limit": 10, "stdout": None, "stderr": None,
            "orphan_dir": str(orphan), "parent": -1}  # a caller that is gone
    assert supervisor.main(["supervisor.py", json.dumps(spec)]) == supervisor.STOPPED
    assert not orphan.exists()
    assert ignored == [True]  # stopping: a second signal cannot cut the clean-up short
