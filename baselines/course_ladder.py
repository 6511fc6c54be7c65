"""The course's Little-Go opponent ladder: greedy, aggressive and alpha-beta.

Re-implementations of the opponents the CSCI-561 homework grades against
(docs/littlego.md, "The course's opponents"), working on the bitboard rules
core ``tictacgo.games.littlego``. They play Little-Go only.

* ``greedy`` (``GreedyAgent``): for every legal placement count the opponent
  stones it captures; play uniformly at random among the placements that
  capture the most (so, with no capture on the board, any legal placement):
  the rule of ``tictacgo.games.greedy``, which the native vector env's
  ``"greedy"`` opponent plays too.
* ``aggressive`` (``AggressiveAgent``): the course TA's aggressive player,
  move for move (docs/littlego.md, "The course's opponents", has the public
  source and the course games it was checked against). If some placement
  captures, play like greedy. Otherwise look at every *unordered* pair of
  two legal placements ``a < b`` (row-major order, the opponent not
  replying): a pair scores the opponent stones dead once both stones stand;
  keep the pairs that score the most and credit each to its **first**
  point ``a`` only, once per pair; among the credited points keep those
  nearest the centre ``((n-1)/2, (n-1)/2)`` (Manhattan distance) and draw
  one uniformly from the credits, so a point credited by three pairs is
  three times as likely as one credited by one. With no capture anywhere
  every legal pair ties at 0, so every placement but the last is credited
  (more often the earlier ones).
* ``alphabeta`` (``CourseAlphaBetaAgent``): negamax with alpha-beta pruning,
  ``depth`` plies (2 by default), at most ``branching`` placements per node
  (10 by default) chosen by a cheap ordering (captures, then the liberties of
  the new stone's group, then closeness to the centre). Leaves are scored by
  the score margin (stones, komi to White) from the mover's view; a finished
  game adds +-100 for the win or loss.

All three consider placements only and pass only when no placement is legal,
as the course's players do. Ties are broken with the agent's numpy Generator.
"""

from __future__ import annotations

import numpy as np

from tictacgo.agent import Agent
from tictacgo.baselines.minimax import AlphaBeta
from tictacgo.baselines.registry import register_agent
from tictacgo.games import littlego
from tictacgo.games.greedy import most_captures
from tictacgo.validate import check_int

WIN_BONUS = 100.0


def placement_bits(state: littlego.GoState) -> int:
    """Legal placements (PASS excluded) as a bitmask."""
    return littlego.legal_bits(state) & ~(1 << state.game.pass_action)


def placements(state: littlego.GoState) -> list[int]:
    """Legal placements (PASS excluded) in increasing order."""
    return state.game.bits_to_list(placement_bits(state))


def capture_counts(state: littlego.GoState) -> dict[int, int]:
    """For every legal placement, the number of opponent stones it captures."""
    return {a: littlego.play(state, a).captured for a in placements(state)}


def centre_distance(action: int, size: int) -> int:
    """Manhattan distance of point ``action`` from the centre point ``(size // 2, size // 2)``."""
    i, j = divmod(action, size)
    c = size // 2
    return abs(i - c) + abs(j - c)


def _choose(rng: np.random.Generator, actions: list[int]) -> int:
    return actions[int(rng.integers(len(actions)))]


def atari_capture(geo: littlego.Geometry, own: int, opp: int) -> int:
    """The most ``opp`` stones one placement of ``own``'s player captures (no ko applies).

    A placement captures the opponent groups whose only liberty it fills; the
    answer is the largest total size of groups sharing one last liberty (0 if
    no group is in atari).
    """
    empty = geo.full & ~(own | opp)
    by_liberty: dict[int, int] = {}
    rest = opp
    while rest:
        group = geo.flood(rest & -rest, opp)
        rest &= ~group
        libs = geo.neighbours(group) & empty
        if libs and not libs & (libs - 1):
            by_liberty[libs] = by_liberty.get(libs, 0) + group.bit_count()
    return max(by_liberty.values(), default=0)


class GreedyAgent(Agent):
    """Plays a placement that captures the most opponent stones (ties at random)."""

    games = ("littlego",)

    name = "greedy"

    def __init__(self, game: littlego.LittleGo | None = None, rng: np.random.Generator | None = None):
        super().__init__(game if game is not None else littlego.LittleGo(), rng)

    def best_captures(self, state: littlego.GoState) -> tuple[list[int], int]:
        """The placements capturing the most stones, and that number ([] if none is legal)."""
        if littlego.is_terminal(state):
            raise ValueError("act() called on a finished game")
        captured = capture_counts(state)
        if not captured:
            return [], 0
        counts = np.full(state.game.num_points, -1)
        counts[list(captured)] = list(captured.values())
        return np.flatnonzero(most_captures(counts)).tolist(), int(counts.max())

    def act(self, state: littlego.GoState) -> int:
        moves, _ = self.best_captures(state)
        if not moves:
            return state.game.pass_action
        return _choose(self.rng, moves)


def course_centre_distance(action: int, size: int) -> int:
    """Twice the Manhattan distance of point ``action`` from the board's centre ``((n-1)/2, (n-1)/2)``,
    the course's aggressive player's tie-break (an integer; on odd boards 2 * ``centre_distance``)."""
    i, j = divmod(action, size)
    return abs(2 * i - (size - 1)) + abs(2 * j - (size - 1))


class AggressiveAgent(GreedyAgent):
    """The course TA's aggressive player: greedy when a capture exists; else the first point of the
    two-move pairs of its own that capture the most, centre first (see the module docstring)."""

    name = "aggressive"

    def pair_credits(self, state: littlego.GoState) -> tuple[dict[int, int], int]:
        """How many of the best pairs credit each placement, and what the best pairs capture.

        For placements ``a < b`` (both legal now), place ``a`` then ``b``
        (the opponent not replying); the pair captures the opponent stones
        whose last liberty ``b`` fills; a pair whose ``b`` is then suicide
        counts for nothing. Call it when no single placement captures (as the
        agent does): then ``a`` captures nothing and no ko can apply to ``b``.

        Returns:
            ``({a: pairs (a, b) scoring the best}, best)``; ``best`` is 0 when
            no pair captures, and the dict is empty when no pair is legal.
        """
        geo = state.game
        black_moves = state.to_move == littlego.BLACK
        own, opp = (state.black, state.white) if black_moves else (state.white, state.black)
        empty = geo.full & ~(own | opp)
        possible = placements(state)
        bits = geo.point_bits
        best, credits = 0, {}
        for k, a in enumerate(possible):
            own_a, empty_a = own | bits[a], empty & ~bits[a]
            kills: dict[int, int] = {}  # a last liberty -> the opponent stones in atari on it
            rest = opp
            while rest:
                group = geo.flood(rest & -rest, opp)
                rest &= ~group
                libs = geo.neighbours(group) & empty_a
                if libs and not libs & (libs - 1):
                    kills[libs] = kills.get(libs, 0) + group.bit_count()
            for b in possible[k + 1:]:
                bb = bits[b]
                kill = kills.get(bb, 0)
                if not kill and not geo.neighbour_bits[b] & empty_a:
                    group = geo.flood(bb, own_a | bb)
                    if not geo.neighbours(group) & empty_a & ~bb:
                        continue  # b is suicide after a: the pair is not a line of play
                if kill > best:
                    best, credits = kill, {a: 1}
                elif kill == best:
                    credits[a] = credits.get(a, 0) + 1
        return credits, best

    def choices(self, state: littlego.GoState) -> list[int]:
        """The moves the course's player draws from, uniformly: a move appears once per pair crediting it.

        ``[]`` when no placement is legal (the agent passes).
        """
        moves, best = self.best_captures(state)
        if best > 0 or len(moves) <= 1:
            return moves
        credits, _ = self.pair_credits(state)
        if not credits:
            return moves
        n = state.game.size
        near = min(course_centre_distance(a, n) for a in credits)
        return [a for a, c in credits.items() if course_centre_distance(a, n) == near for _ in range(c)]

    def act(self, state: littlego.GoState) -> int:
        moves = self.choices(state)
        if not moves:
            return state.game.pass_action
        return _choose(self.rng, moves)


def score_margin(state: littlego.GoState) -> float:
    """The score margin (komi to White) from the view of the player to move."""
    black, white = littlego.scores(state)
    return black - white if state.to_move == littlego.BLACK else white - black


def leaf_value(state: littlego.GoState) -> float:
    """The score margin from the mover's view, +-``WIN_BONUS`` more once the game is won or lost."""
    value = score_margin(state)
    if state.end is not None:
        w = littlego.winner(state)
        if w:
            value += WIN_BONUS if w == state.to_move else -WIN_BONUS
    return value


def ordered_children(state: littlego.GoState, branching: int) -> list[tuple[int, littlego.GoState]]:
    """Up to ``branching`` (placement, next state) pairs, most promising first.

    Order: captures (more first), then liberties of the new stone's group
    (more first), then Manhattan distance to the centre (closer first), then
    the action index. With no legal placement: the single pair (PASS, state).
    """
    geo = state.game
    ranked = []
    for a in placements(state):
        child = littlego.play(state, a)
        own = child.black if state.to_move == littlego.BLACK else child.white
        empty = geo.full & ~(child.black | child.white)
        group = geo.flood(geo.point_bits[a], own)
        libs = (geo.neighbours(group) & empty).bit_count()
        ranked.append((-child.captured, -libs, centre_distance(a, geo.size), a, child))
    if not ranked:
        return [(geo.pass_action, littlego.play(state, geo.pass_action))]
    ranked.sort(key=lambda r: r[:4])
    return [(r[3], r[4]) for r in ranked[:branching]]


class OrderedMoves:
    """The course search's moves and play: ``moves`` ranks the placements by playing each
    (``ordered_children``); ``play`` hands back the positions it made instead of playing them again.

    Positions are found by the ``id`` of the state they follow: the search asks ``moves(state)``
    before ``play(state, a)`` while ``state`` lives, and no other live state has its ``id``.
    ``forget()`` drops them (the agent does before each move).
    """

    def __init__(self, branching: int):
        self.branching = branching
        self.made: dict[int, dict[int, littlego.GoState]] = {}

    def moves(self, state: littlego.GoState) -> dict[int, littlego.GoState]:
        """The ordered placements (as the keys of a dict, in order, whose values are their positions)."""
        made = self.made[id(state)] = dict(ordered_children(state, self.branching))
        return made

    def play(self, state: littlego.GoState, action: int) -> littlego.GoState:
        return self.made[id(state)][action]

    def forget(self) -> None:
        self.made.clear()


class CourseAlphaBetaAgent(Agent):
    """Depth-limited negamax with alpha-beta over the ``branching`` best-ordered placements.

    The package's one alpha-beta (``tictacgo.baselines.minimax.AlphaBeta``)
    set as the course's: moves from ``ordered_children`` (``OrderedMoves``), leaves scored by
    ``leaf_value``, no shrink per ply and no transposition table.

    Args:
        game: ``tictacgo.games.littlego``.
        depth: plies to search (>= 1; 2 by default, as in the course).
        branching: placements kept per node (>= 1; 10 by default).
        rng: tie-breaking generator among equally valued root moves.
    """

    games = ("littlego",)

    name = "alphabeta"

    def __init__(self, game: littlego.LittleGo | None = None, depth: int = 2, branching: int = 10,
                 rng: np.random.Generator | None = None):
        super().__init__(game if game is not None else littlego.LittleGo(), rng)
        self.depth = check_int("depth", depth, min=1, max=1000)
        self.branching = check_int("branching", branching, min=1)
        self.ordering = OrderedMoves(self.branching)
        self.search = AlphaBeta(self.game, leaf_value, terminal=leaf_value, moves=self.ordering.moves,
                                play=self.ordering.play, shrink=1.0, table=False)

    @property
    def nodes(self) -> int:
        """Live positions searched so far (leaves not counted)."""
        return self.search.nodes

    def action_values(self, state: littlego.GoState) -> dict[int, float]:
        """Root placements (the ``branching`` best-ordered) and their negamax values.

        Values of moves that cannot be best are upper bounds (alpha-beta);
        every move whose value ties the best is exact.
        """
        self.ordering.forget()
        return self.search.action_values(state, self.depth, ties_only=True)

    def act(self, state: littlego.GoState) -> int:
        if littlego.is_terminal(state):
            raise ValueError("act() called on a finished game")
        if not placement_bits(state):
            return state.game.pass_action
        values = self.action_values(state)
        best = max(values.values())
        return _choose(self.rng, [a for a, v in values.items() if v >= best - 1e-9])


def _make_greedy(game, rng):
    return GreedyAgent(game, rng)


def _make_aggressive(game, rng):
    return AggressiveAgent(game, rng)


def _make_alphabeta(game, rng, depth: int = 2, branching: int = 10):
    return CourseAlphaBetaAgent(game, depth=depth, branching=branching, rng=rng)


register_agent("greedy", _make_greedy, games=("littlego",),
               description="the course's opponent: the placement capturing the most stones (ties at random)")
register_agent("aggressive", _make_aggressive, games=("littlego",),
               description="the course's opponent: greedy, else the first point of the two-move "
               "capture set-ups, centre first (the course TA's rule, move for move)")
register_agent("alphabeta", _make_alphabeta, games=("littlego",),
               description="the course's opponent: alpha-beta on score margin (depth=2, branching=10)")
