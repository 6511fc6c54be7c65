"""RLlib: the tictacgo AEC envs through RLlib's PettingZooEnv, the masked PPO RLModule, self-play training.

Skipped without ray[rllib] (``pip install 'tictacgo[rllib]'``). The training
tests start one local Ray instance (``ray.init(address="local")``) and train
in the driver process (``num_env_runners=0``).
"""

from __future__ import annotations

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="needs ray[rllib]: pip install 'tictacgo[rllib]'")
pytest.importorskip("ray.rllib", reason="needs ray[rllib]: pip install 'tictacgo[rllib]'")

from tictacgo.baselines.learning import rllib  # noqa: E402
from tictacgo.games import tictactoe  # noqa: E402

SMALL = {"num_env_runners": 0, "train_batch_size": 256, "minibatch_size": 64, "num_epochs": 2, "seed": 0}


class UnmaskedModule(rllib.MaskedPPOTorchRLModule):
    """The same networks with the mask switched off: a policy that does play illegal moves."""

    @staticmethod
    def _mask(outs, mask):
        return outs


@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _train(config, iterations: int):
    """Train; the algorithm and the summed per-iteration callback metrics."""
    algo = config.build_algo()
    totals = {"games_ended": 0, "illegal_moves": 0}
    for _ in range(iterations):
        runners = algo.train()["env_runners"]
        for key in totals:
            totals[key] += int(runners.get(key, 0))
    return algo, totals


@pytest.mark.parametrize("game, agents, n_actions, size", [
    ("tictactoe", {"player_1", "player_2"}, 9, 9),
    ("littlego", {"black_0", "white_0"}, 26, 25),
])
def test_rllib_env_gives_the_mover_a_float_board_and_mask_in_its_space(game, agents, n_actions, size):
    env = rllib.TictacgoRLlibEnv({"game": game})
    obs, _ = env.reset(seed=0)
    assert set(env.possible_agents) == agents
    (agent, o), = obs.items()
    assert env.observation_spaces[agent].contains(o)
    assert o["observations"].shape == (size,) and o["observations"].dtype == np.float32
    assert o["action_mask"].shape == (n_actions,) and o["action_mask"].dtype == np.float32
    assert o["action_mask"].sum() == n_actions  # the empty board: every point (and pass) legal


def test_rllib_env_ends_the_game_on_an_occupied_cell_and_tells_both_agents_why():
    env = rllib.TictacgoRLlibEnv({"game": "tictactoe"})
    env.reset(seed=0)
    obs, *_ = env.step({"player_1": 4})
    assert obs["player_2"]["observations"][4] == -1.0 and obs["player_2"]["action_mask"][4] == 0.0
    obs, rewards, terminated, _, infos = env.step({"player_2": 4})
    assert terminated["__all__"]
    assert rewards == {"player_1": 1, "player_2": -1}
    assert {info["reason"] for info in infos.values()} == {"illegal"}


def test_rllib_env_rejects_an_unknown_game():
    with pytest.raises(ValueError, match="chess"):
        rllib.TictacgoRLlibEnv({"game": "chess"})


def test_self_play_config_rejects_bad_sizes():
    with pytest.raises(ValueError, match="train_batch_size"):
        rllib.self_play_config("tictactoe", train_batch_size=0)
    with pytest.raises(ValueError, match="num_env_runners"):
        rllib.self_play_config("tictactoe", num_env_runners=-1)
    with pytest.raises(TypeError, match="module_class"):
        rllib.self_play_config("tictactoe", module_class=dict)


def test_self_play_maps_both_agents_to_one_policy():
    config = rllib.self_play_config("tictactoe")
    assert set(config.policies) == {rllib.SHARED_POLICY}
    assert {config.policy_mapping_fn(a, None) for a in ("player_1", "player_2")} == {rllib.SHARED_POLICY}


def test_two_iterations_of_masked_self_play_take_no_illegal_move_and_the_greedy_move_is_legal(local_ray):
    algo, totals = _train(rllib.self_play_config("tictactoe", **SMALL), iterations=2)
    try:
        assert totals["games_ended"] >= 2 * 256 // 9  # a game is at most 9 moves
        assert totals["illegal_moves"] == 0
        policy = rllib.ModulePolicy(algo.get_module(rllib.SHARED_POLICY), tictactoe.TicTacToe())
        rng = np.random.default_rng(0)
        positions = 0
        for _ in range(20):  # random positions along random games, both players to move
            state = tictactoe.TicTacToe().initial_state()
            while not tictactoe.is_terminal(state):
                mask = tictactoe.legal_mask(state)
                assert mask[policy(state)], f"greedy move {policy(state)} illegal in {state}"
                positions += 1
                state = tictactoe.play(state, int(rng.choice(np.flatnonzero(mask))))
        assert positions > 20
    finally:
        algo.stop()


def test_the_illegal_move_count_sees_a_policy_without_the_mask(local_ray):
    # Guards the test above: without the mask, a fresh policy soon marks a taken cell.
    algo, totals = _train(rllib.self_play_config("tictactoe", module_class=UnmaskedModule, **SMALL), 1)
    algo.stop()
    assert totals["illegal_moves"] > 0
