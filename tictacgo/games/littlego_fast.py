"""The Python Little-Go playout: a whole game on raw bitboards, for MCTS rollouts.

``fast_rollout(state, rnd)`` plays a game to its end without building a
``GoState`` per move: the hot path of Monte Carlo search on Little-Go. It is
a second *engine* for the rules of ``docs/littlego.md``, kept for speed, and
it stays honest in two ways:

* every placement goes through ``littlego.place_bits``, the one function that
  holds the placement, capture, suicide and ko rules for the whole package;
* what the playout adds itself (whose turn it is, passes, the action limit,
  the end of the game, the ko memory, the score) is checked move for move
  against the 300 recorded course-host games by the conformance suite
  (``tests/test_conformance.py``), through ``choose=`` (play given actions
  instead of random ones) and ``record=`` (report every board).

Move choice: uniform among the legal placements, drawn by rejection (a random
empty point is tried and dropped from the draw if illegal). With probability
``capture_prob`` the mover first looks for opponent groups in atari and, if
any, plays one of their last liberties (when legal). The mover passes only
when no placement is legal, or with probability ``pass_prob``.

``play_out`` is that game loop, the package's one Python rollout: the random
stream comes in as two functions, so ``fast_rollout`` runs it on a
``random.Random`` and the seeded playouts of ``tictacgo.games.playouts`` (the
Python twin of their compiled kernel) on splitmix64.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tictacgo.games.errors import IllegalActionError
from tictacgo.games.littlego_place import NO_KO, ko_board, place_bits


def fast_rollout(state: Any, rnd: random.Random, pass_prob: float = 0.0, capture_prob: float = 0.0,
                 trace: list | None = None, choose: Callable[[int, int, int, int], int] | None = None,
                 record: list | None = None) -> int:
    """Play ``state`` to its end; the winner (1 Black, 2 White, 0 draw).

    Args:
        state: the position to start from (a finished one returns its winner).
        rnd: the random stream of the move choice.
        pass_prob: probability of a voluntary pass at each action.
        capture_prob: probability of looking for an atari capture first.
        trace: if given, receives every action played (``n*n`` for a pass).
        choose: if given, ``choose(black, white, to_move, t) -> action`` picks
            every action instead of the random policy (replays and tests); an
            illegal choice raises ``IllegalActionError``.
        record: if given, receives ``(action, black, white, captured, ko)``
            after every action (``captured``: the number of stones removed;
            ``ko``: the (mover's, opponent's) board the next mover may not
            recreate, ``(NO_KO, NO_KO)`` if none), so tests can check the ko memory.
    """
    if state.end is not None:
        return state.game.winner(state)
    own, opp = (state.black, state.white) if state.to_move == 1 else (state.white, state.black)
    ko_own, ko_opp = ko_board(state)
    rows = record if record is not None else [] if trace is not None else None
    start = len(rows) if rows is not None else 0
    try:
        return play_out(state.game, own, opp, state.to_move, state.t, state.last_pass, ko_own, ko_opp,
                        rnd.random, rnd.random, pass_prob, capture_prob, choose, rows)
    finally:
        if trace is not None:
            trace.extend(row[0] for row in rows[start:])


def play_out(game: Any, own: int, opp: int, mover: int, t: int, last_pass: bool, ko_own: int, ko_opp: int,
             uniform: Callable[[], float], fraction: Callable[[], float], pass_prob: float = 0.0,
             capture_prob: float = 0.0, choose: Callable | None = None, record: list | None = None) -> int:
    """Play a live position (the mover's stones ``own``, ``t`` actions played) to its end; the winner.

    Args:
        game: the variant.
        own, opp, mover, t, last_pass: the position: stones of the player to
            move and of the other, who moves (1 Black, 2 White), actions played,
            whether the last one was a pass.
        ko_own, ko_opp: the board the mover may not recreate (``ko_board``).
        uniform: ``f() -> float`` in [0, 1), the draw of each pass or capture
            decision.
        fraction: ``f() -> float`` in [0, 1), the draw of each point
            (``int(fraction() * count)`` picks among ``count`` points).
        pass_prob, capture_prob, choose, record: as for ``fast_rollout``;
            ``choose`` may return None to leave an action to the random policy.
    """
    full, max_actions, pass_action = game.full, game.max_actions, game.pass_action
    while True:
        p = None
        if choose is not None:
            p = choose(*((own, opp) if mover == 1 else (opp, own)), mover, t)
        if p is None:
            p, own2, opp2, dead = random_move(game, own, opp, full & ~(own | opp), ko_own, ko_opp, uniform,
                                              fraction, pass_prob, capture_prob)
        elif p == pass_action:
            own2, opp2, dead = own, opp, 0
        else:
            move = place_bits(game, own, opp, p, ko_own, ko_opp)
            if isinstance(move, str):
                raise IllegalActionError(f"action {p} at t={t} is illegal: {move}", reason=move)
            own2, opp2, dead = move
        t += 1
        ended = t >= max_actions
        if p == pass_action:
            ko_own = ko_opp = NO_KO
            ended = ended or last_pass or t == 1
            last_pass = True
        else:
            # The next mover may not restore the board as it stood before this move.
            ko_own, ko_opp = (opp, own) if dead else (NO_KO, NO_KO)
            last_pass = False
        if record is not None:
            black, white = (own2, opp2) if mover == 1 else (opp2, own2)
            record.append((p, black, white, dead.bit_count(), (ko_own, ko_opp)))
        own, opp, mover = opp2, own2, 3 - mover
        if ended:
            black, white = (own, opp) if mover == 1 else (opp, own)
            b, w = black.bit_count(), white.bit_count() + game.komi
            return 1 if b > w else 2 if w > b else 0


def random_move(game: Any, own: int, opp: int, empty: int, ko_own: int, ko_opp: int,
                uniform: Callable[[], float], fraction: Callable[[], float], pass_prob: float,
                capture_prob: float) -> tuple[int, int, int, int]:
    """The random policy's action and its outcome ``(action, own, opp, captured bits)``: a pass with
    probability ``pass_prob``; else, with probability ``capture_prob``, a legal last liberty of an
    opponent group in atari if there is one; else any legal placement; a pass when none is legal."""
    if not (pass_prob and uniform() < pass_prob):
        targets = 0
        if capture_prob and opp and uniform() < capture_prob:
            targets = atari_liberties(game, opp, empty)
            if targets:
                move = draw_placement(game, own, opp, targets, empty, ko_own, ko_opp, fraction)
                if move is not None:
                    return move
        move = draw_placement(game, own, opp, empty & ~targets, empty, ko_own, ko_opp, fraction)
        if move is not None:
            return move
    return game.pass_action, own, opp, 0


def draw_placement(game: Any, own: int, opp: int, cand: int, empty: int, ko_own: int, ko_opp: int,
                   fraction: Callable[[], float]) -> tuple[int, int, int, int] | None:
    """A uniformly random legal placement among the points ``cand``, drawn by rejection (a random
    point is tried and dropped from the draw if illegal): ``(point, own, opp, captured bits)``, or
    None when none is legal."""
    neighbour_bits = game.neighbour_bits
    while cand:
        r = int(fraction() * cand.bit_count())
        pick = cand
        while r:
            pick &= pick - 1
            r -= 1
        low = pick & -pick
        p = low.bit_length() - 1
        nb = neighbour_bits[p]
        if nb & empty and not nb & opp:
            # place_bits' first exit, inlined for the commonest move: an empty point
            # with an empty neighbour and no opponent stone next to it (legal, no capture).
            return p, own | low, opp, 0
        move = place_bits(game, own, opp, p, ko_own, ko_opp)
        if not isinstance(move, str):
            return (p, *move)
        cand ^= low
    return None


def atari_liberties(game: Any, opp: int, empty: int) -> int:
    """The last liberties of the ``opp`` groups in atari (one liberty left), as bits."""
    rest = opp
    targets = 0
    while rest:
        g = game.flood(rest & -rest, opp)
        rest &= ~g
        libs = game.neighbours(g) & empty
        if libs & (libs - 1) == 0:
            targets |= libs
    return targets
