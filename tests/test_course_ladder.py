"""The course's Little-Go opponent ladder: greedy, aggressive, alpha-beta.

Positions are ASCII boards (X Black, O White, . empty; row 0 on top).
"""

import numpy as np
import pytest

from tictacgo.arena import play_game
from tictacgo.baselines import make_agent
from tictacgo.baselines.course_ladder import (
    AggressiveAgent,
    CourseAlphaBetaAgent,
    GreedyAgent,
    capture_counts,
    centre_distance,
    leaf_value,
    ordered_children,
    placements,
)
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe


def at(i, j, n=5):
    return i * n + j


# One White stone in atari at (1,1) (capture at (2,1): 1 stone) and a White
# pair in atari at (3,3)-(3,4) (capture at (3,2): 2 stones).
TWO_CAPTURES = """
    .X...
    XOX..
    ...XX
    ...OO
    ...XX"""

# No capture now. The White pair (0,0)-(0,1) has two liberties, (0,2) and
# (1,0): two Black moves in a row capture 2 stones, starting at either; (0,2)
# is nearer the centre. The White stone at (4,4) needs two moves for 1 stone.
SET_UP_PAIR = """
    OO...
    .X...
    .....
    .....
    ....O"""

# One White stone with liberties (0,3) and (1,2): both set up the capture of
# 1 stone; (1,2) is nearer the centre.
SET_UP_TIE = """
    .XO..
    .....
    .....
    .....
    ....."""

# 2x2: White to move, both empty points are suicide for White.
NO_PLACEMENT = """
    X.
    .X"""

LADDER = ("greedy", "aggressive", "alphabeta")


def rng(seed=0):
    return np.random.default_rng(seed)


def test_capture_counts_match_the_rules():
    s = go.from_ascii(TWO_CAPTURES, to_move=go.BLACK)
    counts = capture_counts(s)
    assert counts[at(2, 1)] == 1
    assert counts[at(3, 2)] == 2
    assert sum(1 for c in counts.values() if c) == 2


@pytest.mark.parametrize("seed", range(5))
def test_greedy_takes_the_capture_of_the_most_stones(seed):
    s = go.from_ascii(TWO_CAPTURES, to_move=go.BLACK)
    assert GreedyAgent(go.LittleGo(), rng(seed)).act(s) == at(3, 2)


def test_greedy_without_a_capture_plays_any_legal_placement():
    s = go.LittleGo().initial_state()
    moves = {GreedyAgent(go.LittleGo(), rng(seed)).act(s) for seed in range(30)}
    assert len(moves) > 5
    assert s.game.pass_action not in moves


@pytest.mark.parametrize("seed", range(3))
def test_aggressive_captures_like_greedy_when_it_can(seed):
    s = go.from_ascii(TWO_CAPTURES, to_move=go.BLACK)
    assert AggressiveAgent(go.LittleGo(), rng(seed)).act(s) == at(3, 2)


@pytest.mark.parametrize("seed", range(3))
def test_aggressive_sets_up_the_biggest_capture_two_moves_ahead(seed):
    s = go.from_ascii(SET_UP_PAIR, to_move=go.BLACK)
    agent = AggressiveAgent(go.LittleGo(), rng(seed))
    scores = agent.pair_scores(s)
    assert scores[at(0, 2)] == 2 and scores[at(1, 0)] == 2
    assert scores[at(3, 4)] == 1 and scores[at(4, 3)] == 1
    assert max(v for a, v in scores.items() if a not in (at(0, 2), at(1, 0))) == 1
    assert agent.act(s) == at(0, 2)  # both set up 2 stones; (0,2) is nearer the centre


@pytest.mark.parametrize("seed", range(3))
def test_aggressive_breaks_ties_towards_the_centre(seed):
    s = go.from_ascii(SET_UP_TIE, to_move=go.BLACK)
    assert centre_distance(at(1, 2), 5) < centre_distance(at(0, 3), 5)
    assert AggressiveAgent(go.LittleGo(), rng(seed)).act(s) == at(1, 2)


def test_aggressive_on_the_empty_board_plays_the_centre():
    assert AggressiveAgent(go.LittleGo(), rng()).act(go.LittleGo().initial_state()) == at(2, 2)


@pytest.mark.parametrize("depth", [1, 2])
def test_course_alphabeta_finds_a_capture_in_one(depth):
    s = go.from_ascii("""
        .....
        ..X..
        .XO..
        ..X..
        .....""", to_move=go.BLACK)
    assert CourseAlphaBetaAgent(go.LittleGo(), depth=depth, rng=rng()).act(s) == at(2, 3)


def test_course_alphabeta_prefers_the_bigger_capture():
    s = go.from_ascii(TWO_CAPTURES, to_move=go.BLACK)
    assert CourseAlphaBetaAgent(go.LittleGo(), rng=rng()).act(s) == at(3, 2)


def test_course_alphabeta_ordering_keeps_at_most_branching_moves_captures_first():
    s = go.from_ascii(TWO_CAPTURES, to_move=go.BLACK)
    kids = ordered_children(s, 10)
    assert len(kids) == 10
    assert [a for a, _ in kids[:2]] == [at(3, 2), at(2, 1)]


def _plain_negamax(state, depth, branching):
    """Negamax without pruning over the ordered placements: the course search's values, the slow way."""
    if depth == 0 or go.is_terminal(state):
        return leaf_value(state)
    children = ordered_children(state, branching)
    return max(-_plain_negamax(child, depth - 1, branching) for _, child in children)


@pytest.mark.parametrize("depth,branching", [(1, 10), (2, 10), (2, 4), (3, 3)])
def test_course_alphabeta_values_its_best_moves_as_plain_negamax_does(depth, branching):
    r = np.random.default_rng(depth * 10 + branching)
    s = go.LittleGo().initial_state()
    for _ in range(8):
        moves = go.legal_actions(s)[:-1]
        s = go.play(s, int(r.choice(moves)))
        agent = CourseAlphaBetaAgent(go.LittleGo(), depth=depth, branching=branching, rng=rng())
        values = agent.action_values(s)
        children = ordered_children(s, branching)
        exact = {a: -_plain_negamax(child, depth - 1, branching) for a, child in children}
        best = max(exact.values())
        assert list(values) == list(exact) and max(values.values()) == best
        assert all(values[a] == v for a, v in exact.items() if v == best)
        assert all(values[a] >= v for a, v in exact.items())  # upper bounds elsewhere


@pytest.mark.parametrize("name", LADDER)
def test_ladder_agents_pass_when_no_placement_is_legal(name):
    s = go.from_ascii(NO_PLACEMENT, to_move=go.WHITE)
    assert go.legal_actions(s) == [go.pass_action(s)]
    agent = make_agent(name, "littlego", rng=rng())
    assert agent.act(s) == go.pass_action(s)


@pytest.mark.parametrize("name", LADDER)
def test_ladder_agents_play_whole_games_legally(name):
    agent = make_agent(name, "littlego", rng=rng(1))
    other = make_agent("random", "littlego", rng=rng(2))
    record = play_game(go.LittleGo(), agent, other)
    assert record.forfeit == "" and record.winner in (0, 1, 2)
    assert go.is_terminal(record.final_state) and record.final_state.end != go.END_ILLEGAL


@pytest.mark.parametrize("spec", ["greedy", "aggressive", "alphabeta", "alphabeta:depth=2",
                                  "alphabeta:depth=1,branching=5"])
def test_registry_specs_build_ladder_agents(spec):
    agent = make_agent(spec, "littlego", rng=rng())
    assert agent.act(go.LittleGo().initial_state()) in range(25)


def test_ladder_refuses_tictactoe_and_bad_parameters():
    with pytest.raises(ValueError):
        make_agent("greedy", "tictactoe")
    with pytest.raises(ValueError):
        GreedyAgent(tictactoe.TicTacToe())
    with pytest.raises(ValueError):
        make_agent("alphabeta:depth=0", "littlego")
    with pytest.raises(ValueError):
        make_agent("alphabeta:width=3", "littlego")


def _pair_scores_by_trial(state):
    """Aggressive's pair scores the slow way: play every first, then every second placement."""
    mover = state.to_move
    scores = {}
    for a in placements(state):
        after = go.play(state, a)._replace(to_move=mover, ko_armed=False, last_pass=False, end=None)
        scores[a] = max((go.play(after, b).captured for b in placements(after)), default=0)
    return scores


@pytest.mark.parametrize("n", [3, 4, 5])
def test_aggressive_pair_scores_equal_trying_every_second_placement(n):
    r = np.random.default_rng(n)
    agent = AggressiveAgent(go.LittleGo(), rng(0))
    checked = 0
    for _ in range(100):
        s = go.LittleGo(n).initial_state()
        while not go.is_terminal(s):
            assert agent.pair_scores(s) == _pair_scores_by_trial(s)
            checked += 1
            acts = go.legal_actions(s)
            s = go.play(s, acts[int(r.integers(len(acts)))])
    assert checked > 600
