"""The ``perfect`` agent as Black against White players: results, where each move came from, its time,
and the checker's word on the moves it proved live (``scripts/eval_perfect.py``).

For each opponent, ``games`` games from the empty 5x5 board with the agent
as Black, game ``i`` seeded from ``[seed, i]`` (the agent from ``[seed, i,
0]``, the opponent from ``[seed, i, 1]``), the agent built once for all of
them as a long match does. Every Black move is timed (wall clock, the
agent's ``act``) and its source recorded (``book``, ``solved``,
``fallback``). With ``check``, the position after each move the agent
proved live is proved again from a fresh table, written as a certificate
and verified by the checker (``tictacgo.proof.checker``): a move counts as
checked only if the checker accepts that Black wins there. Book moves are
the proof's own (their certificates were checked when the book was built,
``tictacgo prove``); a game whose Black moves all came from the book or a
live proof is one the agent played perfectly.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tictacgo.baselines.registry import make_agent
from tictacgo.games import littlego

#: The White players of the published measurement: every Little-Go agent here that plays with its
#: defaults, ``mcts`` at 4,000 simulations a move. Not here: ``program`` (it needs the command of a
#: course program, ``cmd=``) and ``a2c`` (no Little-Go model is shipped for it).
WHITE_PLAYERS = ("random", "greedy", "aggressive", "alphabeta", "qlearning", "championship", "az",
                 "mcts:sims=4000", "minimax", "solver", "ppo", "policy_mcts", "mix_mcts", "perfect")


@dataclass
class BlackMove:
    """One of the agent's moves: when, what, where it came from, how long, and the checker's word."""

    t: int
    action: int
    source: str
    seconds: float
    checked: bool | None = None  # None: not checked (check=False, or a book move nearer the root than asked)


@dataclass
class GameRow:
    """One game: the opponent, its index, the winner (1 Black, 2 White), the agent's moves, and every
    action of the game in order (both players')."""

    opponent: str
    index: int
    winner: int
    moves: list[BlackMove] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)

    @property
    def proved(self) -> bool:
        """Whether every Black move came from the book or a live proof."""
        return all(m.source in ("book", "solved") for m in self.moves)


def play_as_black(opponent: str, games: int, seed: int = 0, agent: str = "perfect", check: bool = False,
                  on_game=None, white_first: int | list[int] | None = None,
                  check_book_from: int | None = None, first: int = 0) -> list[GameRow]:
    """Play ``games`` games of ``agent`` (Black) against ``opponent`` (White); see the module docstring.

    Args:
        opponent: White's registry spec.
        games: how many games.
        seed: the seed of game ``i``'s generators, ``[seed, i, ...]``.
        agent: Black's spec (an agent with ``last_source``: ``perfect``).
        check: verify the position after each live-proved move with a certificate and the checker.
        on_game: called with each finished ``GameRow``.
        white_first: White's first action, played instead of the opponent's (None: the opponent's); a
            list gives game ``i`` its item ``i % len``.
        check_book_from: with ``check``, verify book moves too from this many actions played on
            (None: book moves are not checked; nearer the root a proof takes minutes). The first
            action is 0.
        first: the index of the first game (games ``first`` to ``first + games - 1`` are played).
    """
    game = littlego.LittleGo(5)
    black = make_agent(agent, game, rng=np.random.default_rng([seed, 0]))
    firsts = [white_first] if isinstance(white_first, int) else list(white_first or [])
    rows = []
    for i in range(first, first + games):
        white = make_agent(opponent, game, rng=np.random.default_rng([seed, i, 1]))
        black.seed(np.random.default_rng([seed, i, 0]))
        black.reset()
        white.reset()
        state, row = game.initial_state(), GameRow(opponent, i, 0)
        while state.end is None:
            if state.to_move == littlego.BLACK:
                start = time.perf_counter()
                action = black.act(state)
                seconds = time.perf_counter() - start
                after = littlego.play(state, action)
                move = BlackMove(state.t, action, source_of(black), seconds)
                late_book = move.source == "book" and check_book_from is not None \
                    and state.t >= check_book_from
                if check and (move.source == "solved" or late_book):
                    move.checked = black_wins_checked(after)
                row.moves.append(move)
            elif state.t == 1 and firsts:
                action = firsts[i % len(firsts)]
                after = littlego.play(state, action)
            else:
                action = white.act(state)
                after = littlego.play(state, action)
            row.actions.append(int(action))
            state = after
        row.winner = 1 if littlego.returns(state)[0] > 0 else 2
        rows.append(row)
        if on_game is not None:
            on_game(row)
    return rows


#: What ``perfect``'s note (``agent.note()``, which ``my-player`` prints) says of each source of a move.
NOTE_SOURCES = (("keeps a proved win (the book's move)", "book"),
                ("keeps a proved win (solved now", "solved"),
                ("the fallback's move", "fallback"))


def source_of(agent) -> str:
    """Where the agent's last move came from: ``perfect``'s ``last_source`` (``book``, ``solved``,
    ``fallback``); for a program playing through the course's files (``program:cmd=tictacgo my-player
    --agent perfect``), the same read from the note ``my-player`` writes on stderr; else ``?``."""
    source = getattr(agent, "last_source", None)
    if source is not None:
        return source
    stderr = getattr(agent, "last_stderr", "")
    notes = [line for line in stderr.splitlines() if line.startswith("my-player: ")]
    for mark, source in NOTE_SOURCES:
        if notes and mark in notes[-1]:
            return source
    return "?"


def play_as_black_on_workers(opponent: str, games: int, workers: int, first: int = 0, **kwargs
                             ) -> list[GameRow]:
    """``play_as_black`` with the games (``first`` to ``first + games - 1``) split into ``workers`` runs
    of consecutive games, each in a process of its own (spawned), the rows in game order.

    Game ``i`` is seeded as in one process, but each worker builds its own Black agent, so what a
    game's agent remembers (the live solver's table) comes from that worker's earlier games only: a
    move may differ from a one-process run where several moves win. ``on_game`` is not taken.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if "on_game" in kwargs:
        raise ValueError("on_game is not taken with workers: the rows come back when each worker ends")
    workers = max(1, min(workers, games))
    if workers == 1:
        return play_as_black(opponent, games, first=first, **kwargs)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    bounds = [first + games * k // workers for k in range(workers + 1)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = [pool.submit(play_as_black, opponent, bounds[k + 1] - bounds[k], first=bounds[k], **kwargs)
                 for k in range(workers)]
        return [row for part in parts for row in part.result()]


def black_wins_checked(state: littlego.GoState) -> bool:
    """Whether the checker accepts a certificate, made now from a fresh table, that Black wins ``state``
    (a finished game: whether Black won it)."""
    from tictacgo.proof import prove, verify
    from tictacgo.solver import Solver

    if state.end is not None:
        return littlego.returns(state)[0] > 0
    with tempfile.TemporaryDirectory(prefix="tictacgo-check-") as d:
        path = prove(state, Solver(20)).write(Path(d) / "after.cert")
        return verify(path).claim == "black wins"


def summary(rows: list[GameRow]) -> dict:
    """Totals of one opponent's games: how many, how many differ (a White player that plays the same
    game each time meets Black once), wins, games played perfectly, moves by source, move times
    (median and worst, seconds), and live moves checked (accepted / tried)."""
    moves = [m for r in rows for m in r.moves]
    seconds = [m.seconds for m in moves]
    sources = {s: sum(1 for m in moves if m.source == s) for s in ("book", "solved", "fallback")}
    tried = [m for m in moves if m.checked is not None]
    return {"games": len(rows), "distinct_games": len({tuple(r.actions) for r in rows}),
            "black_wins": sum(r.winner == 1 for r in rows),
            "proved_games": sum(r.proved for r in rows), "moves": len(moves), **sources,
            "median_seconds": statistics.median(seconds) if seconds else None,
            "worst_seconds": max(seconds) if seconds else None,
            "checked": sum(1 for m in tried if m.checked), "check_tried": len(tried)}


def live_proof_times(left: int, samples: int, seed: int = 0, table_bits: int = 22, tries: int = 100_000
                     ) -> list[tuple[float, int]]:
    """How long a fresh solver takes to prove the win at positions of the proof's strategy with
    ``left`` actions to go: (seconds, positions) for each of ``samples`` positions.

    The positions are reached from the empty board by the book's Black moves and a random White
    (seeded), as a game of the ``perfect`` agent's reaches them; lines that leave the book before
    (a leaf not in it yet) are drawn again, at most ``tries`` times in all. Each position is solved
    from an empty table of ``2**table_bits`` entries, as one ``my-player`` process would.

    Raises:
        ValueError: fewer than ``samples`` positions reached within ``tries`` lines.
    """
    from tictacgo.proof.book import default_book
    from tictacgo.solver import Solver

    game = littlego.LittleGo(5)
    book = default_book(game.size, game.komi, game.max_actions)
    rng = np.random.default_rng(seed)
    out: list[tuple[float, int]] = []
    for _ in range(tries):
        state = game.initial_state()
        while state.end is None and game.max_actions - state.t > left:
            if state.to_move == littlego.BLACK:
                hit = book.lookup(state)
                if hit is None:
                    break
                state = littlego.play(state, hit[0])
            else:
                moves = littlego.legal_actions(state)
                state = littlego.play(state, int(moves[rng.integers(len(moves))]))
        if state.end is not None or game.max_actions - state.t != left or state.to_move != littlego.BLACK:
            continue
        start = time.perf_counter()
        result = Solver(table_bits).solve(state)
        seconds = time.perf_counter() - start
        if result.value != 1:
            raise ValueError(f"a position of the proof's strategy was not proved a Black win: {result}")
        out.append((seconds, result.nodes))
        if len(out) == samples:
            return out
    raise ValueError(f"only {len(out)} positions with {left} actions to go in {tries} lines: the book "
                     "covers too few leaves yet")


def covered_replies(records: str | Path, depth: int = 4) -> list[str]:
    """White's first actions after the proof's first move below which every leaf of the proof (``depth``
    actions from the empty 5x5 board) has a record of a check that says Black wins.

    Below such a reply the ``perfect`` agent plays the proof itself: the book holds its moves down to
    where it proves live. The records (``records``: a folder of ``tictacgo prove``'s check records)
    are taken on trust here; ``tictacgo prove --recheck`` remakes and checks them. Replies that are
    symmetric images of a covered one count as covered too.
    """
    from tictacgo.proof.book import default_book
    from tictacgo.proof.check_records import recorded_checks
    from tictacgo.proof.position_code import canonical, move_action, move_name
    from tictacgo.proof.proof_job import plan_proof

    game = littlego.LittleGo(5)
    plan = plan_proof(default_book(5, game.komi, game.max_actions), depth, game)
    won = set()
    for moves, claim, _ in recorded_checks(records):
        if claim == "black wins":
            state = game.initial_state()
            for m in moves:
                state = littlego.play(state, move_action(m, 5))
            won.add(canonical(state)[0])

    def all_won(state: littlego.GoState, left: int) -> bool:
        if state.end is not None:
            return littlego.returns(state)[0] > 0
        if left == 0:
            return canonical(state)[0] in won
        move = plan.book_move(state) if state.to_move == littlego.BLACK else None
        if state.to_move == littlego.BLACK:
            return move is not None and all_won(littlego.play(state, move), left - 1)
        return all(all_won(littlego.play(state, a), left - 1) for a in littlego.legal_actions(state))

    root = game.initial_state()
    first = plan.book_move(root)
    after_first = littlego.play(root, first)
    return [move_name(a, 5) for a in littlego.legal_actions(after_first)
            if all_won(littlego.play(after_first, a), depth - 2)]
