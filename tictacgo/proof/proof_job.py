"""The whole proof of a solved game, made and checked from nothing by one command (``tictacgo prove``).

    tictacgo prove --size 5 --dir runs/proof          # the course's game: 109 leaf certificates
    tictacgo prove --size 5 --dir runs/proof --backend ray   # the same leaves as Ray tasks

**The plan** (``plan_proof``). The winner's moves near the top come from the
package's book of the variant (``tictacgo.proof.book``): they are a plan,
which the proof then checks, never a value it trusts. From the empty board,
at each position where the book holds a winning move for the mover that one
move is followed; everywhere else every legal action is; ``depth`` actions
down, each position reached is a *leaf* (one per position: symmetric images
and transpositions count once). On 5x5 with depth 4 that is Black's centre,
White's 25 replies, Black's answer to each and every White reply to that:
109 leaves with 20 actions to go.

**The leaves** (``run_leaves``). Each leaf's certificate is made with a
fresh solver table (``proof_leaves.certify``), so the same leaf gives the
same file byte for byte on any machine; then checked by the checker, with
the record of both beside it (``NAME.json``: the root, the game, the claim,
the rows, the file's SHA-256, how long each step took) and, with
``book_until``, its moves near the root as a book fragment (``NAME.book``).
The leaves run in worker processes, ``workers`` at a time, or as Ray tasks
(``backend="ray"``, one CPU each, on the cluster at ``RAY_ADDRESS`` or a Ray
started for the run; the folder must then be one that every node sees). A
leaf whose certificate and record are in the folder is not made again, so a
stopped job goes on where it was (it loses the leaves in progress).

**How each leaf is known**: checked in this run (its certificate made now,
or found in the folder and checked now); from the folder's own record of an
earlier run's check (its certificate there, with the SHA-256 the record
names; ``recheck`` checks it again); or from a kept record (``records``: a
folder of records whose certificates are gone). A kept record's position
must be a leaf, and where the certificate is in the folder too, made from
the same moves (a mirror image's moves make another certificate of the same
position), its bytes must be the ones the record names. Only a value that follows from leaves
checked in this run is reported as checked; anything that rests on a record
says so.

**The value** (``combine_plan``): the rules core's minimax over the plan, from
the leaves' claims: the root's value and how it is known (``CHECKED``,
``RECORDED``), the weakest of the leaves it needs.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tictacgo.games import littlego
from tictacgo.proof.book import Book
from tictacgo.proof.check_records import CLAIMS, read_record, record_path, sha256_of
from tictacgo.proof.checker import certificate_root, outcome_for
from tictacgo.proof.combine import CHECKED, RECORDED, UNCHECKED, states_along
from tictacgo.proof.position_code import Code, canonical, move_name
from tictacgo.proof.proof_leaves import Leaf, leaves_below


@dataclass
class Plan:
    """What the proof of a position passes through (see the module docstring).

    Attributes:
        game: the variant.
        depth: actions from the root to the leaves.
        leaves: the leaves, in the order the walk meets them.
        book: the book whose winning moves the plan follows.
        winner_moves: how many positions above the leaves follow a book move.
    """

    game: littlego.LittleGo
    depth: int
    leaves: list[Leaf]
    book: Book
    winner_moves: int = 0

    @property
    def root(self) -> littlego.GoState:
        return self.game.initial_state()

    def book_move(self, state: littlego.GoState) -> int | None:
        """The plan's move at ``state``: the book's move where it wins for the mover, else None (the
        book may be of another komi than the game's: its moves are only a plan).

        Where the position is symmetric, the book's move has images that lead to the same position up
        to symmetry (after ``2,2 0,0``, ``1,2`` and ``2,1``); the plan plays the smallest action of
        them, so that the leaves' moves, and so their certificates' bytes, do not depend on which
        symmetry the book's lookup happened to use (the leaves' records in docs/data are named so)."""
        hit = self.book.lookup(state._replace(game=self.book.game))
        if hit is None or hit[1] <= 0:
            return None
        target = _position_after(state, hit[0])
        if target is None:
            return hit[0]
        return min(a for a in littlego.legal_actions(state) if _position_after(state, a) == target)


def _position_after(state: littlego.GoState, action: int) -> Code | None:
    """The canonical code of the position ``action`` leads to (None where it ends the game)."""
    after = littlego.play(state, action)
    return None if after.end is not None else canonical(after)[0]


def plan_proof(book: Book, depth: int, game: littlego.LittleGo | None = None) -> Plan:
    """The leaves ``depth`` actions below the empty board that the book's winning moves lead to.

    Args:
        book: the book whose winning moves are the plan.
        depth: actions from the empty board to the leaves.
        game: the variant to prove (default: the book's); another komi than the book's takes the
            book's moves as the plan for it (the leaves' certificates then say whether they hold).
    Raises:
        ValueError: a depth below 1, or a game of another board or action limit than the book's.
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be an integer of at least 1, got {depth!r}")
    game = book.game if game is None else game
    if (game.size, game.max_actions) != (book.game.size, book.game.max_actions):
        raise ValueError(f"a plan from a book of {book.game.size}x{book.game.size} with "
                         f"{book.game.max_actions} actions cannot prove {game.size}x{game.size} with "
                         f"{game.max_actions}")
    plan = Plan(game, depth, [], book)

    def winner_or_all(state: littlego.GoState, moves: tuple[str, ...], left: int) -> list[int]:
        move = plan.book_move(state)
        if move is None:
            return littlego.legal_actions(state)
        plan.winner_moves += 1
        return [move]

    plan.leaves = leaves_below(game.initial_state(), (), depth, winner_or_all)
    return plan


@dataclass
class LeafResult:
    """One leaf's standing: its claim (None: not known yet) and how it is known."""

    leaf: Leaf
    claim: str | None = None
    how: int = UNCHECKED          # CHECKED: in this run; RECORDED: from a record
    source: str = ""              # "made and checked now", "checked now", "this folder's record", ...
    record: dict = field(default_factory=dict)
    path: Path | None = None      # its certificate in the folder, where there is one


def combine_plan(plan: Plan, results: dict[Code, LeafResult]) -> tuple[int | None, int]:
    """(the root's value for Black or None, how it is known) by the rules core's minimax over the plan,
    from the leaves' claims in ``results`` (by the leaf's canonical code)."""
    memo: dict[Code, tuple[int | None, int]] = {}

    def value(state: littlego.GoState, left: int) -> tuple[int | None, int]:
        if state.end is not None:
            return outcome_for(state, littlego.BLACK), CHECKED
        code = canonical(state)[0]
        if left == 0:
            r = results.get(code)
            if r is None or r.claim is None:
                return None, UNCHECKED
            return CLAIMS[r.claim], r.how
        if code in memo:
            return memo[code]
        sign = 1 if state.to_move == littlego.BLACK else -1
        move = plan.book_move(state)
        if move is not None:
            v, how = value(littlego.play(state, move), left - 1)
            out = (v, how) if v is not None and v * sign == 1 else (None, UNCHECKED)
        else:
            kids = [value(littlego.play(state, a), left - 1) for a in littlego.legal_actions(state)]
            wins = [k for k in kids if k[0] is not None and k[0] * sign == 1]
            if wins:
                out = max(wins, key=lambda k: k[1])
            elif any(k[0] is None for k in kids):
                out = (None, UNCHECKED)
            else:
                best = max(k[0] * sign for k in kids) * sign
                out = (best, min(k[1] for k in kids))
        memo[code] = out
        return out

    return value(plan.root, plan.depth)


def leaf_task(size: int, komi: float, max_actions: int, moves: list[str], folder: str, table_bits: int,
              leaf_rules: tuple[str, ...], book_until: int | None, max_bytes: int, recheck: bool) -> dict:
    """Make and check one leaf in ``folder`` (a worker's or a Ray task's body: plain data in and out).

    Returns:
        ``{"record": ..., "made": bool, "checked_now": bool, "path": the certificate's path}``.
    """
    from tictacgo.proof.check_records import check_and_record
    from tictacgo.proof.proof_leaves import certificates_in, certify, fragment_of

    game = littlego.LittleGo(size, komi, max_actions)
    state = states_along("the leaf", game, list(moves))[-1]
    leaf = Leaf(tuple(moves), state)
    path = certificates_in(Path(folder)).get(canonical(state)[0], Path(folder) / f"{leaf.name}.cert")
    if recheck and path.is_file() and read_record(path).get("checked"):
        on_report = None
        if book_until is not None:
            def on_report(report):
                fragment_of(report, book_until).write(path.with_suffix(".book"))
        record = check_and_record(path, max_bytes, on_report)
        return {"record": record, "made": False, "checked_now": True, "path": str(path)}
    done = certify([leaf], folder, table_bits, leaf_rules, max_bytes=max_bytes, fresh_table=True,
                   book_until=book_until, checks_at_once=1 << 10)
    m = done[0]
    return {"record": m.record, "made": m.made, "checked_now": m.checked_now, "path": str(m.path)}


@dataclass
class JobSettings:
    """How ``run_leaves`` makes the leaves."""

    folder: Path
    workers: int = 1
    backend: str = "local"                  # "local" or "ray"
    table_bits: int = 26
    leaf_rules: tuple[str, ...] = ("pass_bound",)
    book_until: int | None = None
    max_bytes: int = 4096 << 20
    recheck: bool = False
    address: str | None = None              # Ray: where the cluster is (None: RAY_ADDRESS or a new one)


def standing(plan: Plan, folder: Path, kept: Path | None = None) -> dict[Code, LeafResult]:
    """Each leaf's standing before any work: from the folder's certificates and records, then from the
    kept records (``kept``) for leaves the folder does not hold.

    Raises:
        ValueError: a kept record of a position that is no leaf, of another game, or whose SHA-256
            is not that of the certificate of the same leaf in the folder (each named).
    """
    from tictacgo.proof.proof_leaves import certificates_in

    out: dict[Code, LeafResult] = {}
    found = certificates_in(folder)  # by their roots' codes: a leaf's certificate under any name
    for leaf in plan.leaves:
        code = canonical(leaf.state)[0]
        r = LeafResult(leaf)
        path = found.get(code, folder / f"{leaf.name}.cert")
        record = read_record(path) if path.is_file() else {}
        checked = record.get("checked")
        if isinstance(checked, dict) and checked.get("sha256") == sha256_of(path) \
                and checked.get("claim") in CLAIMS:
            own = certificate_root(path)[2]
            if own != checked["claim"]:
                raise ValueError(f"{record_path(path)}: the record says the checker accepted "
                                 f"'{checked['claim']}' for {path.name}, whose own claim is '{own}': one of "
                                 "the two was changed")
            r.claim, r.how, r.source, r.record = checked["claim"], RECORDED, "this folder's record", record
        r.path = path if path.is_file() else None
        out[code] = r
    if kept is not None:
        for code, (name, record) in kept_records(plan, kept).items():
            r = out[code]
            cert = found.get(code, folder / f"{r.leaf.name}.cert")
            made = record.get("made") if isinstance(record.get("made"), dict) else {}
            if cert.is_file() and made.get("fresh_table") and made.get("sha256") != sha256_of(cert) \
                    and line_of(cert) == made.get("moves"):  # made from the same moves
                raise ValueError(f"{kept / name}: the record names a certificate with SHA-256 "
                                 f"{made.get('sha256')}, but {cert} (the same leaf, made the same way) has "
                                 f"{sha256_of(cert)}")
            if r.claim is None:
                r.claim, r.how, r.source = record["checked"]["claim"], RECORDED, "a kept record"
                r.record = record
    return out


def line_of(cert: Path) -> str | None:
    """The moves from the empty board that a certificate's header names for its root (``"2,2 0,0 1,2
    4,0"``), or None where it names none."""
    from tictacgo.proof import proof_file
    from tictacgo.proof.checker import FORMAT

    root = proof_file.read_header(cert, FORMAT).get("root")
    line = root.get("line") if isinstance(root, dict) else None
    return line if isinstance(line, str) else None


def kept_records(plan: Plan, folder: Path) -> dict[Code, tuple[str, dict]]:
    """The records in ``folder`` of checks of the plan's leaves, by the leaf's code.

    Raises:
        ValueError: a record that is not one, a check without a known claim, a record of another game or
            of a position that is no leaf, or whose root is not the position its name gives (each named).
    """
    from tictacgo.proof.check_records import recorded_checks

    game = plan.game
    by_code = {canonical(leaf.state)[0]: leaf for leaf in plan.leaves}
    out = {}
    for moves, _claim, path in recorded_checks(folder):
        record = read_record(path.with_suffix(".cert"))
        state = states_along(path, game, moves)[-1]
        code = canonical(state)[0]
        if code not in by_code:
            raise ValueError(f"{path}: a record of the position after '{' '.join(moves)}', which is not "
                             f"one of the {len(plan.leaves)} leaves")
        made = record.get("made") if isinstance(record.get("made"), dict) else {}
        variant = {"size": game.size, "komi": game.komi, "max_actions": game.max_actions}
        if "game" in made and made["game"] != variant:
            raise ValueError(f"{path}: a record of the game {made['game']}, not of {variant}")
        root = made.get("root")
        if root is not None:
            board = ["".join(str(v) for v in row) for row in littlego.to_board(state).tolist()]
            if not isinstance(root, dict) or root.get("board") != board or root.get("t") != state.t \
                    or root.get("to_move") != state.to_move:
                raise ValueError(f"{path}: the record's root is not the position after '{' '.join(moves)}' "
                                 "that its name gives")
        out[code] = (path.name, record)
    return out


def run_leaves(plan: Plan, todo: list[Leaf], settings: JobSettings,
               report: Callable[[Leaf, dict], None] | None = None) -> list[tuple[Leaf, dict]]:
    """Make and check the leaves in ``todo`` (see the module docstring); each finished one's result
    (``leaf_task``'s) goes to ``report`` as it comes. A KeyboardInterrupt (Ctrl-C, SIGTERM) stops the
    workers at once and is raised again; the leaves finished stay finished."""
    g = plan.game
    args = [(g.size, g.komi, g.max_actions, list(leaf.moves), str(settings.folder), settings.table_bits,
             tuple(settings.leaf_rules), settings.book_until, settings.max_bytes, settings.recheck)
            for leaf in todo]
    if settings.backend == "ray":
        return _run_ray(todo, args, settings, report)
    return _run_local(todo, args, settings, report)


def _run_local(todo, args, settings, report):
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    done = []
    if settings.workers == 1:  # in this process: no start-up, and a test sees every step
        for leaf, a in zip(todo, args, strict=True):
            result = leaf_task(*a)
            done.append((leaf, result))
            if report is not None:
                report(leaf, result)
        return done
    pool = ProcessPoolExecutor(settings.workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        waiting = {pool.submit(leaf_task, *a): leaf for leaf, a in zip(todo, args, strict=True)}
        while waiting:
            finished, _ = wait(waiting, return_when=FIRST_COMPLETED)
            for f in finished:
                leaf = waiting.pop(f)
                result = f.result()
                done.append((leaf, result))
                if report is not None:
                    report(leaf, result)
    except BaseException:
        for p in list(getattr(pool, "_processes", {}).values()):
            p.kill()  # a leaf in progress is lost either way; its worker must not outlive the job
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return done


def _run_ray(todo, args, settings, report):
    try:
        import ray
    except ImportError as e:
        raise ImportError("the ray backend needs ray: pip install 'tictacgo[ray]'") from e
    started = not ray.is_initialized()
    if started:
        ray.init(address=settings.address or os.environ.get("RAY_ADDRESS") or "local",
                 include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=1, max_retries=0)(leaf_task)
    done, pending = [], {}
    try:
        slots = settings.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        queue = list(zip(todo, args, strict=True))
        while queue or pending:
            while queue and len(pending) < slots:
                leaf, a = queue.pop(0)
                pending[task.remote(*a)] = leaf
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            leaf = pending.pop(ref)
            result = ray.get(ref)
            done.append((leaf, result))
            if report is not None:
                report(leaf, result)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()
    return done


def book_of_proof(plan: Plan, folder: Path, results: dict[Code, LeafResult], root_how: int) -> Book:
    """A book of the proof: the plan's winning moves above the leaves and the leaves' fragments in
    ``folder`` (``NAME.book``, from their checks)."""
    from tictacgo.proof.book import load_book

    book = Book(plan.game)
    fragments = 0
    for r in results.values():
        path = None if r.path is None else r.path.with_suffix(".book")
        if path is not None and path.is_file():
            for key, (move, value) in load_book(path).entries.items():
                old = book.entries.get(key)
                if old is None or value > old[1]:
                    book.entries[key] = (move, value)
            fragments += 1
    seen: set[Code] = set()

    def walk(state: littlego.GoState, left: int) -> None:
        if state.end is not None or left == 0:
            return
        code = canonical(state)[0]
        if code in seen:
            return
        seen.add(code)
        move = plan.book_move(state)
        if move is not None:
            book.add(state, move, 1)
        for a in [move] if move is not None else littlego.legal_actions(state):
            walk(littlego.play(state, a), left - 1)

    walk(plan.root, plan.depth)
    how = {CHECKED: "checked in the run that wrote it", RECORDED: "resting on records of earlier checks"}
    book.sources.append(f"the proof of the empty board ({how.get(root_how, 'not proved')}): the plan's "
                        f"{plan.winner_moves} winning moves above its {len(plan.leaves)} leaves and the "
                        f"moves near the root of {fragments} checked leaf certificates")
    return book


def proof_tree(plan: Plan, results: dict[Code, LeafResult], value: int | None, how: int) -> dict:
    """The plan as a solution tree (``tictacgo.protocol.sgf.tree_to_sgf``'s): from the empty board,
    the winner's move where the plan has one, every legal action elsewhere, down to the leaves, each
    leaf commented with its standing (claim, rows, how it is known) and each winner's move with why.
    Every action is written (no symmetry is folded): a White reply and its mirror image are two
    lines, as a reader expects."""
    from tictacgo.proof.combine import trust_words

    n = plan.game.size
    names = {1: "Black wins", -1: "White wins", 0: "a draw", None: "not proved yet"}

    def node(state: littlego.GoState, left: int) -> list[dict]:
        if state.end is not None:
            return []
        if left == 0:
            return []
        move = plan.book_move(state)
        out = []
        for a in [move] if move is not None else littlego.legal_actions(state):
            after = littlego.play(state, a)
            child: dict = {"action": a, "children": node(after, left - 1)}
            if after.end is not None:
                b, w = littlego.scores(after)
                child["comment"] = f"the game ends ({after.end}): Black {b:g}, White {w:g}"
            elif left == 1:
                child["comment"] = _leaf_comment(results.get(canonical(after)[0]), plan.game)
            elif move is not None:
                mover = "Black" if state.to_move == littlego.BLACK else "White"
                child["comment"] = f"{mover}'s move of the proof ({move_name(a, n)})"
            out.append(child)
        return out

    head = f"{names[value]}" + (f", {trust_words(how)}" if value is not None else "")
    return {"comment": f"The proof of the empty board ({plan.game.size}x{plan.game.size}, komi "
                       f"{plan.game.komi:g}, {plan.game.max_actions} actions): {head}. The winner's "
                       f"moves and every reply of the other side, down to the {len(plan.leaves)} leaves "
                       f"{plan.depth} actions in; each leaf says what its certificate proves.",
            "children": node(plan.root, plan.depth)}


def _leaf_comment(r: LeafResult | None, game: littlego.LittleGo) -> str:
    from tictacgo.proof.combine import trust_words

    if r is None or r.claim is None:
        return "a leaf of the proof: not made yet"
    checked = r.record.get("checked") or {}
    left = game.max_actions - r.leaf.state.t
    rows = f"{checked['rows']:,} rows" if isinstance(checked.get("rows"), int) else "its rows not recorded"
    return (f"a leaf of the proof, {left} actions to go: {r.claim}; its certificate has {rows} "
            f"({trust_words(r.how)}: {r.source})")


def check_folder(folder: str | os.PathLike) -> Path:
    """``folder`` as a Path, made if missing.

    Raises:
        ValueError: something else is there, or it cannot be made.
    """
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise ValueError(f"--dir {str(folder)!r} is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--dir {str(folder)!r}: cannot make it ({e.strerror or e})") from None
    if not os.access(path, os.W_OK):
        raise ValueError(f"--dir {str(folder)!r}: not writable")
    return path


__all__ = ["JobSettings", "LeafResult", "Plan", "book_of_proof", "check_folder", "combine_plan", "proof_tree",
           "kept_records", "leaf_task", "plan_proof", "run_leaves", "standing"]
