"""Go vertices and the course's i,j name the same points (corners checked both ways)."""

import pytest

from tictacgo.protocol.coords import (
    action_to_course,
    action_to_vertex,
    course_to_action,
    vertex_to_action,
)

# (vertex, course i,j, action) for the four corners and the centre of 5x5.
CORNERS_5 = [("A5", "0,0", 0), ("E5", "0,4", 4), ("A1", "4,0", 20), ("E1", "4,4", 24), ("C3", "2,2", 12)]


@pytest.mark.parametrize("vertex, course, action", CORNERS_5)
def test_corners_map_between_go_letters_course_and_actions_both_ways(vertex, course, action):
    assert vertex_to_action(vertex, 5) == action
    assert vertex_to_action(vertex.lower(), 5) == action
    assert action_to_vertex(action, 5) == vertex
    assert course_to_action(course, 5) == action
    assert action_to_course(action, 5) == course


def test_go_letters_skip_i_so_j_is_the_ninth_column():
    assert vertex_to_action("J19", 19) == 8
    assert vertex_to_action("T1", 19) == 18 * 19 + 18
    assert action_to_vertex(8, 19) == "J19"
    with pytest.raises(ValueError, match="off the 19x19 board"):
        vertex_to_action("I5", 19)


def test_every_action_round_trips_through_its_vertex_on_several_sizes():
    for n in (2, 5, 9, 19):
        for a in range(n * n + 1):
            assert vertex_to_action(action_to_vertex(a, n), n) == a


def test_pass_is_the_action_after_the_points():
    assert vertex_to_action("PASS", 5) == 25
    assert action_to_vertex(25, 5) == "pass"
    assert action_to_course(25, 5) == "PASS"


@pytest.mark.parametrize("bad", ["F1", "A6", "A0", "zz", "", "C", "3C"])
def test_malformed_or_off_board_vertices_are_refused_with_the_text(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("(", r"\(")):
        vertex_to_action(bad, 5)


@pytest.mark.parametrize("bad", ["5,0", "0,-1", "a,b", "1", "1,2,3"])
def test_malformed_or_off_board_course_moves_are_refused(bad):
    with pytest.raises(ValueError, match="course move|off the 5x5 board"):
        course_to_action(bad, 5)


def test_course_moves_accept_spaces():
    assert course_to_action(" 4 , 0 ", 5) == 20
    assert course_to_action("1 2", 3) == 5
