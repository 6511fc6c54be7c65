"""Learned baselines: the actor-critic chapter's credit assignment, the A2C buffer, the networks,
trained models as agents, training with self-play, save / load / resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym  # noqa: E402
import torch as th  # noqa: E402
from gymnasium import spaces  # noqa: E402

import tictacgo  # noqa: E402,F401
from tictacgo.arena import play_game  # noqa: E402
from tictacgo.baselines import make_agent  # noqa: E402
from tictacgo.baselines.agent_spec import AgentSpec  # noqa: E402
from tictacgo.baselines.learning import illegal_aware_returns  # noqa: E402
from tictacgo.baselines.learning.a2c import IllegalAwareRolloutBuffer  # noqa: E402
from tictacgo.baselines.learning.networks import (  # noqa: E402
    SmallResNetExtractor,
    TwoBranchExtractor,
    policy_spec,
)
from tictacgo.baselines.learning.policy_agent import PolicyAgent, load_model  # noqa: E402
from tictacgo.baselines.learning.training import (  # noqa: E402
    MixtureOpponent,
    SnapshotPool,
    best_key,
    make_vec_env,
    snapshot,
    train,
)
from tictacgo.baselines.learning.training_config import TrainConfig, parse_weighted  # noqa: E402
from tictacgo.games import littlego, tictactoe  # noqa: E402

TTT = tictactoe.TicTacToe()
GO = littlego.LittleGo()

# -- the actor-critic chapter's credit assignment ----------------------------------


def test_the_actor_critic_chapters_example_gives_its_targets():
    # X 1, O 7, X 5, O 9, X 7 (illegal: occupied), X 6, O 8: O wins. X's four steps.
    targets = illegal_aware_returns([0.0, 0.0, -1.0, -1.0], [False, False, True, False], 0.9)
    assert targets == pytest.approx([-0.81, -0.9, -1.0, -1.0])


def test_an_illegal_attempt_consumes_no_discount_step_and_stays_its_own():
    with_illegal = illegal_aware_returns([0, 0, -0.5, -0.5, 1], [False, False, True, True, False], 0.5)
    without = illegal_aware_returns([0, 0, 1], [False, False, False], 0.5)
    assert with_illegal[[0, 1, 4]] == pytest.approx(without)
    assert with_illegal[[2, 3]] == pytest.approx([-0.5, -0.5])
    assert illegal_aware_returns([], [], 0.9).shape == (0,)
    assert illegal_aware_returns([-1.0], [True], 0.9) == pytest.approx([-1.0])


@pytest.mark.parametrize("args", [([0, 1], [False], 0.9), ([0.0], [False], 1.5), ([np.nan], [False], 0.9),
                                  ([0.0], [1], 0.9)])
def test_bad_input_to_the_returns_is_refused(args):
    with pytest.raises(ValueError):
        illegal_aware_returns(*args)


def test_the_a2c_buffer_gives_legal_steps_the_chapters_returns_and_refused_steps_their_penalty():
    buf = IllegalAwareRolloutBuffer(6, spaces.Box(-1, 1, (9,), np.int8), spaces.Discrete(9),
                                    device="cpu", gamma=0.9, gae_lambda=1.0, n_envs=1)
    rewards = [0.0, 0.0, -1.0, -1.0, 0.0, 0.0]          # one X episode, then a new one starts
    refused = [False, False, True, False, False, False]
    starts = [1, 0, 0, 0, 1, 0]
    values = [0.3, -0.2, 0.1, 0.4, 0.0, 0.0]
    for r, bad, start, v in zip(rewards, refused, starts, values, strict=True):
        buf.next_refused = np.array([bad])
        buf.add(np.zeros((1, 9)), np.zeros((1, 1)), np.array([r]), np.array([start]), th.tensor([[v]]),
                th.zeros(1))
    buf.compute_returns_and_advantage(last_values=th.tensor([[0.0]]), dones=np.array([False]))
    expected = illegal_aware_returns(rewards[:4], refused[:4], 0.9)
    legal = [0, 1, 3]
    assert buf.returns[legal, 0] == pytest.approx(expected[legal])
    assert buf.advantages[2, 0] == pytest.approx(-1.0 - 0.1)   # the penalty alone, against V(s)
    assert buf.returns[2, 0] == pytest.approx(0.1)             # no penalty in the value target


# -- networks -------------------------------------------------------------------------

def test_the_two_branch_and_resnet_extractors_give_their_features():
    two = TwoBranchExtractor(spaces.Box(-1, 1, (9,), np.int8))
    assert two(th.zeros(4, 9)).shape == (4, 128)
    res = SmallResNetExtractor(spaces.Box(0, 1, (5, 5, 5), np.float32))
    assert res(th.zeros(2, 5, 5, 5)).shape == (2, 128)
    with pytest.raises(ValueError):
        TwoBranchExtractor(spaces.Box(0, 1, (5, 5, 5), np.float32))
    with pytest.raises(ValueError):
        policy_spec("nature_cnn", "a2c")


@pytest.mark.parametrize("algo,policy,game,obs", [
    ("maskable-ppo", "two_branch", "tictactoe", "flat"), ("a2c", "two_branch", "tictactoe", "board"),
    ("maskable-ppo", "resnet", "littlego", "planes")])
def test_smoke_training_saves_loads_and_resumes(tmp_path, algo, policy, game, obs):
    cfg = TrainConfig(game=game, algo=algo, policy=policy, observation=obs, steps=256, n_envs=2,
                      n_steps=64 if algo == "maskable-ppo" else 5, eval_every=128, eval_games=2,
                      out=str(tmp_path), progress_bar=False, self_play=True, snapshot_every=64,
                      opponents=["random", "random@2"])
    model = train(cfg)
    assert (tmp_path / "best_model.zip").exists() and (tmp_path / "checkpoint.zip").exists()
    cfg.steps, cfg.resume = 384, True
    resumed = train(cfg)
    assert resumed.num_timesteps >= 384 > model.num_timesteps - 1
    kind = "ppo" if algo == "maskable-ppo" else "a2c"
    agent = make_agent(f"{kind}:path={tmp_path / 'final_model.zip'}", game)
    record = play_game(game, agent, make_agent("random", game), rng=np.random.default_rng(0))
    assert record.forfeit == ""


# -- trained models are agents ----------------------------------------------------------

@pytest.fixture(scope="module")
def ttt_model(tmp_path_factory):
    out = tmp_path_factory.mktemp("ttt")
    train(TrainConfig(steps=256, n_envs=2, n_steps=64, eval_every=256, eval_games=1, out=str(out),
                      progress_bar=False))
    return out / "final_model.zip"


def test_a_loaded_model_never_chooses_an_illegal_move_in_any_tictactoe_position(ttt_model):
    agent = make_agent(f"ppo:path={ttt_model}", "tictactoe")
    seen, stack = set(), [TTT.initial_state()]
    while stack:
        s = stack.pop()
        if (s.x, s.o) in seen or tictactoe.is_terminal(s):
            continue
        seen.add((s.x, s.o))
        assert agent.act(s) in tictactoe.legal_actions(s)
        stack += [tictactoe.play(s, a) for a in tictactoe.legal_actions(s)]
    assert len(seen) == 4520


def test_a_go_model_never_chooses_an_illegal_move_in_2000_random_positions(tmp_path):
    train(TrainConfig(game="littlego", steps=128, n_envs=2, n_steps=64, eval_every=128, eval_games=1,
                      out=str(tmp_path), progress_bar=False))
    agent = make_agent(f"ppo:path={tmp_path / 'final_model.zip'},sample=true", "littlego",
                       rng=np.random.default_rng(0))
    rng = np.random.default_rng(1)
    checked = 0
    while checked < 2000:
        s = GO.initial_state()
        while not littlego.is_terminal(s) and checked < 2000:
            assert littlego.illegal_reason(s, agent.act(s)) is None
            checked += 1
            acts = littlego.legal_actions(s)
            s = littlego.play(s, acts[int(rng.integers(len(acts)))])


def test_model_files_are_checked(tmp_path, ttt_model):
    with pytest.raises(ValueError, match="no model file"):
        make_agent(f"ppo:path={tmp_path / 'missing.zip'}", "tictactoe")
    bad = tmp_path / "bad.zip"
    bad.write_text("not a zip")
    with pytest.raises(ValueError, match="corrupt"):
        make_agent(f"ppo:path={bad}", "tictactoe")
    with pytest.raises(ValueError, match="was trained for tictactoe; this game is littlego"):
        make_agent(f"ppo:path={ttt_model}", "littlego")
    with pytest.raises(ValueError):
        load_model(ttt_model, "dqn", TTT)


def test_an_arena_match_loads_a_model_once_not_once_a_game(ttt_model, monkeypatch):
    from tictacgo import arena
    from tictacgo.baselines.learning import policy_agent

    loads = []
    real = policy_agent.load_model
    monkeypatch.setattr(policy_agent, "load_model", lambda *a, **k: loads.append(a) or real(*a, **k))
    m = arena.run_match("tictactoe", f"ppo:path={ttt_model}", "random", games=6, seed=0, workers=1,
                        progress=False)
    assert m.n == 6 and len(loads) == 1


# -- opponents and self-play ------------------------------------------------------------

def test_snapshots_never_share_weights_with_the_live_model(ttt_model):
    model = load_model(ttt_model, "maskable-ppo", TTT)
    frozen = snapshot(model, TTT)
    before = [p.detach().clone() for p in frozen.policy.parameters()]
    with th.no_grad():
        for p in model.policy.parameters():
            p.add_(1.0)
    after = list(frozen.policy.parameters())
    assert all(th.equal(a, b) for a, b in zip(before, after, strict=True))
    live = {p.data_ptr() for p in model.policy.parameters()}
    assert not live & {p.data_ptr() for p in frozen.policy.parameters()}


def test_self_play_rewards_belong_to_the_learner(ttt_model):
    pool = SnapshotPool(TTT, [PolicyAgent(TTT, load_model(ttt_model, "maskable-ppo", TTT))],
                        rng=np.random.default_rng(0))
    env = gym.make("TicTacToe-v0", opponent=pool, learner="alternate")
    rng = np.random.default_rng(0)
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        expected = {"learner": 1.0, "opponent": -1.0, "draw": 0.0}[info["winner"]]
        assert reward == expected
        assert (info["winner_colour"] == info["learner_colour"]) == (reward == 1.0)


def test_a_mixture_draws_its_members_by_weight():
    a = make_agent("random", "tictactoe")
    b = make_agent("minimax", "tictactoe")
    mix = MixtureOpponent(TTT, [a, b], [3.0, 1.0], rng=np.random.default_rng(0))
    picks = []
    for _ in range(400):
        mix.reset()
        picks.append(mix.current is a)
    assert 0.65 < np.mean(picks) < 0.85
    assert parse_weighted("minimax@2") == (AgentSpec("minimax"), 2.0)
    assert parse_weighted("mcts:sims=5,c=2") == (AgentSpec("mcts", {"sims": 5, "c": 2}), 1.0)
    with pytest.raises(ValueError):
        parse_weighted("minimax@-1")


def test_a_tictactoe_run_audits_every_position_and_keeps_the_model_that_loses_least(tmp_path):
    cfg = TrainConfig(steps=256, n_envs=2, n_steps=64, eval_every=128, eval_games=2, out=str(tmp_path),
                      progress_bar=False, random_opening=4, anneal_lr=True, net_arch=[32])
    model = train(cfg)
    history = json.loads((tmp_path / "progress.json").read_text())["history"]
    assert all(0.0 <= row["optimal_rate"] <= 1.0 for row in history)
    assert all(row["losses"] == sum(v[2] for k, v in row.items() if "/" in k) for row in history)
    assert model.lr_schedule(1.0) == pytest.approx(cfg.learning_rate)  # annealed: full at the start
    assert model.lr_schedule(0.0) == pytest.approx(0.0)  # and none at the end


def test_fewer_losses_rank_first_then_unmasked_illegal_moves_then_optimal_moves_then_score():
    no_loss = {"losses": 0, "optimal_rate": 0.90, "score": 0.5}
    lossy = {"losses": 3, "optimal_rate": 0.99, "score": 0.9}
    sharper = {"losses": 0, "optimal_rate": 0.95, "score": 0.4}
    assert best_key(no_loss) > best_key(lossy)
    assert best_key(sharper) > best_key(no_loss)
    careful = {**no_loss, "illegal_rate": 0.001}
    careless = {**sharper, "illegal_rate": 0.02}
    assert best_key(careful, masked=False) > best_key(careless, masked=False)  # A2C: illegal rate first
    assert best_key(careless, masked=True) > best_key(careful, masked=True)  # masked: it never matters


@pytest.mark.parametrize("field,value", [("gamma", 0.0), ("gamma", 1.5), ("learning_rate", -1.0),
                                         ("learning_rate", float("nan")), ("ent_coef", -0.1),
                                         ("random_opening", -1), ("n_steps", -5), ("batch_size", 0),
                                         ("net_arch", [64, 0]), ("self_play_weight", 0.0),
                                         ("first_player_envs", -1), ("first_player_envs", 9)])
def test_bad_hyperparameters_are_refused_before_training(tmp_path, field, value):
    cfg = TrainConfig(steps=64, out=str(tmp_path / "run"), progress_bar=False)
    setattr(cfg, field, value)
    with pytest.raises(ValueError, match="--" + field.replace("_", "-")):  # named by its flag
        train(cfg)
    assert not (tmp_path / "run").exists()


def test_first_player_envs_fix_the_learner_on_the_first_colour_and_the_rest_alternate():
    cfg = TrainConfig(game="littlego", n_envs=4, first_player_envs=3, observation="planes")
    vec = make_vec_env(cfg, GO)
    colours = [[], [], [], []]
    for _ in range(4):
        vec.reset()
        for k, env in enumerate(vec.envs):
            colours[k].append(env.unwrapped.learner_colour)
    vec.close()
    assert colours[:3] == [[1, 1, 1, 1]] * 3
    assert sorted(set(colours[3])) == [1, 2]


def test_every_setting_has_its_help_and_default_once_and_the_command_line_takes_them_all():
    import argparse
    import dataclasses

    from tictacgo.cli.options import add_options, parse_options

    fields = dataclasses.fields(TrainConfig)
    assert all(f.metadata["help"] for f in fields)
    cfg = parse_options(TrainConfig(steps=5), ["--opponents", "random", "minimax@2", "--net-arch", "32", "16",
                                               "--self-play", "--gamma", "0.9", "--board-size", "4"])
    assert cfg.opponents == ["random", "minimax@2"] and cfg.net_arch == [32, 16]
    assert cfg.self_play and cfg.gamma == 0.9 and cfg.board_size == 4 and cfg.steps == 5
    # The subcommand's forms: one value a use of --opponent, 64,64 for a list of numbers, --no-FLAG.
    cfg = parse_options(TrainConfig(), ["--opponent", "random", "--opponent", "mcts:sims=3,c=1", "--net-arch",
                                        "128,128", "--eval-opponent", "minimax", "--no-progress"])
    assert cfg.opponents == ["random", "mcts:sims=3,c=1"] and cfg.net_arch == [128, 128]
    assert cfg.eval_opponents == ["minimax"] and cfg.progress_bar is False
    parser = argparse.ArgumentParser()
    add_options(parser, TrainConfig(), positional=("game",))
    text = parser.format_help()
    assert "Discount factor. (default: 0.95)" in " ".join(text.split())
    documented = [a for a in parser._actions if a.help not in (None, argparse.SUPPRESS) and a.dest != "help"]
    assert {a.dest for a in documented} == {f.name for f in fields}
    assert all("(default:" in a.help for a in documented if a.option_strings)


# -- the shipped models --------------------------------------------------------------------

SHIPPED = [(game, kind) for game in ("tictactoe", "littlego") for kind in ("ppo", "a2c")
           if (Path(tictacgo.baselines.__file__).parent / "models" / f"{game}_{kind}.zip").exists()]


def test_the_package_ships_a_ppo_model_for_each_game_and_an_a2c_model_for_tictactoe():
    assert {("tictactoe", "ppo"), ("tictactoe", "a2c"), ("littlego", "ppo")} <= set(SHIPPED)


@pytest.mark.parametrize("game_name,kind", SHIPPED)
def test_a_shipped_model_loads_without_network_and_plays_only_legal_moves(monkeypatch, game_name, kind):
    import socket

    def no_network(*args, **kwargs):
        raise OSError("no network in this test")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    agent = make_agent(kind, game_name, rng=np.random.default_rng(0))
    for seed in range(5):
        record = play_game(game_name, agent, make_agent("random", game_name), rng=np.random.default_rng(seed))
        assert record.forfeit == ""
