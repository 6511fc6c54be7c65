"""tictacgo: Tic-Tac-Toe and Little-Go as reinforcement-learning environments.

Importing the package registers the Gymnasium ids ``TicTacToe-v0`` and
``LittleGo-v0``; ``gymnasium.make("tictacgo:LittleGo-v0")`` works without a
prior import. PettingZoo AEC envs: ``tictacgo.envs.tictactoe_v0`` and
``tictacgo.envs.littlego_v0``. Rules cores: ``tictacgo.games``. Agents:
``tictacgo.baselines``. ``make_sb3_vec_env("LittleGo-v0", n_envs=64, ...)``
builds a stable-baselines3 ``VecEnv`` of many games from a Gymnasium id (the
``train`` extra).
"""

from typing import Any

from tictacgo.games import GameOverError, IllegalActionError, littlego, tictactoe
from tictacgo.registration import register_envs

__version__ = "0.1.0"

register_envs()


def make_sb3_vec_env(env_id: str, n_envs: int = 1, seed: int | None = None, **env_kwargs: Any) -> Any:
    """An SB3 ``VecEnv`` of ``n_envs`` games of the Gymnasium id ``env_id``, on the batched engine.

    ``make_sb3_vec_env("LittleGo-v0", n_envs=64, opponent="greedy")`` takes
    the id's keyword arguments, as ``gymnasium.make_vec`` does; it is
    ``tictacgo.baselines.learning.batched_vec_env.make_sb3_vec_env``, imported
    when called (it needs stable-baselines3: the ``train`` extra).

    Args:
        env_id: ``"TicTacToe-v0"`` or ``"LittleGo-v0"``.
        n_envs: the number of games.
        seed: seeds the first ``reset()``; None: unseeded.
        **env_kwargs: the id's keyword arguments (``opponent``, ``learner``,
            ``observation``, Little-Go's ``board_size``, ``komi``, ``max_actions``).
    Returns:
        A ``BatchedVecEnv``.
    """
    from tictacgo.baselines.learning.batched_vec_env import make_sb3_vec_env as make

    return make(env_id, n_envs, seed, **env_kwargs)


__all__ = ["__version__", "littlego", "tictactoe", "GameOverError", "IllegalActionError", "make_sb3_vec_env"]
