"""The course's Little-Go opponent ladder: greedy, aggressive, alpha-beta.

Positions are ASCII boards (X Black, O White, . empty; row 0 on top).
The greedy and aggressive agents are checked against the course TA's own
players, written below as small reference functions on the course host's
board (``HostBoard``), and against the moves the course's players made in
real grading games (``tests/data/course_ta_games.json``).
"""

import copy
import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from tictacgo.arena import play_game
from tictacgo.baselines import make_agent
from tictacgo.baselines.course_ladder import (
    AggressiveAgent,
    CourseAlphaBetaAgent,
    GreedyAgent,
    capture_counts,
    course_centre_distance,
    leaf_value,
    ordered_children,
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

# One White stone with liberties (0,3) and (1,2): the pair of both captures 1
# stone, and the course's player credits it to its first point in row-major
# order, (0,3), though (1,2) is nearer the centre.
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
    assert agent.pair_credits(s) == ({at(0, 2): 1}, 2)  # the pair (0,2) then (1,0); (4,4)'s pairs take 1
    assert agent.act(s) == at(0, 2)


@pytest.mark.parametrize("seed", range(3))
def test_aggressive_credits_a_pair_to_its_first_point_only(seed):
    s = go.from_ascii(SET_UP_TIE, to_move=go.BLACK)
    assert course_centre_distance(at(1, 2), 5) < course_centre_distance(at(0, 3), 5)
    assert AggressiveAgent(go.LittleGo(), rng(seed)).choices(s) == [at(0, 3)]


def test_aggressive_on_the_empty_board_plays_the_centre():
    assert AggressiveAgent(go.LittleGo(), rng()).act(go.LittleGo().initial_state()) == at(2, 2)


def test_aggressive_weights_a_point_by_the_pairs_crediting_it():
    # No capture anywhere: every legal pair ties at 0 and credits its first point, so the four
    # points next to the (taken) centre are credited once per legal point after them.
    s = go.from_ascii("""
        .....
        .....
        ..X..
        .....
        .....""", to_move=go.WHITE)
    counts = Counter(AggressiveAgent(go.LittleGo(), rng()).choices(s))
    assert counts == {at(1, 2): 16, at(2, 1): 12, at(2, 3): 11, at(3, 2): 7}


def test_course_centre_is_the_middle_of_an_even_board():
    assert [course_centre_distance(a, 4) for a in (0, 5, 6, 9, 10, 15)] == [6, 2, 2, 2, 2, 6]


# --- the course TA's own players, as reference -----------------------------------------------------
# The course's greedy and aggressive players are shipped to students compiled; their source
# is public in students' repositories (docs/littlego.md, "The course's opponents", links them).
# What follows restates their rules on the parts of the course host's GO class they call
# (host.py: valid_place_check, place_chess, find_died_pieces, copy_board), not on tictacgo's
# rules core, so that the comparison checks tictacgo's rules as well.


class HostBoard:
    """The course host's board as the TA's players see it: lists of rows, the previous board,
    and the mover's stones the opponent's last action captured (``died_pieces``, for the ko)."""

    def __init__(self, piece, previous, board):
        self.size = len(board)
        self.board = [list(r) for r in board]
        self.previous_board = [list(r) for r in previous]
        self.died_pieces = [(i, j) for i in range(self.size) for j in range(self.size)
                            if previous[i][j] == piece and board[i][j] != piece]

    def copy_board(self):
        return copy.deepcopy(self)

    def _neighbours(self, i, j):
        return [(a, b) for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1))
                if 0 <= a < self.size and 0 <= b < self.size]

    def _group(self, i, j):
        seen, stack = {(i, j)}, [(i, j)]
        while stack:
            for q in self._neighbours(*stack.pop()):
                if q not in seen and self.board[q[0]][q[1]] == self.board[i][j]:
                    seen.add(q)
                    stack.append(q)
        return seen

    def find_liberty(self, i, j):
        return any(self.board[a][b] == 0 for p in self._group(i, j) for a, b in self._neighbours(*p))

    def find_died_pieces(self, piece):
        return [(i, j) for i in range(self.size) for j in range(self.size)
                if self.board[i][j] == piece and not self.find_liberty(i, j)]

    def remove_died_pieces(self, piece):
        dead = self.find_died_pieces(piece)
        for i, j in dead:
            self.board[i][j] = 0
        return dead

    def valid_place_check(self, i, j, piece):
        if not (0 <= i < self.size and 0 <= j < self.size) or self.board[i][j] != 0:
            return False
        test = self.copy_board()
        test.board[i][j] = piece
        if test.find_liberty(i, j):
            return True
        test.remove_died_pieces(3 - piece)
        if not test.find_liberty(i, j):
            return False
        return not (self.died_pieces and self.previous_board == test.board)  # the ko

    def place_chess(self, i, j, piece):
        """Place a stone if legal; the dead are left on the board (the host removes them later)."""
        if not self.valid_place_check(i, j, piece):
            return False
        self.previous_board = copy.deepcopy(self.board)
        self.board[i][j] = piece
        return True


def course_greedy_search(go_board, piece):
    """The course TA's greedy player's list to draw from (its greedy_search): the legal placements,
    row by row, that leave the most opponent stones dead; the player plays random.choice of it."""
    largest, placements = 0, []
    for i in range(go_board.size):
        for j in range(go_board.size):
            if go_board.valid_place_check(i, j, piece):
                test = go_board.copy_board()
                test.place_chess(i, j, piece)
                died = len(test.find_died_pieces(3 - piece))
                if died == largest:
                    placements.append((i, j))
                elif died > largest:
                    largest, placements = died, [(i, j)]
    return largest, placements


def course_aggressive_list(go_board, piece):
    """The course TA's aggressive player's list to draw from (its get_input); it plays random.choice
    of it, so a point listed twice is twice as likely."""
    kill, greedy = course_greedy_search(go_board, piece)
    if kill > 0:
        return greedy
    possible = [(i, j) for i in range(go_board.size) for j in range(go_board.size)
                if go_board.valid_place_check(i, j, piece)]
    if len(possible) == 1:
        return greedy
    largest, firsts = 0, []
    for movements in combinations(possible, 2):  # unordered pairs, in row-major order
        test = go_board.copy_board()
        ok = all(test.place_chess(i, j, piece) for i, j in movements)
        kill = len(test.find_died_pieces(3 - piece)) if ok else -1
        if kill == largest:
            firsts.append(movements[0])
        elif kill > largest:
            largest, firsts = kill, [movements[0]]
    if not firsts:
        return possible
    c = (go_board.size - 1) / 2  # get_center_move: nearest the centre, Manhattan distance
    near = min(abs(i - c) + abs(j - c) for i, j in firsts)
    return [m for m in firsts if abs(m[0] - c) + abs(m[1] - c) == near]


def _host_view(state):
    return HostBoard(state.to_move, go.previous_board(state).tolist(), go.to_board(state).tolist())


def _random_positions(n, games, seed):
    """Positions of random games (passes, captures and kos included) with a placement to make."""
    r = np.random.default_rng(seed)
    for _ in range(games):
        s = go.LittleGo(n).initial_state()
        while not go.is_terminal(s):
            if go.legal_actions(s) != [go.pass_action(s)]:
                yield s
            acts = go.legal_actions(s)
            s = go.play(s, acts[int(r.integers(len(acts)))])


@pytest.mark.parametrize("n,games", [(3, 40), (4, 15), (5, 6)])
def test_greedy_chooses_among_the_course_players_moves(n, games):
    agent = GreedyAgent(go.LittleGo(n), rng())
    checked = 0
    for s in _random_positions(n, games, seed=n):
        _, expected = course_greedy_search(_host_view(s), s.to_move)
        assert agent.best_captures(s)[0] == [i * n + j for i, j in expected], go.render_ascii(s)
        checked += 1
    assert checked > 90


@pytest.mark.parametrize("n,games", [(3, 40), (4, 15), (5, 6)])
def test_aggressive_draws_as_the_course_player_does(n, games):
    """Same moves, each as often: the lists the two draw from are equal as multisets."""
    agent = AggressiveAgent(go.LittleGo(n), rng())
    checked = 0
    for s in _random_positions(n, games, seed=10 + n):
        expected = Counter(i * n + j for i, j in course_aggressive_list(_host_view(s), s.to_move))
        assert Counter(agent.choices(s)) == expected, go.render_ascii(s)
        checked += 1
    assert checked > 90


def _course_games(opponent):
    data = json.loads((Path(__file__).parent / "data" / "course_ta_games.json").read_text())
    return [g for g in data["games"] if g["opponent"] == opponent]


@pytest.mark.parametrize("opponent", ["greedy", "aggressive"])
def test_every_move_of_the_course_players_in_real_games_is_one_tictacgo_would_choose(opponent):
    """20 grading games of the course's own player (its every move, 240 in all) replayed on
    tictacgo's rules: each of its moves is among those tictacgo's agent draws from, each board
    is legal, and the game ends with the host's winner. The earlier aggressive agent (credit to
    both points of a pair, nearest the centre) drew from the course's move in 170 of the 240."""
    agent = make_agent(opponent, "littlego", rng=rng())
    draw = agent.choices if opponent == "aggressive" else (lambda s: agent.best_captures(s)[0])
    checked = 0
    for g in _course_games(opponent):
        s = go.LittleGo().initial_state()
        for move in g["moves"].split():
            a = go.pass_action(s) if move == "PASS" else int(move[0]) * 5 + int(move[2])
            if s.to_move == g["course_colour"] and move != "PASS":
                assert a in draw(s), (move, go.render_ascii(s))
                checked += 1
            s = go.play(s, a)
        assert go.is_terminal(s) and go.winner(s) == g["winner"]
    assert checked == 240


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
