"""The AlphaGo chapter's tables ("AlphaGo in Tic Tac Toe"): policy MCTS and mix MCTS over a policy agent.

The ladder, on Tic-Tac-Toe (default) or Little-Go (``--game littlego``),
every match through the arena (``run_match``: colours alternating, game i
seeded from ``--seed`` and i), results from the first-named agent's view:

1. policy MCTS (``--policy-sims``, the chapter's 100 rollouts) against the
   policy alone (as given, and sampling from it when the policy agent takes
   ``sample=``: the chapter's opponent was its stochastic actor-critic; chapter:
   51 W 49 L);
2. mix MCTS against UCT MCTS, both at ``--sims`` rollouts (the chapter's 10;
   chapter: 100 W of 100);
3. mix MCTS against policy MCTS, both at ``--sims`` (chapter: 55 W 45 L of 100);
4. Little-Go (a game the spec says is not solvable) only: mix MCTS against
   plain UCT MCTS at ``--big-sims`` (400) over ``--big-games`` (200) games,
   reported per colour (``--no-big`` skips it).

UCT MCTS is the chapter's search: ``mcts`` with uniform rollouts,
``c=1.4`` and a fresh tree per move. Each table is printed in markdown with
the score ``(W + D/2) / N`` and its 95% Wilson interval (a draw counting half
a win), and A's results by colour. On a terminal the arena's bar counts
each match's games (stderr; nothing in a pipe).

    python scripts/eval_policy_search.py --policy ppo:path=runs/ttt_ppo/best_model.zip
    python scripts/eval_policy_search.py --game littlego --policy ppo:path=go.zip --games 50 --big-games 200
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

# One thread per process: the games already run in parallel, and a small
# policy network gains nothing from more (set before torch is first imported).
os.environ.setdefault("OMP_NUM_THREADS", "1")

from tictacgo.arena import run_match
from tictacgo.arena.results import MatchResult
from tictacgo.arena.stats import wilson_interval
from tictacgo.baselines.learning.training_config import setting
from tictacgo.baselines.registry import agent_parameters, parse_agent_spec
from tictacgo.cli.options import parse_options
from tictacgo.games import make_game

# The AlphaGo chapter's reported results (W, D, L of the first-named agent, games), Tic-Tac-Toe only.
CHAPTER_TTT = {"policy": (51, 0, 49, 100), "mix-uct": (100, 0, 0, 100), "mix-policy": (55, 0, 45, 100)}


@dataclass
class Args:
    game: str = setting("tictactoe", "The game: tictactoe or littlego.")
    policy: str = setting("ppo", "The policy agent's registry spec (the shipped model by default; e.g. "
                          "ppo:path=best_model.zip).")
    games: int = setting(100, "Games per match of the ladder.")
    sims: int = setting(10, "Rollouts of mix/UCT/policy MCTS in tables 2-3 (the chapter's 10).")
    policy_sims: int = setting(100, "Rollouts of policy MCTS against the policy (the chapter's 100).")
    big_sims: int = setting(400, "Little-Go: simulations of the big match.")
    big_games: int = setting(200, "Little-Go: games of the big match.")
    big: bool = setting(True, "Little-Go: play the big match (--no-big skips it).")
    skip_ladder: bool = setting(False, "Play only the big match (Little-Go).")
    seed: int = setting(0, "Seeds every match (game i from the seed and i).")
    workers: int | None = setting(None, "Worker processes.", default_text="one per core")


def embed(policy: str) -> str:
    """The policy spec as a ``policy=`` value: its own parameters separated by ';'."""
    return policy.replace(",", ";")


def policy_mcts(policy: str, sims: int) -> str:
    return f"policy_mcts:policy={embed(policy)},sims={sims}"


def mix_mcts(policy: str, sims: int) -> str:
    return f"mix_mcts:policy={embed(policy)},sims={sims}"


def uct_mcts(sims: int) -> str:
    return f"mcts:sims={sims},c=1.4,reuse=false,rollout=random"


def sampled(policy: str) -> str | None:
    """The policy spec drawing its moves (``sample=true``), if its agent takes ``sample``."""
    spec = parse_agent_spec(policy)
    if "sample" not in agent_parameters(spec.name) or "sample" in spec.kwargs():
        return None
    return policy + ("," if ":" in policy else ":") + "sample=true"


def cell(w: int, d: int, lost: int) -> tuple[str, str, str]:
    """(W / D / L, score, 95% Wilson interval) of one row."""
    n = w + d + lost
    if n == 0:
        return "0 / 0 / 0", "-", "-"
    lo, hi = wilson_interval(w + d / 2, n)
    return f"{w} / {d} / {lost}", f"{(w + d / 2) / n:.3f}", f"[{lo:.3f}, {hi:.3f}]"


def chapter_cell(key: str | None) -> str:
    if key is None or key not in CHAPTER_TTT:
        return "-"
    w, d, lost, n = CHAPTER_TTT[key]
    return f"{w} / {d} / {lost} of {n}"


class Ladder:
    """Plays the matches and prints the markdown table as it goes."""

    def __init__(self, game: str, seed: int, workers: int | None, show_chapter: bool):
        self.game, self.seed, self.workers, self.show_chapter = game, seed, workers, show_chapter
        self.specs: list[tuple[str, str]] = []
        self.rows: list[str] = []
        self.last: MatchResult | None = None

    def label(self, name: str, spec: str) -> str:
        self.specs.append((name, spec))
        return name

    def match(self, name_a: str, spec_a: str, name_b: str, spec_b: str, games: int,
              chapter_key: str | None = None) -> MatchResult:
        t0 = time.perf_counter()
        terminal = sys.stderr.isatty()   # progress on a terminal only, nothing in a pipe
        if terminal:
            print(f"playing {name_a} vs {name_b}: {games} games ...", file=sys.stderr, flush=True)
        res = run_match(self.game, spec_a, spec_b, games, self.seed, workers=self.workers, progress=terminal)
        dt = time.perf_counter() - t0
        if terminal:
            print(f"  done in {dt:.0f} s ({dt / max(1, res.n):.2f} s per game)", file=sys.stderr, flush=True)
        played = str(res.n) if not res.interrupted else f"{res.n} of {games} (interrupted)"
        row = [self.label(name_a, spec_a), self.label(name_b, spec_b), played, *cell(*res.wdl()),
               *("{} / {} / {}".format(*res.wdl(colour)) for colour in (1, 2))]
        if self.show_chapter:
            row.append(chapter_cell(chapter_key))
        self.rows.append("| " + " | ".join(row) + " |")
        self.last = res
        if res.interrupted:
            raise KeyboardInterrupt
        return res

    def table(self) -> str:
        first, second = make_game(self.game).spec.player_names
        head = ["A", "B", "games", "A: W / D / L", "A's score", "95% Wilson CI",
                f"A as {first} (first)", f"A as {second} (second)"]
        if self.show_chapter:
            head.append("AlphaGo chapter (Tic-Tac-Toe)")
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *self.rows]
        return "\n".join(lines)

    def legend(self) -> str:
        seen = dict(self.specs)
        return "\n".join(f"- {name}: `{spec}`" for name, spec in seen.items())


def per_colour_table(res: MatchResult) -> str:
    played = f"{res.n} of {res.games_requested} games (interrupted)\n\n" if res.interrupted else ""
    lines = [played + "| A plays | games | A: W / D / L | A's score | 95% Wilson CI |",
             "|---|---|---|---|---|"]
    for colour in (1, 2):
        w, d, lost = res.wdl(colour)
        row = [res.game_spec.player_name(colour), str(w + d + lost), *cell(w, d, lost)]
        lines.append("| " + " | ".join(row) + " |")
    w, d, lost = res.wdl()
    lines.append("| " + " | ".join(["both", str(res.n), *cell(w, d, lost)]) + " |")
    return "\n".join(lines)


def print_big(big: Ladder, sims: int) -> None:
    print(f"\n### mix MCTS ({sims}) vs UCT MCTS ({sims}), by mix MCTS's colour\n\n"
          + per_colour_table(big.last) + "\n\n" + big.legend(), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_options(Args(), argv, description=__doc__.split("\n\n")[0])
    try:
        for name in ("games", "sims", "policy_sims", "big_sims", "big_games"):
            if getattr(args, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
        module = make_game(args.game)
    except ValueError as e:
        print(f"eval_policy_search.py: error: {e}", file=sys.stderr)
        return 2
    game, policy = module.spec.name, args.policy
    ladder = Ladder(game, args.seed, args.workers, True)
    big = Ladder(game, args.seed, args.workers, False)
    # The big match is for a game too large to solve (Little-Go): on a solved one,
    # two 400-rollout searches both play perfectly and draw every game.
    run_big = not module.spec.solvable and args.big
    print(f"## Policy-guided search on {game}: policy `{policy}`, seed {args.seed}\n", flush=True)
    try:
        if not args.skip_ladder:
            n = args.policy_sims
            for opponent, label in ((policy, "policy"), (sampled(policy), "policy (sampling)")):
                if opponent is not None:
                    ladder.match(f"policy MCTS ({n})", policy_mcts(policy, n), label, opponent, args.games,
                                 "policy" if label == "policy (sampling)" else None)
            s = args.sims
            ladder.match(f"mix MCTS ({s})", mix_mcts(policy, s), f"UCT MCTS ({s})", uct_mcts(s), args.games,
                         "mix-uct")
            ladder.match(f"mix MCTS ({s})", mix_mcts(policy, s), f"policy MCTS ({s})",
                         policy_mcts(policy, s), args.games, "mix-policy")
            print(ladder.table() + "\n\n" + ladder.legend(), flush=True)
        if run_big:
            b = args.big_sims
            big.match(f"mix MCTS ({b})", mix_mcts(policy, b), f"UCT MCTS ({b})", uct_mcts(b), args.big_games)
            print_big(big, b)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the games played so far", file=sys.stderr)
        if big.last is not None:
            print_big(big, args.big_sims)
        elif ladder.rows:
            print(ladder.table() + "\n\n" + ladder.legend(), flush=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
