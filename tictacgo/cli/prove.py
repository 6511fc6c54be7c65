"""``tictacgo prove``: make and check the whole proof of a solved Little-Go game, from nothing.

    tictacgo prove --size 5 --dir runs/proof                  # every core of this machine
    tictacgo prove --size 5 --dir /shared/proof --backend ray # the cluster at RAY_ADDRESS
    tictacgo prove --size 5 --dir runs/proof --list           # where each leaf stands

The winner's first moves come from the package's book of the game (a plan,
not a value taken on trust); below them the proof passes through *leaves*
``--depth`` actions down (on 5x5: 109 positions with 20 actions to go). Each
leaf's certificate is made (a fresh solver table each time: the same bytes
on every machine), checked by the independent checker and recorded beside
it in ``--dir``; the value of the empty board then follows by the rules
core's minimax over the leaves' claims. Stopped (Ctrl-C, SIGTERM), the same
command goes on with the leaves left. See docs/proof.md.

"checked" in the output means checked in this run. A leaf taken from a
record (this folder's, from an earlier run, or ``--records``, kept without
its certificate) is counted as such, and a value that needs one says so.

Exit status 0 when the value is checked in this run (with
``--trust-records``: or rests on records), 1 when it is not (yet), 2 for
bad arguments or a record that disagrees with the leaves, 130 when stopped.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=int, default=5, help="board size (default 5, the course's game)")
    parser.add_argument("--komi", type=float, default=None, help="komi (default: size / 2)")
    parser.add_argument("--max-actions", type=int, default=None,
                        help="the action limit (default: size * size - 1)")
    parser.add_argument("--dir", required=True,
                        help="folder of the certificates and records (made if missing)")
    parser.add_argument("--plan-komi", type=float, default=None, metavar="KOMI",
                        help="take the winner's first moves from the package's book of this komi (default: "
                             "the game's): a plan for proving another komi, such as the course's game at "
                             "komi 3.5 with the moves that win it at 2.5")
    parser.add_argument("--depth", type=int, default=None,
                        help="actions from the empty board to the leaves (default 4 on 5x5: 109 leaves with "
                             "20 actions to go; 2 on smaller boards)")
    parser.add_argument("--workers", type=int, default=None,
                        help="leaves made at once (default: the CPUs here, or the cluster's with ray)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="local worker processes (default) or Ray tasks")
    parser.add_argument("--address", default=None,
                        help="with --backend ray: the cluster (default: RAY_ADDRESS, else a Ray started "
                             "for this run)")
    parser.add_argument("--table-bits", type=int, default=26,
                        help="log2 of each leaf's solver table entries, 13 bytes each (default 26: 872 MB a "
                             "worker); a certificate's bytes depend on it")
    parser.add_argument("--leaf-rules", default="pass_bound",
                        help="the checker's rules that may settle a position (default pass_bound), or none")
    parser.add_argument("--book-until", type=int, default=10, metavar="T",
                        help="keep each checked leaf's moves at positions with at most T actions played as "
                             "NAME.book (default 10; --book gathers them)")
    parser.add_argument("--records", default=None, metavar="DIR",
                        help="a folder of check records kept without their certificates: their leaves are "
                             "not made again, and a value that needs them says so")
    parser.add_argument("--remake", action="append", default=[], metavar="MOVES",
                        help="make and check this leaf in this run even where a record (--records) holds "
                             "it (a certificate --dir already holds is checked again, not made again), and "
                             "compare the certificate with that record ('2,2 0,0 1,2 4,0'; repeatable); "
                             "nothing else is made; exit 0 only when every such leaf's certificate is the "
                             "one its record names")
    parser.add_argument("--sample", type=int, default=0, metavar="K",
                        help="as --remake, for K leaves drawn at random (--seed) from those --records holds: "
                             "re-check a sample of the records in minutes")
    parser.add_argument("--seed", type=int, default=0, help="the draw of --sample (default 0)")
    parser.add_argument("--trust-records", action="store_true",
                        help="exit 0 when the value rests on records too (it is still printed as such)")
    parser.add_argument("--recheck", action="store_true",
                        help="check again the certificates in --dir that earlier runs checked")
    parser.add_argument("--max-mb", type=float, default=4096,
                        help="the checker reads certificates up to this size, packed and unpacked (default "
                             "4096 MB)")
    parser.add_argument("--list", action="store_true",
                        help="print where each leaf stands and make nothing (--json and --book are written "
                             "from what is there)")
    parser.add_argument("--json", default=None, metavar="OUT",
                        help="write the value and each leaf's standing")
    parser.add_argument("--book", default=None, metavar="OUT",
                        help="write a book of the proof: the plan's moves and the leaves' fragments")
    parser.add_argument("--sgf", default=None, metavar="OUT",
                        help="write the proof's top as an SGF solution tree: the winner's moves and every "
                             "reply, down to the leaves, each leaf commented (Sabaki, GoGui, tictacgo view)")


def _error(message: str) -> int:
    print(f"tictacgo prove: error: {message}", file=sys.stderr)
    return 2


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def run(args: argparse.Namespace) -> int:
    from tictacgo.validate import MissingExtraError

    try:
        from tictacgo.proof.book import default_book
        from tictacgo.proof.certificate import leaf_rule_names
        from tictacgo.proof.combine import CHECKED, RECORDED, UNCHECKED, trust_words
        from tictacgo.proof.position_code import canonical
        from tictacgo.proof.proof_job import (
            JobSettings,
            book_of_proof,
            check_folder,
            combine_plan,
            kept_records,
            plan_proof,
            run_leaves,
            standing,
        )
    except MissingExtraError as e:
        return _error(str(e))
    from tictacgo.atomic import atomic_write_json, check_writable
    from tictacgo.games import littlego

    try:
        game = littlego.LittleGo(args.size, args.komi, args.max_actions)
    except (TypeError, ValueError) as e:
        return _error(str(e))
    depth = args.depth if args.depth is not None else (4 if args.size == 5 else 2)
    if depth < 1:
        return _error(f"--depth must be at least 1, got {depth}")
    workers = args.workers
    if workers is None and args.backend == "local":
        workers = os.cpu_count() or 1
    if workers is not None and workers < 1:
        return _error(f"--workers must be at least 1, got {workers}")
    if not 16 <= args.table_bits <= 32:
        return _error(f"--table-bits must be in [16, 32], got {args.table_bits}")
    if not (args.max_mb > 0 and args.max_mb < float("inf")):
        return _error(f"--max-mb must be a finite positive number, got {args.max_mb}")
    for option, path in (("--json", args.json), ("--book", args.book), ("--sgf", args.sgf)):
        if path:
            try:
                check_writable(path)
            except (OSError, ValueError) as e:
                return _error(f"{option} {path!r}: {e}")
    try:
        rules = leaf_rule_names(args.leaf_rules)
        folder = check_folder(args.dir)
    except ValueError as e:
        return _error(str(e))
    plan_komi = game.komi if args.plan_komi is None else args.plan_komi
    book = default_book(game.size, plan_komi, game.max_actions)
    if book is None:
        return _error(f"the package has no book of {game.size}x{game.size}, komi {plan_komi:g}, "
                      f"{game.max_actions} actions to take the winner's first moves from (--plan-komi "
                      "takes them from the book of another komi)")
    plan = plan_proof(book, depth, game)
    try:
        results = standing(plan, folder, None if args.records is None else _records_folder(args.records))
    except ValueError as e:
        return _error(str(e))
    if args.recheck:
        for r in results.values():
            if r.source == "this folder's record":
                r.claim, r.source = None, ""
    todo = [r.leaf for r in results.values() if r.claim is None]
    if (args.remake or args.sample) and args.list:
        return _error("--remake and --sample make leaves, and --list makes none: give one or the other")
    if args.remake or args.sample:
        try:
            kept = kept_records(plan, _records_folder(args.records)) if args.records else {}
            chosen = _chosen(plan, results, kept, args)
        except ValueError as e:
            return _error(str(e))
        for r in chosen:
            if r.source == "a kept record":  # made again here, then compared with the record
                r.claim, r.how, r.source, r.record = None, UNCHECKED, "", {}
                r.leaf = _leaf_as_recorded(plan, r.leaf, kept)
            elif r.source == "this folder's record":  # its certificate is here: checked again now
                r.claim, r.source = None, ""
        todo = [r.leaf for r in chosen if r.claim is None]
    print(f"{game.size}x{game.size}, komi {game.komi:g}, {game.max_actions} actions: "
          f"{len(plan.leaves)} leaves {depth} actions below the empty board (the book's winning moves "
          f"above them); "
          f"{_count(results, 'this folder')} from this folder's records of earlier runs, "
          f"{_count(results, 'a kept record')} from kept records, {len(todo)} to make or check", flush=True)
    if args.list:  # where each leaf stands; then the value and the files from what is there
        for r in results.values():
            state = f"{r.claim}, {r.source}" if r.claim else (
                "made, to check" if r.path is not None else "to make")
            print(f"  {' '.join(r.leaf.moves)}: {state}")
        todo = []
    settings = JobSettings(folder, workers=workers or 0, backend=args.backend, table_bits=args.table_bits,
                           leaf_rules=rules, book_until=args.book_until, max_bytes=int(args.max_mb * 2**20),
                           recheck=args.recheck or bool(args.remake or args.sample), address=args.address)
    start, finished = time.time(), []

    def report(leaf, result) -> None:
        record = result["record"]
        r = results[canonical(leaf.state)[0]]
        checked = record.get("checked", {})
        r.claim, r.how, r.record, r.path = checked.get("claim"), CHECKED, record, Path(result["path"])
        r.source = "made and checked now" if result["made"] else "checked now"
        finished.append(leaf)
        made = record.get("made", {})
        how = (f"made in {made['seconds']:,.0f} s ({made['rows']:,} rows, {made['solver_positions']:,} "
               f"positions searched), " if result["made"] else "") + f"checked in {checked['seconds']:,.0f} s"
        left = len(todo) - len(finished)
        eta = f"about {_duration((time.time() - start) / len(finished) * left)} left" if left else "done"
        print(f"[{time.strftime('%H:%M:%S')}] {len(finished)}/{len(todo)} {' '.join(leaf.moves)}: "
              f"{r.claim}; {how}; {eta}", flush=True)

    if todo:
        running = settings.workers or "the cluster's CPUs"
        print(f"making and checking {len(todo)} leaves, {running} at a time ({args.backend})", flush=True)
        try:
            run_leaves(plan, todo, settings, report)
        except KeyboardInterrupt:
            print(f"stopped after {_duration(time.time() - start)} with {len(finished)} of {len(todo)} "
                  f"leaves done; the same command goes on with the rest", flush=True)
            return 130
        except ValueError as e:  # a certificate in the folder that the checker refuses
            return _error(str(e))
    unconfirmed = _compare_remade(chosen, kept) if args.remake or args.sample else 0
    value, how = combine_plan(plan, results)
    now = sum(1 for r in results.values() if r.how == CHECKED and r.claim)
    counts = (f"{len(plan.leaves)} leaves: {now} checked in this run, {_count(results, 'this folder')} from "
              f"this folder's records of earlier runs, {_count(results, 'a kept record')} from kept records")
    words = {1: "Black wins", -1: "White wins", 0: "a draw"}
    if value is None and all(r.claim for r in results.values()):
        print(f"the empty board: not proved by this plan: every leaf is known, but the plan's winner's "
              f"moves do not keep a win ({counts})")
    elif value is None:
        print(f"the empty board: not proved yet ({counts})")
    else:
        print(f"the empty board: {words[value]}, {trust_words(how)} ({counts})")
    if args.json:
        atomic_write_json(args.json, _to_json(game, depth, value, how, results, trust_words))
        print(f"written to {args.json}")
    if args.book:
        book_of_proof(plan, folder, results, how if value is not None else 0).write(args.book)
        print(f"book written to {args.book}")
    if args.sgf:
        try:
            from tictacgo.protocol.sgf import tree_to_sgf
        except ImportError as e:
            return _error(f"--sgf needs sgfmill: pip install 'tictacgo[sgf]' ({e})")
        from tictacgo.atomic import atomic_write_bytes
        from tictacgo.proof.proof_job import proof_tree

        tree = proof_tree(plan, results, value, how)
        atomic_write_bytes(args.sgf, tree_to_sgf(tree, n=game.size, komi=game.komi,
                                                 max_actions=game.max_actions, name="the proof's top"))
        print(f"solution tree written to {args.sgf}")
    if args.remake or args.sample:  # the question asked: are these records' certificates what a remake makes?
        return 1 if unconfirmed else 0
    wanted = RECORDED if args.trust_records else CHECKED
    return 0 if args.list or (value is not None and how >= wanted) else 1


def _records_folder(path: str):
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"--records {path!r} is not a folder of check records")
    return folder


def _chosen(plan, results, kept, args) -> list:
    """The leaves ``--remake`` names (by their moves, or a mirror image's) and ``--sample`` draws from
    those the kept records (``kept``) hold, whether or not ``--dir`` holds them too, in the plan's
    order."""
    import numpy as np

    from tictacgo.proof.combine import states_along
    from tictacgo.proof.position_code import canonical

    chosen = {}
    for text in args.remake:
        code = canonical(states_along(f"--remake {text!r}", plan.game, text.split())[-1])[0]
        if code not in results:
            example = " ".join(plan.leaves[0].moves)
            raise ValueError(f"--remake {text!r}: not one of the {len(plan.leaves)} leaves (such as "
                             f"{example!r})")
        chosen[code] = results[code]
    if args.sample:
        if args.seed < 0:
            raise ValueError(f"--seed must be a non-negative integer (the draw of --sample), got {args.seed}")
        pool = [code for code in results if code in kept and code not in chosen]
        if args.sample < 0 or args.sample > len(pool):
            raise ValueError(f"--sample must be between 0 and the {len(pool)} leaves that --records holds "
                             f"(and --remake does not name), got {args.sample}")
        for i in np.random.default_rng(args.seed).choice(len(pool), size=args.sample, replace=False):
            chosen[pool[i]] = results[pool[i]]
    order = {canonical(leaf.state)[0]: i for i, leaf in enumerate(plan.leaves)}
    return sorted(chosen.values(), key=lambda r: order[canonical(r.leaf.state)[0]])


def _leaf_as_recorded(plan, leaf, kept):
    """The leaf reached by the moves its kept record was made from (a mirror image's moves make another
    certificate of the same position: to compare bytes, the leaf is made as the record's was)."""
    from tictacgo.proof.combine import states_along
    from tictacgo.proof.position_code import canonical
    from tictacgo.proof.proof_leaves import Leaf

    name, record = kept.get(canonical(leaf.state)[0], (None, {}))
    made = record.get("made")
    moves = made.get("moves") if isinstance(made, dict) else None
    if not isinstance(moves, str) or " ".join(leaf.moves) == moves:
        return leaf
    return Leaf(tuple(moves.split()), states_along(name, plan.game, moves.split())[-1])


def _compare_remade(chosen, kept) -> int:
    """Print, for each leaf of ``--remake``/``--sample``, how it stands and whether its certificate is the
    one its kept record names (its SHA-256), then how many are; the number that are not (not made,
    no record, not compared, or another file)."""
    from tictacgo.proof.check_records import sha256_of
    from tictacgo.proof.combine import CHECKED
    from tictacgo.proof.position_code import canonical
    from tictacgo.proof.proof_job import line_of

    print(f"the leaves asked for (--remake, --sample): {len(chosen)}")
    same = 0
    for r in chosen:
        moves = " ".join(r.leaf.moves)
        if r.path is None or not r.claim:
            print(f"  {moves}: not made (stopped)")
            continue
        name, record = kept.get(canonical(r.leaf.state)[0], (None, None))
        made = record.get("made") if isinstance(record, dict) else None
        ours = sha256_of(r.path)
        if not isinstance(made, dict) or "sha256" not in made:
            print(f"  {moves}: {r.claim}, {r.source}; no kept record of its certificate to compare with")
        elif line_of(r.path) != made.get("moves"):
            print(f"  {moves}: {r.claim}, {r.source}; its certificate here was made from other moves to "
                  f"the same position than its kept record {name} ('{made.get('moves')}'), so it is "
                  f"another file: not compared (remake it in another --dir)")
        elif made["sha256"] == ours and record["checked"]["claim"] == r.claim and r.how == CHECKED:
            same += 1
            print(f"  {moves}: {r.claim}, {r.source}; the same certificate as its kept record {name} "
                  f"(SHA-256 {ours[:16]}...)")
        else:
            print(f"  {moves}: {r.claim}, {r.source}; NOT the certificate its kept record {name} names "
                  f"(SHA-256 {ours} here, {made['sha256']} there; claim {r.claim!r} here, "
                  f"{record['checked']['claim']!r} there)")
    print(f"{same} of the {len(chosen)} leaves asked for: checked in this run and the certificate its kept "
          f"record names")
    return len(chosen) - same


def _count(results, source: str) -> int:
    return sum(1 for r in results.values() if r.claim and r.source.startswith(source))


def _to_json(game, depth, value, how, results, trust_words) -> dict:
    return {"size": game.size, "komi": game.komi, "max_actions": game.max_actions, "depth": depth,
            "value_for_black": value, "how": trust_words(how) if value is not None else "not proved",
            "leaves": [{"moves": " ".join(r.leaf.moves), "claim": r.claim, "source": r.source,
                        "sha256": (r.record.get("checked") or {}).get("sha256"),
                        "rows": (r.record.get("checked") or {}).get("rows")} for r in results.values()]}
