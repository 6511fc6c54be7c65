"""Endgame positions for the solver's benchmarks: positions from seeded games between registry agents.

A game between two agent specs, seeded with ``(seed, game index)``, is the
same game on every machine; the position with ``k`` actions to go is the
state before its action number ``max_actions - k`` (games that end earlier,
by two passes, give none). So a sample of positions is fully described by
its pairings, the numbers of actions left, the game count and the seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tictacgo.baselines.registry import make_agent
from tictacgo.games import littlego


@dataclass(frozen=True)
class SampledPosition:
    """One sampled position and where it comes from."""

    state: littlego.GoState
    black: str      # the agent spec that played Black in its game
    white: str      # the agent spec that played White
    game: int       # the game's index in its pairing
    left: int       # actions to go


def new_game(size: int = 5) -> littlego.GoState:
    """The empty board of the course's game at ``size`` (its own limit and komi)."""
    return littlego.LittleGo(size).initial_state()


def game_states(black: str, white: str, seed: int, game: int, size: int = 5) -> list[littlego.GoState]:
    """The states before each action of one seeded game, then its final state.

    Args:
        black, white: registry agent specs.
        seed, game: the game's seed is ``(seed, game)``; each agent gets its own stream.
        size: the board size.
    """
    agents = [make_agent(spec, "littlego", rng=np.random.default_rng([seed, game, k]))
              for k, spec in enumerate((black, white))]
    for agent in agents:
        agent.reset()
    state = new_game(size)
    states = [state]
    while not littlego.is_terminal(state):
        state = littlego.play(state, agents[state.to_move - 1].act(state))
        states.append(state)
    return states


def sample_positions(pairings: list[tuple[str, str]], lefts: tuple[int, ...], games: int, seed: int,
                     size: int = 5) -> list[SampledPosition]:
    """For each pairing (Black's spec, White's spec) and game, the positions with ``lefts`` actions to go.

    Returns them in the order pairing, game, actions left.
    """
    out = []
    for black, white in pairings:
        for g in range(games):
            states = game_states(black, white, seed, g, size)
            for left in lefts:
                t = states[0].game.max_actions - left
                if 0 <= t < len(states) and states[t].end is None:
                    out.append(SampledPosition(states[t], black, white, g, left))
    return out
