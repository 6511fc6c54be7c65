"""A game-generic single-agent Gymnasium env: one learner against an opponent agent.

``TurnBasedEnv`` adapts any rules module of ``tictacgo.games`` (they share one
interface, see that package's docstring) to ``gymnasium.Env``. The learner
plays one colour; every other move is made by an opponent agent inside
``reset()``/``step()``, so one ``step()`` is one learner action plus the
opponent's reply. ``TicTacToeEnv`` (``envs/gym_tictactoe.py``) and
``LittleGoEnv`` (``envs/gym_littlego.py``) are thin subclasses; their module
docstrings are the user-facing env cards.

Common keyword arguments
------------------------
``opponent``
    A registry spec (``"random"``, ``"minimax"``, ``"minimax:depth=2"``, see
    ``tictacgo.baselines.registry``), an ``Agent`` object, or a callable
    ``f(state) -> action`` on the rules state. Default ``"random"``.
``learner``
    ``"first"`` (default), ``"second"``, ``"alternate"`` (switches at every
    reset, starting with first; a seeded reset starts over with first) or
    ``"random"`` (drawn from ``self.np_random`` at every reset).
``observation``
    ``"flat"`` (default): the player-relative board as an int8 vector of
    ``n*n`` in ``Box(-1, 1, (n*n,), int8)``: +1 the learner's stones, -1 the
    opponent's, 0 empty. ``"board"``: the same as ``(n, n)``. ``"planes"``:
    float32 ``(C, n, n)`` in ``Box(0, 1)`` (``tictacgo.envs.observations``).
``illegal``
    ``"lose"`` (default): an illegal action ends the episode with reward -1,
    as the course host scores it. ``"penalty"``: the action is refused, the
    state is unchanged, the reward is ``illegal_penalty`` (default -1.0) and
    the learner acts again (the episode goes on).
``render_mode``
    ``"ansi"`` (text), ``"rgb_array"`` or ``"human"``.

Rewards, termination, info
--------------------------
Rewards are from the learner's view: +1 win, -1 loss, 0 draw and on every
non-final step (except refused moves under ``illegal="penalty"``).
``terminated`` is True when the game is over; ``truncated`` is always False
(the games are finite). ``info`` holds ``action_mask`` (int8, the learner's
legal actions, all zero once over), ``learner_colour`` (1 first player, 2
second), ``winner`` (``"learner"``, ``"opponent"`` or None for a draw or a
live game), ``winner_colour`` (1, 2, 0 draw, None live), ``reason`` (why the
game ended: ``win``, ``draw``, ``illegal``, ``max_actions``, ``double_pass``,
``pass_on_empty_start``; None while live), ``opponent_action`` (the
opponent's last reply in this call, or None), and on a refused action
``illegal_action`` True and ``illegal_reason`` (``occupied``, ``suicide``,
``ko``).

``action_masks()`` returns the legal actions as a bool array; sb3-contrib's
``MaskablePPO`` finds it through ``gymnasium.make``'s wrappers.

Seeding: ``reset(seed=...)`` seeds ``self.np_random`` and gives the opponent
a generator drawn from it (``opponent.seed(rng)``, also for an ``Agent``
object you pass), so one seed gives one game against a random opponent.
Unseeded resets continue both streams.

Bad input: a non-integer action raises TypeError, an out-of-range one
ValueError, and the game is untouched. ``step()`` on a finished episode raises
``tictacgo.GameOverError``. An opponent that returns an illegal action raises
RuntimeError naming it.

Edge case: if the opponent's opening move ends the game (a Little-Go opponent
passing on the empty board), ``reset()`` returns that final position with
``info["reason"]`` set; the next ``step()`` ignores its (type-checked) action
and reports the result with ``terminated=True``. ``action_masks()`` is then
all True so that masked policies stay well defined.

Version history: v0, the first release.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from tictacgo.envs import observations
from tictacgo.games.bits import unpack_bits
from tictacgo.games.errors import GameOverError, IllegalActionError, check_action_type

LEARNER_MODES = ("first", "second", "alternate", "random")
ILLEGAL_POLICIES = ("lose", "penalty")
RENDER_MODES = ["ansi", "rgb_array", "human"]


class TurnBasedEnv(gym.Env):
    """Base class: a two-player rules module seen by one learner against an opponent.

    Subclasses set ``game`` (the rules module) and implement
    ``_initial_state()``; they may override ``_stone_bits(state)`` (for a fast
    observation) and ``_extra_info(state, info)``. See the module docstring
    for the keyword arguments, rewards and ``info``.
    """

    metadata: ClassVar[dict] = {"render_modes": RENDER_MODES, "render_fps": 4}
    game: ModuleType

    def __init__(self, opponent: Any = "random", learner: str = "first",
                 observation: str = "flat", illegal: str = "lose",
                 illegal_penalty: float = -1.0, render_mode: str | None = None):
        if learner not in LEARNER_MODES:
            raise ValueError(f"learner must be one of {LEARNER_MODES}, got {learner!r}")
        if observation not in observations.FORMATS:
            raise ValueError(f"observation must be one of {observations.FORMATS}, got {observation!r}")
        if illegal not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal must be one of {ILLEGAL_POLICIES}, got {illegal!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        if isinstance(illegal_penalty, bool) or not isinstance(illegal_penalty, (int, float, np.number)):
            raise TypeError(f"illegal_penalty must be a number, got {illegal_penalty!r}")
        self.learner_mode = learner
        self.observation_format = observation
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode

        probe = self._initial_state()
        self._n = observations.board_size(self.game, probe)
        self._cells = self._n * self._n
        self._num_actions = int(self.game.num_actions(probe))
        self.action_space = spaces.Discrete(self._num_actions)
        if observation == observations.FLAT:
            self.observation_space = spaces.Box(-1, 1, (self._cells,), np.int8)
        elif observation == observations.BOARD:
            self.observation_space = spaces.Box(-1, 1, (self._n, self._n), np.int8)
        else:
            shape = (observations.num_planes(self.game), self._n, self._n)
            self.observation_space = spaces.Box(0.0, 1.0, shape, np.float32)

        # Imported here: baselines sit above envs in the data flow.
        from tictacgo.baselines.registry import make_agent

        self._opponent_spec = opponent
        self.opponent = make_agent(opponent, self.game)
        self.learner_colour = 1
        self._next_alternate = 1
        self._state = None
        self._legal = 0
        self._mask = np.zeros(self._num_actions, dtype=np.int8)
        self._ended_at_reset = False
        self._renderer = None

    # -- hooks for subclasses ------------------------------------------------
    def _initial_state(self):
        """The rules state a new game starts from."""
        raise NotImplementedError

    def _stone_bits(self, state) -> tuple[int, int] | None:
        """(first player's, second player's) stones as bitboards, or None to use ``to_board``."""
        return None

    def _extra_info(self, state, info: dict) -> None:
        """Add game-specific entries to ``info``."""

    # -- public helpers --------------------------------------------------------
    @property
    def state(self):
        """The current rules state (immutable; None before the first reset)."""
        return self._state

    @property
    def opponent_colour(self) -> int:
        return 3 - self.learner_colour

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
        """Start a new game; the opponent moves first when the learner plays second.

        Args:
            seed: seeds ``self.np_random`` and, from it, the opponent's generator.
            options: unused.
        Returns:
            (observation, info).
        """
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
        state = self._initial_state()
        opponent_action = None
        if self.learner_colour == 2:
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
            return self._observe(), reward, True, False, self._info(None)
        if game.is_terminal(state):
            raise GameOverError(f"the episode is over ({getattr(state, 'end', 'game over')}); "
                                "call reset() before step()")
        a = check_action_type(action, self._num_actions)
        opponent_action = None
        if not (self._legal >> a) & 1:
            why = game.illegal_reason(state, a)
            if self.illegal == "penalty":
                info = self._info(None)
                info["illegal_action"] = True
                info["illegal_reason"] = why
                if self.render_mode == "human":
                    self.render()
                return self._observe(), self.illegal_penalty, False, False, info
            state = game.forfeit(state)
            self._set_state(state)
            info = self._info(None)
            info["illegal_action"] = True
            info["illegal_reason"] = why
            if self.render_mode == "human":
                self.render()
            return self._observe(), -1.0, True, False, info
        state = game.play(state, a)
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
        state = self._state if self._state is not None else self._initial_state()
        if self.render_mode == "ansi":
            return self.game.render_ascii(state) + "\n"
        # Imported here: the pictures are only needed for these modes (pygame for "human").
        from tictacgo.envs import rendering

        frame = rendering.render_rgb(self.game, state)
        if self.render_mode == "rgb_array":
            return frame
        if self._renderer is None:
            self._renderer = rendering.HumanViewer(caption=type(self).__name__,
                                                   fps=self.metadata["render_fps"])
        self._renderer.show(frame)
        return None

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

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
        fmt = self.observation_format
        state = self._state
        if fmt == observations.PLANES:
            return observations.planes(self.game, state, self.learner_colour)
        bits = self._stone_bits(state)
        if bits is None:
            flat = observations.relative_board(self.game, state, self.learner_colour).ravel()
        else:
            first, second = bits
            own, opp = (first, second) if self.learner_colour == 1 else (second, first)
            flat = unpack_bits(own, self._cells).view(np.int8) - unpack_bits(opp, self._cells).view(np.int8)
        return flat.reshape(self._n, self._n) if fmt == observations.BOARD else flat

    def _info(self, opponent_action) -> dict:
        state = self._state
        game = self.game
        w = game.winner(state)
        mask = np.ones_like(self._mask) if self._ended_at_reset else self._mask.copy()
        info = {
            "action_mask": mask,
            "learner_colour": self.learner_colour,
            "winner": None if not w else "learner" if w == self.learner_colour else "opponent",
            "winner_colour": w,
            "reason": getattr(state, "end", None),
            "opponent_action": opponent_action,
        }
        self._extra_info(state, info)
        return info
