"""``RandomOpening``: exploring starts for a tictacgo Gymnasium env.

A policy trained only from the empty board never sees the positions that
good play avoids, so it has no idea what to do in them. This wrapper starts
each episode from a random opening instead: at ``reset`` it draws ``k``
uniformly from ``0..max_moves``, plays ``k`` uniformly random legal moves
(both sides) from the initial position, and hands that position to the env
as ``options={"state": ...}``. The env then chooses the learner's colour as
usual and lets the opponent move first if it is the opponent's turn.

The random moves belong to no one: they earn no reward and are not steps of
the episode. A caller's own ``options={"state": s}`` wins over the wrapper
(``s`` is used as given). The wrapper draws from its own generator, seeded
by ``reset(seed=...)``, so seeded runs repeat their openings.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from tictacgo.validate import check_int


class RandomOpening(gym.Wrapper):
    """Start every episode after ``0..max_moves`` random moves.

    Args:
        env: a tictacgo Gymnasium env (it exposes ``game`` and accepts
            ``options={"state": ...}`` at reset).
        max_moves: the most random moves an opening has (0 turns it off).
    Raises:
        ValueError: ``max_moves`` is not a non-negative int.
    """

    def __init__(self, env: gym.Env, max_moves: int):
        check_int("max_moves", max_moves, min=0)
        super().__init__(env)
        self.max_moves = max_moves
        self._rng = np.random.default_rng()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if self.max_moves and not (isinstance(options, dict) and options.get("state") is not None):
            options = {**(options or {}), "state": self.opening()}
        return self.env.reset(seed=seed, options=options)

    def opening(self):
        """A random non-terminal position ``0..max_moves`` random moves from the start."""
        game, rng = self.unwrapped.game, self._rng
        state = self.unwrapped.game.initial_state()
        k = int(rng.integers(self.max_moves + 1))
        for _ in range(k):
            acts = game.legal_actions(state)
            nxt = game.play(state, acts[int(rng.integers(len(acts)))])
            if game.is_terminal(nxt):
                break
            state = nxt
        return state
