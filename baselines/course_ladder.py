"""The course's Little-Go opponent ladder: greedy, aggressive and alpha-beta.

Re-implementations of the opponents the CSCI-561 homework grades against
(docs/littlego.md, "The course's opponents"), working on the bitboard rules
core ``tictacgo.games.littlego``. They play Little-Go only.

* ``greedy`` (``GreedyAgent``): for every legal placement count the opponent
  stones it captures; play uniformly at random among the placements that
  capture the most (so, with no capture on the board, any legal placement):
  the rule of ``tictacgo.games.greedy``, which the native vector env's
  ``"greedy"`` opponent plays too.
* ``aggressive`` (``AggressiveAgent``): if some placement captures, play like
  greedy. Otherwise look at every pair of two consecutive placements of its
  own (the opponent not replying) and keep the first moves of the pairs that
  capture the most; break ties by Manhattan distance to the centre (closer
  first), then at random.
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


class AggressiveAgent(GreedyAgent):
    """Greedy when a capture exists; else sets up the biggest capture two own moves ahead."""

    name = "aggressive"

    def pair_scores(self, state: littlego.GoState) -> dict[int, int]:
        """For each legal first placement, the most stones a second own placement then captures.

        After the first placement ``a`` (the opponent not replying, no ko), a
        second placement captures exactly the opponent groups whose only
        liberty it fills, and that point is always legal (it captures, so it
        is no suicide). So the best second move's capture is the largest sum
        of the sizes of opponent groups in atari that share one last liberty:
        one flood fill per opponent group instead of one trial move per empty
        point (``tests/test_course_ladder.py`` checks it against trying every
        second placement).
        """
        geo = state.game
        mover = state.to_move
        scores = {}
        for a in placements(state):
            after = littlego.play(state, a)
            own, opp = (after.black, after.white) if mover == littlego.BLACK else (after.white, after.black)
            scores[a] = atari_capture(geo, own, opp)
        return scores

    def act(self, state: littlego.GoState) -> int:
        moves, best = self.best_captures(state)
        if not moves:
            return state.game.pass_action
        if best > 0:
            return _choose(self.rng, moves)
        scores = self.pair_scores(state)
        top = max(scores.values())
        keep = [a for a, s in scores.items() if s == top]
        n = state.game.size
        near = min(centre_distance(a, n) for a in keep)
        return _choose(self.rng, [a for a in keep if centre_distance(a, n) == near])


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
               description="the course's opponent: greedy, else the best two-move capture set-up, "
               "centre first")
register_agent("alphabeta", _make_alphabeta, games=("littlego",),
               description="the course's opponent: alpha-beta on score margin (depth=2, branching=10)")
