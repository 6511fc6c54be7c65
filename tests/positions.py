"""Little-Go positions for tests, a test helper: seeded random placements from the empty board, and
random live positions a given number of actions from the end (captures preferred, some passes)."""

from __future__ import annotations

import random

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


def random_position(n: int, left: int, rnd: random.Random, pass_prob: float = 0.1) -> littlego.GoState:
    """A live position with ``left`` actions to go, from a random game that prefers captures."""
    while True:
        s = littlego.LittleGo(n).initial_state()
        target = s.game.max_actions - left
        while s.end is None and s.t < target:
            legal = [a for a in littlego.legal_actions(s) if a != littlego.pass_action(s)]
            if not legal or (s.t > 0 and rnd.random() < pass_prob):
                a = littlego.pass_action(s)
            else:
                own, opp = (s.black, s.white) if s.to_move == littlego.BLACK else (s.white, s.black)
                captures = [a for a in legal if rnd.random() < 0.8
                            and littlego.place_bits(s.game, own, opp, a)[2]] if rnd.random() < 0.7 else []
                a = rnd.choice(captures or legal)
            s = littlego.play(s, a)
        if s.end is None:
            return s


def positions(n: int, lefts: tuple[int, ...], count: int, seed: int) -> list[littlego.GoState]:
    rnd = random.Random(seed)
    return [random_position(n, rnd.choice(lefts), rnd) for _ in range(count)]
