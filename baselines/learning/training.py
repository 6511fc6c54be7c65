"""Training MaskablePPO and A2C on the tictacgo envs: opponents, self-play, evaluation.

``train(TrainConfig(...))`` is the library behind ``tictacgo train`` and the
scripts in ``scripts/``. SB3 and sb3-contrib do the learning; this module
supplies the rest:

* **Envs**: ``gymnasium.make(<game>, learner="alternate")`` in a
  ``DummyVecEnv``, so the learner plays both colours and one network serves
  both through the player-relative observation. MaskablePPO uses the action
  masks; A2C has none and trains through ``IllegalMovePenalty``
  (``illegal="penalty"``) with the actor-critic chapter's credit assignment
  (``IllegalAwareA2C``).
* **Exploring starts** (``random_opening``): each training game may open
  with a few random moves (``RandomOpening``), so the policy also learns the
  positions that good play never reaches.
* **Opponents**: registry specs with weights (``"minimax@2"`` = weight 2), as
  a ``MixtureOpponent`` that draws one member per episode; and, with
  ``self_play``, a ``SnapshotPool`` of frozen copies of the learner, refreshed
  every ``snapshot_every`` steps and pushed to every env with
  ``env_method("set_opponent", ...)`` (so it works with SubprocVecEnv too).
  Snapshots are deep copies: they never share weights with the live model.
* **Evaluation**: every ``eval_every`` steps the greedy policy (masked: it
  never plays an illegal move) plays ``eval_games`` games per opponent and
  colour through the arena's game loop; win/draw/loss per opponent and
  colour and the unmasked policy's illegal-move rate go to TensorBoard
  (``out/tb``), and for a solvable game (Tic-Tac-Toe) the share of all
  live positions where the greedy move keeps the minimax value
  (``tictacgo.baselines.audit``); the best model (fewest evaluation losses,
  then, for A2C, the lowest unmasked illegal rate, then the highest
  optimal-move share, then the highest mean score) is kept as
  ``out/best_model.zip``; ``out/checkpoint.zip`` and ``out/progress.json``
  are written atomically, so ``resume`` continues the same run (the model is
  built from the configuration and the checkpoint's weights, optimizer state
  and step count are loaded into it, nothing unpickled); at the end a
  learning curve ``out/learning_curve.png`` is drawn (with the ``plot`` extra).
* **Safety**: every setting is checked before the output folder is created
  (``TrainConfig.validate``); the folder is locked for the run
  (``run_lock``); weights that became non-finite are never saved and a save
  the disk refuses stops the run (``TrainingFailed``), the last checkpoint kept.
"""

from __future__ import annotations

import copy
import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import DummyVecEnv

from tictacgo.agent import Agent
from tictacgo.atomic import atomic_write_json
from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.baselines.audit import optimal_actions, optimal_move_rate, reachable_positions
from tictacgo.baselines.learning.model_zip import read_model_zip
from tictacgo.baselines.learning.networks import policy_spec
from tictacgo.baselines.learning.policy_agent import PolicyAgent
from tictacgo.baselines.learning.training_config import (
    DEFAULT_N_STEPS,
    TrainConfig,
    TrainingFailed,
    open_run_folder,
    parse_weighted,
    progress_history,
)
from tictacgo.baselines.model_files import model_game_file
from tictacgo.baselines.registry import make_agent, parse_agent_spec
from tictacgo.envs.game_envs import env_id
from tictacgo.game_loop import play_wdl
from tictacgo.games import make_game
from tictacgo.wrappers import RandomOpening


class MixtureOpponent(Agent):
    """Plays as one of its members, drawn per game (at ``reset``) with the given weights.

    Args:
        game: the rules module.
        members: agents.
        weights: one positive weight per member.
        rng: draws the member, and is split to seed the members.
    """

    name = "mixture"

    def __init__(self, game, members: list[Agent], weights: list[float],
                 rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        if not members or len(members) != len(weights):
            raise ValueError("a mixture needs members and one weight per member")
        w = np.asarray(weights, dtype=float)
        if not (np.isfinite(w).all() and (w > 0).all()):
            raise ValueError(f"weights must be positive finite numbers, got {weights!r}")
        self.members = list(members)
        self.weights = w / w.sum()
        self.current = self.members[0]

    def seed(self, rng: np.random.Generator) -> None:
        self.rng = rng
        for m, s in zip(self.members, rng.integers(0, 2**63 - 1, size=len(self.members)), strict=True):
            m.seed(np.random.default_rng(int(s)))

    def reset(self) -> None:
        self.current = self.members[int(self.rng.choice(len(self.members), p=self.weights))]
        self.current.reset()

    def act(self, state) -> int:
        return self.current.act(state)


class SnapshotPool(Agent):
    """Frozen copies of the learner's policy; one, drawn per game, plays (greedy, masked)."""

    name = "self"

    def __init__(self, game, snapshots: list[PolicyAgent] | None = None,
                 rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        self.snapshots = snapshots if snapshots is not None else []
        self.current: PolicyAgent | None = None

    def reset(self) -> None:
        if not self.snapshots:
            raise RuntimeError("the snapshot pool is empty")
        self.current = self.snapshots[int(self.rng.integers(len(self.snapshots)))]

    def act(self, state) -> int:
        if self.current is None:
            self.reset()
        return self.current.act(state)


def snapshot(model, game) -> PolicyAgent:
    """A frozen copy of ``model``'s policy as an agent; it shares no tensor with the model."""
    live = model.policy
    # A new policy built as the algorithm builds its own (SB3's public settings: the spaces, the
    # learning-rate schedule, policy_kwargs), given the live weights: new tensors, no private name.
    # A policy read from a file (``LoadedModel``) has no algorithm around it and no optimizer state
    # in its graph: a deep copy is that copy.
    if hasattr(model, "policy_kwargs"):
        kwargs = dict(model.policy_kwargs)
        if getattr(model, "use_sde", False):
            kwargs["use_sde"] = True
        frozen = type(live)(model.observation_space, model.action_space, model.lr_schedule, **kwargs)
        frozen.load_state_dict(live.state_dict())
    else:
        frozen = copy.deepcopy(live)
    frozen = frozen.to("cpu").eval()
    for p in frozen.parameters():
        p.requires_grad_(False)
    return PolicyAgent(game, frozen)


class Opponents:
    """Each env's opponent mixture: the members built once from the specs, re-seeded for every new mixture.

    Args:
        cfg: the run's settings (opponents, self-play weight).
        game: the game object.
    """

    def __init__(self, cfg: TrainConfig, game):
        self.cfg, self.game = cfg, game
        self.specs = [parse_weighted(s) for s in cfg.opponents]
        self.members: dict[int, list[Agent]] = {}  # env index -> its members, one per spec

    def mixture(self, env_index: int, pool: SnapshotPool | None, rng: np.random.Generator) -> MixtureOpponent:
        """Env ``env_index``'s opponent: its members seeded from ``rng``, and a view of ``pool``."""
        built = self.members.get(env_index)
        members, weights = [], []
        for i, (spec, w) in enumerate(self.specs):
            member_rng = np.random.default_rng(int(rng.integers(2**63)))
            if built is None:
                members.append(make_agent(spec, self.game, rng=member_rng))
            else:
                built[i].seed(member_rng)  # the agent a new build with member_rng would be
                members.append(built[i])
            weights.append(w)
        self.members[env_index] = list(members)
        if pool is not None and pool.snapshots:
            # A view per env: the snapshot list is shared, the snapshot in play is not.
            view_rng = np.random.default_rng(int(rng.integers(2**63)))
            members.append(SnapshotPool(self.game, pool.snapshots, rng=view_rng))
            weights.append(self.cfg.self_play_weight)
        mixture_rng = np.random.default_rng(int(rng.integers(2**63)))
        return MixtureOpponent(self.game, members, weights, rng=mixture_rng)


def _env(cfg: TrainConfig, opponent, kwargs: dict[str, Any]) -> gym.Env:
    env = gym.make(env_id(cfg.game), opponent=opponent, **kwargs)
    return RandomOpening(env, cfg.random_opening) if cfg.random_opening else env


def make_vec_env(cfg: TrainConfig, game, opponents: Opponents | None = None) -> DummyVecEnv:
    """``n_envs`` envs of the game, opponents mixed; the learner moves first in the first
    ``first_player_envs`` of them and alternates colours in the others.

    Args:
        cfg: the run's settings.
        game: the game object.
        opponents: the envs' opponents (None: built here from ``cfg.opponents``).
    """
    opponents = opponents if opponents is not None else Opponents(cfg, game)
    kwargs: dict[str, Any] = {"learner": "alternate", "observation": cfg.observation}
    if cfg.board_size is not None:
        kwargs["board_size"] = cfg.board_size
    if cfg.algo == "a2c":
        kwargs["illegal"] = "penalty"
    rng = np.random.default_rng(cfg.seed)
    fns = []
    for k in range(cfg.n_envs):
        opponent = opponents.mixture(k, None, rng)
        env_kwargs = {**kwargs, "learner": "first"} if k < cfg.first_player_envs else kwargs
        fns.append(lambda o=opponent, kw=env_kwargs: _env(cfg, o, kw))
    vec = DummyVecEnv(fns)
    vec.seed(cfg.seed)
    return vec


class LinearDecay:
    """A learning-rate schedule: ``start`` at the beginning, falling linearly to 0 at the end."""

    def __init__(self, start: float):
        self.start = start

    def __call__(self, progress_remaining: float) -> float:  # SB3 counts progress from 1 down to 0
        return self.start * progress_remaining


def quiet_logger():
    """An SB3 logger that writes nothing and makes no folder, for a model that learns without a
    ``tensorboard_log`` (benchmarks, tests): ``model.set_logger(quiet_logger())`` before ``learn``.
    Without a logger, SB3 makes an empty ``SB3-<date>`` folder in the temporary folder at each
    ``learn`` (``stable_baselines3.common.logger.configure``), and nothing removes it."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


def _new_model(cfg: TrainConfig, env, tb: str):
    policy, policy_kwargs = policy_spec(cfg.policy, cfg.algo, cfg.net_arch)
    lr = LinearDecay(cfg.learning_rate) if cfg.anneal_lr else cfg.learning_rate
    common = dict(policy=policy, env=env, gamma=cfg.gamma, learning_rate=lr,
                  ent_coef=cfg.ent_coef, seed=cfg.seed, policy_kwargs=policy_kwargs, tensorboard_log=tb,
                  verbose=0, device="cpu")
    if cfg.algo == "maskable-ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO(n_steps=cfg.n_steps or DEFAULT_N_STEPS[cfg.algo], batch_size=cfg.batch_size,
                           n_epochs=cfg.n_epochs, **common)
    if cfg.algo == "a2c":
        from tictacgo.baselines.learning.a2c import IllegalAwareA2C

        return IllegalAwareA2C(n_steps=cfg.n_steps or DEFAULT_N_STEPS[cfg.algo], **common)
    raise ValueError(f"algo must be 'maskable-ppo' or 'a2c', got {cfg.algo!r}")


def restore_checkpoint(model, path: Path) -> None:
    """Load the policy weights, optimizer state and step count saved at ``path`` into ``model``.

    ``model`` is built afresh from the run's configuration; only weights
    (``torch.load(weights_only=True)``) and plain JSON values are read from the
    file, never SB3's pickled entries (``model_zip``). Everything is set through
    SB3's public attributes: the step count (``num_timesteps``, which also drives
    the learning-rate schedule) and the optimizer's state, which holds the count
    of gradient updates each parameter has had (Adam's ``step``). SB3's own
    update counter is private and feeds only its console log line
    ``train/n_updates`` (not TensorBoard; runs here are quiet): after a resume it
    counts from 0 again.

    Raises:
        ValueError: a damaged checkpoint, or one of another network than the configuration's.
    """
    data, loaded = read_model_zip(path, ("policy.pth", "policy.optimizer.pth"))
    steps = data.get("num_timesteps")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"the checkpoint {path} gives no step count (num_timesteps: {steps!r})")
    try:
        model.policy.load_state_dict(loaded["policy.pth"], strict=True)
        model.policy.optimizer.load_state_dict(loaded["policy.optimizer.pth"])
    except (RuntimeError, ValueError, KeyError, TypeError, IndexError) as e:
        raise ValueError(f"the checkpoint {path} does not fit this run's network and optimizer; "
                         f"was the configuration changed? ({type(e).__name__}: {e})") from None
    model.num_timesteps = steps


def save_model_atomic(model, path: Path, game) -> None:
    """Save ``model`` to ``path`` (.zip) through a temporary file and a rename, and the game it
    plays beside it (``model_game_file``: ``path`` with ``.json``)."""
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}.zip")
    try:
        model.save(tmp)
        os.replace(tmp, path)
    except BaseException:  # a full disk, Ctrl-C: no half-written temporary file is left behind
        tmp.unlink(missing_ok=True)
        raise
    atomic_write_json(model_game_file(path), {"format": "tictacgo-model-game/1", "game": game.spec.name,
                                              "variant": dict(game.params)})


def illegal_rate(model, game, states: list) -> float:
    """The fraction of ``states`` where the policy's unmasked argmax is illegal."""
    agent = PolicyAgent(game, model.policy)
    bad = 0
    for s in states:
        bad += not (game.legal_bits(s) >> int(np.argmax(agent.logits(s)))) & 1
    return bad / max(1, len(states))


def sample_states(game, count: int, rng: np.random.Generator) -> list:
    """Up to ``count`` distinct live positions from random games (all of them for Tic-Tac-Toe)."""
    seen: dict = {}
    for _ in range(count * 20):
        s = game.initial_state()
        while not game.is_terminal(s) and len(seen) < count:
            seen.setdefault(s, None)
            acts = game.legal_actions(s)
            s = game.play(s, acts[int(rng.integers(len(acts)))])
        if len(seen) >= count:
            break
    return list(seen)


def best_key(row: dict, masked: bool = True) -> tuple:
    """How evaluation rows rank: fewest losses, then (for a policy trained without masks) the
    lowest unmasked illegal rate, then most optimal moves (if audited), then the score."""
    illegal = 0.0 if masked else row.get("illegal_rate", 1.0)
    return (-row.get("losses", 0), -illegal, row.get("optimal_rate", 0.0), row["score"])


class TrainingCallback(BaseCallback):
    """Self-play snapshots, evaluation, best model, checkpoints and history (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, game, out: Path, history: list[dict], pool: SnapshotPool | None,
                 opponents: Opponents | None = None):
        super().__init__()
        self.cfg, self.game, self.out, self.history, self.pool = cfg, game, out, history, pool
        self.opponents = opponents if opponents is not None else Opponents(cfg, game)
        self.eval_specs = [(text, parse_agent_spec(text)) for text in cfg.eval_opponents]
        self.eval_agents: dict[AgentSpec, Agent] = {}  # built at the first evaluation, re-seeded after
        self.rng = np.random.default_rng(cfg.seed + 1)
        self.masked = cfg.algo == "maskable-ppo"
        self.best = max((best_key(h, self.masked) for h in history), default=None)
        self.last_eval = history[-1]["steps"] if history else 0
        self.last_snapshot = self.last_eval
        self.states = sample_states(game, 2000, np.random.default_rng(cfg.seed + 2))
        self.audit = None
        if game.spec.solvable:
            positions = reachable_positions(game)
            self.audit = (positions, optimal_actions(game, positions))
        self.t0 = time.perf_counter()
        self.seconds_before = history[-1]["seconds"] if history else 0.0  # of a resumed run

    def _on_training_start(self) -> None:
        if self.pool is not None and not self.pool.snapshots:
            self._push_snapshot()
        if not self.history:  # the untrained policy: a learning curve starts where learning does
            self.evaluate()

    def _on_step(self) -> bool:
        steps = self.num_timesteps
        if self.pool is not None and steps - self.last_snapshot >= self.cfg.snapshot_every:
            self.last_snapshot = steps
            self._push_snapshot()
        if steps - self.last_eval >= self.cfg.eval_every:
            self.last_eval = steps
            self.evaluate()
        return True

    def _push_snapshot(self) -> None:
        self.pool.snapshots.append(snapshot(self.model, self.game))
        del self.pool.snapshots[:-self.cfg.pool_size]
        env_rng = np.random.default_rng(int(self.rng.integers(2**63)))
        for k in range(self.training_env.num_envs):
            opponent = self.opponents.mixture(k, self.pool, env_rng)
            self.training_env.env_method("set_opponent", opponent, indices=[k])

    def _eval_opponent(self, spec: AgentSpec, rng: np.random.Generator) -> Agent:
        """The evaluation opponent for ``spec``, built once and seeded with ``rng`` for this evaluation."""
        agent = self.eval_agents.get(spec)
        if agent is None:
            agent = self.eval_agents[spec] = make_agent(spec, self.game, rng=rng)
        else:
            agent.seed(rng)
        return agent

    def evaluate(self) -> dict:
        """Play the greedy policy against each evaluation opponent; log, keep the best, checkpoint."""
        agent = snapshot(self.model, self.game)
        row: dict[str, Any] = {"steps": int(self.num_timesteps),
                               "seconds": round(time.perf_counter() - self.t0 + self.seconds_before, 1)}
        scores = []
        for spec, parsed in self.eval_specs:
            for colour, label in ((1, "first"), (2, "second")):
                opp = self._eval_opponent(parsed, np.random.default_rng(int(self.rng.integers(2**63))))
                w, d, losses = play_wdl(self.game, agent, opp, self.cfg.eval_games, colour=colour)
                n = max(1, w + d + losses)
                for key, v in (("win", w), ("draw", d), ("loss", losses)):
                    self.logger.record(f"eval/{spec}/{label}/{key}", v / n)
                row[f"{spec}/{label}"] = [w, d, losses]
                scores.append((w + 0.5 * d) / n)
        row["illegal_rate"] = illegal_rate(self.model, self.game, self.states)
        self.logger.record("eval/illegal_rate", row["illegal_rate"])
        row["score"] = float(np.mean(scores))
        self.logger.record("eval/score", row["score"])
        row["losses"] = sum(v[2] for k, v in row.items() if "/" in k)
        if self.audit is not None:
            row["optimal_rate"] = round(optimal_move_rate(agent.act, *self.audit), 4)
            self.logger.record("eval/optimal_move_rate", row["optimal_rate"])
        self.history.append(row)
        check_finite_policy(self.model)
        if self.best is None or best_key(row, self.masked) > self.best:
            self.best = best_key(row, self.masked)
            saving(lambda: save_model_atomic(self.model, self.out / "best_model.zip", self.game), self.out)
        saving(lambda: save_model_atomic(self.model, self.out / "checkpoint.zip", self.game), self.out)
        saving(lambda: atomic_write_json(self.out / "progress.json",
                                         {"config": asdict(self.cfg), "history": self.history}, indent=1),
               self.out)
        optimal = f"optimal {row['optimal_rate']:.4f} " if "optimal_rate" in row else ""
        if len(self.history) == 1:  # what the columns mean, once
            print("(score: the mean win rate, a draw counting half, against the evaluation opponents; "
                  + ("optimal: the share of positions where the greedy move is a minimax-best one; "
                     if optimal else "")
                  + "illegal: the share of sample positions where the policy's favourite action, "
                  "unmasked, is illegal (the agent plays its best legal action: this shows how much it "
                  "still leans on that); OPPONENT/first|second=[wins, draws, losses])", flush=True)
        print(f"[{row['steps']:>8d} steps, {row['seconds']:7.1f} s] score {row['score']:.3f} "
              f"{optimal}illegal {row['illegal_rate']:.4f} " +
              " ".join(f"{k}={v}" for k, v in row.items() if "/" in k), flush=True)
        return row


def rollout_steps(steps: int, n_envs: int, n_steps: int) -> int:
    """The steps SB3 trains when asked for ``steps``: whole rollouts of ``n_envs x n_steps``.

    Args:
        steps: the steps asked for.
        n_envs: envs stepped together.
        n_steps: rollout length per env.

    Returns:
        ``steps`` rounded up to a multiple of ``n_envs * n_steps``.
    """
    rollout = n_envs * n_steps
    return -(-steps // rollout) * rollout


def plot_curve(history: list[dict], path: Path, title: str) -> bool:
    """Draw the evaluation score over steps; False if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([h["steps"] for h in history], [h["score"] for h in history], marker="o")
    ax.set_xlabel("training steps")
    ax.set_ylabel("evaluation score (win + draw/2)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    fig.tight_layout()
    tmp = path.with_name(f".{path.stem}.tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)
    return True


def train(cfg: TrainConfig):
    """Run (or resume) one training run; returns the trained model.

    Every setting is checked (``TrainConfig.validate``) and every opponent
    built once before the output folder is created; the folder is locked for
    the run (``run_lock``: a second run into it is refused).

    Raises:
        ValueError: a bad configuration (game, algorithm, opponents, numbers), or an
            ``out`` the run cannot use (``open_run_folder``), ``resume`` included.
        TrainingFailed: the run started but could not go on (non-finite weights, a
            checkpoint that could not be written); the last whole checkpoint is kept.
    """
    cfg.validate()
    game = make_game(cfg.game, size=cfg.board_size)
    opponents = Opponents(cfg, game)  # each spec read once; a bad one fails here, before any training
    for spec in [*(s for s, _ in opponents.specs), *map(parse_agent_spec, cfg.eval_opponents)]:
        make_agent(spec, game)
    import torch

    torch.set_num_threads(cfg.threads)  # before the model: torch's default spins a thread a core
    with open_run_folder(cfg.output_folder(), resume=cfg.resume, force=cfg.force) as out:
        history = progress_history(out) if cfg.resume else []
        env = make_vec_env(cfg, game, opponents)
        try:
            model = _new_model(cfg, env, str(out / "tb"))
            if cfg.resume:
                restore_checkpoint(model, out / "checkpoint.zip")
            _learn(cfg, game, out, model, history, opponents)
        finally:
            env.close()
    return model


def _learn(cfg: TrainConfig, game, out: Path, model, history: list[dict], opponents: Opponents) -> None:
    """Train ``model`` up to ``cfg.steps``, evaluate, save the final model and draw the learning curve."""
    pool = SnapshotPool(game, rng=np.random.default_rng(cfg.seed + 3)) if cfg.self_play else None
    callback = TrainingCallback(cfg, game, out, history, pool, opponents)
    remaining = cfg.steps - model.num_timesteps
    if remaining > 0:
        rounded = rollout_steps(remaining, cfg.n_envs, model.n_steps)
        if rounded != remaining:
            print(f"note: SB3 trains whole rollouts of {cfg.n_envs} envs x {model.n_steps} steps = "
                  f"{cfg.n_envs * model.n_steps:,} steps: training {rounded:,} steps "
                  f"(to step {model.num_timesteps + rounded:,}), not {remaining:,}", flush=True)
        try:
            model.learn(total_timesteps=rounded, callback=CallbackList([callback]),
                        reset_num_timesteps=not cfg.resume, progress_bar=cfg.progress_bar,
                        tb_log_name=f"{cfg.game}_{cfg.algo}")
        except ValueError as e:
            # The settings were checked before the run: a ValueError in SB3's update is the
            # network's (a distribution of NaN logits), not the user's input.
            check_finite_policy(model)
            raise TrainingFailed(f"training failed at step {model.num_timesteps:,}: {e}; the last "
                                 f"checkpoint is kept in {out}") from None
    if not history or history[-1]["steps"] != model.num_timesteps:
        callback.evaluate()
    saving(lambda: save_model_atomic(model, out / "final_model.zip", game), out)
    title = f"{cfg.game} {cfg.algo}, seed {cfg.seed}"
    if not saving(lambda: plot_curve(history, out / "learning_curve.png", title), out):
        print(f"note: {out / 'learning_curve.png'} skipped: matplotlib is missing "
              "(pip install 'tictacgo[plot]')", flush=True)


def check_finite_policy(model) -> None:
    """Stop a run whose network has a non-finite weight, before it is saved.

    Raises:
        TrainingFailed: a NaN or infinite parameter (the last saved checkpoint stays as it was).
    """
    import torch

    for name, p in model.policy.state_dict().items():
        if p.is_floating_point() and not bool(torch.isfinite(p).all()):
            raise TrainingFailed(f"training diverged at step {model.num_timesteps:,}: the network's "
                                 f"{name} is not finite (try a lower --learning-rate); nothing "
                                 "non-finite was saved, the last checkpoint is kept")


def saving(write, out: Path) -> Any:
    """Run ``write()`` (one atomic save) and return what it returns; a file system error stops the
    run in one line.

    Raises:
        TrainingFailed: ``write`` raised ``OSError`` (a full disk, a folder gone); every file
            is written atomically, so the earlier version of the file is kept.
    """
    try:
        return write()
    except OSError as e:
        raise TrainingFailed(f"cannot save into {out}: {e.strerror or e}; the files saved before "
                             "are kept") from None
