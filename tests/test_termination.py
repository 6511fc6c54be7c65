"""SIGTERM stops an arena run as Ctrl-C does: the table and --out of the games played so far."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name != "posix", reason="POSIX signals")


def wait_for_games(proc: subprocess.Popen, total: int, limit: float = 600.0) -> bytes:
    """Read the run's stderr (its progress bar) until it shows a game done; what it read. Waits for that
    condition, however loaded the machine (``limit`` only ends a run that never plays a game)."""
    seen = b""
    stop = time.monotonic() + limit
    done = re.compile(rb"\b[1-9][0-9]*/" + str(total).encode())
    os.set_blocking(proc.stderr.fileno(), False)
    while time.monotonic() < stop and proc.poll() is None:
        chunk = proc.stderr.read(65536)
        if chunk:
            seen += chunk
            if done.search(seen):
                return seen
        else:
            time.sleep(0.05)
    raise AssertionError(f"no game finished: {seen[-500:]!r}")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_keeps_the_games_played_so_far(workers, tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tictacgo.cli", "arena", "tictactoe", "random", "mcts:sims=50",
         "--games", "100000", "--workers", workers, "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        before = wait_for_games(proc, 100000)  # started, and a game played
    except AssertionError:
        proc.kill()
        raise
    proc.send_signal(signal.SIGTERM)
    stdout, rest = proc.communicate(timeout=600)
    stdout, stderr = stdout.decode(), (before + rest).decode(errors="replace")
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert "interrupted" in stderr
    assert "mcts" in stdout  # the table of the games played
    games = json.loads(out.read_text())["games"]
    assert 0 < len(games) < 100000


def test_the_handlers_are_restored_after_the_command():
    from tictacgo.cli import main

    before = signal.getsignal(signal.SIGTERM)
    assert main(["agents", "tictactoe"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before
