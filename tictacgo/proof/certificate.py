"""Proof certificates: what the solver proved about a position, written so that anyone can check it.

    from tictacgo.proof.certificate import prove
    cert = prove(LittleGo(3).initial_state())     # solve, then extract the proof
    cert.write("3x3.cert")                         # checked by tictacgo.proof.verify

``prove`` solves the position for its outcome, then extracts the proof with
the solver as an oracle: for each side the claim needs (the winner; both
sides for a draw), a walk from the root that, where that side is to move,
asks the solver for a move that keeps the value there (its ``best_move``)
and, where the other side is to move, follows every legal action, down to
the game ends, or to a position that a leaf rule settles: where the
checker's own rule (``tictacgo.proof.leaf_rules``, by default
``pass_bound``) already gives the side what it needs, the walk writes the
position as settled (move ``SETTLED``) and goes no further, before it asks
the solver anything there. The moves form the side's strategy table, one
row a position (deduplicated: a position reached along several lines, or a
symmetric image of one, is one row; ``tictacgo.proof.position_code``).
Keeping the exact value (not only the claim) where the other side erred
makes the table a book of proved-best moves too (``tictacgo.proof.book``;
settled rows hold no move and add nothing to a book).

On boards up to 5x5 with the pass bound (or no leaf rule) the walk runs
compiled (``tictacgo.proof.compiled_extraction``, the solver's own rules in
numba) and writes the same rows as the Python walk here, many times faster;
``prove(..., compiled=False)`` takes the Python walk.

The checker is ``tictacgo.proof.checker`` (``tictacgo.proof.verify``); the
checker uses the rules core only, so a wrong move from the solver is caught
there, not trusted.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tictacgo.games import littlego
from tictacgo.proof import compiled_extraction, proof_file
from tictacgo.proof.checker import (
    CLAIMS,
    COLOUR_NAMES,
    FORMAT,
    LEAF_RULES,
    SETTLED,
    VERSION,
    outcome_for,
)
from tictacgo.proof.compiled_extraction import PackedTable, ProofExtractionError
from tictacgo.proof.position_code import Code, canonical, line_name, to_canonical
from tictacgo.solver.search import Solver, check_position


@dataclass
class Certificate:
    """A proof ready to be written: the claim, the root, and each needed side's moves.

    Attributes:
        root: the position whose value is proved.
        claim: ``"black wins"``, ``"white wins"`` or ``"draw"``.
        strategies: colour name (``"black"``, ``"white"``) -> (code -> move in the canonical frame).
        line: the moves (actions) that reached ``root`` from the empty board, when known.
        oracle_nodes: positions the solver searched while the proof was extracted.
        seconds: wall time of the solve and the extraction.
        leaves: what the lines end at: ``"game_end"`` and the leaf rules the settled rows rely on.
    """

    root: littlego.GoState
    claim: str
    strategies: dict[str, Mapping[Code, int]]  # a move, or SETTLED where a leaf rule settles the position
    line: list[int] | None = None
    oracle_nodes: int = 0
    seconds: float = 0.0
    leaves: list[str] = field(default_factory=lambda: ["game_end"])

    @property
    def rows(self) -> int:
        return sum(len(t) for t in self.strategies.values())

    @property
    def settled(self) -> int:
        """Rows settled by a leaf rule (no move)."""
        return sum(t.settled() if isinstance(t, PackedTable) else
                   sum(1 for move in t.values() if move == SETTLED) for t in self.strategies.values())

    def header(self) -> dict:
        g, root = self.root.game, self.root
        rows = ["".join(str(v) for v in r) for r in littlego.to_board(root).tolist()]
        prev = ["".join(str(v) for v in r) for r in littlego.previous_board(root).tolist()]
        out = {"format": FORMAT, "version": VERSION,
               "game": {"size": g.size, "komi": g.komi, "max_actions": g.max_actions},
               "root": {"board": rows, "previous": prev, "to_move": root.to_move, "t": root.t},
               "claim": self.claim, "leaves": list(self.leaves),
               "rows": {name: len(t) for name, t in self.strategies.items()}}
        if self.line is not None:
            out["root"]["line"] = line_name(self.line, g.size) if self.line else ""
        return out

    def write(self, path: str | os.PathLike) -> Path:
        """Write the certificate (atomically); its path."""
        return proof_file.write(path, self.header(),
                                {name: t.arrays if isinstance(t, PackedTable) else proof_file.table_arrays(t)
                                 for name, t in self.strategies.items()})


def claim_of(value_for_mover: int, mover: int) -> str:
    """The claim for a position whose mover gets ``value_for_mover`` (+1, 0, -1)."""
    if value_for_mover == 0:
        return "draw"
    winner = mover if value_for_mover > 0 else 3 - mover
    return f"{COLOUR_NAMES[winner]} wins"


#: The leaf rules ``prove`` uses unless told otherwise.
DEFAULT_LEAF_RULES = ("pass_bound",)


def leaf_rule_names(text: str) -> tuple[str, ...]:
    """The leaf rules a command line names: ``none``, or names of the checker's rules separated by commas.

    Raises:
        ValueError: a name the checker does not know.
    """
    names = tuple(x.strip() for x in text.split(",") if x.strip())
    if names == ("none",):
        return ()
    unknown = [x for x in names if x not in LEAF_RULES]
    if unknown or not names:
        raise ValueError(f"leaf rules {text!r}: expected none, or names among {', '.join(LEAF_RULES)} "
                         "separated by commas")
    return names


def prove(state: littlego.GoState, solver: Solver | None = None, line: list[int] | None = None,
          time_limit: float | None = None, progress: Callable[[str], None] | None = None,
          leaf_rules: Sequence[str] = DEFAULT_LEAF_RULES, compiled: bool = True,
          prefer_known: bool = False) -> Certificate:
    """Solve ``state`` and extract the certificate of its value.

    Args:
        state: a live Little-Go position (board up to 7x7).
        solver: the oracle (default: a new ``Solver(22)``); a large table saves re-searches.
        line: the actions that reached ``state`` from the empty board, to name it in the file.
        time_limit: seconds for the first solve (None: no limit).
        progress: called with a line of text now and then (rows so far).
        leaf_rules: names of the checker's leaf rules (``tictacgo.proof.leaf_rules``: ``pass_bound``,
            ``pass_alive``) that may settle a position; ``()`` follows every line to the game's end.
        compiled: walk the strategies with the compiled walk (``tictacgo.proof.compiled_extraction``)
            where it applies (boards up to 5x5, the pass bound or no leaf rule); False walks them in
            Python. Both write the same rows.
        prefer_known: in a strategy for a win, where the side moves, take without a search the first
            move (in increasing order, PASS last) that ends the game won or reaches a position the
            proof has met already, else the first whose position a leaf rule settles; only where
            there is none, the solver's move. Any winning move will do for a win, and these make the
            proof share more of itself: fewer rows to write and to check. A strategy for a draw keeps
            the solver's moves (a shortcut could pass over a win).
    Raises:
        ValueError: a leaf rule the checker does not know.
        TimeoutError: the first solve did not finish within ``time_limit``.
        ProofExtractionError: the solver's answers contradict each other.
    """
    if isinstance(leaf_rules, str):
        leaf_rules = (leaf_rules,)
    unknown = [name for name in leaf_rules if name not in LEAF_RULES]
    if unknown:
        raise ValueError(f"leaf rule(s) {unknown}: expected names among {', '.join(LEAF_RULES)}")
    rules = list(dict.fromkeys(leaf_rules))
    check_position(state)
    solver = Solver(22) if solver is None else solver
    start = time.perf_counter()
    result = solver.solve(state, time_limit=time_limit)
    if result.value is None:
        raise TimeoutError(f"the position was not solved within {time_limit} s ({result.nodes:,} positions)")
    claim = claim_of(result.value, state.to_move)
    strategies = {}
    nodes = result.nodes
    for colour, needed in CLAIMS[claim]:
        prefer = prefer_known and needed == 1
        if compiled and compiled_extraction.usable(state, rules):
            table, searched = compiled_extraction.strategy(solver, state, colour, needed, bool(rules),
                                                           progress, prefer)
            strategies[COLOUR_NAMES[colour]] = table
            nodes += searched
            continue
        walk = _Extraction(solver, colour, needed, progress, [LEAF_RULES[name] for name in rules], prefer)
        walk.own(state) if state.to_move == colour else walk.other(state)
        strategies[COLOUR_NAMES[colour]] = walk.table
        nodes += walk.nodes
    return Certificate(state, claim, strategies, line, nodes, time.perf_counter() - start,
                       ["game_end", *rules])


class _Extraction:
    """One side's strategy, walked out of the solver."""

    def __init__(self, solver: Solver, colour: int, needed: int, progress, rules: list, prefer: bool = False):
        self.solver, self.colour, self.needed, self.progress = solver, colour, needed, progress
        self.rules, self.prefer = rules, prefer
        self.table: dict[Code, int] = {}
        self.seen: set[Code] = set()
        self.nodes = 0

    def settled(self, state: littlego.GoState, code: Code) -> bool:
        """Whether a leaf rule gives the side what it needs here; if so the row is written settled."""
        for rule in self.rules:
            outcome = rule(state, self.colour)
            if outcome is not None and outcome >= self.needed:
                self.table[code] = SETTLED
                return True
        return False

    def own(self, state: littlego.GoState) -> None:
        """A position where the strategy's side moves: one move that keeps the value."""
        code, s = canonical(state)
        if code in self.table or self.settled(state, code):
            return
        move = self.known_move(state) if self.prefer else None
        if move is None:
            # reached by the rules' moves from the checked root: no need to check it again
            result = self.solver.solve(state, check=False)
            self.nodes += result.nodes
            if result.value is None or result.value < self.needed or result.best_move is None \
                    or result.best_move < 0:
                raise ProofExtractionError(f"the solver gave {result.value} (move {result.best_move}) at a "
                                           f"position of the {COLOUR_NAMES[self.colour]} strategy that needs "
                                           f"{self.needed}")
            move = result.best_move
        self.table[code] = to_canonical(move, s, state.game.size)
        if self.progress is not None and len(self.table) % 100_000 == 0:
            self.progress(f"{COLOUR_NAMES[self.colour]}'s strategy: {len(self.table):,} rows")
        after = littlego.play(state, move)
        if after.end is None:
            self.other(after)

    def known_move(self, state: littlego.GoState) -> int | None:
        """The move ``prove``'s ``prefer_known`` takes without a search, or None."""
        settled = None
        for action in littlego.legal_actions(state):
            after = littlego.play(state, action)
            if after.end is not None:
                if outcome_for(after, self.colour) >= self.needed:
                    return action
                continue
            if canonical(after)[0] in self.seen:
                return action
            if settled is None:
                outcomes = (rule(after, self.colour) for rule in self.rules)
                if any(o is not None and o >= self.needed for o in outcomes):
                    settled = action
        return settled

    def other(self, state: littlego.GoState) -> None:
        """A position where the other side moves: every legal action."""
        code, _ = canonical(state)
        if code in self.seen:
            return
        self.seen.add(code)
        if self.settled(state, code):
            return
        for action in littlego.legal_actions(state):
            after = littlego.play(state, action)
            if after.end is None:
                self.own(after)


def print_progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
