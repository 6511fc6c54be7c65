"""``tictacgo solve`` answers what the package's book settles at once, saying so; a long search shows
its progress and stops on Ctrl-C or SIGTERM with status 130; the table is sized by the machine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")

from tictacgo.cli import main as cli_main  # noqa: E402
from tictacgo.cli.solve import default_table_bits  # noqa: E402


def test_the_empty_5x5_board_is_answered_from_the_book_and_says_so(capsys):
    assert cli_main(["solve", "--size", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("black wins (5x5, komi 2.5, 24 actions, the empty board): from the package's book")
    assert "2,2 keeps it; not searched (--no-book searches)" in out
    assert cli_main(["solve", "--size", "5", "--line", "2,2"]) == 0  # White to move: every reply loses
    assert "every move leads to a position that the package's book" in capsys.readouterr().out


def test_no_book_searches_and_a_position_the_book_does_not_hold_is_searched(capsys):
    assert cli_main(["solve", "--size", "3", "--no-book", "--table-bits", "16"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("white wins (3x3, komi 1.5, 8 actions, the empty board); ")
    assert "positions in" in out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_long_search_shows_progress_and_stops_on_a_signal(sig):
    proc = subprocess.Popen([sys.executable, "-m", "tictacgo.cli", "solve", "--size", "5", "--no-book",
                             "--table-bits", "20", "--progress", "0.2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()  # the first progress line: the search is under way
        assert line.startswith("tictacgo solve: ") and " positions in " in line, line
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=300)  # a search that never looks up would run for hours
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err


def test_the_default_table_grows_with_the_machines_memory():
    bits = default_table_bits()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 22 <= bits <= 26 and (bits == 22 or 13 * 2**bits <= memory / 8)
