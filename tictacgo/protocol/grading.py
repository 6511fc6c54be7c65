"""The course's grading: 20 games against each opponent of a stage, scored by the rubric.

``run_course_report(spec, seed, stage=1)`` plays the agent against each of
the course's first-stage opponents that is registered (random, greedy,
aggressive, alphabeta), 10 games as Black and 10 as White, and scores the
win rates with the assignment's rubric (the course's homework): ``course_points``.
``stage=2`` plays the second stage's two (the Q-learning and championship
players) and ``stage="all"`` both, out of 90, 10 and 100 points. The report
also checks the agent's move times against the course's limits: 10 s a move,
and 80 games in 7,200 s (stage 1), 40 games in 3,600 s (stage 2) of the
agent's own time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tictacgo.arena.jobs import AgentCache, Job
from tictacgo.arena.match import check_match_args
from tictacgo.arena.records import GameSpool, RunRecords
from tictacgo.arena.results import MatchGame, MatchResult
from tictacgo.arena.round_robin import pair_seed
from tictacgo.arena.runner import execute_jobs
from tictacgo.baselines.agent_spec import AgentSpec
from tictacgo.baselines.registry import available_agents
from tictacgo.games.base import Game
from tictacgo.validate import check_probability

# The opponents of each grading stage, in the assignment's order.
STAGES = {1: ("random", "greedy", "aggressive", "alphabeta"), 2: ("qlearning", "championship")}
# The ladder of the course's first grading stage.
COURSE_LADDER = STAGES[1]
# Every course opponent; an opponent's index here keys its match (its seed, its records, its SGF folder).
COURSE_OPPONENTS = STAGES[1] + STAGES[2]
# Points a stage is out of, and the agent's own time it may spend on that stage's games (seconds).
STAGE_POINTS = {1: 90, 2: 10}
STAGE_TIME_BUDGET = {1: 7200.0, 2: 3600.0}
MOVE_TIME_LIMIT = 10.0

# "Grading Rubrics for the 1st Stage (max 90 points)" of the assignment (seed
# 002), per opponent: (points at a win rate >= 90%, factor times winRate at
# >= 70%, factor times winRate below 70%).
COURSE_RUBRIC = {
    "random": (25.0, 15.0, 0.0),
    "greedy": (25.0, 15.0, 0.0),
    "aggressive": (25.0, 20.0, 10.0),
    "alphabeta": (15.0, 10.0, 5.0),
    # "Grading Rubrics for the 2nd Stage (max 10 points)".
    "qlearning": (5.0, 5.0, 0.0),
    "championship": (5.0, 5.0, 2.0),
}

COURSE_RUBRIC_TEXT = """\
Grading Rubrics for the 1st Stage (max 90 points), as the assignment gives them:
WinRate   Random              Greedy              Aggressive          Alpha-beta
>= 90%    25pts               25pts               25pts               15pts
>= 70%    15pts x winRate     15pts x winRate     20pts x winRate     10pts x winRate
< 70%     0pts                0pts                10pts x winRate     5pts x winRate
(20 games against each: 10 as Black, 10 as White. Random, Greedy and Aggressive
are available for testing; Alpha-beta is reserved for grading.)"""

COURSE_RUBRIC_TEXT_2 = """\
Grading Rubrics for the 2nd Stage (max 10 points), as the assignment gives them:
WinRate   Q-Learning          Championship
>= 90%    5pts                5pts
>= 70%    5pts x winRate      5pts x winRate
< 70%     0pts                2pts x winRate
(20 games against each: 10 as Black, 10 as White.)"""

RUBRIC_TEXTS = {1: COURSE_RUBRIC_TEXT, 2: COURSE_RUBRIC_TEXT_2}


def stages_of(stage: int | str) -> tuple[int, ...]:
    """The stages ``stage`` names: 1, 2 or "all" (both).

    Raises:
        ValueError: anything else.
    """
    if stage == "all":
        return (1, 2)
    if stage in (1, 2, "1", "2"):
        return (int(stage),)
    raise ValueError(f"stage must be 1, 2 or 'all', got {stage!r}")


def plays_course_ladder(game: str | Game) -> bool:
    """Whether every first-stage opponent of the course is registered for ``game`` (a name or object)."""
    return set(COURSE_LADDER) <= set(available_agents(game))


def course_points(opponent: str, win_rate: float) -> float:
    """The first-stage points for ``win_rate`` against a ladder opponent.

    Example (the assignment's): 18/20 vs random -> 25; 16/20 vs greedy -> 12;
    14/20 vs aggressive -> 14; 11/20 vs alphabeta -> 2.75 (53.75 in all).

    Args:
        opponent: one of ``COURSE_OPPONENTS``.
        win_rate: wins / games, in [0, 1].

    Returns:
        The points.
    """
    if opponent not in COURSE_RUBRIC:
        raise ValueError(f"no rubric for {opponent!r}; the course's opponents are "
                         f"{', '.join(COURSE_OPPONENTS)}")
    check_probability("win_rate", win_rate)
    full, mid, low = COURSE_RUBRIC[opponent]
    # The rates of interest are k/20: compare with a little slack against rounding.
    if win_rate >= 0.9 - 1e-9:
        return full
    if win_rate >= 0.7 - 1e-9:
        return mid * win_rate
    return low * win_rate


@dataclass
class CourseReport:
    """An agent's matches against the course ladder and the points they earn."""

    spec: str
    seed: int
    games_per_opponent: int
    matches: dict[str, MatchResult]
    missing: list[str]
    interrupted: bool = False
    stages: tuple[int, ...] = (1,)

    def rows(self) -> list[dict[str, Any]]:
        """Per opponent: wins as Black and White, win rate, points and the most available."""
        out = []
        for opp, m in self.matches.items():
            wb, wdb, lb = m.wdl(1)
            ww, wdw, lw = m.wdl(2)
            rate = (wb + ww) / m.n if m.n else 0.0
            out.append({"opponent": opp, "wins_black": wb, "games_black": wb + wdb + lb,
                        "wins_white": ww, "games_white": ww + wdw + lw, "win_rate": rate,
                        "points": course_points(opp, rate), "max": COURSE_RUBRIC[opp][0]})
        return out

    @property
    def total(self) -> float:
        """Points over the opponents played."""
        return sum(r["points"] for r in self.rows())

    @property
    def max_points(self) -> int:
        """What the stages played are out of (90, 10 or 100)."""
        return sum(STAGE_POINTS[k] for k in self.stages)

    def time_check(self, stage: int) -> dict[str, Any]:
        """The agent's own move time over a stage's games against the course's limits.

        The course allows 10 s a move and 90 s a game on average (80 games in 7,200 s,
        40 in 3,600 s); the budget here is 90 s times the games played.
        """
        played = [m for opp, m in self.matches.items() if opp in STAGES[stage]]
        games = sum(m.n for m in played)
        stats = [m.time_stats("a") for m in played]
        spent = math.fsum(t["moves"] * t["mean_s"] for t in stats if t["moves"])
        worst = max((t["worst_s"] for t in stats if t["moves"]), default=0.0)
        budget = STAGE_TIME_BUDGET[stage] / (20 * len(STAGES[stage])) * games
        return {"stage": stage, "games": games, "seconds": spent, "budget_s": budget, "worst_move_s": worst,
                "within": spent <= budget and worst <= MOVE_TIME_LIMIT}

    def table(self) -> str:
        """The grading table, then the rubric it follows."""
        which = {(1,): "1st grading stage", (2,): "2nd grading stage"}.get(self.stages, "both grading stages")
        head = (f"Course report (Little-Go, {which}): {self.spec}, {self.games_per_opponent} games "
                f"per opponent, seed {self.seed}" + (" (INTERRUPTED)" if self.interrupted else ""))
        rows = [head, "", (f"{'opponent':12s}{'as Black':>10s}{'as White':>10s}{'win rate':>10s}"
                          f"{'points':>9s}{'max':>6s}")]
        for r in self.rows():
            black = f"{r['wins_black']}/{r['games_black']}"
            white = f"{r['wins_white']}/{r['games_white']}"
            rows.append(f"{r['opponent']:12s}{black:>10s}{white:>10s}{100 * r['win_rate']:9.0f}%"
                        f"{r['points']:9.2f}{r['max']:6.0f}")
        if self.games_per_opponent != 20:
            rows.append(f"(note: the course grades on 20 games per opponent; this report played "
                        f"{self.games_per_opponent})")
        for opp in self.missing:
            rows.append(f"{opp:12s}{'(not registered: not played, 0 points counted)':>45s}"
                        f"{COURSE_RUBRIC[opp][0]:6.0f}")
        rows.append(f"{'total':12s}{'':30s}{self.total:9.2f}{self.max_points:6d}")
        for stage in self.stages:
            t = self.time_check(stage)
            if t["games"]:
                verdict = "within the limits" if t["within"] else "OVER the limits: the course gives 0 points"
                rows.append(f"time, stage {stage}: {t['seconds']:.1f} s of the agent's own over {t['games']} "
                            f"games (the course allows {t['budget_s']:.0f} s), worst move "
                            f"{t['worst_move_s']:.2f} s (allowed {MOVE_TIME_LIMIT:.0f} s): {verdict}")
        for stage in self.stages:
            rows += ["", RUBRIC_TEXTS[stage]]
        return "\n".join(rows)

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The report, every game included, as a JSON-ready dict (``lazy``: as ``MatchResult.to_json``)."""
        return {"format": "tictacgo-arena-course-report/1", "agent": self.spec, "seed": self.seed,
                "games_per_opponent": self.games_per_opponent, "interrupted": self.interrupted,
                "stages": list(self.stages), "max_points": self.max_points,
                "time": [self.time_check(k) for k in self.stages],
                "rows": self.rows(), "total": self.total, "missing_opponents": self.missing,
                "matches": {opp: m.to_json(lazy) for opp, m in self.matches.items()}}


def run_course_report(spec: str | AgentSpec, seed: int, games: int = 20, workers: int | None = None,
                      progress: bool = True, agents: AgentCache | None = None,
                      keep_games: bool | GameSpool = True,
                      on_game: Callable[[int, MatchGame], None] | None = None,
                      stage: int | str = 1, game: Game | None = None) -> CourseReport:
    """Play ``spec`` against each registered opponent of a grading stage, as the course does.

    Against ``COURSE_OPPONENTS[k]`` the match is ``run_match("littlego", spec,
    opponent, games, pair_seed(seed, 0, k + 1))``: the agent is Black in the
    even games, White in the odd ones (10 and 10 of the default 20).

    Args:
        spec: the agent's registry spec (text or ``AgentSpec``).
        seed: a non-negative int.
        games: games per opponent (the course plays 20).
        workers: worker processes (None: one per CPU core; 1: in this process).
        progress: show a progress bar on stderr.
        agents: agents already built in this process, as in ``run_match``.
        keep_games: the records in memory (True), only counts (False) or counts and
            the records in a ``GameSpool``, as in ``run_match``; the key of the match
            against ``COURSE_OPPONENTS[k]`` is ``k``.
        on_game: called with ``(k, MatchGame)`` as each game finishes, as in ``run_match``.
        stage: 1 (random, greedy, aggressive, alphabeta), 2 (qlearning, championship) or "all".
        game: the game object, when the caller has built it already (it must be one the
            course ladder plays); None: Little-Go's course variant, built here.

    Returns:
        The ``CourseReport``; opponents not registered are listed in ``missing``.

    Raises:
        ValueError: a game the course ladder does not play, an unknown agent or a bad parameter.
    """
    game = "littlego" if game is None else game
    if not plays_course_ladder(game):
        raise ValueError(f"the course report needs the course ladder ({', '.join(COURSE_LADDER)}), "
                         f"which does not play {game.spec.name}; the course plays littlego")
    stages = stages_of(stage)
    wanted = [o for k in stages for o in STAGES[k]]
    registered = set(available_agents("littlego"))
    ladder = [(k, o) for k, o in enumerate(COURSE_OPPONENTS) if o in wanted and o in registered]
    missing = [o for o in wanted if o not in registered]
    agents = agents if agents is not None else AgentCache()
    game, (agent, *opponents) = check_match_args(game, [spec] + [o for _, o in ladder], games, seed, agents)
    spec = agent.label
    jobs = (Job(k, game, agent, opponent, pair_seed(seed, 0, k + 1), g)  # lazy: one per game as played
            for (k, _), opponent in zip(ladder, opponents, strict=True) for g in range(games))
    records = RunRecords(keep_games, on_game)
    _, interrupted = execute_jobs(jobs, len(ladder) * games, workers, progress,
                                  f"{spec} vs the course ladder", agents=agents, collect=records)
    matches = {}
    for k, opp in ladder:
        m = MatchResult(game.spec.name, spec, opp, pair_seed(seed, 0, k + 1), games,
                        variant=dict(game.params), played=game, **records.match_fields(k))
        m.interrupted = interrupted and m.n < games
        matches[opp] = m
    return CourseReport(spec, int(seed), games, matches, missing, interrupted, stages)
