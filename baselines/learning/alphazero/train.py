"""AlphaZero training: B self-play games at once, a replay buffer, continuous updates.

``train(AlphaZeroConfig(...))`` is the library behind ``tictacgo train GAME --algo alphazero``:

1. ``SelfPlay`` moves every game one action with the batched search (the
   network evaluates the leaves of all the games in one call).
2. Finished games' positions go to the ``ReplayBuffer`` (planes, search
   policy, result from the mover's view).
3. Gradient steps follow the positions at a fixed ratio: ``replay_ratio``
   samples trained per new position (so ``replay_ratio * B / batch_size``
   steps per move of the B games), each sample under a random board
   symmetry. No gating: self-play always uses the latest network.
4. Every ``checkpoint_every`` seconds, at the end and on Ctrl-C, the network is saved
   (``out/checkpoints/<positions>/`` and, published from it, ``out/model.pt`` +
   ``out/model.npz`` + ``out/model.json``) with what ``resume`` needs
   (``out/resume/``: optimizer, replay buffer, counters and generator
   state), each checkpoint whole or not at all (``checkpoint``). For a
   solvable game (Tic-Tac-Toe) each checkpoint also records the share of all
   live positions where the raw network's top move is optimal
   (``tictacgo.baselines.audit``).
5. Every setting is checked before anything is written; the folder is locked
   for the run; a non-finite loss or weight stops the run (``TrainingFailed``)
   without saving it, the last finite checkpoint kept.

Loss: cross-entropy to the search policy + mean squared error of the value
(weighted, see ``selfplay``) + ``ownership_weight`` x the ownership head's
mean squared error (the head exists only when that weight is positive).
TensorBoard scalars go to ``out/tb`` (with the ``tensorboard`` package), and
a progress bar to the terminal (``tqdm``).
"""

from __future__ import annotations

import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch

from tictacgo.atomic import atomic_write_json
from tictacgo.baselines.learning.alphazero.actors import start_actors
from tictacgo.baselines.learning.alphazero.checkpoint import (
    CHECKPOINTS_DIR,
    RESUME_DIR,
    check_finite,
    clean_leftovers,
    read_resume_state,
    republish_if_needed,
    restore_state,
    save_checkpoint,
)
from tictacgo.baselines.learning.alphazero.device import resolve_device
from tictacgo.baselines.learning.alphazero.modelfile import describe_game
from tictacgo.baselines.learning.alphazero.network import (
    Architecture,
    NetworkEvaluator,
    PolicyValueNet,
    load_model,
)
from tictacgo.baselines.learning.alphazero.precision import PRECISION_CHOICES, resolve_precision
from tictacgo.baselines.learning.alphazero.replay import ReplayBuffer
from tictacgo.baselines.learning.alphazero.search import NEG
from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig, SelfPlay
from tictacgo.baselines.learning.training_config import (
    MAX_SEED,
    TrainingFailed,
    open_run_folder,
    setting,
)
from tictacgo.games import make_game
from tictacgo.games.base import Game
from tictacgo.games.registry import GAMES
from tictacgo.validate import check_installed, check_settings


@dataclass
class AlphaZeroConfig:
    """One AlphaZero training run. Every field has a default.

    Each numeric field declares its bounds in its metadata; construction (and
    ``validate``, which ``train`` calls again) refuses a value out of bounds or
    not finite, naming the field's flag (``--min-buffer must be ...``).
    """

    game: str = setting("tictactoe", "The game (the name of a registered game).",
                        choices=GAMES)  # the live registry: a game registered later too
    board_size: int | None = setting(None, "Little-Go's board size (None: 5).",
                                           metavar="N", default_text="the game's own", min=1)
    out: str | None = setting(None, 'Output folder (None: runs/<game>_az).', default_text="runs/GAME_az")
    seed: int = setting(0, 'Seeds the network, self-play and sampling, once.', min=0, max=MAX_SEED)
    resume: bool = setting(False, "Continue the run saved in ``out`` (its network, optimizer, buffer and "
                                  "counters).")
    force: bool = setting(False, "Start a new run in an ``out`` that already holds one, replacing its "
                                 "network, checkpoints and resume state.")
    device: str = setting("auto", '"auto" (CUDA when available), "cpu" or "cuda".',
                          choices=("auto", "cpu", "cuda"))
    threads: int = setting(1, "torch CPU threads. One is fastest for these small batches, and OpenMP's "
                              "spinning threads slow everything down badly when other processes share the "
                              "cores.", min=1, max=1024)
    inference_precision: str = setting("auto", 'The self-play network\'s arithmetic: "auto" '
                                       '(bfloat16 where the CPU has AMX or AVX512-BF16 instructions, '
                                       'float32 elsewhere and on a GPU; the log and model.json say which), '
                                       '"float32", or "bfloat16" (about twice as fast on CPUs with those '
                                       'instructions, much slower on others). Training stays float32.',
                                       choices=PRECISION_CHOICES)
    channels: int = setting(32, 'Channels of the residual trunk.', min=1)
    blocks: int = setting(4, 'Residual blocks.', min=0)
    ownership_weight: float = setting(0.0, 'Weight of the auxiliary ownership loss (0: no ownership '
                                      'head; 1 made the Little-Go search stronger, see docs/alphazero.md).',
                                      min=0)
    num_games: int = setting(128, 'Self-play games played at once (B; with --actors, by each actor).', min=1)
    actors: int = setting(0, "Self-play on this many Ray actors (processes, here or on the cluster at "
                             "RAY_ADDRESS), one learner training (0: self-play in this process; needs the "
                             "ray extra).", min=0)
    actor_moves: int = setting(4, "With --actors: moves an actor plays in each of its games between two "
                                  "weight updates.", min=1)
    search: str = setting("gumbel", '"gumbel" or "puct".', choices=("gumbel", "puct"))
    simulations: int = setting(32, 'Simulations per self-play move.', min=1)
    max_considered: int = setting(16, 'Gumbel: actions sampled at the root.', min=1)
    gumbel_scale: float = setting(1.0, 'Gumbel: exploration noise of self-play.', min=0)
    dirichlet_fraction: float = setting(0.25, 'PUCT: Dirichlet noise share of the root prior.', min=0, max=1)
    dirichlet_alpha: float = setting(0.3, 'PUCT: Dirichlet concentration.', positive=True)
    temperature_moves: int = setting(8, "PUCT: actions per game sampled from the visits (later ones: the "
                                        "most visited).", min=0)
    random_opening: int = setting(0, "Open each self-play game with 0..N random placements (their value "
                                     "targets are dropped).", min=0)
    buffer_size: int = setting(100_000, 'Positions kept in the replay buffer.', min=1)
    batch_size: int = setting(256, 'Positions per gradient step.', min=1)
    replay_ratio: float = setting(4.0, "Samples trained per new self-play position (sets gradient steps per "
                                       "move).", positive=True)
    min_buffer: int = setting(1000, 'Positions in the buffer before the first gradient step.', min=0)
    learning_rate: float = setting(1e-3, 'AdamW learning rate.', positive=True)
    weight_decay: float = setting(1e-4, 'AdamW weight decay.', min=0)
    augment: bool = setting(True, 'Train each sample under a random board symmetry.')
    max_positions: int = setting(0, 'Stop after this many self-play positions in all (0: no limit).', min=0)
    max_seconds: float = setting(300.0, "Stop after this much wall time in all, resumed runs included (0: no"
                                        " limit).", min=0)
    checkpoint_every: float = setting(60.0, 'Seconds between checkpoints.', min=0)
    progress: bool = setting(True, 'Show a progress bar.')
    tensorboard: bool = setting(True, 'Write TensorBoard scalars to out/tb.')

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        """Check every setting, alone and together, before anything is written.

        Raises:
            ValueError: the first setting refused, named by its flag (``--min-buffer must be ...``).
        """
        if self.out is not None and (not isinstance(self.out, str) or not self.out):
            raise ValueError(f"--out must name a folder, got {self.out!r}")
        check_settings(self)
        if self.max_positions <= 0 and self.max_seconds <= 0:
            raise ValueError("set --max-positions or --max-seconds, or training never stops")
        if self.min_buffer > self.buffer_size:
            raise ValueError(f"--min-buffer must be at most --buffer-size {self.buffer_size} (the buffer "
                             f"never holds more), got {self.min_buffer}")
        try:
            self.game_object()
        except ValueError as e:
            raise ValueError(f"--board-size: {e}") from None
        if self.actors:
            check_installed("ray", f"--actors {self.actors}", "ray")

    def game_object(self) -> Game:
        """The game this run trains, built once (again only if ``game`` or ``board_size`` changed)."""
        key = (self.game, self.board_size)
        built = self.__dict__.get("_built")
        if built is None or built[0] != key:
            built = self.__dict__["_built"] = (key, make_game(self.game, size=self.board_size))
        return built[1]

    @property
    def out_dir(self) -> Path:
        return Path(self.out if self.out is not None else f"runs/{self.game_object().spec.name}_az")

    def search_config(self) -> SearchConfig:
        return SearchConfig(self.search, self.simulations, self.max_considered, self.gumbel_scale,
                            self.dirichlet_fraction, self.dirichlet_alpha)


class RawPolicyAudit:
    """For a solvable game: the share of all live positions where the raw network's top move is optimal."""

    def __init__(self, game: Game):
        from tictacgo.baselines.audit import optimal_actions, reachable_positions

        positions = reachable_positions(game)
        self.planes = np.stack([game.encoder.from_state(s) for s in positions])
        self.legal = np.stack([game.legal_mask(s) for s in positions]).astype(bool)
        best = optimal_actions(game, positions)
        self.optimal = np.zeros_like(self.legal)
        for i, acts in enumerate(best):
            self.optimal[i, list(acts)] = True

    def __call__(self, evaluator: NetworkEvaluator) -> float:
        logits, _ = evaluator.evaluate_planes(self.planes)
        top = np.where(self.legal, logits, NEG).argmax(-1)
        return float(self.optimal[np.arange(len(top)), top].mean())


def _loss(net: PolicyValueNet, batch: dict[str, np.ndarray], cfg: AlphaZeroConfig, device) -> dict:
    t = {k: torch.from_numpy(np.ascontiguousarray(v)).to(device) for k, v in batch.items()}
    logits, value, own = net(t["planes"])
    logp = torch.log_softmax(logits, -1)
    policy_ce = -(t["policy"] * logp).sum(-1).mean()
    entropy = -(t["policy"] * torch.log(t["policy"].clamp_min(1e-12))).sum(-1).mean()
    w = t["value_weight"]
    value_mse = (w * (value - t["value"]) ** 2).sum() / w.sum().clamp_min(1.0)
    loss = policy_ce + value_mse
    out = {"policy_kl": policy_ce - entropy, "value_mse": value_mse}
    if own is not None:
        own_mse = ((own - t["ownership"]) ** 2).mean()
        loss = loss + cfg.ownership_weight * own_mse
        out["ownership_mse"] = own_mse
    out["loss"] = loss
    return out


#: The files and folders whose presence means a folder holds a run.
RUN_FILES = ("model.pt", "config.json", RESUME_DIR, CHECKPOINTS_DIR)


def train(cfg: AlphaZeroConfig, log=print, info: dict | None = None, on_start=None) -> dict:
    """Run (or, with ``cfg.resume``, continue) one training run; returns its progress record.

    Every setting is checked before anything is written; ``cfg.out_dir`` is
    then created and locked for the run (``run_lock``). Writes into it:
    model.pt, model.npz and model.json (the latest network), checkpoints/<positions>/
    (every checkpoint), resume/, config.json, tb/ (see ``checkpoint``).

    Args:
        cfg: the run's settings.
        log: called with one line of text per checkpoint.
        info: JSON-serialisable facts added to every saved model's description (e.g. the command).
        on_start: called once the output folder is taken (after a refusal of it, never).

    Raises:
        ValueError: a setting refused, an ``out`` the run cannot use (another run holds it, it
            holds a run without ``resume``/``force``), or nothing whole to resume.
        TrainingFailed: the run started but could not go on (a non-finite loss or weights, a
            checkpoint the disk refused); the last whole checkpoint is kept.
    """
    t_start = time.perf_counter()
    cfg.validate()
    game = cfg.game_object()
    device = resolve_device(cfg.device)
    precision = resolve_precision(cfg.inference_precision, device)
    info = {**(info or {}), "inference_precision": precision.used}  # model.json: the precision run
    search = cfg.search_config()
    arch = Architecture.for_game(game, channels=cfg.channels, blocks=cfg.blocks,
                                 ownership=cfg.ownership_weight > 0)
    run_files = RUN_FILES
    with open_run_folder(cfg.out_dir, resume=cfg.resume, force=cfg.force, run_files=run_files) as out:
        if on_start is not None:
            on_start()
        clean_leftovers(out)
        torch.set_num_threads(cfg.threads)
        torch.manual_seed(cfg.seed)
        rng = np.random.default_rng(cfg.seed)
        state = read_resume_state(out) if cfg.resume else None
        net = _network(out, state, game, arch)
        net.to(device)
        opt = torch.optim.AdamW(net.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
        buffer = ReplayBuffer(cfg.buffer_size, game.encoder.network_shape, arch.num_actions,
                              ownership=arch.ownership, symmetries=game.symmetries())
        progress = {"positions": 0, "games": 0, "gradient_steps": 0, "seconds": 0.0, "checkpoints": []}
        if state is not None:
            progress = restore_state(out, state, opt, buffer, rng, device)
            for group in opt.param_groups:  # the saved state carries the old run's: this run's settings rule
                group.update(lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
            republish_if_needed(out, state, log)
            log(f"resuming {out}: {progress['positions']} positions, {progress['seconds']:.0f} s so far")
        if cfg.inference_precision == "auto":
            log(precision.reason + ("; each Ray actor picks by its own CPU" if cfg.actors else ""))
        progress = _run(cfg, out, game, net, opt, buffer, progress, rng, device, precision.used, search, log,
                        info)
    progress["wall_seconds_this_session"] = round(time.perf_counter() - t_start, 1)
    return progress


def _network(out: Path, state, game: Game, arch: Architecture) -> PolicyValueNet:
    """A new network, or the one of the checkpoint the resume state names (checked against the settings)."""
    if state is None:
        return PolicyValueNet(arch)
    net, saved_game, _ = load_model(out / state.model if state.model else out)
    if saved_game != game or net.arch != arch:
        raise ValueError(f"{out} holds a run of {describe_game(saved_game)} with {net.arch}; "
                         f"this configuration asks for {describe_game(game)} with {arch}")
    return net


def _run(cfg: AlphaZeroConfig, out: Path, game: Game, net: PolicyValueNet, opt, buffer: ReplayBuffer,
         progress: dict, rng: np.random.Generator, device, precision: str, search, log,
         info: dict | None) -> dict:
    """The self-play and training loop, with its checkpoints; returns the progress record."""
    evaluator = NetworkEvaluator(net, game, device=device, precision=precision)
    audit = RawPolicyAudit(game) if game.spec.solvable else None
    # With --actors, Ray actors play and this process only trains (``actors``).
    pool = start_actors(cfg, net, lambda: progress["gradient_steps"], progress["positions"], log) \
        if cfg.actors else None
    selfplay = pool or SelfPlay(game, evaluator, cfg.num_games, search, rng,
                                temperature_moves=cfg.temperature_moves, random_opening=cfg.random_opening)
    step_positions = pool.positions_per_step if pool else cfg.num_games
    writer = _tensorboard(out / "tb") if cfg.tensorboard else None
    bar = _progress_bar(cfg) if cfg.progress else None

    seconds_before, games_before = progress["seconds"], progress["games"]
    t0 = time.perf_counter()
    last_checkpoint = t0
    credit = 0.0
    metrics: dict[str, float] = {}
    config_written = False

    def elapsed() -> float:
        return seconds_before + time.perf_counter() - t0

    def checkpoint() -> None:
        nonlocal config_written
        check_finite(net, f"by {progress['positions']:,} positions")
        entry = {"positions": progress["positions"], "games": progress["games"],
                 "gradient_steps": progress["gradient_steps"], "seconds": round(elapsed(), 1)}
        if audit is not None:
            entry["raw_optimal_rate"] = audit(evaluator)
        progress["checkpoints"].append(entry)
        progress["seconds"] = elapsed()
        meta = {"seed": cfg.seed, "config": asdict(cfg), **entry, **(info or {})}
        first = len(progress["checkpoints"]) == 1  # no whole checkpoint of this run on disk yet
        try:
            if not config_written:  # with the first checkpoint: a run that never saved one leaves no run
                try:
                    atomic_write_json(out / "config.json", asdict(cfg), indent=1)
                except OSError as e:
                    raise TrainingFailed(f"cannot write {out / 'config.json'}: {e.strerror or e}") from None
                config_written = True
            save_checkpoint(out, net, game, meta, opt, buffer, progress, rng)
        except TrainingFailed as e:
            if not first:
                raise
            # nothing whole to resume from: take away what the attempt left, so that no run is left
            # behind and the same command can simply be run again
            progress["checkpoints"].pop()
            for name in RUN_FILES:
                path = out / name
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                elif os.path.lexists(path):
                    path.unlink(missing_ok=True)
            raise TrainingFailed(f"{str(e).split('; the previous checkpoint')[0]}; that was the run's first "
                                 f"checkpoint, so nothing of the run is left in {out}: run the same "
                                 "command again once the disk has room") from None
        if writer is not None:
            for k, v in entry.items():
                if k != "seconds":
                    writer.add_scalar(f"checkpoint/{k}", v, progress["positions"])
        log("checkpoint " + ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                                      for k, v in entry.items()))

    def out_of_time() -> bool:
        return cfg.max_seconds > 0 and elapsed() >= cfg.max_seconds

    def done() -> bool:
        return (cfg.max_positions > 0 and progress["positions"] >= cfg.max_positions) or out_of_time()

    try:
        while not done():
            finished = selfplay.step()
            progress["positions"] += step_positions
            if finished is not None:
                buffer.add(finished.planes, finished.policy, finished.value, finished.value_weight,
                           finished.ownership if net.arch.ownership else None)
                progress["games"] = games_before + selfplay.games_finished
            if len(buffer) and len(buffer) >= cfg.min_buffer:
                credit += cfg.replay_ratio * step_positions / cfg.batch_size
                while credit >= 1 and not out_of_time():  # the clock also stops a long run of steps
                    credit -= 1
                    metrics = _gradient_step(net, opt, buffer, cfg, rng, device, progress)
            if writer is not None and metrics:
                for k, v in metrics.items():
                    writer.add_scalar(f"train/{k}", v, progress["positions"])
            if bar is not None:
                bar.update(_bar_position(cfg, progress, elapsed()) - bar.n)
                bar.set_postfix(games=progress["games"], steps=progress["gradient_steps"],
                                loss=f"{metrics.get('loss', math.nan):.3f}", refresh=False)
            if time.perf_counter() - last_checkpoint >= cfg.checkpoint_every:
                checkpoint()
                last_checkpoint = time.perf_counter()
    except KeyboardInterrupt:
        log("interrupted: saving a last checkpoint")
        checkpoint()  # every write is atomic: a second Ctrl-C leaves the previous checkpoint whole
        raise
    finally:
        if pool is not None:
            pool.close()
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
    checkpoint()
    progress["evaluations"] = pool.evaluations if pool else evaluator.positions
    if pool is not None:
        progress["actors"] = pool.summary()
    return progress


def _gradient_step(net: PolicyValueNet, opt, buffer: ReplayBuffer, cfg: AlphaZeroConfig,
                   rng: np.random.Generator, device, progress: dict) -> dict[str, float]:
    """One gradient step on a sampled batch; returns its metrics.

    Raises:
        TrainingFailed: the loss, or a weight after the step, is not finite; the step's
            weights are never saved.
    """
    net.train()
    m = _loss(net, buffer.sample(cfg.batch_size, rng, cfg.augment), cfg, device)
    step = progress["gradient_steps"] + 1
    if not bool(torch.isfinite(m["loss"])):
        loss = float(m["loss"].detach())
        raise TrainingFailed(f"training diverged at gradient step {step:,}: the loss is {loss} (try a lower "
                             "--learning-rate); nothing non-finite was saved, the last checkpoint is kept")
    opt.zero_grad(set_to_none=True)
    m["loss"].backward()
    opt.step()
    # One sum per tensor: a NaN or infinite weight makes it non-finite (cheaper than checking each value).
    total = torch.stack([p.detach().sum() for p in net.parameters()]).sum()
    if not bool(torch.isfinite(total)):
        check_finite(net, f"at gradient step {step:,}")
    progress["gradient_steps"] = step
    return {k: float(v.detach()) for k, v in m.items()}


def _bar_position(cfg: AlphaZeroConfig, progress: dict, seconds: float) -> int:
    if cfg.max_positions > 0:
        return min(progress["positions"], cfg.max_positions)
    return int(min(seconds, cfg.max_seconds))


def _progress_bar(cfg: AlphaZeroConfig):
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    total, unit = (cfg.max_positions, "pos") if cfg.max_positions > 0 else (int(cfg.max_seconds), "s")
    return tqdm(total=total, unit=unit, dynamic_ncols=True, disable=None)


def _tensorboard(folder: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(folder))


def config_from_dict(data: dict) -> AlphaZeroConfig:
    """A config from a dict (e.g. a run's config.json), unknown keys refused."""
    names = {f.name for f in fields(AlphaZeroConfig)}
    unknown = set(data) - names
    if unknown:
        raise ValueError(f"unknown AlphaZero settings {sorted(unknown)}; known: {sorted(names)}")
    return AlphaZeroConfig(**data)
