"""``gymnasium.make_vec`` in its three modes reports games the same way: the native vector env
("vector_entry_point"), "sync" and "async" give the same observations, rewards, ``info`` and masks
for the same games, and ``tictacgo.envs.action_masks`` answers the same for all of them."""

import gymnasium as gym
import numpy as np
import pytest

import tictacgo  # noqa: F401  (registers the ids)
from tictacgo.envs import action_masks
from tictacgo.games import make_game

MODES = ["vector_entry_point", "sync", "async"]
# The keys every mode's info has (the single envs add "winner" and "illegal_reason").
SHARED_KEYS = ("action_mask", "learner_colour", "winner_colour", "opponent_action", "illegal_action", "t",
               "reason")


def first_legal_of_batch(obs, mask):
    """The native env's opponent: the lowest legal action of each game."""
    return np.argmax(mask, axis=1)


class FirstLegal:
    """The single envs' opponent: the same choice on a rules state."""

    def __init__(self, game):
        self.game = game

    def __call__(self, state):
        return self.game.legal_actions(state)[0]


def make(env_id, mode, num_envs, **kwargs):
    if kwargs.get("opponent") == "first-legal":
        game = make_game("littlego" if env_id == "LittleGo-v0" else "tictactoe")
        kwargs["opponent"] = first_legal_of_batch if mode == "vector_entry_point" else FirstLegal(game)
    return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **kwargs)


def play(envs, steps, seed, unmasked=0.1):
    """Steps with masked random actions (a share of them unmasked, so some are illegal); the record."""
    rng = np.random.default_rng(seed)
    obs, info = envs.reset(seed=seed)
    record = [(obs, None, None, info, action_masks(envs))]
    for _ in range(steps):
        masks = action_masks(envs)
        masks[rng.random(len(masks)) < unmasked] = True
        actions = np.argmax(masks * rng.random(masks.shape), axis=1)
        obs, reward, terminated, truncated, info = envs.step(actions)
        assert not truncated.any()
        record.append((obs, reward, terminated, info, action_masks(envs)))
    envs.close()
    return record


def assert_same_games(a, b, keys):
    for step, (x, y) in enumerate(zip(a, b, strict=True)):
        assert np.array_equal(x[0], y[0]), f"observations differ at step {step}"
        if step:
            assert np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2]), f"step {step}"
        for key in keys:
            assert np.asarray(x[3][key]).tolist() == np.asarray(y[3][key]).tolist(), (key, step)
        assert np.array_equal(x[4], y[4]), f"action_masks() differ at step {step}"


@pytest.mark.parametrize("env_id", ["LittleGo-v0", "TicTacToe-v0"])
@pytest.mark.parametrize("learner", ["first", "second", "alternate"])
def test_the_three_modes_play_the_same_games_when_nothing_is_drawn_at_random(env_id, learner):
    keys = SHARED_KEYS + (("scores",) if env_id == "LittleGo-v0" else ())
    records = [play(make(env_id, mode, 3, opponent="first-legal", learner=learner), 30, seed=4)
               for mode in MODES]
    ended = sum(int(r[2].sum()) for r in records[0][1:])
    illegal = sum(int(r[3]["illegal_action"].sum()) for r in records[0][1:])
    assert ended >= 3 and illegal >= 1  # games ended, some by an illegal action, and were reset
    assert_same_games(records[0], records[1], keys)
    assert_same_games(records[0], records[2], keys)


@pytest.mark.parametrize("env_id", ["LittleGo-v0", "TicTacToe-v0"])
def test_sync_and_async_draw_the_same_games_from_the_same_seed(env_id):
    sync = play(make(env_id, "sync", 3, learner="random"), 30, seed=7)
    asynchronous = play(make(env_id, "async", 3, learner="random"), 30, seed=7)
    assert_same_games(sync, asynchronous, tuple(sync[0][3]))


@pytest.mark.parametrize("mode", MODES)
def test_a_finished_games_info_mask_is_all_zeros_and_its_next_action_is_free(mode):
    envs = gym.wrappers.vector.RecordEpisodeStatistics(make("LittleGo-v0", mode, 2, learner="first"))
    try:
        obs, info = envs.reset(seed=0)
        assert info["action_mask"].sum(axis=1).tolist() == [26, 26]
        # Black (the learner) passing on the empty board loses at once: 0 against komi.
        obs, reward, terminated, _, info = envs.step(np.array([25, 12]))
        assert terminated.tolist() == [True, False] and reward.tolist() == [-1.0, 0.0]
        assert not info["action_mask"][0].any()  # the finished position has no legal action
        assert info["action_mask"][1].sum() == 26 - 2  # the two stones' points are taken
        masks = action_masks(envs)
        assert masks[0].all()  # the next step resets game 0 and ignores its action
        assert masks[1].tolist() == info["action_mask"][1].astype(bool).tolist()
        obs, reward, terminated, _, info = envs.step(np.array([3, 25]))
        assert terminated.tolist() == [False, False] and reward.tolist() == [0.0, 0.0]
        assert (obs[0] == 0).all() and info["t"][0] == 0 and info["action_mask"][0].all()
    finally:
        envs.close()


@pytest.mark.parametrize("mode", MODES)
def test_a_game_the_opponents_opening_ends_reports_all_ones_then_the_result(mode):
    def pass_at_once(*args):
        """Black passing as its first action ends the game (White wins 0 against komi)."""
        return np.full(len(args[1]), 25) if len(args) == 2 else 25

    envs = make("LittleGo-v0", mode, 2, learner="second", opponent=pass_at_once)
    try:
        obs, info = envs.reset(seed=0)
        assert info["action_mask"].all() and action_masks(envs).all()
        obs, reward, terminated, _, info = envs.step(np.array([0, 7]))
        assert terminated.all() and reward.tolist() == [1.0, 1.0]
        assert not info["action_mask"].any() and action_masks(envs).all()
    finally:
        envs.close()


def test_action_masks_reads_sb3_vec_envs_as_sb3_contrib_does():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    from tictacgo.baselines.learning.batched_vec_env import BatchedVecEnv

    for vec in (BatchedVecEnv("tictactoe", num_envs=4), make_vec_env("TicTacToe-v0", n_envs=2)):
        vec.seed(0)
        vec.reset()
        vec.step(np.argmax(get_action_masks(vec), axis=1))
        assert action_masks(vec).tolist() == get_action_masks(vec).tolist()
        vec.close()


@pytest.mark.parametrize("thing", [object(), "LittleGo-v0", gym.make("TicTacToe-v0")])
def test_action_masks_refuses_what_is_not_a_vector_env(thing):
    if isinstance(thing, gym.Env):
        thing.reset(seed=0)
    with pytest.raises(TypeError):
        action_masks(thing)
