"""States draw themselves as SVG (``_repr_svg_``, as Jupyter asks): board, coordinates clear of the stones,
last move, Tic-Tac-Toe's winning line, status."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tictacgo.games import LittleGo, TicTacToe
from tictacgo.games.svg import go_svg, state_svg, tictactoe_svg

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


def _label_boxes(root: ET.Element) -> list[tuple[str, float, float, float]]:
    """Each coordinate label as (text, x, y, half its side): a square of the font size around its
    centre holds the glyph, drawn centred on (x, y)."""
    return [(el.text, float(el.attrib["x"]), float(el.attrib["y"]), float(el.attrib["font-size"]) / 2)
            for el in root.iter(SVG + "text")]


@pytest.mark.parametrize("size", [5, 7, 9])
@pytest.mark.parametrize("cell", [40, 24])
def test_no_go_stone_reaches_a_coordinate_label(size, cell):
    board = np.zeros((size, size), np.int8)
    root = _parse(go_svg(board, every_point=True, cell=cell))  # every point's stones, hidden or not
    stones = [(float(el.attrib["cx"]), float(el.attrib["cy"]), float(el.attrib["r"]))
              for el in root.iter(SVG + "circle") if el.attrib.get("data-value") in ("1", "2")]
    assert len(stones) == 2 * size * size
    labels = _label_boxes(root)
    assert len(labels) == 4 * size
    for text, x, y, half in labels:
        for cx, cy, r in stones:
            # The distance from the stone's centre to the nearest point of the label's square.
            dx, dy = max(abs(cx - x) - half, 0.0), max(abs(cy - y) - half, 0.0)
            assert (dx * dx + dy * dy) ** 0.5 > r + 1, (text, x, y, cx, cy)


def _lines_shown(root: ET.Element) -> list[tuple[str, str]]:
    return [(el.attrib["data-points"], el.attrib["data-value"]) for el in root.iter()
            if "data-points" in el.attrib and el.attrib.get("visibility") != "hidden"]


def test_a_won_tictactoe_state_marks_its_winning_line_and_no_other_state_does():
    game = TicTacToe()
    state = game.initial_state()
    for a in (0, 1, 4, 2):  # X 0, O 1, X 4, O 2: X to move, no line yet
        state = game.play(state, a)
    assert _lines_shown(_parse(state._repr_svg_())) == []
    won = game.play(state, 8)
    assert game.winner(won) == 1
    assert _lines_shown(_parse(won._repr_svg_())) == [("0 4 8", "1")]
    drawn = game.initial_state()
    for a in (0, 1, 2, 4, 3, 5, 7, 6, 8):  # a full board with no line
        drawn = game.play(drawn, a)
    assert game.is_terminal(drawn) and game.winner(drawn) == 0
    assert _lines_shown(_parse(drawn._repr_svg_())) == []


def test_every_point_mode_writes_each_line_for_each_player_hidden_on_a_board_without_one():
    root = _parse(tictactoe_svg(np.zeros((3, 3), np.int8), every_point=True))
    lines = [(el.attrib["data-points"], el.attrib["data-value"], el.attrib.get("visibility"))
             for el in root.iter() if "data-points" in el.attrib]
    assert len(lines) == 8 * 2 and {v for _, _, v in lines} == {"hidden"}
    assert {p for p, _, _ in lines} == {"0 1 2", "3 4 5", "6 7 8", "0 3 6", "1 4 7", "2 5 8", "0 4 8",
                                        "2 4 6"}
