"""A Little-Go Q-learning run: the opponent mix, checkpoints with a learning curve, resuming.

``run(config)`` trains a table (``tictacgo.baselines.qlearning_go.train``, or
for ``keys=3`` an afterstate table, ``qlearning_go_afterstate.train``)
against a weighted mix of the course's first-stage opponents (``random``,
``greedy``, ``aggressive``, ``alphabeta``) and itself (``self``). Every
``eval_every`` games it plays ``eval_games`` games a colour against each of
the four opponents with the greedy table, appends the win rates to the
learning curve (kept in the table's record and, if asked, in a JSON file)
and saves the table atomically, so a run stopped at any point keeps its
last checkpoint; ``resume`` continues from the saved table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tictacgo.atomic import atomic_write_json
from tictacgo.baselines import qlearning_go_afterstate as afterstate
from tictacgo.baselines.qlearning_go import DEFAULTS, QLearningGoAgent, QTable, evaluate, train
from tictacgo.baselines.qlearning_go_file import load_table, save_table
from tictacgo.baselines.qlearning_go_keys import KEY_SCHEME
from tictacgo.baselines.registry import make_agent
from tictacgo.games import make_game

OPPONENTS = ("random", "greedy", "aggressive", "alphabeta")
DEFAULT_MIX = "random=1,greedy=2,aggressive=4,alphabeta=1,self=1"


def parse_mix(text: str) -> dict[str, float]:
    """``"random=1,greedy=2,self=1"`` as ``{name: weight}``; names from ``OPPONENTS`` and ``self``.

    Raises:
        ValueError: an unknown name, a repeated one, or a weight that is not a positive number.
    """
    out: dict[str, float] = {}
    for part in text.split(","):
        name, sep, weight = part.strip().partition("=")
        if name not in (*OPPONENTS, "self"):
            raise ValueError(f"unknown opponent {name!r} in the mix {text!r}; "
                             f"expected names from {', '.join((*OPPONENTS, 'self'))}")
        if name in out:
            raise ValueError(f"opponent {name!r} appears twice in the mix {text!r}")
        try:
            w = float(weight) if sep else 1.0
        except ValueError:
            w = float("nan")
        if not w > 0 or w == float("inf"):
            raise ValueError(f"the weight of {name!r} in the mix {text!r} must be a positive number, "
                             f"got {weight!r}")
        out[name] = w
    return out


@dataclass
class RunConfig:
    """What ``run`` does; the training script's arguments."""

    out: str
    seed: int = 0
    episodes: int | None = None
    max_seconds: float | None = None
    mix: str = DEFAULT_MIX
    alpha: float | None = None      # None: the table kind's default (DEFAULTS, afterstate.DEFAULTS)
    gamma: float | None = None
    epsilon: float | None = None
    board_plies: int = DEFAULTS["board_plies"]
    black_share: float = 0.5
    keys: int | None = None
    eval_every: int = 5000
    eval_games: int = 20
    min_board_visits: int = 2
    resume: bool = False
    curve: str | None = None


def run(config: RunConfig, log: Callable[[str], None] = print) -> QTable | afterstate.AfterstateTable:
    """Train, evaluate and save as ``config`` says (see the module docstring). Returns the table.

    ``config.keys`` 3 trains an afterstate table (``qlearning_go_afterstate``), 1 or 2 a table of
    pattern keys of that scheme; a resumed table keeps its own kind.
    """
    game = make_game("littlego")
    mix = parse_mix(config.mix)
    table: QTable | afterstate.AfterstateTable | None = None
    if config.resume and Path(config.out).is_file():
        table = load_table(config.out)
        log(f"resuming {config.out}: {table.meta.get('games', 0):,} games, {len(table):,} keys")
        if config.keys is not None and config.keys != table.key_scheme:
            raise ValueError(f"the table was trained with key scheme {table.key_scheme}; "
                             f"continue it with the same, not {config.keys}")
    scheme = table.key_scheme if table is not None else config.keys if config.keys is not None else KEY_SCHEME
    kind = afterstate if scheme == afterstate.AFTERSTATE_SCHEME else None
    if table is None:
        table = afterstate.AfterstateTable.empty(game) if kind else QTable()
    defaults = afterstate.DEFAULTS if kind else DEFAULTS
    steps = {k: getattr(config, k) if getattr(config, k) is not None else defaults[k]
             for k in ("alpha", "gamma", "epsilon")}
    # One stream per run and restart point, so a resumed run does not replay the first one's draws.
    root = np.random.SeedSequence([config.seed, int(table.meta.get("games", 0))])
    train_rng, eval_rng, *opp_seeds = [np.random.default_rng(s) for s in root.spawn(2 + len(OPPONENTS))]
    opponents = {n: make_agent(n, game, rng=r) for n, r in zip(OPPONENTS, opp_seeds, strict=True)}
    curve = table.meta.setdefault("curve", [])
    wall0 = time.perf_counter() - float(table.meta.get("wall_seconds", 0.0))
    agent_class = afterstate.AfterstateQAgent if kind else QLearningGoAgent

    def checkpoint(tab) -> bool:
        rates = evaluate(tab, game, opponents, config.eval_games, eval_rng, agent_class=agent_class)
        tab.meta["wall_seconds"] = round(time.perf_counter() - wall0, 1)
        point = {"games": tab.meta["games"], "train_seconds": tab.meta["train_seconds"],
                 "wall_seconds": tab.meta["wall_seconds"], "keys": len(tab), "board_keys": tab.board_keys(),
                 "eval_games_per_colour": config.eval_games, **rates}
        curve.append(point)
        save_table(tab, config.out, config.min_board_visits)
        if config.curve:
            atomic_write_json(config.curve, {"seed": config.seed, "mix": mix, "curve": curve}, indent=1)
        log("  eval: " + "  ".join(f"{n} {rates[n]['black']:.0%}/{rates[n]['white']:.0%}" for n in OPPONENTS)
            + f"  (as Black/White; table decided {rates['table_moves']:.1%} of moves); saved {config.out}")
        return False

    mixed = {n: (None if n == "self" else opponents[n], w) for n, w in mix.items()}
    common = {"episodes": config.episodes, "max_seconds": config.max_seconds, **steps,
              "black_share": config.black_share, "every": config.eval_every, "callback": checkpoint,
              "log": log}
    try:
        if kind:
            afterstate.train(table, game, mixed, train_rng, **common)
        else:
            train(table, game, mixed, train_rng, board_plies=config.board_plies, keys=config.keys, **common)
    except KeyboardInterrupt:
        save_table(table, config.out, config.min_board_visits)
        log(f"interrupted after {table.meta.get('games', 0):,} games; table saved to {config.out}")
        raise
    return table


def board_recurrence(first: str, second: str, games: int, rng: np.random.Generator) -> list[dict]:
    """How often a position recurs, by actions played: why most of the table is patterns, not boards.

    Plays ``games`` games of ``first`` (Black) against ``second`` (White) and
    counts, after each number of actions, the positions (canonical under the
    8 symmetries) already met in an earlier game.

    Returns:
        One entry a ply: ``{"t", "positions", "distinct", "seen_before"}``
        (``seen_before``: the share of positions met in an earlier game).
    """
    from tictacgo.baselines.qlearning_go_keys import canonical_board
    from tictacgo.game_loop import play_game

    game = make_game("littlego")
    a, b = make_agent(first, game, rng=rng), make_agent(second, game, rng=rng)
    seen: list[set[int]] = [set() for _ in range(game.max_actions)]
    counts = [[0, 0] for _ in range(game.max_actions)]
    for _ in range(games):
        record = play_game(game, a, b)
        state = game.initial_state()
        for action in record.moves:
            key = canonical_board(state)[0]
            counts[state.t][0] += 1
            counts[state.t][1] += key in seen[state.t]
            seen[state.t].add(key)
            state = game.play(state, action)
    return [{"t": t, "positions": n, "distinct": len(seen[t]), "seen_before": round(r / n, 4) if n else 0.0}
            for t, (n, r) in enumerate(counts)]
