"""The observation formats (tictacgo.envs.observations): the player-relative board ("flat",
"board") is the default, and "planes" also carry the colour to move and, for Little-Go, the
actions left, which the value of a position depends on (komi 2.5, the 24-action limit)."""

from __future__ import annotations

from functools import reduce

import numpy as np
import pytest

from tictacgo.envs import observations
from tictacgo.envs.observations import observe
from tictacgo.games import littlego, tictactoe
from tictacgo.games.bits import signed_board, signed_board_and_flags, unpack_bits

TTT = tictactoe.TicTacToe()
GO = littlego.LittleGo()

PASS = littlego.pass_action(GO.initial_state())  # 25 on 5x5


def after(game, actions, start=None):
    """The state after ``actions`` from ``start`` (the game's initial state if None)."""
    return reduce(game.play, actions, game.initial_state() if start is None else start)


def plane(game, state, name, viewer=None) -> np.ndarray:
    """Channel ``name`` of the "planes" observation."""
    return observe(game, state, "planes", viewer)[game.spec.planes.index(name)]


# -- the declared planes --------------------------------------------------------------

def test_the_games_declare_their_planes_in_the_documented_order():
    assert TTT.spec.planes == ("own", "opponent", "legal", "to_move")
    assert GO.spec.planes == ("own", "opponent", "legal", "ko", "actions_left", "to_move")
    assert TTT.spec.num_planes == 4 and GO.spec.num_planes == 6
    for name in GO.spec.planes:
        assert f"``{name}``" in observations.__doc__


@pytest.mark.parametrize("game", [TTT, GO], ids=["tictactoe", "littlego"])
def test_planes_are_float32_channels_in_zero_one(game):
    state = after(game, [4, 0, 8])
    obs = observe(game, state, "planes")
    n = game.spec.board_shape[0]
    assert obs.dtype == np.float32 and obs.shape == (game.spec.num_planes, n, n)
    assert obs.min() >= 0.0 and obs.max() <= 1.0


# -- who is to move and how many actions are left --------------------------------------

def test_black_after_0_24_and_white_after_24_0_pass_share_the_board_but_not_the_planes():
    black_to_move = after(GO, [0, 24])
    white_to_move = after(GO, [24, 0, PASS])
    assert littlego.current_player(black_to_move) == 1 and littlego.current_player(white_to_move) == 2
    # The same player-relative board: own stone on 0, the opponent's on 24.
    for fmt in ("flat", "board"):
        np.testing.assert_array_equal(observe(GO, black_to_move, fmt),
                                      observe(GO, white_to_move, fmt))
    assert observe(GO, black_to_move, "flat")[[0, 24]].tolist() == [1, -1]
    # ... but not the same position: White gets komi, and one action fewer is left.
    b, w = observe(GO, black_to_move, "planes"), observe(GO, white_to_move, "planes")
    assert not np.array_equal(b, w)
    np.testing.assert_array_equal(b[:4], w[:4])  # own, opponent, legal, ko
    assert np.all(plane(GO, black_to_move, "to_move") == 1.0)
    assert np.all(plane(GO, white_to_move, "to_move") == 0.0)
    assert np.all(plane(GO, black_to_move, "actions_left") == np.float32(22 / 24))
    assert np.all(plane(GO, white_to_move, "actions_left") == np.float32(21 / 24))


@pytest.mark.parametrize("game,actions", [
    (TTT, []), (TTT, [4]), (TTT, [4, 0]), (TTT, [4, 0, 8, 2, 6]),
    (GO, []), (GO, [12]), (GO, [12, PASS]), (GO, [12, 13, 7])])

def test_to_move_plane_is_all_ones_for_the_first_player_and_zeros_for_the_second(game, actions):
    state = after(game, actions)
    first_to_move = game.current_player(state) == 1
    assert first_to_move == (len(actions) % 2 == 0)
    for viewer in (None, 1, 2):  # the colour to move, whichever side the planes are seen from
        to_move = plane(game, state, "to_move", viewer)
        assert to_move.dtype == np.float32
        np.testing.assert_array_equal(to_move, np.full(to_move.shape, 1.0 if first_to_move else 0.0))


def test_tic_tac_toe_planes_after_x_takes_the_centre():
    state = after(TTT, [4])  # X in the centre, O to move
    own, opponent, legal, to_move = observe(TTT, state, "planes")  # from O's side
    assert own.tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert opponent.tolist() == [[0, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert legal.tolist() == [[1, 1, 1], [1, 0, 1], [1, 1, 1]]
    assert to_move.tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    # From X's side the stones swap and the colour to move stays O.
    x_view = observe(TTT, state, "planes", viewer=1)
    assert x_view[0].tolist() == opponent.tolist() and not x_view[1].any()
    assert not x_view[3].any()
    # X to move again after O's reply: the to_move plane is all ones.
    assert np.all(plane(TTT, after(TTT, [4, 0]), "to_move") == 1.0)


def test_the_relative_board_of_x_to_move_after_centre_and_corner():
    rel = observations.relative_board(TTT, after(TTT, [4, 0]))  # X to move: its centre, O's corner
    assert rel.tolist() == [[-1, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert observations.relative_board(TTT, after(TTT, [4, 0]), viewer=2).tolist() == \
        [[1, 0, 0], [0, -1, 0], [0, 0, 0]]


@pytest.mark.parametrize("game", [TTT, GO, littlego.LittleGo(size=3)], ids=["tictactoe", "littlego", "go3"])
def test_the_relative_board_is_the_course_board_seen_from_the_viewer(game):
    rng = np.random.default_rng(0)
    state = game.initial_state()
    for _ in range(30):
        if game.is_terminal(state):
            state = game.initial_state()
        board = game.to_board(state)
        for viewer in (1, 2):
            rel = observations.relative_board(game, state, viewer)
            expected = np.where(board == viewer, 1, np.where(board == 3 - viewer, -1, 0))
            assert rel.dtype == np.int8 and rel.flags.writeable
            np.testing.assert_array_equal(rel, expected)
        np.testing.assert_array_equal(observations.relative_board(game, state),
                                      observations.relative_board(game, state, game.current_player(state)))
        state = game.play(state, int(rng.choice(game.legal_actions(state))))


def test_the_planes_start_from_the_player_relative_board():
    state = after(GO, [12, 13, 7])  # White to move
    for viewer in (1, 2):
        rel = observations.relative_board(GO, state, viewer)
        obs = observe(GO, state, "planes", viewer)
        np.testing.assert_array_equal(obs[0], rel == 1)
        np.testing.assert_array_equal(obs[1], rel == -1)
        np.testing.assert_array_equal(obs[2].ravel(), littlego.legal_mask(state)[:25])


def test_an_unknown_format_is_a_clear_error():
    with pytest.raises(ValueError, match=r"'rgb'.*flat.*board.*planes"):
        observe(TTT, TTT.initial_state(), "rgb")


# -- channels last -------------------------------------------------------------------

@pytest.mark.parametrize("game,actions", [(TTT, [4, 0]), (GO, [12, 13, 7])])
def test_planes_hwc_are_the_planes_with_channels_last(game, actions):
    state = after(game, actions)
    chw = observe(game, state, "planes")
    hwc = observe(game, state, "planes_hwc")
    n = game.spec.board_shape[0]
    assert hwc.shape == (n, n, game.spec.num_planes) and hwc.dtype == np.float32
    assert hwc.flags.c_contiguous
    np.testing.assert_array_equal(hwc, np.moveaxis(chw, 0, -1))
    assert observations.observation_space(game, "planes_hwc").contains(hwc)


@pytest.mark.parametrize("make", ["tictactoe", "littlego"])
def test_the_aec_envs_offer_planes_channels_last_and_pass_the_api_test(make):
    from pettingzoo.test import api_test

    from tictacgo.envs import littlego_v0, tictactoe_v0

    module = {"tictactoe": tictactoe_v0, "littlego": littlego_v0}[make]
    env = module.env(observation="planes_hwc")
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)["observation"]
    game = env.unwrapped.game
    n = game.spec.board_shape[0]
    assert obs.shape == (n, n, game.spec.num_planes)
    assert env.observation_space(agent)["observation"].shape == obs.shape
    np.testing.assert_array_equal(obs, np.moveaxis(observe(game, env.unwrapped.game_state, "planes"), 0, -1))
    api_test(module.env(observation="planes_hwc"), num_cycles=20)


@pytest.mark.parametrize("env_id", ["tictacgo/TicTacToe-v0", "tictacgo/LittleGo-v0"])
def test_the_gymnasium_envs_offer_planes_channels_last_and_pass_check_env(env_id):
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import tictacgo  # noqa: F401  (registers the envs)

    env = gym.make(env_id, observation="planes_hwc")
    obs, _ = env.reset(seed=0)
    game = env.unwrapped.game
    n = game.spec.board_shape[0]
    assert obs.shape == (n, n, game.spec.num_planes) == env.observation_space.shape
    obs, *_ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert env.observation_space.contains(obs)
    check_env(env.unwrapped, skip_render_check=True)

def test_a_board_and_its_mask_convert_in_one_buffer_as_they_do_apart():
    rng = np.random.default_rng(0)
    for _ in range(200):
        cells = rng.integers(0, 3, size=25)
        own = sum(1 << int(p) for p in np.flatnonzero(cells == 1))
        opp = sum(1 << int(p) for p in np.flatnonzero(cells == 2))
        legal = int(rng.integers(0, 1 << 26))
        buf = signed_board_and_flags(own, opp, 25, legal, 26)
        assert buf.dtype == np.int8 and buf.shape == (51,) and buf.flags.writeable
        np.testing.assert_array_equal(buf[:25], signed_board(own, opp, 25))
        np.testing.assert_array_equal(buf[25:], unpack_bits(legal, 26))
