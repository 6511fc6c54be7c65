"""Static bounds and unconditional life, checked against brute force over the rules core.

The brute force here is plain minimax over ``LittleGo``'s ``play`` and
``legal_actions`` (no solver kernel): the exact final stone difference of a
position. Every bound must contain it, and the solver's values must not
change when its search cuts positions by those bounds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the solver needs numba (the fast extra)")

from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof import leaf_rules  # noqa: E402
from tictacgo.solver import Solver  # noqa: E402
from tictacgo.solver.endgames import load_endgames  # noqa: E402
from tictacgo.solver.search import pass_alive_stones, static_bounds  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "littlego_endgames.npz"


def black_difference(state: littlego.GoState, memo: dict) -> int:
    """Black's stones minus White's at the end of perfect play (Black maximises, White minimises)."""
    if state.end is not None:
        return state.black.bit_count() - state.white.bit_count()
    got = memo.get(state)
    if got is None:
        values = [black_difference(littlego.play(state, a), memo) for a in littlego.legal_actions(state)]
        got = memo[state] = max(values) if state.to_move == littlego.BLACK else min(values)
    return got


def mover_difference(state: littlego.GoState, memo: dict) -> int:
    d = black_difference(state, memo)
    return d if state.to_move == littlego.BLACK else -d


def random_position(game: littlego.LittleGo, left: int, rng: np.random.Generator) -> littlego.GoState:
    """A position of a random game (passes now and then) with ``left`` actions to go."""
    while True:
        s = game.initial_state()
        while s.end is None and game.max_actions - s.t > left:
            legal = littlego.legal_actions(s)
            a = game.size ** 2 if rng.random() < 0.08 and s.t > 0 else int(rng.choice(legal))
            s = littlego.play(s, a)
        if s.end is None:
            return s


def assert_bounds_hold(state, memo):
    true = mover_difference(state, memo)
    for life in (False, True):
        lo, hi = static_bounds(state, life=life)
        assert lo <= true <= hi, (littlego.render_ascii(state), life, lo, true, hi)
    return true


def test_the_bounds_contain_the_value_of_every_position_of_the_3x3_game():
    game = littlego.LittleGo(3)
    memo: dict = {}
    black_difference(game.initial_state(), memo)
    assert len(memo) > 1000
    tight = 0
    for state in memo:
        true = assert_bounds_hold(state, memo)
        tight += static_bounds(state)[1] == true
    assert tight > 0  # the bounds are not merely wide: some meet the value


@pytest.mark.parametrize("size, left, count", [(4, 5, 60), (4, 6, 20), (5, 5, 40)])
def test_the_bounds_contain_the_brute_force_value_of_random_positions(size, left, count):
    game = littlego.LittleGo(size)
    rng = np.random.default_rng(size * 100 + left)
    memo: dict = {}
    for _ in range(count):
        assert_bounds_hold(random_position(game, left, rng), memo)


def test_the_bounds_count_the_placements_left_and_the_groups_that_can_be_captured():
    # White to move with 3 actions left: White has 2 placements, Black 1.
    s = littlego.from_ascii("""
        X X X X X
        X O O . X
        X X X X X
        . . . . .
        O O . . .""", to_move=littlego.WHITE, t=21)
    lo, hi = static_bounds(s)
    # Black passing: White's 4 stones and 2 placements; Black's one group (12 stones, 6 liberties)
    # cannot be captured with 2.
    assert hi == (4 + 2) - 12
    # White passing: Black's one placement takes the 2 White stones in atari (not the bottom pair, 3
    # liberties); Black ends with at most 12 + 1.
    assert lo == (4 - 2) - 13


def test_a_group_with_two_eyes_is_pass_alive_and_one_with_one_eye_is_not():
    s = littlego.from_ascii("""
        . X . X O
        X X X X O
        O O O O O
        . . . . .
        . . . . .""", to_move=littlego.BLACK, t=14)
    black_alive, white_alive = pass_alive_stones(s)
    assert black_alive == s.black  # two one-point eyes: (0,0) and (0,2)
    assert white_alive == 0  # White's wall has one big region below it and no second eye
    one_eye = littlego.from_ascii("""
        . X X X O
        X X X X O
        O O O O O
        . . . . .
        . . . . .""", to_move=littlego.BLACK, t=14)
    assert pass_alive_stones(one_eye) == (0, 0)



@pytest.mark.parametrize("size", [4, 5, 7])
def test_the_compiled_pass_alive_chains_are_the_rules_cores_on_random_boards(size):
    # The compiled Benson (scratch on the stack, sets as bits) against the rules core's, on random
    # boards from sparse to crowded (a 7x7 board holds up to 25 chains of one colour).
    game = littlego.LittleGo(size)
    rng = np.random.default_rng(size)
    alive_seen = 0
    for _ in range(300):
        points = rng.integers(0, 3, size * size)
        points[rng.random(size * size) < rng.random()] = 0
        black = sum(1 << p for p in range(size * size) if points[p] == 1)
        white = sum(1 << p for p in range(size * size) if points[p] == 2)
        s = game.initial_state()._replace(black=black, white=white)
        expected = (leaf_rules.pass_alive_stones(game, black, white),
                    leaf_rules.pass_alive_stones(game, white, black))
        assert pass_alive_stones(s) == expected
        alive_seen += expected != (0, 0)
    assert alive_seen > 0


def test_pass_alive_counts_every_chain_of_a_board_full_of_single_stones():
    # Black on every other point of 7x7: 25 one-stone chains (the most a colour can have) and 24
    # one-point regions, each an eye of every chain next to it: every chain is pass-alive. With
    # the eye at (0, 1) filled by White, the corner stone keeps one eye and is the only chain lost
    # (its other eye goes with it, but the stones next to that eye keep two others).
    game = littlego.LittleGo(7)
    black = sum(1 << p for p in range(49) if (p // 7 + p % 7) % 2 == 0)
    s = game.initial_state()._replace(black=black, white=0)
    assert pass_alive_stones(s) == (leaf_rules.pass_alive_stones(game, black, 0), 0) == (black, 0)
    corner_eye = 1 << 1  # (0, 1), between the corner stone (0, 0) and (0, 2), (1, 1)
    filled = s._replace(white=corner_eye)
    assert pass_alive_stones(filled)[0] == leaf_rules.pass_alive_stones(game, black, corner_eye) == black & ~1


def opponent_can_capture(state: littlego.GoState, stones: int, owner: int, depth: int, memo: set) -> bool:
    """Whether the owner's opponent can remove any of ``stones`` within ``depth`` placements of its own
    while the owner passes every time (ko and the action limit ignored: the opponent moves at will)."""
    own = state.black if owner == littlego.BLACK else state.white
    if stones & ~own:
        return True
    if depth == 0 or (own, state.black | state.white) in memo:
        return False
    memo.add((own, state.black | state.white))
    other = littlego.WHITE if owner == littlego.BLACK else littlego.BLACK
    game = state.game
    for p in range(game.size ** 2):
        board = littlego.to_board(state)
        i, j = divmod(p, game.size)
        if board[i, j] != 0:
            continue
        # The opponent to move on this board, its last action a pass (no ko), early enough to move on.
        s = littlego.from_boards(board, other, t=2 if other == littlego.BLACK else 1)
        if p not in littlego.legal_actions(s):
            continue
        after = littlego.play(s, p)
        if opponent_can_capture(after, stones, owner, depth - 1, memo):
            return True
    return False


@pytest.mark.parametrize("seed", range(6))
def test_pass_alive_stones_survive_every_sequence_of_opponent_placements(seed):
    # Dense random 4x4 boards: whatever pass-alive chain they hold, no run of 4 opponent placements
    # (the owner passing) takes one of its stones.
    game = littlego.LittleGo(4)
    rng = np.random.default_rng(seed)
    found = 0
    for _ in range(400):
        s = random_position(game, 2, rng)
        black_alive, white_alive = pass_alive_stones(s)
        for owner, alive in ((littlego.BLACK, black_alive), (littlego.WHITE, white_alive)):
            if alive:
                found += 1
                assert not opponent_can_capture(s, alive, owner, 4, set()), littlego.render_ascii(s)
        if found >= 3:
            break
    assert found >= 3  # the check is not vacuous: dense random boards hold pass-alive chains


@pytest.mark.parametrize("size", [3, 4])
@pytest.mark.parametrize("margin", [False, True])
def test_the_solver_finds_the_same_values_with_and_without_the_bounds_on_small_boards(size, margin):
    game = littlego.LittleGo(size)
    rng = np.random.default_rng(size)
    states = [game.initial_state()] if size == 3 else []
    states += [random_position(game, left, rng) for left in (3, 5, 7, 9) for _ in range(5)]
    memo: dict = {}
    for s in states:
        plain = Solver(14, bounds=False).solve(s, margin=margin)
        for life in (False, True):
            cut = Solver(14, bounds=True, life=life).solve(s, margin=margin)
            assert (cut.value, cut.margin) == (plain.value, plain.margin)
        if margin and game.max_actions - s.t <= 7:
            true = mover_difference(s, memo)
            assert plain.margin == true - game.komi if s.to_move == littlego.BLACK else true + game.komi


def test_the_solver_keeps_every_endgame_benchmark_value_with_the_bounds():
    endgames, _ = load_endgames(DATA)
    solver = Solver(16)
    for e in endgames[::50]:
        r = solver.solve(e.state)
        assert r.value == e.value
        assert r.best_move in e.optimal
