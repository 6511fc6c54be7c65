"""The solver and proof commands on hostile input, and every command on a full disk or a closed pipe:
one line on stderr and the documented status (docs/errors.md), never a traceback (issue 46, items
9-16 and 20)."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from tictacgo.cli import main

pytest.importorskip("numba", reason="the solver commands need numba (the fast extra)")

ROOT = Path(__file__).resolve().parents[1]
CERT_3X3 = ROOT / "docs" / "data" / "certificates" / "littlego_3x3_empty.cert"  # the empty 3x3: White wins


def _script(name: str, argv: list[str]) -> subprocess.CompletedProcess:
    """``scripts/NAME.py ARGV`` run as a command."""
    return subprocess.run([sys.executable, str(ROOT / "scripts" / f"{name}.py"), *argv], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


def _one_line(err: str) -> str:
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def _run_script(name: str, argv: list[str]) -> tuple[int, str]:
    """A script's exit status (argparse's errors included) and its stderr."""
    done = _script(name, argv)
    return done.returncode, done.stderr


def _bad_certificate(tmp_path: Path, change, name: str = "bad.cert") -> Path:
    with zipfile.ZipFile(CERT_3X3) as z:
        members = {n: z.read(n) for n in z.namelist()}
    header = json.loads(members["header.json"])
    members["header.json"] = change(header) if callable(change) else change
    if isinstance(members["header.json"], dict):
        members["header.json"] = json.dumps(members["header.json"]).encode()
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in members.items():
            z.writestr(n, data)
    return path


BAD_HEADERS = {
    "claim a list": lambda h: {**h, "claim": ["white wins"]},
    "komi of 310 digits": lambda h: json.dumps(h).replace('"komi": 1.5', '"komi": 1' + "0" * 309).encode(),
    "komi 1e400": lambda h: json.dumps(h).replace('"komi": 1.5', '"komi": 1e400').encode(),
    "nested 100,000 deep": lambda h: json.dumps(h).encode()[:-1] + b', "x": ' + b"[" * 10**5 + b"]" * 10**5
    + b"}",
}


# --- item 9: certificate headers of the wrong type or depth -------------------------------------------

@pytest.mark.parametrize("case", sorted(BAD_HEADERS))
def test_solve_verify_refuses_a_malformed_header_in_one_line_exit_2(case, tmp_path, capsys):
    path = _bad_certificate(tmp_path, BAD_HEADERS[case])
    assert main(["solve", "--verify", str(path)]) == 2
    assert str(path) in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("case", sorted(BAD_HEADERS))
def test_combine_proofs_refuses_a_malformed_certificate_header_in_one_line_exit_2(case, tmp_path, capsys):
    path = _bad_certificate(tmp_path, BAD_HEADERS[case])
    status, err = _run_script("combine_proofs", [str(path)])
    assert status == 2 and str(path) in _one_line(err)


# --- items 5 and 10: result files that are not regular files or not bounded JSON ----------------------

@pytest.mark.parametrize("text, message", [
    ('{"size": 3, "komi": 1.5, "max_actions": 8, "line": ["1,1"], "positions": [{"taken": 1e400, '
     '"value_for_black": 1}]}', "1e400 is not finite"),
    ("[" * 200_000 + "]" * 200_000, "nest 200,000 deep"),
    ('{"size": 3, "komi": 1.5, "max_actions": 8, "line": ["1,1"], "positions": [{"taken": '
     + "1" * 400 + ', "value_for_black": 1}]}', "an integer of 400 digits"),
])
def test_combine_proofs_refuses_a_frontier_file_that_is_not_bounded_json(text, message, tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(text)
    status, err = _run_script("combine_proofs", [str(path)])
    assert status == 2 and message in _one_line(err) and str(path) in err


def _unblocked(fifo: Path, fn):
    """``fn()`` run in a thread; if it blocks on ``fifo`` (a reader that opens it plainly waits for a
    writer), the pipe is opened for writing to let it go and the test fails."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 (handed back to the test)
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        t.join(30)
        pytest.fail("the command blocked on a named pipe")
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_the_proof_commands_refuse_a_named_pipe_without_waiting_on_it(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    status, err = _unblocked(fifo, lambda: _run_script("combine_proofs", [str(fifo)]))
    assert status == 2 and "a named pipe, not a regular file" in _one_line(err)
    argv = [str(fifo), "--dir", str(tmp_path / "d")]
    status, err = _unblocked(fifo, lambda: _run_script("certify_leaves", argv))
    assert status == 2 and "a named pipe, not a regular file" in _one_line(err)
    assert _unblocked(fifo, lambda: main(["solve", "--verify", str(fifo)])) == 2
    assert "a named pipe, not a regular file" in _one_line(capsys.readouterr().err)
    assert _unblocked(fifo, lambda: main(["solve", "--book", str(tmp_path / "o.book"), "--frontier",
                                          str(fifo)])) == 2
    assert "a named pipe, not a regular file" in _one_line(capsys.readouterr().err)


# --- item 11: solve --book --frontier checks every entry ------------------------------------------------

def _frontier(tmp_path: Path, line: list[str], positions, **extra) -> Path:
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"size": 3, "komi": 1.5, "max_actions": 8, "line": line,
                                "positions": positions, **extra}))
    return path


@pytest.mark.parametrize("entry, message", [
    ({"taken": 4, "value_for_black": 1, "best_move": "0,0"}, "position 0 of the run .* taken 4"),
    ({"taken": 1, "value_for_black": "1", "best_move": "0,0"}, "value_for_black '1', expected -1, 0, 1"),
    ({"taken": 1, "value_for_black": 300, "best_move": "0,0"}, "value_for_black 300"),
    ({"taken": 1, "value_for_black": 5, "best_move": "0,0"}, "value_for_black 5"),
    ({"taken": 1, "value_for_black": 0.5, "best_move": "0,0"}, "value_for_black 0.5"),
    ({"taken": 1, "value_for_black": True, "best_move": "0,0"}, "value_for_black True"),
    ({"taken": "1", "value_for_black": 1, "best_move": "0,0"}, "taken '1'"),
    ({"taken": 1, "value_for_black": -1, "best_move": "1,1"}, "best_move '1,1' is illegal there"),
    ({"taken": 1, "value_for_black": -1, "best_move": 7}, "best_move: move 7 is not i,j"),
    ([1, 2], "position 0 of the run is not a frontier entry .*a JSON list"),
])
def test_solve_book_checks_every_frontier_entry_and_writes_nothing_for_a_bad_one(entry, message, tmp_path,
                                                                                  capsys):
    # the game ends at move 3 (two passes); the entry names a position on the line or after its end
    path = _frontier(tmp_path, ["1,1", "PASS", "PASS", "0,0"], [entry])
    out = tmp_path / "out.book"
    assert main(["solve", "--book", str(out), "--frontier", str(path)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(path) in line and re.search(message, line), line
    assert not out.exists()


def test_solve_book_refuses_a_deeply_nested_frontier_file(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text('{"size": 3, "positions": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert main(["solve", "--book", str(tmp_path / "o.book"), "--frontier", str(path)]) == 2
    assert "nest 100,001 deep" in _one_line(capsys.readouterr().err)


def test_solve_book_takes_a_good_frontier_entry(tmp_path, capsys):
    # after 1,1 White (to move) wins by 0,0 in this made-up run: White's move enters the book
    path = _frontier(tmp_path, ["1,1"], [{"taken": 1, "value_for_black": -1, "best_move": "0,0"},
                                         {"taken": 0, "value_for_black": None, "best_move": None}])
    out = tmp_path / "out.book"
    assert main(["solve", "--book", str(out), "--frontier", str(path)]) == 0
    assert "1 position of its line" in capsys.readouterr().out


# --- items 12 and 13: numeric options ----------------------------------------------------------------------

@pytest.mark.parametrize("args, flag", [
    (["--max-mb", "inf"], "--max-mb"), (["--max-mb", "nan"], "--max-mb"), (["--max-mb", "0"], "--max-mb"),
    (["--time-limit", "inf"], "--time-limit"), (["--time-limit", "nan"], "--time-limit"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--max-actions", "200"], "--max-actions"), (["--max-actions", "100000000"], "--max-actions"),
    (["--max-actions", "0"], "--max-actions"), (["--komi", "inf"], "--komi"), (["--komi", "5000"], "--komi"),
    (["--table-bits", "99"], "--table-bits"),
])
@pytest.mark.parametrize("mode", ["solve", "certificate", "verify"])
def test_solve_refuses_a_number_out_of_range_naming_its_flag(args, flag, mode, tmp_path, capsys):
    extra = {"solve": [], "certificate": ["--certificate", str(tmp_path / "x.cert")],
             "verify": ["--verify", str(CERT_3X3)]}[mode]
    assert main(["solve", "--size", "3", *args, *extra]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"tictacgo solve: error: {flag} must be") and args[1] in line, line
    assert not (tmp_path / "x.cert").exists()


@pytest.mark.parametrize("args, flag", [
    (["--max-mb", "inf"], "--max-mb"), (["--max-mb", "nan"], "--max-mb"),
    (["--table-bits", "40"], "--table-bits"), (["--depth", "0"], "--depth"), (["--depth", "500"], "--depth"),
    (["--checks-at-once", "0"], "--checks-at-once"), (["--book-until", "-1"], "--book-until"),
])
def test_certify_leaves_refuses_a_number_out_of_range_naming_its_flag(args, flag, tmp_path, capsys):
    status, err = _run_script("certify_leaves", [str(CERT_3X3), "--dir", str(tmp_path / "d"), *args])
    assert status == 2 and f"{flag} must be" in err and "Traceback" not in err
    assert not (tmp_path / "d").exists()


# --- item 14: certify_leaves' crashes ------------------------------------------------------------

def _leaf_run(tmp_path: Path) -> Path:
    """A run proving the position after '1,1 0,0' a White win: after 1,1, White wins by 0,0 (made up)."""
    return _frontier(tmp_path, ["1,1", "0,0"], [{"taken": 2, "value_for_black": -1, "best_move": None}])


def _leaf_certificate(folder: Path) -> Path:
    """A certificate (header only read by --list) whose root is the leaf after '1,1 0,0'."""
    def root(h):
        h["root"] = {"board": ["200", "010", "000"], "previous": ["000", "010", "000"], "to_move": 1, "t": 2,
                     "line": "1,1 0,0"}
        return h
    folder.mkdir(exist_ok=True)
    return _bad_certificate(folder, root, "1-1_0-0.cert")


def test_certify_leaves_refuses_a_win_that_only_a_runs_own_value_gives(tmp_path, capsys):
    run = _frontier(tmp_path, ["1,1"], [{"taken": 1, "value_for_black": -1, "best_move": None}])
    status, err = _run_script("certify_leaves", [str(run), "--dir", str(tmp_path / "d"), "--opening", "1,1"])
    assert status == 2 and "by their own value alone" in _one_line(err)


def test_certify_leaves_refuses_an_opening_that_ends_the_game(tmp_path, capsys):
    status, err = _run_script("certify_leaves", [str(_leaf_run(tmp_path)), "--dir", str(tmp_path / "d"),
                                                 "--opening", "PASS"])
    assert status == 2 and "the opening 'PASS' ends the game" in _one_line(err)


def test_certify_leaves_list_names_a_junk_certificate_and_shows_what_a_record_lacks(tmp_path, capsys):
    run, folder = _leaf_run(tmp_path), tmp_path / "d"
    cert = _leaf_certificate(folder)
    args = [str(run), "--dir", str(folder), "--opening", "1,1", "--list"]
    for made, shown in (({"seconds": 3}, "? rows in 3 s"), ({"rows": "many", "seconds": 1}, "? rows in 1 s"),
                        ({"rows": -3, "seconds": None}, "? rows in ? s"),
                        ({"rows": 12, "seconds": 2.5}, "12 rows in 2 s")):
        cert.with_suffix(".json").write_text(json.dumps({"made": made}))
        done = _script("certify_leaves", args)
        out, err = done.stdout, done.stderr
        assert done.returncode == 0, err
        assert f"1,1 0,0: 1-1_0-0.cert, made ({shown}), not checked yet" in out and "Traceback" not in err
    (folder / "junk.cert").write_bytes(b"not a zip")
    status, err = _run_script("certify_leaves", args)
    assert status == 2 and "junk.cert" in _one_line(err)
    _bad_certificate(folder, BAD_HEADERS["claim a list"], "junk.cert")
    status, err = _run_script("certify_leaves", args)
    assert status == 2 and "claim ['white wins']" in _one_line(err)


def test_certify_leaves_refuses_a_dir_that_cannot_be_made(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    status, err = _run_script("certify_leaves", [str(_leaf_run(tmp_path)), "--dir",
                                                 str(tmp_path / "file" / "d"), "--opening", "1,1", "--list"])
    assert status == 2 and "cannot be made" in err and "Traceback" not in err


# --- item 15: leaf_records.py ------------------------------------------------------------

def _record(folder: Path, name: str, checked: dict, made: dict | None = None, raw: str | None = None) -> None:
    folder.mkdir(exist_ok=True)
    record = {"checked": {"sha256": "0" * 64, "claim": "white wins", "rows": 5, "positions": 0, "seconds": 2,
                          "at": "2026-11-27T15:00:00Z", **checked}}
    if made is not None:
        record["made"] = made
    (folder / f"{name}.json").write_text(raw if raw is not None else json.dumps(record))


def test_leaf_records_takes_records_without_positions_or_without_what_made_them(tmp_path, capsys):
    folder = tmp_path / "records"
    _record(folder, "1-1", {}, made={"moves": "1,1", "seconds": 4})            # no solver_positions
    _record(folder, "0-0", {"at": "2026-11-27T16:00:00Z"})                       # no made at all
    done = _script("leaf_records", [str(folder)])
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "| `1,1` | solver's moves | 5 | — | 4 s | 0 | 2 s |" in out
    assert "2 checked: 10 rows" in out and "us a position" not in out


def test_leaf_records_refuses_a_record_with_an_infinite_figure_naming_it(tmp_path, capsys):
    folder = tmp_path / "records"
    _record(folder, "1-1", {}, raw=json.dumps({"checked": {"claim": "white wins"}}).replace(
        '"white wins"}', '"white wins", "rows": 1e400}'))
    status, err = _run_script("leaf_records", [str(folder)])
    assert status == 2 and "1-1.json: not a check record" in _one_line(err)


def test_leaf_records_refuses_a_time_that_is_not_one(tmp_path):
    folder = tmp_path / "records"
    _record(folder, "1-1", {})
    status, err = _run_script("leaf_records", [str(folder), "--since", "yesterday"])
    assert status == 2 and "--since 'yesterday': expected a UTC time" in err and "Traceback" not in err
    done = _script("leaf_records", [str(folder), "--since", "2999-01-01T00:00:00Z"])
    assert done.returncode == 1 and "no checked records since 2999-01-01T00:00:00Z" in done.stdout


# --- items 16 and 20: a full disk or a closed pipe under stdout -------------------------------------------

class _Full(io.RawIOBase):
    """A stdout on a full disk (ENOSPC at every write), or a pipe whose reader went away."""

    def __init__(self, error: OSError):
        super().__init__()
        self.error, self.failing = error, True

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.failing:
            raise self.error
        return len(data)


@contextlib.contextmanager
def _broken_stdout(kind: str, monkeypatch):
    """sys.stdout on a full disk or a closed pipe while inside (set in the test's body: pytest's own
    capture sets sys.stdout again when the test starts)."""
    error = OSError(errno.ENOSPC, "No space left on device") if kind == "full disk" else \
        BrokenPipeError(errno.EPIPE, "Broken pipe")
    raw = _Full(error)
    with monkeypatch.context() as m:
        m.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8"))
        try:
            yield
        finally:
            raw.failing = False  # let the wrapper's last flush go nowhere


def _sgf(tmp_path: Path) -> Path:
    path = tmp_path / "game.sgf"
    path.write_text("(;GM[1]FF[4]SZ[5]KM[2.5];B[cc];W[dd])")
    return path


COMMANDS = {
    "agents": lambda tmp: ["agents"],
    "gtp": lambda tmp: ["gtp", "--agent", "random"],
    "solve --verify": lambda tmp: ["solve", "--verify", str(CERT_3X3)],
    "demo": lambda tmp: ["demo", "--games", "1", "--seed", "0"],
    "replay": lambda tmp: ["replay", str(_sgf(tmp))],
    "play": lambda tmp: ["play", "tictactoe", "--agent", "random", "--seed", "0"],
}


@pytest.mark.parametrize("kind", ["full disk", "closed pipe"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_full_disk_or_a_closed_pipe_under_stdout_is_status_1_without_a_traceback(command, kind, tmp_path,
                                                                                   monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("name\nlist_commands\n" * 200 + "quit\n"
                                                  if command == "gtp" else "".join(f"{k}\n" for k in range(
                                                      1, 10)) * 3))
    with _broken_stdout(kind, monkeypatch):
        status = main(COMMANDS[command](tmp_path))
    assert status == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if kind == "full disk":
        assert f"tictacgo {command.split()[0]}: cannot write its output: No space left on device" in err
    else:
        assert err == ""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("argv", [
    [sys.executable, "-m", "tictacgo.cli", "agents"],
    [sys.executable, str(ROOT / "scripts" / "combine_proofs.py"), str(CERT_3X3)],
], ids=["agents", "combine_proofs.py"])
def test_dev_full_gives_one_line_and_status_1(argv):
    with open("/dev/full", "w") as full:
        out = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 1, out.stderr
    assert "No space left on device" in _one_line(out.stderr)


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("yes") is None, reason="needs bash and yes")
def test_gtp_exits_1_when_its_stdout_is_closed():
    command = f"yes name | {sys.executable} -m tictacgo.cli gtp --agent random | head -1; " \
              "echo status=${PIPESTATUS[1]}"
    out = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.stdout.splitlines()[0].startswith("= ") and "status=1" in out.stdout, out
    assert "Traceback" not in out.stderr
