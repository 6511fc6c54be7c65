"""Reading a stable-baselines3 model zip without running anything stored in it.

SB3 saves a model as a zip of ``data`` (JSON; what JSON cannot hold --
classes, spaces, schedules -- is cloudpickled into ``":serialized:"``
entries), ``policy.pth`` (the policy's ``state_dict``) and
``policy.optimizer.pth`` (the optimizer's). SB3's own ``load`` unpickles the
serialized entries, so a crafted file runs its payload. Here nothing from the
file is unpickled:

* the weights are read with ``torch.load(weights_only=True)``;
* the network is recognised by the names and shapes of its weights as one of
  this project's networks (``networks``: SB3's MLP, the two-branch network,
  the small residual CNN, also as SB3's ``"CnnPolicy"``), its sizes read off
  the weights, and built afresh; the weights are then loaded into it
  strictly (every name and shape must match);
* the observation and action spaces are rebuilt from the game;
* weights holding NaN or infinite numbers are refused;
* of the ``data`` JSON only plain values are read (``num_timesteps``) and the
  key names of ``policy_kwargs``: a keyword the project's networks never set
  (a custom activation, say) means the network cannot be rebuilt from plain
  values, and the file is refused. Every other serialized entry is ignored.

Members are read with a size cap, and the weights' own records (torch's format
is a zip too) are checked against it before torch inflates them, so a zip
bomb is refused too.
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

from tictacgo.baselines.learning.networks import (
    MaskableTwoBranchPolicy,
    SmallResNetExtractor,
    TwoBranchExtractor,
    TwoBranchPolicy,
)
from tictacgo.baselines.model_reading import check_zip_size
from tictacgo.games.base import Game

MAX_DATA_BYTES = 16 << 20       # the shipped models' data JSON: 6 to 21 kB
MAX_WEIGHTS_BYTES = 512 << 20   # the largest shipped policy.pth: 0.9 MB

# The policy_kwargs this project's networks set: the hidden sizes, the feature extractor and its
# sizes (all read off the weights) and A2C's RMSprop optimizer (irrelevant to play).
_KNOWN_POLICY_KWARGS = {"net_arch", "features_extractor_class", "features_extractor_kwargs",
                        "optimizer_class", "optimizer_kwargs"}
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
                    check_zip_size(raw, _cap(name))  # torch inflates a deflated record: bound it first
                except (ValueError, zipfile.BadZipFile) as e:
                    raise ValueError(f"its {name} is not plain weights: {e}") from None
                try:
                    loaded[name] = th.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
                except Exception as e:  # torch raises many kinds for damaged or non-weight content
                    raise ValueError(f"its {name} is not plain weights ({type(e).__name__}: {e})") from None
    except RecursionError:
        raise ValueError(f"{path!r} is not a readable stable-baselines3 model zip: its data JSON is "
                         f"nested too deeply") from None
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


def _layers(state_dict: dict[str, Any], prefix: str) -> list[int]:
    """The output sizes of the linear layers ``prefix.<k>.weight`` of a ``Sequential``, in order."""
    found = []
    for key, value in state_dict.items():
        m = re.fullmatch(re.escape(prefix) + r"\.(\d+)\.weight", key)
        if m and value.ndim == 2:
            found.append((int(m.group(1)), int(value.shape[0])))
    return [size for _, size in sorted(found)]


def _shape(state_dict: dict[str, Any], key: str, ndim: int) -> tuple[int, ...]:
    value = state_dict.get(key)
    if value is None or value.ndim != ndim:
        raise ValueError(f"its weights have no {ndim}-d {key!r}")
    return tuple(int(x) for x in value.shape)


def recognise_network(state_dict: dict[str, Any]) -> tuple[str, dict[str, int], Any, int]:
    """What the weights ``state_dict`` are of: ``(extractor, extractor_kwargs, net_arch, input)``.

    ``extractor`` is "two_branch", "resnet" (``networks``) or "mlp" (SB3's flatten);
    ``extractor_kwargs`` its sizes, read off the weights (the two-branch's ``filters`` and
    ``hidden``, the residual CNN's ``channels``, ``blocks`` and ``features_dim``);
    ``net_arch`` the hidden sizes of the policy and value heads; ``input`` what the network
    reads: the number of board points (two_branch), the planes (resnet) or the observation size (mlp).

    Raises:
        ValueError: weights of no network this project builds.
    """
    if not isinstance(state_dict, dict) or not all(isinstance(k, str) and isinstance(v, th.Tensor)
                                                   for k, v in state_dict.items()):
        raise ValueError("its policy weights are not a state_dict of tensors")
    pi = _layers(state_dict, "mlp_extractor.policy_net")
    vf = _layers(state_dict, "mlp_extractor.value_net")
    net_arch: Any = pi if pi == vf else {"pi": pi, "vf": vf}
    if "features_extractor.conv.0.weight" in state_dict:
        filters = _shape(state_dict, "features_extractor.conv.0.weight", 4)[0]
        hidden, width = _shape(state_dict, "features_extractor.common.0.weight", 2)
        return "two_branch", {"filters": filters, "hidden": hidden}, net_arch, width // (filters + 1)
    if "features_extractor.net.0.weight" in state_dict:
        channels, planes = _shape(state_dict, "features_extractor.net.0.weight", 4)[:2]
        blocks = sum(bool(re.fullmatch(r"features_extractor\.net\.\d+\.body\.0\.weight", k))
                     for k in state_dict)
        features_dim = _shape(state_dict, f"features_extractor.net.{3 + blocks}.weight", 2)[0]
        sizes = {"channels": channels, "blocks": blocks, "features_dim": features_dim}
        return "resnet", sizes, net_arch, planes
    if any(k.startswith("features_extractor.") for k in state_dict):
        raise ValueError("its weights are of a network this project does not build "
                         "(mlp, two_branch, resnet)")
    first = "mlp_extractor.policy_net.0.weight" if pi else "action_net.weight"
    return "mlp", {}, net_arch, _shape(state_dict, first, 2)[1]


def _parameter_count(name: str, sizes: dict[str, int], net_arch: Any, game: Game, fmt: str) -> int:
    """How many parameters the network of ``recognise_network``'s answer has, before building it."""
    spec = game.spec
    cells = spec.num_points
    if name == "two_branch":
        f, h = sizes["filters"], sizes["hidden"]
        extractor, features = f * 10 + (f * cells + cells) * h + h, h
    elif name == "resnet":
        c, b, d = sizes["channels"], sizes["blocks"], sizes["features_dim"]
        extractor = c * spec.num_planes * 9 + c + b * 2 * (c * c * 9 + c) + (c * cells + 1) * d
        features = d
    else:
        extractor, features = 0, int(np.prod(observation_space(game, fmt).shape))
    total = extractor
    arch = net_arch if isinstance(net_arch, dict) else {"pi": net_arch, "vf": net_arch}
    for head, outputs in (("pi", spec.num_actions), ("vf", 1)):
        prev = features
        for width in [*arch[head], outputs]:
            total += (prev + 1) * width
            prev = width
    return total


def check_finite(state_dict: dict[str, Any]) -> None:
    """Refuse weights holding NaN or infinite numbers (the policy would fail or play nonsense).

    Raises:
        ValueError: naming the first such tensor.
    """
    for key, value in state_dict.items():
        if value.is_floating_point() and not bool(th.isfinite(value).all()):
            raise ValueError(f"its weights hold NaN or infinite values in {key!r}: they are damaged")


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
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.policies import ActorCriticPolicy

    _check_policy_kwargs(data)
    name, sizes, net_arch, reads = recognise_network(state_dict)
    spec = game.spec
    n = spec.board_shape[0]
    fmt = {("two_branch", n * n): "flat", ("resnet", spec.num_planes): "planes",
           ("mlp", n * n): "flat", ("mlp", spec.num_planes * n * n): "planes"}.get((name, reads))
    if fmt is None:  # "board" flattens to the numbers of "flat" for these networks
        raise ValueError(f"its {name} network reads {reads} {'planes' if name == 'resnet' else 'numbers'}, "
                         f"which fits no observation of {spec.name} on a {n}x{n} board: it was trained "
                         f"for another game or size")
    actions = _shape(state_dict, "action_net.weight", 2)[0]
    if actions != spec.num_actions:
        raise ValueError(f"the model has {actions} actions, {spec.name} has {spec.num_actions}: "
                         f"it was trained for another game or size")
    count = _parameter_count(name, sizes, net_arch, game, fmt)
    if count * 4 > MAX_WEIGHTS_BYTES:  # the sizes come from the file: build nothing unbounded
        raise ValueError(f"its network would have {count:,} parameters, over the "
                         f"{MAX_WEIGHTS_BYTES // 4:,} allowed")
    check_finite(state_dict)  # only now: a tensor's shape may claim more than its storage holds
    maskable = algo == "maskable-ppo"
    kwargs: dict[str, Any] = {"net_arch": net_arch}
    cls = MaskableActorCriticPolicy if maskable else ActorCriticPolicy
    if name == "two_branch":
        cls = MaskableTwoBranchPolicy if maskable else TwoBranchPolicy
        kwargs.update(features_extractor_class=TwoBranchExtractor, features_extractor_kwargs=sizes)
    elif name == "resnet":
        kwargs.update(features_extractor_class=SmallResNetExtractor, features_extractor_kwargs=sizes)
    try:
        policy = cls(observation_space(game, fmt), gym.spaces.Discrete(spec.num_actions),
                     lr_schedule=lambda _: 0.0, **kwargs)
        policy.load_state_dict(state_dict, strict=True)
    except (RuntimeError, ValueError) as e:
        raise ValueError(f"its weights do not fit the {name} network for {spec.name} on a {n}x{n} "
                         f"board: it was trained for another game or size ({e})") from None
    return policy.to("cpu").eval()
