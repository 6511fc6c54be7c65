"""The random player: a uniformly random legal placement.

As the course's random player does, it passes (Little-Go) only when no
placement is legal.
"""

from __future__ import annotations

from tictacgo.baselines.base import Agent, placements
from tictacgo.baselines.registry import register_agent


class RandomAgent(Agent):
    name = "random"

    def act(self, state) -> int:
        moves = placements(self.game, state)
        if not moves:
            return self.game.pass_action(state)
        return moves[int(self.rng.integers(len(moves)))]


def _make(game, rng):
    return RandomAgent(game, rng)


register_agent("random", _make, description="uniformly random legal placement (passes only when none)")
