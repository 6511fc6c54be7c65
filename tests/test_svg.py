"""States draw themselves as SVG (``_repr_svg_``, as Jupyter asks): board, coordinates, last move, status."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from tictacgo.games import LittleGo, TicTacToe
from tictacgo.games.svg import go_svg, state_svg

SVG = "{http://www.w3.org/2000/svg}"


def _parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == SVG + "svg"
    return root


def _marks(root: ET.Element) -> dict[str, list[int]]:
    """Point elements shown, by value: {"1": [points], "2": [...], "last": [...], "captured": [...]}."""
    out: dict[str, list[int]] = {}
    for el in root.iter():
        if "data-point" in el.attrib and el.attrib.get("visibility") != "hidden":
            out.setdefault(el.attrib["data-value"], []).append(int(el.attrib["data-point"]))
    return {k: sorted(v) for k, v in out.items()}


def _texts(root: ET.Element) -> list[str]:
    return [el.text for el in root.iter(SVG + "text")]


def test_a_go_state_draws_its_stones_coordinates_last_move_and_status():
    game = LittleGo()
    state = game.initial_state()
    for a in (12, 13, 7):  # Black C3, White D3, Black C4
        state = game.play(state, a)
    root = _parse(state._repr_svg_())
    assert _marks(root) == {"1": [7, 12], "2": [13], "last": [7]}
    texts = _texts(root)
    for label in "ABCDE12345":
        assert texts.count(label) == 2, label  # on both sides of the board
    assert "action 3/24, White (O) to move" in texts and "score X 2 : O 3.5" in texts


def test_a_pass_leaves_no_last_move_mark_and_a_captured_stone_is_ringed():
    game = LittleGo()
    state = game.initial_state()
    for a in (12, 25):
        state = game.play(state, a)
    assert "last" not in _marks(_parse(state._repr_svg_()))
    board = np.zeros((5, 5), np.int8)
    board[0, 1] = 2
    marks = _marks(_parse(go_svg(board, last=1, captured=[0])))
    assert marks == {"2": [1], "captured": [0], "last": [1]}


def test_a_tictactoe_state_draws_its_marks_and_cell_numbers():
    game = TicTacToe()
    state = game.initial_state()
    for a in (4, 0):
        state = game.play(state, a)
    root = _parse(state._repr_svg_())
    assert _marks(root) == {"1": [4], "2": [0], "last": [0]}
    texts = _texts(root)
    assert [str(k) for k in range(9)] == texts[:9] and "X to move" in texts
    assert state_svg(game, state) == state._repr_svg_()


def test_every_point_mode_writes_every_element_and_shows_only_the_position():
    board = np.zeros((5, 5), np.int8)
    board[2, 2] = 1
    root = _parse(go_svg(board, last=12, every_point=True))
    elements = [el for el in root.iter() if "data-point" in el.attrib]
    assert len(elements) == 25 * 4  # black, white, captured ring, last-move dot at every point
    assert _marks(root) == {"1": [12], "last": [12]}
