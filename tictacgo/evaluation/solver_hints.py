"""Move-ordering hints for the exact solver from a policy: its best move first, near the root.

The solver tries, at every position, the move its table remembers first,
then captures, escapes from atari and moves by a history score. In a
proof, the first move tried at a position where the mover wins should be a
winning one, or the search spends a whole subtree refuting a losing move
first. ``policy_hints`` puts a policy's preferred move (the AlphaZero
network's, by default the shipped one) into the table for every position
within ``depth`` actions of the root, as ``Solver.hint`` entries: they
change the order of the search, never a value.

Measured on the line of docs/solver.md (az playing itself), with hints to
depth 3 the positions searched fall 4 to 5 times at 14, 16 and 17 actions to
go (``scripts/compare_solver_techniques.py --hint-depths``); hints deeper
than that cost more positions to evaluate than they save there.

The positions within ``depth`` actions are listed once each (positions
reached by different orders of the same moves are one table entry) and the
network evaluates them in batches, without search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tictacgo.baselines.learning.alphazero.agent import load_cached, shipped_model
from tictacgo.games import littlego
from tictacgo.games.batched_engines import make_batched_engine
from tictacgo.solver.search import Solver, position_key
from tictacgo.validate import check_int

#: Positions the network evaluates at once.
BATCH = 256


def positions_within(state: littlego.GoState, depth: int) -> list[littlego.GoState]:
    """The live positions at most ``depth`` actions after ``state`` (itself included), each once."""
    depth = check_int("depth", depth, min=0)
    seen = {position_key(state)} if state.end is None else set()
    layer = [state] if state.end is None else []
    out = list(layer)
    for _ in range(depth):
        nxt = []
        for s in layer:
            for a in littlego.legal_actions(s):
                child = littlego.play(s, a)
                if child.end is not None:
                    continue
                key = position_key(child)
                if key not in seen:
                    seen.add(key)
                    nxt.append(child)
        out += nxt
        layer = nxt
    return out


def network_best_moves(path=None) -> Callable[[Sequence[littlego.GoState]], list[int]]:
    """``best(states) -> actions``: an AlphaZero network's most probable legal action of each state.

    ``path``: a model folder (None: the model shipped for Little-Go). The network plays without
    search and without torch (its numpy export), in batches of ``BATCH``.
    """
    evaluator, network_game = load_cached(shipped_model("littlego") if path is None else path)
    engine = make_batched_engine(network_game, BATCH)

    def best(states: Sequence[littlego.GoState]) -> list[int]:
        out: list[int] = []
        for start in range(0, len(states), BATCH):
            chunk = states[start:start + BATCH]
            for i, s in enumerate(chunk):
                if s.game != network_game:
                    raise ValueError(f"the network plays {network_game.size}x{network_game.size} "
                                     f"Little-Go (komi {network_game.komi}), not this "
                                     f"{s.game.size}x{s.game.size} position")
                engine.set_state(i, s)
            legal = np.array([network_game.legal_mask(s) for s in chunk], dtype=bool)
            logits, _ = evaluator(engine, np.arange(len(chunk)), legal)
            out += [int(a) for a in np.argmax(np.where(legal, logits, -np.inf), axis=1)]
        return out

    return best


def policy_hints(solver: Solver, state: littlego.GoState, depth: int,
                 best_moves: Callable[[Sequence[littlego.GoState]], list[int]]) -> int:
    """Hint ``best_moves``'s choice at every live position within ``depth`` actions of ``state``.

    Returns the number of positions hinted.
    """
    positions = positions_within(state, depth)
    for s, a in zip(positions, best_moves(positions), strict=True):
        solver.hint(s, a)
    return len(positions)
