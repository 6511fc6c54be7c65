"""A game-generic single-agent Gymnasium env: one learner against an opponent.

``TurnBasedEnv(game, ...)`` adapts any game object of ``tictacgo.games`` to
``gymnasium.Env``: the learner plays one colour and the opponent's replies
are made inside ``reset()``/``step()``. The env never builds agents (envs
import nothing from ``tictacgo.baselines``): the opponent is an object with
``act(state)`` or a callable (``tictacgo.agent.as_agent`` wraps it), and a spec string needs the resolver that
``gymnasium.make`` gives (``tictacgo.registration``). ``info`` keeps one type
per key at every step. The user guide (arguments, rewards, ``info``, resets)
is docs/envs/single-agent.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tictacgo.agent import as_agent
from tictacgo.envs import observations, rendering, reset_options
from tictacgo.games.base import Game
from tictacgo.games.bits import unpack_bits
from tictacgo.games.errors import GameOverError, IllegalActionError, check_action_type

LEARNER_MODES = ("first", "second", "alternate", "random")
RENDER_MODES = ["ansi", "rgb_array", "human"]


class TurnBasedEnv(gym.Env):
    """A two-player game seen by one learner against an opponent.

    Args:
        game: the game object (``tictacgo.games.make_game(...)``).
        opponent: an agent, a callable ``f(state) -> action``, a registry spec
            (with a resolver) or None (see the module docstring).
        learner: "first", "second", "alternate" or "random".
        observation: "flat", "board", "planes" or "planes_hwc" (the planes channels last).
        render_mode: None, "ansi", "rgb_array" or "human".
        render_cell: pixels per point or cell in pictures.
        render_fps: frames per second in "human" mode.
        opponent_resolver: ``f(spec, game) -> opponent``, which turns a spec
            string into an opponent for this game (given by ``gymnasium.make``).
    """

    metadata: ClassVar[dict] = {"render_modes": RENDER_MODES, "render_fps": rendering.DEFAULT_FPS}

    def __init__(self, game: Game, opponent: Any = None, learner: str = "first", observation: str = "flat",
                 render_mode: str | None = None, render_cell: int | None = None,
                 render_fps: float | None = None,
                 opponent_resolver: Callable[[str, Game], Any] | None = None):
        if not isinstance(game, Game):
            raise TypeError(f"game must be a game object (tictacgo.games.make_game(...)), got {game!r}")
        self.game = game
        if learner not in LEARNER_MODES:
            raise ValueError(f"learner must be one of {LEARNER_MODES}, got {learner!r}")
        if observation not in observations.FORMATS:
            raise ValueError(f"observation must be one of {observations.FORMATS}, got {observation!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        if opponent_resolver is not None and not callable(opponent_resolver):
            raise TypeError(f"opponent_resolver must be callable, got {opponent_resolver!r}")
        self.learner_mode = learner
        self.observation_format = observation
        self.render_mode = render_mode
        self.render_cell = None if render_cell is None else rendering.check_cell(render_cell)
        self.render_fps = rendering.check_fps(self.metadata["render_fps"] if render_fps is None
                                              else render_fps)
        if render_mode == "human":
            rendering.require_pygame()  # fail now, not at the first frame

        spec = self.game.spec
        self._num_actions = spec.num_actions
        self.action_space = spaces.Discrete(self._num_actions)
        self.observation_space = observations.observation_space(self.game, observation)

        self._resolver = opponent_resolver
        self.opponent: Any = None
        self._opponent_spec: Any = None
        if opponent is not None:
            self.set_opponent(opponent)
        self.learner_colour = 1
        self._next_alternate = 1
        self._state = None
        self._legal = 0
        self._mask = np.zeros(self._num_actions, dtype=np.int8)
        self._ended_at_reset = False
        self._renderer = None

    # -- public helpers --------------------------------------------------------
    @property
    def game_state(self):
        """The current rules-core state (immutable; None before the first reset)."""
        return self._state

    @property
    def opponent_colour(self) -> int:
        return 3 - self.learner_colour

    def set_opponent(self, opponent: Any) -> None:
        """Play against ``opponent`` from its next move on (call it between episodes).

        Args:
            opponent: an object with ``act(state)`` (an agent), a callable
                ``f(state) -> action``, or a registry spec string such as
                ``"greedy"`` when the env was made by ``gymnasium.make`` (which
                gives it a resolver).
        Raises:
            TypeError: anything else, or a string without a resolver.
        """
        spec = opponent
        if isinstance(opponent, str):
            if self._resolver is None:
                raise TypeError(f"opponent {opponent!r} is a registry spec, but this env has no "
                                "resolver: make it with gymnasium.make, or pass an agent "
                                "(tictacgo.baselines.make_agent) or a callable")
            opponent = self._resolver(opponent, self.game)
        self.opponent = as_agent(opponent, self.game)
        self._opponent_spec = spec

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array of ``action_space.n`` entries.

        Returns:
            bool array; all False once the game is over (all True in the
            ended-at-reset case, where the next action is ignored).
        """
        if self._ended_at_reset:
            return np.ones(self._num_actions, dtype=bool)
        return self._mask.astype(bool)

    # -- Gymnasium API -----------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new game; the opponent moves first when it is its turn.

        Args:
            seed: seeds ``self.np_random`` and, from it, the opponent's generator.
            options: ``{"state": s}`` starts from rules-core state ``s``.
        Returns:
            (observation, info).
        Raises:
            RuntimeError: no opponent was given.
        """
        if seed is not None:
            seed = reset_options.check_seed(seed)
        start = reset_options.start_state(self.game, options, self.game.initial_state())
        if self.opponent is None:
            raise RuntimeError("this env has no opponent: pass opponent= or call set_opponent() "
                               "before reset()")
        super().reset(seed=seed)
        if seed is not None:
            self.opponent.seed(np.random.default_rng(int(self.np_random.integers(2**63))))
            self._next_alternate = 1
        mode = self.learner_mode
        if mode == "first":
            self.learner_colour = 1
        elif mode == "second":
            self.learner_colour = 2
        elif mode == "alternate":
            self.learner_colour = self._next_alternate
            self._next_alternate = 3 - self._next_alternate
        else:
            self.learner_colour = int(self.np_random.integers(2)) + 1
        self.opponent.reset()
        state = start
        opponent_action = -1
        if self.game.current_player(state) != self.learner_colour:
            opponent_action, state = self._opponent_move(state)
        self._set_state(state)
        self._ended_at_reset = self.game.is_terminal(state)
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info(opponent_action)

    def step(self, action):
        """Play the learner's ``action``, then the opponent's reply unless the game ended.

        Args:
            action: an int in ``[0, action_space.n)`` (numpy ints and 0-d
                integer arrays are accepted).
        Returns:
            (observation, reward, terminated, truncated, info), reward from
            the learner's view.
        Raises:
            TypeError: ``action`` is not an integer.
            ValueError: ``action`` is out of range.
            GameOverError: the episode is over (call reset()).
            RuntimeError: step() before reset(), or the opponent played an illegal action.
        """
        state = self._state
        if state is None:
            raise RuntimeError("call reset() before step()")
        game = self.game
        if self._ended_at_reset:
            check_action_type(action, self._num_actions)
            self._ended_at_reset = False
            reward = game.returns(state)[self.learner_colour - 1]
            return self._observe(), reward, True, False, self._info(-1)
        if game.is_terminal(state):
            raise GameOverError(f"the episode is over ({game.end_reason(state)}); "
                                "call reset() before step()")
        a = check_action_type(action, self._num_actions)
        if not (self._legal >> a) & 1:
            why = game.illegal_reason(state, a)
            self._set_state(game.forfeit(state))
            info = self._info(-1)
            info["illegal_action"] = True
            info["illegal_reason"] = why or ""
            if self.render_mode == "human":
                self.render()
            return self._observe(), -1.0, True, False, info
        state = game.play(state, a)
        opponent_action = -1
        over = game.is_terminal(state)
        if not over:
            opponent_action, state = self._opponent_move(state)
            over = game.is_terminal(state)
        self._set_state(state)
        if self.render_mode == "human":
            self.render()
        if not over:
            return self._observe(), 0.0, False, False, self._info(opponent_action)
        reward = game.returns(state)[self.learner_colour - 1]
        return self._observe(), reward, True, False, self._info(opponent_action)

    def render(self):
        """Draw the position: a string ("ansi"), an RGB array ("rgb_array") or a window ("human")."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= to the env")
            return None
        state = self._state if self._state is not None else self.game.initial_state()
        if self.render_mode == "ansi":
            return rendering.render_ansi(self.game, state)
        frame = rendering.render_rgb(self.game, state, self.render_cell)
        if self.render_mode == "rgb_array":
            return frame
        if self._renderer is None:
            self._renderer = rendering.HumanViewer(caption=self.game.spec.title, fps=self.render_fps)
        self._renderer.show(frame)
        return None

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["_renderer"] = None  # a pygame window does not pickle
        return d

    # -- internals ---------------------------------------------------------------
    def _set_state(self, state) -> None:
        self._state = state
        self._legal = self.game.legal_bits(state)
        self._mask = unpack_bits(self._legal, self._num_actions).view(np.int8)

    def _opponent_move(self, state):
        agent = self.opponent
        action = agent.act(state)
        try:
            nxt = self.game.play(state, action)
        except (TypeError, ValueError, IllegalActionError) as e:
            name = getattr(agent, "name", type(agent).__name__)
            raise RuntimeError(f"the opponent {name!r} ({agent!r}, from opponent={self._opponent_spec!r}) "
                               f"returned an illegal action {action!r}: {e}") from e
        return int(action), nxt

    def _observe(self) -> np.ndarray:
        return observations.observe(self.game, self._state, self.observation_format, self.learner_colour)

    def _info(self, opponent_action: int) -> dict:
        state = self._state
        game = self.game
        w = game.winner(state)
        mask = np.ones_like(self._mask) if self._ended_at_reset else self._mask.copy()
        if w is None:
            winner, winner_colour = "", -1
        else:
            winner = "draw" if w == 0 else "learner" if w == self.learner_colour else "opponent"
            winner_colour = int(w)
        info = {
            "action_mask": mask,
            "learner_colour": self.learner_colour,
            "winner": winner,
            "winner_colour": winner_colour,
            "reason": game.end_reason(state) or "",
            "opponent_action": int(opponent_action),
            "illegal_action": False,
            "illegal_reason": "",
        }
        info["t"] = int(state.t)
        scores = getattr(game, "scores", None)  # games that keep a score say so by offering it
        if scores is not None:
            info["scores"] = np.array(scores(state), dtype=np.float64)
        return info
