"""AlphaZero self-play on Ray actors (``--actors N``): positions reach the learner's buffer, weights
reach the actors, the run checkpoints and resumes like the one-process run.

The tests that start actors need ray (``pip install 'tictacgo[ray]'``) and share one local Ray
instance of two CPUs; the others (the actor's body called in this process, a missing ray) run
wherever torch is installed.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tictacgo.baselines.learning.alphazero import actors  # noqa: E402
from tictacgo.baselines.learning.alphazero.actors import (  # noqa: E402
    ActorPool,
    ActorSettings,
    SelfPlayWorker,
    load_arrays,
    weights_to_arrays,
)
from tictacgo.baselines.learning.alphazero.network import Architecture, PolicyValueNet, load_model  # noqa: E402
from tictacgo.baselines.learning.alphazero.replay import ReplayBuffer  # noqa: E402
from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig, train  # noqa: E402
from tictacgo.baselines.registry import make_agent  # noqa: E402
from tictacgo.cli import main  # noqa: E402
from tictacgo.games import TicTacToe  # noqa: E402

TTT = TicTacToe()
SMALL = {"channels": 8, "blocks": 1, "num_games": 16, "simulations": 4, "batch_size": 32, "min_buffer": 32,
         "buffer_size": 4000, "max_seconds": 0, "checkpoint_every": 1e9, "progress": False,
         "tensorboard": False}


def _net(seed: int) -> PolicyValueNet:
    torch.manual_seed(seed)
    return PolicyValueNet(Architecture.for_variant(TTT, channels=8, blocks=1))


def _settings() -> ActorSettings:
    cfg = AlphaZeroConfig(**{**SMALL, "max_positions": 64})
    return ActorSettings.of_run(cfg, _net(0).arch)


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="needs ray: pip install 'tictacgo[ray]'")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


# -- the actor's body, in this process ---------------------------------------------------------

def test_the_weights_travel_as_plain_arrays_and_load_into_an_equal_network():
    arrays = weights_to_arrays(_net(1))
    assert all(type(a) is np.ndarray for a in arrays.values())
    other = _net(2)
    load_arrays(other, arrays)
    for name, t in other.state_dict().items():
        assert np.array_equal(t.numpy(), arrays[name]), name


def test_a_worker_plays_with_the_weights_and_version_it_was_sent():
    worker = SelfPlayWorker(_settings(), (0, (0, 0)))
    with pytest.raises(ValueError, match="before it was sent weights"):
        worker.play(None, 0, 1)
    learner = _net(3)
    result = worker.play(weights_to_arrays(learner), 7, 12)
    assert result["version"] == 7 and result["moves"] == 12 and result["games"] > 0
    for name, t in worker.net.state_dict().items():
        assert torch.equal(t, learner.state_dict()[name]), name
    pos = result["positions"]
    assert len(pos["value"]) == len(pos["planes"]) == len(pos["policy"]) > 0
    assert np.allclose(pos["policy"].sum(-1), 1, atol=1e-5)
    again = worker.play(None, 9, 2)  # no weights sent: it keeps the ones (and the version) it holds
    assert again["version"] == 7


def test_two_workers_with_other_seeds_play_other_games():
    a, b = (SelfPlayWorker(_settings(), (0, (0, i))) for i in (0, 1))
    weights = weights_to_arrays(_net(4))
    pa, pb = (w.play(weights, 0, 12)["positions"] for w in (a, b))
    assert not (pa["planes"].shape == pb["planes"].shape and np.array_equal(pa["planes"], pb["planes"]))


# -- without ray -------------------------------------------------------------------------------

def test_actors_without_ray_is_refused_in_one_line_naming_the_extra(tmp_path, capsys, monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == "ray" else real_find_spec(name, *a, **k))
    monkeypatch.delitem(sys.modules, "ray", raising=False)
    out = tmp_path / "run"
    code = main(["train", "tictactoe", "--algo", "alphazero", "--actors", "2", "--max-positions", "64",
                 "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tictacgo train: error: --actors 2 needs ray, which is not installed: "
                   "pip install 'tictacgo[ray]'"]
    assert not out.exists()


def test_without_actors_the_run_never_starts_ray(tmp_path, monkeypatch):
    def no_ray(*args, **kwargs):
        raise AssertionError("the one-process path started actors")

    monkeypatch.setattr("tictacgo.baselines.learning.alphazero.train.start_actors", no_ray)
    progress = train(AlphaZeroConfig(**{**SMALL, "out": str(tmp_path / "run"), "max_positions": 16 * 4}),
                     log=lambda *_: None)
    assert progress["positions"] == 64 and "actors" not in progress


def test_the_actors_go_to_ray_address_when_it_is_set_and_to_a_ray_of_their_own_otherwise(monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.9:6379")
    assert actors.ray_address() == "10.0.0.9:6379"
    monkeypatch.delenv("RAY_ADDRESS")
    assert actors.ray_address() == "local"


# -- on Ray ------------------------------------------------------------------------------------

def test_two_actors_train_checkpoint_and_resume_with_every_position_in_the_buffer(local_ray, tmp_path,
                                                                                   monkeypatch):
    returned, added = [], []
    real_step, real_add = ActorPool.step, ReplayBuffer.add
    monkeypatch.setattr(ActorPool, "step",
                        lambda self: returned.append(p := real_step(self)) or p)
    monkeypatch.setattr(ReplayBuffer, "add", lambda self, planes, *a, **k: added.append(len(planes))
                        or real_add(self, planes, *a, **k))
    out = tmp_path / "run"
    cfg = AlphaZeroConfig(**SMALL, out=str(out), actors=2, actor_moves=3, max_positions=16 * 3 * 12)
    first = train(cfg, log=lambda *_: None)
    assert first["positions"] == 16 * 3 * 12 and first["actors"]["calls"] == 12
    assert first["games"] > 0 and first["gradient_steps"] > 0
    finished = [len(p) for p in returned if p is not None]
    assert finished and added == finished  # every position the actors sent went into the buffer
    saved = np.load(out / "resume" / json.loads((out / "resume" / "progress.json").read_text())["replay"])
    assert int(saved["meta"][2]) == sum(finished)  # positions ever added, as saved for --resume
    assert first["actors"]["newest_weights_played"] > 0  # trained weights reached an actor
    net, variant, meta = load_model(out)
    assert variant == TTT and meta["info"]["positions"] == first["positions"]

    cfg.resume, cfg.max_positions = True, 16 * 3 * 18
    second = train(cfg, log=lambda *_: None)
    assert second["positions"] == 16 * 3 * 18 and second["gradient_steps"] > first["gradient_steps"]
    assert len(second["checkpoints"]) == 2
    assert second["actors"]["newest_weights_played"] >= first["gradient_steps"]  # the resumed weights
    agent = make_agent(f"az:path={out},sims=4", TTT)
    s = TTT.initial_state()
    assert TTT.legal_bits(s) >> agent.act(s) & 1


def test_new_weights_reach_every_actor_with_their_version(local_ray):
    net = _net(5)
    version = [0]
    pool = ActorPool(local_ray, _settings(), 2, seed=0, resumed_at=0, net=net, version=lambda: version[0],
                     moves=2)
    try:
        pool.wait_ready()
        assert pool.weights_sent == 2
        for _ in range(2):  # calls sent before the new weights
            pool.step()
        assert pool.newest_played == 0
        load_arrays(net, weights_to_arrays(_net(6)))
        version[0] = 1
        for _ in range(60):  # until each actor has played with them (one may return several times first)
            if pool.played == [1, 1]:
                break
            pool.step()
        assert pool.played == [1, 1] and pool.largest_lag <= 1
        assert pool.weights_sent == 4  # once each at the start, once each with version 1, and no more
    finally:
        pool.close()


def test_a_failing_actor_stops_the_run_in_one_line_with_the_last_checkpoint_kept(local_ray, tmp_path, capsys,
                                                                                 monkeypatch):
    out = tmp_path / "run"
    base = ["train", "tictactoe", "--algo", "alphazero", "--actors", "2", "--channels", "8", "--blocks", "1",
            "--num-games", "8", "--simulations", "2", "--max-seconds", "0", "--no-progress",
            "--no-tensorboard", "--out", str(out)]
    assert main([*base, "--max-positions", "32", "--actor-moves", "2"]) == 0
    capsys.readouterr()
    # The actors run in other processes: a bad setting only they use makes each call fail there.
    real = ActorSettings.of_run
    monkeypatch.setattr(ActorSettings, "of_run", lambda cfg, arch: real(cfg, arch).__class__(
        **{**real(cfg, arch).__dict__, "search": {"search": "nonsense"}}))
    assert main([*base, "--max-positions", "64", "--resume"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "self-play actor" in err[0] and "search must be one of" in err[0], err
    assert json.loads((out / "model.json").read_text())["info"]["positions"] == 32


def test_the_self_play_rate_counts_whole_moves_in_process_and_whole_calls_on_actors(local_ray):
    from tictacgo.baselines.learning.alphazero.actor_throughput import self_play_rate

    cfg = AlphaZeroConfig(**SMALL, actor_moves=2, max_positions=64)
    here = self_play_rate(cfg, 0, 0.3)
    assert here["actors"] == 0 and here["positions"] % 16 == 0 and here["positions"] > 0
    assert here["positions_per_second"] == pytest.approx(here["positions"] / here["seconds"], rel=0.01)
    remote = self_play_rate(cfg, 2, 0.3)
    assert remote["actors"] == 2 and remote["positions"] % (16 * 2) == 0 and remote["positions"] > 0

