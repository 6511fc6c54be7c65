"""Little-Go positions for tests, a test helper: seeded random placements from the empty board."""

from __future__ import annotations

import numpy as np

from tictacgo.games import littlego


def endgame(n: int, moves: int, seed: int) -> littlego.GoState:
    """A position after ``moves`` random legal placements (passes avoided while placements exist)."""
    rng = np.random.default_rng(seed)
    state = littlego.LittleGo(n).initial_state()
    for _ in range(moves):
        legal = littlego.legal_actions(state)
        choices = [a for a in legal if a != state.game.pass_action] or legal
        state = littlego.play(state, int(rng.choice(choices)))
        assert state.end is None
    return state
