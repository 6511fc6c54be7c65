"""The positions whose certificates would make a combined value checked, and a job that certifies them.

``tictacgo.proof.combine`` finds the value of a position (the *root*) from
frontier runs' values, which the checker cannot check. The same value is
checked once the positions ``depth`` actions below the root that its proof
passes through have certificates (``combine`` then marks it so). Which
positions those are follows from the runs (``proof_leaves``), by the rules
core alone:

* where the mover wins (by the runs' values), one move is enough: the first
  of the mover's legal actions whose position a run proved a win for the
  mover;
* elsewhere every legal action is needed (a game end needs nothing);
* ``depth`` actions below the root, each position reached is a *leaf*: its
  certificate is to be made (one per position: symmetric images and
  transpositions count once).

``certify`` then makes them, one after another, each with ``prove`` (the
solver, then the certificate's extraction) and one ``Solver`` whose table
carries over from leaf to leaf, written atomically as ``NAME.cert`` in a
folder (``NAME``: the leaf's moves, ``2-2_3-3_2-3_1-3``), and checks each
at once, writing what the checker said beside it as ``NAME.json``
(``tictacgo.proof.check_records``). A leaf whose certificate is in the
folder is not made again: under any name, for the leaf or an image of it,
found by its root's code (and checked, if no record of a check of its very
bytes is there); the folder is read again before each leaf, so jobs that
share it skip each other's leaves (and they check one certificate at a
time: a large check takes many GB), and a stopped job goes on with the next
leaf (it loses the one in progress). ``scripts/certify_leaves.py`` is the
command line (its work: ``tictacgo.proof.leaf_job``); it ends by combining the
checked certificates.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tictacgo.games import littlego
from tictacgo.proof import proof_file
from tictacgo.proof.combine import Minimax, read_results, states_along
from tictacgo.proof.position_code import canonical, move_action, move_name


@dataclass(frozen=True)
class Leaf:
    """A position whose certificate the proof needs: the moves that reach it and its state."""

    moves: tuple[str, ...]
    state: littlego.GoState

    @property
    def name(self) -> str:
        """The file name's stem: the moves, ``,`` as ``-`` and spaces as ``_``."""
        return "_".join(m.replace(",", "-") for m in self.moves)


def proof_leaves(paths: list[str | os.PathLike], opening: str | list[str], depth: int) -> list[Leaf]:
    """The positions ``depth`` actions below the position after ``opening`` that its proof by the
    results in ``paths`` passes through (see the module docstring), in the order the walk meets them.

    Raises:
        ValueError: as ``combine.read_results``; a depth below 1; or a position on the way whose
            value the results do not prove, or prove a win only by their own value there (the message
            names it).
    """
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be an integer of at least 1, got {depth!r}")
    game, proved, _ = read_results(paths)
    words = opening.split() if isinstance(opening, str) else list(opening)
    states = states_along("the opening", game, words)
    root = states[-1]
    if root.end is not None or len(states) <= len(words):
        raise ValueError(f"the opening '{' '.join(words)}' ends the game; expected a position to play from")
    search = Minimax(proved)

    def winner_or_all(state: littlego.GoState, moves: tuple[str, ...], left: int) -> list[int]:
        value = search.value(state, left)[0]
        if value is None:
            raise ValueError(f"the results do not prove the position after '{' '.join(moves)}', which the "
                             f"proof passes through ({left} actions above the leaves)")
        sign = 1 if state.to_move == littlego.BLACK else -1
        actions = littlego.legal_actions(state)
        if value * sign != 1:
            return actions
        wins = [a for a in actions if search.value(littlego.play(state, a), left - 1)[0] == value]
        if not wins:  # the win is a run's own value there, which no certificate below can check
            raise ValueError(f"the results prove the position after '{' '.join(moves)}' won for its "
                             f"mover by their own value alone: none of its moves leads to a position "
                             f"they prove won within {left - 1} actions, so no leaf below it would "
                             f"check it (give the results of its moves, or a smaller depth)")
        return wins[:1]

    return leaves_below(root, tuple(words), depth, winner_or_all)


def leaves_below(root: littlego.GoState, moves: tuple[str, ...], depth: int,
                 actions_at: Callable[[littlego.GoState, tuple[str, ...], int], list[int]]) -> list[Leaf]:
    """The positions ``depth`` actions below ``root`` (reached by ``moves``) along the actions that
    ``actions_at(state, moves, left)`` gives at each position above them, in the order the walk meets
    them: the winner's one move, or every action of the other side.

    Game ends on the way are not leaves. A position met twice, or a symmetric image of one, is walked
    (and made a leaf) once, under the first line that reaches it.
    """
    size = root.game.size
    leaves: dict = {}
    seen: set = set()

    def walk(state: littlego.GoState, line: tuple[str, ...], left: int) -> None:
        if state.end is not None:
            return
        code = canonical(state)[0]
        if left == 0:
            leaves.setdefault(code, Leaf(line, state))
            return
        if code in seen:
            return
        seen.add(code)
        for a in actions_at(state, line, left):
            walk(littlego.play(state, a), (*line, move_name(a, size)), left - 1)

    walk(root, moves, depth)
    return list(leaves.values())


@dataclass
class Made:
    """One leaf's certificate: made now or found in the folder, and its record (``check_records``:
    how it was made, what the checker said of it)."""

    leaf: Leaf
    path: Path
    made: bool
    checked_now: bool
    record: dict


def certify(leaves: list[Leaf], folder: str | os.PathLike, table_bits: int = 26,
            leaf_rules: tuple[str, ...] = ("pass_bound",), stop: Callable[[], bool] | None = None,
            report: Callable[[Made], None] | None = None, checks_at_once: int = 1,
            prefer_known: bool = True, max_bytes: int = proof_file.DEFAULT_MAX_BYTES,
            fresh_table: bool = True, book_until: int | None = None) -> list[Made]:
    """Make the certificate of each leaf whose file is not in ``folder`` yet (see the module docstring),
    and check each certificate that has no record of a check of its very bytes, writing the record.

    Args:
        leaves: from ``proof_leaves``.
        folder: where the certificates go (it must exist).
        table_bits: log2 of the shared solver's table entries.
        leaf_rules: the checker's rules that may settle a certificate's position (``prove``'s).
        stop: asked before each leaf; True ends the job there.
        report: called with each leaf's result as it is known.
        checks_at_once: how many jobs sharing ``folder`` may check a certificate at the same time
            (``one_check_at_a_time``); all jobs on a folder should pass the same number.
        prefer_known: ``prove``'s: the winner's moves that need no search first (smaller proofs);
            False takes the solver's move at each of the winner's positions.
        max_bytes: the checker's cap on a certificate's size, packed and unpacked (default 512 MB, as
            ``verify``'s; a 20-to-go certificate can unpack to more).
        fresh_table: a new solver table for each leaf (the default), so that a leaf's certificate is
            the same file byte for byte whenever and wherever it is made (the search is deterministic
            from an empty table of the same size); False carries one table from leaf to leaf (fewer
            positions searched, but a certificate then depends on the leaves made before it).
        book_until: when given, the checked certificate's moves at positions with at most this many
            actions played also go to ``NAME.book`` beside it (``fragment_of``: a book fragment).
    Returns:
        The leaves done, found or made, in order (fewer than ``leaves`` when stopped).
    Raises:
        CertificateError: a certificate in the folder does not prove its claim.
    """
    from tictacgo.proof.certificate import prove
    from tictacgo.proof.check_records import (
        check_and_record,
        checked_claim,
        read_record,
        record_made,
        sha256_of,
    )
    from tictacgo.solver import Solver

    folder = Path(folder)
    found: dict = {}
    solver = None
    out = []
    for leaf in leaves:
        certificates_in(folder, found)  # again before each leaf: another job may have made it meanwhile
        path = found.get(canonical(leaf.state)[0], folder / f"{leaf.name}.cert")
        made = None
        if not path.is_file():
            if stop is not None and stop():
                break
            if solver is None or fresh_table:
                solver = None  # the old table's memory goes before the new one is taken
                solver = Solver(table_bits)
            start = time.perf_counter()
            n = leaf.state.game.size
            line = [move_action(m, n) for m in leaf.moves]
            cert = prove(leaf.state, solver, line=line, leaf_rules=leaf_rules, prefer_known=prefer_known)
            cert.write(path)
            header = cert.header()
            made = {"moves": " ".join(leaf.moves), "game": header["game"], "root": header["root"],
                    "claim": cert.claim, "rows": cert.rows, "solver_positions": cert.oracle_nodes,
                    "seconds": round(time.perf_counter() - start, 1), "table_bits": table_bits,
                    "fresh_table": fresh_table, "prefer_known": prefer_known,
                    "leaf_rules": list(leaf_rules), "sha256": sha256_of(path), "bytes": path.stat().st_size,
                    "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            record_made(path, made)  # kept if the job stops before the check
            del cert  # its tables (GBs for a large leaf) are on disk now; the check builds its own
        if made is not None or checked_claim(path) is None:
            if made is None and stop is not None and stop():
                break
            on_report = None
            if book_until is not None:
                def on_report(report, path=path):
                    fragment_of(report, book_until).write(path.with_suffix(".book"))
            with one_check_at_a_time(folder, checks_at_once):
                done = Made(leaf, path, made is not None, True, check_and_record(path, max_bytes, on_report))
        else:
            done = Made(leaf, path, False, False, read_record(path))
        out.append(done)
        if report is not None:
            report(done)
    return out


def fragment_of(report, until: int):
    """The book of a checked certificate's moves at positions with at most ``until`` actions played:
    the proved moves near the certificate's root, small enough to ship (``tictacgo.proof.book``).

    Args:
        report: the checker's ``CheckReport`` of the certificate.
        until: the most actions played at a position whose move is kept.
    """
    from tictacgo.proof.book import Book
    from tictacgo.proof.checker import SETTLED
    from tictacgo.proof.position_code import code_of_key

    book = Book(report.game)
    for check in report.strategies:
        layout, t_mask = check.layout, (1 << check.layout.t_bits) - 1
        for key, move in check.table.items():
            if (key >> 2) & t_mask > until or move == SETTLED:
                continue
            value = check.memo.get(key)
            if value is not None:
                book._add(code_of_key(layout, key), move, value)
    book.sources.append(f"certificate of {report.root_line}: {report.claim}, checked; its moves at "
                        f"positions with at most {until} actions played ({len(book):,})")
    return book


@contextmanager
def one_check_at_a_time(folder: Path, at_once: int = 1):
    """Hold one of the folder's ``at_once`` check locks (``.check.lock``, then ``.check.lock.1`` and
    on: exclusive ``flock``s) while inside: jobs that share the folder check at most ``at_once``
    certificates at a time, since checking a large one takes GBs of memory (a 20-million-row
    certificate about 4 GB). A job takes the first free lock, or waits for the first one. Where
    ``fcntl`` is missing (Windows), nothing is locked."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    if isinstance(at_once, bool) or not isinstance(at_once, int) or at_once < 1:
        raise ValueError(f"at_once must be a positive int, got {at_once!r}")
    files = [open(folder / (".check.lock" + (f".{k}" if k else "")), "a") for k in range(at_once)]
    try:
        held = None
        for f in files:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = f
                break
            except BlockingIOError:
                continue
        if held is None:
            held = files[0]
            fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
    finally:
        for f in files:
            f.close()


def certificates_in(folder: Path, known: dict | None = None) -> dict:
    """The certificates in ``folder`` (``*.cert``) by their root's canonical code, read from their
    headers alone (nothing is checked here: ``certify`` checks each one): a file made under another
    name, or for an image of a leaf, still counts. With ``known`` (an earlier answer), only files not
    in it are read, and it is brought up to date and returned."""
    from tictacgo.proof.checker import certificate_root

    out = {} if known is None else known
    read = set(out.values())
    for path in sorted(folder.glob("*.cert")):
        if path not in read:
            root = certificate_root(path)[1]
            out.setdefault(canonical(root)[0], path)
    return out
