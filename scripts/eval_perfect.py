"""The perfect agent as Black against White players: wins, games played perfectly, move times.

For each opponent, ``--games`` games from the empty 5x5 board, the agent as
Black (``tictacgo.evaluation.perfect_play``): Black's wins, the games in
which every Black move came from the proof's book or a live proof, the
moves by source, the median and worst move time, and with ``--check`` how
many live-proved moves the checker confirmed.

    python scripts/eval_perfect.py --opponents random,greedy,az --games 100 --check
    python scripts/eval_perfect.py --white-first covered --check-book-from 8 --check
    python scripts/eval_perfect.py --agent "program:cmd=tictacgo my-player --agent perfect --dir ." \
        --opponents random --games 10 --workers 2
    python scripts/eval_perfect.py --workers 2 --json runs/perfect.json --resume   # goes on after a stop

With ``--json`` the file is written every ``--save-every`` games; ``--resume``
keeps the games it holds from a run with the same settings and the same
books (``tictacgo.evaluation.perfect_results``), says so, and plays the
rest.

With a ``program:cmd=...`` agent Black plays through the course's files, one
process a move, and where each move came from is read from the note that
``my-player`` writes on stderr.

``--white-first covered`` gives White, as its first move, in turn each reply
below which every leaf of the proof has a checked record (``--records``): the
games then stay inside the part of the proof remade so far.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tictacgo.atomic import atomic_write_json, check_writable
from tictacgo.baselines import make_agent
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import parse_options
from tictacgo.evaluation.perfect_play import WHITE_PLAYERS, covered_replies, play_as_black_on_workers, summary
from tictacgo.evaluation.perfect_results import load_results, opponent_entry, rows_of, run_settings
from tictacgo.proof.position_code import move_action, move_name

OPPONENTS = ",".join(WHITE_PLAYERS)  # every Little-Go agent that plays with its defaults


@dataclass
class Args:
    opponents: str = setting(OPPONENTS, "Comma-separated White players (registry specs; ';' inside one).")
    games: int = setting(100, "Games per opponent.")
    seed: int = setting(0, "Seeds game i's agents from [seed, i].")
    agent: str = setting("perfect", "Black's spec.")
    check: bool = setting(False, "Certify and check the position after every live-proved Black move "
                          "(and book moves from --check-book-from on).")
    json: str | None = setting(None, "Write every game's moves and the totals here (every --save-every "
                                "games).")
    resume: bool = setting(False, "With --json: keep the games that file holds from a run with the "
                           "same settings and books, and play only the rest (without it an existing "
                           "file is refused).")
    white_first: str = setting("", "White's first move instead of the opponent's, in turn game by game: "
                               "moves such as '0,0 0,4', or 'covered' (every reply whose leaves are all "
                               "checked, from --records).")
    records: str = setting("docs/data/proof_5x5_leaves",
                           "The leaves' check records, for --white-first covered.")
    check_book_from: int = setting(-1, "With --check, check book moves too from this many actions played on "
                                   "(-1: not book moves).")
    workers: int = setting(1, "Processes, each playing a run of consecutive games with its own Black agent.")
    save_every: int = setting(20, "With --json, write the file after every this many games of a White player "
                              "(the workers share them; each run of them builds its Black agents anew).")


def table_row(opponent: str, s: dict, check: bool) -> str:
    """One White player's row of the table, from its totals."""
    checked = f"{s['checked']} / {s['check_tried']}" if check else "not asked"
    cells = [f"`{opponent}`", s["games"], s["distinct_games"], s["black_wins"], s["proved_games"],
             f"{s['book']} / {s['solved']} / {s['fallback']}", f"{s['median_seconds']:.3f} s",
             f"{s['worst_seconds']:.2f} s", checked]
    return "| " + " | ".join(map(str, cells)) + " |"


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.splitlines()[0])
    if min(args.games, args.workers, args.save_every) < 1:
        bad = next((name, v) for name, v in (("--games", args.games), ("--workers", args.workers),
                                             ("--save-every", args.save_every)) if v < 1)
        print(f"eval_perfect.py: error: {bad[0]} must be >= 1, got {bad[1]}", file=sys.stderr)
        return 2
    if args.resume and not args.json:
        print("eval_perfect.py: error: --resume needs --json (the file to go on from)", file=sys.stderr)
        return 2
    if args.json and Path(args.json).exists() and not args.resume:
        print(f"eval_perfect.py: error: --json {args.json!r} exists: --resume to go on from it, or another "
              "path (it is not overwritten)", file=sys.stderr)
        return 2
    if args.json:
        check_writable(args.json)
    opponents = [o.strip().replace(";", ",") for o in args.opponents.split(",") if o.strip()]
    try:
        firsts = covered_replies(args.records) if args.white_first == "covered" else args.white_first.split()
        firsts = [move_action(m, 5) for m in firsts]
    except ValueError as e:
        print(f"eval_perfect.py: error: --white-first {args.white_first!r}: {e}", file=sys.stderr)
        return 2
    if firsts:
        print(f"White's first move, in turn: {' '.join(move_name(a, 5) for a in firsts)}")
    for spec in [args.agent, *opponents]:  # fail early on a bad spec
        try:
            make_agent(spec, "littlego", rng=np.random.default_rng(0))
        except ValueError as e:
            print(f"eval_perfect.py: error: {e}", file=sys.stderr)
            return 2
    settings = run_settings(args.agent, args.games, args.seed, args.check, args.check_book_from,
                            [move_name(a, 5) for a in firsts])
    out = {"settings": settings, "opponents": {}}
    if args.resume:
        try:
            out = load_results(args.json, settings)
        except ValueError as e:
            print(f"eval_perfect.py: error: --resume: {e}", file=sys.stderr)
            return 2
    print(f"{args.agent} as Black, {args.games} games against each White player, seed {args.seed}"
          f"{', live proofs checked' if args.check else ''}"
          f"{f', on {args.workers} processes' if args.workers > 1 else ''}", flush=True)
    print("| White | games | distinct games | Black wins | played perfectly | book / solved / fallback "
          "moves | median move | worst move | moves checked |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    kept = {}  # White player: games from the file
    book_from = None if args.check_book_from < 0 else args.check_book_from
    for opponent in opponents:
        entry = out["opponents"].get(opponent)
        rows = rows_of(entry, opponent, args.games, args.json) if entry else []
        runs = list(entry["runs"]) if entry else []
        if rows:
            kept[opponent] = len(rows)
        while len(rows) < args.games:  # without a file to save, one run of all the games
            start = time.time()
            chunk = min(args.save_every if args.json else args.games, args.games - len(rows))
            played = play_as_black_on_workers(opponent, chunk, args.workers, first=len(rows), seed=args.seed,
                                              agent=args.agent, check=args.check, white_first=firsts,
                                              check_book_from=book_from)
            runs.append({"first": len(rows), "games": chunk, "workers": args.workers,
                         "seconds": round(time.time() - start, 1)})
            rows += played
            out["opponents"][opponent] = opponent_entry(rows, runs)
            if args.json:
                atomic_write_json(args.json, out)
        print(table_row(opponent, summary(rows), args.check), flush=True)
    if kept:
        print(f"from {args.json}, played by an earlier run with the same settings and books (not played "
              f"again): " + ", ".join(f"{o} ({n} of {args.games} games)" for o, n in kept.items()))
    if args.json:
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
