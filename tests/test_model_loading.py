"""Loading trained-model zips runs no code from the file: crafted payloads, the shipped models
loaded exactly as SB3 loads them, resuming without SB3's loader, and a fuzz of damaged zips."""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import re
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tictacgo.baselines import make_agent  # noqa: E402
from tictacgo.baselines.learning.policy_agent import PolicyAgent, load_model  # noqa: E402
from tictacgo.baselines.learning.training import sample_states  # noqa: E402
from tictacgo.baselines.model_agents import shipped_model  # noqa: E402
from tictacgo.games import make_game  # noqa: E402

TTT = make_game("tictactoe")
TTT_PPO = shipped_model("tictactoe", "maskable-ppo")


class _Payload:
    """Unpickles by evaluating ``code``: what a crafted model file would hide in its data JSON."""

    def __init__(self, code: str):
        self.code = code

    def __reduce__(self):
        return eval, (self.code,)


def _serialized(code: str) -> dict:
    blob = base64.b64encode(pickle.dumps(_Payload(code))).decode()
    return {":type:": "<class 'dict'>", ":serialized:": blob}


def _rewrite(src: Path, dst: Path, data=None, members: dict[str, bytes] | None = None) -> None:
    """Copy the zip ``src`` to ``dst`` with its data JSON (a dict) or other members replaced."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            raw = zin.read(name)
            if name == "data" and data is not None:
                raw = json.dumps(data).encode()
            if members and name in members:
                raw = members[name]
            zout.writestr(name, raw)


def _data(src: Path = TTT_PPO) -> dict:
    with zipfile.ZipFile(src) as z:
        return json.loads(z.read("data"))


def _moves(agent) -> list[int]:
    return [agent.act(s) for s in sample_states(TTT, 100, np.random.default_rng(0))]


@pytest.mark.parametrize("where", ["observation_space", "policy_kwargs", "extra key"])
def test_a_payload_in_a_model_file_never_runs_and_the_model_plays_as_the_clean_one(tmp_path, where):
    marker = tmp_path / "payload-ran"
    touch = f"open({str(marker)!r}, 'w').close()"
    # Each payload also returns a value the field could hold, so SB3's loader played on after running it.
    value = {"observation_space": f"({touch}, __import__('gymnasium').spaces.Box(-1, 1, (9,), "
                                  f"__import__('numpy').int8))[1]",
             "policy_kwargs": f"({touch}, {{'net_arch': [128, 128]}})[1]",
             "extra key": f"({touch}, None)[1]"}[where]
    data = _data()
    data["evil" if where == "extra key" else where] = _serialized(value)
    evil = tmp_path / "evil.zip"
    _rewrite(TTT_PPO, evil, data)
    agent = make_agent(f"ppo:path={evil}", "tictactoe")
    assert not marker.exists(), "loading the model ran the code in its file"
    clean = make_agent(f"ppo:path={TTT_PPO}", "tictactoe")
    assert _moves(agent) == _moves(clean)


def test_a_policy_keyword_the_project_never_sets_is_refused_without_being_read(tmp_path):
    marker = tmp_path / "payload-ran"
    data = _data()
    data["policy_kwargs"] = {**_serialized(f"open({str(marker)!r}, 'w').close()"),
                             "activation_fn": "<class 'torch.nn.modules.activation.ReLU'>"}
    odd = tmp_path / "relu.zip"
    _rewrite(TTT_PPO, odd, data)
    with pytest.raises(ValueError, match="activation_fn.*cannot be rebuilt"):
        load_model(odd, "maskable-ppo", TTT)
    assert not marker.exists()


@pytest.mark.parametrize("name,algo,game_name", [("tictactoe_ppo", "maskable-ppo", "tictactoe"),
                                                 ("tictactoe_a2c", "a2c", "tictactoe"),
                                                 ("littlego_ppo", "maskable-ppo", "littlego")])
def test_a_shipped_model_gives_the_logits_of_sb3s_own_loader(name, algo, game_name):
    game = make_game(game_name)
    path = Path(shipped_model(game_name, algo)).with_name(f"{name}.zip")
    saved_by = _saving_python(path)
    if saved_by != f"{sys.version_info[0]}.{sys.version_info[1]}":
        pytest.skip(f"SB3's own loader unpickles code saved by Python {saved_by}, which this one cannot run")
    safe = PolicyAgent(game, load_model(path, algo, game))
    with pytest.warns(UserWarning, match="runs any code stored in the file"):
        trusted = PolicyAgent(game, load_model(path, algo, game, trust=True))
    assert safe.format == trusted.format
    assert type(safe.policy) is type(trusted.policy)
    for s in sample_states(game, 200, np.random.default_rng(0)):
        assert np.array_equal(safe.logits(s), trusted.logits(s))


def _saving_python(path: Path) -> str:
    """The Python version (major.minor) that saved an SB3 zip, from its system_info.txt."""
    with zipfile.ZipFile(path) as z:
        info = z.read("system_info.txt").decode()
    return re.search(r"Python: (\d+\.\d+)", info).group(1)


def test_a_cnn_policy_model_of_any_size_loads_as_sb3_loads_it(tmp_path):
    import gymnasium
    from sb3_contrib import MaskablePPO

    from tictacgo.baselines.learning.networks import SmallResNetExtractor

    game = make_game("littlego", size=4)
    env = gymnasium.make("LittleGo-v0", board_size=4, observation="planes")
    kwargs = {"features_extractor_class": SmallResNetExtractor,
              "features_extractor_kwargs": {"channels": 8, "blocks": 3, "features_dim": 40},
              "net_arch": {"pi": [24], "vf": [16, 8]}}
    model = MaskablePPO("CnnPolicy", env, policy_kwargs=kwargs, n_steps=32, batch_size=32, seed=0)
    model.save(tmp_path / "cnn")
    safe = PolicyAgent(game, load_model(tmp_path / "cnn.zip", "maskable-ppo", game))
    with pytest.warns(UserWarning):
        trusted = PolicyAgent(game, load_model(tmp_path / "cnn.zip", "maskable-ppo", game, trust=True))
    for s in sample_states(game, 50, np.random.default_rng(0)):
        assert np.array_equal(safe.logits(s), trusted.logits(s))


def test_weights_that_ask_for_a_huge_network_are_refused_before_it_is_built(tmp_path):
    with zipfile.ZipFile(TTT_PPO) as z:
        sd = th.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    wide = 200_000  # tiny storages viewed as huge tensors: a 200,000 x 200,000 layer if built
    sd["mlp_extractor.policy_net.0.weight"] = th.zeros(1, 1).expand(wide, 9)
    sd["mlp_extractor.policy_net.2.weight"] = th.zeros(1, 1).expand(wide, wide)
    buf = io.BytesIO()
    th.save(sd, buf)
    assert len(buf.getvalue()) < 100_000
    path = tmp_path / "huge.zip"
    _rewrite(TTT_PPO, path, members={"policy.pth": buf.getvalue()})
    with pytest.raises(ValueError, match="parameters, over the"):
        load_model(path, "maskable-ppo", TTT)


def test_a_model_for_another_board_size_is_refused_by_the_safe_loader():
    with pytest.raises(ValueError, match="another game or size"):
        load_model(shipped_model("littlego", "maskable-ppo"), "maskable-ppo", make_game("littlego", size=4))


def test_a_fifo_or_a_directory_is_refused_as_a_model_file(tmp_path):
    os.mkfifo(tmp_path / "fifo.zip")
    (tmp_path / "dir.zip").mkdir()
    for name in ("fifo.zip", "dir.zip"):
        with pytest.raises(ValueError, match="not a regular file"):
            load_model(tmp_path / name, "maskable-ppo", TTT)


# -- resuming a run -------------------------------------------------------------------------

def test_resuming_restores_weights_optimizer_and_steps_without_sb3s_loader(tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    from tictacgo.baselines.learning import training
    from tictacgo.baselines.learning.training_config import TrainConfig

    cfg = TrainConfig(steps=128, n_envs=2, n_steps=64, eval_every=128, eval_games=1, out=str(tmp_path),
                      progress_bar=False, anneal_lr=True)
    training.train(cfg)
    ckpt = tmp_path / "checkpoint.zip"
    saved = MaskablePPO.load(ckpt, device="cpu")  # the project's own file: a trusted reference

    def refuse(*args, **kwargs):
        raise AssertionError("resume must not use SB3's pickle-based load")

    monkeypatch.setattr(MaskablePPO, "load", refuse)
    env = training.make_vec_env(cfg, TTT)
    model = training._new_model(cfg, env, str(tmp_path / "tb"))
    training.restore_checkpoint(model, ckpt)
    assert model.num_timesteps == saved.num_timesteps == 128
    for (k, a), (k2, b) in zip(model.policy.state_dict().items(), saved.policy.state_dict().items(),
                               strict=True):
        assert k == k2 and th.equal(a, b)
    mine, theirs = model.policy.optimizer.state_dict(), saved.policy.optimizer.state_dict()
    assert mine["param_groups"] == theirs["param_groups"]
    for k, v in theirs["state"].items():
        assert all(th.equal(v[f], mine["state"][k][f]) for f in v)
    cfg.steps, cfg.resume = 192, True
    assert training.train(cfg).num_timesteps >= 192


# -- fuzz: truncated, random and crafted zips ---------------------------------------------------

FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _loads_or_refuses(path: Path) -> None:
    """The only outcomes allowed: a model that plays a legal move, or a ValueError."""
    try:
        model = load_model(path, "maskable-ppo", TTT)
    except ValueError:
        return
    s = TTT.initial_state()
    assert PolicyAgent(TTT, model).act(s) in TTT.legal_actions(s)


@FUZZ
@given(cut=st.integers(0, TTT_PPO.stat().st_size - 1))
def test_a_truncated_model_zip_is_refused(tmp_path, cut):
    path = tmp_path / "cut.zip"
    path.write_bytes(TTT_PPO.read_bytes()[:cut])
    with pytest.raises(ValueError):
        load_model(path, "maskable-ppo", TTT)


@FUZZ
@given(blob=st.binary(max_size=2000), zipped=st.booleans())
def test_random_bytes_as_a_model_file_are_refused(tmp_path, blob, zipped):
    path = tmp_path / "random.zip"
    if zipped:  # a valid zip around random members
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("data", blob)
            z.writestr("policy.pth", blob[::-1])
    else:
        path.write_bytes(blob)
    with pytest.raises(ValueError):
        load_model(path, "maskable-ppo", TTT)


_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
_JSON = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


@FUZZ
@given(kwargs=_JSON, steps=_JSON, drop=st.sampled_from([None, "action_net.weight", "value_net.bias",
                                                        "mlp_extractor.policy_net.2.weight"]),
       reshape=st.sampled_from([None, (10, 128), (9, 64), (128,)]), extra=st.booleans())
def test_a_crafted_model_zip_loads_a_legal_player_or_is_refused(tmp_path, kwargs, steps, drop, reshape,
                                                                extra):
    data = _data()
    data["policy_kwargs"], data["num_timesteps"] = kwargs, steps
    with zipfile.ZipFile(TTT_PPO) as z:
        sd = th.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    if drop:
        del sd[drop]
    if reshape:
        sd["action_net.weight"] = th.zeros(reshape)
    if extra:
        sd["features_extractor.net.0.weight"] = th.zeros(32, 4, 3, 3)
    buf = io.BytesIO()
    th.save(sd, buf)
    path = tmp_path / "crafted.zip"
    _rewrite(TTT_PPO, path, data, {"policy.pth": buf.getvalue()})
    _loads_or_refuses(path)


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path, monkeypatch):
    from tictacgo.baselines.learning import model_zip

    monkeypatch.setattr(model_zip, "MAX_WEIGHTS_BYTES", 1 << 20)
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(TTT_PPO) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        zout.writestr("data", zin.read("data"))
        zout.writestr("policy.pth", b"\0" * (2 << 20))
    with pytest.raises(ValueError, match="over the"):
        load_model(path, "maskable-ppo", TTT)
