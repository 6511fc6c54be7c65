"""Native vector envs: many learner-against-opponent games stepped at once on a batched engine.

``TurnBasedVectorEnv(game, num_envs, ...)`` is a ``gymnasium.vector.VectorEnv``
over the game's batched engine; ``make_littlego`` and ``make_tictactoe`` are
the ``vector_entry_point`` of ``LittleGo-v0`` and ``TicTacToe-v0``. The game
logic both vector APIs share (this env and the SB3 ``BatchedVecEnv``) is
``BatchedMatch``: the learner's moves, the in-batch opponent's replies,
auto-reset on the next step, observations and ``info``; on the numba backend
its step against a built-in opponent is one compiled call
(``tictacgo.envs.vector_kernels``) that plays the same games. The user guide
(arguments, opponents, auto-reset, ``info``) is docs/vector.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from tictacgo.envs import reset_options
from tictacgo.games import LittleGo, TicTacToe
from tictacgo.games.base import Game
from tictacgo.games.batched_common import BatchedGame
from tictacgo.games.batched_engines import make_batched_engine
from tictacgo.games.errors import IllegalActionError
from tictacgo.validate import check_int

LEARNER_MODES = ("first", "second", "alternate", "random")
OBSERVATIONS = ("flat", "board")
BUILTIN_OPPONENTS = ("random", "greedy")
# The keys of the vector env's info, in order (and "scores" where the engine scores).
INFO_KEYS = ("action_mask", "learner_colour", "winner_colour", "opponent_action", "illegal_action", "t",
             "reason")
# The arrays of a compiled step, in the order it returns them (and "scores" where the engine scores).
STEP_KEYS = ("obs", "rewards", "terminated", "opponent_action", "illegal", "action_mask", "t", "reason",
             "scores")
# gymnasium.make_vec picks the vector entry point by default; what only the single-game envs take
# (registry opponents, planes, the penalty wrapper) is there with vectorization_mode="sync".
SYNC_HINT = ('; the single-game envs take more through gymnasium.make_vec(..., '
             'vectorization_mode="sync" or "async")')


def _uniform_choice(rng: np.random.Generator, allowed: np.ndarray) -> np.ndarray:
    """One uniformly random True column per row of a (k, A) bool array (rows need one True): the
    allowed column with the largest of A uniform draws (the compiled step draws and picks the same)."""
    return np.argmax(np.where(allowed, rng.random(allowed.shape), -1.0), axis=1)


class BatchedMatch:
    """B learner-against-opponent games on a batched engine: the logic both vector APIs share.

    ``tictacgo.envs.vector_env``'s Gymnasium envs and the SB3 ``VecEnv``
    (``tictacgo.baselines.learning.batched_vec_env``) are thin adapters on it.

    Args:
        engine: a batched engine (``BatchedLittleGo`` or ``BatchedTicTacToe``).
        opponent: "random", "greedy" or a batched policy ``f(obs, mask) -> actions``.
        learner: "first", "second", "alternate" or "random".
        observation: "flat" or "board".
    """

    def __init__(self, engine: BatchedGame, opponent: Any = "random", learner: str = "first",
                 observation: str = "flat"):
        if learner not in LEARNER_MODES:
            raise ValueError(f"learner must be one of {LEARNER_MODES}, got {learner!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS} for a vector env, "
                             f"got {observation!r}{SYNC_HINT}")
        self.engine = engine
        self.num_envs = engine.batch_size
        self.learner_mode = learner
        self.mode_code = LEARNER_MODES.index(learner)
        self.observation_format = observation
        self.set_opponent(opponent)
        rows, cols = engine.board_shape
        self.encoder = engine.game.encoder  # the game's one feature encoder
        self.observation_space = spaces.Box(-1, 1, self.encoder.observation_shape(observation), np.int8)
        self.action_space = spaces.Discrete(engine.num_actions)
        self.rng = np.random.default_rng()
        B = self.num_envs
        self.learner_colour = np.ones(B, np.int8)
        self._next_alternate = np.ones(B, np.int8)
        self.needs_reset = np.zeros(B, bool)  # finished games waiting for their reset step
        self.ended_at_reset = np.zeros(B, bool)
        self.mask = np.zeros((B, engine.num_actions), bool)
        self._reasons = np.array([name or "" for name in engine.END_NAMES])
        self._in_step = False
        self._kernels = None
        if engine.backend == "numba":  # numba imports: the compiled step against a built-in opponent
            from tictacgo.envs.vector_kernels import kernels_for

            self._kernels = kernels_for(engine)
        self._bitgen_of: np.random.Generator | None = None  # the generator self._bitgen points into
        self._points = rows * cols
        self._scored = hasattr(engine, "scores")
        self._all_true = np.ones(self.num_envs, bool)  # copied: cheaper than np.ones at small B
        self._no_reasons = self._reasons.take(np.zeros(self.num_envs, np.intp))  # every game live

    def set_opponent(self, opponent: Any) -> None:
        """Play against ``opponent`` ("random", "greedy" or a callable ``f(obs, mask) -> actions``)."""
        if isinstance(opponent, str):
            if opponent not in BUILTIN_OPPONENTS:
                raise ValueError(f"a vector env's opponent must be one of {BUILTIN_OPPONENTS} or a callable "
                                 f"f(obs, mask) -> actions, got {opponent!r}{SYNC_HINT}")
        elif not callable(opponent):
            raise TypeError(f"opponent must be one of {BUILTIN_OPPONENTS} or a callable "
                            f"f(obs, mask) -> actions, got {opponent!r} ({type(opponent).__name__})")
        self.opponent = opponent

    def __getstate__(self) -> dict[str, Any]:
        # The kernels are bound to this engine's arrays and the bit generator's addresses to
        # this process's generator: a copy (pickle, deepcopy) binds its own.
        state = self.__dict__.copy()
        state["_kernels"] = state["_kernels"] is not None
        state["_bitgen_of"] = None
        state.pop("_bitgen", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._kernels:
            from tictacgo.envs.vector_kernels import kernels_for

            self._kernels = kernels_for(self.engine)
        else:
            self._kernels = None

    @property
    def compiled(self) -> bool:
        """Whether a step is one compiled kernel call (``tictacgo.envs.vector_kernels``: the numba
        backend and a built-in opponent) rather than numpy array operations; the games are the same."""
        return self._kernels is not None and type(self.opponent) is str

    def seed(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self._next_alternate[:] = 1

    # -- observations ----------------------------------------------------------
    def observe(self, colour: np.ndarray | None = None, games: np.ndarray | None = None) -> np.ndarray:
        """The player-relative boards from ``colour``'s view (default: the learner's) of ``games``."""
        colour = self.learner_colour if colour is None else colour
        return self.encoder.observe_batch(self.engine, self.observation_format, colour, games)

    def action_masks(self) -> np.ndarray:
        """``(B, n_actions)`` bool: the learner's legal actions (all True where the action is ignored)."""
        out = self.mask.copy()
        out[self.needs_reset | self.ended_at_reset] = True
        return out

    # -- play ------------------------------------------------------------------
    @contextmanager
    def all_or_nothing(self) -> Iterator[None]:
        """Run the block as one step: if it raises (the opponent failed or answered an illegal
        move), every game, learner colour and random draw is put back as it was before it.

        Blocks nest; the outermost one restores.
        """
        if self._in_step:
            yield
            return
        saved = (self.engine.snapshot(), self.learner_colour.copy(), self._next_alternate.copy(),
                 self.needs_reset.copy(), self.ended_at_reset.copy(), self.mask,
                 self.rng.bit_generator.state)
        self._in_step = True
        try:
            yield
        except BaseException:
            engine, colour, alternate, needs_reset, ended_at_reset, self.mask, rng = saved
            self.engine.restore(engine)
            self.learner_colour[:], self._next_alternate[:] = colour, alternate
            self.needs_reset[:], self.ended_at_reset[:] = needs_reset, ended_at_reset
            self.rng.bit_generator.state = rng
            raise
        finally:
            self._in_step = False

    def reset_games(self, where: np.ndarray) -> np.ndarray:
        """New games where ``where``; the opponent opens where it plays first (all or nothing).

        Returns:
            The opponent's opening actions (-1 where it did not move).
        """
        with self.all_or_nothing():
            return self._reset_games(where)

    def _reset_games(self, where: np.ndarray) -> np.ndarray:
        engine = self.engine
        engine.reset(where)
        k = int(where.sum())
        mode = self.learner_mode
        if mode == "first":
            self.learner_colour[where] = 1
        elif mode == "second":
            self.learner_colour[where] = 2
        elif mode == "alternate":
            self.learner_colour[where] = self._next_alternate[where]
            self._next_alternate[where] = 3 - self._next_alternate[where]
        else:
            self.learner_colour[where] = self.rng.integers(1, 3, size=k)
        self.needs_reset[where] = False
        opening = self._opponent_moves(where & (engine.to_move != self.learner_colour))
        self.ended_at_reset[where] = engine.done[where]
        self.mask = engine.legal_mask()
        return opening

    def _opponent_moves(self, where: np.ndarray) -> np.ndarray:
        """The opponent plays in the live games of ``where``; returns the actions (-1 elsewhere)."""
        engine = self.engine
        where = where & ~engine.done
        actions = np.full(self.num_envs, -1, np.int64)
        games = np.nonzero(where)[0]
        if games.size == 0:
            return actions
        mask = engine.legal_mask()[games]
        if callable(self.opponent):
            chosen = np.asarray(self.opponent(self.observe(engine.to_move, games), mask))
            if chosen.shape != (games.size,) or chosen.dtype.kind not in "iu":
                raise RuntimeError(f"the opponent {self.opponent!r} must return {games.size} integer "
                                   f"actions, got {chosen.dtype} {chosen.shape}")
            bad = ~mask[np.arange(games.size), np.clip(chosen, 0, engine.num_actions - 1)] | (chosen < 0) | (
                chosen >= engine.num_actions)
            if bad.any():
                g = int(games[np.argmax(bad)])
                raise RuntimeError(f"the opponent {self.opponent!r} returned the illegal action "
                                   f"{int(chosen[np.argmax(bad)])} in game {g}")
        else:
            allowed = engine.opponent_choices(mask, games, greedy=self.opponent == "greedy")
            chosen = _uniform_choice(self.rng, allowed)
        full = np.zeros(self.num_envs, np.int64)
        full[games] = chosen
        engine.play(full, where)
        actions[games] = chosen
        return actions

    def step(self, actions) -> tuple[np.ndarray, ...]:
        """One learner action per game, then the opponent's replies (NEXT_STEP auto-reset).

        All or nothing: if the opponent fails, no game has moved.

        Returns:
            ``(rewards, terminated, opponent_action, illegal)`` arrays of B.
        """
        out = self.advance(actions)
        return out["rewards"], out["terminated"], out["opponent_action"], out["illegal"]

    def advance(self, actions) -> dict[str, np.ndarray]:
        """``step``, returning what it made: ``rewards``, ``terminated``, ``opponent_action``,
        ``illegal`` and the arrays that follow the step (``outputs()``): ``obs``
        (``observe()``), ``action_mask`` (the info's int8 mask: the legal actions, all 0 for a game
        this step ended, all 1 for one the opponent's opening ended), ``t`` (actions played),
        ``reason`` and, where the engine scores, ``scores``; each a fresh array.
        """
        a = self._checked_actions(actions)
        if self._kernels is not None and type(self.opponent) is str:  # self.compiled, inlined
            return dict(zip(STEP_KEYS, self._compiled_step(a), strict=False))
        with self.all_or_nothing():
            rewards, terminated, opponent_action, illegal = self._step(a)
        return {"rewards": rewards, "terminated": terminated, "opponent_action": opponent_action,
                "illegal": illegal, **self.outputs()}

    def advance_with_info(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """``advance`` as the vector env's step returns it: ``(obs, rewards, terminated, info)``."""
        a = self._checked_actions(actions)
        if self._kernels is not None and type(self.opponent) is str:  # self.compiled, inlined
            obs, rewards, terminated, replies, illegal, mask, t, reason, *scores = self._compiled_step(a)
            return obs, rewards, terminated, self._info(mask, replies, illegal, t, reason, scores)
        out = self.advance(a)
        return out["obs"], out["rewards"], out["terminated"], self.info(out)

    def _checked_actions(self, actions) -> np.ndarray:
        """``actions`` as an array of B integers, or a ValueError/TypeError saying what is wrong."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {a.dtype}")
        return a

    def outputs(self) -> dict[str, np.ndarray]:
        """Fresh arrays of the games as they are: ``obs``, ``action_mask`` (int8, the info's), ``t``,
        ``reason`` (``reason_names()``) and (where the engine scores) ``scores``."""
        # As each single env reports it: a finished game's row is all zeros (Gymnasium's sync and async
        # vector envs pass on that final info), a game the opponent's opening ended has all ones.
        info_mask = self.mask.astype(np.int8)
        info_mask[self.ended_at_reset] = 1
        out = {"obs": self.observe(), "action_mask": info_mask,
               "t": np.asarray(self.engine.t, dtype=np.int64).copy(), "reason": self.reason_names()}
        if self._scored:
            out["scores"] = self.engine.scores()
        return out

    def _compiled_step(self, a: np.ndarray) -> tuple[np.ndarray, ...]:
        """``advance`` in one kernel call (``tictacgo.envs.vector_kernels``), for the built-in
        opponents: the same games and random draws as ``_step``; its arrays in ``STEP_KEYS`` order
        (``scores`` where the engine scores)."""
        B, A, kernel = self.num_envs, self.engine.num_actions, self._kernels
        if self._bitgen_of is not self.rng:
            from tictacgo.envs.vector_kernels import bitgen_addresses

            self._bitgen = np.array(bitgen_addresses(self.rng), dtype=np.int64)
            self._bitgen_of = self.rng
        actions = np.ascontiguousarray(a, dtype=np.int64)
        if not actions.flags.carray:  # the kernel's compiled types: C order, aligned, writable
            actions = actions.copy()
        obs, rewards = np.empty((B, self._points), np.int8), np.empty(B)
        terminated, illegal = np.empty(B, bool), np.empty(B, bool)
        opponent_action, t = np.empty(B, np.int64), np.empty(B, np.int64)
        mask, action_mask = np.empty((B, A), bool), np.empty((B, A), np.int8)
        extra = (np.empty((B, 2)),) if kernel.scored else ()
        bad, refused, code, finished = kernel.step(
            *kernel.engine_args, self.learner_colour, self._next_alternate, self.needs_reset,
            self.ended_at_reset, self.mask, self.mode_code, self.opponent == "greedy", actions, self._bitgen,
            obs, rewards, terminated, opponent_action, illegal, mask, action_mask, t, *extra)
        if bad >= 0:
            raise ValueError(f"actions must be in [0, {A - 1}], got {int(a[bad])}")
        if refused >= 0:
            reason = kernel.refusals[code]
            raise IllegalActionError(f"action {int(a[refused])} of game {refused} is illegal: {reason}, "
                                     "though the action mask allows it (no game was changed)", reason=reason)
        self.mask = mask
        if self.observation_format == "board":
            obs = obs.reshape(B, *self.observation_space.shape)
        reason = self._reasons.take(self.engine.end) if finished else self._no_reasons.copy()
        return obs, rewards, terminated, opponent_action, illegal, action_mask, t, reason, *extra

    def _step(self, a: np.ndarray) -> tuple[np.ndarray, ...]:
        engine = self.engine
        if ((a < 0) | (a >= engine.num_actions)).any():
            bad = int(a[np.argmax((a < 0) | (a >= engine.num_actions))])
            raise ValueError(f"actions must be in [0, {engine.num_actions - 1}], got {bad}")
        a = a.astype(np.int64)
        rewards = np.zeros(self.num_envs, np.float64)
        terminated = np.zeros(self.num_envs, bool)
        resetting = self.needs_reset.copy()
        reported = self.ended_at_reset.copy()  # games the opponent's opening ended: report them now
        self.ended_at_reset[:] = False
        playing = ~resetting & ~reported
        illegal = playing & ~self.mask[np.arange(self.num_envs), a]
        engine.forfeit(illegal)
        engine.play(a, playing & ~illegal)
        replies = self._opponent_moves(playing & ~illegal)
        ended = (playing | reported) & engine.done
        terminated[ended] = True
        ret = engine.returns()
        learner = self.learner_colour.astype(np.int64) - 1
        rewards[ended] = ret[np.nonzero(ended)[0], learner[ended]]
        opening = np.full(self.num_envs, -1, np.int64)
        if resetting.any():
            opening = self.reset_games(resetting)
        else:
            self.mask = engine.legal_mask()
        self.needs_reset |= ended
        return rewards, terminated, np.where(resetting, opening, replies), illegal

    def reason_names(self) -> np.ndarray:
        """Why each game ended, as the rules core names it (``""`` while live)."""
        return self._reasons.take(self.engine.end)

    def info(self, out: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The vector env's ``info`` from ``advance``'s (or ``outputs``' and the reset's) arrays,
        each key with its ``_key`` mask (all True: every game reports every key)."""
        scores = [out["scores"]] if self._scored else []
        return self._info(out["action_mask"], out["opponent_action"], out["illegal"], out["t"], out["reason"],
                          scores)

    def _info(self, action_mask, opponent_action, illegal, t, reason, scores: list) -> dict[str, np.ndarray]:
        """``info`` from its arrays (``scores``: ``[scores]`` where the engine scores, else ``[]``):
        the keys in ``INFO_KEYS`` order, then their ``_key`` masks, which share one fresh array.

        Written out as one dict display: a one-game step's info costs half of building it key by key.
        """
        every, colours, winners = self._all_true.copy(), self.learner_colour.copy(), self.engine.winner.copy()
        if not scores:
            return {"action_mask": action_mask, "learner_colour": colours, "winner_colour": winners,
                    "opponent_action": opponent_action, "illegal_action": illegal, "t": t, "reason": reason,
                    "_action_mask": every, "_learner_colour": every, "_winner_colour": every,
                    "_opponent_action": every, "_illegal_action": every, "_t": every, "_reason": every}
        return {"action_mask": action_mask, "learner_colour": colours, "winner_colour": winners,
                "opponent_action": opponent_action, "illegal_action": illegal, "t": t, "reason": reason,
                "scores": scores[0], "_action_mask": every, "_learner_colour": every, "_winner_colour": every,
                "_opponent_action": every, "_illegal_action": every, "_t": every, "_reason": every,
                "_scores": every}


class TurnBasedVectorEnv(VectorEnv):
    """A ``gymnasium.vector.VectorEnv`` on a ``BatchedMatch``; see the module docstring."""

    metadata: ClassVar[dict] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, game: Game, num_envs: int, opponent: Any = "random", learner: str = "first",
                 observation: str = "flat", render_mode: str | None = None, illegal: str = "lose"):
        if illegal != "lose":
            raise ValueError(f"a vector env's illegal action loses the game (illegal='lose'), got "
                             f"illegal={illegal!r}{SYNC_HINT}")
        if render_mode is not None:
            raise ValueError(f"the vector envs do not render; got render_mode={render_mode!r}")
        engine = make_batched_engine(game, check_int("num_envs", num_envs, min=1))
        self.game = engine.game
        self.match = BatchedMatch(engine, opponent, learner, observation)
        self.num_envs = engine.batch_size
        self.single_observation_space = self.match.observation_space
        self.single_action_space = self.match.action_space
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._started = False

    def set_opponent(self, opponent: Any) -> None:
        """Play against ``opponent`` from its next move on ("random", "greedy" or ``f(obs, mask)``)."""
        self.match.set_opponent(opponent)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` bool: the learner's legal actions."""
        return self.match.action_masks()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start new games in every sub-env. ``seed``: an int or None."""
        if seed is not None:
            seed = reset_options.check_seed(seed)
        if options:
            raise ValueError(f"this vector env takes no reset options, got {options!r}")
        super().reset(seed=seed)
        if seed is not None or not self._started:
            self.match.seed(np.random.default_rng(int(self.np_random.integers(2**63))))
        self._started = True
        opening = self.match.reset_games(np.ones(self.num_envs, bool))
        out = {"opponent_action": opening, "illegal": np.zeros(self.num_envs, bool), **self.match.outputs()}
        return out["obs"], self.match.info(out)

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        obs, rewards, terminated, info = self.match.advance_with_info(actions)
        return obs, rewards, terminated, np.zeros(self.num_envs, bool), info


def make_littlego(num_envs: int, board_size: int = 5, komi: float | None = None,
                  max_actions: int | None = None, **kwargs: Any) -> TurnBasedVectorEnv:
    """``num_envs`` Little-Go games against an in-batch opponent (``LittleGo-v0``'s vector entry point).

    Args:
        num_envs: the number of games.
        board_size: the board's side (``LittleGo``'s size).
        komi: White's komi (None: ``board_size / 2``).
        max_actions: the action limit (None: ``board_size**2 - 1``).
        **kwargs: ``TurnBasedVectorEnv``'s (opponent, learner, observation, ...).
    """
    return TurnBasedVectorEnv(LittleGo(board_size, komi, max_actions), num_envs, **kwargs)


def make_tictactoe(num_envs: int, **kwargs: Any) -> TurnBasedVectorEnv:
    """``num_envs`` Tic-Tac-Toe games against an in-batch opponent (``TicTacToe-v0``'s vector entry point).

    Args:
        num_envs: the number of games.
        **kwargs: ``TurnBasedVectorEnv``'s (opponent, learner, observation, ...).
    """
    return TurnBasedVectorEnv(TicTacToe(), num_envs, **kwargs)

