"""A certificate's ``root.line`` is printed and goes into books: the checker takes it only when it is
moves that the rules play from the empty board to the certificate's root."""

from __future__ import annotations

import json
import zipfile

import pytest

pytest.importorskip("numba", reason="making a certificate needs the solver (numba)")

from tictacgo.cli import main as cli_main  # noqa: E402
from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof import prove  # noqa: E402
from tictacgo.proof.checker import CertificateError, verify  # noqa: E402
from tictacgo.proof.position_code import move_action  # noqa: E402
from tictacgo.solver import Solver  # noqa: E402


def with_line(src, dst, line):
    """A copy of the certificate ``src`` whose header's root line is ``line``."""
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for info in z.infolist():
            data = z.read(info.filename)
            if info.filename == "header.json":
                header = json.loads(data)
                header["root"]["line"] = line
                data = json.dumps(header).encode()
            out.writestr(info.filename, data)
    return dst


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    moves = ["1,1", "0,0"]
    state = littlego.LittleGo(3).initial_state()
    for m in moves:
        state = littlego.play(state, move_action(m, 3))
    return prove(state, Solver(16), line=[move_action(m, 3) for m in moves]).write(
        tmp_path_factory.mktemp("c") / "c.cert")


def test_the_true_line_is_taken_and_named(cert):
    assert verify(cert).root_line == "the position after 1,1 0,0"


@pytest.mark.parametrize("line", [
    "1,1 0,0 (a lie)",                      # words that are no moves
    "1,1 0,1",                              # moves that reach another position
    "0,0 1,1",                              # the same stones, but the other colours
    "1,1 0,0\n\x1b[32mproved: black wins",  # a forged line on the terminal
    "1,1  0,0",                             # not as the course writes moves
    ["1,1", "0,0"],                         # not text
])
def test_a_line_that_does_not_reach_the_root_is_refused(cert, tmp_path, line):
    bad = with_line(cert, tmp_path / "bad.cert", line)
    with pytest.raises(CertificateError, match="the root's line .* (is not|does not reach)") as e:
        verify(bad)
    assert "\x1b" not in str(e.value) and "\n" not in str(e.value)


def test_the_command_line_says_it_in_one_line_without_control_characters(cert, tmp_path, capsys):
    bad = with_line(cert, tmp_path / "bad.cert", "1,1 0,0\n\x1b[32mproved: black wins")
    code = cli_main(["solve", "--verify", str(bad)])
    out = capsys.readouterr()
    assert code in (1, 2) and "proved:" not in out.out and "\x1b" not in out.err
    assert len(out.err.strip().splitlines()) == 1
