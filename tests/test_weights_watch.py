"""The AlphaZero evaluator's folded weights follow every change of the network's weights.

The evaluator caches the network's weights with the batch norms folded in; it
must fold again after an optimizer step, a ``load_state_dict``, a forward pass
in training mode (batch-norm statistics), a ``.to()`` that replaces tensors, and
an edit by hand that it is told of, and only then.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tictacgo.baselines.learning.alphazero.network import (  # noqa: E402
    NUMPY_BATCH,
    Architecture,
    NetworkEvaluator,
    PolicyValueNet,
    WeightsWatch,
)
from tictacgo.games import TicTacToe  # noqa: E402

TTT = TicTacToe()


def _net() -> PolicyValueNet:
    torch.manual_seed(3)
    return PolicyValueNet(Architecture.for_variant(TTT, channels=8, blocks=1)).eval()


def _planes(rows: int = NUMPY_BATCH + 1) -> np.ndarray:
    """``rows`` positions' planes: by default one more than the numpy path takes, so torch's fold runs."""
    s = TTT.initial_state()
    return np.stack([TTT.encoder.from_state(TTT.play(s, a % 9) if a else s) for a in range(rows)])


def _reference(net: PolicyValueNet, planes: np.ndarray) -> np.ndarray:
    net.eval()
    with torch.inference_mode():
        return net(torch.from_numpy(planes))[0].numpy()


def _follows(evaluator: NetworkEvaluator, net: PolicyValueNet, planes: np.ndarray) -> None:
    np.testing.assert_allclose(evaluator.evaluate_planes(planes)[0], _reference(net, planes), atol=2e-5,
                               rtol=1e-4)


def _count_refolds(evaluator: NetworkEvaluator, monkeypatch) -> list[int]:
    folds = []
    real = evaluator.net.folded_weights
    monkeypatch.setattr(evaluator.net, "folded_weights", lambda *a: folds.append(1) or real(*a))
    return folds


def test_weights_are_folded_once_while_they_do_not_change(monkeypatch):
    net, planes = _net(), _planes()
    evaluator = NetworkEvaluator(net, TTT)
    folds = _count_refolds(evaluator, monkeypatch)
    for _ in range(5):
        evaluator.evaluate_planes(planes)
    assert len(folds) == 1


def test_an_optimizer_step_is_followed():
    net, planes = _net(), _planes()
    evaluator = NetworkEvaluator(net, TTT)
    before = evaluator.evaluate_planes(planes)[0]
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    net.train()
    logits, value, _ = net(torch.from_numpy(planes))
    (logits.square().mean() + value.square().mean()).backward()
    opt.step()
    after = evaluator.evaluate_planes(planes)[0]
    assert not np.allclose(before, after, atol=1e-3)
    _follows(evaluator, net, planes)


def test_a_load_state_dict_is_followed():
    net, planes = _net(), _planes()
    evaluator = NetworkEvaluator(net, TTT)
    evaluator.evaluate_planes(planes)
    torch.manual_seed(4)
    other = PolicyValueNet(net.arch)
    net.load_state_dict(other.state_dict())
    _follows(evaluator, net, planes)


def test_a_forward_pass_in_training_mode_moves_the_batch_norms_and_is_followed():
    net, planes = _net(), _planes()
    evaluator = NetworkEvaluator(net, TTT)
    evaluator.evaluate_planes(planes)
    net.train()
    with torch.no_grad():
        net(torch.rand(32, *planes.shape[1:]) * 3)
    _follows(evaluator, net, planes)


def test_tensors_replaced_by_to_are_followed():
    net, planes = _net(), _planes()
    evaluator = NetworkEvaluator(net, TTT)
    evaluator.evaluate_planes(planes)
    net.to(torch.float64).to(torch.float32)  # new tensors, same values
    folds = []
    real = net.folded_weights
    net.folded_weights = lambda *a: folds.append(1) or real(*a)
    evaluator.evaluate_planes(planes)
    assert folds == [1]


def test_an_edit_by_hand_is_followed_once_the_evaluator_is_told():
    net, planes = _net(), _planes()
    evaluator = NetworkEvaluator(net, TTT)
    before = evaluator.evaluate_planes(planes)[0]
    with torch.no_grad():
        net.stem[0].weight.mul_(-2.0)
    np.testing.assert_array_equal(evaluator.evaluate_planes(planes)[0], before)  # not told: the old fold
    evaluator.weights_changed()
    _follows(evaluator, net, planes)


def test_evaluators_of_one_network_share_one_watch_and_add_no_hooks():
    net = _net()
    first = NetworkEvaluator(net, TTT)
    hooks = len(net._forward_pre_hooks)
    second = NetworkEvaluator(net, TTT)
    assert first._watch is second._watch is WeightsWatch.of(net)
    assert len(net._forward_pre_hooks) == hooks


def test_a_watched_network_still_pickles_and_copies():
    net, planes = _net(), _planes()
    NetworkEvaluator(net, TTT).evaluate_planes(planes)
    for twin in (pickle.loads(pickle.dumps(net)), copy.deepcopy(net)):
        np.testing.assert_array_equal(_reference(twin, planes), _reference(net, planes))
        _follows(NetworkEvaluator(twin, TTT), twin, planes)


def test_a_tensor_assigned_in_place_of_a_buffer_or_parameter_is_followed():
    net, planes = _net(), _planes()
    evaluator = NetworkEvaluator(net, TTT)
    evaluator.evaluate_planes(planes)
    bn = net.stem[1]
    bn.running_mean = bn.running_mean + 0.5               # a new buffer tensor, by assignment
    _follows(evaluator, net, planes)
    net.stem[0].weight = torch.nn.Parameter(net.stem[0].weight.detach() * -2.0)   # a new parameter
    _follows(evaluator, net, planes)


def test_to_that_makes_new_parameter_objects_is_followed():
    net, planes = _net(), _planes()
    evaluator = NetworkEvaluator(net, TTT)
    evaluator.evaluate_planes(planes)
    keep = torch.__future__.get_overwrite_module_params_on_conversion()
    torch.__future__.set_overwrite_module_params_on_conversion(True)
    try:
        first = next(net.parameters())
        net.to(torch.float64)
        assert next(net.parameters()) is not first  # the case this test is about
        with torch.no_grad():
            for p in net.parameters():
                p.mul_(-1.0)
        net.to(torch.float32)
    finally:
        torch.__future__.set_overwrite_module_params_on_conversion(keep)
    _follows(evaluator, net, planes)


def test_the_watch_reads_the_modules_again_only_when_a_tensor_may_have_been_replaced(monkeypatch):
    net = _net()
    watch = WeightsWatch.of(net)
    key = watch.key()
    walks = []
    real = net.buffers
    monkeypatch.setattr(net, "buffers", lambda *a, **k: walks.append(1) or real(*a, **k))
    assert all(watch.key() == key for _ in range(5))
    assert walks == []
    net.to(torch.float64)
    assert watch.key() != key
    assert walks == [1]


def _train_step(net: PolicyValueNet, planes: np.ndarray) -> None:
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    net.train()
    logits, value, _ = net(torch.from_numpy(planes))
    (logits.square().mean() + value.square().mean()).backward()
    opt.step()
    net.eval()


def test_small_batches_run_on_numpy_and_agree_with_torch():
    net = _net()
    evaluator = NetworkEvaluator(net, TTT)
    calls = []
    real = net.heads  # every torch path (conv2d's and the prepacked trunk's) ends in the heads
    net.heads = lambda *a: calls.append(1) or real(*a)
    small, large = _planes(NUMPY_BATCH), _planes(NUMPY_BATCH + 1)
    small_logits, small_values = evaluator.evaluate_planes(small)
    assert calls == []                                   # numpy's forward pass, not torch's
    large_logits, large_values = evaluator.evaluate_planes(large)
    assert calls == [1]
    np.testing.assert_allclose(small_logits, large_logits[:NUMPY_BATCH], atol=2e-5, rtol=1e-4)
    np.testing.assert_allclose(small_values, large_values[:NUMPY_BATCH], atol=2e-5, rtol=1e-4)
    assert evaluator.calls == 2 and evaluator.positions == 2 * NUMPY_BATCH + 1


def test_the_numpy_path_follows_an_optimizer_step_and_a_load_state_dict():
    net, planes = _net(), _planes(2)
    evaluator = NetworkEvaluator(net, TTT)
    before = evaluator.evaluate_planes(planes)[0]
    _train_step(net, _planes())
    after = evaluator.evaluate_planes(planes)[0]
    assert not np.allclose(before, after, atol=1e-3)
    _follows(evaluator, net, planes)
    torch.manual_seed(4)
    net.load_state_dict(PolicyValueNet(net.arch).state_dict())
    _follows(evaluator, net, planes)


def test_the_numpy_path_exports_once_while_the_weights_do_not_change(monkeypatch):
    from tictacgo.baselines.learning.alphazero import network

    net, planes = _net(), _planes(2)
    evaluator = NetworkEvaluator(net, TTT)
    exports = []
    real = network.export
    monkeypatch.setattr(network, "export", lambda n: exports.append(1) or real(n))
    for _ in range(5):
        evaluator.evaluate_planes(planes)
    assert exports == [1]


def test_bfloat16_never_takes_the_numpy_path(monkeypatch):
    evaluator = NetworkEvaluator(_net(), TTT, precision="bfloat16")

    def refuse(planes):
        raise AssertionError("bfloat16 went through numpy's float32 forward pass")

    monkeypatch.setattr(evaluator, "_evaluate_numpy", refuse)
    logits, values = evaluator.evaluate_planes(_planes(2))
    assert logits.shape == (2, 9) and values.shape == (2,)
