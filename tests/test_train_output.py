"""tictacgo train --out: refused in one line with exit status 2 before any training, never overwritten."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

from tictacgo.cli import main

pytestmark = pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None,
                                reason="needs the train extra")

TINY = ["train", "tictactoe", "--steps", "8", "--n-envs", "1", "--eval-games", "1", "--no-progress"]


def _refused(argv, capsys, *words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for w in words:
        assert w in err, err
    return err


def test_an_out_that_is_a_device_or_a_file_is_refused(tmp_path, capsys):
    _refused([*TINY, "--out", "/dev/null"], capsys, "/dev/null", "not a folder")
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    _refused([*TINY, "--out", str(f)], capsys, "notes.txt", "not a folder")
    assert f.read_text() == "keep me"


def test_an_empty_out_is_an_error_not_the_default_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _refused([*TINY, "--out", ""], capsys, "--out")
    assert not (tmp_path / "runs").exists()


def test_an_out_that_cannot_be_created_is_refused(tmp_path, capsys):
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    _refused([*TINY, "--out", str(f / "run")], capsys, "cannot create")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_an_out_in_a_read_only_folder_is_refused(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        _refused([*TINY, "--out", str(ro / "run")], capsys, "cannot create")
    finally:
        ro.chmod(0o700)


def test_a_folder_with_an_earlier_run_is_refused_without_resume_or_force(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "best_model.zip").write_bytes(b"earlier run")
    _refused([*TINY, "--out", str(out)], capsys, "--resume", "--force")
    assert (out / "best_model.zip").read_bytes() == b"earlier run"
    assert [p.name for p in out.iterdir()] == ["best_model.zip"]  # not even a lock file


def test_force_accepts_a_folder_with_an_earlier_run(tmp_path):
    from tictacgo.baselines.learning.training_config import check_output_folder

    out = tmp_path / "run"
    out.mkdir()
    (out / "progress.json").write_text("{}")
    with pytest.raises(ValueError, match="already holds a run"):
        check_output_folder(out)
    assert check_output_folder(out, force=True) == out


def test_resume_with_a_progress_file_without_history_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "checkpoint.zip").write_bytes(b"not read")
    (out / "progress.json").write_text(json.dumps({"config": {}}))
    _refused([*TINY, "--out", str(out), "--resume"], capsys, "progress.json", "history")
    (out / "progress.json").write_text("not json")
    _refused([*TINY, "--out", str(out), "--resume"], capsys, "progress.json")
    _refused([*TINY, "--out", str(tmp_path / "empty"), "--resume"], capsys, "nothing to resume")


def test_alphazero_refuses_a_folder_with_an_earlier_run_without_resume_or_force(tmp_path, capsys):
    out = tmp_path / "az"
    out.mkdir()
    (out / "model.pt").write_bytes(b"earlier run")
    argv = ["train", "tictactoe", "--algo", "alphazero", "--max-seconds", "1", "--out", str(out)]
    _refused(argv, capsys, "--resume", "--force")
    assert (out / "model.pt").read_bytes() == b"earlier run"
    _refused(["train", "tictactoe", "--algo", "alphazero", "--out", ""], capsys, "out")
