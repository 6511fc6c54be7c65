"""The checker's leaf rules never promise a side more than it gets: each is checked against brute force
over the rules core and against the solver's exact values, and against the solver's own bounds."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from tictacgo.games import littlego
from tictacgo.proof.leaf_rules import (
    RULES,
    actions_left_to,
    margin_bound,
    pass_alive,
    pass_alive_stones,
    pass_bound,
)

ROOT = Path(__file__).resolve().parents[1]
BLACK, WHITE = littlego.BLACK, littlego.WHITE


def black_margin(state: littlego.GoState, memo: dict) -> float:
    """Black's final score minus White's (komi counted) under perfect play, by plain minimax."""
    if state.end is not None:
        b, w = littlego.scores(state)
        return b - w
    got = memo.get(state)
    if got is None:
        values = [black_margin(littlego.play(state, a), memo) for a in littlego.legal_actions(state)]
        got = memo[state] = max(values) if state.to_move == BLACK else min(values)
    return got


def margin_when_passing(state: littlego.GoState, colour: int, memo: dict) -> float:
    """``colour``'s final margin when it passes every time and the opponent plays to make it least."""
    if state.end is not None:
        b, w = littlego.scores(state)
        return b - w if colour == BLACK else w - b
    got = memo.get(state)
    if got is None:
        if state.to_move == colour:
            got = margin_when_passing(littlego.play(state, state.game.pass_action), colour, memo)
        else:
            got = min(margin_when_passing(littlego.play(state, a), colour, memo)
                      for a in littlego.legal_actions(state))
        memo[state] = got
    return got


def outcome(margin: float) -> int:
    return 1 if margin > 0 else -1 if margin < 0 else 0


def random_position(game: littlego.LittleGo, left: int, rng: np.random.Generator,
                    weak: int | None = None) -> littlego.GoState:
    """A live position of a random game (a pass now and then) with ``left`` actions to go; the ``weak``
    colour, if given, passes half of its turns (a lopsided game, where the rules have more to say)."""
    while True:
        s = game.initial_state()
        while s.end is None and game.max_actions - s.t > left:
            legal = littlego.legal_actions(s)
            rate = 0.5 if s.to_move == weak else 0.08
            a = game.pass_action if rng.random() < rate and s.t > 0 else int(rng.choice(legal))
            s = littlego.play(s, a)
        if s.end is None:
            return s


def all_positions(game: littlego.LittleGo) -> list[littlego.GoState]:
    """Every live position of the game from the empty board."""
    seen, stack = set(), [game.initial_state()]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        after = (littlego.play(state, a) for a in littlego.legal_actions(state))
        stack.extend(s for s in after if s.end is None)
    return list(seen)


# --- what the rules say holds --------------------------------------------------------------------------

def test_the_rules_never_promise_more_than_the_exact_value_anywhere_in_the_3x3_game():
    game = littlego.LittleGo(3)
    memo: dict = {}
    promised = dict.fromkeys(RULES, 0)
    for state in all_positions(game):
        exact_black = outcome(black_margin(state, memo))
        for colour in (BLACK, WHITE):
            exact = exact_black if colour == BLACK else -exact_black
            for name, rule in RULES.items():
                said = rule(state, colour)
                if said is not None:
                    promised[name] += 1
                    assert exact >= said, (littlego.render_ascii(state), name, colour, said, exact)
    assert min(promised.values()) > 100  # not vacuous: each rule settles many of the 3x3 positions


@pytest.mark.parametrize("size, left, count", [(3, 6, 60), (4, 5, 40), (4, 6, 15)])
def test_the_margin_bound_is_at_most_what_passing_every_time_gets_against_the_best_opponent(size, left,
                                                                                            count):
    game = littlego.LittleGo(size)
    rng = np.random.default_rng(1000 * size + left)
    memo: dict[int, dict] = {BLACK: {}, WHITE: {}}
    tight = 0
    for _ in range(count):
        state = random_position(game, left, rng)
        for colour in (BLACK, WHITE):
            bound = margin_bound(state, colour)
            reached = margin_when_passing(state, colour, memo[colour])
            assert bound <= reached, (littlego.render_ascii(state), colour, bound, reached)
            tight += bound == reached
            own, opp = (state.black, state.white) if colour == BLACK else (state.white, state.black)
            assert margin_bound(state, colour, pass_alive_stones(game, own, opp)) <= reached
    assert tight > 0  # the bound is not merely loose: some positions meet it


@pytest.mark.parametrize("size, lefts, count", [(4, (2, 3, 4, 6), 60), (5, (2, 3, 5, 6, 8), 60)])
def test_a_rule_never_promises_more_than_the_solvers_exact_value_in_seeded_endgames(size, lefts, count):
    pytest.importorskip("numba", reason="the exact values come from the solver (the fast extra)")
    from tictacgo.solver import Solver

    solver = Solver(18)
    game = littlego.LittleGo(size)
    fired = 0
    for left in lefts:
        rng = np.random.default_rng(100 * size + left)
        for k in range(count):
            state = random_position(game, left, rng, weak=(BLACK, WHITE, None)[k % 3])
            said = {(rule, colour): RULES[rule](state, colour) for rule in RULES for colour in (BLACK, WHITE)}
            if all(v is None for v in said.values()):
                continue
            fired += 1
            value = solver.solve(state).value
            for (rule, colour), v in said.items():
                exact = value if colour == state.to_move else -value
                assert v is None or exact >= v, (littlego.render_ascii(state), rule, colour, v, exact)
    assert fired >= 50  # not vacuous: the rules settle many of these positions


# --- what the rules count ------------------------------------------------------------------------------

def test_the_actions_left_split_between_the_mover_and_the_other_side():
    game = littlego.LittleGo(5)
    s = littlego.from_ascii("""
        . . . . .
        . . . . .
        . . X . .
        . . . . .
        . . . . .""", to_move=WHITE, t=19)  # 5 actions left: White plays 3 of them, Black 2
    assert (actions_left_to(s, WHITE), actions_left_to(s, BLACK)) == (3, 2)
    assert actions_left_to(game.initial_state(), BLACK) == 12 and actions_left_to(game.initial_state(),
                                                                                  WHITE) == 12


def test_pass_bound_counts_chains_with_more_liberties_than_the_opponents_placements_and_komi():
    # Black to move, 4 actions left: if Black passes, White has 2 placements. Black's 12-stone group has
    # 6 liberties (safe); the Black stone at the bottom right has 2 (White could take it). White: 4
    # stones now, at most 6. Black's margin is at least 12 - 6 - 2.5.
    s = littlego.from_ascii("""
        X X X X X
        X O O . X
        X X X X X
        . . . . .
        O O . . X""", to_move=BLACK, t=20)
    assert margin_bound(s, BLACK) == 12 - 6 - 2.5
    assert pass_bound(s, BLACK) == 1
    # White passing: Black has 2 placements, enough for the top pair (1 liberty), not the bottom one
    # (3): White keeps 2 stones against Black's 13 + 2.
    assert margin_bound(s, WHITE) == 2 - (13 + 2) + 2.5
    assert pass_bound(s, WHITE) is None


def test_pass_bound_gives_a_draw_when_the_margin_it_is_sure_of_is_zero():
    # 4x4, komi 2: Black to move with 1 action left. Passing ends the game at the stones now: Black 6,
    # White 4 + 2.
    s = littlego.from_ascii("""
        X X O .
        X X O .
        X X O O
        . . . .""", to_move=BLACK, t=14)
    assert s.game.komi == 2 and margin_bound(s, BLACK) == 0
    assert pass_bound(s, BLACK) == 0


def test_pass_alive_counts_a_chain_with_two_eyes_safe_whatever_its_liberties():
    # White to move, 5 actions left: if White passes, Black has 2 placements, as many as the liberties
    # of White's 13 stones, so pass_bound cannot count them. They are pass-alive (two one-point eyes,
    # which Black can never fill: suicide), so White ends with 13 + 2.5 against Black's 5 + 2.
    s = littlego.from_ascii("""
        . O . O O
        O O O O O
        O O O O O
        X X X X X
        . . . . .""", to_move=WHITE, t=19)
    assert pass_alive_stones(s.game, s.white, s.black) == s.white
    assert pass_alive_stones(s.game, s.black, s.white) == 0
    assert pass_bound(s, WHITE) is None
    assert margin_bound(s, WHITE, s.white) == 13 - 7 + 2.5
    assert pass_alive(s, WHITE) == 1


def test_a_finished_game_is_left_to_the_game_end_rule():
    s = littlego.play(littlego.LittleGo(3).initial_state(), 9)  # Black passes first: the game ends
    assert s.end is not None
    assert pass_bound(s, WHITE) is None and pass_alive(s, WHITE) is None


def test_the_rules_give_the_8_symmetric_images_of_a_position_the_same_answer():
    from tictacgo.games.symmetry import board_symmetries

    rng = np.random.default_rng(7)
    game = littlego.LittleGo(5)
    perms = board_symmetries(5, 5, 26)
    for _ in range(30):
        s = random_position(game, 6, rng)
        for perm in perms:
            def m(bits, perm=perm):
                return sum(1 << int(perm[p]) for p in range(25) if bits >> p & 1)
            image = s._replace(black=m(s.black), white=m(s.white))
            for rule in RULES.values():
                assert rule(image, BLACK) == rule(s, BLACK) and rule(image, WHITE) == rule(s, WHITE)


# --- the checker's rules agree with the solver's compiled bounds, and stay independent of them ---------

def test_pass_alive_stones_match_the_solvers_benson_on_dense_random_boards():
    pytest.importorskip("numba", reason="the solver's bounds are compiled (the fast extra)")
    from tictacgo.solver.search import pass_alive_stones as compiled

    alive_found = 0
    for size, left in ((4, 1), (4, 3), (5, 2), (5, 5)):
        game = littlego.LittleGo(size)
        rng = np.random.default_rng(size * 10 + left)
        for _ in range(150):
            s = random_position(game, left, rng)
            black, white = compiled(s)
            assert pass_alive_stones(game, s.black, s.white) == black, littlego.render_ascii(s)
            assert pass_alive_stones(game, s.white, s.black) == white, littlego.render_ascii(s)
            alive_found += bool(black or white)
    assert alive_found >= 10


def test_the_margin_bound_of_the_mover_is_the_solvers_lower_static_bound_plus_komi():
    pytest.importorskip("numba", reason="the solver's bounds are compiled (the fast extra)")
    from tictacgo.solver.search import static_bounds

    for size in (4, 5):
        game = littlego.LittleGo(size)
        rng = np.random.default_rng(size)
        for _ in range(100):
            s = random_position(game, int(rng.integers(1, 12)), rng)
            komi = game.komi if s.to_move == WHITE else -game.komi
            own, opp = (s.black, s.white) if s.to_move == BLACK else (s.white, s.black)
            assert margin_bound(s, s.to_move) == static_bounds(s, life=False)[0] + komi
            assert margin_bound(s, s.to_move, pass_alive_stones(game, own, opp)) == \
                static_bounds(s, life=True)[0] + komi


def test_the_leaf_rules_import_only_the_rules_core():
    tree = ast.parse((ROOT / "tictacgo" / "proof" / "leaf_rules.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    assert {m for m in imported if m and m.startswith("tictacgo")} == {"tictacgo.games"}
    assert "numba" not in imported and "numpy" not in imported
