"""Adapters of every engine that claims the Little-Go rules, for the conformance suite.

An engine joins ``tests/test_conformance.py`` by one adapter class here and
one entry in ``ENGINES``. The suite replays every recorded course-host game
through each adapter: ``replay(actions)`` plays the recorded actions from the
empty 5x5 board and returns, for every action, the board after it and the
stones it captured, then how the game ended. ``legal_points(actions, t)``
gives the legal placements before action ``t`` (engines that only play, such
as the fast rollout, answer through the same placement primitive they use).

The seeded random playout and the batched engine join once per backend (numpy, numba), the
exact solver through its kernels (skipped, like the numba backends, without numba); ``BACKEND_PARAMS``
is the pytest parameter list of backends, the numba one skipped when numba
cannot be imported.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import pytest

from tictacgo.games import littlego as go
from tictacgo.games.batched_common import load_kernels
from tictacgo.games.batched_littlego import BatchedLittleGo
from tictacgo.games.littlego_fast import fast_rollout
from tictacgo.games.playouts import go_playout

NUMBA_MISSING = None if load_kernels() is not None else (
    "numba cannot be imported (the fast extra: pip install -e '.[fast]')")
BACKEND_PARAMS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(NUMBA_MISSING is not None,
                                                                          reason=str(NUMBA_MISSING)))]


class Step(NamedTuple):
    black: int
    white: int
    captured: int
    legal: set[int]  # the next mover's legal placements (points), by the engine's own ko memory


class Replay(NamedTuple):
    steps: list[Step]
    winner: int
    t: int
    end: str | None  # an END_* reason, or None when the engine does not report it
    scores: tuple[float, float] | None


def steps_of_record(record: list) -> list[Step]:
    """The steps of a playout's ``record`` rows (``(action, black, white, captured, ko board)``), each
    legal set through the placement primitive with the ko board the playout recorded."""
    geo = go.LittleGo(5)
    steps = []
    for k, (_, b, w, c, (ko_own, ko_opp)) in enumerate(record):
        own, opp = (b, w) if k % 2 else (w, b)  # Black moved at even k, so White is next
        legal = {p for p in range(25) if not isinstance(go.place_bits(geo, own, opp, p, ko_own, ko_opp), str)}
        steps.append(Step(b, w, c, legal))
    return steps


class CoreEngine:
    """The rules core, ``tictacgo.games.littlego``."""

    name = "core"

    def replay(self, actions: list[int]) -> Replay:
        s = go.LittleGo().initial_state()
        steps = []
        for a in actions:
            s = go.play(s, a)
            legal = {p for p in go.legal_actions(s) if p != go.pass_action(s)}
            steps.append(Step(s.black, s.white, s.captured, legal))
        return Replay(steps, go.winner(s), s.t, s.end, go.scores(s))

    def states(self, actions: list[int]):
        s = go.LittleGo().initial_state()
        yield s
        for a in actions:
            s = go.play(s, a)
            yield s


class FastRolloutEngine:
    """MCTS's fast playout, ``tictacgo.games.littlego_fast.fast_rollout``, driven by ``choose=``."""

    name = "fast_rollout"

    def replay(self, actions: list[int]) -> Replay:
        script = iter(actions)
        record: list = []
        winner = fast_rollout(go.LittleGo().initial_state(), random.Random(0),
                              choose=lambda black, white, to_move, t: next(script), record=record)
        left = list(script)
        assert not left, f"the fast rollout ended the game with {len(left)} recorded actions unplayed"
        return Replay(steps_of_record(record), winner, len(record), None, None)


class PlayoutEngine:
    """The seeded random playout, ``tictacgo.games.playouts.go_playout``, driven by ``script=``.

    ``backend`` is "numba" (the compiled kernel) or "numpy" (its pure-Python
    twin); legal sets through the placement primitive with the ko board the
    playout recorded, as for the fast rollout.
    """

    def __init__(self, backend: str):
        self.backend = backend
        self.name = f"playout_{backend}"
        self.skip = NUMBA_MISSING if backend == "numba" else None

    def replay(self, actions: list[int]) -> Replay:
        record: list = []
        winner = go_playout(go.LittleGo().initial_state(), 0, backend=self.backend, script=actions,
                            record=record)
        assert len(record) == len(actions), (
            f"the playout ended the game after {len(record)} of {len(actions)} recorded actions")
        return Replay(steps_of_record(record), winner, len(record), None, None)


class BatchedEngine:
    """The batched engine, ``tictacgo.games.batched_littlego``, one recorded game per batch row.

    ``backend`` is "numpy" or "numba"; ``skip`` says why this engine cannot run here (None when it can).

    Its legal sets come from its own ``legal_mask`` (its own ko memory), its
    captures and end from its arrays; a batch of 3 plays the game in row 1
    beside two games that pass at once, so that rows cannot leak into each other.
    """

    def __init__(self, backend: str):
        self.backend = backend
        self.name = f"batched_{backend}"
        self.skip = NUMBA_MISSING if backend == "numba" else None

    def replay(self, actions: list[int]) -> Replay:
        import numpy as np

        engine = BatchedLittleGo(3, backend=self.backend)
        steps = []
        for a in actions:
            engine.play(np.array([25, a, 25]))
            mask = engine.legal_mask()[1]
            legal = {int(p) for p in np.nonzero(mask[:25])[0]}
            steps.append(Step(int(engine.black[1]), int(engine.white[1]), int(engine.captured[1]), legal))
        return Replay(steps, int(engine.winner[1]), int(engine.t[1]),
                      engine.END_NAMES[int(engine.end[1])], tuple(engine.scores()[1].tolist()))




class SolverEngine:
    """The exact solver's rules, ``tictacgo.solver.kernels``: the same calls its search makes.

    ``place`` (a placement, the ko point refused), ``after_move`` (turn,
    passes, the action limit, the next ko point) and ``final_value`` (the
    score), driven one recorded action at a time; legal sets from ``place``.
    """

    name = "solver"

    def __init__(self):
        self.skip = NUMBA_MISSING

    def replay(self, actions: list[int]) -> Replay:
        from tictacgo.solver import kernels, search

        state = go.LittleGo().initial_state()
        pos = search.kernel_position(state)
        tables = search.board_tables(pos.n, pos.max_actions)
        geo, nb = tables.geo, tables.nb
        own, opp, black, t, last_pass, ko = pos.own, pos.opp, pos.black, pos.t, pos.last_pass, pos.ko
        steps = []
        ended = False
        for a in actions:
            assert not ended, "the solver's rules ended the game before the recorded game did"
            if a == go.pass_action(state):
                own2, opp2, dead = own, opp, 0
            else:
                legal, own2, opp2, dead = kernels.place(own, opp, a, ko, geo, nb)
                assert legal, f"the solver's rules refuse recorded action {a} at t={t}"
            ended, own, opp, t, last_pass, ko = kernels.after_move(own, opp, t, last_pass, a, own2, opp2,
                                                                    dead, geo, nb)
            black = 1 - black
            b, w = (own, opp) if black else (opp, own)
            legal_next = {p for p in range(pos.n * pos.n) if kernels.place(own, opp, p, ko, geo, nb)[0]}
            steps.append(Step(int(b), int(w), int(dead).bit_count(), legal_next))
        assert ended, "the solver's rules did not end the game where the recorded game ended"
        b, w = (own, opp) if black else (opp, own)
        outcome = int(kernels.final_value(b, w, 1, pos.komi, kernels.MODE_OUTCOME))
        return Replay(steps, {1: 1, -1: 2, 0: 0}[outcome], int(t), None, None)


ENGINES = [CoreEngine(), FastRolloutEngine(), PlayoutEngine("numpy"), PlayoutEngine("numba"),
           BatchedEngine("numpy"), BatchedEngine("numba"), SolverEngine()]
