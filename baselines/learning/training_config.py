"""The settings of a training run (``TrainConfig``), importable without torch.

cleanrl's habit: one dataclass that holds every setting. Each field carries
its default and its help text once (``setting``); ``tictacgo train`` and the
scripts in ``scripts/`` generate their command line from the fields
(``tictacgo.cli.options``), ``training.train`` reads the config.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.baselines.registry import parse_agent_spec
from tictacgo.games import GAMES, make_game
from tictacgo.validate import check_int, check_settings, setting_flag

#: The largest seed: SB3 seeds numpy's global generator, which takes seeds below 2**32.
MAX_SEED = 2**32 - 1


def setting(default: Any, help: str, **command_line: Any) -> Any:
    """A dataclass field with its default and its help text.

    Args:
        default: the default value (a list is copied for each instance).
        help: one or two sentences for ``--help``.
        **command_line: how the command line takes it (``tictacgo.cli.options``):
            ``flags`` (option strings; default ``--field-name``), ``choices``,
            ``metavar``, ``default_text`` (the default as shown, when it is
            not the value itself).
    """
    metadata = {"help": help, **command_line}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass
class TrainConfig:
    """One training run. Every field has a default; see ``tictacgo train --help``."""

    game: str = setting("tictactoe", "The game.", choices=GAMES)  # the live registry: later games too
    algo: str = setting("maskable-ppo", '"maskable-ppo" (action masks) or "a2c" (no masks: trained '
                        "through the illegal-move penalty, credited to the illegal step alone); "
                        '"--algo alphazero --help" lists the AlphaZero options.',
                        # alphazero and qlearning are taken by their own command lines before this one
                        # parses (named here so that a wrong --algo lists every choice)
                        choices=("maskable-ppo", "a2c", "alphazero", "qlearning"),
                        metavar="{maskable-ppo,a2c,alphazero,qlearning}")
    opponents: list[str] = setting(["random"], "Registry specs to train against, each optionally "
                                   "SPEC@WEIGHT (default weight 1): repeat --opponent, or list them "
                                   "after --opponents.", flags=("--opponent", "--opponents"),
                                   metavar="SPEC[@WEIGHT]")
    self_play: bool = setting(False, "Add a pool of frozen snapshots of the learner to the opponents.")
    self_play_weight: float = setting(1.0, "The pool's weight in the opponent mixture.", positive=True)
    snapshot_every: int = setting(20_000, "Steps between two snapshots of the learner.", min=1)
    random_opening: int = setting(0, "Exploring starts: each training game opens with 0..N random moves "
                                  "(RandomOpening).", metavar="N", min=0)
    pool_size: int = setting(5, "Snapshots kept in the pool (the oldest leaves first).", min=1)
    steps: int = setting(100_000, "Environment steps (learner actions) to train for.", min=1)
    seed: int = setting(0, "Seeds the model, the envs and the opponents, once.", min=0, max=MAX_SEED)
    threads: int = setting(1, "torch CPU threads. One is fastest for these small networks and batches, "
                              "and OpenMP's spinning threads slow training down many times over when other "
                              "processes share the cores.", min=1, max=1024)
    n_envs: int = setting(8, "Envs stepped together (DummyVecEnv).", min=1)
    first_player_envs: int = setting(0, "Envs (of n_envs) where the learner always moves first (X, Black); "
                                     "the others alternate colours.", metavar="K", min=0)
    policy: str = setting("mlp", 'Network: "mlp", "two_branch" (a dense and a 3x3 convolution branch, '
                          'joined) or "resnet" (planes).', choices=("mlp", "two_branch", "resnet"))
    observation: str = setting("flat", 'Observation format: "flat", "board" or "planes".',
                               choices=("flat", "board", "planes"))
    board_size: int | None = setting(None, "Board size, for games that take one (Little-Go: 2..19).",
                                     metavar="N", default_text="the game's own", min=1)
    gamma: float = setting(0.95, "Discount factor.", positive=True, max=1,
                           expected="a finite number in (0, 1]")
    learning_rate: float = setting(3e-4, "Optimizer learning rate (Adam for PPO, RMSprop for A2C).",
                                   positive=True)
    anneal_lr: bool = setting(False, "Decay the learning rate linearly to 0 over the run.")
    n_steps: int = setting(0, "Rollout length per env (0: the algorithm's default: 256 for PPO, 5 for A2C).",
                         min=0, expected="a non-negative int (0: the algorithm's default)")
    ent_coef: float = setting(0.01, "Entropy bonus.", min=0)
    batch_size: int = setting(256, "PPO minibatch size (A2C updates on the whole rollout).", min=1)
    n_epochs: int = setting(10, "PPO passes over each rollout.", min=1)
    net_arch: list[int] = setting([64, 64], 'Hidden layer sizes of the "mlp" policy\'s actor and critic '
                                  "(64 64 or 64,64).", metavar="N", min=1)
    eval_every: int = setting(20_000, "Steps between two evaluations.", min=1)
    eval_opponents: list[str] = setting(["random"], "Registry specs the evaluation plays against: repeat "
                                        "--eval-opponent, or list them after --eval-opponents.",
                                        flags=("--eval-opponent", "--eval-opponents"), metavar="SPEC")
    eval_games: int = setting(50, "Evaluation games per opponent and colour.", min=1)
    out: str | None = setting(None, "Output folder (models, checkpoint, TensorBoard logs, learning curve).",
                              default_text="runs/GAME_ALGO")
    resume: bool = setting(False, "Continue the run saved in --out (checkpoint.zip and progress.json).")
    force: bool = setting(False, "Start a new run in an --out folder that already holds one, replacing "
                          "its models, checkpoint and progress.")
    progress_bar: bool = setting(True, "Show SB3's progress bar (needs tqdm and rich, in the train extra).",
                                 flags=("--progress",))

    def __post_init__(self):
        check_settings(self)

    def validate(self) -> None:
        """Check every setting, alone and together, before anything is written.

        Raises:
            ValueError: the first setting refused, named by its flag (``--n-envs must be ...``).
        """
        check_settings(self)
        try:
            make_game(self.game, size=self.board_size)
        except ValueError as e:
            raise ValueError(f"--board-size: {e}") from None
        # More envs than steps would run one whole rollout of n_envs x n_steps whatever --steps says.
        check_int("--n-envs", self.n_envs, min=1, max=self.steps,
                  expected=f"an int in [1, --steps {self.steps}] (each env takes at least one step)")
        check_int("--first-player-envs", self.first_player_envs, min=0, max=self.n_envs,
                  expected=f"an int in [0, --n-envs {self.n_envs}]")
        if self.algo not in ("maskable-ppo", "a2c"):
            raise ValueError(f"algo {self.algo!r}: this configuration trains maskable-ppo or a2c "
                             f"(tictacgo train --algo {self.algo} has its own options)")
        if self.algo == "maskable-ppo":
            # PPO normalises advantages over a minibatch: one sample has no spread, and the loss is NaN.
            check_int("--batch-size", self.batch_size, min=2, expected="an int >= 2 for maskable-ppo")
        for name in ("opponents", "eval_opponents"):
            if not getattr(self, name):
                flag = setting_flag(next(f for f in fields(self) if f.name == name))
                raise ValueError(f"{flag} must name at least one agent")
        self.output_folder()

    def output_folder(self) -> str:
        """``out``, or ``runs/GAME_ALGO`` when it is not set (None).

        Raises:
            ValueError: ``out`` is the empty string.
        """
        if self.out is None:
            return f"runs/{self.game}_{self.algo}"
        if not isinstance(self.out, str) or not self.out:
            raise ValueError(f"--out must name a folder, got {self.out!r}")
        return self.out


#: Each algorithm's rollout length per env when ``n_steps`` is 0.
DEFAULT_N_STEPS = {"maskable-ppo": 256, "a2c": 5}


def describe_config(cfg: TrainConfig) -> str:
    """The run's settings as readable lines, one ``name: value`` a line (lists joined by commas)."""
    lines = [f"training {cfg.game} with {cfg.algo}:"]
    for f in fields(cfg):
        if f.name in ("game", "algo"):
            continue
        value = getattr(cfg, f.name)
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, list):
            value = ", ".join(map(str, value)) or "none"
        elif f.name == "n_steps" and value == 0:
            value = f"{DEFAULT_N_STEPS.get(cfg.algo, 0):,} (the algorithm's default)"
        elif value is None:
            value = f.metadata.get("default_text", "none")
        elif isinstance(value, int):
            value = f"{value:,}"
        lines.append(f"  {f.name}: {value}")
    return "\n".join(lines)


RUN_FILES = ("progress.json", "checkpoint.zip", "best_model.zip", "final_model.zip")


def check_output_folder(out: str | os.PathLike, *, resume: bool = False, force: bool = False,
                        run_files: tuple[str, ...] = RUN_FILES) -> Path:
    """Refuse, before any training, an output folder the run cannot use.

    The folder may not exist yet (it is created; its parent must accept it),
    must be a writable folder, and must not hold an earlier run (any of
    ``run_files``) unless ``resume`` or ``force``.

    Args:
        out: the run's folder.
        resume: the run continues the one in ``out``.
        force: a new run may replace the one in ``out``.
        run_files: the names whose presence means ``out`` holds a run.

    Returns:
        The folder, created.

    Raises:
        ValueError: an empty ``out``; a path that is a file, a device or
            otherwise not a folder; a folder that cannot be created or written;
            an earlier run without ``resume``/``force``.
    """
    if not os.fspath(out):
        raise ValueError("--out must name a folder, got ''")
    out = Path(out)
    if os.path.lexists(out) and not out.is_dir():
        raise ValueError(f"--out {os.fspath(out)!r} is not a folder; expected a folder for the run")
    if resume and not out.is_dir():
        raise ValueError(f"nothing to resume: --out {os.fspath(out)!r} does not exist")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--out {os.fspath(out)!r}: cannot create the folder ({e.strerror or e})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ValueError(f"--out {os.fspath(out)!r}: the folder is not writable")
    held = [name for name in run_files if os.path.lexists(out / name)]
    if held and not (resume or force):
        raise ValueError(f"--out {os.fspath(out)!r} already holds a run ({', '.join(held)}); "
                         "continue it with --resume, replace it with --force, or choose another folder")
    return out


def progress_history(out: Path) -> list[dict]:
    """The evaluation history saved in ``out/progress.json`` (for ``resume``).

    Raises:
        ValueError: no ``checkpoint.zip`` or ``progress.json`` in ``out``, or a
            ``progress.json`` that is not JSON with a ``history`` list of rows.
    """
    for name in ("checkpoint.zip", "progress.json"):
        if not (out / name).is_file():
            raise ValueError(f"nothing to resume: no {os.fspath(out / name)}")
    path = out / "progress.json"
    try:
        history = json.loads(path.read_text(encoding="utf-8")).get("history")
    except RecursionError:
        raise ValueError(f"cannot resume from {os.fspath(path)}: not a progress file (nested too deeply)") \
            from None
    except (OSError, UnicodeDecodeError, ValueError, AttributeError) as e:
        raise ValueError(f"cannot resume from {os.fspath(path)}: not a progress file ({e})") from None
    if not isinstance(history, list) or not all(isinstance(h, dict) and isinstance(h.get("steps"), int)
                                                and "score" in h and "seconds" in h for h in history):
        raise ValueError(f"cannot resume from {os.fspath(path)}: expected a \"history\" list of "
                         "evaluation rows (steps, seconds, score)")
    return history


def parse_weighted(spec: str) -> tuple[AgentSpec, float]:
    """``"minimax@2"`` -> ``(AgentSpec("minimax"), 2.0)``; no ``@`` means weight 1.

    Raises:
        ValueError: a weight that is not a positive finite number, or text that is not a spec.
    """
    name, at, weight = spec.rpartition("@")
    if not at:
        return parse_agent_spec(spec), 1.0
    try:
        w = float(weight)
    except ValueError:
        raise ValueError(f"opponent weight in {spec!r} must be a number") from None
    if not np.isfinite(w) or w <= 0:
        raise ValueError(f"opponent weight in {spec!r} must be a positive finite number")
    return parse_agent_spec(name), w


class TrainingFailed(RuntimeError):
    """A run that started but could not go on: its loss or weights became non-finite, or a
    checkpoint could not be written. The last whole checkpoint is kept; the message says why."""


#: The lock file a running training holds in its ``--out`` folder.
LOCK_FILE = ".tictacgo-train.lock"


@contextmanager
def run_lock(out: str | os.PathLike) -> Iterator[Path]:
    """Hold ``out``'s lock for the ``with`` block: one training run at a time in a folder.

    The lock is an ``flock`` on ``out/.tictacgo-train.lock``, which holds the
    owner's process id for the message. The system releases it when the owner
    exits, however it ends: the lock file a killed run leaves behind is simply
    taken over. Where the file system cannot lock (no ``fcntl``, or ``ENOLCK``),
    the run goes on unlocked.

    Args:
        out: the run's folder (it must exist).

    Yields:
        ``out`` as a Path.

    Raises:
        ValueError: another process holds the lock (the message names its process id).
    """
    out = Path(out)
    try:
        import fcntl
    except ImportError:  # no flock on this platform
        yield out
        return
    path = out / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise ValueError(f"--out {os.fspath(out)!r}: cannot create the lock file {LOCK_FILE} "
                         f"({e.strerror or e})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked = True
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                locked = False  # a file system without locks: go on, as without fcntl
            else:
                owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
                raise ValueError(f"--out {os.fspath(out)!r} is in use by another training run (process "
                                 f"{owner}); wait for it to end or choose another folder") from None
        if locked:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield out
    finally:
        os.close(fd)  # closing the file releases the lock


@contextmanager
def open_run_folder(out: str | os.PathLike, *, resume: bool = False, force: bool = False,
                    run_files: tuple[str, ...] = RUN_FILES) -> Iterator[Path]:
    """``check_output_folder`` with the folder's lock held from before the check to the block's end.

    Raises:
        ValueError: what ``check_output_folder`` refuses, and a folder another run holds (``run_lock``).
    """
    # Judged before the lock file is made (a refused folder is left as it was), and again under the lock.
    out = check_output_folder(out, resume=resume, force=force, run_files=run_files)
    with run_lock(out):
        check_output_folder(out, resume=resume, force=force, run_files=run_files)
        yield out
