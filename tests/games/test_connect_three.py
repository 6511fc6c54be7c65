"""The proof that a new game is one file: Connect-Three (tests/games/connect_three.py), registered here
and defined nowhere in the library, runs through every layer: its rules, the PettingZoo AEC env
(api_test), the Gymnasium env (check_env), the native vector env, the random, minimax and MCTS agents,
the arena, AlphaZero's input planes from the feature encoder every game owns, and AlphaZero itself: its
network on the 4x5 board, a 30-second training run and the trained agent in the arena."""

from __future__ import annotations

import dataclasses
import json
import warnings

import gymnasium
import numpy as np
import pytest
from connect_three import COLS, ROWS, C3State, ConnectThree, register, unregister

from tictacgo.envs import action_masks
from tictacgo.games import GAMES, IllegalActionError, make_game


@pytest.fixture(scope="module", autouse=True)
def connect_three():
    register()
    yield make_game("connect_three")
    unregister()


def drop(game, *columns):
    state = game.initial_state()
    for c in columns:
        state = game.play(state, c)
    return state


# -- the rules --------------------------------------------------------------------------------------

def test_check_game_passes_its_rules_symmetries_and_envs(connect_three):
    from tictacgo.envs import check_game

    report = check_game(connect_three, games=20, seed=0)
    assert report["games"] == 20 and report["positions"] > 20 and report["symmetries"] >= 1


def test_registering_the_class_makes_it_a_game_by_name_and_alias(connect_three):
    assert GAMES["connect_three"] is ConnectThree and isinstance(make_game("c3"), ConnectThree)
    assert connect_three.spec.board_shape == (4, 5) and connect_three.num_actions == 5


def test_a_piece_falls_to_the_lowest_empty_cell_of_its_column(connect_three):
    board = connect_three.to_board(drop(connect_three, 2, 2, 2))
    assert board[:, 2].tolist() == [0, 1, 2, 1]  # row 0 is the top
    assert board.shape == (ROWS, COLS)


def test_a_full_column_is_refused(connect_three):
    state = drop(connect_three, 0, 0, 0, 0)
    assert connect_three.legal_actions(state) == [1, 2, 3, 4]
    assert connect_three.illegal_reason(state, 0) == "column full"
    with pytest.raises(IllegalActionError):
        connect_three.play(state, 0)


@pytest.mark.parametrize("moves,line", [((0, 0, 1, 1, 2), "row"), ((0, 1, 0, 1, 0), "column"),
                                        ((0, 1, 1, 2, 3, 2, 2), "diagonal")])
def test_three_in_a_row_wins_and_the_words_say_so(connect_three, moves, line):
    state = drop(connect_three, *moves)
    assert connect_three.is_terminal(state) and connect_three.winner(state) == 1, line
    assert connect_three.end_words(state) == "Red has three in a row"
    assert connect_three.returns(state) == (1.0, -1.0)
    connect_three.check_state(state)


def test_the_check_refuses_a_floating_piece(connect_three):
    with pytest.raises(ValueError, match="floats"):
        connect_three.check_state(C3State(1, 0, 2))


def test_its_drawings_are_the_default_grid_on_a_board_that_is_not_square(connect_three):
    state = drop(connect_three, 2, 3)
    assert connect_three.image(state).shape == (ROWS * 100, COLS * 100, 3)
    assert "width='300' height=" in connect_three.svg(state)
    assert connect_three.ansi(state).splitlines()[-1] == "Red to move"
    assert state._repr_svg_() == connect_three.svg(state)  # registered: its states draw in a notebook


def test_a_game_of_stones_draws_discs_not_marks(connect_three):
    class Stones(type(connect_three)):
        spec = dataclasses.replace(type(connect_three).spec, pieces="stones")

    state = drop(connect_three, 2, 3)
    marks, stones = connect_three.svg(state), Stones().svg(state)
    assert marks != stones and "<path d='M" in marks and "<path d='M" not in stones
    assert stones.count("fill='#161616'") == 1 and stones.count("fill='#f2f2ee'") == 1  # one stone each
    image = Stones().image(state)
    assert image.shape == connect_three.image(state).shape
    assert not np.array_equal(image, connect_three.image(state))


# -- the envs ------------------------------------------------------------------------------------

def test_the_pettingzoo_aec_env_passes_api_test(connect_three):
    from pettingzoo.test import api_test

    import tictacgo.envs as envs

    module = envs.connect_three_v0  # made from the registry: no module file for this game
    env = module.env()
    assert env.possible_agents == ["player_1", "player_2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advisory warnings about dict observations
        api_test(env, num_cycles=200)
    raw = module.raw_env(render_mode="rgb_array")
    raw.reset(seed=0)
    assert raw.render().shape == (ROWS * 100, COLS * 100, 3)


def test_the_gymnasium_env_passes_check_env_and_plays_to_the_end(connect_three):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("ConnectThree-v0", opponent="random")
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert obs.shape == (ROWS * COLS,) and info["action_mask"].shape == (COLS,)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert reward in (-1.0, 0.0, 1.0) and info["reason"] in ("win", "draw", "illegal")


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_the_native_vector_env_steps_many_games(connect_three, opponent):
    envs = gymnasium.make_vec("ConnectThree-v0", num_envs=16, vectorization_mode="vector_entry_point",
                              opponent=opponent, learner="alternate", observation="board")
    obs, info = envs.reset(seed=0)
    assert obs.shape == (16, ROWS, COLS)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(40):
        mask = action_masks(envs)  # the learner's (all True in a game waiting for its reset)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rewards, terminated, truncated, info = envs.step(actions)
        finished += int(terminated.sum())
        assert set(np.unique(info["reason"][terminated])) <= {"win", "draw", "illegal"}
    assert finished > 16


def test_the_generic_batched_engine_agrees_with_the_rules(connect_three):
    engine = connect_three.batched(8)
    rng = np.random.default_rng(3)
    states = [connect_three.initial_state()] * 8
    for _ in range(12):
        mask = engine.legal_mask()
        live = mask.any(axis=1)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        engine.play(actions)
        states = [connect_three.play(s, int(a)) if ok else s
                  for s, a, ok in zip(states, actions, live, strict=True)]
        assert all(engine.state(i) == states[i] for i in range(8))
        np.testing.assert_array_equal(engine.boards(), np.stack([connect_three.to_board(s) for s in states]))


# -- the agents and the arena --------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["random", "minimax:depth=3", "mcts:sims=60",
                                  "mcts:sims=40,rollout=capture"])
def test_the_agents_play_it(connect_three, spec):
    from tictacgo.baselines import make_agent

    agent = make_agent(spec, connect_three, rng=np.random.default_rng(0))
    state = connect_three.initial_state()
    while not connect_three.is_terminal(state):
        state = connect_three.play(state, agent.act(state))
    assert connect_three.winner(state) in (0, 1, 2)


def test_minimax_takes_a_win_and_blocks_one(connect_three):
    from tictacgo.baselines import make_agent

    agent = make_agent("minimax:depth=2", connect_three, rng=np.random.default_rng(0))
    assert agent.act(drop(connect_three, 0, 4, 1, 4)) == 2   # Red completes 0-1-2 on the bottom row
    assert agent.act(drop(connect_three, 0, 4, 1)) == 2      # Yellow blocks it


def test_the_arena_runs_a_match(connect_three):
    from tictacgo.arena import run_match

    result = run_match("connect_three", "mcts:sims=40", "random", games=6, seed=0, workers=1)
    summary = result.summary()
    assert result.n == 6 and summary["wins"] + summary["draws"] + summary["losses"] == 6
    assert summary["wins"] > summary["losses"]  # 40 simulations a move beat random moves
    assert set(summary["a_by_colour"]) == {"Red", "Yellow"}


# -- the features and AlphaZero ------------------------------------------------------------------------

def test_the_encoder_gives_every_observation_and_the_network_planes_without_a_line_for_it(connect_three):
    state = drop(connect_three, 2, 2, 3)  # Yellow to move: Red on 17 and 18, Yellow on 12
    enc = connect_three.encoder
    assert enc is connect_three.encoder  # built once per game object
    board = enc.observe(state, "board")
    assert board.shape == (ROWS, COLS) and board[3, 2] == board[3, 3] == -1 and board[2, 2] == 1
    assert enc.observe(state, "planes").shape == (2, ROWS, COLS)
    assert enc.observe(state, "planes_hwc").shape == (ROWS, COLS, 2)
    assert connect_three.network_plane_names == ("own", "opponent") and enc.network_shape == (2, ROWS, COLS)
    np.testing.assert_array_equal(enc.from_state(state), enc.observe(state, "planes"))
    engine = connect_three.batched(3)
    engine.reset()
    engine.set_state(1, state)
    planes = enc.from_engine(engine, np.array([0, 1]), engine.legal_mask()[:2])
    assert planes.shape == (2, 2, ROWS, COLS) and planes[0].max() == 0
    np.testing.assert_array_equal(planes[1], enc.from_state(state))


def test_its_symmetries_are_the_identity_alone(connect_three):
    # the default: gravity rules out the up-down mirror, and its actions (columns) are not board points
    np.testing.assert_array_equal(connect_three.symmetries(), [np.arange(COLS)])


def test_a_30_second_alphazero_run_trains_and_its_agent_plays_in_the_arena(connect_three, tmp_path, capsys):
    pytest.importorskip("torch")
    from tictacgo.arena import run_match
    from tictacgo.cli import main

    run = tmp_path / "run"
    rc = main(["train", "connect_three", "--algo", "alphazero", "--out", str(run), "--channels", "8",
               "--blocks", "1", "--num-games", "16", "--simulations", "8", "--batch-size", "32",
               "--min-buffer", "32", "--max-seconds", "30", "--checkpoint-every", "1e9",
               "--buffer-size", "4000", "--no-progress", "--no-tensorboard"])
    assert rc == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    summary = json.loads(out[out.index("\n{") + 1:])  # the JSON summary after the progress lines
    assert summary["games"] > 0 and summary["gradient_steps"] > 0
    meta = json.loads((run / "model.json").read_text())
    assert meta["variant"]["game"] == "connect_three"
    arch = meta["architecture"]  # a board that is not square: rows, columns, and the game's five actions
    assert [arch[k] for k in ("in_planes", "board", "board_cols", "num_actions")] == [2, ROWS, COLS, COLS]
    result = run_match("connect_three", f"az:path={run},sims=8", "random", games=10, seed=0, workers=1)
    summary = result.summary()
    assert summary["wins"] + summary["draws"] + summary["losses"] == 10
    assert summary["wins"] > summary["losses"], summary  # the trained agent beats random moves


@pytest.fixture
def c3_network(connect_three):
    torch = pytest.importorskip("torch")
    from tictacgo.baselines.learning.alphazero.network import Architecture, PolicyValueNet

    torch.manual_seed(0)
    net = PolicyValueNet(Architecture.for_game(connect_three, channels=8, blocks=1))
    net.train()
    with torch.no_grad():  # move the batch norms' running statistics away from their start
        for _ in range(3):
            net(torch.rand(32, 2, ROWS, COLS) * 2)
    return net.eval()


def test_the_network_takes_its_4x5_planes_and_gives_a_logit_per_column(connect_three, c3_network):
    import torch

    planes = np.stack([connect_three.encoder.from_state(drop(connect_three, *moves))
                       for moves in ((), (2,), (2, 2, 3), (0, 4, 0, 4))])
    with torch.inference_mode():
        logits, value, _ = c3_network(torch.from_numpy(planes))
        folded = c3_network.inference(torch.from_numpy(planes))
    assert logits.shape == (4, COLS) and value.shape == (4,)
    torch.testing.assert_close(folded[0], logits, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(folded[1], value, atol=1e-5, rtol=1e-4)


def test_its_saved_model_plays_the_same_through_numpy_and_torch(connect_three, c3_network, tmp_path):
    import torch

    from tictacgo.baselines.learning.alphazero.network import load_model, save_model
    from tictacgo.baselines.learning.alphazero.numpy_net import load_numpy

    save_model(tmp_path / "m", c3_network, connect_three)
    net, game, _ = load_model(tmp_path / "m")
    evaluator, numpy_game, _ = load_numpy(tmp_path / "m")
    assert game == connect_three and numpy_game == connect_three and net.arch == c3_network.arch
    planes = np.stack([connect_three.encoder.from_state(drop(connect_three, *moves))
                       for moves in ((), (1, 1), (4, 3, 2, 1, 0))])
    with torch.inference_mode():
        logits, value, _ = net(torch.from_numpy(planes))
    np_logits, np_value = evaluator.evaluate_planes(planes)
    np.testing.assert_allclose(np_logits, logits.numpy(), atol=2e-5, rtol=1e-4)
    np.testing.assert_allclose(np_value, value.numpy(), atol=2e-5, rtol=1e-4)


def test_a_model_json_that_lost_its_columns_is_refused_naming_them(connect_three, c3_network, tmp_path):
    from tictacgo.baselines.learning.alphazero.modelfile import read_description
    from tictacgo.baselines.learning.alphazero.network import save_model

    save_model(tmp_path / "m", c3_network, connect_three)
    meta_path = tmp_path / "m" / "model.json"
    meta = json.loads(meta_path.read_text())
    del meta["architecture"]["board_cols"]  # read as a 4x4 network
    meta_path.write_text(json.dumps(meta))
    refused = r"the architecture's board_cols is absent \(a square board\), but connect_three needs 5"
    with pytest.raises(ValueError, match=refused):
        read_description(tmp_path / "m")


def test_asking_for_a_compiled_engine_it_has_not_says_so_once(connect_three):
    import tictacgo.games.batched_states as batched_states

    batched_states.StateBatch._warned.discard(("ConnectThree", "numba"))
    with pytest.warns(UserWarning, match="ConnectThree has no 'numba' batched engine: its games step through "
                                         "the rules in Python"):
        engine = connect_three.batched(4, backend="numba")
    assert engine.backend == "numpy"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once: the second time is quiet
        connect_three.batched(4, backend="numba")
