"""The arena: play agents against each other and report what happened.

Three levels, each built on the one before:

* ``play_game(game, first, second)`` plays one game between two agents and
  returns a ``GameRecord``: the actions played, the winning colour, why the
  game ended (the rules core's ``state.end``) and the seconds each agent spent
  on each of its moves. An agent that returns an illegal action (occupied
  point, suicide, ko, not an int, out of range) loses the game on the spot,
  as on the course host: the state becomes ``game.forfeit(state)`` and the
  record's reason is ``"illegal"`` with the offending action kept.
  ``play_wdl(game, agent, opponent, games, colour)`` plays a run of such games
  with the same two agent objects and counts the agent's W/D/L.
* ``run_match(game, spec_a, spec_b, games, seed)`` plays a match between two
  agents named by registry specs (``"random"``, ``"minimax"``,
  ``"alphabeta:depth=2"``). Colours alternate: A moves first in the even
  games (0, 2, ...) and second in the odd ones. Game ``i`` gets its own
  generators, ``SeedSequence(seed, spawn_key=(i,)).spawn(2)`` (A's, B's), and
  fresh agents, so a match is reproducible for a given seed whatever the
  number of workers and whichever games ran first. Games run in parallel in
  worker processes (the ``spawn`` start method everywhere: workers receive
  only specs and seeds and build their agents themselves, so the agents must
  be registered by the built-in modules; ``workers=1`` runs in-process and
  accepts any registered agent). A progress bar (tqdm if installed, else a
  line on stderr every few seconds) follows the games; Ctrl-C stops the
  match and returns the games finished so far, flagged ``interrupted``.
* ``run_round_robin(game, specs, games_per_pair, seed)`` plays every pair
  (all games of all pairs share one pool of workers) and returns a cross
  table (score of the row agent against the column agent) and Bradley-Terry
  ratings on the Elo scale (``tictacgo.baselines.ratings``).

Score and its confidence interval
---------------------------------
From A's view a win counts 1, a draw 1/2, a loss 0, and the score is
``(W + D/2) / N``. Its 95% interval is

* without draws, the Wilson score interval for a binomial proportion
  (well-behaved at 0/N and N/N, always inside [0, 1] and containing the
  score);
* with draws, the normal approximation on the per-game scores
  ``s_i in {0, 1/2, 1}``: ``mean +- 1.96 * sqrt(var / N)`` with the sample
  variance ``var = sum_i (s_i - mean)^2 / (N - 1)``, clipped to [0, 1]. It is
  an approximation (too narrow for small N, and of zero width when every
  game had the same result, e.g. all draws).

Results files
-------------
``MatchResult.to_json()`` holds the summary and every game (its move list,
who moved first, the winner, the reason, the times); ``write_json_atomic``
writes it to a temporary file in the target's folder and renames it over the
target, so a results file is either the old one or the complete new one,
never half written.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from tictacgo.atomic import atomic_write_json
from tictacgo.baselines.base import Agent
from tictacgo.baselines.registry import make_agent
from tictacgo.games import get_game
from tictacgo.games.errors import IllegalActionError

Z95 = 1.959963984540054  # the two-sided 95% normal quantile

# Colour names per game, for tables: colour 1 moves first.
END_ILLEGAL = "illegal"


def colour_name(game: str | ModuleType, colour: int) -> str:
    """The display name of a colour: ``X``/``O`` (Tic-Tac-Toe), ``Black``/``White`` (Little-Go)."""
    module = get_game(game) if isinstance(game, str) else game
    return module.spec().player_name(colour)


# --------------------------------------------------------------------------- one game


@dataclass
class GameRecord:
    """One finished game, agent-agnostic (colour 1 moved first, colour 2 second).

    Attributes:
        moves: the actions played, in order (an illegal attempt is not among them).
        winner: 1 or 2 for the winning colour, 0 for a draw.
        reason: why the game ended (``state.end`` of the rules core, e.g. ``"win"``,
            ``"draw"``, ``"max_actions"``, ``"double_pass"``, ``"illegal"``).
        times: seconds spent on each move, ``(first player's, second player's)``.
        illegal_by: the colour that forfeited by an illegal action, 0 if none.
        illegal_action: what that agent returned (an int, or the repr of anything else).
        illegal_detail: the rules core's explanation of why it was illegal.
    """

    moves: list[int]
    winner: int
    reason: str
    times: tuple[list[float], list[float]]
    illegal_by: int = 0
    illegal_action: int | str | None = None
    illegal_detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        out: dict[str, Any] = {
            "moves": list(self.moves),
            "winner": self.winner,
            "reason": self.reason,
            "times_first": [round(t, 7) for t in self.times[0]],
            "times_second": [round(t, 7) for t in self.times[1]],
        }
        if self.illegal_by:
            out["illegal"] = {"by": self.illegal_by, "action": self.illegal_action,
                              "detail": self.illegal_detail}
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        """The record that ``to_json`` wrote."""
        illegal = data.get("illegal") or {}
        return cls(list(data["moves"]), int(data["winner"]), str(data["reason"]),
                   (list(data["times_first"]), list(data["times_second"])),
                   int(illegal.get("by", 0)), illegal.get("action"), str(illegal.get("detail", "")))


def _as_agent(agent, game: ModuleType) -> Agent:
    return agent if isinstance(agent, Agent) else make_agent(agent, game)


def play_game(game: str | ModuleType, agent_first, agent_second,
              rng: np.random.Generator | None = None, state=None) -> GameRecord:
    """Play one game to the end and record it.

    Both agents are ``reset()`` first. An action the rules refuse (or one that
    is not an int in range) forfeits the game for the agent that chose it.
    Exceptions raised inside an agent's ``act`` are bugs and propagate.

    Args:
        game: a game name or rules module.
        agent_first: the agent that moves first (colour 1): an ``Agent``, a
            registry spec or a callable ``f(state) -> action``.
        agent_second: the agent that moves second (colour 2).
        rng: if given, each agent is re-seeded with its own generator derived
            from it (first, then second), making the game reproducible.
        state: the position to start from (default: the game's initial state).

    Returns:
        The ``GameRecord``.
    """
    module = get_game(game) if isinstance(game, str) else game
    agents = (_as_agent(agent_first, module), _as_agent(agent_second, module))
    if rng is not None:
        for agent, s in zip(agents, rng.integers(0, 2**63 - 1, size=2), strict=True):
            agent.seed(np.random.default_rng(int(s)))
    for agent in agents:
        agent.reset()
    if state is None:
        state = module.initial_state()
    moves: list[int] = []
    times: tuple[list[float], list[float]] = ([], [])
    while not module.is_terminal(state):
        colour = module.current_player(state)
        t0 = time.perf_counter()
        action = agents[colour - 1].act(state)
        times[colour - 1].append(time.perf_counter() - t0)
        try:
            state = module.play(state, action)
        except (IllegalActionError, TypeError, ValueError) as e:
            state = module.forfeit(state)
            kept = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) \
                else repr(action)
            return GameRecord(moves, int(module.winner(state)), str(state.end), times,
                              illegal_by=colour, illegal_action=kept, illegal_detail=str(e))
        moves.append(int(action))
    return GameRecord(moves, int(module.winner(state)), str(state.end), times)


def play_wdl(game: str | ModuleType, agent, opponent, games: int, colour: int = 1) -> tuple[int, int, int]:
    """Play ``games`` games in a row, ``agent`` always as ``colour``; its wins, draws and losses.

    Each game goes through ``play_game`` without an ``rng``: the agents are
    reset but keep their own generators, so one seeded pair of agents gives
    one reproducible sequence of games. A forfeit counts as a loss for the
    agent that made it.

    Args:
        game: a game name or rules module.
        agent: the agent whose result is counted (an ``Agent``, a registry
            spec or a callable ``f(state) -> action``).
        opponent: the other agent.
        games: how many games.
        colour: ``agent``'s colour, 1 (moves first) or 2.

    Returns:
        ``(wins, draws, losses)`` from ``agent``'s view.
    """
    if colour not in (1, 2):
        raise ValueError(f"colour must be 1 (first) or 2 (second), got {colour!r}")
    module = get_game(game) if isinstance(game, str) else game
    # Specs and callables become agents once, not once a game.
    agent, opponent = _as_agent(agent, module), _as_agent(opponent, module)
    pair = (agent, opponent) if colour == 1 else (opponent, agent)
    wins = draws = losses = 0
    for _ in range(games):
        winner = play_game(module, *pair).winner
        if winner == 0:
            draws += 1
        elif winner == colour:
            wins += 1
        else:
            losses += 1
    return wins, draws, losses


# --------------------------------------------------------------------------- intervals


def score_interval(wins: int, draws: int, losses: int, z: float = Z95) -> tuple[float, float, str]:
    """A confidence interval for the score ``(W + D/2) / N`` (see the module docstring).

    Args:
        wins, draws, losses: the counts from one side's view.
        z: the normal quantile (1.96 for 95%).

    Returns:
        ``(low, high, method)`` with method ``"wilson"``, ``"normal"`` or
        ``"none"`` (no games: the interval is [0, 1]).
    """
    n = wins + draws + losses
    if n == 0:
        return 0.0, 1.0, "none"
    p = (wins + 0.5 * draws) / n
    if draws == 0:
        z2 = z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        lo, hi = centre - half, centre + half
        # Exact at the ends; keeps rounding from excluding p = 0 or 1.
        return max(0.0, min(lo, p)), min(1.0, max(hi, p)), "wilson"
    if n == 1:
        return 0.0, 1.0, "normal"
    ss = wins * (1 - p) ** 2 + draws * (0.5 - p) ** 2 + losses * p ** 2
    half = z * math.sqrt(ss / (n - 1) / n)
    return max(0.0, p - half), min(1.0, p + half), "normal"


# --------------------------------------------------------------------------- matches


class MatchGame(NamedTuple):
    """One game of a match: its index, whether agent A moved first, and the record."""

    index: int
    a_first: bool
    record: GameRecord


def _time_stats(times: list[float]) -> dict[str, float]:
    if not times:
        return {"moves": 0, "mean_s": 0.0, "worst_s": 0.0}
    return {"moves": len(times), "mean_s": float(np.mean(times)), "worst_s": float(np.max(times))}


def _fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


@dataclass
class MatchResult:
    """The games of a match between agent A and agent B, and what they add up to.

    Everything is from A's view: W/D/L are A's wins, draws and losses.
    """

    game: str
    spec_a: str
    spec_b: str
    seed: int
    games_requested: int
    games: list[MatchGame] = field(default_factory=list)
    interrupted: bool = False

    @property
    def n(self) -> int:
        """Games played."""
        return len(self.games)

    def _a_result(self, g: MatchGame) -> float:
        a_colour = 1 if g.a_first else 2
        w = g.record.winner
        return 0.5 if w == 0 else 1.0 if w == a_colour else 0.0

    def wdl(self, a_colour: int | None = None) -> tuple[int, int, int]:
        """A's (wins, draws, losses), over all games or those where A played ``a_colour`` (1 or 2)."""
        w = d = lo = 0
        for g in self.games:
            if a_colour is not None and (1 if g.a_first else 2) != a_colour:
                continue
            s = self._a_result(g)
            if s == 1.0:
                w += 1
            elif s == 0.5:
                d += 1
            else:
                lo += 1
        return w, d, lo

    @property
    def score(self) -> float:
        """A's score ``(W + D/2) / N`` (0.5 if no game was played)."""
        w, d, lo = self.wdl()
        n = w + d + lo
        return (w + 0.5 * d) / n if n else 0.5

    def score_ci(self, z: float = Z95) -> tuple[float, float, str]:
        """``(low, high, method)``: the confidence interval of A's score (``score_interval``)."""
        return score_interval(*self.wdl(), z=z)

    def move_times(self, agent: str) -> list[float]:
        """Every move time (seconds) of agent ``"a"`` or ``"b"``."""
        if agent not in ("a", "b"):
            raise ValueError(f"agent must be 'a' or 'b', got {agent!r}")
        out: list[float] = []
        for g in self.games:
            first = g.a_first if agent == "a" else not g.a_first
            out.extend(g.record.times[0 if first else 1])
        return out

    def forfeits(self, agent: str) -> int:
        """Games that agent ``"a"`` or ``"b"`` lost by an illegal action."""
        n = 0
        for g in self.games:
            colour = (1 if g.a_first else 2) if agent == "a" else (2 if g.a_first else 1)
            n += g.record.illegal_by == colour
        return n

    def summary(self) -> dict[str, Any]:
        """The numbers of ``table()`` as a dict."""
        lo, hi, method = self.score_ci()
        by_colour = {}
        for colour in (1, 2):
            w, d, lo_ = self.wdl(colour)
            by_colour[colour_name(self.game, colour)] = {"wins": w, "draws": d, "losses": lo_}
        w, d, lo_ = self.wdl()
        return {
            "wins": w, "draws": d, "losses": lo_, "score": self.score,
            "score_ci95": [lo, hi], "ci_method": method, "a_by_colour": by_colour,
            "time_per_move": {"a": _time_stats(self.move_times("a")), "b": _time_stats(self.move_times("b"))},
            "forfeits": {"a": self.forfeits("a"), "b": self.forfeits("b")},
        }

    def to_json(self) -> dict[str, Any]:
        """The whole match, every game's moves included, as a JSON-ready dict."""
        games = []
        for g in self.games:
            d = {"index": g.index, "a_first": g.a_first,
                 "first": self.spec_a if g.a_first else self.spec_b,
                 "second": self.spec_b if g.a_first else self.spec_a}
            d.update(g.record.to_json())
            games.append(d)
        return {
            "format": "tictacgo-arena-match/1",
            "game": self.game, "agent_a": self.spec_a, "agent_b": self.spec_b, "seed": self.seed,
            "games_requested": self.games_requested, "games_played": self.n,
            "interrupted": self.interrupted, "summary": self.summary(), "games": games,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchResult:
        """The match that ``to_json`` wrote."""
        games = [MatchGame(int(g["index"]), bool(g["a_first"]), GameRecord.from_json(g))
                 for g in data["games"]]
        return cls(data["game"], data["agent_a"], data["agent_b"], int(data["seed"]),
                   int(data["games_requested"]), games, bool(data.get("interrupted", False)))

    def table(self) -> str:
        """A win/draw/loss table split by A's colour, the score with its 95% CI, and move times."""
        a, b = self.spec_a, self.spec_b
        head = f"{self.game}: A = {a}  vs  B = {b}; {self.n} games"
        if self.n != self.games_requested:
            head += f" of {self.games_requested}"
        head += f", seed {self.seed}" + (" (INTERRUPTED)" if self.interrupted else "")
        rows = [head, "", f"{'A plays':16s}{'games':>6s}{'W':>6s}{'D':>6s}{'L':>6s}{'score':>8s}"]
        for colour in (1, 2):
            w, d, lo = self.wdl(colour)
            n = w + d + lo
            sc = f"{(w + d / 2) / n:8.3f}" if n else f"{'-':>8s}"
            label = f"{colour_name(self.game, colour)} ({'first' if colour == 1 else 'second'})"
            rows.append(f"{label:16s}{n:6d}{w:6d}{d:6d}{lo:6d}{sc}")
        w, d, lo = self.wdl()
        ci_lo, ci_hi, method = self.score_ci()
        rows.append(f"{'total':16s}{self.n:6d}{w:6d}{d:6d}{lo:6d}{self.score:8.3f}")
        note = {"wilson": "Wilson interval", "normal": "normal approximation on per-game scores",
                "none": "no games"}[method]
        rows.append(f"A's score {self.score:.3f}, 95% CI [{ci_lo:.3f}, {ci_hi:.3f}] ({note})")
        fa, fb = self.forfeits("a"), self.forfeits("b")
        if fa or fb:
            rows.append(f"games lost by an illegal action: A {fa}, B {fb}")
        rows += ["", f"{'time per move':24s}{'moves':>8s}{'mean':>12s}{'worst':>12s}"]
        for key, spec in (("a", a), ("b", b)):
            st = _time_stats(self.move_times(key))
            rows.append(f"{key.upper() + ' ' + spec:24s}{st['moves']:8d}"
                        f"{_fmt_seconds(st['mean_s']):>12s}{_fmt_seconds(st['worst_s']):>12s}")
        return "\n".join(rows)


# --------------------------------------------------------------------------- running games


class _Job(NamedTuple):
    """What a worker needs to play one game: plain data, so it pickles under ``spawn``."""

    key: int          # which match (0 for run_match; the pair's number in a round robin)
    game: str
    spec_a: str
    spec_b: str
    seed: int
    index: int


def _game_rngs(seed: int, index: int) -> tuple[np.random.Generator, np.random.Generator]:
    """A's and B's generators for game ``index`` of a match seeded ``seed``."""
    ss_a, ss_b = np.random.SeedSequence(seed, spawn_key=(index,)).spawn(2)
    return np.random.default_rng(ss_a), np.random.default_rng(ss_b)


def _play_job(job: _Job) -> tuple[int, MatchGame]:
    module = get_game(job.game)
    rng_a, rng_b = _game_rngs(job.seed, job.index)
    a = make_agent(job.spec_a, module, rng=rng_a)
    b = make_agent(job.spec_b, module, rng=rng_b)
    a_first = job.index % 2 == 0
    record = play_game(module, a, b) if a_first else play_game(module, b, a)
    return job.key, MatchGame(job.index, a_first, record)


def _ignore_sigint() -> None:
    # Ctrl-C goes to the whole process group; the parent alone handles it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Progress:
    """tqdm if importable, else a line on stderr every ``every`` seconds; nothing if disabled."""

    def __init__(self, total: int, enabled: bool, desc: str, every: float = 5.0):
        self.total, self.enabled, self.desc, self.every = total, enabled, desc, every
        self.done = 0
        self.bar = None
        self.start = self.last = time.monotonic()
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    def update(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(1)
            return
        now = time.monotonic()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            pct = 100 * self.done / max(1, self.total)
            print(f"{self.desc}: {self.done}/{self.total} games ({pct:.0f}%), "
                  f"{now - self.start:.0f} s", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _resolve_workers(workers: int | None, n_jobs: int) -> int:
    if workers is None:
        workers = os.cpu_count() or 1
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be a positive int or None, got {workers!r}")
    return max(1, min(workers, n_jobs))


def _execute(jobs: list[_Job], workers: int | None, progress: bool, desc: str
             ) -> tuple[list[tuple[int, MatchGame]], bool]:
    """Play the jobs, in-process or in a pool; returns (results, interrupted)."""
    results: list[tuple[int, MatchGame]] = []
    if not jobs:
        return results, False
    n_workers = _resolve_workers(workers, len(jobs))
    bar = _Progress(len(jobs), progress, desc)
    interrupted = False
    try:
        if n_workers == 1:
            for job in jobs:
                results.append(_play_job(job))
                bar.update()
        else:
            # Small chunks keep the bar lively; bigger ones cut overhead on tiny games.
            chunksize = max(1, min(16, len(jobs) // (n_workers * 8)))
            pool = multiprocessing.get_context("spawn").Pool(n_workers, initializer=_ignore_sigint)
            try:
                for r in pool.imap_unordered(_play_job, jobs, chunksize=chunksize):
                    results.append(r)
                    bar.update()
                pool.close()
            except BaseException:
                pool.terminate()
                raise
            finally:
                pool.join()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    return results, interrupted


def validate_specs(game: str, specs: Sequence[str]) -> str:
    """Check a game name and agent specs by building each agent once, here.

    Args:
        game: a game name.
        specs: registry specs.

    Returns:
        The game's canonical name.

    Raises:
        ValueError: an unknown game or agent, or a bad agent parameter (the
            registry's message, which lists what exists).
        TypeError: a spec that is not a string.
    """
    module = get_game(game)
    for spec in specs:
        if not isinstance(spec, str):
            raise TypeError(f"the arena takes agents as registry specs (strings), got {spec!r}")
        make_agent(spec, module, rng=np.random.default_rng(0))
    return module.spec().name


def _check_args(game: str, specs: Sequence[str], games: int, seed: int) -> str:
    """Validate up front (in this process) so mistakes surface as a clear ValueError."""
    name = validate_specs(game, specs)
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return name


def run_match(game_name: str, spec_a: str, spec_b: str, games: int, seed: int,
              workers: int | None = None, progress: bool = True) -> MatchResult:
    """Play ``games`` games between two registered agents, colours alternating.

    Args:
        game_name: ``"tictactoe"`` or ``"littlego"``.
        spec_a, spec_b: registry specs of agents A and B (A moves first in even games).
        games: how many games.
        seed: a non-negative int; game ``i`` uses ``SeedSequence(seed, spawn_key=(i,))``.
        workers: worker processes (None: one per CPU core; 1: in this process).
        progress: show a progress bar on stderr.

    Returns:
        The ``MatchResult``; on Ctrl-C, the games finished so far with
        ``interrupted=True``.

    Raises:
        ValueError: an unknown game or agent, a bad agent parameter, or a bad count.
    """
    name = _check_args(game_name, (spec_a, spec_b), games, seed)
    jobs = [_Job(0, name, spec_a, spec_b, int(seed), i) for i in range(games)]
    results, interrupted = _execute(jobs, workers, progress, f"{spec_a} vs {spec_b}")
    played = sorted((g for _, g in results), key=lambda g: g.index)
    return MatchResult(name, spec_a, spec_b, int(seed), games, played, interrupted)


def pair_seed(seed: int, i: int, j: int) -> int:
    """The match seed of agents ``i`` and ``j`` in a round robin seeded ``seed``.

    ``run_match(game, specs[i], specs[j], n, pair_seed(seed, i, j))`` replays that pair.
    """
    state = np.random.SeedSequence(int(seed), spawn_key=(i, j)).generate_state(2, dtype=np.uint32)
    return int(state[0]) << 32 | int(state[1])


def unique_labels(specs: Sequence[str]) -> list[str]:
    """The specs as table labels, with ``#2``, ``#3`` added to repeats."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out


@dataclass
class RoundRobinResult:
    """Every pair's match, the cross table and the ratings of a round robin."""

    game: str
    specs: list[str]
    games_per_pair: int
    seed: int
    matches: dict[tuple[int, int], MatchResult]
    ratings: Any  # tictacgo.baselines.ratings.Ratings
    interrupted: bool = False

    @property
    def labels(self) -> list[str]:
        return unique_labels(self.specs)

    def points_and_games(self) -> tuple[np.ndarray, np.ndarray]:
        """``(points, games)``: points[i, j] scored by i against j, games[i, j] between them."""
        k = len(self.specs)
        points, games = np.zeros((k, k)), np.zeros((k, k))
        for (i, j), m in self.matches.items():
            w, d, lo = m.wdl()
            points[i, j] += w + 0.5 * d
            points[j, i] += lo + 0.5 * d
            games[i, j] += m.n
            games[j, i] += m.n
        return points, games

    def cross_table(self) -> np.ndarray:
        """Score of the row agent against the column agent (NaN on the diagonal or without games)."""
        points, games = self.points_and_games()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(games > 0, points / np.where(games > 0, games, 1), np.nan)

    def table(self) -> str:
        """The cross table, then the ratings."""
        labels = self.labels
        width = max(8, *(len(s) for s in labels)) + 2
        cross = self.cross_table()
        points, games = self.points_and_games()
        head = (f"{self.game} round robin: {len(labels)} agents, {self.games_per_pair} games per pair, "
                f"seed {self.seed}" + (" (INTERRUPTED)" if self.interrupted else ""))
        rows = [head, "", "score of row vs column"]
        rows.append(" " * width + "".join(f"{s:>{width}s}" for s in labels) + f"{'total':>{width}s}")
        for i, s in enumerate(labels):
            cells = "".join(f"{'-':>{width}s}" if np.isnan(cross[i, j]) else f"{cross[i, j]:>{width}.3f}"
                            for j in range(len(labels)))
            total = points[i].sum() / games[i].sum() if games[i].sum() else float("nan")
            rows.append(f"{s:<{width}s}{cells}{total:>{width}.3f}")
        rows += ["", self.ratings.table()]
        return "\n".join(rows)

    def to_json(self) -> dict[str, Any]:
        """Everything, every game of every pair included, as a JSON-ready dict."""
        cross = self.cross_table()
        return {
            "format": "tictacgo-arena-round-robin/1",
            "game": self.game, "agents": self.specs, "labels": self.labels,
            "games_per_pair": self.games_per_pair, "seed": self.seed, "interrupted": self.interrupted,
            "cross_table": [[None if np.isnan(v) else float(v) for v in row] for row in cross],
            "ratings": self.ratings.to_json(),
            "matches": [{"i": i, "j": j, **m.to_json()} for (i, j), m in sorted(self.matches.items())],
        }


def run_round_robin(game: str, specs: Sequence[str], games_per_pair: int, seed: int,
                    workers: int | None = None, progress: bool = True,
                    prior: float = 1.0) -> RoundRobinResult:
    """Play every pair of agents and rate them.

    Pair ``(i, j)`` (``i < j``) plays a match with agent ``i`` as A, seeded
    ``pair_seed(seed, i, j)``; all games go through one pool of workers.

    Args:
        game: ``"tictactoe"`` or ``"littlego"``.
        specs: at least two registry specs.
        games_per_pair: games in each pair's match.
        seed: a non-negative int.
        workers: worker processes (None: one per CPU core; 1: in this process).
        progress: show a progress bar on stderr.
        prior: the Bradley-Terry prior strength (``ratings.fit_bradley_terry``).

    Returns:
        The ``RoundRobinResult`` (partial, ``interrupted=True``, after Ctrl-C).
    """
    from tictacgo.baselines.ratings import fit_bradley_terry

    specs = list(specs)
    if len(specs) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {specs!r}")
    name = _check_args(game, specs, games_per_pair, seed)
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    jobs = [_Job(p, name, specs[i], specs[j], pair_seed(seed, i, j), g)
            for p, (i, j) in enumerate(pairs) for g in range(games_per_pair)]
    results, interrupted = _execute(jobs, workers, progress, f"round robin ({len(pairs)} pairs)")
    matches = {}
    for p, (i, j) in enumerate(pairs):
        played = sorted((g for key, g in results if key == p), key=lambda g: g.index)
        matches[(i, j)] = MatchResult(name, specs[i], specs[j], pair_seed(seed, i, j), games_per_pair,
                                      played, interrupted and len(played) < games_per_pair)
    rr = RoundRobinResult(name, specs, games_per_pair, int(seed), matches, None, interrupted)
    points, games = rr.points_and_games()
    rr.ratings = fit_bradley_terry(points, games, names=rr.labels, prior=prior)
    return rr


# --------------------------------------------------------------------------- course report

# The ladder of the course's first grading stage, in the assignment's order.
COURSE_LADDER = ("random", "greedy", "aggressive", "alphabeta")

# "Grading Rubrics for the 1st Stage (max 90 points)" of the assignment (seed
# 002), per opponent: (points at a win rate >= 90%, factor times winRate at
# >= 70%, factor times winRate below 70%).
COURSE_RUBRIC = {
    "random": (25.0, 15.0, 0.0),
    "greedy": (25.0, 15.0, 0.0),
    "aggressive": (25.0, 20.0, 10.0),
    "alphabeta": (15.0, 10.0, 5.0),
}

COURSE_RUBRIC_TEXT = """\
Grading Rubrics for the 1st Stage (max 90 points), as the assignment gives them:
WinRate   Random              Greedy              Aggressive          Alpha-beta
>= 90%    25pts               25pts               25pts               15pts
>= 70%    15pts x winRate     15pts x winRate     20pts x winRate     10pts x winRate
< 70%     0pts                0pts                10pts x winRate     5pts x winRate
(20 games against each: 10 as Black, 10 as White. Random, Greedy and Aggressive
are available for testing; Alpha-beta is reserved for grading.)"""


def course_points(opponent: str, win_rate: float) -> float:
    """The first-stage points for ``win_rate`` against a ladder opponent.

    Example (the assignment's): 18/20 vs random -> 25; 16/20 vs greedy -> 12;
    14/20 vs aggressive -> 14; 11/20 vs alphabeta -> 2.75 (53.75 in all).

    Args:
        opponent: one of ``COURSE_LADDER``.
        win_rate: wins / games, in [0, 1].

    Returns:
        The points.
    """
    if opponent not in COURSE_RUBRIC:
        raise ValueError(f"no rubric for {opponent!r}; the ladder is {', '.join(COURSE_LADDER)}")
    if not 0 <= win_rate <= 1:
        raise ValueError(f"win_rate must be in [0, 1], got {win_rate!r}")
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

    def table(self) -> str:
        """The grading table, then the rubric it follows."""
        head = (f"Course report (Little-Go, 1st grading stage): {self.spec}, {self.games_per_opponent} games "
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
        rows.append(f"{'total':12s}{'':30s}{self.total:9.2f}{90:6d}")
        rows += ["", COURSE_RUBRIC_TEXT]
        return "\n".join(rows)

    def to_json(self) -> dict[str, Any]:
        """The report, every game included, as a JSON-ready dict."""
        return {"format": "tictacgo-arena-course-report/1", "agent": self.spec, "seed": self.seed,
                "games_per_opponent": self.games_per_opponent, "interrupted": self.interrupted,
                "rows": self.rows(), "total": self.total, "missing_opponents": self.missing,
                "matches": {opp: m.to_json() for opp, m in self.matches.items()}}


def run_course_report(spec: str, seed: int, games: int = 20, workers: int | None = None,
                      progress: bool = True) -> CourseReport:
    """Play ``spec`` against each registered ladder opponent, as in the course's first stage.

    Against ``COURSE_LADDER[k]`` the match is ``run_match("littlego", spec,
    opponent, games, pair_seed(seed, 0, k + 1))``: the agent is Black in the
    even games, White in the odd ones (10 and 10 of the default 20).

    Args:
        spec: the agent's registry spec.
        seed: a non-negative int.
        games: games per opponent (the course plays 20).
        workers: worker processes (None: one per CPU core; 1: in this process).
        progress: show a progress bar on stderr.

    Returns:
        The ``CourseReport``; opponents not registered are listed in ``missing``.
    """
    from tictacgo.baselines.registry import available_agents

    registered = set(available_agents("littlego"))
    ladder = [(k, o) for k, o in enumerate(COURSE_LADDER) if o in registered]
    missing = [o for o in COURSE_LADDER if o not in registered]
    name = _check_args("littlego", [spec] + [o for _, o in ladder], games, seed)
    jobs = [_Job(k, name, spec, opp, pair_seed(seed, 0, k + 1), g) for k, opp in ladder for g in range(games)]
    results, interrupted = _execute(jobs, workers, progress, f"{spec} vs the course ladder")
    matches = {}
    for k, opp in ladder:
        played = sorted((g for key, g in results if key == k), key=lambda g: g.index)
        matches[opp] = MatchResult(name, spec, opp, pair_seed(seed, 0, k + 1), games, played,
                                   interrupted and len(played) < games)
    return CourseReport(spec, int(seed), games, matches, missing, interrupted)


# --------------------------------------------------------------------------- files


def write_json_atomic(path: str | os.PathLike, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically.

    See ``tictacgo.atomic``: readers see the old file or the complete new one;
    on any error the old file is left as it was and no temporary file remains.

    Args:
        path: the results file.
        data: anything ``json.dump`` accepts.
    """
    atomic_write_json(path, data, indent=1)
