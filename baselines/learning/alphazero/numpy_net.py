"""The policy-value network's forward pass in plain numpy: a saved model played without torch.

``save_model`` writes, beside the torch weights, ``model.npz``: the same
network with each batch norm folded into the convolution before it (eval
mode's arithmetic: ``w * gamma / sqrt(var + eps)``, ``beta - mean * gamma /
sqrt(var + eps)``). ``NumpyNet`` runs the forward pass on those arrays,
points by channels, each 3x3 convolution as one gather of every point's 3x3
window (a zero row for points off the board) and one matrix product. Logits
and values match torch's to float32 rounding.

Why: importing torch costs seconds of the course's 10 s per move, and
playing a shipped model should not need the ``train`` extra. ``NumpyEvaluator``
is the search's evaluator over a ``NumpyNet``. Only ``export`` needs torch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tictacgo.baselines.learning.alphazero.modelfile import (
    NUMPY_FILE,
    board_points,
    checked_bytes,
    read_description,
    weights_cap,
)
from tictacgo.baselines.model_reading import expect_arrays, read_npz
from tictacgo.games.base import Game
from tictacgo.games.batched_common import BatchedGame


def _fold(conv, bn) -> tuple[np.ndarray, np.ndarray]:
    w = conv.weight.detach().cpu().double().numpy()
    b = conv.bias.detach().cpu().double().numpy() if conv.bias is not None else np.zeros(w.shape[0])
    if bn is None:
        return w, b
    scale = bn.weight.detach().cpu().double().numpy() / np.sqrt(bn.running_var.detach().cpu().double().numpy()
                                                                 + bn.eps)
    shift = bn.bias.detach().cpu().double().numpy() - bn.running_mean.detach().cpu().double().numpy() * scale
    return w * scale[:, None, None, None], b * scale + shift


def export(net) -> dict[str, np.ndarray]:
    """The arrays of a ``PolicyValueNet`` for ``NumpyNet`` (batch norms folded), float32."""
    out: dict[str, np.ndarray] = {}

    def put(name, w, b):
        out[f"{name}.w"], out[f"{name}.b"] = w.astype(np.float32), b.astype(np.float32)

    put("stem", *_fold(net.stem[0], net.stem[1]))
    for i, block in enumerate(net.trunk):
        put(f"block{i}.c1", *_fold(block.c1, block.b1))
        put(f"block{i}.c2", *_fold(block.c2, block.b2))
    put("policy.conv", *_fold(net.policy_head[0], net.policy_head[1]))
    fc = net.policy_head[4]
    put("policy.fc", fc.weight.detach().cpu().numpy(), fc.bias.detach().cpu().numpy())
    put("value.conv", *_fold(net.value_head[0], net.value_head[1]))
    for name, layer in (("value.fc1", net.value_head[4]), ("value.fc2", net.value_head[6])):
        put(name, layer.weight.detach().cpu().numpy(), layer.bias.detach().cpu().numpy())
    return out


def conv_windows(rows: int, cols: int) -> np.ndarray:
    """For each point of a ``rows x cols`` board (row-major), the points of its 3x3 window in
    ``(kh, kw)`` order, ``(rows*cols, 9)`` int64; a window's cells off the board: ``rows*cols``
    (the zero row ``_conv3`` appends)."""
    points = rows * cols
    idx = np.full((points, 9), points, np.int64)
    for i in range(rows):
        for j in range(cols):
            for k, (di, dj) in enumerate((a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)):
                if 0 <= i + di < rows and 0 <= j + dj < cols:
                    idx[i * cols + j, k] = (i + di) * cols + j + dj
    return idx


class NumpyNet:
    """``PolicyValueNet``'s forward pass (policy logits and value) on exported arrays.

    Args:
        arrays: ``export``'s dict (or the loaded ``model.npz``).
        blocks: the number of residual blocks.
        board_shape: ``(rows, cols)`` of the input planes; None: a square board, its size read
            from the arrays.
    Raises:
        ValueError: arrays missing for the blocks or heads, or heads that do not fit ``board_shape``.
    """

    def __init__(self, arrays, blocks: int, board_shape: tuple[int, int] | None = None):
        needed = ["stem", "policy.conv", "policy.fc", "value.conv", "value.fc1", "value.fc2"]
        needed += [f"block{i}.c{k}" for i in range(blocks) for k in (1, 2)]
        missing = [n for n in needed if f"{n}.w" not in arrays or f"{n}.b" not in arrays]
        if missing:
            raise ValueError(f"the numpy export lacks {missing}")

        def conv(name):  # (out, C, kh, kw) -> (kh*kw*C, out), for windows gathered as (kh, kw, C)
            w = np.asarray(arrays[f"{name}.w"], np.float32)
            b = np.asarray(arrays[f"{name}.b"], np.float32)
            return np.ascontiguousarray(w.transpose(0, 2, 3, 1).reshape(w.shape[0], -1).T), b

        def linear(name):
            return (np.ascontiguousarray(np.asarray(arrays[f"{name}.w"], np.float32).T),
                    np.asarray(arrays[f"{name}.b"], np.float32))

        self.stem = conv("stem")
        self.blocks = [(conv(f"block{i}.c1"), conv(f"block{i}.c2")) for i in range(blocks)]
        self.policy_conv, self.policy_fc = conv("policy.conv"), linear("policy.fc")
        self.value_conv, self.value_fc1 = conv("value.conv"), linear("value.fc1")
        self.value_fc2 = linear("value.fc2")
        points = self.policy_fc[0].shape[0] // 2
        if board_shape is None:
            n = int(round(points ** 0.5))
            board_shape = (n, n)
        rows, cols = board_shape
        if rows * cols != points:
            raise ValueError(f"the numpy export's policy head covers {points} points, not the "
                             f"{rows}x{cols} board's {rows * cols}")
        self.window = conv_windows(rows, cols)

    def _conv3(self, x: np.ndarray, wb) -> np.ndarray:
        """A 3x3 convolution (same padding) of ``(B, points, C)``: one gather, one matrix product."""
        B, N, C = x.shape
        ext = np.concatenate([x, np.zeros((B, 1, C), np.float32)], axis=1)
        cols = ext[:, self.window].reshape(B * N, 9 * C)
        return (cols @ wb[0] + wb[1]).reshape(B, N, -1)

    @staticmethod
    def _conv1(x: np.ndarray, wb) -> np.ndarray:
        return x @ wb[0] + wb[1]

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits (B, A), value (B,))`` float32 for planes ``(B, C, rows, cols)``."""
        B, C = planes.shape[:2]
        x = np.ascontiguousarray(np.asarray(planes, np.float32).reshape(B, C, -1).transpose(0, 2, 1))
        h = np.maximum(self._conv3(x, self.stem), 0)
        for c1, c2 in self.blocks:
            h = np.maximum(h + self._conv3(np.maximum(self._conv3(h, c1), 0), c2), 0)
        p = np.maximum(self._conv1(h, self.policy_conv), 0).transpose(0, 2, 1).reshape(B, -1)
        logits = p @ self.policy_fc[0] + self.policy_fc[1]
        v = np.maximum(self._conv1(h, self.value_conv), 0).reshape(B, -1)
        v = np.maximum(v @ self.value_fc1[0] + self.value_fc1[1], 0)
        value = np.tanh(v @ self.value_fc2[0] + self.value_fc2[1])[:, 0]
        return logits, value


class NumpyEvaluator:
    """The search's leaf evaluator over a ``NumpyNet`` (see ``network.NetworkEvaluator``)."""

    def __init__(self, net: NumpyNet, game: Game):
        self.net = net
        self.game = game
        self.encoder = game.encoder
        self.calls = 0
        self.positions = 0

    def evaluate_planes(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, value = self.net(planes)
        self.calls += 1
        self.positions += len(planes)
        return logits.astype(np.float64), value.astype(np.float64)

    def __call__(self, engine: BatchedGame, rows: np.ndarray, legal: np.ndarray):
        return self.evaluate_planes(self.encoder.from_engine(engine, rows, legal))


def export_shapes(arch: dict) -> dict[str, tuple[int, ...]]:
    """The name and shape of every array ``export`` writes for a network of ``arch`` (checked sizes)."""
    ch, points, a, h = arch["channels"], board_points(arch), arch["num_actions"], arch["value_hidden"]
    shapes: dict[str, tuple[int, ...]] = {}

    def put(name, w, out):
        shapes[f"{name}.w"], shapes[f"{name}.b"] = w, (out,)

    put("stem", (ch, arch["in_planes"], 3, 3), ch)
    for i in range(arch["blocks"]):
        put(f"block{i}.c1", (ch, ch, 3, 3), ch)
        put(f"block{i}.c2", (ch, ch, 3, 3), ch)
    put("policy.conv", (2, ch, 1, 1), 2)
    put("policy.fc", (a, 2 * points), a)
    put("value.conv", (1, ch, 1, 1), 1)
    put("value.fc1", (h, points), h)
    put("value.fc2", (1, h), 1)
    return shapes


def load_numpy(folder: str | Path) -> tuple[NumpyEvaluator, Game, dict]:
    """``(evaluator, game, meta)`` from a model folder's ``model.npz`` (no pickles, no torch).

    The description is checked first (``read_description``); the archive's size, then each
    array's declared name, shape and dtype are checked against its architecture before
    anything is read, and the weights must be finite.

    Raises:
        ValueError: a missing, inconsistent or damaged export, naming the file.
    """
    desc = read_description(folder)
    arch = desc.architecture
    data = checked_bytes(folder, NUMPY_FILE, desc.meta.get("numpy_sha256"), cap=weights_cap(arch))
    shapes = export_shapes(arch)
    arrays = read_npz(data, str(Path(folder) / NUMPY_FILE), lambda declared: expect_arrays(declared, shapes))
    board_shape = (arch["board"], arch["board_cols"] or arch["board"])
    net = NumpyNet(arrays, arch["blocks"], board_shape)
    return NumpyEvaluator(net, desc.game), desc.game, desc.meta
