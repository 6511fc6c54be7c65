"""Leaf rules of proof certificates: bounds that settle a position, recomputed on the rules core alone.

A certificate (``tictacgo.proof.certificate``) may stop a line before the
game ends, at a position it marks *settled*, when a rule shows that the
strategy's side gets the outcome it needs from there whatever the other
side does. The checker (``tictacgo.proof.checker``) trusts no such mark:
it recomputes the rule named in the certificate's header on the position.
The rules here are written for the checker, in plain Python over
``tictacgo.games.littlego`` (its states and the game's ``flood`` and
``neighbours``); they never use the solver's compiled bounds
(``tictacgo.solver.bounds``), which tests compare them with. Each rule is a
function ``(state, colour) -> +1, 0 or None``: +1 when ``colour`` wins
however the other side plays, 0 when ``colour`` gets at least a draw, None
when the rule cannot tell. It reads only what a position's code holds (the
stones, the actions played, the mover), so symmetric images and positions
that share a code get the same answer.

**pass_bound** (the pass strategy). Let ``colour`` pass at every one of its
turns from now on. That strategy is always available: passing is legal in
every live position, and two passes in a row (or a pass as the game's first
action) only end the game early, which takes placements away from the
opponent and changes nothing else. While ``colour`` only passes:

* no stone of the opponent is ever captured (only ``colour``'s placements
  capture it), and suicide is illegal, so the opponent's stones grow by at
  most one a placement: it ends with at most its stones now plus its
  placements left, and at most ``n*n`` minus ``colour``'s final stones;
* ``colour``'s chains never grow or merge, and an empty point is filled
  only by an opponent stone, which then stays: a chain of ``colour``'s loses
  a liberty only to an opponent placement, one a placement, and is captured
  only once the opponent has filled every liberty it has now. A chain with
  more liberties than the opponent's placements left survives to the end.

With ``R`` actions left, the side to move has ``ceil(R/2)`` of them and the
other side ``floor(R/2)`` (every action, a pass too, hands the move over):
the opponent's placements left are at most its actions left. So
``colour``'s final stones are at least ``safe`` (the stones of its chains
with more liberties than that), the opponent's at most ``min(stones now +
placements, n*n - safe)``, and with komi (White's) the margin for
``colour`` is at least ``safe - that`` +/- komi: +1 when it is positive,
0 when it is zero. Passing is a strategy ``colour`` has, so the game's
exact value for ``colour`` is at least what it guarantees.

**pass_alive** (the same with unconditional life). A chain that is
pass-alive (Benson 1976) cannot be captured even when its owner passes
every time and the opponent places as many stones as it likes, because
suicide is illegal: the opponent can never fill the last empty point of a
region that is vital to the chain (every empty point of it a liberty of the
chain) while the chain keeps two such regions. ``pass_alive`` counts those
chains among ``colour``'s safe stones, whatever their liberties, and is
otherwise ``pass_bound``.
"""

from __future__ import annotations

from collections.abc import Callable

from tictacgo.games import littlego

#: A leaf rule: ``(state, colour) -> +1 (colour wins), 0 (at least a draw) or None (cannot tell)``.
LeafRule = Callable[[littlego.GoState, int], "int | None"]


def actions_left_to(state: littlego.GoState, colour: int) -> int:
    """How many of the actions left ``colour`` plays: ``ceil(R/2)`` if it moves now, else ``floor(R/2)``."""
    left = max(state.game.max_actions - state.t, 0)
    return (left + 1) // 2 if state.to_move == colour else left // 2


def chains(game: littlego.LittleGo, stones: int) -> list[int]:
    """The chains (maximal orthogonally connected groups) of ``stones``, as bitboards."""
    out = []
    rest = stones
    while rest:
        chain = game.flood(rest & -rest, stones)
        out.append(chain)
        rest &= ~chain
    return out


def safe_stones(state: littlego.GoState, colour: int, placements: int, alive: int = 0) -> int:
    """How many of ``colour``'s stones the opponent cannot capture with ``placements`` while
    ``colour`` passes: those of its chains with more liberties than ``placements``, or in ``alive``."""
    game = state.game
    own, opp = (state.black, state.white) if colour == littlego.BLACK else (state.white, state.black)
    empty = game.full & ~(own | opp)
    return sum(chain.bit_count() for chain in chains(game, own)
               if chain & alive or (game.neighbours(chain) & empty).bit_count() > placements)


def pass_alive_stones(game: littlego.LittleGo, own: int, opp: int) -> int:
    """The stones of ``own``'s pass-alive chains (Benson's algorithm), ``opp`` the other colour's.

    Regions are the connected parts of the points that are not ``own``'s; a region is vital to a
    chain when every empty point of it is a liberty of the chain. Drop every chain with fewer than
    two vital regions among the regions left, and every region that touches a dropped chain, until
    nothing changes; the chains left are pass-alive. A region with no empty point cannot occur in
    play and is left out (leaving it out can only drop more chains).
    """
    empty = game.full & ~(own | opp)
    live_chains = {chain: game.neighbours(chain) & empty for chain in chains(game, own)}
    regions = [(region & empty, game.neighbours(region) & own)
               for region in chains(game, game.full & ~own) if region & empty]
    changed = True
    while changed:
        changed = False
        for chain, liberties in list(live_chains.items()):
            vital = sum(1 for region_empty, _ in regions if region_empty & ~liberties == 0)
            if vital < 2:
                del live_chains[chain]
                changed = True
        alive = union(live_chains)
        kept = [r for r in regions if r[1] & ~alive == 0]
        changed = changed or len(kept) < len(regions)
        regions = kept
    return union(live_chains)


def union(bitboards) -> int:
    """The union of some bitboards."""
    out = 0
    for bits in bitboards:
        out |= bits
    return out


def margin_bound(state: littlego.GoState, colour: int, alive: int = 0) -> float | None:
    """The least final margin (``colour``'s score minus the opponent's, komi counted) that ``colour``
    is sure of by passing every time from ``state``; None for a finished game."""
    if state.end is not None:
        return None
    game, other = state.game, 3 - colour
    placements = actions_left_to(state, other)
    safe = safe_stones(state, colour, placements, alive)
    opp_stones = (state.white if colour == littlego.BLACK else state.black).bit_count()
    opp_most = min(opp_stones + placements, game.num_points - safe)
    komi = game.komi if colour == littlego.WHITE else -game.komi
    return safe - opp_most + komi


def outcome_of(margin: float | None) -> int | None:
    """+1 for a positive margin, 0 for zero, None otherwise (the rule cannot tell)."""
    if margin is None or margin < 0:
        return None
    return 1 if margin > 0 else 0


def pass_bound(state: littlego.GoState, colour: int) -> int | None:
    """What ``colour`` is sure of by passing every time: +1 a win, 0 at least a draw, None unknown.

    Args:
        state: a Little-Go position (a finished game gives None: game ends are leaves of their own).
        colour: 1 Black or 2 White.
    Returns:
        +1, 0 or None (see the module docstring for why it holds).
    """
    return outcome_of(margin_bound(state, colour))


def pass_alive(state: littlego.GoState, colour: int) -> int | None:
    """``pass_bound`` with ``colour``'s pass-alive chains counted safe whatever their liberties.

    Args:
        state: a Little-Go position (a finished game gives None).
        colour: 1 Black or 2 White.
    Returns:
        +1, 0 or None.
    """
    if state.end is not None:
        return None
    own, opp = (state.black, state.white) if colour == littlego.BLACK else (state.white, state.black)
    return outcome_of(margin_bound(state, colour, pass_alive_stones(state.game, own, opp)))


#: The rules by the names certificates use for them.
RULES: dict[str, LeafRule] = {"pass_bound": pass_bound, "pass_alive": pass_alive}
