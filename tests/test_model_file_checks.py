"""Damaged or crafted model files are refused at load with one ValueError naming the file.

Each case starts from a shipped model copied to a temporary folder and
changes one thing, keeping the SHA-256 in ``model.json`` right where the
case needs it (a crafted file can always match its own description). The
loaders bound what they allocate before they allocate it, so a zip bomb or a
header declaring a huge array costs nothing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import shutil
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tictacgo.baselines import make_agent
from tictacgo.baselines.learning.alphazero.agent import shipped_model
from tictacgo.baselines.learning.alphazero.modelfile import MAX_BLOCKS, MAX_CHANNELS
from tictacgo.baselines.model_agents import shipped_model as shipped_policy
from tictacgo.cli import main
from tictacgo.games import make_game

GO5 = make_game("littlego")
TTT = make_game("tictactoe")
HAS_TORCH = importlib.util.find_spec("torch") is not None


# -- crafting ----------------------------------------------------------------------------------

def az_copy(tmp_path: Path, game: str = "littlego") -> Path:
    folder = tmp_path / f"{game}_model"
    shutil.copytree(shipped_model(game), folder, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    return folder


def meta_of(folder: Path) -> dict:
    return json.loads((folder / "model.json").read_text())


def write_meta(folder: Path, meta) -> None:
    (folder / "model.json").write_text(meta if isinstance(meta, str) else json.dumps(meta))


def put(folder: Path, name: str, data: bytes) -> None:
    """Write ``folder/name`` and name its SHA-256 in ``model.json``, as a crafted model would."""
    (folder / name).write_bytes(data)
    meta = meta_of(folder)
    meta["numpy_sha256" if name == "model.npz" else "weights_sha256"] = hashlib.sha256(data).hexdigest()
    write_meta(folder, meta)


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def shipped_arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def bomb_npz(arrays: dict[str, np.ndarray], name: str, megabytes: int) -> bytes:
    """``arrays`` with ``name`` replaced by ``megabytes`` MiB of zeros, deflated to a small file."""
    buf = io.BytesIO()
    count = (megabytes << 20) // 4
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for key, value in arrays.items():
            if key != name:
                zf.writestr(f"{key}.npy", npz_member(value))
        with zf.open(f"{name}.npy", "w", force_zip64=True) as f:
            f.write(npy_header((count,)))
            chunk = bytes(1 << 20)
            for _ in range(megabytes):
                f.write(chunk)
    return buf.getvalue()


def npz_member(value: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, value)
    return buf.getvalue()


def refuses(spec: str, match: str, game=GO5) -> str:
    with pytest.raises(ValueError, match=match) as info:
        make_agent(spec, game, rng=np.random.default_rng(0))
    assert "\n" not in str(info.value)
    return str(info.value)


def peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- model.json ----------------------------------------------------------------------------------

@pytest.mark.parametrize("field,value,says", [
    ("blocks", 10**8, f"blocks must be an int in \\[0, {MAX_BLOCKS}\\]"),
    ("channels", 200_000, f"channels must be an int in \\[1, {MAX_CHANNELS}\\]"),
    ("channels", 1000, "weights, over the"),
    ("value_hidden", -1, "value_hidden must be"),
    ("blocks", "4", "blocks must be an int"),
    ("board", 7, "board is 7, but littlego 5x5"),
    ("num_actions", 10**12, "num_actions must be"),
])
def test_an_architecture_out_of_bounds_is_refused_before_anything_is_built(tmp_path, field, value, says):
    folder = az_copy(tmp_path)
    meta = meta_of(folder)
    meta["architecture"][field] = value
    write_meta(folder, meta)
    message = refuses(f"az:path={folder}", says)
    assert "model.json" in message


def test_a_deeply_nested_model_json_is_refused(tmp_path):
    folder = az_copy(tmp_path)
    write_meta(folder, '{"format": "tictacgo-alphazero-1", "info": ' + "[" * 100_000 + "]" * 100_000 + "}")
    refuses(f"az:path={folder}", "model.json is nested too deeply")


@pytest.mark.parametrize("drop", ["variant", "architecture"])
def test_a_model_json_without_its_variant_or_architecture_is_refused(tmp_path, drop):
    folder = az_copy(tmp_path)
    meta = meta_of(folder)
    del meta[drop]
    write_meta(folder, meta)
    refuses(f"az:path={folder}", f"model.json has no (usable )?{drop}")


def test_a_model_json_over_the_size_cap_is_refused_unread(tmp_path):
    folder = az_copy(tmp_path)
    meta = meta_of(folder)
    meta["info"]["padding"] = "x" * (2 << 20)
    write_meta(folder, meta)
    refuses(f"az:path={folder}", "model.json is over the")


# -- model.npz (AlphaZero's numpy export) -----------------------------------------------------------

def test_an_npz_zip_bomb_with_a_matching_hash_is_refused_without_inflating(tmp_path):
    folder = az_copy(tmp_path)
    put(folder, "model.npz", bomb_npz(shipped_arrays(folder / "model.npz"), "stem.w", 64))
    peak = peak_bytes(lambda: refuses(f"az:path={folder}", "model.npz is not a usable model export: its "
                                                           "array 'stem.w' has shape"))
    assert peak < 16 << 20, f"refusing the bomb allocated {peak / 2**20:.0f} MiB"


def test_an_npz_header_declaring_a_huge_shape_is_refused_unread(tmp_path):
    folder = az_copy(tmp_path)
    buf = io.BytesIO()
    arrays = shipped_arrays(folder / "model.npz")
    with zipfile.ZipFile(buf, "w") as zf:
        for key, value in arrays.items():
            zf.writestr(f"{key}.npy", npy_header((10**12,)) if key == "value.fc2.w" else npz_member(value))
    put(folder, "model.npz", buf.getvalue())
    refuses(f"az:path={folder}", r"'value.fc2.w' has shape \(1000000000000,\)")


def test_a_truncated_npz_with_a_matching_hash_is_refused(tmp_path):
    folder = az_copy(tmp_path)
    put(folder, "model.npz", (folder / "model.npz").read_bytes()[:5000])
    refuses(f"az:path={folder}", "model.npz is not a readable .npz archive")


@pytest.mark.parametrize("change,says", [
    (lambda a: a.update({"stem.b": a["stem.b"][:-1]}), r"'stem.b' has shape \(31,\), the model needs"),
    (lambda a: a.update({"stem.b": a["stem.b"].astype(np.float64)}), "'stem.b' holds float64"),
    (lambda a: a.pop("block3.c2.w"), "lacks the arrays"),
    (lambda a: a.update({"block4.c1.w": a["block3.c1.w"]}), "arrays the model does not have"),
    (lambda a: a["value.fc1.b"].__setitem__(3, np.nan), "NaN or infinite values in 'value.fc1.b'"),
], ids=["shape", "dtype", "missing", "extra", "nan"])
def test_npz_arrays_that_do_not_fit_the_architecture_are_refused_at_load(tmp_path, change, says):
    folder = az_copy(tmp_path)
    arrays = shipped_arrays(folder / "model.npz")
    change(arrays)
    put(folder, "model.npz", npz_bytes(arrays))
    refuses(f"az:path={folder}", says)


def test_an_npz_holding_a_pickled_object_is_refused_unread(tmp_path):
    folder = az_copy(tmp_path)
    arrays = shipped_arrays(folder / "model.npz")
    arrays["stem.b"] = np.array([{"a": 1}], dtype=object)
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # np.savez pickles object arrays
    put(folder, "model.npz", buf.getvalue())
    refuses(f"az:path={folder}", "holds Python objects")


# -- model.pt (the torch weights, played when there is no numpy export) ---------------------------

def torch_only(folder: Path) -> None:
    meta = meta_of(folder)
    del meta["numpy_sha256"]
    write_meta(folder, meta)


@pytest.mark.skipif(not HAS_TORCH, reason="torch weights need torch")
def test_an_architecture_that_does_not_fit_model_pt_is_refused(tmp_path):
    folder = az_copy(tmp_path)
    torch_only(folder)
    meta = meta_of(folder)
    meta["architecture"]["channels"] = 16
    write_meta(folder, meta)
    refuses(f"az:path={folder}", "model.pt does not fit the architecture in model.json")


class _Payload:
    def __reduce__(self):
        return print, ("a payload ran",)


@pytest.mark.skipif(not HAS_TORCH, reason="torch weights need torch")
def test_a_pickle_payload_in_model_pt_is_refused_in_one_line(tmp_path, capsys):
    import torch

    folder = az_copy(tmp_path)
    torch_only(folder)
    buf = io.BytesIO()
    torch.save({"stem.0.weight": _Payload()}, buf)
    put(folder, "model.pt", buf.getvalue())
    refuses(f"az:path={folder}", "model.pt is not plain weights")
    assert "a payload ran" not in capsys.readouterr().out


@pytest.mark.skipif(not HAS_TORCH, reason="torch weights need torch")
def test_nan_weights_in_model_pt_are_refused(tmp_path):
    import torch

    folder = az_copy(tmp_path)
    torch_only(folder)
    state = torch.load(folder / "model.pt", weights_only=True)
    state["trunk.0.c1.weight"][0, 0, 0, 0] = float("nan")
    buf = io.BytesIO()
    torch.save(state, buf)
    put(folder, "model.pt", buf.getvalue())
    refuses(f"az:path={folder}", "NaN or infinite values in 'trunk.0.c1.weight'")


def deflated_torch_file(state: dict) -> bytes:
    """``torch.save(state)`` with its records deflated: zeros shrink to almost nothing."""
    import torch

    buf = io.BytesIO()
    torch.save(state, buf)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zin, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            zout.writestr(name, zin.read(name))
    return out.getvalue()


@pytest.mark.skipif(not HAS_TORCH, reason="torch weights need torch")
def test_a_model_pt_whose_records_inflate_past_the_architecture_is_refused_before_torch_reads_it(tmp_path):
    import torch

    folder = az_copy(tmp_path, "tictactoe")
    torch_only(folder)
    state = torch.load(folder / "model.pt", weights_only=True)
    state["stem.0.weight"] = torch.zeros(16 << 20)  # 64 MiB of zeros, a few kB deflated
    data = deflated_torch_file(state)
    assert len(data) < 1 << 20
    put(folder, "model.pt", data)
    refuses(f"az:path={folder}", "model.pt is not plain weights .*inflates to", TTT)


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="SB3 zips need the train extra")
def test_a_ppo_zip_whose_weights_inflate_past_the_cap_is_refused_before_torch_reads_them(tmp_path,
                                                                                          monkeypatch):
    import torch

    from tictacgo.baselines.learning import model_zip

    monkeypatch.setattr(model_zip, "MAX_WEIGHTS_BYTES", 4 << 20)
    src = shipped_policy("tictactoe", "maskable-ppo")
    with zipfile.ZipFile(src) as z:
        state = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    state["action_net.weight"] = torch.zeros(16 << 20)
    dst = tmp_path / "bomb.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, deflated_torch_file(state) if name == "policy.pth" else zin.read(name))
    refuses(f"ppo:path={dst}", "policy.pth is not plain weights: it inflates to", TTT)


# -- ppo / a2c: the numpy export and the SB3 zip's sidecar -----------------------------------------

def test_a_ppo_npz_with_nan_weights_is_refused_instead_of_playing_the_first_move(tmp_path):
    arrays = shipped_arrays(shipped_policy("tictactoe", "maskable-ppo", ".npz"))
    arrays["W1"][:] = np.nan
    path = tmp_path / "nan.npz"
    path.write_bytes(npz_bytes(arrays))
    refuses(f"ppo:path={path}", "NaN or infinite values in 'W1'", TTT)


def test_a_ppo_npz_zip_bomb_is_refused_without_inflating(tmp_path):
    arrays = shipped_arrays(shipped_policy("tictactoe", "maskable-ppo", ".npz"))
    path = tmp_path / "bomb.npz"
    path.write_bytes(bomb_npz(arrays, "W0", 64))
    peak = peak_bytes(lambda: refuses(f"ppo:path={path}", "layer 0", TTT))
    assert peak < 16 << 20, f"refusing the bomb allocated {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("change,says", [
    (lambda a: a.update({"W1": a["W1"][:, :-1]}), "layer 1"),
    (lambda a: a.update({"obs_shape": np.array([4, 4], np.int64)}), "obs_shape"),
    (lambda a: a.pop("b0"), "are not those of"),
    (lambda a: a.update({"W0": a["W0"].astype(np.float16)}), "layer 0"),
], ids=["chain", "obs_shape", "missing-bias", "dtype"])
def test_a_ppo_npz_whose_layers_do_not_chain_is_refused(tmp_path, change, says):
    arrays = shipped_arrays(shipped_policy("tictactoe", "maskable-ppo", ".npz"))
    change(arrays)
    path = tmp_path / "bad.npz"
    path.write_bytes(npz_bytes(arrays))
    refuses(f"ppo:path={path}", says, TTT)


def test_a_ppo_npz_declaring_a_negative_shape_is_refused_unread(tmp_path):
    arrays = shipped_arrays(shipped_policy("tictactoe", "maskable-ppo", ".npz"))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for key, value in arrays.items():
            zf.writestr(f"{key}.npy", npy_header((-5, -7)) if key == "W1" else npz_member(value))
    path = tmp_path / "negative.npz"
    path.write_bytes(buf.getvalue())
    refuses(f"ppo:path={path}", r"'W1.npy' declares a negative shape", TTT)


@pytest.mark.parametrize("suffix", [".npz", ".zip"])
def test_a_deeply_nested_sidecar_json_is_refused(tmp_path, suffix):
    if suffix == ".zip" and importlib.util.find_spec("sb3_contrib") is None:
        pytest.skip("SB3 zips need the train extra")
    path = tmp_path / f"model{suffix}"
    shutil.copy(shipped_policy("tictactoe", "maskable-ppo", suffix), path)
    (tmp_path / "model.json").write_text("[" * 100_000 + "]" * 100_000)
    refuses(f"ppo:path={path}", "model.json does not say which game.*nested too deeply", TTT)


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="SB3 zips need the train extra")
def test_a_ppo_zip_with_nan_weights_is_refused_at_load(tmp_path):
    import torch

    src = shipped_policy("tictactoe", "maskable-ppo")
    with zipfile.ZipFile(src) as z:
        state = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    key = next(k for k in state if k.endswith("weight"))
    state[key].fill_(float("nan"))
    buf = io.BytesIO()
    torch.save(state, buf)
    dst = tmp_path / "nan.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, buf.getvalue() if name == "policy.pth" else zin.read(name))
    refuses(f"ppo:path={dst}", f"NaN or infinite values in '{key}'", TTT)


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="SB3 zips need the train extra")
def test_a_ppo_zip_with_deeply_nested_data_json_is_refused(tmp_path):
    src = shipped_policy("tictactoe", "maskable-ppo")
    dst = tmp_path / "deep.zip"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            zout.writestr(name, b"[" * 100_000 + b"]" * 100_000 if name == "data" else zin.read(name))
    refuses(f"ppo:path={dst}", "data JSON is nested too deeply", TTT)


# -- the command line -------------------------------------------------------------------------------

def test_the_arena_refuses_a_crafted_model_in_one_line_before_any_game(tmp_path, monkeypatch, capsys):
    folder = az_copy(tmp_path)
    put(folder, "model.npz", (folder / "model.npz").read_bytes()[:5000])
    monkeypatch.chdir(tmp_path)
    assert main(["arena", "littlego", f"az:path={folder}", "random", "--games", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "model.npz" in err
