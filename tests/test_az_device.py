"""The az agent's ``device=`` option: the network on the CPU (numpy or torch) or a CUDA GPU, same moves."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tictacgo.baselines.learning.alphazero.device import resolve_device  # noqa: E402
from tictacgo.baselines.registry import make_agent  # noqa: E402
from tictacgo.games import make_game  # noqa: E402

GPU = torch.cuda.is_available()


def random_positions(game, count: int, seed: int = 0):
    """``count`` positions reached by random legal moves (the game not over)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 6))):
            if game.is_terminal(state):
                break
            state = game.play(state, int(rng.choice(game.legal_actions(state))))
        if not game.is_terminal(state):
            out.append(state)
    return out


def moves(spec: str, game, positions) -> list[int]:
    agent = make_agent(spec, game, np.random.default_rng(0))
    return [agent.act(s) for s in positions]


@pytest.mark.parametrize("name", ["tictactoe", "littlego"])
def test_the_torch_weights_on_auto_play_the_numpy_exports_moves(name):
    game = make_game(name)
    positions = random_positions(game, 12)
    assert moves("az:sims=8,device=auto", game, positions) == moves("az:sims=8,device=cpu", game, positions)


def test_auto_runs_the_network_where_torch_sees_a_gpu_or_else_on_the_cpu():
    agent = make_agent("az:device=auto", make_game("tictactoe"), np.random.default_rng(0))
    assert agent.evaluator.device.type == ("cuda" if GPU else "cpu")


@pytest.mark.skipif(GPU, reason="this machine has a GPU")
def test_cuda_without_a_gpu_is_refused_in_one_line():
    with pytest.raises(ValueError, match="device=cuda asked for, but torch sees no CUDA device"):
        make_agent("az:device=cuda", make_game("tictactoe"), np.random.default_rng(0))


def test_an_unknown_device_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"device must be one of \('cpu', 'cuda', 'auto'\), got 'gpu'"):
        make_agent("az:device=gpu", make_game("tictactoe"), np.random.default_rng(0))


def test_training_and_the_agent_resolve_a_device_name_by_one_rule_each_in_its_own_words():
    assert resolve_device("auto").type == ("cuda" if GPU else "cpu")
    assert resolve_device("cpu", "device={}").type == "cpu"
    with pytest.raises(ValueError, match=r"one of \('cpu', 'cuda', 'auto'\), got 'gpu' \(--device DEVICE\)"):
        resolve_device("gpu")
    if not GPU:
        with pytest.raises(ValueError, match=r"^--device cuda asked for, .* \(use --device auto or cpu\)$"):
            resolve_device("cuda")
        with pytest.raises(ValueError, match=r"^device=cuda asked for, .* \(use device=auto or cpu\)$"):
            resolve_device("cuda", "device={}")


@pytest.mark.skipif(not GPU, reason="needs a CUDA GPU (scripts/device_check.sh runs it on one)")
@pytest.mark.parametrize("name", ["tictactoe", "littlego"])
def test_the_network_on_the_gpu_plays_the_cpus_moves(name):
    game = make_game(name)
    positions = random_positions(game, 12)
    assert moves("az:sims=8,device=cuda", game, positions) == moves("az:sims=8,device=cpu", game, positions)
