"""The random player: a uniformly random legal placement.

As the course's random player does, it passes (Little-Go) only when no
placement is legal.
"""

from __future__ import annotations

from tictacgo.baselines.base import Agent, placements


class RandomAgent(Agent):
    name = "random"

    def act(self, state) -> int:
        moves = placements(self.game, state)
        if not moves:
            return self.game.pass_action(state)
        return moves[int(self.rng.integers(len(moves)))]
