"""An AlphaZero run's checkpoints: each one written whole or not at all, and read back for ``--resume``.

A checkpoint is, in this order:

1. the network, saved into a new folder ``checkpoints/.<N>.tmp-<pid>`` and
   renamed to ``checkpoints/<N>`` (N: the self-play positions so far), so a
   checkpoint folder is always whole;
2. that model published as ``out/model.pt``, ``model.npz`` and ``model.json``
   (``modelfile.publish_model``: hard links renamed into place, JSON last);
3. the resume state under new names, ``resume/optimizer-<K>-<token>.pt`` and
   ``resume/replay-<K>-<token>.npz`` (K counts the checkpoints);
4. ``resume/progress.json``, written atomically: the one pointer that names
   the checkpoint folder, the optimizer and replay files, the counters and the
   generator state. Only then are the files it no longer names removed.

A run killed at any point leaves the previous pointer and everything it names
whole, so ``--resume`` continues from the last whole checkpoint; it loads the
network from the checkpoint folder the pointer names, and publishes that model
again when ``out/model.*`` is not it (a kill between two renames of step 2). A
damaged resume state (a ``progress.json`` that is not ours, an optimizer or
replay file missing or garbled) is refused with a ``ValueError`` that names
the file. Weights that are not finite are never saved (``TrainingFailed``).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tictacgo.atomic import atomic_write_bytes, atomic_write_json
from tictacgo.baselines.learning.alphazero.modelfile import META_FILE, publish_model, read_meta
from tictacgo.baselines.learning.alphazero.network import PolicyValueNet, save_model
from tictacgo.baselines.learning.alphazero.replay import ReplayBuffer
from tictacgo.baselines.learning.training_config import TrainingFailed
from tictacgo.games.base import Game
from tictacgo.validate import check_int, check_number

RESUME_DIR = "resume"
CHECKPOINTS_DIR = "checkpoints"
STATE_FILE = "progress.json"
_MODEL_NAME = re.compile(rf"{CHECKPOINTS_DIR}/\d{{9,}}")
_OPTIMIZER_NAME = re.compile(r"optimizer(-\d+-[0-9a-f]+)?\.pt")
_REPLAY_NAME = re.compile(r"replay(-\d+-[0-9a-f]+)?\.npz")


def checkpoint_name(positions: int) -> str:
    """The checkpoint folder of a network after ``positions`` self-play positions, relative to ``out``."""
    return f"{CHECKPOINTS_DIR}/{positions:09d}"


def check_finite(net: torch.nn.Module, when: str) -> None:
    """Refuse to go on with (or save) a network that has a NaN or infinite weight.

    Args:
        net: the network.
        when: where the run is, for the message ("after gradient step 120").

    Raises:
        TrainingFailed: a parameter or batch-norm statistic is not finite.
    """
    for name, t in net.state_dict().items():
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            raise TrainingFailed(f"training diverged {when}: the network's {name} is not finite (try a "
                                 "lower --learning-rate); nothing non-finite was saved, the last checkpoint "
                                 "is kept")


def _torch_bytes(obj: Any) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def _save_checkpoint_folder(out: Path, name: str, net: PolicyValueNet, game: Game, meta: dict) -> Path:
    """Save the network as the whole folder ``out/name`` (through a temporary folder and a rename)."""
    target = out / name
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        save_model(tmp, net, game, meta)
        if target.exists():  # the same positions again (a resumed run that stopped at once): swap
            os.replace(target, old)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not target.exists():
            os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return target


def save_checkpoint(out: Path, net: PolicyValueNet, game: Game, meta: dict, opt: torch.optim.Optimizer,
                    buffer: ReplayBuffer, progress: dict, rng: np.random.Generator) -> None:
    """Write one checkpoint of the run in ``out`` (see the module docstring).

    Raises:
        TrainingFailed: the weights are not finite (nothing is written), or the file system
            refused a write (a full disk): the previous checkpoint is kept whole.
    """
    check_finite(net, f"by {progress['positions']:,} positions")
    name = checkpoint_name(progress["positions"])
    # New names every time (the count, and a token for a --force run over an older one's files).
    tag = f"{len(progress['checkpoints']):06d}-{secrets.token_hex(4)}"
    files = {"optimizer": f"optimizer-{tag}.pt", "replay": f"replay-{tag}.npz"}
    resume = out / RESUME_DIR
    try:
        (out / CHECKPOINTS_DIR).mkdir(exist_ok=True)
        source = _save_checkpoint_folder(out, name, net, game, meta)
        publish_model(source, out)
        resume.mkdir(exist_ok=True)
        atomic_write_bytes(resume / files["optimizer"], _torch_bytes(opt.state_dict()))
        buffer.save(resume / files["replay"])
        atomic_write_json(resume / STATE_FILE, {"progress": progress, "rng": rng.bit_generator.state,
                                                "model": name, **files}, indent=1)
    except OSError as e:
        raise TrainingFailed(f"cannot write the checkpoint into {out}: {e.strerror or e}; the previous "
                             "checkpoint is kept (continue it with --resume)") from None
    for path in resume.iterdir():  # the files the pointer no longer names
        if (_OPTIMIZER_NAME.fullmatch(path.name) or _REPLAY_NAME.fullmatch(path.name)) \
                and path.name not in files.values():
            path.unlink(missing_ok=True)


@dataclass
class ResumeState:
    """What ``resume/progress.json`` says: the counters, the generator state and the files it names."""

    progress: dict
    rng: dict
    model: str
    optimizer: str
    replay: str
    path: Path

    def refuse(self, what: str) -> ValueError:
        return ValueError(f"cannot resume from {self.path.parent.parent}: {what}; --force starts the run "
                          "afresh")


def _refused(out: Path, what: str) -> ValueError:
    return ValueError(f"cannot resume from {out}: {what}; --force starts the run afresh")


def read_resume_state(out: Path) -> ResumeState:
    """Read and check ``out/resume/progress.json`` (no other file is read).

    Raises:
        ValueError: nothing to resume, or a file that is not a resume state this trainer wrote.
    """
    path = out / RESUME_DIR / STATE_FILE
    if not path.is_file():
        raise ValueError(f"nothing to resume in {out}: no {RESUME_DIR}/{STATE_FILE}")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise _refused(out, f"{RESUME_DIR}/{STATE_FILE} is nested too deeply") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise _refused(out, f"{RESUME_DIR}/{STATE_FILE} is not JSON ({e})") from None
    if not isinstance(state, dict) or not isinstance(state.get("progress"), dict) \
            or not isinstance(state.get("rng"), dict):
        raise _refused(out, f"{RESUME_DIR}/{STATE_FILE} is not a resume state (expected an object with "
                            "\"progress\" and \"rng\")")
    progress = state["progress"]
    try:
        for key in ("positions", "games", "gradient_steps"):
            check_int(f"{RESUME_DIR}/{STATE_FILE}: {key}", progress.get(key), min=0)
        check_number(f"{RESUME_DIR}/{STATE_FILE}: seconds", progress.get("seconds"), min=0)
    except ValueError as e:
        raise _refused(out, str(e)) from None
    checkpoints = progress.get("checkpoints")
    if not isinstance(checkpoints, list) or not all(isinstance(c, dict) for c in checkpoints):
        raise _refused(out, f"{RESUME_DIR}/{STATE_FILE}: \"checkpoints\" is not a list of records")
    # A state written before checkpoints were named in it: the network is the last checkpoint's.
    last = checkpoints[-1].get("positions") if checkpoints else None
    legacy_model = checkpoint_name(last) if isinstance(last, int) and last >= 0 else ""
    names = {"model": (state.get("model", legacy_model), _MODEL_NAME),
             "optimizer": (state.get("optimizer", "optimizer.pt"), _OPTIMIZER_NAME),
             "replay": (state.get("replay", "replay.npz"), _REPLAY_NAME)}
    for key, (value, pattern) in names.items():
        if not isinstance(value, str) or not pattern.fullmatch(value):
            raise _refused(out, f"{RESUME_DIR}/{STATE_FILE} names no {key} file this trainer writes "
                                f"(got {value!r})")
    if "model" not in state and not (out / legacy_model / META_FILE).is_file():
        names["model"] = ("", None)  # older runs kept no checkpoint folder: the published model
    return ResumeState(progress, state["rng"], names["model"][0], names["optimizer"][0], names["replay"][0],
                       path)


def restore_state(out: Path, state: ResumeState, opt: torch.optim.Optimizer, buffer: ReplayBuffer,
                  rng: np.random.Generator, device: torch.device) -> dict:
    """Load the optimizer, the replay buffer and the generator of ``state``; returns the progress record.

    Raises:
        ValueError: a missing or damaged file (named in the message).
    """
    resume = out / RESUME_DIR
    opt_path = resume / state.optimizer
    if not opt_path.is_file():
        raise state.refuse(f"{RESUME_DIR}/{state.optimizer} is missing")
    try:
        saved = torch.load(opt_path, map_location=device, weights_only=True)
    except Exception as e:  # a damaged file raises any of several errors (zip, unpickler, EOF)
        raise state.refuse(f"{RESUME_DIR}/{state.optimizer} is not an optimizer state "
                           f"({type(e).__name__})") from None
    try:
        opt.load_state_dict(saved)
        _check_optimizer_shapes(opt)
    except (ValueError, KeyError, TypeError, RuntimeError, IndexError, AttributeError) as e:
        raise state.refuse(f"{RESUME_DIR}/{state.optimizer} does not fit this network's optimizer "
                           f"({type(e).__name__}: {e})") from None
    try:
        buffer.load(resume / state.replay)
    except ValueError as e:
        raise state.refuse(str(e)) from None
    try:
        rng.bit_generator.state = state.rng
    except (TypeError, ValueError, KeyError) as e:
        raise state.refuse(f"{RESUME_DIR}/{STATE_FILE}: \"rng\" is not a generator state ({e})") from None
    progress = state.progress
    progress["seconds"] = float(progress["seconds"])
    return progress


def _check_optimizer_shapes(opt: torch.optim.Optimizer) -> None:
    """Refuse an optimizer state whose moment tensors do not have their parameters' shapes."""
    for group in opt.param_groups:
        for p in group["params"]:
            for key, value in opt.state.get(p, {}).items():
                if not torch.is_tensor(value):
                    continue
                if value.dim() > 0 and value.shape != p.shape:
                    raise ValueError(f"its {key} has shape {tuple(value.shape)}, the parameter "
                                     f"{tuple(p.shape)}")
                if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                    raise ValueError(f"its {key} is not finite")
        for key in ("lr", "weight_decay"):
            if not (isinstance(group.get(key), (int, float)) and math.isfinite(group[key])):
                raise ValueError(f"its {key} is {group.get(key)!r}")


def republish_if_needed(out: Path, state: ResumeState, log) -> None:
    """Publish the resumed checkpoint as ``out/model.*`` again when they are not that model.

    A run killed while it published a checkpoint leaves ``model.pt`` and
    ``model.json`` of two checkpoints; after resuming, ``out`` holds the model
    the run continues from.
    """
    if not state.model:
        return
    source = out / state.model
    try:
        same = read_meta(out).get("weights_sha256") == read_meta(source).get("weights_sha256") \
            and _same_files(out, source)
    except ValueError:
        same = False
    if not same:
        publish_model(source, out)
        log(f"{out}/model.* did not hold the last whole checkpoint (a run stopped while saving it); "
            f"restored them from {state.model}")


def _same_files(a: Path, b: Path) -> bool:
    from tictacgo.baselines.learning.alphazero.modelfile import NUMPY_FILE, WEIGHTS_FILE

    for name in (WEIGHTS_FILE, NUMPY_FILE):
        pa, pb = a / name, b / name
        if pa.exists() != pb.exists():
            return False
        if pa.exists() and not (os.path.samefile(pa, pb) or pa.read_bytes() == pb.read_bytes()):
            return False
    return True


def clean_leftovers(out: Path) -> None:
    """Remove what a killed run left half-done in ``out`` (the caller holds the folder's lock).

    A checkpoint folder still under its temporary name is removed; one moved
    aside to be replaced, whose replacement never arrived, is put back; a
    model file still under its temporary publishing name is removed.
    """
    folder = out / CHECKPOINTS_DIR
    if folder.is_dir():
        for path in folder.iterdir():
            aside = re.fullmatch(r"\.(\d+)\.old-\d+", path.name)
            if aside and not (folder / aside.group(1)).exists():
                os.replace(path, folder / aside.group(1))
            elif aside or re.fullmatch(r"\.\d+\.tmp-\d+", path.name):
                shutil.rmtree(path, ignore_errors=True)
    for path in out.glob(".model.*.publish-*.tmp"):
        path.unlink(missing_ok=True)
