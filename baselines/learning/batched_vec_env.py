"""An SB3 ``VecEnv`` of B learner-against-opponent games on the batched engines: no subprocesses.

``BatchedVecEnv`` is a ``stable_baselines3.common.vec_env.VecEnv`` whose B
sub-envs are rows of one batched engine (``tictacgo.games.batched_littlego`` /
``batched_tictactoe``) driven by ``tictacgo.envs.vector_env.BatchedMatch``:
one ``step`` plays the learner's action and the in-batch opponent's reply in
every game with numpy array operations. ``make_sb3_vec_env`` builds one from
a Gymnasium id and that id's keyword arguments (also as
``tictacgo.make_sb3_vec_env``). It trains sb3-contrib's ``MaskablePPO``
directly::

    from sb3_contrib import MaskablePPO
    import tictacgo
    env = tictacgo.make_sb3_vec_env("LittleGo-v0", n_envs=256, opponent="greedy", learner="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64).learn(100_000)

SB3 conventions, as ``DummyVecEnv`` of the single env gives them:

* auto-reset in the same step: a finished game's row of the returned
  observations is already the next game's first observation; its final
  observation is ``infos[i]["terminal_observation"]`` (and
  ``infos[i]["TimeLimit.truncated"]`` is False: the games are finite);
* ``env_method("action_masks")`` returns one bool mask of ``n_actions`` per
  env, which is what sb3-contrib's ``get_action_masks`` stacks;
  ``env_method("set_opponent", opponent)`` swaps the opponent of every game
  (``"random"``, ``"greedy"`` or a batched policy ``f(obs, mask) -> actions``);
* ``seed(s)`` then ``reset()`` gives one reproducible sequence of games;
* ``illegal_actions`` counts the learner actions the rules refused (a
  masked learner plays none).

Rewards, observations, learner colours, the illegal-action rule (a loss) and
the ``info`` of a finished game (``winner_colour``, ``learner_colour``,
``illegal_action``, ``reason``) are those of the native vector env; see
``tictacgo.envs.vector_env``. Needs the ``train`` extra (stable-baselines3).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from tictacgo.envs.game_envs import env_id as game_env_id
from tictacgo.envs.game_envs import variant_keywords
from tictacgo.envs.reset_options import check_seed
from tictacgo.envs.vector_env import BUILTIN_OPPONENTS, OBSERVATIONS, BatchedMatch
from tictacgo.games import GAMES, make_game
from tictacgo.games.batched_engines import make_batched_engine
from tictacgo.validate import check_int


class BatchedVecEnv(VecEnv):
    """B games of ``game`` against an in-batch opponent as one SB3 ``VecEnv`` (see the module docstring).

    Args:
        game: a game object, or a game name (``"littlego"``, ``"tictactoe"``).
        num_envs: the number of games B.
        opponent: "random", "greedy" or a batched policy ``f(obs, mask) -> actions``.
        learner: "first", "second", "alternate" or "random".
        observation: "flat" or "board".
        board_size: Little-Go's board side (None: 5).
        komi: Little-Go's komi (None: ``board_size / 2``).
        max_actions: Little-Go's action limit (None: ``board_size**2 - 1``).
    """

    def __init__(self, game: Any = "littlego", num_envs: int = 64, opponent: Any = "random",
                 learner: str = "random", observation: str = "flat", board_size: int | None = None,
                 komi: float | None = None, max_actions: int | None = None):
        game = make_game(game, size=board_size, komi=komi, max_actions=max_actions)
        engine = make_batched_engine(game, check_int("num_envs", num_envs, min=1))
        self.match = BatchedMatch(engine, opponent, learner, observation)
        self.render_mode = None  # read by VecEnv.__init__ through get_attr
        super().__init__(num_envs, self.match.observation_space, self.match.action_space)
        self._actions: np.ndarray | None = None
        self._seeded = False
        self._next_seed: int | None = None  # given by seed(), used by the next reset()
        self.illegal_actions = 0  # learner actions the rules refused (each lost its game), since creation

    # -- VecEnv API -------------------------------------------------------------
    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the games at the next ``reset()``, as SB3's ``VecEnv.seed`` (None draws a seed).

        Returns:
            SB3's per-env seeds (``seed + i``); the games share one generator seeded by ``seed``.
        """
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._next_seed = seed
        return [seed + i for i in range(self.num_envs)]

    def _indices(self, indices) -> list[int]:
        """SB3's env indices (None: all, an int: that one, else the indices given) as a list."""
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def reset(self):
        seed, self._next_seed = self._next_seed, None
        if seed is not None or not self._seeded:
            self.match.seed(np.random.default_rng(seed))
            self._seeded = True
        self.match.needs_reset[:] = False
        self.match.ended_at_reset[:] = False
        self.match.reset_games(np.ones(self.num_envs, bool))
        return self.match.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() (or step()) must come before step_wait()")
        match = self.match
        with match.all_or_nothing():  # the step and the resets it triggers, or nothing
            out = match.advance(self._actions)
            rewards, terminated, illegal, obs = out["rewards"], out["terminated"], out["illegal"], out["obs"]
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            ended = np.nonzero(terminated)[0]
            if ended.size:
                reasons = match.reason_names()
                for i in ended:
                    infos[i] = {"terminal_observation": obs[i].copy(), "TimeLimit.truncated": False,
                                "winner_colour": int(match.engine.winner[i]),
                                "learner_colour": int(match.learner_colour[i]),
                                "illegal_action": bool(illegal[i]), "reason": str(reasons[i])}
                match.reset_games(terminated)
                obs = match.observe()
        self._actions = None
        self.illegal_actions += int(illegal.sum())
        return obs, rewards.astype(np.float32), terminated, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` bool: the learner's legal actions."""
        return self.match.action_masks()

    def set_opponent(self, opponent: Any) -> None:
        """Play every game against ``opponent`` from its next move on."""
        self.match.set_opponent(opponent)

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        idx = self._indices(indices)
        if attr_name in ("action_masks", "set_opponent", "render_mode"):
            value = getattr(self, attr_name)
        elif hasattr(self.match, attr_name):
            value = getattr(self.match, attr_name)
        else:
            raise AttributeError(f"the batched games have no attribute {attr_name!r}")
        if isinstance(value, np.ndarray) and value.shape[:1] == (self.num_envs,):
            return [value[i] for i in idx]
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        idx = self._indices(indices)
        if sorted(idx) != list(range(self.num_envs)):
            raise ValueError(f"set_attr({attr_name!r}) applies to every game at once; "
                             f"got indices {indices!r}")
        setattr(self.match, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """``"action_masks"``: one mask per env; other methods (``set_opponent``) apply to every game."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.match.action_masks()
            return [masks[i] for i in idx]
        if method_name not in ("set_opponent",):
            raise AttributeError(f"the batched games have no method {method_name!r} "
                                 "(env_method takes 'action_masks' and 'set_opponent')")
        if sorted(idx) != list(range(self.num_envs)):
            raise ValueError(f"{method_name} applies to every game at once; got indices {indices!r}")
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]


# What only the single-game envs take is there through SB3's own make_vec_env, one env per game.
SINGLE_ENV_HINT = ("; SB3's stable_baselines3.common.env_util.make_vec_env({env_id!r}, n_envs, "
                   "env_kwargs={{...}}) steps single-game envs and takes every keyword they take")
# The keyword arguments of the ids' native vector env (``tictacgo.envs.vector_env``), besides the variant.
VECTOR_KWARGS = ("opponent", "learner", "observation", "render_mode", "illegal")


def _game_of_id(env_id: Any) -> str:
    """The name of the registered game whose Gymnasium id is ``env_id`` (plain, ``tictacgo/...`` or
    ``tictacgo:...``)."""
    if not isinstance(env_id, str):
        raise TypeError(f"env_id must be a Gymnasium id (a str), got {env_id!r} ({type(env_id).__name__})")
    name = env_id.removeprefix("tictacgo:").removeprefix("tictacgo/")
    for game in GAMES:
        if game_env_id(game) == name:
            return game
    ids = [game_env_id(game) for game in GAMES]
    raise ValueError(f"unknown env id {env_id!r}; make_sb3_vec_env takes the package's ids {ids} "
                     f"(also as 'tictacgo/<id>' or 'tictacgo:<id>')")


def make_sb3_vec_env(env_id: str, n_envs: int = 1, seed: int | None = None,
                     **env_kwargs: Any) -> BatchedVecEnv:
    """The SB3 ``VecEnv`` of ``n_envs`` games of ``env_id``, on the batched engine (no subprocesses).

    The SB3 twin of ``gymnasium.make_vec(env_id, num_envs=n_envs, **env_kwargs)``:
    the same keyword arguments with the same defaults (the learner moves
    first unless ``learner=`` says otherwise), the same rules, opponents,
    rewards and masks, in SB3's conventions (auto-reset in the same step, see
    the module docstring).

        env = make_sb3_vec_env("LittleGo-v0", n_envs=64, opponent="greedy", learner="alternate")

    Args:
        env_id: ``"TicTacToe-v0"`` or ``"LittleGo-v0"`` (or ``"tictacgo/LittleGo-v0"``,
            ``"tictacgo:LittleGo-v0"``).
        n_envs: the number of games.
        seed: seeds the first ``reset()`` (as ``env.seed(seed)`` would); None: unseeded.
        **env_kwargs: the id's keyword arguments that a vector of games takes:
            ``opponent`` ("random", "greedy" or a batched policy ``f(obs, mask) -> actions``),
            ``learner`` ("first", "second", "alternate", "random"), ``observation``
            ("flat", "board"), Little-Go's ``board_size``, ``komi`` and ``max_actions``;
            ``render_mode=None`` and ``illegal="lose"`` are accepted as the defaults they are.
    Returns:
        A ``BatchedVecEnv``.
    Raises:
        ValueError: an unknown id, or a value only the single-game envs take
            (a registry opponent such as "minimax", ``observation="planes"``,
            ``illegal="penalty"``, a ``render_mode``): SB3's ``make_vec_env`` of
            the id takes those.
        TypeError: a keyword argument the id does not take.
    """
    game = _game_of_id(env_id)
    takes = (*VECTOR_KWARGS, *variant_keywords(game))
    unknown = sorted(set(env_kwargs) - set(takes))
    if unknown:
        raise TypeError(f"{game_env_id(game)} takes the keyword arguments {', '.join(takes)}; got unknown "
                        f"{', '.join(unknown)}")
    hint = SINGLE_ENV_HINT.format(env_id=game_env_id(game))
    kwargs = dict(env_kwargs)
    opponent = kwargs.pop("opponent", "random")
    if isinstance(opponent, str) and opponent not in BUILTIN_OPPONENTS:
        raise ValueError(f"a vector of games plays the opponents {BUILTIN_OPPONENTS} or a batched policy "
                         f"f(obs, mask) -> actions, got opponent={opponent!r}{hint}")
    observation = kwargs.pop("observation", "flat")
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS} for a vector of games, "
                         f"got {observation!r}{hint}")
    if kwargs.pop("render_mode", None) is not None:
        raise ValueError(f"a vector of games does not render{hint}")
    illegal = kwargs.pop("illegal", "lose")
    if illegal != "lose":
        raise ValueError(f"in a vector of games an illegal action loses the game (illegal='lose'), "
                         f"got illegal={illegal!r}{hint}")
    learner = kwargs.pop("learner", "first")
    env = BatchedVecEnv(game, num_envs=n_envs, opponent=opponent, learner=learner,
                        observation=observation, **kwargs)
    if seed is not None:
        env.seed(check_seed(seed))
    return env
