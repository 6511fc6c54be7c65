"""Judge a learned Tic-Tac-Toe agent: every live position, then matches, against the targets of its kind.

1. **Audit**: over all 4,520 reachable live positions, the share where the
   agent's move keeps the game-theoretic value (``tictacgo.baselines.audit``),
   split by the side to move; for a policy with raw logits, how often its
   unmasked favourite is illegal. Beside it: the rule-based ``think3`` for a
   learned policy; the raw network (``sims=0``) for an AlphaZero agent.
2. **Matches** from the empty board, W / D / L from the agent's view, as X and
   as O, against ``minimax`` and ``random`` (and ``think3`` for a learned
   policy, the actor-critic chapter's table).

The targets by kind (``kind_of``): ``az`` the raw network optimal in at least
99.5% of the positions and no game lost to minimax; ``a2c`` (trained without
masks) no loss to minimax and under 0.5% unmasked illegal favourites; any
other learned policy (``ppo``) no loss at all and at least 98% optimal moves.

Every agent gets its own generator spawned from one seed in a fixed order
(the audited agents, then two per opponent), so a seed gives the same tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tictacgo.baselines.audit import (
    argmax_illegal_rate,
    optimal_actions,
    optimal_rates_by_side,
    reachable_positions,
)
from tictacgo.baselines.registry import make_agent
from tictacgo.evaluation.progress import games_progress
from tictacgo.game_loop import play_wdl
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()
RAW_TARGET = 0.995       # AlphaZero: the raw network's share of optimal moves
POLICY_TARGET = 0.98     # a learned policy's share of optimal moves
ILLEGAL_TARGET = 0.005   # A2C: unmasked favourites that are illegal
THINK3_CHAPTER = "72 / 28 / 0; 9 / 91 / 0 of 100"   # the actor-critic chapter's agent against think3


@dataclass(frozen=True)
class Plan:
    """What one judgement plays: the audited specs (the agent's first or second) and the opponents."""

    kind: str
    audited: tuple[str, ...]
    opponents: tuple[tuple[str, int], ...]


def kind_of(spec: str) -> str:
    """``az``, ``a2c`` or ``policy``: which targets an agent spec is judged by."""
    name = spec.split(":")[0]
    return name if name in ("az", "a2c") else "policy"


def raw_network(spec: str) -> str:
    """The spec of an AlphaZero agent's raw network: its parameters with ``sims=0``."""
    name, _, params = spec.partition(":")
    kept = [p for p in params.split(",") if p and not p.startswith("sims=")]
    return f"{name}:" + ",".join([*kept, "sims=0"])


def plan(spec: str, games: int, think3_games: int) -> Plan:
    """The audit and the matches for agent ``spec``: ``games`` a side against minimax and random, and
    ``think3_games`` against think3 for a learned policy."""
    kind = kind_of(spec)
    if kind == "az":
        return Plan(kind, (raw_network(spec), spec), (("minimax", games), ("random", games)))
    return Plan(kind, (spec, "think3"), (("minimax", games), ("random", games), ("think3", think3_games)))


def audit(spec: str, rng: np.random.Generator, positions: list, optimal: list) -> dict[str, float]:
    """Optimal-move rates of ``spec`` (all, X to move, O to move) and its unmasked illegal rate if it has
    logits."""
    agent = make_agent(spec, TTT, rng=rng)
    out = optimal_rates_by_side(agent.act, positions, optimal)
    if hasattr(agent, "logits"):
        out["unmasked argmax illegal"] = argmax_illegal_rate(TTT, agent.logits, positions)
    return out


def matches(spec: str, opponents: tuple[tuple[str, int], ...], rng: np.random.Generator,
            progress: bool = True) -> dict[str, dict[str, tuple[int, int, int]]]:
    """W / D / L of ``spec`` against each opponent as X ("first") and as O ("second"), ``n`` games a side.

    A bar counts the games on a terminal when ``progress`` is set (``games_progress``)."""
    bar = games_progress(sum(2 * n for _, n in opponents), f"{spec} matches") if progress else None
    on_game = bar.update if bar is not None else None
    out = {}
    try:
        for opp, n in opponents:
            ra, rb = rng.spawn(2)
            me, them = make_agent(spec, TTT, rng=ra), make_agent(opp, TTT, rng=rb)
            out[opp] = {label: play_wdl(TTT, me, them, n, colour=side, on_game=on_game)
                        for label, side in (("first", ttt.X), ("second", ttt.O))}
    finally:
        if bar is not None:
            bar.close()
    return out


def missed_targets(kind: str, rates: dict[str, dict[str, float]], audited: tuple[str, ...],
                   results: dict[str, dict[str, tuple[int, int, int]]]) -> list[str]:
    """The targets of ``kind`` the audit and the matches missed, in words (empty: all met)."""
    losses = {opp: r["first"][2] + r["second"][2] for opp, r in results.items()}
    missed = []
    if kind == "az":
        raw = rates[audited[0]]["all"]
        if raw < RAW_TARGET:
            missed.append(f"raw network optimal {raw:.2%} < {RAW_TARGET:.1%}")
        if losses["minimax"]:
            missed.append(f"{losses['minimax']} games lost to minimax")
    elif kind == "a2c":
        illegal = rates[audited[0]].get("unmasked argmax illegal", 1.0)
        if losses["minimax"]:
            missed.append(f"{losses['minimax']} games lost to minimax")
        if illegal >= ILLEGAL_TARGET:
            missed.append(f"unmasked illegal {illegal:.2%} >= {ILLEGAL_TARGET:.1%}")
    else:
        if sum(losses.values()):
            missed.append(f"{sum(losses.values())} games lost")
        if rates[audited[0]]["all"] < POLICY_TARGET:
            missed.append(f"optimal moves {rates[audited[0]]['all']:.2%} < {POLICY_TARGET:.0%}")
    return missed


def judge(spec: str, games: int, think3_games: int, seed: int, progress: bool = True) -> dict:
    """Audit agent ``spec`` and play its matches (``plan``), seeded once.

    Returns:
        ``{"plan", "positions", "rates" (by audited spec), "results" (by opponent), "missed"}``.
    """
    if games < 1 or think3_games < 1:
        raise ValueError(f"games and think3 games must be positive, got {games} and {think3_games}")
    p = plan(spec, games, think3_games)
    rng = np.random.default_rng(seed)
    positions = reachable_positions(TTT)
    optimal = optimal_actions(TTT, positions)
    rates = {s: audit(s, rng.spawn(1)[0], positions, optimal) for s in p.audited}
    results = matches(spec, p.opponents, rng, progress)
    return {"plan": p, "positions": len(positions), "rates": rates, "results": results,
            "missed": missed_targets(p.kind, rates, p.audited, results)}
