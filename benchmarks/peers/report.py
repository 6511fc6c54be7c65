"""The peer benchmark's report: the Markdown table with each tictacgo row's ratio to the peers on the
same case, batch and position, the AlphaZero rows' notes, and the machine the run measured."""

from __future__ import annotations

import os
import platform
import time

from .cases import AZ_CASES, OWN_BASELINES, PEERS, UNITS


def unit(case: str) -> str:
    return UNITS[case.split("_", 1)[1]]


def fmt_ratio(x: float) -> str:
    """``2.56x``; three decimals below 0.1 so that small ratios do not print as 0.00x."""
    return f"{x:.2f}x" if x >= 0.1 else f"{x:.3f}x"


def ratios(row: dict, rows: list[dict]) -> str:
    """A tictacgo row's rate over each peer's of the same case, batch and position, after its own
    baseline's (``OWN_BASELINES``: the vector env over the Gymnasium env at B = 1); "" for a peer."""
    if row["impl"] in PEERS:
        return ""
    own = OWN_BASELINES.get(row["impl"])
    compared = [r for r in rows if (r["impl"] in PEERS or r["impl"] == own) and r["case"] == row["case"]
                and r["batch"] == row["batch"] and r.get("position") == row.get("position")]
    compared.sort(key=lambda r: r["impl"] != own)  # the own baseline first, then the peers in row order
    return ", ".join(f"{fmt_ratio(row['per_s'] / r['per_s'])} {r['impl']}" for r in compared)


def markdown(rows: list[dict]) -> str:
    lines = ["| case | impl | B | rate (median) | unit | runs | vs peers (same case, B) |",
             "|---|---|---:|---:|---|---|---|"]
    for r in rows:
        case = r["case"] + (f" ({r['position']})" if r.get("position") else "")
        runs = ", ".join(f"{x:,.0f}" for x in r["runs"])
        lines.append(f"| {case} | {r['impl']} | {r['batch']} | {r['per_s']:,.0f} | {r['unit']} | {runs} "
                     f"| {ratios(r, rows)} |")
    return "\n".join(lines)


def alphazero_notes(rows: list[dict]) -> str:
    """Lines under the table for the AlphaZero rows: network evaluations per second, jit compile time."""
    lines = []
    for r in rows:
        if r["case"] in AZ_CASES:
            line = (f"{r['case']} {r['impl']} B={r['batch']}: {r['evals_per_s']:,.0f} network evaluations/s "
                    f"(median; {r['evals_per_position']:.1f} a position)")
            if r.get("compile_s") is not None:
                line += f", jit compile {r['compile_s']:.1f} s (not timed in the rates)"
            lines.append(line)
    return "\n".join(lines)


def machine_info(args, worker_versions: dict, load_before, load_after) -> dict:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cpu_count": os.cpu_count(),
            "python": platform.python_version(), "versions": worker_versions,
            "loadavg_before": load_before, "loadavg_after": load_after, "budget_s": args.budget,
            "repeats": args.repeats, "mcts_sims": args.sims, "ppo": ppo_settings(args),
            "alphazero": az_settings(args),
            "note": args.note, "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def ppo_settings(args) -> dict:
    if args.quick:
        return {"n_envs": 2, "n_steps": 32, "batch_size": 32, "n_epochs": 1}
    return {"n_envs": args.ppo_envs, "n_steps": args.ppo_n_steps, "batch_size": 256, "n_epochs": 10}


def az_settings(args) -> dict:
    if args.quick:
        return {"games": 4, "sims": 4, "channels": 8, "blocks": 1, "threads": 1, "precision": "float32"}
    return {"games": args.az_games, "sims": args.az_sims, "channels": args.az_channels,
            "blocks": args.az_blocks, "threads": args.az_threads, "precision": args.az_precision}
