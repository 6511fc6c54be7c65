"""The policy-value network's forward pass in plain numpy: a saved model played without torch.

``save_model`` writes, beside the torch weights, ``model.npz``: the same
network with each batch norm folded into the convolution before it (eval
mode's arithmetic: ``w * gamma / sqrt(var + eps)``, ``beta - mean * gamma /
sqrt(var + eps)``). ``NumpyNet`` runs the forward pass on those arrays,
points by channels, each 3x3 convolution as one gather of every point's 3x3
window (a zero row for points off the board) and one matrix product. Logits
and values match torch's to float32 rounding.

One search evaluates one position at a time, so a call's fixed costs count:
the trunk writes into buffers kept per batch size (and per thread), and
where numba runs the engines (``resolve_backend``) the gathers, biases,
residuals and ReLUs between its matrix products are the compiled kernels of
``net_kernels``, one call a convolution; both paths give the same bits.

Why: importing torch costs seconds of the course's 10 s per move, and
playing a shipped model should not need the ``train`` extra. ``NumpyEvaluator``
is the search's evaluator over a ``NumpyNet``. Only ``export`` needs torch.
"""

from __future__ import annotations

import threading
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
from tictacgo.games.batched_common import BatchedGame, resolve_backend


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

    A net keeps each thread's buffers of the last few batch sizes it saw (a few hundred kB at 5x5
    and 32 channels for one position); the arrays a call returns are its own.

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
        self._convs = (self.stem, *(c for block in self.blocks for c in block))  # the trunk's, in order
        self._local = threading.local()  # each thread's buffers (``_workspace``)
        self._kernels = _net_kernels()

    @property
    def compiled(self) -> bool:
        """Whether the trunk runs the compiled kernels of ``net_kernels`` (else numpy alone)."""
        return self._kernels is not None

    def _workspace(self, batch: int) -> _Workspace:
        """The buffers of a ``batch``-position forward pass in this thread (made at its first call)."""
        spaces = getattr(self._local, "spaces", None)
        if spaces is None:
            spaces = self._local.spaces = {}
        work = spaces.get(batch)
        if work is None:
            if len(spaces) >= _KEEP_WORKSPACES:
                del spaces[next(iter(spaces))]
            heads = (self.policy_conv[0].shape[1], self.value_fc1[0].shape[1])
            work = spaces[batch] = _Workspace(batch, len(self.window), self.stem[0].shape[0] // 9,
                                              self.stem[0].shape[1], heads, padded=self._kernels is None)
        return work

    def _conv3(self, work: _Workspace, source: np.ndarray, cols: np.ndarray, wb, dest: np.ndarray,
               residual: np.ndarray | None = None) -> None:
        """A 3x3 convolution (same padding) of ``source`` (``(B, points + 1, C)``, its last point the
        zero row of the cells off the board), then ReLU, written into ``dest`` (``(B, points, out)``):
        one gather of every point's window, one matrix product, the bias (and ``residual``) added."""
        np.take(source, self.window, axis=1, out=cols.reshape(work.batch, work.points, 9, -1), mode="clip")
        y = np.matmul(cols, wb[0], out=work.y)
        np.add(y, wb[1], out=y)
        y3 = y.reshape(work.batch, work.points, -1)
        if residual is not None:
            np.add(y3, residual, out=y3)
        np.maximum(y3, 0, out=dest)

    def _trunk_numpy(self, work: _Workspace, x: np.ndarray) -> np.ndarray:
        N = work.points
        np.copyto(work.planes[:, :N], x.transpose(0, 2, 1))
        h, t = work.h[:, :N], work.t[:, :N]
        self._conv3(work, work.planes, work.cols_in, self.stem, h)
        for c1, c2 in self.blocks:
            self._conv3(work, work.h, work.cols, c1, t)
            self._conv3(work, work.t, work.cols, c2, h, residual=h)
        return h

    def _trunk_compiled(self, work: _Workspace, x: np.ndarray) -> np.ndarray:
        """The trunk with ``net_kernels`` doing the gathers, biases, residuals and ReLUs: per
        convolution one matrix product and one kernel call."""
        k, window, y, entries = self._kernels, self.window, work.y, work.entries
        k.gather_planes(x, window, work.cols_in)
        cols, last = work.cols_in, len(self._convs) - 1
        for i, (w, b) in enumerate(self._convs):
            np.matmul(cols, w, out=y)
            inner = i % 2 == 1  # a block's first convolution: into t; the stem and the second: into h
            args = (y, b, work.h, i > 0 and not inner, work.t if inner else work.h, window, work.cols,
                    i < last)
            if i < len(entries):
                entries[i](*args)
            else:  # the first call of this batch size: the entry point of these buffers' types, kept
                entries.append(k.call_and_bind(k.finish_and_gather, *args))
            cols = work.cols
        return work.h

    def trunk(self, planes: np.ndarray) -> np.ndarray:
        """The trunk's output ``(B, points, channels)`` float32 for planes ``(B, C, rows, cols)``: a view
        of this thread's buffers, overwritten by the next call."""
        B, C = planes.shape[:2]
        work = self._workspace(B)
        x = np.ascontiguousarray(planes, np.float32).reshape(B, C, work.points)
        if self._kernels is None:
            return self._trunk_numpy(work, x)
        return self._trunk_compiled(work, x)

    def __getstate__(self) -> dict:
        # the buffers and the kernels' module are made again where the net is unpickled
        return {k: v for k, v in vars(self).items() if k not in ("_local", "_kernels")}

    def __setstate__(self, state: dict) -> None:
        vars(self).update(state)
        self._local = threading.local()
        self._kernels = _net_kernels()

    @staticmethod
    def _conv1(x: np.ndarray, wb) -> np.ndarray:
        return x @ wb[0] + wb[1]

    def __call__(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits (B, A), value (B,))`` float32 for planes ``(B, C, rows, cols)`` (new arrays)."""
        B = planes.shape[0]
        h = self.trunk(planes)
        if self._kernels is not None:
            return self._heads_compiled(self._workspace(B), h)
        p = np.maximum(self._conv1(h, self.policy_conv), 0).transpose(0, 2, 1).reshape(B, -1)
        logits = p @ self.policy_fc[0] + self.policy_fc[1]
        v = np.maximum(self._conv1(h, self.value_conv), 0).reshape(B, -1)
        v = np.maximum(v @ self.value_fc1[0] + self.value_fc1[1], 0)
        value = np.tanh(v @ self.value_fc2[0] + self.value_fc2[1])[:, 0]
        return logits, value


    def _heads_compiled(self, work: _Workspace, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The policy and value heads on ``h`` with ``net_kernels`` finishing their convolutions and
        the value's hidden layer: the matrix products of ``__call__``'s formulas, fewer calls between."""
        k = self._kernels
        k.head_inputs(np.matmul(h, self.policy_conv[0], out=work.policy), self.policy_conv[1],
                      np.matmul(h, self.value_conv[0], out=work.value), self.value_conv[1], work.policy_in,
                      work.value_in)
        logits = work.policy_in @ self.policy_fc[0]
        np.add(logits, self.policy_fc[1], out=logits)
        hidden = np.matmul(work.value_in, self.value_fc1[0], out=work.hidden)
        k.bias_relu(hidden, self.value_fc1[1])
        value = hidden @ self.value_fc2[0]
        np.add(value, self.value_fc2[1], out=value)
        return logits, np.tanh(value, out=value)[:, 0]


def _net_kernels():
    """The ``net_kernels`` module where the batched engines run on numba (``resolve_backend``: numba
    importable, ``TICTACGO_BATCHED_BACKEND`` not ``numpy``), else None: the trunk on numpy alone."""
    if resolve_backend() != "numba":
        return None
    from tictacgo.baselines.learning.alphazero import net_kernels

    return net_kernels


#: Batch sizes whose buffers a net keeps per thread (the oldest is dropped for a new one).
_KEEP_WORKSPACES = 8


class _Workspace:
    """The float32 buffers one batch size's forward pass writes into, so a call allocates none of them.

    ``h`` and ``t`` hold ``(B, points, C)``: the trunk's running output and a block's inner output;
    ``cols_in`` and ``cols`` the gathered windows ``(B * points, 9 * C)`` of the input planes and of the
    trunk; ``y`` a convolution's product ``(B * points, C)``; ``policy``, ``value``, ``policy_in``,
    ``value_in`` and ``hidden`` the heads' convolutions, their finished outputs and the value's
    hidden layer (the compiled path's). ``padded`` (the numpy path, which gathers
    with ``np.take``): ``h``, ``t`` and ``planes`` (the input points by channels) have one more point,
    all zeros, that the windows' cells off the board read.
    """

    def __init__(self, batch: int, points: int, in_planes: int, channels: int, heads: tuple[int, int],
                 padded: bool):
        self.batch, self.points = batch, points
        pad = 1 if padded else 0
        self.planes = np.zeros((batch, points + 1, in_planes), np.float32) if padded else None
        self.h = np.zeros((batch, points + pad, channels), np.float32)
        self.t = np.zeros((batch, points + pad, channels), np.float32)
        self.cols_in = np.empty((batch * points, 9 * in_planes), np.float32)
        self.cols = np.empty((batch * points, 9 * channels), np.float32)
        self.y = np.empty((batch * points, channels), np.float32)
        self.entries: list = []  # the compiled path's entry point of each convolution's kernel
        self.policy = np.empty((batch, points, heads[0]), np.float32)
        self.value = np.empty((batch, points, 1), np.float32)
        self.policy_in = np.empty((batch, heads[0] * points), np.float32)
        self.value_in = np.empty((batch, points), np.float32)
        self.hidden = np.empty((batch, heads[1]), np.float32)


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
