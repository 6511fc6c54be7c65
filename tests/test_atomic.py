"""tictacgo.atomic: whole new file or the old one, never half a file or a stray temporary."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tictacgo import atomic
from tictacgo.atomic import atomic_write, atomic_write_bytes, atomic_write_json, atomic_write_text


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_text_is_written_and_replaces_the_old_file(tmp_path):
    path = tmp_path / "out.txt"
    assert atomic_write_text(path, "old") == path
    atomic_write_text(str(path), "new\nlines")
    assert path.read_text() == "new\nlines"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_newline_empty_writes_lf_untranslated_and_encoding_is_used(tmp_path):
    path = tmp_path / "in.txt"
    atomic_write_text(path, "1\n2", encoding="ascii", newline="")
    assert path.read_bytes() == b"1\n2"
    atomic_write_text(path, "é", encoding="latin-1")
    assert path.read_bytes() == b"\xe9"


def test_bytes_and_a_write_function_in_binary_mode(tmp_path):
    path = tmp_path / "blob.bin"
    atomic_write_bytes(path, b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01"
    atomic_write(path, lambda f: f.write(b"\x89PNG"), binary=True)
    assert path.read_bytes() == b"\x89PNG"


def test_json_takes_json_keywords_and_ends_with_a_newline(tmp_path):
    path = tmp_path / "r.json"
    atomic_write_json(path, {"a": [1, 2]}, separators=(",", ":"))
    assert path.read_text() == '{"a":[1,2]}\n'
    atomic_write_json(path, {"b": 1}, indent=1)
    assert json.loads(path.read_text()) == {"b": 1}


def test_a_bare_file_name_writes_in_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    atomic_write_text("here.txt", "x")
    assert (tmp_path / "here.txt").read_text() == "x"
    assert os.listdir(tmp_path) == ["here.txt"]


def test_a_new_file_is_rw_r__r__not_private(tmp_path):
    path = tmp_path / "new.json"
    atomic_write_json(path, [])
    assert _mode(path) == atomic.NEW_FILE_MODE == 0o644


def test_the_old_files_mode_is_kept(tmp_path):
    path = tmp_path / "kept.txt"
    path.write_text("old")
    os.chmod(path, 0o600)
    atomic_write_text(path, "new")
    assert _mode(path) == 0o600
    os.chmod(path, 0o664)
    atomic_write_text(path, "newer")
    assert _mode(path) == 0o664 and path.read_text() == "newer"


def test_failure_mid_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "results.json"
    atomic_write_json(path, {"old": True})
    before = path.read_bytes()

    def half_then_disk_full(f):
        f.write('{"new": [1, 2')
        raise OSError("no space left on device")

    with pytest.raises(OSError, match="no space"):
        atomic_write(path, half_then_disk_full)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["results.json"]


def test_json_that_cannot_be_encoded_keeps_the_old_file(tmp_path):
    path = tmp_path / "r.json"
    atomic_write_json(path, {"old": True})
    with pytest.raises(TypeError):
        atomic_write_json(path, {"new": object()})
    assert json.loads(path.read_text()) == {"old": True}
    assert os.listdir(tmp_path) == ["r.json"]


def test_unencodable_text_keeps_the_old_file(tmp_path):
    path = tmp_path / "output.txt"
    atomic_write_text(path, "C3", encoding="ascii")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "C\u00e9", encoding="ascii")
    assert path.read_text() == "C3"
    assert os.listdir(tmp_path) == ["output.txt"]


def test_a_failed_rename_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "q.json"
    atomic_write_json(path, {"old": True})

    def broken_replace(src, dst):
        raise PermissionError("rename refused")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(PermissionError):
        atomic_write_json(path, {"new": True})
    assert json.loads(path.read_text()) == {"old": True}
    assert os.listdir(tmp_path) == ["q.json"]


def test_keyboard_interrupt_keeps_the_old_file(tmp_path):
    path = tmp_path / "t.txt"
    atomic_write_text(path, "old")

    def interrupted(f):
        f.write("ne")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, interrupted)
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["t.txt"]


def test_a_bad_encoding_name_raises_and_leaves_nothing(tmp_path):
    path = tmp_path / "x.txt"
    with pytest.raises(LookupError):
        atomic_write_text(path, "x", encoding="no-such-codec")
    assert os.listdir(tmp_path) == []


def test_a_missing_folder_is_an_error_not_a_new_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write_text(tmp_path / "missing" / "x.txt", "x")
    assert os.listdir(tmp_path) == []


# --------------------------------------------------------------------------- what is never replaced


@pytest.mark.parametrize("write", [
    lambda p: atomic_write_text(p, "x"),
    lambda p: atomic_write_json(p, {"x": 1}),
    lambda p: atomic_write_bytes(p, b"x"),
])
def test_a_named_pipe_at_the_path_is_refused_and_stays_a_pipe(tmp_path, write):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"'.*f' is a named pipe; expected a regular file"):
        write(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["f"]


def test_a_folder_at_the_path_is_refused_and_kept(tmp_path):
    folder = tmp_path / "results.json"
    folder.mkdir()
    (folder / "inside").write_text("kept")
    with pytest.raises(ValueError, match="is a folder; expected a regular file"):
        atomic_write_json(folder, {})
    assert (folder / "inside").read_text() == "kept"
    assert sorted(os.listdir(tmp_path)) == ["results.json"]


def test_a_socket_at_the_path_is_refused(tmp_path):
    import socket

    path = tmp_path / "s"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        with pytest.raises(ValueError, match="is a socket"):
            atomic_write_text(path, "x")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        sock.close()


def test_something_appearing_at_the_path_during_the_write_is_not_replaced(tmp_path):
    path = tmp_path / "late"

    def write_while_a_pipe_appears(f):
        f.write("x")
        os.mkfifo(path)

    with pytest.raises(ValueError, match="named pipe"):
        atomic_write(path, write_while_a_pipe_appears)
    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    assert os.listdir(tmp_path) == ["late"]


def test_an_empty_path_is_refused():
    with pytest.raises(ValueError, match="empty"):
        atomic_write_text("", "x")


def test_check_writable_accepts_a_new_or_regular_file_and_leaves_nothing(tmp_path):
    assert atomic.check_writable(tmp_path / "new.json") == tmp_path / "new.json"
    (tmp_path / "old.json").write_text("old")
    atomic.check_writable(tmp_path / "old.json")
    assert os.listdir(tmp_path) == ["old.json"] and (tmp_path / "old.json").read_text() == "old"


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing" / "x.json", "folder .* does not exist"),
    (lambda d: (d / "file").write_text("") or d / "file" / "x.json", "is not a folder"),
    (lambda d: d, "is a folder"),
    (lambda d: "", "empty"),
    (lambda d: "/proc/x.json", "cannot create a file in '/proc'"),
])
def test_check_writable_refuses_what_a_later_write_could_not_do(tmp_path, make, message):
    with pytest.raises(ValueError, match=message):
        atomic.check_writable(make(tmp_path))


def test_same_file_sees_one_file_through_links_and_spellings_and_tells_two_apart(tmp_path):
    from tictacgo.atomic import same_file

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("1")
    b.write_text("1")
    (tmp_path / "link").symlink_to(a)
    os.link(a, tmp_path / "hard")
    (tmp_path / "sub").mkdir()
    for other in (a, tmp_path / "link", tmp_path / "hard", tmp_path / "sub" / ".." / "a.json"):
        assert same_file(a, other) and same_file(other, a)
    assert not same_file(a, b)
    assert same_file(tmp_path / "new.json", tmp_path / "sub" / ".." / "new.json")  # neither exists yet
    assert not same_file(tmp_path / "new.json", a)
