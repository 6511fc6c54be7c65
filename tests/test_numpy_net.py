"""The numpy forward pass (``numpy_net.NumpyNet``) on its preallocated buffers, with the compiled
kernels between its matrix products (``net_kernels``) or with numpy alone: both give, to the bit,
what the plain formula of the network gives (a gather of every point's 3x3 window, a matrix product,
the bias, the residual, ReLU), at every batch size, one call after another."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tictacgo.baselines.learning.alphazero.agent import shipped_model
from tictacgo.baselines.learning.alphazero.numpy_net import NumpyNet, export_shapes, load_numpy

BACKENDS = ["numba", "numpy"]


def reference_forward(net: NumpyNet, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network's formula, written plainly (fresh arrays at every step)."""
    def conv3(x, wb):
        B, N, C = x.shape
        ext = np.concatenate([x, np.zeros((B, 1, C), np.float32)], axis=1)
        return (ext[:, net.window].reshape(B * N, 9 * C) @ wb[0] + wb[1]).reshape(B, N, -1)

    B, C = planes.shape[:2]
    x = np.ascontiguousarray(np.asarray(planes, np.float32).reshape(B, C, -1).transpose(0, 2, 1))
    h = np.maximum(conv3(x, net.stem), 0)
    for c1, c2 in net.blocks:
        h = np.maximum(h + conv3(np.maximum(conv3(h, c1), 0), c2), 0)
    p = np.maximum(h @ net.policy_conv[0] + net.policy_conv[1], 0).transpose(0, 2, 1).reshape(B, -1)
    logits = p @ net.policy_fc[0] + net.policy_fc[1]
    v = np.maximum(h @ net.value_conv[0] + net.value_conv[1], 0).reshape(B, -1)
    v = np.maximum(v @ net.value_fc1[0] + net.value_fc1[1], 0)
    return logits, np.tanh(v @ net.value_fc2[0] + net.value_fc2[1])[:, 0]


def random_net(rows: int, cols: int, actions: int, blocks: int = 2, seed: int = 0) -> NumpyNet:
    arch = {"in_planes": 5, "board": rows, "board_cols": cols, "num_actions": actions, "channels": 8,
            "blocks": blocks, "value_hidden": 16}
    rng = np.random.default_rng(seed)
    arrays = {k: rng.normal(0, 0.4, shape).astype(np.float32) for k, shape in export_shapes(arch).items()}
    return NumpyNet(arrays, blocks, (rows, cols))


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    if request.param == "numba":
        pytest.importorskip("numba")
    monkeypatch.setenv("TICTACGO_BATCHED_BACKEND", request.param)
    return request.param


def test_the_shipped_network_gives_the_plain_formulas_outputs_to_the_bit_at_every_batch_size(backend):
    net = load_numpy(shipped_model("littlego"))[0].net
    assert net.compiled == (backend == "numba")
    rng = np.random.default_rng(1)
    for batch in (1, 3, 8, 1, 64, 2, 5, 1, 3, 4, 6, 7, 9, 10, 2, 1):  # more sizes than the buffers kept
        planes = rng.integers(0, 2, (batch, 8, 5, 5)).astype(np.float32)
        logits, value = net(planes)
        want_logits, want_value = reference_forward(net, planes)
        np.testing.assert_array_equal(logits, want_logits)
        np.testing.assert_array_equal(value, want_value)


@pytest.mark.parametrize(("rows", "cols", "actions"), [(3, 4, 13), (5, 3, 15), (2, 2, 5)])
def test_a_rectangular_board_gives_the_plain_formulas_outputs_to_the_bit(backend, rows, cols, actions):
    net = random_net(rows, cols, actions, blocks=3)
    planes = np.random.default_rng(2).random((4, 5, rows, cols))  # float64 planes are cast first
    for batch in (4, 1):
        logits, value = net(planes[:batch])
        want_logits, want_value = reference_forward(net, planes[:batch])
        np.testing.assert_array_equal(logits, want_logits)
        np.testing.assert_array_equal(value, want_value)


def test_outputs_are_new_arrays_the_next_call_leaves_alone(backend):
    net = random_net(3, 3, 10)
    rng = np.random.default_rng(3)
    first = rng.random((1, 5, 3, 3)).astype(np.float32)
    logits, value = net(first)
    kept = logits.copy(), value.copy()
    net(rng.random((1, 5, 3, 3)).astype(np.float32))
    np.testing.assert_array_equal(logits, kept[0])
    np.testing.assert_array_equal(value, kept[1])


def test_a_pickled_net_gives_the_same_outputs(backend):
    net = random_net(3, 4, 13)
    planes = np.random.default_rng(4).random((2, 5, 3, 4)).astype(np.float32)
    net(planes)  # buffers made: they are not pickled
    twin = pickle.loads(pickle.dumps(net))
    for got, want in zip(twin(planes), net(planes), strict=True):
        np.testing.assert_array_equal(got, want)
