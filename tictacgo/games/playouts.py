"""Seeded random playouts: a game played to its end by uniformly random legal moves, fast.

``go_playout(state, seed)`` and ``ttt_playout(state, seed)`` (also the games'
``random_playout`` method) return the winner of the game that random play
finishes from ``state``: the leaf evaluation of plain UCT search, its hot
path. They run as one compiled call (``playout_kernels``, the ``fast`` extra:
numba) or, without numba, as their pure-Python twins (Little-Go's is the
package's one Python rollout, ``littlego_fast.play_out``, drawing from
``splitmix64_draws``; Tic-Tac-Toe's is ``_ttt_playout_py``); both play
exactly the same moves for the same seed, so a seeded search does not depend
on whether numba is installed.

Move choice (Little-Go): with probability ``pass_prob`` a voluntary pass;
otherwise a uniformly random legal placement, drawn by rejection (a random
empty point is tried and dropped from the draw if illegal); PASS only when no
placement is legal. Tic-Tac-Toe: a uniformly random empty cell.

The random stream is splitmix64 from the integer ``seed``: a draw in
``[0, k)`` is the top 32 bits of the next output times ``k``, shifted down 32
bits; a uniform float is the top 53 bits over ``2**53``. Integer arithmetic
modulo ``2**64``, so the compiled and the Python twins agree bit for bit.

The rules: every Little-Go placement goes through the rules' placement
primitive (``littlego.place_bits`` here, its line-for-line compiled twin
``batched_kernels.go_place`` in the kernel); turns, passes, the action limit,
the ko memory and the score are ``play_out``'s and the kernel's own, and both
replay every recorded course-host game in the conformance suite through
``script`` (actions to play instead of random ones) and ``record`` (what each
action did).

Backends: ``backend=`` ``"auto"`` (numba when it imports, the default),
``"numba"`` or ``"numpy"`` (no numba: the Python twin), or None for the
environment variable ``TICTACGO_BATCHED_BACKEND``, as for the batched engines.
The compiled Little-Go kernel needs the board in one int64 (sizes up to 7);
larger boards always take the Python twin.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from tictacgo.games import littlego_place as go
from tictacgo.games import tictactoe_lines as ttt
from tictacgo.games.batched_common import BACKEND_ENV, load_kernels, resolve_backend
from tictacgo.games.errors import IllegalActionError
from tictacgo.games.littlego_fast import play_out

MASK64 = (1 << 64) - 1
SEED_BITS = 63  # seeds are non-negative int64s: one numba signature for every seed
_SEED_END = 1 << SEED_BITS
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_MAX_KERNEL_BOARD = 7  # n * n bits must fit an int64
_EMPTY = np.zeros(0, dtype=np.int64)
_NO_RECORD = np.zeros((0, 6), dtype=np.int64)
_kernels = None  # the playout_kernels module once imported, False when numba is unusable


def splitmix64(s: int) -> tuple[int, int]:
    """One step of splitmix64: ``(next state, 64-bit output)`` of state ``s``."""
    s = (s + _GOLDEN) & MASK64
    z = ((s ^ (s >> 30)) * _MIX1) & MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & MASK64
    return s, z ^ (z >> 31)


def _load():
    global _kernels
    if _kernels is None:
        _kernels = False
        if load_kernels() is not None:
            try:
                from tictacgo.games import playout_kernels
            except ImportError:  # pragma: no cover - numba present but unusable
                pass
            else:
                _kernels = playout_kernels
    return _kernels or None


def _kernels_for(backend: str | None):
    """The kernels module when ``backend`` resolves to numba, else None (see ``playout_backend``)."""
    if backend is None:
        backend = os.environ.get(BACKEND_ENV) or "auto"
    if backend == "numba" or backend == "auto":
        k = _load()
        if k is None and backend == "numba":
            resolve_backend("numba")  # raises the batched engines' ImportError, naming the extra
        return k
    if backend == "numpy":
        return None
    resolve_backend(backend)  # raises the ValueError naming the backends
    raise AssertionError("unreachable: resolve_backend accepted an unknown backend")  # pragma: no cover


def playout_backend(backend: str | None = None) -> str:
    """``"numba"`` or ``"numpy"`` (the Python twin): where a playout with ``backend=`` runs.

    Args:
        backend: ``"auto"``, ``"numba"``, ``"numpy"``, or None for the environment
            variable ``TICTACGO_BATCHED_BACKEND``.
    Raises:
        ValueError: an unknown backend name.
        ImportError: ``"numba"`` asked for while numba cannot be imported.
    """
    return "numba" if _kernels_for(backend) is not None else "numpy"


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    seed = int(seed)
    if not 0 <= seed < 1 << SEED_BITS:
        raise ValueError(f"seed must be in [0, 2**{SEED_BITS}), got {seed}")
    return seed


# -- Little-Go ------------------------------------------------------------------------

def _go_tables(game: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """The kernel's view of a variant: ``geo`` (n, full, left, right, max_actions), neighbour bits, komi."""
    key = id(game)  # variants are cached singletons; id() is cheaper than their hash
    tables = _GO_TABLES.get(key)
    if tables is None:
        geo = np.array([game.size, game.full, game.not_first_col, game.not_last_col,
                        min(game.max_actions, np.iinfo(np.int64).max)], dtype=np.int64)
        tables = _GO_TABLES[key] = (geo, np.array(game.neighbour_bits, dtype=np.int64), float(game.komi))
    return tables


_GO_TABLES: dict = {}


def go_playout(state: Any, seed: int, pass_prob: float = 0.0, backend: str | None = None, *,
               script=None, record: list | None = None) -> int:
    """Play ``state`` to its end by random legal actions; the winner (1 Black, 2 White, 0 draw).

    Args:
        state: the position (a finished one returns its winner).
        seed: the random stream, an int in ``[0, 2**63)``.
        pass_prob: chance of a voluntary pass at each action.
        backend: see the module docstring.
        script: actions to play before the random ones (replays and tests);
            an illegal one raises ``IllegalActionError``.
        record: if given, receives ``(action, black, white, captured, (ko_own,
            ko_opp))`` after every action (``captured``: stones removed; the
            ko board the next mover may not recreate, ``NO_KO`` twice if none).
    """
    if state.end is not None:
        return state.game.winner(state)
    if type(seed) is not int or not 0 <= seed < _SEED_END:
        seed = _check_seed(seed)
    if not 0.0 <= pass_prob <= 1.0:
        raise ValueError(f"pass_prob must be a probability in [0, 1], got {pass_prob!r}")
    game = state.game
    if state.to_move == go.BLACK:
        own, opp = state.black, state.white
        ko_own, ko_opp = (state.prev_black, state.prev_white) if state.ko_armed else (go.NO_KO, go.NO_KO)
    else:
        own, opp = state.white, state.black
        ko_own, ko_opp = (state.prev_white, state.prev_black) if state.ko_armed else (go.NO_KO, go.NO_KO)
    k = _kernels_for(backend)
    if k is None or game.size > _MAX_KERNEL_BOARD:  # the Python twin: the one Python rollout
        uniform, fraction = splitmix64_draws(seed)
        return play_out(game, own, opp, state.to_move, state.t, state.last_pass, ko_own, ko_opp,
                        uniform, fraction, pass_prob,
                        choose=None if script is None else _scripted(script, state.t), record=record)
    geo, nb, komi = _go_tables(game)
    if script is None and record is None:
        return k.go_playout(own, opp, state.to_move, state.t, state.last_pass, ko_own, ko_opp, seed,
                            float(pass_prob), geo, nb, komi, _EMPTY, _NO_RECORD)[0]
    script = _EMPTY if script is None else np.asarray(script, dtype=np.int64).ravel()
    rows = np.zeros((game.max_actions - state.t, 6), np.int64) if record is not None else _NO_RECORD
    winner, played = k.go_playout(own, opp, state.to_move, state.t, state.last_pass, ko_own, ko_opp,
                                  seed, float(pass_prob), geo, nb, komi, script, rows)
    if record is not None:
        record.extend((a, b, w, c, (ko, kp)) for a, b, w, c, ko, kp in rows[:played].tolist())
    if winner < 0:
        p = int(script[played])
        reason = state.game.illegal_reason(_replayed(state, script[:played]), p)
        raise IllegalActionError(f"action {p} at t={state.t + played} is illegal: {reason}", reason=reason)
    return int(winner)


def _replayed(state: Any, actions) -> Any:
    for a in actions:
        state = state.game.play(state, int(a))
    return state


def _scripted(script, t0: int):
    """``play_out``'s ``choose`` for a script: its actions from action ``t0`` on, then None (random)."""
    script = [int(a) for a in np.asarray(script, dtype=np.int64).ravel()]

    def choose(black: int, white: int, mover: int, t: int) -> int | None:
        return script[t - t0] if t - t0 < len(script) else None

    return choose


def splitmix64_draws(seed: int) -> tuple[Callable[[], float], Callable[[], float]]:
    """The playouts' random stream as ``play_out`` draws it: ``(uniform, fraction)`` on one splitmix64
    stream from ``seed``.

    ``uniform()``: the top 53 bits of the next output over ``2**53`` (a pass
    decision); ``fraction()``: its top 32 bits over ``2**32``, so that
    ``int(fraction() * k)`` is the kernel's ``((z >> 32) * k) >> 32`` exactly
    (both products are exact in a double for ``k < 2**21``).
    """
    s = seed

    def uniform() -> float:
        nonlocal s
        s, z = splitmix64(s)
        return (z >> 11) * (1.0 / 9007199254740992.0)

    def fraction() -> float:
        nonlocal s
        # splitmix64, inlined (the Python twin's hot path)
        s = (s + _GOLDEN) & MASK64
        z = ((s ^ (s >> 30)) * _MIX1) & MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & MASK64
        return ((z ^ (z >> 31)) >> 32) * (1.0 / 4294967296.0)

    return uniform, fraction


# -- Tic-Tac-Toe ----------------------------------------------------------------------

_HAS_LINE = np.array([ttt.has_line(b) for b in range(512)], dtype=bool)
_NO_TTT_RECORD = np.zeros((0, 1), dtype=np.int64)


def ttt_playout(state: Any, seed: int, pass_prob: float = 0.0, backend: str | None = None, *,
                script=None, record: list | None = None) -> int:
    """Play ``state`` to its end by random moves; the winner (1 X, 2 O, 0 draw).

    Args:
        state: the position (a finished one returns its winner).
        seed: the random stream, an int in ``[0, 2**63)``.
        pass_prob: must be 0 (Tic-Tac-Toe has no pass); taken for a common signature.
        backend: see the module docstring.
        script: moves to play before the random ones; an occupied cell raises
            ``IllegalActionError``.
        record: if given, receives every move played.
    """
    if pass_prob:
        raise ValueError(f"Tic-Tac-Toe has no pass: pass_prob must be 0, got {pass_prob!r}")
    if state.end is not None:
        return state.winner  # the winner (0 for a draw) once the game is over
    seed = _check_seed(seed)
    script = _EMPTY if script is None else np.asarray(script, dtype=np.int64).ravel()
    k = _kernels_for(backend)
    if k is None:
        winner, played, moves = _ttt_playout_py(state.x, state.o, state.to_move, seed, script)
    else:
        rows = np.zeros((9, 1), np.int64) if record is not None else _NO_TTT_RECORD
        winner, played = k.ttt_playout(state.x, state.o, state.to_move, seed, _HAS_LINE, script, rows)
        moves = [int(a) for a in rows[:played, 0]]
    if record is not None:
        record.extend(moves)
    if winner < 0:
        raise IllegalActionError(f"cell {int(script[played])} is already taken", reason=ttt.OCCUPIED)
    return int(winner)


def _ttt_playout_py(x: int, o: int, mover: int, seed: int, script):
    """The Python twin of ``playout_kernels.ttt_playout``: ``(winner, played, moves)``."""
    has_line = ttt.has_line
    s = seed
    moves = []
    while True:
        empty = ttt.FULL & ~(x | o)
        if len(moves) < len(script):
            p = int(script[len(moves)])
            if not (empty >> p) & 1:
                return -1, len(moves), moves
        else:
            s, z = splitmix64(s)
            r = ((z >> 32) * empty.bit_count()) >> 32
            pick = empty
            while r:
                pick &= pick - 1
                r -= 1
            p = (pick & -pick).bit_length() - 1
        moves.append(p)
        if mover == ttt.X:
            x |= 1 << p
            if has_line(x):
                return 1, len(moves), moves
        else:
            o |= 1 << p
            if has_line(o):
                return 2, len(moves), moves
        if (x | o) == ttt.FULL:
            return 0, len(moves), moves
        mover = 3 - mover
