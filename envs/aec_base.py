"""A game-generic PettingZoo AEC environment over a tictacgo rules core.

``TurnBasedAECEnv`` adapts any module with the shared rules interface
(``tictacgo.games``: ``initial_state``, ``play``, ``forfeit``, ``legal_bits``,
``returns``, ...) to PettingZoo's AEC API; ``tictactoe_v0`` and
``littlego_v0`` are thin subclasses. The env holds one immutable rules state
and never reimplements a rule.

Conventions shared by both games:

* Observation per agent: ``{"observation": ..., "action_mask": int8 (A,)
  legal actions when it is that agent's turn, all zeros otherwise}``. The
  ``observation`` entry is in the format chosen by the ``observation=``
  keyword, the same choices as the Gymnasium envs
  (``tictacgo.envs.observations``), always from that agent's side:
  ``"board"`` (the default) int8 ``(n, n)``, +1 own stones, -1 the
  opponent's, 0 empty; ``"flat"`` the same as an int8 vector of ``n*n``;
  ``"planes"`` float32 ``(C, n, n)`` in [0, 1], the game's planes (own,
  opponent, legal, ..., to_move), which also say who is to move.
* An action the rules refuse (occupied point, suicide, ko) ends the game:
  the mover gets -1, the opponent +1, ``infos[...]["reason"] == "illegal"``.
  A malformed action raises instead and leaves the game as it was:
  ``TypeError`` for a non-integer, ``ValueError`` for an int out of range.
* Rewards come only at the end, from each agent's view (+1 / -1 / 0).
  ``infos`` have the same keys with values of fixed types at every step:
  ``winner`` ("" during play, "draw", or the winner's agent name),
  ``reason`` ("" during play), ``illegal_action`` (-1 unless an illegal
  action ended the game), ``illegal_reason``, ``t`` (actions so far) and,
  for games with a score, ``scores`` (agent name -> float).

Speed: ``step``, ``observe`` and ``last`` do a few dict look-ups and at most
one numpy conversion: the player-relative board and the legal mask are built
together straight from the rules' bitboards
(``tictacgo.games.bits.signed_board_and_flags``, the conversion the game's
encoder, ``game.encoder.relative_board``, makes), both cached by bitboard
(Tic-Tac-Toe's few thousand all fit), and the legal actions are computed once
per state. "planes" are built by the game's encoder (``observations.observe``).
Every observation is a fresh, writable array the caller may keep or modify.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import BaseWrapper

from tictacgo.envs import observations, rendering, reset_options
from tictacgo.games.base import Game
from tictacgo.games.bits import signed_board_and_flags, unpack_bits
from tictacgo.games.errors import GameOverError, IllegalActionError

# Observation boards by (own bits, opponent bits) and legal masks by legal bits, per
# game, shared by its envs. Bounded: Tic-Tac-Toe's all fit; Little-Go's caches fill with
# the commonest early positions and stop.
_CACHE_LIMIT = 20_000
_CACHES: dict[Any, tuple[dict, dict]] = {}


class TurnBasedAECEnv(AECEnv):
    """AEC env for a two-player, alternating-move game from ``tictacgo.games``."""

    def __init__(self, game: Game, render_mode: str | None = None, render_cell: int | None = None,
                 render_fps: float | None = None, observation: str = observations.BOARD):
        """Build the env (call ``reset`` before use).

        Args:
            game: the game object (``tictacgo.games.make_game(...)``).
            render_mode: None, "ansi", "rgb_array" or "human".
            render_cell: pixels per board point/cell in pictures; a game default if None.
            render_fps: frames per second in "human" mode; ``metadata["render_fps"]`` if None.
            observation: the format of the "observation" entry: "board" (int8 (n, n), the
                default), "flat" (int8 (n*n,)), "planes" (float32 (C, n, n)) or "planes_hwc"
                (float32 (n, n, C), the planes channels last).
        Raises:
            TypeError: ``game`` is not a game object.
            ValueError: an unknown render mode or observation format, a bad cell size or rate.
        """
        super().__init__()
        if not isinstance(game, Game):
            raise TypeError(f"game must be a game object (tictacgo.games.make_game(...)), got {game!r}")
        self.game = game
        self.metadata = {"name": f"{game.name}_v0", "render_modes": ["ansi", "rgb_array", "human"],
                         "render_fps": rendering.DEFAULT_FPS, "is_parallelizable": False}
        self._board_cache, self._mask_cache = _CACHES.setdefault(game, ({}, {}))
        if observation not in observations.FORMATS:
            raise ValueError(f"observation must be one of {observations.FORMATS}, got {observation!r}")
        self.observation_format = observation
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}")
        self.render_mode = render_mode
        self.render_cell = render_cell
        self.render_fps = rendering.check_fps(self.metadata["render_fps"] if render_fps is None
                                              else render_fps)
        if render_cell is not None:
            rendering.check_cell(render_cell)
        self._viewer: rendering.HumanViewer | None = None
        if render_mode == "human":
            rendering.require_pygame()  # fail now, not at the first frame

        self.possible_agents = list(game.spec.agent_names)
        self.agents = self.possible_agents[:]
        first, second = self.possible_agents
        self._colour = {first: 1, second: 2}
        self._agent_of = (None, first, second)

        # Games that keep a score say so by offering it; their infos carry it at every step.
        self._scores = getattr(game, "scores", None)
        self._state = game.initial_state()
        self.num_actions = int(self.game.num_actions)
        self._mask_state = None  # the state whose legal actions _mask_bits holds
        self._mask_bits = 0
        self._points = game.spec.num_points
        self._board_shape = game.spec.board_shape

        board_space = observations.observation_space(game, observation)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": board_space,
                "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}

        self._seed: int | None = None
        self._np_random: np.random.Generator | None = None
        self._np_random_seed: int | None = None
        self._skip_agent_selection = None
        self._reset_bookkeeping()

    # -- the game --------------------------------------------------------------

    @property
    def game_state(self) -> Any:
        """The current rules-core state (immutable; agents search on it)."""
        return self._state

    def _set_play_infos(self, state: Any) -> None:
        """Both agents' infos while the game goes on (``_info``'s keys, built directly: every step)."""
        first, second = self.possible_agents
        t = int(state.t)
        if self._scores is None:
            self.infos = {first: {"winner": "", "reason": "", "illegal_action": -1, "illegal_reason": "",
                                  "t": t},
                          second: {"winner": "", "reason": "", "illegal_action": -1, "illegal_reason": "",
                                   "t": t}}
        else:
            s1, s2 = self._scores(state)
            self.infos = {first: {"winner": "", "reason": "", "illegal_action": -1, "illegal_reason": "",
                                  "t": t, "scores": {first: s1, second: s2}},
                          second: {"winner": "", "reason": "", "illegal_action": -1, "illegal_reason": "",
                                   "t": t, "scores": {first: s1, second: s2}}}

    def _info(self, state: Any, illegal_action: int = -1, illegal_reason: str = "") -> dict[str, Any]:
        """The info of every agent after ``state``: the same keys and types at every step.

        ``winner`` is "" while the game goes on, "draw" for a draw, else the winning
        agent's name; ``reason`` is "" while the game goes on; ``illegal_action`` is
        -1 unless an illegal action ended the game. Libraries that stack infos into
        arrays (Tianshou's buffers) need every step to carry the same keys.
        """
        w = self.game.winner(state)
        info = {"winner": "" if w is None else "draw" if w == 0 else self._agent_of[w],
                "reason": self.game.end_reason(state) or "", "illegal_action": illegal_action,
                "illegal_reason": illegal_reason, "t": int(state.t)}
        if self._scores is not None:
            info["scores"] = dict(zip(self.possible_agents, self._scores(state), strict=True))
        return info

    @property
    def np_random(self) -> np.random.Generator:
        """The env's random generator, seeded by ``reset(seed=...)`` (unseeded before)."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random(self._seed)
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random = value
        self._np_random_seed = -1

    @property
    def np_random_seed(self) -> int:
        """The seed of ``np_random`` (-1 if a generator was assigned directly)."""
        self.np_random  # noqa: B018 -- builds the generator if needed
        return self._np_random_seed

    # -- PettingZoo API ----------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _reset_bookkeeping(self) -> None:
        agents = self.possible_agents
        self.agents = agents[:]
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self._set_play_infos(self._state)
        self.agent_selection = self._agent_of[self._state.to_move]
        self._skip_agent_selection = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game.

        Args:
            seed: seeds ``self.np_random`` (the games themselves are deterministic).
            options: ``{"state": s}`` starts from rules-core state ``s`` of this
                game (not finished) instead of the initial position; other keys are ignored.
        """
        if seed is not None:
            seed = reset_options.check_seed(seed)
            # Built on first use: seeding costs more than a whole Tic-Tac-Toe game.
            self._seed = seed
            self._np_random = None
        self._state = reset_options.start_state(self.game, options, self.game.initial_state())
        self._reset_bookkeeping()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The observation ``agent`` sees now (fresh, writable arrays).

        Args:
            agent: an agent name.
        Returns:
            ``{"observation": ..., "action_mask": int8 (A,)}``, the observation in
            ``observation_format`` from ``agent``'s side (int8 (n, n) for "board").
        """
        colour = self._colour.get(agent)
        if colour is None:
            raise ValueError(f"unknown agent {agent!r}; expected one of {self.possible_agents}")
        state = self._state
        to_move = colour == state.to_move and state.end is None
        if to_move and state is not self._mask_state:
            self._mask_state = state
            self._mask_bits = self.game.legal_bits(state)
        legal = self._mask_bits if to_move else 0
        fmt = self.observation_format
        if fmt in (observations.PLANES, observations.PLANES_HWC):
            return {"observation": observations.observe(self.game, state, fmt, colour),
                    "action_mask": self._action_mask(legal)}
        # The stone bitboards from ``colour``'s side are the cache key. Cached boards and masks
        # are never handed out, only copies.
        own, opp = self.game.stone_bits(state)
        if colour == 2:
            own, opp = opp, own
        board = self._board_cache.get((own, opp))
        if board is None:  # a new board (and most likely a new mask): one conversion for both
            points = self._points
            buf = signed_board_and_flags(own, opp, points, legal, self.num_actions)
            board, mask = buf[:points], buf[points:]
            if len(self._board_cache) < _CACHE_LIMIT:
                self._board_cache[(own, opp)] = board.reshape(self._board_shape).copy()
            if legal and len(self._mask_cache) < _CACHE_LIMIT:
                self._mask_cache.setdefault(legal, mask.copy())
            if fmt == observations.BOARD:
                board = board.reshape(self._board_shape)
            return {"observation": board, "action_mask": mask}
        board = board.copy() if fmt == observations.BOARD else board.flatten()
        if not legal:
            return {"observation": board, "action_mask": np.zeros(self.num_actions, np.int8)}
        mask = self._mask_cache.get(legal)
        mask = self._action_mask(legal) if mask is None else mask.copy()
        return {"observation": board, "action_mask": mask}

    def _action_mask(self, legal: int) -> np.ndarray:
        """A fresh int8 action mask of the legal-action bits ``legal`` (all zeros for 0)."""
        if not legal:
            return np.zeros(self.num_actions, np.int8)
        mask = self._mask_cache.get(legal)
        if mask is not None:
            return mask.copy()
        mask = unpack_bits(legal, self.num_actions).view(np.int8)
        if len(self._mask_cache) < _CACHE_LIMIT:
            self._mask_cache[legal] = mask.copy()
        return mask

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """(observation, cumulative reward, terminated, truncated, info) of ``agent_selection``.

        Raises:
            GameOverError: every agent has left the finished game (``agents`` is
                empty), so there is no agent to report on; call ``reset()``.
        """
        agent = self.agent_selection
        if agent not in self.terminations:
            raise GameOverError(f"{self.metadata['name']}: last() has no agent to report on: the game is "
                                "over and every agent has left it; call reset() to start a new game")
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection``.

        Args:
            action: an int (Python or numpy, or a 0-d int array) in ``[0, A)``;
                None only for an agent whose game is over (PettingZoo's dead step).
        Raises:
            TypeError: ``action`` is not an integer (the game is unchanged).
            ValueError: ``action`` is out of range (the game is unchanged).
            GameOverError: a non-None action for an agent whose game is over.
        """
        agent = self.agent_selection
        if agent not in self.terminations:
            raise GameOverError(f"{self.metadata['name']}: the game is over and every agent has "
                                "left it; call reset() to start a new game")
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise GameOverError(
                    f"{self.metadata['name']}: the game is over ({self._state.end}), so {agent} may "
                    f"only step(None) to leave it, got {action!r}; call reset() for a new game")
            self._leave_finished_game()
            return
        state = self._state
        try:
            new = self.game.play(state, action)
        except IllegalActionError as e:
            new = self.game.forfeit(state)
            self._state = new
            self._finish(new, agent, self._info(new, int(np.asarray(action)), e.reason or ""))
        except (TypeError, ValueError) as e:
            kind = TypeError if isinstance(e, TypeError) else ValueError
            raise kind(f"{self.metadata['name']}: invalid action for {agent}: {e}") from None
        else:
            self._state = new
            self._cumulative_rewards[agent] = 0.0
            if new.end is None:
                self.agent_selection = self._agent_of[new.to_move]
                self._set_play_infos(new)
            else:
                self._finish(new, agent, self._info(new))
        if self.render_mode == "human":
            self.render()

    def _finish(self, state: Any, mover: str, info: dict[str, Any]) -> None:
        """Give out rewards, terminations and the end ``info``; select the mover's opponent."""
        r1, r2 = self.game.returns(state)
        first, second = self.possible_agents
        self.rewards = {first: r1, second: r2}
        # Both were 0 (each agent's since its own last move): the game's returns are the whole reward.
        self._cumulative_rewards = {first: r1, second: r2}
        self.terminations = {first: True, second: True}
        self.infos = {first: dict(info), second: dict(info)}
        self.agent_selection = second if mover == first else first

    def _leave_finished_game(self) -> None:
        """PettingZoo's dead step (``step(None)`` once an agent's game is over), in its order.

        The selected agent leaves: it is removed from ``agents`` and the per-agent
        dicts. The next agent that must leave is selected; once none is left to, the
        first agent that left is selected again. Rewards are cleared.
        """
        agent = self.agent_selection
        for per_agent in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards,
                          self.infos):
            del per_agent[agent]
        self.agents.remove(agent)
        leaving = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if leaving:
            if self._skip_agent_selection is None:
                self._skip_agent_selection = agent
            self.agent_selection = leaving[0]
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        self.rewards = dict.fromkeys(self.rewards, 0)

    def state(self) -> np.ndarray:
        """The absolute board (n x n int8: 0 empty, 1 first player, 2 second player)."""
        return self.game.to_board(self._state)

    # -- rendering -----------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        """Render as ``render_mode`` says: a str (ansi), an RGB array, or a window (human).

        Returns:
            The string or picture; None in "human" mode and when ``render_mode`` is None.
        """
        mode = self.render_mode
        if mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode. "
                f"You can specify the render_mode at initialization, e.g. "
                f'{self.metadata["name"]}.env(render_mode="rgb_array")')
            return None
        if mode == "ansi":
            return rendering.render_ansi(self.game, self._state)
        frame = rendering.render_rgb(self.game, self._state, self.render_cell)
        if mode == "rgb_array":
            return frame
        if self._viewer is None:
            self._viewer = rendering.HumanViewer(self.metadata["name"], self.render_fps)
        self._viewer.show(frame)
        return None

    def close(self) -> None:
        """Close the pygame window if one was opened."""
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["_viewer"] = None  # a pygame window does not pickle
        del d["_board_cache"], d["_mask_cache"]  # shared caches: a copy joins its process's own
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self._board_cache, self._mask_cache = _CACHES.setdefault(self.game, ({}, {}))


# What PettingZoo's own order-enforcing wrapper refuses to read before ``reset``.
_AFTER_RESET = frozenset({"agents", "num_agents", "agent_selection", "terminations", "truncations",
                          "rewards", "infos"})


class OrderEnforcing(BaseWrapper):
    """The order checks of PettingZoo's ``OrderEnforcingWrapper``, over its public ``BaseWrapper``.

    The same checks and errors as PettingZoo's wrapper (raised through its
    ``EnvLogger``): ``step``, ``observe``, ``state``, ``render``, ``last`` and
    ``agent_iter`` before ``reset`` raise ``AssertionError``; ``agents``,
    ``num_agents``, ``agent_selection``, ``terminations``, ``truncations``,
    ``rewards`` and ``infos`` before ``reset`` raise ``AttributeError``; a loop
    over ``agent_iter`` that does not step raises ``AssertionError``. It keeps
    its own flags and reads no private name of PettingZoo's, so it does not
    depend on one release's internals. It differs in two ways:

    * a non-None ``step`` after every agent has left a finished game raises
      ``GameOverError`` (PettingZoo only logs a warning and drops the action,
      which hides a bug in the caller's loop); ``step(None)`` then logs
      PettingZoo's warning, as its wrapper does;
    * ``last`` and the per-step attributes read the env directly instead of
      through ``BaseWrapper``'s ``__getattr__`` forwarding, which costs more
      than a whole Tic-Tac-Toe step.
    """

    def __init__(self, env: AECEnv):
        if not isinstance(env, AECEnv):
            raise TypeError(f"OrderEnforcing wraps a PettingZoo AECEnv, got {type(env).__name__}")
        self._reset_called = False
        self._stepped = False  # step() or reset() since agent_iter's iterator last gave an agent
        super().__init__(env)

    def __getattr__(self, name: str) -> Any:
        if name in _AFTER_RESET and not self._reset_called:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return super().__getattr__(name)

    def _env_after_reset(self, name: str) -> AECEnv:
        if not self._reset_called:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return self.env

    @property
    def agents(self) -> list[str]:
        return self._env_after_reset("agents").agents

    @property
    def num_agents(self) -> int:
        return len(self._env_after_reset("num_agents").agents)

    @property
    def agent_selection(self) -> str:
        return self._env_after_reset("agent_selection").agent_selection

    @property
    def terminations(self) -> dict[str, bool]:
        return self._env_after_reset("terminations").terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self._env_after_reset("truncations").truncations

    @property
    def rewards(self) -> dict[str, float]:
        return self._env_after_reset("rewards").rewards

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return self._env_after_reset("infos").infos

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._reset_called = True
        self._stepped = True
        self.env.reset(seed=seed, options=options)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._reset_called:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def observe(self, agent: str) -> Any:
        if not self._reset_called:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        if not self._reset_called:
            EnvLogger.error_state_before_reset()
        return self.env.state()

    def render(self) -> str | np.ndarray | None:
        if not self._reset_called:
            EnvLogger.error_render_before_reset()
        return self.env.render()

    def step(self, action: Any) -> None:
        env = self.env
        if not self._reset_called:
            EnvLogger.error_step_before_reset()
        elif not env.agents:
            if action is not None:
                raise GameOverError(f"{env}: the game is over and every agent has left it; "
                                    f"step({action!r}) is refused; call reset() to start a new game")
            self._stepped = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._stepped = True
            env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AgentIterable:
        if not self._reset_called:
            EnvLogger.error_agent_iter_before_reset()
        return AgentIterable(self, max_iter)

    def _next_agent(self) -> str:
        """The agent to act now, for ``agent_iter``'s iterator: refused unless it stepped since."""
        if not self._stepped:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        self._stepped = False
        return self.env.agent_selection


class AgentIterable:
    """``OrderEnforcing.agent_iter(max_iter)``: each ``iter()`` gives an ``AgentIterator``."""

    def __init__(self, wrapper: OrderEnforcing, max_iter: int):
        self.wrapper, self.max_iter = wrapper, max_iter

    def __iter__(self) -> AgentIterator:
        return AgentIterator(self.wrapper, self.max_iter)


class AgentIterator:
    """The agents to act, in turn, until every agent has left the game or ``max_iter`` are given.

    As PettingZoo's order-enforcing iterator: an agent is given only if ``step``
    (or ``reset``) was called since the last one.
    """

    def __init__(self, wrapper: OrderEnforcing, max_iter: int):
        self.wrapper, self.env, self.iters_left = wrapper, wrapper.env, max_iter

    def __iter__(self) -> AgentIterator:
        return self

    def __next__(self) -> str:
        if not self.env.agents or self.iters_left <= 0:
            raise StopIteration
        self.iters_left -= 1
        return self.wrapper._next_agent()


def wrap(env: AECEnv) -> AECEnv:
    """The standard wrapper stack for the tictacgo AEC envs.

    Only order enforcement (``OrderEnforcing``, on PettingZoo's public
    ``BaseWrapper``): illegal actions are already handled by the env (the
    mover loses), and an out-of-range or non-integer action already raises a
    clear ``ValueError``/``TypeError``, which PettingZoo's
    ``AssertOutOfBoundsWrapper`` would replace with a bare assertion.
    """
    return OrderEnforcing(env)
