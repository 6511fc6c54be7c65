"""AlphaZero's network, its numpy export, its model file and its replay buffer on boards that are not
square: the heads are sized ``rows * cols``, ``model.json`` records the columns (``board_cols``) only
for such a board, and augmentation uses only the symmetries that can move the board's planes."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tictacgo.baselines.learning.alphazero.modelfile import (  # noqa: E402
    check_sizes,
    parameter_count,
)
from tictacgo.baselines.learning.alphazero.network import Architecture, PolicyValueNet  # noqa: E402
from tictacgo.baselines.learning.alphazero.numpy_net import (  # noqa: E402
    NumpyNet,
    conv_windows,
    export,
    export_shapes,
)
from tictacgo.baselines.learning.alphazero.replay import ReplayBuffer  # noqa: E402
from tictacgo.games.symmetry import board_symmetries  # noqa: E402

# rows, cols, actions: a 3x4 board with a pass after its points, and 4x5 with an action per column
SHAPES = [(3, 4, 13), (4, 5, 5), (5, 3, 15)]


def _net(rows: int, cols: int, actions: int, ownership: bool = False) -> PolicyValueNet:
    torch.manual_seed(0)
    net = PolicyValueNet(Architecture(3, rows, actions, channels=8, blocks=2, ownership=ownership,
                                      board_cols=cols))
    net.train()
    with torch.no_grad():  # move the batch norms' running statistics away from their start
        for _ in range(3):
            net(torch.rand(16, 3, rows, cols) * 2)
    return net.eval()


def test_a_square_architecture_is_written_without_board_cols_and_a_rectangle_with_them():
    square = Architecture(8, 5, 26)
    assert "board_cols" not in square.to_json() and square.board_shape == (5, 5)
    assert Architecture(8, 5, 26, board_cols=5) == square  # the columns of a square are not recorded
    wide = Architecture(2, 4, 5, board_cols=5)
    assert wide.to_json()["board_cols"] == 5 and wide.board_shape == (4, 5)
    for arch in (square, wide):
        assert Architecture.from_json(arch.to_json()) == arch


@pytest.mark.parametrize("cols", [0, 20, "5", 2.5, True])
def test_board_cols_outside_its_range_is_refused_naming_it(cols):
    with pytest.raises(ValueError, match="board_cols"):
        check_sizes({"in_planes": 2, "board": 4, "num_actions": 5, "channels": 8, "blocks": 1,
                     "value_hidden": 8, "board_cols": cols})


@pytest.mark.parametrize(("rows", "cols", "actions"), SHAPES)
def test_the_network_sizes_its_heads_for_rows_times_cols(rows, cols, actions):
    net = _net(rows, cols, actions, ownership=True)
    with torch.inference_mode():
        logits, value, own = net(torch.rand(2, 3, rows, cols))
    assert logits.shape == (2, actions) and value.shape == (2,) and own.shape == (2, rows * cols)
    weights = sum(t.numel() for k, t in net.state_dict().items() if not k.endswith("num_batches_tracked"))
    assert parameter_count(check_sizes(net.arch.to_json())) == weights
    assert {k: v.shape for k, v in export(net).items()} == export_shapes(check_sizes(net.arch.to_json()))


@pytest.mark.parametrize(("rows", "cols", "actions"), SHAPES)
def test_the_numpy_forward_pass_matches_torch_on_a_rectangle(rows, cols, actions):
    net = _net(rows, cols, actions)
    planes = np.random.default_rng(0).integers(0, 2, (6, 3, rows, cols)).astype(np.float32)
    with torch.inference_mode():
        logits, value, _ = net(torch.from_numpy(planes))
        folded = net.inference(torch.from_numpy(planes))
    np_logits, np_value = NumpyNet(export(net), 2, (rows, cols))(planes)
    np.testing.assert_allclose(np_logits, logits.numpy(), atol=2e-5, rtol=1e-4)
    np.testing.assert_allclose(np_value, value.numpy(), atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(folded[0], logits, atol=1e-5, rtol=1e-4)


def test_a_numpy_export_for_another_board_is_refused():
    with pytest.raises(ValueError, match=r"covers 20 points, not the 5x5 board's 25"):
        NumpyNet(export(_net(4, 5, 5)), 2, (5, 5))


def test_each_points_window_holds_its_neighbours_on_a_rectangle():
    window = conv_windows(2, 3)  # points 0 1 2 / 3 4 5; off the board: 6
    np.testing.assert_array_equal(window[0], [6, 6, 6, 6, 0, 1, 6, 3, 4])
    np.testing.assert_array_equal(window[5], [1, 2, 6, 4, 5, 6, 6, 6, 6])


def test_a_rectangles_replay_buffer_moves_planes_and_policy_by_its_four_symmetries():
    rows, cols = 2, 3
    buffer = ReplayBuffer(8, (1, rows, cols), rows * cols + 1)  # a pass after the points
    assert len(buffer.symmetries) == 4
    planes = np.arange(6, dtype=np.float32).reshape(1, 1, rows, cols)
    policy = np.array([[1, 0, 0, 0, 0, 0, 0.5]], np.float32)  # all on point 0 (top left), and a pass
    buffer.add(planes, policy, np.ones(1, np.float32))
    seen = set()
    for seed in range(40):
        batch = buffer.sample(1, np.random.default_rng(seed))
        corner = int(np.argmax(batch["policy"][0, :6]))
        assert batch["planes"][0, 0].flat[corner] == 0  # the point's value moved with its policy
        assert batch["policy"][0, 6] == 0.5  # the pass stays
        seen.add(corner)
    assert seen == {0, 2, 3, 5}  # the identity, both mirrors and the half turn: each corner once


def test_actions_that_are_not_points_train_with_the_identity_alone():
    buffer = ReplayBuffer(8, (2, 4, 5), 5)
    np.testing.assert_array_equal(buffer.symmetries, [np.arange(5)])
    mirror = np.array([np.arange(5), np.arange(5)[::-1]])  # the columns mirrored: not a map of the 20 points
    with pytest.raises(ValueError, match="the 5 actions are not the 4x5 board's points"):
        ReplayBuffer(8, (2, 4, 5), 5, symmetries=mirror)
    assert len(ReplayBuffer(8, (2, 4, 5), 21, symmetries=board_symmetries(4, 5, 21)).symmetries) == 4
