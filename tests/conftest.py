"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tictacgo.games import tictactoe as ttt


def _play_ttt_game(agent_x, agent_o) -> int:
    """One Tic-Tac-Toe game from the empty board; the winner (1 X, 2 O) or 0 for a draw.

    Unlike ``arena.play_game`` an illegal action raises (a test should fail,
    not score a forfeit) and the agents are not reset.
    """
    state = ttt.initial_state()
    while not ttt.is_terminal(state):
        agent = agent_x if state.to_move == ttt.X else agent_o
        state = ttt.play(state, agent.act(state))
    return ttt.winner(state)


@pytest.fixture
def play_ttt_game() -> Callable[[object, object], int]:
    """``play_ttt_game(agent_x, agent_o) -> winner`` (1 X, 2 O, 0 draw); illegal actions raise."""
    return _play_ttt_game
