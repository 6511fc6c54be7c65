"""The arena's Ray backend: the same games as the local process pool for the same seed.

The tests that play need ray (``pip install 'tictacgo[ray]'``) and share one
local Ray instance; the ones about a missing ray run everywhere.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import types

import pytest

from tictacgo.arena import run_match, run_round_robin
from tictacgo.cli import main


def _games(result):
    """Each game of a match without its timings: index, colours, moves, winner, reason."""
    return [(g.index, g.a_first, list(g.record.moves), g.record.winner, g.record.reason, g.record.forfeit)
            for g in result.games]


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="needs ray: pip install 'tictacgo[ray]'")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.parametrize("game, a, b", [("tictactoe", "random", "think1"),
                                        ("littlego", "random", "greedy")])
def test_ray_backend_plays_the_same_games_and_winners_as_the_local_backend(
        local_ray, monkeypatch, game, a, b):
    from tictacgo.arena import ray_backend

    calls = []
    real = ray_backend.execute_jobs
    monkeypatch.setattr(ray_backend, "execute_jobs", lambda *a, **k: calls.append(k) or real(*a, **k))
    local = run_match(game, a, b, games=24, seed=11, workers=1, progress=False)
    assert not calls
    remote = run_match(game, a, b, games=24, seed=11, backend="ray", progress=False)
    assert len(calls) == 1  # the games went through Ray
    assert len(remote.games) == len(local.games) == 24
    assert _games(remote) == _games(local)
    assert remote.wdl() == local.wdl() and remote.wdl(1) == local.wdl(1)
    assert not remote.interrupted
    # The games differ from each other (so the equality above says something).
    assert len({tuple(g[2]) for g in _games(local)}) > 1


def test_ray_backend_round_robin_gives_the_local_cross_table(local_ray):
    specs = ["random", "think1", "minimax"]
    local = run_round_robin("tictactoe", specs, 6, seed=3, workers=1, progress=False)
    remote = run_round_robin("tictactoe", specs, 6, seed=3, backend="ray", progress=False)
    assert set(remote.matches) == set(local.matches) == {(0, 1), (0, 2), (1, 2)}
    for pair in local.matches:
        assert _games(remote.matches[pair]) == _games(local.matches[pair])
    assert remote.points_and_games()[0].tolist() == local.points_and_games()[0].tolist()


def test_arena_cli_with_backend_ray_writes_the_local_backend_results(local_ray, tmp_path, capsys):
    outs = {}
    for backend in ("local", "ray"):
        out = tmp_path / f"{backend}.json"
        code = main(["arena", "tictactoe", "random", "think1", "--games", "10", "--seed", "5",
                     "--backend", backend, "--workers", "1", "--no-progress", "--out", str(out)])
        assert code == 0
        outs[backend] = json.loads(out.read_text())
    capsys.readouterr()

    def without_times(doc):
        return [{k: v for k, v in g.items() if "time" not in k} for g in doc["games"]]

    assert len(outs["ray"]["games"]) == 10
    assert without_times(outs["ray"]) == without_times(outs["local"])


def test_backend_ray_without_ray_is_a_clear_error_naming_the_extra(monkeypatch, capsys):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == "ray" else real_find_spec(name, *a, **k))
    code = main(["arena", "tictactoe", "random", "think1", "--games", "2", "--backend", "ray"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--backend ray needs ray" in err and "tictacgo[ray]" in err


def test_run_match_on_ray_without_ray_raises_import_error_naming_the_extra(monkeypatch):
    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ModuleNotFoundError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(ImportError, match=r"tictacgo\[ray\]"):
        run_match("tictactoe", "random", "think1", games=2, seed=0, backend="ray", progress=False)


def test_address_without_backend_ray_is_refused(capsys):
    assert main(["arena", "tictactoe", "random", "think1", "--games", "2", "--address", "auto"]) == 2
    assert "--address 'auto' is for --backend ray" in capsys.readouterr().err


def test_unknown_backend_is_a_value_error():
    with pytest.raises(ValueError, match="backend must be one of"):
        run_match("tictactoe", "random", "think1", games=2, seed=0, backend="dask", progress=False)


def test_backend_ray_with_no_cluster_at_the_address_is_a_one_line_error_with_status_1(monkeypatch, capsys):
    from tictacgo.arena import ray_backend

    def no_cluster(**kwargs):
        raise ConnectionError(f"Failed to connect to Ray cluster at {kwargs['address']}")

    fake_ray = types.SimpleNamespace(is_initialized=lambda: False, init=no_cluster)
    monkeypatch.setattr(ray_backend, "import_ray", lambda: fake_ray)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",  # as if ray were installed
                        lambda name, *a, **k: object() if name == "ray" else real_find_spec(name, *a, **k))
    code = main(["arena", "tictactoe", "random", "think1", "--games", "2", "--backend", "ray",
                 "--address", "10.0.0.9:6379", "--no-progress"])
    assert code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tictacgo arena: error: --backend ray could not reach Ray at '10.0.0.9:6379': "
                   "Failed to connect to Ray cluster at 10.0.0.9:6379"]
