"""The PettingZoo AEC envs tictactoe_v0 and littlego_v0."""

from __future__ import annotations

import functools
import re
import warnings

import numpy as np
import pytest

from tictacgo.envs import littlego_v0, tictactoe_v0
from tictacgo.envs.observations import FORMATS, observe, relative_board
from tictacgo.games import GameOverError, littlego, tictactoe

with warnings.catch_warnings():
    # pettingzoo.test imports PettingZoo's own classic envs through a deprecated path.
    warnings.filterwarnings("ignore", "The old environment creation API", DeprecationWarning)
    from pettingzoo.test import api_test, render_test, seed_test

MODULES = [tictactoe_v0, littlego_v0]
IDS = ["tictactoe", "littlego"]

# api_test's heuristics that the specified observation necessarily trips (the
# spec: a dict with an action mask, and a signed, player-relative (n, n) board).
# PettingZoo exempts its own classic envs from the first two by name only.
EXPECTED_API_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    "Observation numpy array is all zeros.",  # the empty board at the start
    "The observation contains negative numbers and is in the shape of a graphical observation. "
    "This might be a bad thing.",
}


def _random_game(env, rng: np.random.Generator, check=None) -> list[int]:
    """Play one random masked game to the end (dead steps included); the actions played."""
    actions = []
    for agent in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if check is not None:
            check(env, agent, obs)
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(a)
        env.step(a)
    return actions


def _board(env) -> np.ndarray:
    return env.unwrapped.state().copy()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_api_test_passes_with_only_the_expected_heuristic_warnings(mod, fmt):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(mod.env(observation=fmt), num_cycles=300)
    messages = {str(w.message) for w in caught}
    assert messages <= EXPECTED_API_WARNINGS, messages - EXPECTED_API_WARNINGS


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_seed_test_passes_without_warnings(mod):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(mod.env, num_cycles=100)


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_render_test_passes(mod, monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    render_test(functools.partial(mod.env, render_fps=0))


def test_metadata_agents_and_spaces():
    ttt = tictactoe_v0.env()
    assert ttt.metadata["name"] == "tictactoe_v0"
    assert ttt.possible_agents == ["player_1", "player_2"]
    go = littlego_v0.env()
    assert go.metadata["name"] == "littlego_v0"
    assert go.possible_agents == ["black_0", "white_0"]
    for env, n, num_actions in ((ttt, 3, 9), (go, 5, 26)):
        assert env.metadata["is_parallelizable"] is False
        assert env.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
        assert env.metadata["render_fps"] > 0
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            assert space["observation"].shape == (n, n) and space["observation"].dtype == np.int8
            assert space["observation"].low.min() == -1 and space["observation"].high.max() == 1
            assert space["action_mask"].shape == (num_actions,) and space["action_mask"].dtype == np.int8
            assert env.action_space(agent).n == num_actions


# -- observation formats: the Gymnasium envs' choices, "board" by default -----------------

SPACES = {  # (module, format) -> (shape, dtype, low, high) of the "observation" entry
    (tictactoe_v0, "board"): ((3, 3), np.int8, -1, 1),
    (tictactoe_v0, "flat"): ((9,), np.int8, -1, 1),
    (tictactoe_v0, "planes"): ((4, 3, 3), np.float32, 0, 1),
    (littlego_v0, "board"): ((5, 5), np.int8, -1, 1),
    (littlego_v0, "flat"): ((25,), np.int8, -1, 1),
    (littlego_v0, "planes"): ((6, 5, 5), np.float32, 0, 1),
    (tictactoe_v0, "planes_hwc"): ((3, 3, 4), np.float32, 0, 1),
    (littlego_v0, "planes_hwc"): ((5, 5, 6), np.float32, 0, 1),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_each_observation_format_has_its_space_and_keeps_the_action_mask(mod, fmt):
    shape, dtype, low, high = SPACES[mod, fmt]
    env = mod.env(observation=fmt)
    env.reset(seed=0)
    assert env.unwrapped.observation_format == fmt
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert set(space.spaces) == {"observation", "action_mask"}
        box = space["observation"]
        assert (box.shape, box.dtype) == (shape, dtype)
        assert box.low.min() == low and box.high.max() == high
        assert space["action_mask"].shape == (env.action_space(agent).n,)
        obs = env.observe(agent)
        assert obs["observation"].shape == shape and obs["observation"].dtype == dtype
        assert obs in space


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_the_default_observation_is_the_board(mod):
    env = mod.env()
    assert env.unwrapped.observation_format == "board"
    assert env.observation_space(env.possible_agents[0])["observation"] == \
        mod.env(observation="board").observation_space(env.possible_agents[0])["observation"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mod", MODULES, ids=IDS)
@pytest.mark.parametrize("seed", range(3))
def test_observations_are_the_shared_format_from_the_observed_agents_side(mod, fmt, seed):
    game = mod.raw_env().game

    def check(env, agent, obs):
        state = env.unwrapped.game_state
        for colour, name in enumerate(env.possible_agents, start=1):
            seen = obs if name == agent else env.observe(name)
            expected = observe(game, state, fmt, viewer=colour)
            assert seen["observation"].dtype == expected.dtype
            np.testing.assert_array_equal(seen["observation"], expected)
        np.testing.assert_array_equal(obs["action_mask"], game.legal_mask(state))

    env = mod.env(observation=fmt)
    env.reset(seed=seed)
    _random_game(env, np.random.default_rng(seed), check)
    final = env.unwrapped.game_state  # the finished game is observed the same way
    for colour, name in enumerate(env.possible_agents, start=1):
        np.testing.assert_array_equal(env.unwrapped.observe(name)["observation"],
                                      observe(game, final, fmt, viewer=colour))


def test_littlego_planes_tell_who_is_to_move_where_the_board_cannot():
    # Black to move after [0, 24] and White to move after [24, 0, PASS]: the same board
    # from the mover's side, but komi goes to White and one action fewer is left.
    obs = {}
    for fmt in FORMATS:
        for actions in ([0, 24], [24, 0, 25]):
            env = littlego_v0.env(observation=fmt)
            env.reset()
            for a in actions:
                env.step(a)
            mover = env.agent_selection
            obs[fmt, len(actions)] = (mover, env.last()[0]["observation"])
    assert obs["board", 2][0] == "black_0" and obs["board", 3][0] == "white_0"
    for fmt in ("board", "flat"):
        np.testing.assert_array_equal(obs[fmt, 2][1], obs[fmt, 3][1])
    black, white = obs["planes", 2][1], obs["planes", 3][1]
    assert not np.array_equal(black, white)
    assert np.all(black[5] == 1.0) and np.all(white[5] == 0.0)  # to_move


def test_tictactoe_planes_mark_the_colour_to_move_for_both_agents():
    env = tictactoe_v0.env(observation="planes")
    env.reset()
    env.step(4)  # X in the centre; O to move
    o_view, x_view = env.observe("player_2")["observation"], env.observe("player_1")["observation"]
    assert o_view[1, 1, 1] == 1.0 and x_view[0, 1, 1] == 1.0  # own/opponent from each side
    assert not o_view[3].any() and not x_view[3].any()  # O to move: to_move all zeros
    env.step(0)
    assert env.observe("player_1")["observation"][3].all()  # X to move: all ones


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
@pytest.mark.parametrize("bad", ["rgb", "Board", "", None, 3])
def test_an_unknown_observation_format_is_a_clear_error(mod, bad):
    with pytest.raises(ValueError, match=rf"observation must be one of .*'flat', 'board', 'planes'.*"
                                         rf"got {re.escape(repr(bad))}"):
        mod.env(observation=bad)


def test_littlego_board_size_komi_and_max_actions_are_passed_to_the_rules():
    env = littlego_v0.env(board_size=7, komi=3, max_actions=10)
    env.reset()
    state = env.unwrapped.game_state
    assert state.game.size == 7 and state.game.komi == 3.0 and state.game.max_actions == 10
    obs, *_ = env.last()
    assert obs["observation"].shape == (7, 7) and obs["action_mask"].shape == (50,)
    assert env.action_space("black_0").n == 50
    with pytest.raises(ValueError, match="board size"):
        littlego_v0.env(board_size=1)


def test_unknown_render_mode_is_refused():
    with pytest.raises(ValueError, match="render_mode"):
        tictactoe_v0.env(render_mode="rgb")


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_observation_flips_sign_between_the_two_views(mod):
    env = mod.env()
    env.reset(seed=0)
    rng = np.random.default_rng(3)
    for _ in range(4):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    a, b = env.possible_agents
    oa, ob = env.observe(a)["observation"], env.observe(b)["observation"]
    assert oa.any()
    np.testing.assert_array_equal(oa, -ob)
    state = env.unwrapped.game_state
    np.testing.assert_array_equal(oa, relative_board(env.unwrapped.game, state, viewer=1))


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
@pytest.mark.parametrize("seed", range(6))
def test_mask_is_the_legal_set_and_never_empty_on_a_live_turn(mod, seed):
    game = mod.raw_env().game

    def check(env, agent, obs):
        state = env.unwrapped.game_state
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        np.testing.assert_array_equal(mask, game.legal_mask(state))
        for a in np.flatnonzero(mask):
            assert game.illegal_reason(state, int(a)) is None
        other = env.possible_agents[1 - env.possible_agents.index(agent)]
        assert not env.observe(other)["action_mask"].any()
        colour = env.possible_agents.index(agent) + 1
        np.testing.assert_array_equal(obs["observation"], relative_board(game, state, viewer=colour))

    env = mod.env()
    env.reset(seed=seed)
    _random_game(env, np.random.default_rng(seed), check)
    assert env.agents == []


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_observations_are_fresh_arrays(mod, fmt):
    env = mod.env(observation=fmt)
    env.reset()
    obs1, *_ = env.last()
    obs1["observation"].flat[0] = 1  # (0, 0) of the board, or of the "own" plane
    obs1["action_mask"][:] = 0
    obs2, *_ = env.last()
    assert obs2["observation"].flat[0] == 0 and obs2["action_mask"].all()
    assert mod.env(observation=fmt).unwrapped.observe(env.possible_agents[0])["observation"].flat[0] == 0


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_twin_same_seed_rollouts_are_identical(mod):
    games = []
    for _ in range(2):
        env = mod.env()
        env.reset(seed=11)
        trace = []
        for _game in range(5):
            env.reset()
            rng = env.unwrapped.np_random
            for agent in env.agent_iter():
                obs, reward, term, trunc, info = env.last()
                trace.append((agent, obs["observation"].tobytes(), reward, term, info.get("reason")))
                if term or trunc:
                    env.step(None)
                else:
                    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        games.append(trace)
    assert games[0] == games[1]
    assert len(games[0]) > 20


def test_reset_seed_seeds_np_random():
    env = tictactoe_v0.env()
    env.reset(seed=5)
    a = env.unwrapped.np_random.integers(1 << 30, size=4)
    env.reset(seed=5)
    b = env.unwrapped.np_random.integers(1 << 30, size=4)
    np.testing.assert_array_equal(a, b)
    assert env.unwrapped.np_random_seed == 5


def test_tictactoe_win_gives_rewards_and_infos():
    env = tictactoe_v0.env()
    env.reset()
    for a in (0, 3, 1, 4, 2):  # X completes the top row
        env.step(a)
    assert env.terminations == {"player_1": True, "player_2": True}
    assert env.rewards == {"player_1": 1.0, "player_2": -1.0}
    for agent in env.possible_agents:
        assert env.infos[agent] == {"winner": "player_1", "reason": "win", "illegal_action": -1,
                                    "illegal_reason": "", "t": 5}
    # The loser is selected first, then the dead-step protocol removes both.
    assert env.agent_selection == "player_2"
    _obs, reward, term, _trunc, _info = env.last()
    assert reward == -1.0 and term
    env.step(None)
    _obs, reward, term, _trunc, _info = env.last()
    assert env.agent_selection == "player_1" and reward == 1.0 and term
    env.step(None)
    assert env.agents == []


def test_tictactoe_draw():
    env = tictactoe_v0.env()
    env.reset()
    for a in (0, 1, 2, 4, 3, 5, 7, 6, 8):
        env.step(a)
    assert all(env.terminations.values())
    assert env.rewards == {"player_1": 0.0, "player_2": 0.0}
    assert env.infos["player_1"] == {"winner": "draw", "reason": "draw", "illegal_action": -1,
                                     "illegal_reason": "", "t": 9}


@pytest.mark.parametrize("mod, opening, occupied", [(tictactoe_v0, [4], 4), (littlego_v0, [12, 6], 12)],
                         ids=IDS)
def test_illegal_action_on_an_occupied_point_loses(mod, opening, occupied):
    env = mod.env()
    env.reset()
    for a in opening:
        env.step(a)
    mover = env.agent_selection
    other = env.possible_agents[1 - env.possible_agents.index(mover)]
    before = _board(env)
    env.step(occupied)
    assert env.terminations == {mover: True, other: True}
    assert env.rewards == {mover: -1.0, other: 1.0}
    info = env.infos[mover]
    assert info["reason"] == "illegal" and info["winner"] == other
    assert info["illegal_action"] == occupied and info["illegal_reason"] == "occupied"
    np.testing.assert_array_equal(_board(env), before)
    # Rewards from last() for each agent as the dead steps go by.
    seen = {}
    for agent in env.agent_iter():
        _obs, reward, term, _trunc, _info = env.last()
        assert term
        seen[agent] = reward
        env.step(None)
    assert seen == {mover: -1.0, other: 1.0}


ONE_PAST_THE_END = object()
BAD_ACTIONS = [
    (ONE_PAST_THE_END, ValueError), (-1, ValueError), (10**20, ValueError),
    (1.0, TypeError), (2.5, TypeError), (None, TypeError), ("3", TypeError), (True, TypeError),
    (np.float64(1.0), TypeError), (np.array([1]), TypeError),
]


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
@pytest.mark.parametrize("action, error", BAD_ACTIONS,
                         ids=["num_actions" if a is ONE_PAST_THE_END else repr(a) for a, _ in BAD_ACTIONS])
def test_malformed_action_raises_and_leaves_the_game_intact(mod, action, error):
    env = mod.env()
    env.reset()
    num_actions = int(env.action_space(env.agent_selection).n)
    if action is ONE_PAST_THE_END:
        action = num_actions
    env.step(4)
    state = env.unwrapped.game_state
    agent = env.agent_selection
    before = _board(env)
    with pytest.raises(error) as excinfo:
        env.step(action)
    message = str(excinfo.value)
    assert f"[0, {num_actions - 1}]" in message
    assert (repr(action) in message) or (str(action) in message)
    assert env.unwrapped.game_state is state and env.agent_selection == agent
    np.testing.assert_array_equal(_board(env), before)
    assert not any(env.terminations.values()) and env.rewards[agent] == 0
    env.step(0)  # the game goes on
    assert _board(env)[0, 0] != 0


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
@pytest.mark.parametrize("make", [np.int64, np.int32, np.uint8, np.intp, np.array],
                         ids=["int64", "int32", "uint8", "intp", "0d-array"])
def test_numpy_integer_actions_are_accepted(mod, make):
    env = mod.env()
    env.reset()
    env.step(make(4))
    board = _board(env)
    assert board.ravel()[4] == 1
    assert env.agent_selection == env.possible_agents[1]


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_stepping_a_finished_game_raises(mod):
    env = mod.env()
    env.reset()
    env.step(4)
    env.step(4)  # occupied: the game is over
    with pytest.raises(GameOverError, match="over"):
        env.step(0)
    env.step(None)
    with pytest.raises(GameOverError, match="over"):
        env.step(1)
    env.step(None)
    assert env.agents == []
    with pytest.raises(GameOverError, match="reset"):
        env.step(2)
    raw = mod.raw_env()
    raw.reset()
    raw.step(4)
    raw.step(4)
    raw.step(None)
    raw.step(None)
    with pytest.raises(GameOverError, match="reset"):
        raw.step(0)
    env.reset()  # and a new game starts cleanly
    assert env.agents == env.possible_agents and env.last()[1] == 0


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_last_after_every_agent_left_is_a_clear_error_not_a_key_error(mod, wrapped):
    env = mod.env() if wrapped else mod.raw_env()
    env.reset()
    env.step(4)
    env.step(4)  # occupied: the game is over
    env.step(None)
    env.step(None)
    assert env.agents == []
    with pytest.raises(GameOverError, match="every agent has left it; call reset"):
        env.last()
    with pytest.raises(GameOverError, match="reset"):
        env.last(observe=False)
    env.reset()
    assert env.last()[2] is False


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_step_before_reset_is_refused(mod):
    env = mod.env()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AttributeError, match="reset"):
        _ = env.agent_selection


def test_littlego_black_pass_first_ends_the_game_with_white_winning():
    env = littlego_v0.env()
    env.reset()
    env.step(25)
    assert env.terminations == {"black_0": True, "white_0": True}
    assert env.rewards == {"black_0": -1.0, "white_0": 1.0}
    info = env.infos["black_0"]
    assert info == {"winner": "white_0", "reason": "pass_on_empty_start", "illegal_action": -1,
                    "illegal_reason": "", "t": 1, "scores": {"black_0": 0.0, "white_0": 2.5}}


def test_littlego_double_pass_and_scores():
    env = littlego_v0.env()
    env.reset()
    for a in (12, 25, 25):
        env.step(a)
    assert all(env.terminations.values())
    info = env.infos["white_0"]
    assert info["reason"] == "double_pass"
    assert info["scores"] == {"black_0": 1.0, "white_0": 2.5}
    assert info["winner"] == "white_0"
    assert env.rewards == {"black_0": -1.0, "white_0": 1.0}


@pytest.mark.parametrize("seed", range(4))
def test_littlego_random_games_end_with_scores_and_winner(seed):
    env = littlego_v0.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = None
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final = dict(info)
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert final is not None
    b, w = final["scores"]["black_0"], final["scores"]["white_0"]
    assert final["winner"] == ("black_0" if b > w else "white_0")
    assert final["reason"] in ("max_actions", "double_pass", "pass_on_empty_start")


def test_littlego_max_actions_ends_the_game_as_a_termination():
    env = littlego_v0.env(max_actions=4)
    env.reset()
    for a in (0, 24, 4, 20):
        env.step(a)
    assert env.terminations == {"black_0": True, "white_0": True}
    assert env.truncations == {"black_0": False, "white_0": False}
    assert env.infos["black_0"]["reason"] == "max_actions"


def test_littlego_suicide_loses():
    state = littlego.from_ascii("""
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        . . . . .""", to_move=littlego.WHITE)
    env = littlego_v0.env()
    env.reset(options={"state": state})
    assert env.agent_selection == "white_0"
    obs, *_ = env.last()
    assert obs["action_mask"][0] == 0
    env.step(0)
    assert env.rewards == {"black_0": 1.0, "white_0": -1.0}
    assert env.infos["white_0"]["illegal_reason"] == "suicide"


def test_littlego_ko_recapture_loses():
    state = littlego.from_ascii("""
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .""", to_move=littlego.BLACK)
    env = littlego_v0.env()
    env.reset(options={"state": state})
    env.step(7)  # Black captures the White stone on (1, 1)
    assert env.observe("white_0")["observation"][1, 1] == 0
    obs, *_ = env.last()
    assert obs["action_mask"][6] == 0  # the ko
    env.step(6)
    assert env.infos["white_0"]["reason"] == "illegal"
    assert env.infos["white_0"]["illegal_reason"] == "ko"
    assert env.rewards == {"black_0": 1.0, "white_0": -1.0}


def test_reset_options_state_is_checked():
    env = tictactoe_v0.env()
    with pytest.raises(TypeError, match="TTTState"):
        env.reset(options={"state": littlego.LittleGo().initial_state()})
    with pytest.raises(ValueError, match="finished"):
        env.reset(options={"state": tictactoe.from_board("XXX OO. ...")})
    go = littlego_v0.env()
    with pytest.raises(ValueError, match="7x7.*this env plays 5x5"):
        go.reset(options={"state": littlego.LittleGo(7).initial_state()})
    with pytest.raises(ValueError, match="komi 0.*komi 2.5"):
        go.reset(options={"state": littlego.LittleGo(5, komi=0).initial_state()})


def test_observe_unknown_agent_is_a_clear_error():
    env = tictactoe_v0.env()
    env.reset()
    with pytest.raises(ValueError, match="unknown agent"):
        env.observe("player_3")


def test_render_without_mode_warns_and_returns_none():
    env = littlego_v0.env()
    env.reset()
    with pytest.warns(UserWarning, match="render"):
        assert env.render() is None


def test_env_pickles():
    import pickle

    env = littlego_v0.raw_env()
    env.reset()
    env.step(12)
    clone = pickle.loads(pickle.dumps(env))
    np.testing.assert_array_equal(clone.observe("white_0")["observation"],
                                  env.observe("white_0")["observation"])


@pytest.mark.parametrize("fmt", ["board", "flat"])
def test_a_position_seen_first_and_again_gives_equal_independent_observations(fmt):
    # A variant no other test plays: its first observations are built, the repeats come from the cache.
    env = littlego_v0.env(board_size=6, komi=0.5, observation=fmt)
    env.reset(seed=0)
    for action in (14, 15, 21, 8):
        env.step(action)
    game, state = env.unwrapped.game, env.unwrapped.game_state
    first = [env.unwrapped.observe(agent) for agent in env.possible_agents]
    for obs in first:
        obs["observation"][...] = 1
        obs["action_mask"][...] = 0
    again = [env.unwrapped.observe(agent) for agent in env.possible_agents]
    for colour, obs in enumerate(again, start=1):
        expected = relative_board(game, state, viewer=colour)
        np.testing.assert_array_equal(obs["observation"], expected if fmt == "board" else expected.ravel())
        mask = game.legal_mask(state) if colour == state.to_move else np.zeros(game.num_actions, np.int8)
        np.testing.assert_array_equal(obs["action_mask"], mask)
        assert obs["action_mask"].dtype == np.int8 and obs["observation"].dtype == np.int8


@pytest.mark.parametrize("mod", [tictactoe_v0, littlego_v0], ids=IDS)
def test_every_step_gives_infos_with_the_same_keys_and_types(mod):
    """Libraries that stack infos into arrays (Tianshou's buffers) need them uniform."""
    env = mod.env()
    for seed in range(6):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        seen = []
        for agent in env.agent_iter():
            obs, _reward, term, trunc, info = env.last()
            seen.append(info)
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            # one game in three ends with an illegal action
            action = int(rng.integers(env.action_space(agent).n)) if seed % 3 == 2 else int(rng.choice(legal))
            env.step(action)
        first = seen[0]
        assert first["winner"] == "" and first["reason"] == "" and first["illegal_action"] == -1
        for info in seen:
            assert info.keys() == first.keys()
            assert all(type(info[k]) is type(first[k]) for k in first)
            if "scores" in first:
                assert info["scores"].keys() == first["scores"].keys()
        assert seen[-1]["winner"] in (*env.possible_agents, "draw")
        ts = [i["t"] for i in seen]
        assert ts[0] == 0 and ts == sorted(ts) and ts[-1] == env.game_state.t
