"""The fast Little-Go playout: a whole game on raw bitboards, for MCTS rollouts.

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
    geo = state.game
    full, neighbours, flood = geo.full, geo.neighbours, geo.flood
    max_actions, pass_action = geo.max_actions, geo.pass_action
    neighbour_bits = geo.neighbour_bits
    mover = state.to_move
    own, opp = (state.black, state.white) if mover == 1 else (state.white, state.black)
    t = state.t
    last_pass = state.last_pass
    ko_own, ko_opp = ko_board(state)
    rand = rnd.random
    while True:
        empty = full & ~(own | opp)
        move = None
        p = pass_action
        if choose is not None:
            black, white = (own, opp) if mover == 1 else (opp, own)
            p = choose(black, white, mover, t)
            if p != pass_action:
                move = place_bits(geo, own, opp, p, ko_own, ko_opp)
                if isinstance(move, str):
                    raise IllegalActionError(f"action {p} at t={t} is illegal: {move}", reason=move)
            pools = ()
        elif pass_prob and rand() < pass_prob:
            pools = ()
        else:
            pools = (empty,)
            if capture_prob and opp and rand() < capture_prob:
                pools = _atari_pools(opp, empty, flood, neighbours)
        for cand in pools:
            while cand:
                r = int(rand() * cand.bit_count())
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
                    move = (own | low, opp, 0)
                    break
                result = place_bits(geo, own, opp, p, ko_own, ko_opp)
                if not isinstance(result, str):
                    move = result
                    break
                cand ^= low
            if move is not None:
                break
        t += 1
        if move is None:
            if trace is not None:
                trace.append(pass_action)
            # A pass (forced, chosen, or drawn with pass_prob).
            ko_own = ko_opp = NO_KO
            if record is not None:
                black, white = (own, opp) if mover == 1 else (opp, own)
                record.append((pass_action, black, white, 0, (ko_own, ko_opp)))
            if last_pass or t >= max_actions or t == 1:
                break
            last_pass = True
            own, opp = opp, own
            mover = 3 - mover
            continue
        own2, opp2, dead = move
        if trace is not None:
            trace.append(p)
        last_pass = False
        if dead:
            # The next mover may not restore the board as it stood before this move.
            ko_own, ko_opp = opp, own
        else:
            ko_own = ko_opp = NO_KO
        if record is not None:
            black, white = (own2, opp2) if mover == 1 else (opp2, own2)
            record.append((p, black, white, dead.bit_count(), (ko_own, ko_opp)))
        own, opp = opp2, own2
        mover = 3 - mover
        if t >= max_actions:
            break
    black, white = (own, opp) if mover == 1 else (opp, own)
    b = black.bit_count()
    w = white.bit_count() + geo.komi
    return 1 if b > w else 2 if w > b else 0


def _atari_pools(opp: int, empty: int, flood, neighbours) -> tuple[int, ...]:
    """(last liberties of opponent groups in atari, the other empty points), or (empty,) if none."""
    rest = opp
    targets = 0
    while rest:
        g = flood(rest & -rest, opp)
        rest &= ~g
        libs = neighbours(g) & empty
        if libs & (libs - 1) == 0:
            targets |= libs
    if targets:
        return (targets, empty & ~targets)
    return (empty,)
