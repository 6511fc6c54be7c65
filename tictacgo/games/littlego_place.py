"""Little-Go's one placement rule on raw bitboards, and the names the rules and engines share.

``place_bits`` is the primitive every Little-Go engine of the package calls
(the rules core's ``play`` and ``legal_bits``, the fast rollout of MCTS, the
compiled playouts' Python twin), so the placement, capture, suicide and ko
rules exist once. It lives apart from the game object
(``tictacgo.games.littlego``) so that those engines sit below the game,
which imports them; it needs only the variant's board masks (``game``:
``point_bits``, ``neighbour_bits``, ``neighbours``, ``flood``, ``full``).
"""

from __future__ import annotations

from typing import Any

BLACK = 1
WHITE = 2
EMPTY = 0

# Why a game ended; ``GoState.end`` holds one of these (None while live).
END_MAX_ACTIONS = "max_actions"
END_DOUBLE_PASS = "double_pass"
END_PASS_ON_EMPTY_START = "pass_on_empty_start"
END_ILLEGAL = "illegal"

# Why a placement is refused (the ``reason`` of IllegalActionError).
OCCUPIED = "occupied"
SUICIDE = "suicide"
KO = "ko"


def _prev_own_opp(state: Any) -> tuple[int, int]:
    if state.to_move == BLACK:
        return state.prev_black, state.prev_white
    return state.prev_white, state.prev_black


NO_KO = -1  # ``place_bits``' ko board when no ko applies: never equal to a bitboard


def place_bits(game: Any, own: int, opp: int, p: int, ko_own: int = NO_KO,
               ko_opp: int = NO_KO) -> tuple[int, int, int] | str:
    """One placement on raw bitboards: the rules of a move in one place.

    This is the primitive every Little-Go engine of the package calls (the
    rules core's ``play`` and ``legal_bits``, and the fast rollout of MCTS), so
    the placement, capture, suicide and ko rules exist once.

    Args:
        game: the variant (its board masks).
        own: the mover's stones.
        opp: the opponent's stones.
        p: the point, ``0 <= p < n*n``.
        ko_own: the mover's stones of the board that this move may not
            recreate, i.e. the board before the opponent's last action when
            that action captured; ``NO_KO`` (-1) when no ko applies.
        ko_opp: the opponent's stones of that board (``NO_KO`` likewise).
    Returns:
        ``(own, opp, captured)`` after the move (captured: the removed
        opponent stones as bits), or the refusal reason: ``"occupied"``,
        ``"suicide"`` or ``"ko"``.
    """
    stone = game.point_bits[p]
    if (own | opp) & stone:
        return OCCUPIED
    own2 = own | stone
    empty = game.full & ~(own2 | opp)
    # Only opponent groups next to the new stone can have lost their last
    # liberty: every group on a reachable board has a liberty (see from_boards).
    touching = opp & game.neighbour_bits[p]
    dead = 0
    if touching:
        breathing = game.neighbours(empty)
        if touching & ~breathing:  # else every touching stone has a liberty of its own: none dies
            groups = game.flood(touching, opp)
            breathing &= groups
            dead = groups & ~game.flood(breathing, groups) if breathing else groups
    if game.neighbour_bits[p] & empty:
        return own2, opp & ~dead, dead
    group = game.flood(stone, own2)
    if game.neighbours(group) & empty:
        return own2, opp & ~dead, dead
    # The host's order: no liberty at once, so captures must give one (else
    # suicide), and only this kind of move can be a ko recapture.
    if not dead or not game.neighbours(group) & dead:
        return SUICIDE
    opp2 = opp & ~dead
    if own2 == ko_own and opp2 == ko_opp:
        return KO
    return own2, opp2, dead


def ko_board(state: Any) -> tuple[int, int]:
    """(mover's, opponent's) stones that the mover may not recreate; ``(NO_KO, NO_KO)`` if none."""
    if not state.ko_armed:
        return NO_KO, NO_KO
    return _prev_own_opp(state)


