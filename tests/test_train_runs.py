"""tictacgo train: settings checked before anything is written, one run a folder, whole checkpoints,
damaged resume state refused in one line, non-finite runs stopped, a full disk survived."""

from __future__ import annotations

import dataclasses
import errno
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
import typing

import pytest

from tictacgo.cli import main

torch = pytest.importorskip("torch")

from tictacgo.baselines.learning.alphazero import modelfile  # noqa: E402
from tictacgo.baselines.learning.alphazero.network import load_model  # noqa: E402
from tictacgo.baselines.learning.alphazero.replay import ReplayBuffer  # noqa: E402
from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig  # noqa: E402
from tictacgo.baselines.learning.training_config import LOCK_FILE, TrainConfig, run_lock  # noqa: E402
from tictacgo.validate import setting_flag  # noqa: E402

AZ = ["train", "tictactoe", "--algo", "alphazero", "--channels", "4", "--blocks", "1", "--num-games", "8",
      "--simulations", "2", "--batch-size", "16", "--min-buffer", "16", "--buffer-size", "500",
      "--max-seconds", "0", "--no-progress", "--no-tensorboard"]
PPO = ["train", "tictactoe", "--steps", "8", "--n-envs", "1", "--eval-games", "1", "--no-progress"]


def _status(argv) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse's own refusals
        return e.code


def _one_line(capsys, *words) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for w in words:
        assert w in err, err
    return err


def _az(out, positions: int, *extra) -> list[str]:
    return [*AZ, "--out", str(out), "--max-positions", str(positions), *extra]


# -- every numeric setting, checked before anything is written -----------------------------------

def _numeric_fields(cls):
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        kind = hints[f.name]
        base = [a for a in typing.get_args(kind) if a is not type(None)] or [kind]
        if base[0] in (int, float) or typing.get_args(base[0]) in ((int,), (float,)):
            yield f, (float if float in (base[0], *typing.get_args(base[0])) else int)


def _out_of_range(f, kind) -> str:
    meta = f.metadata
    if "min" in meta:
        return str(meta["min"] - 1)
    if meta.get("positive"):
        return "0"
    return str(meta["max"] + 1)


NUMERIC = [(algo, f, kind) for algo, cls in (("ppo", TrainConfig), ("alphazero", AlphaZeroConfig))
           for f, kind in _numeric_fields(cls)]


@pytest.mark.parametrize("cls", [TrainConfig, AlphaZeroConfig])
def test_every_numeric_setting_declares_its_bounds(cls):
    for f, _ in _numeric_fields(cls):
        assert {"min", "max", "positive"} & set(f.metadata), f"{cls.__name__}.{f.name} declares no bounds"


@pytest.mark.parametrize("algo,field,kind", NUMERIC, ids=[f"{a}-{f.name}" for a, f, _ in NUMERIC])
def test_every_numeric_flag_refuses_nan_inf_and_out_of_range_before_out_is_created(tmp_path, capsys, algo,
                                                                                   field, kind):
    flag = setting_flag(field)
    out = tmp_path / "run"
    base = [*AZ, "--max-positions", "8"] if algo == "alphazero" else PPO
    for value in ("nan", "inf", "-inf", _out_of_range(field, kind)):
        assert _status([*base, "--out", str(out), f"{flag}={value}"]) == 2, (flag, value)
        err = capsys.readouterr().err
        assert "Traceback" not in err and flag in err.strip().splitlines()[-1], (flag, value, err)
        if kind is float or value not in ("nan", "inf", "-inf"):  # argparse refuses an int "nan" itself
            assert len(err.strip().splitlines()) == 1, err
        assert not out.exists(), (flag, value)


def test_a_refused_setting_names_the_flag_and_the_value(tmp_path, capsys):
    assert main([*AZ, "--out", str(tmp_path / "run"), "--max-positions", "8", "--min-buffer", "-5"]) == 2
    _one_line(capsys, "--min-buffer must be", "-5")
    assert main([*AZ, "--out", str(tmp_path / "run"), "--max-positions", "8", "--min-buffer", "600"]) == 2
    _one_line(capsys, "--min-buffer", "--buffer-size")
    assert main([*AZ, "--out", str(tmp_path / "run"), "--max-seconds", "0"]) == 2
    _one_line(capsys, "never stops")
    assert not (tmp_path / "run").exists()


# -- one run a folder -------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [AZ + ["--max-positions", "8"], PPO], ids=["alphazero", "ppo"])
def test_a_second_run_into_a_folder_in_use_is_refused_in_one_line(tmp_path, capsys, argv):
    out = tmp_path / "run"
    out.mkdir()
    with run_lock(out):  # the first run, still going
        assert main([*argv, "--out", str(out), "--force"]) == 2
        _one_line(capsys, "in use by another training run", f"process {os.getpid()}")
    assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE]


def test_the_lock_of_a_killed_run_is_taken_over(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    code = ("import os, signal, sys; from tictacgo.baselines.learning.training_config import run_lock\n"
            f"with run_lock({str(out)!r}):\n    os.kill(os.getpid(), signal.SIGKILL)\n")
    killed = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert (out / LOCK_FILE).read_text().strip().isdigit()  # the dead run's lock file is still there
    assert main(_az(out, 8)) == 0
    assert load_model(out)[2]["info"]["positions"] == 8


# -- checkpoints whole; resume from the last whole one -------------------------------------------

@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny AlphaZero run with two checkpoints (8 and 96 positions)."""
    out = tmp_path_factory.mktemp("az") / "run"
    assert main(_az(out, 8)) == 0
    assert main([*_az(out, 96), "--resume"]) == 0
    return out


def _copy(trained, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(trained, out)
    return out


def test_resume_after_a_kill_between_model_pt_and_model_json_restores_a_whole_model(trained, tmp_path,
                                                                                    capsys):
    out = _copy(trained, tmp_path)
    # What a kill between the two writes leaves: model.pt of another network, model.json of the last.
    shutil.copyfile(out / "checkpoints" / "000000008" / "model.pt", out / "model.pt")
    with pytest.raises(ValueError, match="not the weights"):
        load_model(out)
    assert main([*_az(out, 112), "--resume"]) == 0
    assert "restored them from checkpoints/000000096" in capsys.readouterr().out
    assert load_model(out)[2]["info"]["positions"] == 112


class Killed(BaseException):
    """A kill: nothing after it runs (no except clause of the trainer catches it)."""


def test_a_run_killed_while_publishing_its_checkpoint_resumes_from_the_last_whole_one(trained, tmp_path,
                                                                                     monkeypatch):
    out = _copy(trained, tmp_path)
    place = modelfile._place

    def die_after_weights(tmp, target):
        place(tmp, target)
        if target.name == modelfile.WEIGHTS_FILE:
            raise Killed

    monkeypatch.setattr(modelfile, "_place", die_after_weights)
    with pytest.raises(Killed):
        main([*_az(out, 112), "--resume"])
    monkeypatch.undo()
    state = json.loads((out / "resume" / "progress.json").read_text())
    assert state["progress"]["positions"] == 96 and state["model"] == "checkpoints/000000096"
    assert main([*_az(out, 112), "--resume"]) == 0
    net, _, meta = load_model(out)
    assert meta["info"]["positions"] == 112


def test_a_run_saved_in_the_earlier_resume_layout_still_resumes(trained, tmp_path):
    out = _copy(trained, tmp_path)
    resume = out / "resume"
    state = json.loads((resume / "progress.json").read_text())
    os.replace(resume / state.pop("optimizer"), resume / "optimizer.pt")
    os.replace(resume / state.pop("replay"), resume / "replay.npz")
    del state["model"]
    (resume / "progress.json").write_text(json.dumps(state))
    assert main([*_az(out, 112), "--resume"]) == 0
    state = json.loads((resume / "progress.json").read_text())
    assert sorted(p.name for p in resume.iterdir()) == sorted(["progress.json", state["optimizer"],
                                                                state["replay"]])
    assert load_model(out)[2]["info"]["positions"] == 112


def test_what_a_killed_run_left_half_written_is_cleaned_up_on_resume(trained, tmp_path):
    out = _copy(trained, tmp_path)
    half = out / "checkpoints" / ".000000104.tmp-999"
    half.mkdir()
    (half / "model.pt").write_bytes(b"half")
    (out / ".model.pt.publish-999.tmp").write_bytes(b"half")
    os.replace(out / "checkpoints" / "000000008", out / "checkpoints" / ".000000008.old-999")
    assert main([*_az(out, 112), "--resume"]) == 0
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["000000008", "000000096", "000000112"]
    assert not list(out.glob(".model.*"))


def test_a_full_disk_during_a_checkpoint_stops_in_one_line_and_keeps_the_previous_one(trained, tmp_path,
                                                                                     capsys, monkeypatch):
    out = _copy(trained, tmp_path)
    before = (out / "model.json").read_bytes()

    def full(self, path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(ReplayBuffer, "save", full)
    assert main([*_az(out, 112), "--resume"]) == 1
    _one_line(capsys, "No space left on device", "previous checkpoint is kept")
    monkeypatch.undo()
    assert not [p for p in (out / "checkpoints").iterdir() if p.name.startswith(".")]
    assert main([*_az(out, 112), "--resume"]) == 0
    assert "resuming" in capsys.readouterr().out
    assert (out / "model.json").read_bytes() != before and load_model(out)[2]["info"]["positions"] == 112


def test_a_full_disk_at_the_first_checkpoint_leaves_no_run_behind(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"

    def full(self, path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(ReplayBuffer, "save", full)
    assert main(_az(out, 8)) == 1
    _one_line(capsys, "No space left on device", "nothing of the run is left")
    monkeypatch.undo()
    held = [p.name for p in out.iterdir() if p.name in ("model.pt", "config.json", "resume", "checkpoints")]
    assert held == []  # no run: neither --resume nor --force is needed
    assert main(_az(out, 8)) == 0  # the same command again
    assert load_model(out)[2]["info"]["positions"] == 8


def _nested(path):
    path.write_text("[" * 100_000 + "]" * 100_000)


def _rewrite_state(change):
    def damage(path):
        state = json.loads(path.read_text())
        change(state)
        path.write_text(json.dumps(state))
    return damage


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


DAMAGE = {
    "progress.json nested too deeply": ("progress.json", _nested, "nested too deeply"),
    "progress.json a list": ("progress.json", lambda p: p.write_text("[1, 2]"), "not a resume state"),
    "progress.json without rng": ("progress.json", _rewrite_state(lambda s: s.pop("rng")), "rng"),
    "progress.json with a bad rng": ("progress.json", _rewrite_state(lambda s: s.update(rng={"x": 1})),
                                     "rng"),
    "progress.json with a negative count": (
        "progress.json", _rewrite_state(lambda s: s["progress"].update(positions=-1)), "positions"),
    "progress.json naming a file elsewhere": (
        "progress.json", _rewrite_state(lambda s: s.update(optimizer="../../x.pt")), "optimizer"),
    "optimizer garbage": ("optimizer", lambda p: p.write_bytes(b"garbage" * 100), "optimizer"),
    "optimizer missing": ("optimizer", lambda p: p.unlink(), "missing"),
    "replay truncated": ("replay", _truncate, "replay"),
    "replay missing": ("replay", lambda p: p.unlink(), "missing"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_resume_with_damaged_state_is_refused_in_one_line(trained, tmp_path, capsys, damage):
    out = _copy(trained, tmp_path)
    which, spoil, words = DAMAGE[damage]
    state = json.loads((out / "resume" / "progress.json").read_text())
    spoil(out / "resume" / (state[which] if which in state else which))
    assert main([*_az(out, 112), "--resume"]) == 2
    _one_line(capsys, "cannot resume", words)


# -- non-finite runs and budgets --------------------------------------------------------------

def test_a_run_whose_loss_becomes_non_finite_stops_and_keeps_the_last_finite_checkpoint(trained, tmp_path,
                                                                                       capsys):
    out = _copy(trained, tmp_path)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert main([*_az(out, 400), "--resume", "--learning-rate", "1e30"]) == 1
    _one_line(capsys, "diverged", "--learning-rate")
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name != LOCK_FILE} == \
        {k: v for k, v in before.items() if k != LOCK_FILE}
    net, _, meta = load_model(out)
    assert meta["info"]["positions"] == 96
    assert all(bool(torch.isfinite(t).all()) for t in net.state_dict().values() if t.is_floating_point())


def test_a_run_that_fails_before_its_first_checkpoint_leaves_no_run_behind(tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*_az(out, 400), "--learning-rate", "1e30"]) == 1
    _one_line(capsys, "diverged")
    assert main(_az(out, 8)) == 0  # the corrected rerun, without --force


def test_the_gradient_loop_stops_at_max_seconds_however_many_steps_are_due(tmp_path):
    out = tmp_path / "run"
    started = time.perf_counter()
    assert main([*AZ, "--out", str(out), "--replay-ratio", "1e9", "--max-seconds", "2",
                 "--checkpoint-every", "1000"]) == 0
    assert time.perf_counter() - started < 60
    assert 0 < load_model(out)[2]["info"]["gradient_steps"] < 1e6


# -- missing optional dependencies ------------------------------------------------------------

@pytest.mark.parametrize("argv", [["train", "tictactoe", "--algo", "alphazero", "--max-seconds", "1"],
                                  ["train", "tictactoe", "--algo", "alphazero", "--help"],
                                  ["train", "tictactoe", "--steps", "8"]],
                         ids=["alphazero", "alphazero-help", "ppo"])
def test_train_without_torch_says_which_extra_to_install_in_one_line(tmp_path, argv):
    code = f"import sys; sys.modules['torch'] = None\nfrom tictacgo.cli import main\nsys.exit(main({argv!r}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == ("tictacgo train: error: training needs the train extra: "
                                   "pip install 'tictacgo[train]'")
    assert not (tmp_path / "runs").exists()


def test_train_without_matplotlib_says_the_learning_curve_was_skipped(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main([*PPO, "--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "learning_curve.png skipped: matplotlib is missing" in out
    assert "learning_curve.png" not in out.strip().splitlines()[-1]
    assert not (tmp_path / "run" / "learning_curve.png").exists()


def test_ppo_resume_with_a_deeply_nested_progress_file_is_refused_in_one_line(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    out.mkdir()
    (out / "checkpoint.zip").write_bytes(b"not read")
    _nested(out / "progress.json")
    assert main([*PPO, "--out", str(out), "--resume"]) == 2
    _one_line(capsys, "progress.json", "nested too deeply")


def test_max_seconds_is_finite_in_every_budget():
    for value in (math.nan, math.inf):
        with pytest.raises(ValueError, match="--max-seconds"):
            AlphaZeroConfig(max_seconds=value, max_positions=100)


def test_ppo_stops_in_one_line_when_the_disk_refuses_a_checkpoint(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from tictacgo.baselines.learning import training

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(training, "atomic_write_json", full)
    assert main([*PPO, "--out", str(tmp_path / "run")]) == 1
    _one_line(capsys, "No space left on device", "kept")


def test_ppo_stops_a_run_whose_weights_become_non_finite_without_saving_them(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    status = main([*PPO, "--out", str(out), "--steps", "512", "--n-steps", "64", "--batch-size", "32",
                   "--eval-every", "256", "--learning-rate", "1e30"])
    assert status == 1
    _one_line(capsys, "step")
    from tictacgo.baselines.learning.model_zip import read_model_zip

    _, loaded = read_model_zip(out / "checkpoint.zip", ("policy.pth",))
    assert all(bool(torch.isfinite(t).all()) for t in loaded["policy.pth"].values() if t.is_floating_point())


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_device_cuda_without_cuda_is_refused_before_out_is_created(tmp_path, capsys):
    assert main([*_az(tmp_path / "run", 8), "--device", "cuda"]) == 2
    _one_line(capsys, "--device cuda", "no CUDA device")
    assert not (tmp_path / "run").exists()


def test_check_settings_checks_each_field_against_its_declared_bounds_and_names_its_flag():
    from tictacgo.baselines.learning.training_config import setting
    from tictacgo.validate import check_settings

    @dataclasses.dataclass
    class Settings:
        rate: float = setting(0.5, "A rate.", min=0, max=1)
        sizes: list[int] = setting([4], "Sizes.", min=1)
        limit: int | None = setting(None, "A limit.", min=0, flags=("--cap",))
        mode: str = setting("a", "A mode.", choices=("a", "b"))

    check_settings(Settings())
    for changes, words in [({"rate": math.nan}, "--rate must be a finite number in [0, 1], got nan"),
                           ({"rate": 2}, "--rate"), ({"sizes": [4, 0]}, "--sizes must be a positive int"),
                           ({"limit": -1}, "--cap must be"), ({"limit": 1.5}, "--cap"),
                           ({"mode": "c"}, "--mode must be one of"), ({"rate": True}, "--rate")]:
        with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
            check_settings(dataclasses.replace(Settings(), **changes))


@pytest.mark.parametrize("algo, flag, value", [("maskable-ppo", "--learning-rate", "nan"),
                                               ("a2c", "--steps", "-5")])
def test_the_training_script_refuses_a_bad_setting_in_one_line(tmp_path, algo, flag, value):
    out = tmp_path / "run"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "scripts", "train_sb3.py")
    done = subprocess.run([sys.executable, path, "--algo", algo, flag, value, "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and flag in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


def test_a_refused_alphazero_run_prints_only_its_error(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(_az(out, 8)) == 0
    capsys.readouterr()
    assert main(_az(out, 8)) == 2  # the folder already holds a run: refused before any training
    printed = capsys.readouterr()
    assert "training tictactoe into" not in printed.out and "already holds a run" in printed.err
