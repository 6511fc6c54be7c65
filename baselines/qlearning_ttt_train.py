"""A Tic-Tac-Toe Q-learning run: self-play training with checkpoints checked against exact minimax.

``run(config)`` trains a table by self-play (``tictacgo.baselines.qlearning.train``).
Every ``eval_every`` games the table is checked against the exact minimax
(``MinimaxAgent``, ties broken at random so it varies its lines) and saved
atomically:

- sampled: ``eval_games`` games with the Q agent as X and as many as O;
- exact: every line where the Q agent plays any of its tied greedy moves and
  minimax any of its best moves (``vs minimax``), or the opponent any legal
  move at all (``vs any``, i.e. perfect play).

``holds_from`` says from which checkpoint on each check held at every later
one, with the training time (evaluation excluded) and the wall time to get
there. A run stopped by Ctrl-C keeps the table saved at that point.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tictacgo.baselines.minimax import MinimaxAgent
from tictacgo.baselines.qlearning import DEFAULTS, QLearningAgent, train, worst_result
from tictacgo.game_loop import play_wdl
from tictacgo.games import tictactoe as ttt

TTT = ttt.TicTacToe()
CHECKS = ("sampled", "exact vs minimax", "exact vs any")


@dataclass
class TicTacToeRun:
    """What ``run`` does."""

    out: str = "runs/ttt_q.json"
    games: int = 50_000
    seed: int = 0
    eval_every: int = 500
    eval_games: int = 50
    alpha: float = DEFAULTS["alpha"]
    gamma: float = DEFAULTS["gamma"]
    epsilon: float = DEFAULTS["epsilon"]
    symmetry: bool = True
    quiet: bool = False

    def validate(self) -> None:
        """Raises ValueError naming a setting out of range."""
        if self.games < 1 or self.eval_every < 1 or self.eval_games < 0:
            raise ValueError(f"--games and --eval-every must be positive, --eval-games non-negative; got "
                             f"{self.games}, {self.eval_every} and {self.eval_games}")


@dataclass
class Checkpoint:
    games: int
    train_seconds: float
    wall_seconds: float
    held: dict[str, bool]


@dataclass
class RunResult:
    agent: QLearningAgent
    checkpoints: list[Checkpoint] = field(default_factory=list)
    eval_seconds: float = 0.0
    wall_seconds: float = 0.0


def sampled(q: QLearningAgent, minimax: MinimaxAgent, games: int) -> dict[str, tuple[int, int, int]]:
    """W/D/L of the Q agent against minimax, as X and as O."""
    return {name: play_wdl(TTT, q, minimax, games, colour=side)
            for name, side in (("X", ttt.X), ("O", ttt.O))}


def run(config: TicTacToeRun, log: Callable[[str], None] = print) -> RunResult:
    """Train, check and save as ``config`` says; the agent and its checkpoints.

    Raises:
        ValueError: a setting out of range (``TicTacToeRun.validate``).
        KeyboardInterrupt: after saving the table as it is.
    """
    config.validate()
    train_rng, q_rng, mm_rng = np.random.default_rng(config.seed).spawn(3)
    result = RunResult(QLearningAgent(TTT, rng=q_rng))
    minimax = MinimaxAgent(TTT, rng=mm_rng)
    quiet_log = (lambda s: None) if config.quiet else log
    t0 = time.perf_counter()

    def checkpoint(games: int, agent: QLearningAgent) -> bool:
        e0 = time.perf_counter()
        s = sampled(agent, minimax, config.eval_games)
        held = {
            "sampled": s["X"][2] == 0 and s["O"][2] == 0,
            "exact vs minimax": min(worst_result(agent, side, "minimax", minimax) for side in (1, 2)) >= 0,
            "exact vs any": min(worst_result(agent, side, "any") for side in (1, 2)) >= 0,
        }
        agent.save(config.out)
        result.eval_seconds += time.perf_counter() - e0
        wall = time.perf_counter() - t0
        result.checkpoints.append(Checkpoint(games, wall - result.eval_seconds, wall, held))
        quiet_log(f"  eval @ {games:,}: vs minimax as X W/D/L {'/'.join(map(str, s['X']))}, "
                  f"as O {'/'.join(map(str, s['O']))}; "
                  f"exact vs minimax {'ok' if held['exact vs minimax'] else 'LOSES'}, "
                  f"vs any {'ok' if held['exact vs any'] else 'LOSES'}")
        return False

    log(f"training {config.games:,} self-play games (alpha {config.alpha}, gamma {config.gamma}, "
        f"epsilon {config.epsilon}, symmetry {config.symmetry}, seed {config.seed}); "
        f"checkpoints every {config.eval_every:,}")
    try:
        train(config.games, train_rng, alpha=config.alpha, gamma=config.gamma, epsilon=config.epsilon,
              symmetry=config.symmetry, agent=result.agent, progress=not config.quiet,
              every=config.eval_every, callback=checkpoint, log=quiet_log)
        if not result.checkpoints or result.checkpoints[-1].games != result.agent.games:
            checkpoint(result.agent.games, result.agent)
    except KeyboardInterrupt:
        result.agent.save(config.out)
        raise
    result.wall_seconds = time.perf_counter() - t0
    return result


def holds_from(checkpoints: list[Checkpoint], check: str) -> Checkpoint | None:
    """The first checkpoint from which ``check`` held at every later one (None: not at the last)."""
    first = None
    for c in reversed(checkpoints):
        if not c.held[check]:
            break
        first = c
    return first
