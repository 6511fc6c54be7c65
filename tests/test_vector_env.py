"""The native vector envs (``tictacgo.envs.vector_env``) and ``gymnasium.make_vec`` in all three modes."""

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from engines import NUMBA_MISSING
from gymnasium.vector import AutoresetMode

import tictacgo  # noqa: F401  (registers the ids)
from tictacgo.envs.vector_env import INFO_KEYS, TurnBasedVectorEnv
from tictacgo.envs.vector_env import make_littlego as LittleGoVectorEnv
from tictacgo.envs.vector_env import make_tictactoe as TicTacToeVectorEnv
from tictacgo.games import littlego as go
from tictacgo.games import tictactoe as ttt
from tictacgo.games.errors import IllegalActionError

TTT = ttt.TicTacToe()
GO = go.LittleGo()

IDS = ["LittleGo-v0", "TicTacToe-v0"]
MODES = ["vector_entry_point", "sync", "async"]


def masked_random(rng, info, pass_weight=1.0):
    mask = np.stack(info["action_mask"]).astype(bool)
    weights = rng.random(mask.shape)
    if mask.shape[1] == 26:  # Little-Go: a learner that passes often ends some games early
        weights[:, -1] *= pass_weight
    return np.argmax(mask * weights, axis=1)


def run(envs, steps, seed=0, pass_weight=1.0):
    rng = np.random.default_rng(seed)
    obs, info = envs.reset(seed=seed)
    trace = [(obs.copy(), None, None)]
    infos = [info]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = envs.step(masked_random(rng, info, pass_weight))
        assert not truncated.any()
        trace.append((obs.copy(), reward.copy(), terminated.copy()))
        infos.append(info)
    return trace, infos


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("mode", MODES)
def test_make_vec_plays_games_ending_at_different_times_with_stable_info_types(env_id, mode):
    envs = gym.make_vec(env_id, num_envs=6, vectorization_mode=mode, learner="random")
    try:
        assert envs.observation_space.contains(envs.reset(seed=3)[0])
        trace, infos = run(envs, 30, seed=3, pass_weight=3.0)
        ends = np.array([t[2] for t in trace[1:]])
        finished_at = [tuple(np.nonzero(ends[:, i])[0][:1]) for i in range(6)]
        assert len(set(finished_at)) > 1, finished_at  # not all games end at the same step
        keys = set(infos[0])
        for info in infos:
            assert set(info) == keys
            for k in keys:
                assert np.asarray(info[k]).dtype == np.asarray(infos[0][k]).dtype, k
        for obs, reward, terminated in trace[1:]:
            assert envs.observation_space.contains(obs)
            assert set(np.unique(reward[terminated])) <= {-1.0, 0.0, 1.0}
            assert (reward[~terminated] == 0).all()
    finally:
        envs.close()


def test_vector_entry_point_returns_the_native_env_with_1024_games():
    envs = gym.make_vec("LittleGo-v0", num_envs=1024, vectorization_mode="vector_entry_point")
    assert isinstance(envs.unwrapped, TurnBasedVectorEnv)
    assert envs.unwrapped.game.spec.name == "littlego"
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    assert obs.shape == (1024, 25) and obs.dtype == np.int8
    assert envs.unwrapped.action_masks().shape == (1024, 26)
    assert envs.single_action_space == gym.spaces.Discrete(26)
    ttt_envs = gym.make_vec("TicTacToe-v0", num_envs=8, vectorization_mode="vector_entry_point",
                            observation="board")
    assert isinstance(ttt_envs.unwrapped, TurnBasedVectorEnv)
    assert ttt_envs.unwrapped.game.spec.name == "tictactoe"
    assert ttt_envs.reset(seed=0)[0].shape == (8, 3, 3)


@pytest.mark.parametrize("cls", [LittleGoVectorEnv, TicTacToeVectorEnv])
def test_same_seed_gives_the_same_games(cls):
    a, _ = run(cls(64, learner="random", opponent="random"), 40, seed=5)
    b, _ = run(cls(64, learner="random", opponent="random"), 40, seed=5)
    c, _ = run(cls(64, learner="random", opponent="random"), 40, seed=6)
    for (oa, ra, ta), (ob, rb, tb) in zip(a, b, strict=True):
        assert (oa == ob).all()
        assert ra is None or ((ra == rb).all() and (ta == tb).all())
    assert any(not (x[0] == y[0]).all() for x, y in zip(a, c, strict=True))


def test_a_finished_game_resets_on_the_next_step_and_ignores_its_action():
    envs = LittleGoVectorEnv(2, learner="first")
    obs, info = envs.reset(seed=0)
    # Black (the learner) passing on the empty board loses at once: 0 against komi.
    obs, reward, terminated, _, info = envs.step(np.array([25, 12]))
    assert terminated.tolist() == [True, False]
    assert reward.tolist() == [-1.0, 0.0]
    assert info["winner_colour"][0] == 2 and info["reason"][0] == go.END_PASS_ON_EMPTY_START
    assert envs.action_masks()[0].all()  # the next action of game 0 is ignored
    obs, reward, terminated, _, info = envs.step(np.array([0, 25]))  # 0: ignored, a new game starts
    assert terminated.tolist() == [False, False] and reward.tolist() == [0.0, 0.0]
    assert (obs[0] == 0).all() and info["t"][0] == 0
    assert info["action_mask"][0].sum() == 26


def test_the_learner_as_second_player_sees_the_opponents_opening_from_its_own_view():
    envs = LittleGoVectorEnv(16, learner="second")
    obs, info = envs.reset(seed=1)
    assert (info["learner_colour"] == 2).all()
    assert ((obs == -1).sum(axis=1) == 1).all() and (obs >= -1).all() and (obs <= 0).all()
    assert (info["opponent_action"] == np.argmin(obs, axis=1)).all()


def test_an_illegal_learner_action_loses_that_game_only():
    envs = TicTacToeVectorEnv(2, learner="first")
    envs.reset(seed=0)
    obs, reward, terminated, _, info = envs.step(np.array([4, 4]))
    taken = int(info["opponent_action"][0])
    legal_1 = int(np.argmax(info["action_mask"][1]))
    obs, reward, terminated, _, info = envs.step(np.array([taken, legal_1]))
    assert info["illegal_action"].tolist() == [True, False]
    assert reward[0] == -1.0 and terminated.tolist() == [True, False]
    assert info["reason"][0] == ttt.END_ILLEGAL


def test_rewards_are_the_core_result_from_the_learners_view():
    envs = LittleGoVectorEnv(256, learner="random", opponent="greedy")
    rng = np.random.default_rng(2)
    obs, info = envs.reset(seed=2)
    seen = 0
    for _ in range(30):
        obs, reward, terminated, _, info = envs.step(masked_random(rng, info))
        for i in np.nonzero(terminated)[0]:
            w, me = info["winner_colour"][i], info["learner_colour"][i]
            assert reward[i] == (1.0 if w == me else -1.0 if w == 3 - me else 0.0)
            b, wh = info["scores"][i]
            assert w == (1 if b > wh else 2)
            seen += 1
    assert seen > 256


def test_greedy_opponent_takes_the_biggest_capture():
    envs = LittleGoVectorEnv(32, learner="second", opponent="greedy")
    envs.reset(seed=0)
    # White (the learner) to play; Black (greedy) then captures two stones at (1, 2) or one at (4, 0).
    s = go.from_ascii("""
        . X X . .
        X O O . .
        . X X . .
        . . . . .
        O X . . .
    """, to_move=2)
    for i in range(32):
        envs.match.engine.set_state(i, s)
    envs.match.mask = envs.match.engine.legal_mask()
    _, _, _, _, info = envs.step(np.full(32, 24))
    assert (info["opponent_action"] == 1 * 5 + 3).all()


def test_greedy_breaks_ties_at_random_and_passes_only_without_a_placement():
    envs = LittleGoVectorEnv(64, learner="second", opponent="greedy")
    obs, info = envs.reset(seed=0)
    assert len(set(info["opponent_action"].tolist())) > 10
    assert (info["opponent_action"] != 25).all()


def test_a_batched_policy_opponent_gets_its_own_view_and_legal_masks():
    calls = []

    def first_legal(obs, mask):
        calls.append((obs.copy(), mask.copy()))
        return np.argmax(mask[:, :-1], axis=1)

    envs = LittleGoVectorEnv(4, learner="first", opponent=first_legal)
    envs.reset(seed=0)
    _, _, _, _, info = envs.step(np.array([12, 12, 0, 24]))
    obs, mask = calls[-1]
    assert obs.shape == (4, 25) and mask.shape == (4, 26)
    assert (obs[np.arange(4), [12, 12, 0, 24]] == -1).all()  # the learner's stone is the opponent's
    assert info["opponent_action"].tolist() == [0, 0, 1, 0]


def test_bad_arguments_are_refused_with_clear_errors():
    with pytest.raises(ValueError, match="learner"):
        LittleGoVectorEnv(2, learner="both")
    with pytest.raises(ValueError, match="observation"):
        LittleGoVectorEnv(2, observation="planes")
    with pytest.raises(ValueError, match="opponent"):
        LittleGoVectorEnv(2, opponent="minimax")
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        TicTacToeVectorEnv(0)
    envs = TicTacToeVectorEnv(2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.array([0, 1]))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.array([0]))
    with pytest.raises(ValueError, match=r"\[0, 8\]"):
        envs.step(np.array([0, 9]))


def first_placement_core(game):
    def act(state):
        legal = game.legal_actions(state)
        placements = [a for a in legal if a != game.pass_action]
        return placements[0] if placements else legal[0]
    return act


def first_placement_batched(num_points):
    def act(obs, mask):
        placements = mask[:, :num_points]
        return np.where(placements.any(axis=1), np.argmax(placements, axis=1), num_points)
    return act


@pytest.mark.parametrize(("vector_cls", "env_id", "game", "points"),
                         [(LittleGoVectorEnv, "LittleGo-v0", GO, 25),
                          (TicTacToeVectorEnv, "TicTacToe-v0", TTT, 9)])
@pytest.mark.parametrize("learner", ["first", "second"])
def test_each_vector_sub_env_plays_exactly_as_the_single_env(vector_cls, env_id, game, points, learner):
    # The same deterministic opponent on both sides, the same learner actions: the same games.
    B = 8
    venv = vector_cls(B, learner=learner, opponent=first_placement_batched(points))
    singles = [gym.make(env_id, learner=learner, opponent=first_placement_core(game)).unwrapped
               for _ in range(B)]
    obs, info = venv.reset(seed=0)
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=0)
        assert (obs[i] == o).all()
        assert (info["action_mask"][i] == inf["action_mask"]).all()
    rng = np.random.default_rng(1)
    waiting = np.zeros(B, bool)
    games_done = 0
    for _ in range(60):
        actions = masked_random(rng, info, pass_weight=0.3)
        obs, reward, terminated, _, info = venv.step(actions)
        for i, env in enumerate(singles):
            if waiting[i]:  # the vector env reset this game in this step
                o, inf = env.reset()
                r, term = 0.0, False
            else:
                o, r, term, _, inf = env.step(int(actions[i]))
                assert info["winner_colour"][i] == inf["winner_colour"]
            assert (obs[i] == o).all()
            assert (reward[i], terminated[i]) == (r, term)
            if not term:
                assert (info["action_mask"][i] == inf["action_mask"]).all()
            games_done += term
        waiting = terminated
    assert games_done >= B


@pytest.mark.parametrize("kwargs", [{"opponent": "minimax"}, {"observation": "planes"},
                                    {"illegal": "penalty"}])
def test_make_vec_by_default_names_the_sync_mode_for_what_only_single_envs_take(kwargs):
    with pytest.raises(ValueError, match='vectorization_mode="sync"'):
        gym.make_vec("LittleGo-v0", num_envs=2, **kwargs)
    env = gym.make_vec("LittleGo-v0", num_envs=2, vectorization_mode="sync", **kwargs)
    env.reset(seed=0)
    env.close()


def backend_env(monkeypatch, backend, make, **kwargs):
    """A vector env whose engine runs on ``backend`` (``TICTACGO_BATCHED_BACKEND``)."""
    monkeypatch.setenv("TICTACGO_BATCHED_BACKEND", backend)
    envs = make(**kwargs)
    monkeypatch.delenv("TICTACGO_BATCHED_BACKEND")
    return envs


needs_numba = pytest.mark.skipif(NUMBA_MISSING is not None, reason=str(NUMBA_MISSING))


@needs_numba
@pytest.mark.parametrize(("make", "kwargs"), [
    (LittleGoVectorEnv, {"learner": "random", "opponent": "random"}),
    (LittleGoVectorEnv, {"learner": "alternate", "opponent": "greedy", "observation": "board"}),
    (LittleGoVectorEnv, {"learner": "second", "board_size": 3, "max_actions": 30}),
    (TicTacToeVectorEnv, {"learner": "random"}),
    (TicTacToeVectorEnv, {"learner": "alternate", "observation": "board"}),
    (TicTacToeVectorEnv, {"learner": "second", "opponent": "greedy"}),
])
def test_the_compiled_step_plays_the_numpy_steps_games_and_draws(monkeypatch, make, kwargs):
    # On the numba backend a step against a built-in opponent is one kernel call; the numpy backend
    # takes the array path. Same seed, same learner actions (some illegal): the same everything.
    fast = backend_env(monkeypatch, "numba", make, num_envs=23, **kwargs)
    slow = backend_env(monkeypatch, "numpy", make, num_envs=23, **kwargs)
    assert fast.match.compiled and not slow.match.compiled
    rng = np.random.default_rng(4)
    (obs_f, info_f), (obs_s, info_s) = fast.reset(seed=9), slow.reset(seed=9)
    assert (obs_f == obs_s).all()
    for step in range(50):
        actions = masked_random(rng, info_f, pass_weight=0.2)
        if step % 5 == 2:
            actions[::4] = rng.integers(0, fast.single_action_space.n, size=len(actions[::4]))
        out_f, out_s = fast.step(actions), slow.step(actions)
        for a, b in zip(out_f[:4], out_s[:4], strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape and (a == b).all()
        info_f, info_s = out_f[4], out_s[4]
        assert list(info_f) == list(info_s)
        for key in info_f:
            assert info_f[key].dtype == info_s[key].dtype and (info_f[key] == info_s[key]).all(), key
        for name in fast.match.engine.state_fields():
            assert (getattr(fast.match.engine, name) == getattr(slow.match.engine, name)).all(), name
    assert fast.match.rng.bit_generator.state == slow.match.rng.bit_generator.state
    assert info_f["illegal_action"].dtype == bool


@needs_numba
@pytest.mark.parametrize("make", [LittleGoVectorEnv, TicTacToeVectorEnv])
def test_the_compiled_step_calls_its_compiled_code_directly_and_any_action_array_plays_the_same(make):
    # After the first step the kernel is called through the compiled entry point of its argument types;
    # read-only, strided and int32 actions are made into the kernel's type first, so they play as a copy.
    plain, odd = make(5, learner="random"), make(5, learner="random")
    (_, info), _ = plain.reset(seed=2), odd.reset(seed=2)
    rng = np.random.default_rng(0)
    for step in range(30):
        actions = masked_random(rng, info)
        if step % 3 == 0:
            weird = np.repeat(actions.astype(np.int32), 2)[::2]  # strided, int32
        else:
            weird = actions.copy()
            weird.setflags(write=False)
        out_p, out_o = plain.step(actions), odd.step(weird)
        for a, b in zip(out_p[:4], out_o[:4], strict=True):
            assert (a == b).all()
        assert all((out_p[4][k] == out_o[4][k]).all() for k in out_p[4])
        info = out_p[4]
    kernel = odd.match._kernels
    assert kernel._compiled is not kernel.kernel and kernel._compiled is not None


@pytest.mark.parametrize("make", [LittleGoVectorEnv, TicTacToeVectorEnv])
def test_info_lists_its_keys_in_order_then_their_masks(make):
    envs = make(3)
    _, reset_info = envs.reset(seed=0)
    _, _, _, _, info = envs.step(np.zeros(3, np.int64))
    keys = list(INFO_KEYS) + (["scores"] if "scores" in info else [])
    assert list(info) == list(reset_info) == keys + ["_" + k for k in keys]
    assert ("scores" in info) == (make is LittleGoVectorEnv)
    assert all(info["_" + k].all() and info["_" + k].dtype == bool for k in keys)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=needs_numba)])
def test_an_action_the_mask_allows_but_the_rules_refuse_raises_and_changes_nothing(monkeypatch, backend):
    envs = backend_env(monkeypatch, backend, LittleGoVectorEnv, num_envs=3, learner="first")
    envs.reset(seed=0)
    envs.step(np.array([12, 12, 12]))
    taken = envs.match.engine.last_action.astype(np.int64)  # the opponent's stones
    envs.match.mask = np.ones_like(envs.match.mask)  # a mask that lies about the position
    before = envs.match.engine.snapshot(), envs.match.rng.bit_generator.state
    actions = np.array([0, 1, 2])
    actions[1] = taken[1]
    with pytest.raises(IllegalActionError, match=f"of game 1 is illegal: {go.OCCUPIED}"):
        envs.step(actions)
    after = envs.match.engine.snapshot(), envs.match.rng.bit_generator.state
    assert all((before[0][k] == after[0][k]).all() for k in before[0]) and before[1] == after[1]
    with pytest.raises(ValueError, match=r"actions must be in \[0, 25\], got 26"):
        envs.step(np.array([0, 26, 0]))


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda envs: pickle.loads(pickle.dumps(envs))],
                         ids=["deepcopy", "pickle"])
@pytest.mark.parametrize("make", [LittleGoVectorEnv, TicTacToeVectorEnv])
def test_a_copy_mid_run_plays_on_as_the_original_and_leaves_its_random_stream_alone(copier, make):
    envs = make(8, learner="random")
    rng = np.random.default_rng(3)
    _, info = envs.reset(seed=1)
    for _ in range(3):
        _, _, _, _, info = envs.step(masked_random(rng, info))
    twin = copier(envs)
    assert twin.match.compiled == envs.match.compiled
    state = envs.match.rng.bit_generator.state
    twin_info = info
    for _ in range(12):  # the copy first: the original's generator must not move
        twin_out = twin.step(masked_random(np.random.default_rng(7), twin_info))
        twin_info = twin_out[4]
    assert envs.match.rng.bit_generator.state == state
    for _ in range(12):
        out = envs.step(masked_random(np.random.default_rng(7), info))
        info = out[4]
    assert (out[0] == twin_out[0]).all() and (info["t"] == twin_info["t"]).all()
    assert twin.match.rng.bit_generator.state == envs.match.rng.bit_generator.state
