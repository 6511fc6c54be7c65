"""The shipped AlphaZero models, saved when every board was square, load bit-identically now that the
network takes any ``rows x cols`` board: the same architecture, the same tensors, the same numpy arrays,
and on fixed positions the logits and values the code before the change gave
(``tests/data/az_shipped_outputs.json``, written by ``model_outputs`` at that commit)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tictacgo.baselines.learning.alphazero.agent import shipped_model  # noqa: E402
from tictacgo.baselines.learning.alphazero.network import load_model, save_model  # noqa: E402
from tictacgo.baselines.learning.alphazero.numpy_net import export, load_numpy  # noqa: E402

RECORDED = Path(__file__).parent / "data" / "az_shipped_outputs.json"
SHIPPED = ("tictactoe", "littlego")


def positions(game, count: int = 6, seed: int = 0) -> list:
    """The initial state, then states after 1, 2, ... seeded random moves (live ones only)."""
    rng = np.random.default_rng(seed)
    state, out = game.initial_state(), []
    while len(out) < count and not game.is_terminal(state):
        out.append(state)
        state = game.play(state, int(rng.choice(game.legal_actions(state))))
    return out


def model_outputs(folder: Path) -> dict:
    """Torch's and numpy's logits and values of a model folder's network on ``positions``."""
    net, game, _ = load_model(folder)
    evaluator, _, _ = load_numpy(folder)
    planes = np.stack([game.network_planes(s) for s in positions(game)])
    with torch.inference_mode():
        logits, value, _ = net(torch.from_numpy(planes))
    np_logits, np_value = evaluator.evaluate_planes(planes)
    return {"torch_logits": logits.tolist(), "torch_value": value.tolist(),
            "numpy_logits": np_logits.tolist(), "numpy_value": np_value.tolist()}


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_square_model_keeps_its_description_without_board_cols(name):
    net, _, meta = load_model(shipped_model(name))
    assert "board_cols" not in meta["architecture"]
    assert net.arch.board_cols is None and net.arch.board_shape == (net.arch.board, net.arch.board)
    assert net.arch.to_json() == meta["architecture"]


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_square_model_loads_its_tensors_bit_for_bit(name):
    folder = shipped_model(name)
    net, _, _ = load_model(folder)
    saved = torch.load(folder / "model.pt", weights_only=True)
    loaded = net.state_dict()
    assert list(loaded) == list(saved)
    for key, tensor in saved.items():
        assert loaded[key].dtype == tensor.dtype and torch.equal(loaded[key], tensor), key
    with np.load(folder / "model.npz") as shipped:
        again = export(net)  # the numpy export of the loaded network is the one that was shipped
        assert sorted(again) == sorted(shipped.files)
        for key in shipped.files:
            assert again[key].dtype == shipped[key].dtype and np.array_equal(again[key], shipped[key]), key


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_square_model_saved_again_is_described_as_before(name, tmp_path):
    folder = shipped_model(name)
    net, game, meta = load_model(folder)
    save_model(tmp_path / "again", net, game, meta["info"])
    again = json.loads((tmp_path / "again" / "model.json").read_text())
    assert again["architecture"] == meta["architecture"] and again["variant"] == meta["variant"]
    assert again["numpy_sha256"] == meta["numpy_sha256"]  # the same arrays, written the same way
    saved = torch.load(io.BytesIO((tmp_path / "again" / "model.pt").read_bytes()), weights_only=True)
    assert all(torch.equal(saved[k], v) for k, v in net.state_dict().items())


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_square_model_gives_the_outputs_it_gave_before_boards_could_be_rectangles(name):
    recorded = json.loads(RECORDED.read_text())["models"][name]
    outputs = model_outputs(shipped_model(name))
    assert set(outputs) == set(recorded)
    for key, values in recorded.items():
        # float32 arithmetic: the same to the last bits, allowing another CPU's summation order
        np.testing.assert_allclose(outputs[key], values, rtol=1e-5, atol=1e-6, err_msg=f"{name} {key}")
