"""Tianshou's multi-agent Tic-Tac-Toe tutorial runs on tictacgo's AEC envs with only the import changed.

The tutorial (Tianshou's ``test/pettingzoo/tic_tac_toe.py``: a DQN learner
against a masked random opponent, wrapped by ``tianshou.env.PettingZooEnv``)
is repeated here with a smaller budget. Its trainer refuses a replay buffer
holding NaNs, which is what infos with keys that come and go produce, so
this also checks the envs' uniform infos end to end. Skipped without the
``tianshou`` extra.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

tianshou = pytest.importorskip("tianshou")
torch = pytest.importorskip("torch")

from tianshou.algorithm import (  # noqa: E402
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.env.pettingzoo_env import PettingZooEnv  # noqa: E402
from tianshou.trainer import OffPolicyTrainerParams  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

from tictacgo.envs import littlego_v0, tictactoe_v0  # noqa: E402  (the tutorial's only change)


def _get_agents(get_env, agent_id: int = 2):
    """The tutorial's ``get_agents``: a DQN learner and a masked random opponent."""
    env = get_env()
    space = env.observation_space
    observation_space = space.spaces["observation"] if isinstance(space, gymnasium.spaces.Dict) else space
    net = Net(state_shape=observation_space.shape, action_shape=int(env.action_space.n),
              hidden_sizes=[64, 64])
    learner = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                                 eps_training=0.1, eps_inference=0.05),
                  optim=AdamOptimizerFactory(lr=1e-4), n_step_return_horizon=3, gamma=0.9,
                  target_update_freq=320)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    agents = [learner, opponent] if agent_id == 1 else [opponent, learner]
    return MultiAgentOffPolicyAlgorithm(algorithms=agents, env=env), env.agents


@pytest.mark.parametrize("module", [tictactoe_v0, littlego_v0], ids=["tictactoe", "littlego"])
def test_tianshou_tutorial_trains_on_the_aec_env(module):
    def get_env():
        return PettingZooEnv(module.env())

    np.random.seed(1626)
    torch.manual_seed(1626)
    training_envs = DummyVectorEnv([get_env for _ in range(4)])
    test_envs = DummyVectorEnv([get_env for _ in range(4)])
    training_envs.seed(1626)
    test_envs.seed(1626)
    algorithm, agents = _get_agents(get_env)
    training_collector = Collector[CollectStats](algorithm, training_envs, VectorReplayBuffer(2000, 4),
                                                 exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    training_collector.reset()
    training_collector.collect(n_step=64 * 4)
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=training_collector, test_collector=test_collector, max_epochs=1,
        epoch_num_steps=200, collection_step_num_env_steps=10, test_step_num_episodes=4,
        batch_size=64, update_step_num_gradient_steps_per_sample=0.1, test_in_training=False,
        multi_agent_return_reduction=lambda rews: rews[:, 1]))
    assert result.update_step > 0 and result.train_episode > 0 and result.test_episode >= 4
    buffer = training_collector.buffer
    assert not buffer.hasnull()
    filled = buffer.sample_indices(0)  # every stored transition
    assert len(filled) > 0
    assert set(buffer.info.winner[filled]) <= {"", "draw", *agents}
    assert (buffer.info.t[filled] >= 0).all()
