"""Little-Go rules, position by position (docs/littlego.md).

Boards are ASCII: X Black, O White, . empty; row 0 on top. ``at(i, j)`` is
the action for row i, column j on the 5x5 board.
"""

import re

import numpy as np
import pytest

from tictacgo.games import littlego as go
from tictacgo.games.errors import GameOverError, IllegalActionError

PASS = 25


def at(i, j, n=5):
    return i * n + j


def board(state):
    sym = {0: ".", 1: "X", 2: "O"}
    return "\n".join("".join(sym[int(v)] for v in row) for row in go.to_board(state))


def clean(text):
    return "\n".join(line.strip() for line in text.strip().splitlines())


def play_all(state, *actions):
    for a in actions:
        state = go.play(state, a)
    return state


# --- captures ---------------------------------------------------------------

def test_single_stone_capture_removes_it():
    s = go.from_ascii("""
        .....
        ..X..
        .XO..
        ..X..
        .....""", to_move=go.BLACK)
    after = go.play(s, at(2, 3))
    assert after.captured == 1
    assert board(after) == clean("""
        .....
        ..X..
        .X.X.
        ..X..
        .....""")


def test_group_capture_removes_the_whole_group():
    s = go.from_ascii("""
        .OOX.
        XXX..
        .....
        .....
        .....""", to_move=go.BLACK)
    after = go.play(s, at(0, 0))
    assert after.captured == 2
    assert board(after).splitlines()[0] == "X..X."


def test_capture_of_two_groups_at_once():
    # Black at (0,1) takes the last liberty of White (0,0) and of White (0,2).
    s = go.from_ascii("""
        O.OX.
        XXX..
        .....
        .....
        .....""", to_move=go.BLACK)
    after = go.play(s, at(0, 1))
    assert after.captured == 2
    assert board(after).splitlines()[0] == ".X.X."


def test_capturing_stone_needs_no_liberty_until_the_capture():
    # Black at (0,0) has no liberty when placed; it captures O at (0,1),
    # which gives it one. Without the capture it would be suicide.
    s = go.from_ascii("""
        .OX..
        OX...
        X....
        .....
        .....""", to_move=go.BLACK)
    assert go.illegal_reason(s, at(0, 0)) is None
    after = go.play(s, at(0, 0))
    assert board(after).splitlines()[:2] == ["X.X..", ".X..."]
    assert after.captured == 2


def test_suicide_is_refused_and_leaves_the_state_untouched():
    s = go.from_ascii("""
        .X...
        X....
        .....
        .....
        .....""", to_move=go.WHITE)
    assert go.illegal_reason(s, at(0, 0)) == go.SUICIDE
    before = s
    with pytest.raises(IllegalActionError) as err:
        go.play(s, at(0, 0))
    assert err.value.reason == "suicide"
    assert s == before
    assert go.legal_mask(s)[at(0, 0)] == 0


def test_group_suicide_is_refused():
    # White filling its own group's last liberty without capturing.
    s = go.from_ascii("""
        O.X..
        XX...
        .....
        .....
        .....""", to_move=go.WHITE)
    assert go.illegal_reason(s, at(0, 1)) == go.SUICIDE


def test_the_movers_own_stones_are_never_removed():
    # White fills a liberty shared with its own stone; Black's stones lose none.
    s = go.from_ascii("""
        .X...
        XO...
        .X...
        .....
        .....""", to_move=go.WHITE)
    after = go.play(s, at(1, 2))
    assert after.captured == 0
    assert board(after).splitlines()[1] == "XOO.."


def test_boards_with_a_dead_group_are_refused():
    with pytest.raises(ValueError, match="without liberties"):
        go.from_ascii("""
            .X...
            XOX..
            .X...
            .....
            .....""", to_move=go.BLACK)


# --- ko ---------------------------------------------------------------------

KO_BEFORE = """
    .XO..
    XO.O.
    .XO..
    .....
    ....."""


def ko_after_black_captures():
    """Black captures at (1,2) taking White (1,1); White may not retake at (1,1)."""
    s = go.from_ascii(KO_BEFORE, to_move=go.BLACK, t=8)
    s = go.play(s, at(1, 2))
    assert s.captured == 1
    assert board(s) == clean("""
        .XO..
        X.XO.
        .XO..
        .....
        .....""")
    return s


def test_ko_recapture_is_illegal_right_after():
    s = ko_after_black_captures()
    assert go.illegal_reason(s, at(1, 1)) == go.KO
    assert go.legal_mask(s)[at(1, 1)] == 0
    with pytest.raises(IllegalActionError, match="ko"):
        go.play(s, at(1, 1))


def test_ko_recapture_is_allowed_one_move_later():
    s = ko_after_black_captures()
    s = play_all(s, at(4, 4), at(4, 0))  # White elsewhere, Black elsewhere
    assert go.illegal_reason(s, at(1, 1)) is None
    after = go.play(s, at(1, 1))
    assert after.captured == 1


def test_no_ko_after_a_pass():
    # White plays elsewhere, Black passes: the ko memory is gone, White may retake.
    s = ko_after_black_captures()
    s = play_all(s, at(4, 4), PASS)
    assert go.illegal_reason(s, at(1, 1)) is None
    assert go.play(s, at(1, 1)).captured == 1


def test_ko_needs_a_capture_on_the_last_move():
    # The same shape reached without a capture on the last move is no ko.
    s = go.from_ascii("""
        .XO..
        X.XO.
        .XO..
        .....
        .....""", to_move=go.WHITE)
    assert not s.ko_armed
    assert go.illegal_reason(s, at(1, 1)) is None


def test_edge_ko():
    s = go.from_ascii("""
        XO.O.
        .XO..
        .....
        .....
        .....""", to_move=go.BLACK, t=6)
    s = go.play(s, at(0, 2))  # captures White (0,1)
    assert s.captured == 1
    assert board(s).splitlines()[0] == "X.XO."
    assert go.illegal_reason(s, at(0, 1)) == go.KO


def test_corner_ko():
    s = go.from_ascii("""
        .XO..
        XO...
        .....
        .....
        .....""", to_move=go.WHITE, t=5)
    s = go.play(s, at(0, 0))  # White captures Black (0,1)
    assert s.captured == 1
    assert board(s).splitlines()[:2] == ["O.O..", "XO..."]
    assert go.illegal_reason(s, at(0, 1)) == go.KO


# --- passing and the end ----------------------------------------------------

def test_black_passing_on_the_first_action_ends_the_game_white_wins():
    s = go.play(go.LittleGo().initial_state(), PASS)
    assert go.is_terminal(s)
    assert s.end == go.END_PASS_ON_EMPTY_START
    assert go.scores(s) == (0.0, 2.5)
    assert go.winner(s) == go.WHITE
    assert go.returns(s) == (-1.0, 1.0)


def test_a_single_pass_after_a_placement_does_not_end_the_game():
    s = play_all(go.LittleGo().initial_state(), at(2, 2), PASS)
    assert not go.is_terminal(s)
    assert s.to_move == go.BLACK


def test_two_passes_in_a_row_end_the_game():
    s = play_all(go.LittleGo().initial_state(), at(2, 2), PASS, PASS)
    assert s.end == go.END_DOUBLE_PASS
    assert go.winner(s) == go.WHITE  # 1 : 0 + 2.5


def test_white_passing_first_then_black_passing_ends_it():
    s = play_all(go.LittleGo().initial_state(), at(0, 0), at(4, 4), at(1, 1), PASS, PASS)
    assert s.end == go.END_DOUBLE_PASS


def test_the_24_action_limit_counts_passes():
    # Black places, White passes: 11 pairs make 22 actions with 11 stones.
    s = go.LittleGo().initial_state()
    for k in range(11):
        s = play_all(s, (0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20)[k], PASS)
    assert s.t == 22 and not go.is_terminal(s)
    s = go.play(s, at(4, 4))
    assert s.t == 23 and not go.is_terminal(s)
    s = go.play(s, at(3, 0))  # White's 12th action, a placement
    assert s.t == 24 and s.end == go.END_MAX_ACTIONS
    assert go.legal_actions(s) == []


def test_the_24th_action_ends_by_the_limit_even_when_it_is_a_second_pass():
    # 22 actions played, the last a White placement; then Black and White pass.
    s = go.from_ascii("""
        XXO..
        XO...
        .....
        .....
        .....""", to_move=go.BLACK, t=22, previous="""
        XXO..
        X....
        .....
        .....
        .....""")
    s = go.play(s, PASS)
    assert s.t == 23 and not go.is_terminal(s)
    s = go.play(s, PASS)
    assert s.end == go.END_MAX_ACTIONS  # the host reports the limit, not the double pass


def test_scores_count_stones_and_komi_and_pick_the_winner():
    s = go.from_ascii("""
        XXXO.
        XXXO.
        XXOO.
        XO...
        X....""", to_move=go.BLACK, t=20)  # previous == board: White just passed
    s = go.play(s, PASS)
    assert s.end == go.END_DOUBLE_PASS
    assert go.scores(s) == (10.0, 5 + 2.5)
    assert go.winner(s) == go.BLACK


def test_integer_komi_can_draw():
    s = go.LittleGo(size=4, komi=0).initial_state()
    s = play_all(s, at(0, 0, 4), at(3, 3, 4), 16, 16)  # 16 is PASS on 4x4
    assert go.winner(s) == 0
    assert go.returns(s) == (0.0, 0.0)


def test_stepping_a_finished_game_raises():
    s = go.play(go.LittleGo().initial_state(), PASS)
    with pytest.raises(GameOverError):
        go.play(s, 0)


def test_forfeit_makes_the_mover_lose():
    s = go.forfeit(go.play(go.LittleGo().initial_state(), 12))
    assert s.end == go.END_ILLEGAL
    assert go.winner(s) == go.BLACK


# --- board sizes --------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8, 9])
def test_board_size_sets_actions_komi_and_limit(n):
    s = go.LittleGo(n).initial_state()
    assert go.num_actions(s) == n * n + 1
    assert s.game.komi == n / 2
    assert s.game.max_actions == n * n - 1
    assert go.legal_actions(s) == list(range(n * n + 1))


@pytest.mark.parametrize("bad", [1, 20, -5])
def test_bad_board_size_is_refused(bad):
    with pytest.raises(ValueError, match="board size"):
        go.LittleGo(bad).initial_state()


@pytest.mark.parametrize("komi", [float("nan"), float("inf"), -float("inf"), np.float64("nan")])
def test_a_komi_that_is_not_a_finite_number_is_refused(komi):
    with pytest.raises(ValueError, match=re.escape(f"komi must be a finite number, got {komi!r}")):
        go.LittleGo(5, komi=komi).initial_state()
    with pytest.raises(ValueError, match="komi must be a finite number"):
        go.LittleGo(5, komi)


def test_board_size_type_is_checked():
    with pytest.raises(TypeError, match="board size"):
        go.LittleGo(5.0).initial_state()


# --- bad actions --------------------------------------------------------------

@pytest.mark.parametrize("action,error", [
    (-1, ValueError), (26, ValueError), (100, ValueError),
    (3.0, TypeError), (None, TypeError), ("3", TypeError), (True, TypeError),
    ([3], TypeError), (np.float32(2), TypeError),
])
def test_bad_actions_get_a_clear_error_and_leave_the_state_alone(action, error):
    s = go.play(go.LittleGo().initial_state(), 12)
    with pytest.raises(error, match="action"):
        go.play(s, action)
    assert go.play(s, 13).t == 2


@pytest.mark.parametrize("action", [np.int64(7), np.int8(7), np.uint8(7), np.array(7)])
def test_numpy_integer_actions_are_accepted(action):
    s = go.play(go.LittleGo().initial_state(), action)
    assert go.to_board(s)[1, 2] == go.BLACK


def test_occupied_point_is_refused():
    s = go.play(go.LittleGo().initial_state(), 12)
    assert go.illegal_reason(s, 12) == go.OCCUPIED
    with pytest.raises(IllegalActionError, match="occupied"):
        go.play(s, 12)


# --- invariants under random play -----------------------------------------

def test_random_play_keeps_every_group_alive_and_the_mask_honest():
    rng = np.random.default_rng(0)
    for _ in range(200):
        s = go.LittleGo().initial_state()
        while not go.is_terminal(s):
            mask = go.legal_mask(s)
            assert mask[PASS] == 1 and mask.sum() >= 1
            for a in range(25):
                assert (go.illegal_reason(s, a) is None) == bool(mask[a])
            legal = np.flatnonzero(mask)
            s = go.play(s, int(rng.choice(legal)))
            b = go.to_board(s)
            # no group on the board is without liberties
            go.from_boards(b, s.to_move)
        assert go.legal_mask(s).sum() == 0


def test_play_never_mutates_its_argument():
    s = go.play(go.LittleGo().initial_state(), 12)
    copy = tuple(s)
    go.play(s, 13)
    assert tuple(s) == copy


# --- rebuilding a state from the course's two boards ------------------------

def test_from_boards_reads_the_ko_from_the_previous_board():
    s = ko_after_black_captures()
    rebuilt = go.from_boards(go.to_board(s), go.WHITE, go.previous_board(s), t=s.t)
    assert rebuilt.ko_armed
    assert go.illegal_reason(rebuilt, at(1, 1)) == go.KO


def test_from_boards_refuses_stones_that_vanish_without_a_capture():
    with pytest.raises(ValueError, match="not one opponent action away"):
        go.from_ascii("""
            .....
            .X...
            .....
            .....
            ....O""", to_move=go.WHITE, previous="""
            ....O
            .....
            .....
            .....
            ....O""")


def test_from_boards_refuses_two_new_stones():
    with pytest.raises(ValueError, match="not one opponent action away"):
        go.from_ascii("XX...\n.....\n.....\n.....\n.....", to_move=go.WHITE,
                      previous=".....\n.....\n.....\n.....\n.....")


def test_from_boards_refuses_a_move_count_that_gives_the_other_colour_the_move():
    with pytest.raises(ValueError, match="Black moves at even t"):
        go.from_ascii("X....\n.....\n.....\n.....\n.....", to_move=go.BLACK, t=1)


def test_from_boards_refuses_a_finished_move_count():
    with pytest.raises(ValueError, match=r"t must be an int in \[0, 23\]"):
        go.from_ascii(".....\n.....\n.....\n.....\n.....", to_move=go.BLACK, t=24)


def test_from_boards_default_move_count_fits_the_colour_to_move():
    one_stone = "X....\n.....\n.....\n.....\n....."
    assert go.from_ascii(one_stone, to_move=go.WHITE).t == 1
    assert go.from_ascii(one_stone, to_move=go.BLACK).t == 2  # so at least one pass happened


def test_a_state_repr_names_the_game_not_its_tables():
    s = go.play(go.LittleGo().initial_state(), 12)
    text = repr(s)
    assert "LittleGo(size=5, komi=2.5, max_actions=24)" in text
    assert "byte_tables" not in text and len(text) < 400
