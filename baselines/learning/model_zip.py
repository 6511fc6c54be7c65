"""Reading a stable-baselines3 model zip without running anything stored in it.

SB3 saves a model as a zip of ``data`` (JSON; what JSON cannot hold --
classes, spaces, schedules -- is cloudpickled into ``":serialized:"``
entries), ``policy.pth`` (the policy's ``state_dict``) and
``policy.optimizer.pth`` (the optimizer's). SB3's own ``load`` unpickles the
serialized entries, so a crafted file runs its payload. Here nothing from the
file is unpickled:

* the weights are read with ``torch.load(weights_only=True)``;
* the network is recognised by the names and shapes of its weights as one of
  this project's networks (``networks.policy_spec``: ``"mlp"`` with its
  hidden sizes, ``"two_branch"``, ``"resnet"``) and built afresh, then the
  weights are loaded into it strictly (every name and shape must match);
* the observation and action spaces are rebuilt from the game;
* of the ``data`` JSON only plain values are read (``num_timesteps``) and the
  key names of ``policy_kwargs``: a keyword the project's networks never set
  (a custom activation, say) means the network cannot be rebuilt from plain
  values, and the file is refused. Every other serialized entry is ignored.

Members are read with a size cap, so a zip bomb is refused too.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from typing import Any

import gymnasium as gym
import numpy as np
import torch as th

from tictacgo.baselines.learning.networks import policy_spec
from tictacgo.games.spec import Game

MAX_DATA_BYTES = 16 << 20       # the shipped models' data JSON: 6 to 21 kB
MAX_WEIGHTS_BYTES = 512 << 20   # the largest shipped policy.pth: 0.9 MB

# The policy_kwargs this project's training sets: the hidden sizes, the network's feature
# extractor (recognised from the weights) and A2C's RMSprop optimizer (irrelevant to play).
_KNOWN_POLICY_KWARGS = {"net_arch", "features_extractor_class", "optimizer_class", "optimizer_kwargs"}
_SERIALIZED_MARKERS = {":type:", ":serialized:"}


def _cap(name: str) -> int:
    return MAX_DATA_BYTES if name == "data" else MAX_WEIGHTS_BYTES


def read_model_zip(path: str | os.PathLike, members: tuple[str, ...] = ("policy.pth",)
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``data`` JSON of the SB3 zip at ``path`` and its torch ``members``, read without unpickling.

    Args:
        path: the model zip.
        members: the ``.pth`` members to read (``torch.load(weights_only=True)``).
    Returns:
        ``(data, loaded)``: ``data`` as JSON (serialized entries left as they are, never
        read) and ``loaded[member]``, the member's tensors and plain values.
    Raises:
        ValueError: not a regular file, not a zip, a member missing, too large or not plain weights.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"{path!r} is not a regular file")
    try:
        with zipfile.ZipFile(path) as zf:
            data = json.loads(_read_member(zf, "data", path).decode("utf-8"))
            if not isinstance(data, dict):
                raise ValueError("its data is not a JSON object")
            loaded = {}
            for name in members:
                raw = _read_member(zf, name, path)
                try:
                    loaded[name] = th.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
                except Exception as e:  # torch raises many kinds for damaged or non-weight content
                    raise ValueError(f"its {name} is not plain weights ({type(e).__name__}: {e})") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, UnicodeDecodeError,
            json.JSONDecodeError, NotImplementedError, RuntimeError) as e:
        raise ValueError(f"{path!r} is not a readable stable-baselines3 model zip "
                         f"({type(e).__name__}: {e}); is the file corrupt?") from None
    except ValueError as e:
        raise ValueError(f"{path!r} is not a readable stable-baselines3 model zip: {e}") from None
    return data, loaded


def _read_member(zf: zipfile.ZipFile, name: str, path: str) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise ValueError(f"it has no {name!r}") from None
    cap = _cap(name)
    if info.file_size > cap:
        raise ValueError(f"its {name!r} holds {info.file_size:,} bytes, over the {cap:,} allowed")
    with zf.open(info) as f:
        raw = f.read(cap + 1)  # the header's size is the file's word: read no more than the cap
    if len(raw) > cap:
        raise ValueError(f"its {name!r} holds over the {cap:,} bytes allowed")
    return raw


def _layers(state_dict: dict[str, Any], prefix: str) -> list[tuple[int, int]]:
    """(out, in) of the linear layers ``prefix.<k>.weight``, in order."""
    found = []
    for key, value in state_dict.items():
        m = re.fullmatch(re.escape(prefix) + r"\.(\d+)\.weight", key)
        if m and getattr(value, "ndim", 0) == 2:
            found.append((int(m.group(1)), tuple(int(x) for x in value.shape)))
    return [shape for _, shape in sorted(found)]


def recognise_network(state_dict: dict[str, Any]) -> tuple[str, Any, int | None]:
    """``(name, net_arch, input_size)`` of the network whose weights are ``state_dict``.

    ``name`` is one of ``networks.POLICIES``; ``net_arch`` the "mlp" policy's hidden sizes
    (None for the others, whose heads are fixed); ``input_size`` the MLP's observation size
    (None for the others: their observation format is fixed).

    Raises:
        ValueError: weights of no network this project builds.
    """
    if not isinstance(state_dict, dict) or not all(isinstance(k, str) and isinstance(v, th.Tensor)
                                                   for k, v in state_dict.items()):
        raise ValueError("its policy weights are not a state_dict of tensors")
    if {"features_extractor.conv.0.weight", "features_extractor.common.0.weight"} <= state_dict.keys():
        return "two_branch", None, None
    if "features_extractor.net.0.weight" in state_dict:
        return "resnet", None, None
    if any(k.startswith("features_extractor.") for k in state_dict) or "action_net.weight" not in state_dict:
        raise ValueError("its weights are of a network this project does not build "
                         "(mlp, two_branch, resnet)")
    pi, vf = _layers(state_dict, "mlp_extractor.policy_net"), _layers(state_dict, "mlp_extractor.value_net")
    first = pi[0] if pi else tuple(state_dict["action_net.weight"].shape)
    net_arch: Any = [o for o, _ in pi]
    if pi != vf:
        net_arch = {"pi": [o for o, _ in pi], "vf": [o for o, _ in vf]}
    return "mlp", net_arch, int(first[1])


def _check_policy_kwargs(data: dict[str, Any]) -> None:
    kwargs = data.get("policy_kwargs", {})
    if kwargs is None:
        return
    if not isinstance(kwargs, dict):
        raise ValueError(f"its policy_kwargs are not a JSON object: {kwargs!r}")
    unknown = sorted(set(kwargs) - _KNOWN_POLICY_KWARGS - _SERIALIZED_MARKERS)
    if unknown:
        raise ValueError(f"its policy_kwargs set {', '.join(unknown)}, which this project's networks "
                         f"never set, so the network cannot be rebuilt from plain values")


def observation_space(game: Game, fmt: str) -> gym.spaces.Box:
    """The envs' observation space of ``game`` in format ``fmt`` ("flat", "board", "planes")."""
    spec = game.spec
    n = spec.board_shape[0]
    if fmt == "planes":
        return gym.spaces.Box(0.0, 1.0, (spec.num_planes, n, n), np.float32)
    return gym.spaces.Box(-1, 1, (n * n,) if fmt == "flat" else (n, n), np.int8)


def rebuild_policy(game: Game, algo: str, data: dict[str, Any], state_dict: dict[str, Any]):
    """The policy of a model zip's ``data`` and weights, built afresh for ``game`` (CPU, eval mode).

    Raises:
        ValueError: a network this project does not build, or one trained for another game or size.
    """
    _check_policy_kwargs(data)
    name, net_arch, input_size = recognise_network(state_dict)
    spec = game.spec
    n = spec.board_shape[0]
    if name == "resnet":
        fmt = "planes"
    elif name == "two_branch":
        fmt = "flat"
    elif input_size == n * n:
        fmt = "flat"  # "board" flattens to the same numbers for an MLP
    elif input_size == spec.num_planes * n * n:
        fmt = "planes"
    else:
        raise ValueError(f"its network reads {input_size} numbers, which fits no observation of "
                         f"{spec.name} on a {n}x{n} board: it was trained for another game or size")
    actions = int(state_dict["action_net.weight"].shape[0])
    if actions != spec.num_actions:
        raise ValueError(f"the model has {actions} actions, {spec.name} has {spec.num_actions}: "
                         f"it was trained for another game or size")
    cls, kwargs = policy_spec(name, algo)
    if name == "mlp":
        kwargs = {"net_arch": net_arch}
    if cls == "MlpPolicy":
        if algo == "maskable-ppo":
            from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy as cls
        else:
            from stable_baselines3.common.policies import ActorCriticPolicy as cls
    policy = cls(observation_space(game, fmt), gym.spaces.Discrete(spec.num_actions),
                 lr_schedule=lambda _: 0.0, **kwargs)
    try:
        policy.load_state_dict(state_dict, strict=True)
    except RuntimeError as e:
        raise ValueError(f"its weights do not fit the {name} network for {spec.name} on a {n}x{n} "
                         f"board: it was trained for another game or size ({e})") from None
    return policy.to("cpu").eval()
