"""SIGTERM stops an arena run as Ctrl-C does: the table and --out of the games played so far."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name != "posix", reason="POSIX signals")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_keeps_the_games_played_so_far(workers, tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tictacgo.cli", "arena", "tictactoe", "random", "mcts:sims=50",
         "--games", "100000", "--workers", workers, "--out", str(out), "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(6)  # started, and some games played
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
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
