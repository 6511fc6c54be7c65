"""Impossible states are refused wherever a state is handed in: ``game.check_state``,
``reset(options={"state": s})`` of both env APIs, and the batched engines' ``set_state``."""

from __future__ import annotations

import numpy as np
import pytest
from engines import NUMBA_MISSING

import tictacgo  # noqa: F401  (registers the Gymnasium ids)
from tictacgo.envs import gym_littlego, gym_tictactoe, littlego_v0, tictactoe_v0
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt
from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.batched_tictactoe import BatchedTicTacToe

GO = go.LittleGo()
TTT = ttt.TicTacToe()
START = GO.initial_state()
AFTER_C3 = GO.play(START, 12)  # one Black stone in the centre, White to move
# Black's stone at point 5 has just captured White's corner stone at point 0: ko armed.
CAPTURE = GO.from_boards([[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0] * 5, [0] * 5, [0] * 5], 2,
                         previous=[[2, 1, 0, 0, 0], [0, 0, 0, 0, 0], [0] * 5, [0] * 5, [0] * 5])

IMPOSSIBLE_GO = {
    "negative stone bits": START._replace(black=-1),
    "stones off the board": START._replace(white=1 << 25),
    "overlapping stones": AFTER_C3._replace(white=1 << 12, prev_white=1 << 12),
    "a group without liberties": GO.from_boards(np.zeros((5, 5), int), 1)._replace(
        black=0b100010, white=0b1, prev_black=0b100010, prev_white=0b1),
    "t beyond the action limit": START._replace(t=GO.max_actions + 2),
    "negative t": START._replace(t=-2),
    "to_move 3": START._replace(to_move=3),
    "White to move at t=0": START._replace(to_move=2),
    "a capture count nothing captured": AFTER_C3._replace(captured=3),
    "ko armed without a capture": AFTER_C3._replace(ko_armed=True),
    "ko not armed after a capture": CAPTURE._replace(ko_armed=False),
    "a last action elsewhere than the new stone": AFTER_C3._replace(last_action=7),
    "a pass that changed the board": AFTER_C3._replace(last_action=GO.pass_action, last_pass=True),
    "an unknown end": AFTER_C3._replace(end="resign"),
    "a loser in a live game": AFTER_C3._replace(loser=2),
    "a bool for t": START._replace(t=False),
}

IMPOSSIBLE_TTT = {
    "negative marks": ttt.TTTState(-1, 0, 1),
    "marks off the board": ttt.TTTState(1 << 9, 0, 2),
    "overlapping marks": ttt.TTTState(1, 1, 1),
    "three X and no O": ttt.TTTState(0b111, 0, 2, "win", 1),
    "O to move first": ttt.TTTState(0, 0, 2),
    "to_move 3": ttt.TTTState(0, 0, 3),
    "a line in a live game": ttt.from_board("XXX OO. ...")._replace(end=None, winner=0),
    "both players with a line": ttt.TTTState(0b000000111, 0b000111000, 1, "win", 1),
    "a draw with an empty cell": ttt.TTTState(0b1, 0, 2, "draw", 0),
    "a last action on an empty cell": ttt.TTTState(0b1, 0, 2, None, 0, 5),
}


def _refused(reset_or_set, state) -> None:
    with pytest.raises((ValueError, TypeError)) as info:
        reset_or_set(state)
    assert "finished game" not in str(info.value)  # refused as impossible, not as over


GAMES = {"littlego": (GO, littlego_v0, gym_littlego, BatchedLittleGo, IMPOSSIBLE_GO),
         "tictactoe": (TTT, tictactoe_v0, gym_tictactoe, BatchedTicTacToe, IMPOSSIBLE_TTT)}
BACKENDS = ("numpy",) if NUMBA_MISSING else ("numpy", "numba")


@pytest.mark.parametrize("game_name,case", [(g, c) for g, entry in GAMES.items() for c in entry[-1]])
def test_an_impossible_state_is_refused_everywhere(game_name, case):
    game, aec, single, batched, cases = GAMES[game_name]
    state = cases[case]
    _refused(game.check_state, state)
    for env in (aec.env(), single.env()):
        _refused(lambda s, e=env: e.reset(options={"state": s}), state)
    for backend in BACKENDS:
        engine = batched(2, game, backend=backend)
        before = engine.state(0)
        _refused(lambda s, e=engine: e.set_state(0, s), state)
        assert engine.state(0) == before  # nothing half-written


@pytest.mark.parametrize("size", [3, 5])
def test_every_position_of_random_play_and_of_from_boards_passes_the_check(size):
    game = go.LittleGo(size)
    rng = np.random.default_rng(size)
    for _ in range(40):
        s = game.initial_state()
        while not s.end:
            game.check_state(s)
            game.check_state(game.from_boards(game.to_board(s), s.to_move, game.previous_board(s), s.t))
            s = game.play(s, int(rng.choice(game.legal_actions(s))))
            if not s.end and rng.random() < 0.2:
                game.check_state(game.forfeit(s))
        game.check_state(s)
    env = littlego_v0.env(board_size=size)
    env.reset(options={"state": game.play(game.initial_state(), 0)})  # an ordinary position is taken


def test_every_tictactoe_position_passes_the_check():
    seen, stack = set(), [TTT.initial_state()]
    while stack:
        s = stack.pop()
        if s in seen:
            continue
        seen.add(s)
        TTT.check_state(s)
        if not s.end:
            TTT.check_state(TTT.forfeit(s))
            stack += [TTT.play(s, a) for a in TTT.legal_actions(s)]
    assert len(seen) > 5000
