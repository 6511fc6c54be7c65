"""Rendering: ansi text, numpy-drawn RGB pictures and the optional pygame window."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tictacgo.envs import littlego_v0, rendering, tictactoe_v0
from tictacgo.games import littlego, tictactoe


def _play(env, actions):
    env.reset()
    for a in actions:
        env.step(a)
    return env


def _brightness(pixel) -> float:
    return float(np.mean(pixel))


@pytest.mark.parametrize("make, side", [
    (lambda: tictactoe_v0.env(render_mode="rgb_array"), 300),
    (lambda: tictactoe_v0.env(render_mode="rgb_array", render_cell=40), 120),
    (lambda: littlego_v0.env(render_mode="rgb_array"), 320 + 2 * 26),  # a band of coordinates around
    (lambda: littlego_v0.env(board_size=9, render_mode="rgb_array", render_cell=30), 270 + 2 * 13),
])
def test_rgb_array_shape_and_dtype(make, side):
    env = make()
    env.reset()
    img = env.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8
    assert img.shape == (side, side, 3)
    env.step(0)
    assert env.render().shape == (side, side, 3)


def test_go_stones_are_drawn_at_their_points():
    cell = rendering.DEFAULT_GO_CELL
    band = rendering.coordinate_band(cell)
    env = _play(littlego_v0.env(render_mode="rgb_array"), [12, 13])  # Black (2, 2), White (2, 3)
    img = env.render()

    def centre(i, j):
        return img[band + cell // 2 + i * cell, band + cell // 2 + j * cell]

    assert _brightness(centre(2, 2)) < 50          # black stone
    assert tuple(centre(2, 3)) == rendering.LAST_MOVE   # White's stone, the last move: a red dot
    assert _brightness(img[band + cell // 2 + 2 * cell, band + 3 * cell + cell // 4]) > 220  # white stone
    assert tuple(img[band + 3, band + 3]) == rendering.WOOD   # the board between lines
    assert _brightness(centre(0, 0)) < 100          # an empty point: grid lines cross there
    # The white stone has a darker outline at its rim.
    rim = img[band + cell // 2 + 2 * cell, band + 3 * cell + cell // 2 + int(cell * 0.47) - 1]
    assert _brightness(rim) < 200


def test_go_image_is_a_pure_function_of_the_board():
    board = np.zeros((5, 5), dtype=np.int8)
    empty = rendering.go_image(board)
    board[0, 0] = 1
    one = rendering.go_image(board)
    assert not np.array_equal(empty, one)
    np.testing.assert_array_equal(rendering.go_image(np.zeros((5, 5))), empty)  # no cached frame leaks


def test_tictactoe_marks_are_drawn():
    cell = rendering.DEFAULT_TTT_CELL
    env = _play(tictactoe_v0.env(render_mode="rgb_array"), [4, 0])  # X centre, O top-left
    img = env.render()
    c = cell // 2
    x_centre = img[cell + c, cell + c]
    assert tuple(x_centre) != rendering.PAPER and x_centre[0] > x_centre[2]   # X stroke (red)
    assert tuple(img[c, c]) == rendering.PAPER                                 # O: hollow ring
    ring = img[c, c + int(cell * 0.3)]
    assert ring[2] > ring[0]                                                   # ring stroke (blue)
    assert tuple(img[2 * cell + c, 2 * cell + c]) == rendering.PAPER           # an empty cell


def test_bad_cell_size_is_refused():
    with pytest.raises(ValueError, match="cell size"):
        rendering.go_image(np.zeros((5, 5)), cell=3)
    with pytest.raises(ValueError, match="cell size"):
        littlego_v0.env(render_mode="rgb_array", render_cell=2.5)


def test_ansi_shows_coordinates():
    env = _play(littlego_v0.env(render_mode="ansi"), [12])
    text = env.render()
    assert isinstance(text, str)
    assert "0 1 2 3 4" in text
    lines = text.splitlines()
    assert [line.split()[0] for line in lines[1:6]] == ["0", "1", "2", "3", "4"]
    assert "X" in lines[3]
    assert text == rendering.render_ansi(littlego.LittleGo(), env.unwrapped.game_state)

    env = _play(tictactoe_v0.env(render_mode="ansi"), [4])
    text = env.render()
    for cell in "01235678":
        assert cell in text
    assert "X" in text and text == tictactoe.render_ascii(env.unwrapped.game_state)


@pytest.mark.parametrize("mod", [tictactoe_v0, littlego_v0], ids=["tictactoe", "littlego"])
def test_human_mode_opens_and_closes_a_window(mod, monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    env = mod.env(render_mode="human", render_fps=0)
    env.reset()
    env.step(4)
    assert env.render() is None
    viewer = env.unwrapped._viewer
    assert viewer is not None and viewer.screen is not None
    frame = rendering.render_rgb(env.unwrapped.game, env.unwrapped.game_state)
    assert pygame.display.get_surface().get_size() == (frame.shape[1], frame.shape[0])
    env.close()
    assert env.unwrapped._viewer is None
    env.close()  # closing twice is harmless


def test_human_mode_without_pygame_says_how_to_install_it(monkeypatch):
    from gymnasium.error import DependencyNotInstalled

    monkeypatch.setitem(sys.modules, "pygame", None)  # makes `import pygame` fail
    with pytest.raises(DependencyNotInstalled, match=r"pip install tictacgo\[render\]"):
        littlego_v0.env(render_mode="human")


def _dark_pixels(img, rows, cols) -> int:
    return int((img[rows, cols].mean(axis=-1) < 100).sum())


def test_go_frames_carry_coordinates_that_the_plain_board_picture_leaves_out():
    cell = rendering.DEFAULT_GO_CELL
    band = rendering.coordinate_band(cell)
    env = littlego_v0.env(render_mode="rgb_array")
    env.reset()
    img = env.render()
    side = 5 * cell + 2 * band
    for k in range(5):  # a letter above every column, a number left of every row
        centre = band + cell // 2 + k * cell
        assert _dark_pixels(img, slice(0, band), slice(centre - band // 2, centre + band // 2)) > 5
        assert _dark_pixels(img, slice(centre - band // 2, centre + band // 2), slice(0, band)) > 5
        assert _dark_pixels(img, slice(side - band, side), slice(centre - band // 2, centre + band // 2)) > 5
    # Different letters are different pictures: A and E, 5 and 1.
    top = [img[:band, band + k * cell:band + (k + 1) * cell] for k in (0, 4)]
    assert not np.array_equal(top[0], top[1])
    plain = rendering.go_image(np.zeros((5, 5)))
    assert plain.shape == (5 * cell, 5 * cell, 3)
    np.testing.assert_array_equal(img[band:band + 5 * cell, band:band + 5 * cell], plain)


def test_the_last_move_is_marked_and_a_pass_leaves_no_mark():
    cell = rendering.DEFAULT_GO_CELL
    band = rendering.coordinate_band(cell)
    env = _play(littlego_v0.env(render_mode="rgb_array"), [12])
    img = env.render()
    red = np.all(img == rendering.LAST_MOVE, axis=-1)
    ys, xs = np.nonzero(red)
    assert red.any() and abs(ys.mean() - (band + cell // 2 + 2 * cell)) < 1.5
    assert abs(xs.mean() - (band + cell // 2 + 2 * cell)) < 1.5
    env.step(25)  # White passes: nothing to mark
    assert not np.all(env.render() == rendering.LAST_MOVE, axis=-1).any()


def test_tictactoe_frames_number_the_cells_and_mark_the_last_move():
    cell = rendering.DEFAULT_TTT_CELL
    env = _play(tictactoe_v0.env(render_mode="rgb_array"), [4])
    img = env.render()
    for k in range(9):
        i, j = divmod(k, 3)
        corner = img[i * cell:i * cell + cell // 4, j * cell:j * cell + cell // 4]
        assert (np.abs(corner.astype(int) - rendering.TTT_LABEL).sum(axis=-1) == 0).sum() > 5, k
    last = np.all(img == rendering.LAST_MOVE, axis=-1)
    ys, xs = np.nonzero(last)
    assert ys.min() > cell and ys.max() < 2 * cell and xs.min() > cell and xs.max() < 2 * cell
