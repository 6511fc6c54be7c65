"""The random player: a uniformly random legal placement.

As the course's random player does, it passes (Little-Go) only when no
placement is legal. ``probabilities(state)`` gives that distribution, so the
random player also serves as a (uniform) policy for policy-guided search.
"""

from __future__ import annotations

from tictacgo.agent import Agent
from tictacgo.baselines.registry import register_agent
from tictacgo.games.base import Game


def placements(game: Game, state) -> list[int]:
    """Legal actions other than PASS."""
    pa = game.pass_action
    return [a for a in game.legal_actions(state) if a != pa]


class RandomAgent(Agent):
    name = "random"

    def act(self, state) -> int:
        moves = placements(self.game, state)
        if not moves:
            return self.game.pass_action
        return moves[int(self.rng.integers(len(moves)))]

    def probabilities(self, state) -> dict[int, float]:
        """The distribution ``act`` draws from: uniform over the placements (PASS only when none)."""
        moves = placements(self.game, state)
        if not moves:
            return {self.game.pass_action: 1.0}
        return dict.fromkeys(moves, 1.0 / len(moves))


def _make(game, rng):
    return RandomAgent(game, rng)


register_agent("random", _make, description="uniformly random legal placement (passes only when none)")
