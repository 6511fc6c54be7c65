"""The demo's table says which game a long row is at, on a terminal only."""

import io

from tictacgo import demo


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_table_shows_each_rows_game_count_on_a_terminal_and_clears_it(monkeypatch, capsys):
    err = _Terminal()
    monkeypatch.setattr("sys.stderr", err)
    demo._table(2, 0)
    shown = err.getvalue()
    assert "littlego   az               aggressive game 2/2" in shown
    assert shown.endswith("\r" + " " * 60 + "\r")            # cleared before the row is printed
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 13 and "game" not in rows[-1]


def test_the_table_writes_no_progress_into_a_pipe_or_file(monkeypatch, capsys):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    demo._table(1, 0)
    assert err.getvalue() == ""
