"""The independent checker of proof certificates: replays a proof on the rules core alone.

A certificate (written by ``tictacgo.proof.certificate``) claims the value
of a position (``"black wins"``, ``"white wins"`` or ``"draw"``) and holds
one *strategy* per side the claim needs: for a Black win, Black's move at
every Black-to-move position that Black's moves and any replies of White
reach; a White win the other way round; a draw, both sides' strategies for
"at least a draw". The checker walks every such line from the root with
``tictacgo.games.littlego`` (``legal_actions``, ``play``, ``returns``):

* where the strategy's side is to move, the certificate must hold a move
  there (looked up by the position's code, ``tictacgo.proof.position_code``),
  and that move must be legal;
* where the other side is to move, every legal action is followed;
* every game end reached must give the strategy's side at least what the
  claim says (a win, or at least a draw).

It stops at the first position where that fails and names it by the moves
that lead there. It never calls the solver's search or kernels (numba is
not needed). Positions are checked once each (the lines form a DAG: a
position reached along two lines, or a symmetric image of one, shares its
entry and its check; the rules treat the 8 symmetries of the board alike).

File format: ``tictacgo.proof.proof_file`` with ``"format":
"tictacgo-certificate"``; the header holds the variant (``game``), the
``root`` position (its current and previous boards as the course writes
them, the mover, the actions played, and the line of moves that reached it
when known), the ``claim`` and the ``leaves`` rules it relies on. Its tables
are named ``black`` and ``white`` (the strategies).

Leaves other than game ends: a certificate may mark a position as settled
(its move ``SETTLED``) and name in ``leaves`` the rules that settle it; the
checker then recomputes those rules on the position (``LEAF_RULES``: a
function ``(state, colour) -> the outcome +1/0 it guarantees colour, or
None``) and accepts the mark only when one of them gives the strategy's side
what the claim needs there. Only rules in ``LEAF_RULES`` are accepted: the
checker's own, written on the rules core in ``tictacgo.proof.leaf_rules``
(``pass_bound``: the pass strategy's bound; ``pass_alive``: the same with
Benson's pass-alive chains), so a bound computed by the solver is never
trusted as such.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from tictacgo.games import littlego
from tictacgo.proof import leaf_rules, proof_file
from tictacgo.proof.position_code import (
    Code,
    KeyLayout,
    canonical_key,
    code_of_key,
    from_canonical,
    key_layout,
    line_name,
    move_action,
    move_name,
    pack_key,
)
from tictacgo.reading import shorten, shown

FORMAT = "tictacgo-certificate"
VERSION = 1
#: A row's move that says: the position is settled by a leaf rule the checker recomputes.
SETTLED = 255
#: The claims a certificate can make, and the strategies (colour, outcome it guarantees) each needs.
CLAIMS = {"black wins": ((littlego.BLACK, 1),), "white wins": ((littlego.WHITE, 1),),
          "draw": ((littlego.BLACK, 0), (littlego.WHITE, 0))}
COLOUR_NAMES = {littlego.BLACK: "black", littlego.WHITE: "white"}
OUTCOME_NAMES = {1: "a win", 0: "at least a draw", -1: "a loss"}  # what a strategy guarantees
RESULT_NAMES = {1: "a win", 0: "a draw", -1: "a loss"}             # how one game ended

#: Rules that settle a position without a move, by name: ``(state, colour) -> outcome or None``.
LEAF_RULES: dict[str, Callable[[littlego.GoState, int], int | None]] = dict(leaf_rules.RULES)


class CertificateError(ValueError):
    """A certificate that does not prove its claim: the message names the first failing position."""


class CertificateHeaderError(CertificateError, proof_file.ProofFileError):
    """A certificate whose header is malformed (a version, claim, leaves or root of the wrong type or
    value): a certificate that proves nothing, and a file that cannot be read as one (the command
    line's exit status 2, as for any unreadable file)."""


@dataclass
class StrategyCheck:
    """What checking one side's strategy found.

    Attributes:
        colour: the side whose strategy it is (1 Black, 2 White).
        needed: the outcome the claim needs for that side (+1 win, 0 at least a draw).
        guaranteed: the outcome the strategy guarantees from the root (at least ``needed``).
        positions: positions checked (each once, symmetric images counted once).
        rows: the table's rows.
        rows_used: rows the walk from the root reached.
        table: the rows, position key (``position_code.pack_key``) -> move.
        memo: each position checked, key -> the outcome it guarantees the side.
        layout: the keys' layout.
    """

    colour: int
    needed: int
    guaranteed: int
    positions: int
    rows: int
    rows_used: int
    table: dict[int, int] = field(repr=False, default_factory=dict)
    memo: dict[int, int] = field(repr=False, default_factory=dict)
    layout: KeyLayout | None = field(repr=False, default=None)

    @cached_property
    def values(self) -> dict[Code, tuple[int, int]]:
        """For each reached position of the strategy's side: canonical code -> (move in the canonical
        frame, outcome the move guarantees to that side)."""
        out = {}
        for key, move in self.table.items():
            v = self.memo.get(key)
            if move != SETTLED and v is not None:
                out[code_of_key(self.layout, key)] = (move, v)
        return out


@dataclass
class CheckReport:
    """A checked certificate: its claim, variant, root, and each strategy's check."""

    claim: str
    game: littlego.LittleGo
    root: littlego.GoState
    root_line: str
    strategies: list[StrategyCheck]
    seconds: float
    file_bytes: int

    @property
    def positions(self) -> int:
        return sum(s.positions for s in self.strategies)

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self.strategies)

    def summary(self) -> str:
        g = self.game
        parts = [f"{COLOUR_NAMES[s.colour]}'s strategy: {s.rows:,} rows ({s.rows_used:,} reached), "
                 f"{s.positions:,} positions checked" for s in self.strategies]
        return (f"proved: {self.claim} ({g.size}x{g.size}, komi {g.komi:g}, {g.max_actions} actions) from "
                f"{self.root_line}; " + "; ".join(parts) + f"; {self.file_bytes:,} bytes, checked in "
                f"{self.seconds:.2f} s")


def verify(path: str | os.PathLike, max_bytes: int = proof_file.DEFAULT_MAX_BYTES) -> CheckReport:
    """Check the certificate in ``path`` with the rules core alone.

    Args:
        path: the certificate file.
        max_bytes: refuse a file larger than this (before reading it).
    Returns:
        A ``CheckReport`` (the claim holds).
    Raises:
        ProofFileError: the file cannot be read as a certificate (``CertificateHeaderError``, both
            kinds at once: its header is malformed).
        CertificateError: the certificate does not prove its claim (the message names the first
            position where the proof fails) or does not fit the header's variant and root.
    """
    start = time.perf_counter()
    header, tables = proof_file.read(path, FORMAT, max_bytes=max_bytes)
    game, root, root_line, claim, leaves = read_header(path, header)
    checks = []
    for colour, needed in CLAIMS[claim]:
        name = COLOUR_NAMES[colour]
        if name not in tables:
            raise CertificateError(f"{path}: the claim {claim!r} needs {name}'s strategy (table {name!r}), "
                                   f"which the certificate lacks (it has {sorted(tables) or 'none'})")
        table = strategy_table(path, tables[name], game, colour)
        checks.append(check_strategy(root, root_line, colour, needed, table, leaves))
    extra = sorted(set(tables) - {COLOUR_NAMES[c] for c, _ in CLAIMS[claim]})
    if extra:
        raise CertificateError(f"{path}: table(s) {extra} are not part of the claim {claim!r}")
    return CheckReport(claim, game, root, root_line, checks, time.perf_counter() - start,
                       os.path.getsize(path))


def certificate_root(path: str | os.PathLike) -> tuple[littlego.LittleGo, littlego.GoState, str, str]:
    """(variant, root state, claim, the root's name) that a certificate's header names, read without
    checking the proof (``verify`` does that).

    Raises:
        ProofFileError: the file cannot be read as a certificate.
        CertificateError: its header is not a valid certificate header.
    """
    game, root, root_line, claim, _ = read_header(path, proof_file.read_header(path, FORMAT))
    return game, root, claim, root_line


def read_header(path, header: dict) -> tuple[littlego.LittleGo, littlego.GoState, str, str, list[str]]:
    """(game, root state, the root's name, claim, leaf rules) of a certificate header, checked."""
    version = header.get("version")
    if isinstance(version, bool) or version != VERSION:
        raise CertificateHeaderError(f"{path}: certificate version {shown(version)}, this checker "
                               f"reads version {VERSION}")
    size, komi, max_actions = proof_file.check_variant(path, header)
    game = littlego.LittleGo(size, komi, max_actions)
    claim = header.get("claim")
    if not isinstance(claim, str) or claim not in CLAIMS:
        raise CertificateHeaderError(f"{path}: claim {shown(claim)}, expected one of {', '.join(CLAIMS)}")
    leaves = header.get("leaves", [])
    if not isinstance(leaves, list) or any(not isinstance(x, str) for x in leaves):
        raise CertificateHeaderError(f"{path}: 'leaves' must be a list of rule names, got {shown(leaves)}")
    unknown = [x for x in leaves if x != "game_end" and x not in LEAF_RULES]
    if unknown:
        raise CertificateError(f"{path}: the certificate relies on leaf rule(s) {shown(unknown)} that this "
                               f"checker cannot recompute (it knows game_end"
                               f"{''.join(', ' + k for k in LEAF_RULES)})")
    root, root_line = read_root(path, header.get("root"), game)
    return game, root, root_line, claim, [x for x in leaves if x != "game_end"]


def read_root(path, root, game: littlego.LittleGo) -> tuple[littlego.GoState, str]:
    """The root state of a header's ``root`` entry, rebuilt by the rules core, and its name."""
    try:
        board = [[int(c) for c in row] for row in root["board"]]
        previous = [[int(c) for c in row] for row in root["previous"]]
        state = littlego.from_boards(board, root["to_move"], previous, t=root["t"], komi=game.komi,
                                     max_actions=game.max_actions, size=game.size)
    except (TypeError, KeyError, ValueError) as e:
        raise CertificateHeaderError(f"{path}: the root must be {{'board', 'previous', 'to_move', 't'}} "
                                     f"with boards of {game.size} rows of digits 0-2 that legal play "
                                     f"reaches: {shorten(str(e), 200)}") from None
    line = root.get("line")
    if line is not None:
        check_line(path, line, state, game)
    name = f"the position after {line}" if line else "the empty board" if state.t == 0 else \
        "the certificate's root position"
    return state, name


def check_line(path, line, root: littlego.GoState, game: littlego.LittleGo) -> None:
    """A root's ``line`` (the moves that reached it, as the course writes them) is printed and goes
    into books: it must be moves that the rules play from the empty board to the root itself.

    Raises:
        CertificateHeaderError: anything else (text that is not such moves, a control character, a
            line that reaches another position), the line shown escaped.
    """
    if not isinstance(line, str) or len(line) > 1000:
        raise CertificateHeaderError(f"{path}: the root's line {shown(line)} is not a line of moves")
    state = game.initial_state()
    try:
        for word in line.split():
            state = littlego.play(state, move_action(word, game.size))
    except (ValueError, TypeError) as e:  # a word that is no move, an illegal move, the game over
        raise CertificateHeaderError(f"{path}: the root's line {shown(line)} is not moves that the rules "
                                     f"play from the empty board ({shorten(str(e), 120)})") from None
    same = (state.black, state.white, state.prev_black, state.prev_white, state.to_move, state.t) == \
        (root.black, root.white, root.prev_black, root.prev_white, root.to_move, root.t)
    if not same or line != " ".join(line.split()):
        raise CertificateHeaderError(f"{path}: the root's line {shown(line)} does not reach the "
                                     f"certificate's root position")


def strategy_table(path, arrays: dict, game: littlego.LittleGo, colour: int) -> dict[int, int]:
    """A strategy table as ``key -> move`` (keys: ``position_code.pack_key``), its rows checked
    against the variant."""
    n, layout = game.size, key_layout(game.size, game.max_actions)
    black, white = arrays["black"].astype(np.uint64), arrays["white"].astype(np.uint64)
    meta, move = arrays["meta"].astype(np.uint64), arrays["move"].astype(np.uint64)
    t, ko1 = meta & np.uint64(0x7F), (meta >> np.uint64(7)) & np.uint64(0x3F)
    last_pass, mover = (meta >> np.uint64(13)) & np.uint64(1), (meta >> np.uint64(14)) & np.uint64(1)
    wrong_move = (move != SETTLED) & ((move > n * n) | (mover != colour - 1))
    if wrong_move.any():
        k = int(np.argmax(wrong_move))
        what = (f"move {int(move[k])} (actions are 0..{n * n})" if move[k] > n * n else
                f"a move for {COLOUR_NAMES[int(mover[k]) + 1]} to play")
        raise CertificateError(f"{path}: {COLOUR_NAMES[colour]}'s strategy has {what} at a row "
                               f"(t={int(t[k])}); it holds {COLOUR_NAMES[colour]}'s moves only")
    off = ((black | white) >> np.uint64(n * n) != 0) | (t > game.max_actions) | (ko1 > n * n)
    if off.any():
        raise CertificateError(f"{path}: a row of {COLOUR_NAMES[colour]}'s strategy is not a "
                               f"{n}x{n} position of at most {game.max_actions} actions")
    if layout.bits <= 64:
        fields = ((black, layout.points), (white, layout.ko_bits), (ko1, layout.t_bits), (t, 2))
        key = np.zeros(len(move), dtype=np.uint64)
        for column, width in fields:
            key = (key | column) << np.uint64(width)
        keys = (key | last_pass << np.uint64(1) | mover).tolist()
    else:
        keys = [pack_key(layout, b, w, k - 1, tt, bool(lp), m + 1) for b, w, k, tt, lp, m in
                zip(black.tolist(), white.tolist(), ko1.tolist(), t.tolist(), last_pass.tolist(),
                    mover.tolist(), strict=True)]
    return dict(zip(keys, move.tolist(), strict=True))


def outcome_for(state: littlego.GoState, colour: int) -> int:
    """The finished game's outcome for ``colour``: +1 win, 0 draw, -1 loss."""
    ret = littlego.returns(state)[colour - 1]
    return 1 if ret > 0 else -1 if ret < 0 else 0


class _Walk:
    """One strategy's check: a depth-first walk with the value of each position remembered."""

    def __init__(self, root_line: str, colour: int, needed: int, table: dict[int, int], leaves: list[str],
                 n: int):
        self.root_line, self.colour, self.needed, self.table, self.leaves, self.n = (
            root_line, colour, needed, table, leaves, n)
        self.memo: dict[int, int] = {}  # position key -> the outcome it guarantees
        self.path: list[int] = []

    def fail(self, state: littlego.GoState, reason: str) -> CertificateError:
        where = self.root_line if not self.path else f"{self.root_line} then {line_name(self.path, self.n)}"
        mover = "Black" if state.to_move == littlego.BLACK else "White"
        return CertificateError(f"the proof fails at {where} ({mover} to move, {state.t} actions played): "
                                f"{reason}")

    def value(self, state: littlego.GoState) -> int:
        """The outcome the strategy guarantees its side from the live ``state``."""
        key, s = canonical_key(state)
        known = self.memo.get(key)
        if known is not None:
            return known
        row = self.table.get(key)
        if row == SETTLED:
            v = self.settle(state)
        elif state.to_move == self.colour:
            if row is None:
                raise self.fail(state, f"the certificate has no move for {COLOUR_NAMES[self.colour]} here")
            v = self.child(state, from_canonical(row, s, self.n))
        else:
            v = 1
            for action in littlego.legal_actions(state):
                v = min(v, self.child(state, action))
        self.memo[key] = v
        return v

    def child(self, state: littlego.GoState, action: int) -> int:
        try:
            after = littlego.play(state, action)  # the rules refuse an illegal move (the certificate's)
        except littlego.IllegalActionError:
            raise self.fail(state, f"the certificate's move {move_name(action, self.n)} is illegal here "
                                   f"({littlego.illegal_reason(state, action)})") from None
        self.path.append(action)
        if after.end is None:
            v = self.value(after)
        else:
            v = outcome_for(after, self.colour)
            if v < self.needed:
                b, w = littlego.scores(after)
                raise self.fail(after, f"the game ends ({after.end}) with Black {b:g} to White {w:g}, "
                                       f"{RESULT_NAMES[v]} for {COLOUR_NAMES[self.colour]}, but the claim "
                                       f"needs {OUTCOME_NAMES[self.needed]}")
        self.path.pop()
        return v

    def settle(self, state: littlego.GoState) -> int:
        results = [r for r in (LEAF_RULES[name](state, self.colour) for name in self.leaves) if r is not None]
        if not results or max(results) < self.needed:
            raise self.fail(state, f"the certificate marks this position settled, but its leaf rules "
                                   f"({', '.join(self.leaves) or 'none'}) do not give "
                                   f"{COLOUR_NAMES[self.colour]} {OUTCOME_NAMES[self.needed]}")
        return max(results)


def check_strategy(root: littlego.GoState, root_line: str, colour: int, needed: int, table: dict[int, int],
                   leaves: list[str] = ()) -> StrategyCheck:
    """Check that ``table`` (position key -> move, ``strategy_table``) gives ``colour`` at least ``needed``
    from ``root``.

    Raises:
        CertificateError: naming the first position where it does not.
    """
    walk = _Walk(root_line, colour, needed, table, list(leaves), root.game.size)
    guaranteed = walk.value(root)
    used = sum(1 for key in table if key in walk.memo)
    return StrategyCheck(colour, needed, guaranteed, len(walk.memo), len(table), used, table, walk.memo,
                         key_layout(root.game.size, root.game.max_actions))
