"""The shipped MLP policies in plain numpy: the same moves as the SB3 model, without torch."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tictacgo.baselines import make_agent
from tictacgo.baselines.audit import reachable_positions
from tictacgo.baselines.model_agents import shipped_model
from tictacgo.baselines.numpy_policy import NumpyPolicyAgent, load_npz, save_npz
from tictacgo.games import littlego, tictactoe

TTT = tictactoe.TicTacToe()
GO = littlego.LittleGo()


NPZ = shipped_model("tictactoe", "maskable-ppo", ".npz")


def test_the_ppo_agent_plays_the_shipped_export_without_importing_torch():
    code = ("import sys; from tictacgo.baselines import make_agent;"
            "from tictacgo.games import tictactoe as t;"
            "a = make_agent('ppo', 'tictactoe');"
            "print(type(a).__name__, a.act(t.TicTacToe().initial_state()),"
            "'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    kind, _move, torch_loaded = out.split()
    assert kind == "NumpyPolicyAgent" and torch_loaded == "False"


def test_the_export_chooses_as_the_sb3_model_in_every_tictactoe_position():
    pytest.importorskip("sb3_contrib")
    from tictacgo.baselines.learning.policy_agent import PolicyAgent, load_model

    sb3 = PolicyAgent(TTT, load_model(shipped_model("tictactoe", "maskable-ppo"), "maskable-ppo", TTT))
    exported = NumpyPolicyAgent(TTT, load_npz(NPZ))
    for s in reachable_positions(TTT):
        assert exported.act(s) == sb3.act(s)
        p, q = exported.probabilities(s), sb3.probabilities(s)
        assert max(abs(p[a] - q[a]) for a in p) < 1e-5


def test_an_export_refuses_the_wrong_game_and_damaged_files(tmp_path):
    with pytest.raises(ValueError, match="another game or size"):
        NumpyPolicyAgent(GO, load_npz(NPZ))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="corrupt"):
        load_npz(bad)
    other = tmp_path / "other.npz"
    save_npz({"x": np.zeros(3)}, other)
    with pytest.raises(ValueError, match="not an exported policy"):
        load_npz(other)
    with pytest.raises(ValueError, match="no exported policy"):
        make_agent(f"ppo:path={tmp_path / 'missing.npz'}", "tictactoe")


def test_a_sampling_export_draws_only_legal_moves_reproducibly():
    s = tictactoe.play(TTT.initial_state(), 4)
    picks = [NumpyPolicyAgent(TTT, load_npz(NPZ), sample=True, rng=np.random.default_rng(k)).act(s)
             for k in range(20)]
    again = [NumpyPolicyAgent(TTT, load_npz(NPZ), sample=True, rng=np.random.default_rng(k)).act(s)
             for k in range(20)]
    assert picks == again and set(picks) <= set(tictactoe.legal_actions(s))


def test_non_mlp_policies_are_refused_by_the_export():
    pytest.importorskip("sb3_contrib")
    from tictacgo.baselines.learning.policy_agent import load_model
    from tictacgo.baselines.numpy_policy import export_mlp

    with pytest.raises(ValueError, match="TwoBranchExtractor"):
        export_mlp(load_model(shipped_model("tictactoe", "a2c"), "a2c", TTT))


def test_predicting_from_the_envs_observation_and_mask_agrees_with_acting_on_the_state():
    import gymnasium as gym

    import tictacgo  # noqa: F401

    agent = make_agent("ppo", "tictactoe")
    env = gym.make("TicTacToe-v0", opponent="random", learner="alternate")
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = agent.predict(obs, info["action_mask"])
            assert action == agent.act(env.unwrapped.game_state)
            obs, _, term, trunc, info = env.step(action)
            done = term or trunc
    with pytest.raises(ValueError, match="allows no action"):
        agent.predict(obs, np.zeros(9))


def test_the_demo_shows_the_shipped_learned_agents():
    code = "import sys; from tictacgo.cli import main; sys.exit(main([\"demo\", \"--games\", \"2\"]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "the shipped MaskablePPO" in out.stdout
    assert "skipped" not in out.stdout
    assert sum(line.split()[1] == "ppo" for line in out.stdout.splitlines() if line.split()[:1] in
               (["tictactoe"], ["littlego"])) == 4
