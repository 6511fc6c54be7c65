"""Fuzzing the model loaders: a damaged model file gives a working agent or one clean ValueError.

The shipped small models (Tic-Tac-Toe's AlphaZero folder and its numpy PPO
export) are copied to a temporary folder and damaged at random, with a fixed
seed and a bounded count: bytes flipped, files cut short, the npz headers'
declared shapes changed, ``model.json`` values replaced by others of every
type, and the SHA-256 in ``model.json`` kept matching (a crafted file always
can). Each damaged model must either build an agent that plays a legal move
or be refused with a ``ValueError`` (one line), never another exception,
never a hang (each case has a few seconds) and never a large allocation.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import shutil
import signal
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tictacgo.baselines import make_agent
from tictacgo.baselines.learning.alphazero.agent import shipped_model
from tictacgo.baselines.model_agents import shipped_model as shipped_policy
from tictacgo.games import make_game

TTT = make_game("tictactoe")
SEED = 20261126
SECONDS_PER_CASE = 10  # a case takes milliseconds; the margin is for a busy machine
MAX_PEAK_BYTES = 64 << 20
HAS_TORCH = importlib.util.find_spec("torch") is not None

_ODD_VALUES = [None, True, -1, 0, 1, 3, 10**9, 10**30, 1.5, float("nan"), "x", "", [], {}, [[[[[1]]]]],
               {"game": "tictactoe"}, "littlego", -(10**12)]


class _Hang(Exception):
    pass


def _alarm(*_):
    raise _Hang(f"loading or playing a damaged model took over {SECONDS_PER_CASE} s")


# -- mutations of bytes -----------------------------------------------------------------------------

def flip_bytes(data: bytes, rng: np.random.Generator) -> bytes:
    out = bytearray(data)
    for i in rng.integers(0, len(out), size=int(rng.integers(1, 9))):
        out[i] ^= int(rng.integers(1, 256))
    return bytes(out)


def cut(data: bytes, rng: np.random.Generator) -> bytes:
    return data[:int(rng.integers(0, len(data)))]


def insert_bytes(data: bytes, rng: np.random.Generator) -> bytes:
    i = int(rng.integers(0, len(data)))
    return data[:i] + rng.bytes(int(rng.integers(1, 64))) + data[i:]


def change_declared_shape(data: bytes, rng: np.random.Generator) -> bytes:
    """One npy header's shape replaced (same length, so the archive's offsets still hold)."""
    shapes = [m for m in re.finditer(rb"'shape': \(([0-9, ]*)\)", data)]
    if not shapes:
        return flip_bytes(data, rng)
    m = shapes[int(rng.integers(len(shapes)))]
    digits = m.group(1)
    new = bytes(b if not chr(b).isdigit() else ord(str(rng.integers(10))) for b in digits)
    return data[:m.start(1)] + new + data[m.end(1):]


BYTE_MUTATIONS = [flip_bytes, cut, insert_bytes, change_declared_shape]


# -- mutations of JSON ------------------------------------------------------------------------------

def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))


def mutate_json(meta: dict, rng: np.random.Generator) -> str:
    """``meta`` with one value replaced, removed or a key added, or its text cut or deeply nested."""
    kind = int(rng.integers(5))
    if kind == 0:
        text = json.dumps(meta)
        return text[:int(rng.integers(0, len(text)))]
    if kind == 1:
        depth = int(rng.choice([10, 1000, 100_000]))
        return json.dumps({**meta, "info": "@"}).replace('"@"', "[" * depth + "]" * depth)
    meta = json.loads(json.dumps(meta))
    paths = [p for p in _paths(meta) if p and p[0] not in ("weights_sha256", "numpy_sha256", "info")]
    path = paths[int(rng.integers(len(paths)))]
    parent = meta
    for key in path[:-1]:
        parent = parent[key]
    if kind == 2:
        del parent[path[-1]]
    elif kind == 3:
        parent[path[-1]] = _ODD_VALUES[int(rng.integers(len(_ODD_VALUES)))]
    else:
        parent[f"extra{int(rng.integers(100))}"] = _ODD_VALUES[int(rng.integers(len(_ODD_VALUES)))]
    return json.dumps(meta)


# -- the property ---------------------------------------------------------------------------------

def builds_and_plays_or_refuses(spec: str) -> str:
    """"played" or "refused"; anything else (another exception, a hang, a huge allocation) fails."""
    timed = hasattr(signal, "SIGALRM")  # not on Windows: there the cases run untimed
    if timed:
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(SECONDS_PER_CASE)
    tracemalloc.start()
    try:
        try:
            agent = make_agent(spec, TTT, rng=np.random.default_rng(0))
            state = TTT.initial_state()
            action = agent.act(state)
        except ValueError as e:
            assert "\n" not in str(e), f"a refusal of {spec} spans lines: {e}"
            return "refused"
        assert action in TTT.legal_actions(state), f"{spec} played illegal action {action}"
        return "played"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        if timed:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        assert peak < MAX_PEAK_BYTES, f"{spec} allocated {peak / 2**20:.0f} MiB"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _az_case(tmp_path: Path, i: int, change: Callable[[Path], None]) -> str:
    folder = tmp_path / f"az{i}"
    shutil.copytree(shipped_model("tictactoe"), folder,
                    ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    change(folder)
    return builds_and_plays_or_refuses(f"az:path={folder},sims=2")


def _rewrite_weights(folder: Path, name: str, data: bytes, key: str) -> None:
    (folder / name).write_bytes(data)
    meta = json.loads((folder / "model.json").read_text())
    meta[key] = _sha(data)
    (folder / "model.json").write_text(json.dumps(meta))


# -- the tests --------------------------------------------------------------------------------------

@pytest.fixture(autouse=True, scope="module")
def _warm():
    """Import the agents' modules and load the engines' compiled kernels outside the timed cases."""
    for spec in ("az:sims=2", "ppo"):
        make_agent(spec, TTT, rng=np.random.default_rng(0)).act(TTT.initial_state())


def test_damaged_alphazero_numpy_exports_give_an_agent_or_one_clean_error(tmp_path):
    rng = np.random.default_rng(SEED)
    original = (shipped_model("tictactoe") / "model.npz").read_bytes()
    outcomes = []
    for i in range(40):
        mutation = BYTE_MUTATIONS[i % len(BYTE_MUTATIONS)]
        data = mutation(original, rng)
        outcomes.append(_az_case(tmp_path, i, lambda f, d=data: _rewrite_weights(f, "model.npz", d,
                                                                                  "numpy_sha256")))
    assert "refused" in outcomes  # the damage reached the checks, not only the weights' values


def test_mutated_alphazero_descriptions_give_an_agent_or_one_clean_error(tmp_path):
    rng = np.random.default_rng(SEED + 1)
    meta = json.loads((shipped_model("tictactoe") / "model.json").read_text())
    outcomes = []
    for i in range(60):
        text = mutate_json(meta, rng)
        outcomes.append(_az_case(tmp_path, i, lambda f, t=text: (f / "model.json").write_text(t)))
    assert "refused" in outcomes and "played" in outcomes


@pytest.mark.skipif(not HAS_TORCH, reason="torch weights need torch")
def test_damaged_alphazero_torch_weights_give_an_agent_or_one_clean_error(tmp_path):
    import torch  # noqa: F401  (imported here, outside each case's time limit)

    rng = np.random.default_rng(SEED + 2)
    original = (shipped_model("tictactoe") / "model.pt").read_bytes()

    def change(folder: Path, data: bytes) -> None:
        _rewrite_weights(folder, "model.pt", data, "weights_sha256")
        meta = json.loads((folder / "model.json").read_text())
        del meta["numpy_sha256"]  # play the torch weights
        (folder / "model.json").write_text(json.dumps(meta))

    outcomes = []
    for i in range(24):
        data = BYTE_MUTATIONS[i % 3](original, rng)
        outcomes.append(_az_case(tmp_path, i, lambda f, d=data: change(f, d)))
    assert "refused" in outcomes


def test_damaged_ppo_numpy_exports_give_an_agent_or_one_clean_error(tmp_path):
    rng = np.random.default_rng(SEED + 3)
    original = shipped_policy("tictactoe", "maskable-ppo", ".npz").read_bytes()
    outcomes = []
    for i in range(40):
        path = tmp_path / f"ppo{i}.npz"
        path.write_bytes(BYTE_MUTATIONS[i % len(BYTE_MUTATIONS)](original, rng))
        outcomes.append(builds_and_plays_or_refuses(f"ppo:path={path}"))
    assert "refused" in outcomes


def test_mutated_model_sidecars_give_an_agent_or_one_clean_error(tmp_path):
    rng = np.random.default_rng(SEED + 4)
    sidecar = {"game": "tictactoe", "variant": {}}
    outcomes = []
    for i in range(24):
        path = tmp_path / f"side{i}.npz"
        shutil.copy(shipped_policy("tictactoe", "maskable-ppo", ".npz"), path)
        path.with_suffix(".json").write_text(mutate_json(sidecar, rng))
        outcomes.append(builds_and_plays_or_refuses(f"ppo:path={path}"))
    assert "refused" in outcomes
