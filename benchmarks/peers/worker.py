"""A worker process of the peer benchmark: it serves JSON requests on stdin, one a line (set up a row,
measure it once, report the libraries' versions), so each family of libraries runs in a process of its
own with its thread pools set once. Run by the driver as ``python -m benchmarks.peers.worker``."""

from __future__ import annotations

import json
import os
import sys
import time
from importlib import metadata
from typing import Any

from .alphazero import pgx_mctx, tictacgo_az
from .cases import AZ_CASES, MCTS_CASES, PPO_CASES, Unavailable
from .others import envpool_play, openspiel_mctsbot, openspiel_play, pettingzoo_play, pgx_play
from .ours import tictacgo_aec, tictacgo_core, tictacgo_gym, tictacgo_mcts, tictacgo_vector
from .ppo import maskable_ppo


def build(spec: dict):
    """The measuring function of one row, set up (imports, jit compiles) once."""
    case, impl, batch = spec["case"], spec["impl"], spec["batch"]
    if case in MCTS_CASES:
        return {"tictacgo_mcts": tictacgo_mcts, "openspiel_mctsbot": openspiel_mctsbot}[impl](
            case, spec.get("position"), spec["sims"])
    if case in PPO_CASES:
        return maskable_ppo(case, impl, spec["ppo"])
    if case in AZ_CASES:
        return {"tictacgo_az": tictacgo_az, "pgx_mctx": pgx_mctx}[impl](case, spec["az"])
    return {"tictacgo_core": tictacgo_core, "tictacgo_aec": tictacgo_aec, "tictacgo_gym": tictacgo_gym,
            "tictacgo_vector": tictacgo_vector, "pettingzoo": pettingzoo_play, "openspiel": openspiel_play,
            "pgx": pgx_play, "envpool": envpool_play}[impl](case, batch)


def versions() -> dict:
    """The installed versions of the libraries the rows measure (those that are installed)."""
    out = {}
    for dist in ("numpy", "gymnasium", "pettingzoo", "open_spiel", "pgx", "mctx", "jax", "jaxlib", "torch",
                 "stable_baselines3", "sb3_contrib", "envpool", "tictacgo"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def worker_main() -> None:
    """Serve JSON requests on stdin, one per line: set up a case, or measure it once."""
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)            # whatever the libraries print goes to stderr, not into the replies
    sys.stdout = sys.stderr
    runners: dict[str, Any] = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "setup":
                t0 = time.perf_counter()
                runner = runners[req["key"]] = build(req["spec"])
                out = {"ok": True, "setup_s": time.perf_counter() - t0, **getattr(runner, "setup_info", {})}
            elif req["op"] == "measure":
                out = {"ok": True, **runners[req["key"]](req["budget"])}
            elif req["op"] == "versions":
                out = {"ok": True, "versions": versions()}
            else:
                raise ValueError(f"unknown op {req['op']!r}")
        except Unavailable as e:
            out = {"ok": False, "unavailable": str(e)}
        except Exception as e:  # reported to the driver, which notes it and goes on
            out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        reply.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    worker_main()
