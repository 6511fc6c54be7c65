"""The settings of a training run (``TrainConfig``), importable without torch.

cleanrl's habit: one dataclass, a docstring per field; ``tictacgo train`` and
the scripts in ``scripts/`` fill it, ``training.train`` reads it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, fields

import numpy as np


@dataclass
class TrainConfig:
    """One training run. Every field has a default; see ``tictacgo train --help``."""

    game: str = "tictactoe"
    """The game: "tictactoe" or "littlego"."""
    algo: str = "maskable-ppo"
    """"maskable-ppo" (action masks) or "a2c" (penalty wrapper, seed 000's credit assignment)."""
    opponents: list[str] = field(default_factory=lambda: ["random"])
    """Registry specs to train against, each optionally ``SPEC@WEIGHT`` (default weight 1)."""
    self_play: bool = False
    """Add a pool of frozen snapshots of the learner to the opponents."""
    self_play_weight: float = 1.0
    """The pool's weight in the opponent mixture."""
    snapshot_every: int = 20_000
    """Steps between two snapshots of the learner."""
    random_opening: int = 0
    """Exploring starts: each training game opens with 0..N random moves (RandomOpening)."""
    pool_size: int = 5
    """Snapshots kept in the pool (the oldest leaves first)."""
    steps: int = 100_000
    """Environment steps (learner actions) to train for."""
    seed: int = 0
    """Seeds the model, the envs and the opponents, once."""
    n_envs: int = 8
    """Envs stepped together (DummyVecEnv)."""
    first_player_envs: int = 0
    """Envs (of n_envs) where the learner always moves first (X, Black); the others alternate colours."""
    policy: str = "mlp"
    """Network: "mlp", "two_branch" (seed 000's) or "resnet" (planes)."""
    observation: str = "flat"
    """Observation format: "flat", "board" or "planes"."""
    board_size: int | None = None
    """Board size, for games that take one (None: the game's default)."""
    gamma: float = 0.95
    """Discount factor."""
    learning_rate: float = 3e-4
    """Optimizer learning rate (Adam for PPO, RMSprop for A2C)."""
    anneal_lr: bool = False
    """Decay the learning rate linearly to 0 over the run (cleanrl's anneal_lr)."""
    n_steps: int = 0
    """Rollout length per env (0: the algorithm's default: 256 for PPO, 5 for A2C)."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    batch_size: int = 256
    """PPO minibatch size (A2C updates on the whole rollout)."""
    n_epochs: int = 10
    """PPO passes over each rollout."""
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    """Hidden layer sizes of the "mlp" policy's actor and critic."""
    eval_every: int = 20_000
    """Steps between two evaluations."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random"])
    """Registry specs the evaluation plays against."""
    eval_games: int = 50
    """Evaluation games per opponent and colour."""
    out: str = "runs/train"
    """Output folder (models, checkpoint, TensorBoard logs, learning curve)."""
    resume: bool = False
    """Continue the run saved in ``out`` (checkpoint.zip and progress.json)."""
    progress_bar: bool = True
    """Show SB3's progress bar (needs tqdm and rich, in the train extra)."""


def parse_weighted(spec: str) -> tuple[str, float]:
    """``"minimax@2"`` -> ``("minimax", 2.0)``; no ``@`` means weight 1.

    Raises:
        ValueError: a weight that is not a positive finite number.
    """
    name, at, weight = spec.rpartition("@")
    if not at:
        return spec, 1.0
    try:
        w = float(weight)
    except ValueError:
        raise ValueError(f"opponent weight in {spec!r} must be a number") from None
    if not np.isfinite(w) or w <= 0:
        raise ValueError(f"opponent weight in {spec!r} must be a positive finite number")
    return name, w


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of dataclass ``cls`` (cleanrl's convention), by field name."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body
    docs = {}
    for node, nxt in zip(body, body[1:], strict=False):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) \
                and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
            docs[node.target.id] = nxt.value.value
    return docs


def config_parser(defaults: TrainConfig, description: str = "") -> argparse.ArgumentParser:
    """An argparse parser with one ``--flag`` per ``TrainConfig`` field, its docstring as the help.

    Lists take several values (``--opponents random minimax@2``); booleans are
    ``--flag`` / ``--no-flag``.
    """
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    docs = field_docs(TrainConfig)
    for f in fields(TrainConfig):
        value = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=value, help=docs[f.name])
        elif isinstance(value, list):
            kind = int if f.name == "net_arch" else str
            parser.add_argument(flag, nargs="+", type=kind, default=value, help=docs[f.name])
        elif f.name == "board_size":
            parser.add_argument(flag, type=int, default=value, help=docs[f.name])
        else:
            parser.add_argument(flag, type=type(value), default=value, help=docs[f.name])
    return parser


def parse_config(defaults: TrainConfig, argv: list[str] | None = None, description: str = "") -> TrainConfig:
    """A ``TrainConfig`` from the command line, starting from ``defaults``."""
    args = config_parser(defaults, description).parse_args(argv)
    return TrainConfig(**vars(args))
