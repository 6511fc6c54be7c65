"""The arena's --workers is capped at the CPU cores this process may use."""

from __future__ import annotations

import pytest

from tictacgo.arena import runner
from tictacgo.cli import main


def test_more_workers_than_cores_are_capped_with_a_warning(monkeypatch):
    monkeypatch.setattr(runner, "available_cpus", lambda: 2)
    with pytest.warns(UserWarning, match="workers=30 is more than the 2 CPU cores"):
        assert runner._resolve_workers(30, 100) == 2
    assert runner._resolve_workers(None, 100) == 2
    assert runner._resolve_workers(2, 1) == 1


def test_the_arena_says_when_it_caps_workers(monkeypatch, capsys):
    monkeypatch.setattr(runner, "available_cpus", lambda: 1)  # one core: in-process, quick
    assert main(["arena", "tictactoe", "random", "random", "--games", "2", "--workers", "30"]) == 0
    captured = capsys.readouterr()
    assert "--workers 30 is more than the 1 CPU cores available; using 1" in captured.err
    assert "random" in captured.out
