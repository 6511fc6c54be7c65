"""Trained MLP policies in plain numpy: the shipped models without torch.

A MaskablePPO or A2C ``MlpPolicy`` chooses its action with a small stack: the
flattened observation, ``Linear`` layers with ``tanh`` between them, and a
``Linear`` action head giving one logit per action. ``export_mlp(policy)``
(torch needed, once) copies those weights into plain arrays, which
``save_npz`` writes beside the model; ``NumpyPolicyAgent`` replays the same
forward pass with numpy alone. The numbers match torch's to float32 rounding,
and the agent chooses as ``PolicyAgent`` does: the best legal action, or a
draw from the masked distribution with ``sample=True``.

Why: importing torch and stable-baselines3 costs seconds of the course's 10 s
per move, and the games and envs should not need the ``train`` extra to play
against a shipped model. Policies with other networks (the two-branch or
residual ones) are refused by ``export_mlp`` and stay SB3-only.
"""

from __future__ import annotations

import os

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.model_reading import read_file, read_npz
from tictacgo.envs import observations
from tictacgo.games.base import Game
from tictacgo.validate import check_bool


def export_mlp(policy) -> dict[str, np.ndarray]:
    """The actor of an SB3 ``MlpPolicy`` as arrays ``W0, b0, W1, b1, ...`` (the last layer is the head).

    Raises:
        ValueError: the policy is not a flatten + Linear/Tanh MLP.
    """
    import torch.nn as nn

    policy = getattr(policy, "policy", policy)
    if type(policy.features_extractor).__name__ != "FlattenExtractor":
        raise ValueError(f"only MLP policies export to numpy; this one extracts features with "
                         f"{type(policy.features_extractor).__name__}")
    layers = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    linear = [m for m in layers if isinstance(m, nn.Linear)]
    others = [m for m in layers if not isinstance(m, (nn.Linear, nn.Tanh))]
    if others or len(layers) != 2 * len(linear) - 1:
        raise ValueError(f"only Linear layers with Tanh between them export to numpy, got {layers}")
    arrays = {}
    for k, m in enumerate(linear):
        arrays[f"W{k}"] = m.weight.detach().cpu().numpy().astype(np.float32)
        arrays[f"b{k}"] = m.bias.detach().cpu().numpy().astype(np.float32)
    arrays["obs_shape"] = np.asarray(policy.observation_space.shape, dtype=np.int64)
    return arrays


def save_npz(arrays: dict[str, np.ndarray], path: str | os.PathLike) -> None:
    """Write exported arrays to ``path`` (.npz) through a temporary file and a rename."""
    path = os.fspath(path)
    tmp = f"{path}.tmp-{os.getpid()}.npz"
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


#: The most bytes an exported policy may hold (the shipped ones: 78 kB and 446 kB).
MAX_NPZ_BYTES = 256 << 20
MAX_LAYERS = 64


def load_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The arrays ``save_npz`` wrote, checked before they are read.

    The file's size is capped (``MAX_NPZ_BYTES``), and the arrays' declared names, shapes and
    dtypes must be those of an MLP (``W0, b0, ...`` chained, float32, and ``obs_shape``) before
    any is read; the weights must be finite.

    Raises:
        FileNotFoundError: no such file.
        ValueError: not an exported policy, or a damaged one (naming the file and the fault).
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no exported policy at {path!r}")
    data = read_file(path, MAX_NPZ_BYTES, "exported policy (.npz)")
    arrays = read_npz(data, repr(path), _check_mlp)
    dims = [int(d) for d in arrays["obs_shape"]]
    if min(dims) < 1 or int(np.prod(dims)) != arrays["W0"].shape[1]:
        raise ValueError(f"{path!r} is not a usable model export: its obs_shape {dims} does not give "
                         f"the {arrays['W0'].shape[1]} inputs of its first layer")
    return arrays


def _check_mlp(declared: dict) -> None:
    """Refuse arrays that are not ``export_mlp``'s: a chain of float32 layers and ``obs_shape``."""
    if "obs_shape" not in declared or "W0" not in declared:
        raise ValueError(f"it is not an exported policy: it has {sorted(declared)[:8]}")
    count = sum(1 for k in declared if k.startswith("W"))
    if count > MAX_LAYERS:
        raise ValueError(f"it has {count} layers, over the {MAX_LAYERS} allowed")
    expected = {"obs_shape"} | {f"{w}{k}" for k in range(count) for w in "Wb"}
    if set(declared) != expected:
        raise ValueError(f"its arrays {sorted(set(declared) ^ expected)[:6]} are not those of {count} layers")
    shape, dtype = declared["obs_shape"]
    if len(shape) != 1 or not 1 <= shape[0] <= 3 or dtype != np.int64:
        raise ValueError(f"its obs_shape is {dtype} of shape {shape}, not 1 to 3 int64 sizes")
    total, inputs = 0, None
    for k in range(count):
        (w, wtype), (b, btype) = declared[f"W{k}"], declared[f"b{k}"]
        if len(w) != 2 or wtype != np.float32 or btype != np.float32 or b != w[:1] \
                or (inputs is not None and w[1] != inputs):
            raise ValueError(f"its layer {k} (W{k} {wtype} {w}, b{k} {btype} {b}) does not follow "
                             f"from the one before as float32 weights")
        total += (w[0] * w[1] + w[0]) * 4
        inputs = w[0]
    if total > MAX_NPZ_BYTES:
        raise ValueError(f"its layers hold {total:,} bytes, over the {MAX_NPZ_BYTES:,} allowed")


class LogitsAgent(Agent):
    """Plays from ``self.logits(state)``: the best legal action, or a draw from the masked
    distribution with ``self.sample`` (the shared behaviour of every trained-policy agent)."""

    sample = False

    def logits(self, state) -> np.ndarray:
        raise NotImplementedError

    def probabilities(self, state) -> dict[int, float]:
        """The policy's distribution over the legal actions of ``state`` (sums to 1)."""
        legal = self.game.legal_actions(state)
        z = self.logits(state)[legal]
        p = np.exp(z - z.max())
        p /= p.sum()
        return dict(zip(legal, p.tolist(), strict=True))

    def act(self, state) -> int:
        legal = self.game.legal_actions(state)
        if not legal:
            raise ValueError("act() called on a finished game")
        z = self.logits(state)[legal]
        if self.sample:
            p = np.exp(z - z.max())
            return int(legal[int(self.rng.choice(len(legal), p=p / p.sum()))])
        return int(legal[int(np.argmax(z))])


class NumpyPolicyAgent(LogitsAgent):
    """A policy exported by ``export_mlp``, played with numpy (see the module docstring).

    Args:
        game: the rules module.
        arrays: ``export_mlp``'s output (or ``load_npz``'s).
        sample: draw from the masked distribution instead of taking the argmax.
        rng: the generator for ``sample``.
    Raises:
        ValueError: the arrays were made for another game or board size.
    """

    name = "policy"

    def __init__(self, game: Game, arrays: dict[str, np.ndarray], sample: bool = False,
                 rng: np.random.Generator | None = None):
        super().__init__(game, rng)
        probe = game.initial_state()
        self.format = observations.format_for_shape(game, probe, tuple(arrays["obs_shape"]))
        count = sum(1 for k in arrays if k.startswith("W"))
        self.layers = [(arrays[f"W{k}"], arrays[f"b{k}"]) for k in range(count)]
        actions = self.layers[-1][1].shape[0]
        if actions != game.spec.num_actions:
            raise ValueError(f"the policy has {actions} actions, {game.spec.name} has "
                             f"{game.spec.num_actions}: it was exported for another game or size")
        check_bool("sample", sample)
        self.sample = sample

    def logits(self, state) -> np.ndarray:
        """The policy's action logits for ``state`` (illegal actions included)."""
        return self.observation_logits(observations.observe(self.game, state, self.format))

    def predict(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The best action allowed by ``action_mask``, from an env's observation (as SB3's ``predict``)."""
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any():
            raise ValueError("the action mask allows no action")
        z = np.where(mask, self.observation_logits(observation), -np.inf)
        return int(np.argmax(z))

    def observation_logits(self, observation: np.ndarray) -> np.ndarray:
        """The action logits for an observation in the agent's format."""
        x = np.asarray(observation, dtype=np.float32).ravel()
        for W, b in self.layers[:-1]:
            x = np.tanh(W @ x + b)
        W, b = self.layers[-1]
        return (W @ x + b).astype(np.float64)
