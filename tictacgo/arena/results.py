"""Match results: the games of a match, their summary, table and JSON file.

``MatchResult.to_json()`` holds the summary and every game (its move list,
who moved first, the winner, the reason, the times); ``write_json_atomic``
writes it to a temporary file in the target's folder and renames it over the
target, so a results file is either the old one or the complete new one,
never half written. A result may keep its games in memory (``games``), only
their counts (``tally``), or counts and the records in a spool file on disk
(``tally`` and ``spool``, ``tictacgo.arena.records``); ``iter_games()``
reads them from wherever they are.
"""

from __future__ import annotations

import inspect
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, NamedTuple

from tictacgo.arena.game_stream import GameStream
from tictacgo.arena.stats import Z95, score_interval
from tictacgo.atomic import atomic_write_json
from tictacgo.game_loop import GameRecord
from tictacgo.games import game_class, make_game
from tictacgo.games.base import GameSpec


class MatchGame(NamedTuple):
    """One game of a match: its index, whether agent A moved first, and the record."""

    index: int
    a_first: bool
    record: GameRecord


def _time_stats(times: list[float]) -> dict[str, float]:
    if not times:
        return {"moves": 0, "mean_s": 0.0, "worst_s": 0.0}
    # The exactly rounded sum: the same mean whatever the order the games were added in (MatchTally).
    return {"moves": len(times), "mean_s": math.fsum(times) / len(times), "worst_s": float(max(times))}


def _fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


@dataclass
class MatchTally:
    """What a match's games add up to, without the games: A's W/D/L by colour,
    forfeits and move-time statistics. A long match keeps this instead of every
    ``GameRecord`` when nothing asks for the records.
    """

    #: A's colour (1, 2) -> [wins, draws, losses].
    wdl: dict[int, list[int]] = field(default_factory=lambda: {1: [0, 0, 0], 2: [0, 0, 0]})
    forfeits: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    #: agent ("a", "b") -> [moves, total seconds (exact, a Fraction), worst seconds].
    times: dict[str, list[Any]] = field(default_factory=lambda: {"a": [0, Fraction(0), 0.0],
                                                                  "b": [0, Fraction(0), 0.0]})
    games: int = 0

    def add(self, g: MatchGame) -> None:
        """Count one game."""
        a_colour = 1 if g.a_first else 2
        w = g.record.winner
        self.wdl[a_colour][1 if w == 0 else 0 if w == a_colour else 2] += 1
        for agent, colour in (("a", a_colour), ("b", 3 - a_colour)):
            self.forfeits[agent] += g.record.illegal_by == colour
            times = g.record.times[colour - 1]
            if times:
                t = self.times[agent]
                t[0] += len(times)
                t[1] += sum(map(Fraction, times), Fraction(0))
                t[2] = max(t[2], float(max(times)))
        self.games += 1


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
    #: The game's variant as ``make_game`` keywords (Little-Go's size, komi, max_actions).
    variant: dict[str, Any] = field(default_factory=dict)
    #: The counts, when the games themselves were not kept (``games`` is then empty).
    tally: MatchTally | None = None
    #: Where the games' records are when they are not in memory: a ``GameSpool``, and this
    #: match's key in it.
    spool: Any = None
    spool_key: int = 0
    #: The game object played, when the result comes from a run here (None when read from a
    #: file): its ``spec`` names the colours, with no second look-up of the game.
    played: Any = field(default=None, repr=False, compare=False)

    @property
    def n(self) -> int:
        """Games played."""
        return self.tally.games if self.tally is not None else len(self.games)

    @cached_property
    def game_spec(self) -> GameSpec:
        """The ``GameSpec`` of the variant played (its ``player_name(colour)`` names the colours),
        looked up once when the result was read from a file."""
        return (self.played if self.played is not None else make_game(self.game, **self.variant)).spec

    def variant_text(self) -> str:
        """The variant played where it is not the game's default (``size 7, komi 3.5, max_actions 48``),
        else ""."""
        try:  # the constructor's own defaults (a parameter that defaults to None follows the others)
            signature = inspect.signature(game_class(self.game))
        except (TypeError, ValueError):
            return ""
        default = {k: p.default for k, p in signature.parameters.items() if p.default is not None}
        if not self.variant or all(default.get(k, v) == v for k, v in self.variant.items()):
            return ""
        return ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                         for k, v in self.variant.items() if v is not None)

    def _a_result(self, g: MatchGame) -> float:
        a_colour = 1 if g.a_first else 2
        w = g.record.winner
        return 0.5 if w == 0 else 1.0 if w == a_colour else 0.0

    def wdl(self, a_colour: int | None = None) -> tuple[int, int, int]:
        """A's (wins, draws, losses), over all games or those where A played ``a_colour`` (1 or 2)."""
        if self.tally is not None:
            rows = [self.tally.wdl[c] for c in ((1, 2) if a_colour is None else (a_colour,))]
            return tuple(int(sum(r[k] for r in rows)) for k in range(3))
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

    def time_stats(self, agent: str) -> dict[str, float]:
        """Agent ``"a"``'s or ``"b"``'s moves and mean and worst seconds per move."""
        if self.tally is None:
            return _time_stats(self.move_times(agent))
        if agent not in ("a", "b"):
            raise ValueError(f"agent must be 'a' or 'b', got {agent!r}")
        moves, total, worst = self.tally.times[agent]
        return {"moves": int(moves), "mean_s": float(total) / moves if moves else 0.0, "worst_s": worst}

    def move_times(self, agent: str) -> list[float]:
        """Every move time (seconds) of agent ``"a"`` or ``"b"``.

        Raises:
            ValueError: a bad ``agent``, or a result that kept counts, not games (``tally``).
        """
        if agent not in ("a", "b"):
            raise ValueError(f"agent must be 'a' or 'b', got {agent!r}")
        if self.tally is not None:
            raise ValueError("this match kept counts, not games: use time_stats()")
        out: list[float] = []
        for g in self.games:
            first = g.a_first if agent == "a" else not g.a_first
            out.extend(g.record.times[0 if first else 1])
        return out

    def forfeits(self, agent: str) -> int:
        """Games that agent ``"a"`` or ``"b"`` lost by an illegal action."""
        if self.tally is not None:
            return self.tally.forfeits[agent]
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
            by_colour[self.game_spec.player_name(colour)] = {"wins": w, "draws": d, "losses": lo_}
        w, d, lo_ = self.wdl()
        return {
            "wins": w, "draws": d, "losses": lo_, "score": self.score,
            "score_ci95": [lo, hi], "ci_method": method, "a_by_colour": by_colour,
            "time_per_move": {"a": self.time_stats("a"), "b": self.time_stats("b")},
            "forfeits": {"a": self.forfeits("a"), "b": self.forfeits("b")},
        }

    def iter_games(self) -> Iterator[MatchGame]:
        """The games in index order, from memory or from the spool on disk (none when only counted)."""
        if self.spool is not None:
            return self.spool.games(self.spool_key)
        return iter(self.games)

    def _game_json(self, g: MatchGame) -> dict[str, Any]:
        d = {"index": g.index, "a_first": g.a_first,
             "first": self.spec_a if g.a_first else self.spec_b,
             "second": self.spec_b if g.a_first else self.spec_a}
        d.update(g.record.to_json())
        return d

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The whole match, every game's moves included, as a JSON-ready dict.

        Args:
            lazy: give the games as a ``GameStream`` that ``json.dump(..., indent=...)`` reads one
                game at a time (``tictacgo.arena.records.write_results_json``), not as a list.
        """
        if lazy:
            count = self.spool.count(self.spool_key) if self.spool is not None else len(self.games)
            games: list[Any] = GameStream(lambda: (self._game_json(g) for g in self.iter_games()), count)
        else:
            games = [self._game_json(g) for g in self.iter_games()]
        return {
            "format": "tictacgo-arena-match/1",
            "game": self.game, "variant": self.variant, "agent_a": self.spec_a, "agent_b": self.spec_b,
            "seed": self.seed,
            "games_requested": self.games_requested, "games_played": self.n,
            "interrupted": self.interrupted, "summary": self.summary(), "games": games,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchResult:
        """The match that ``to_json`` wrote."""
        games = [MatchGame(int(g["index"]), bool(g["a_first"]), GameRecord.from_json(g))
                 for g in data["games"]]
        return cls(data["game"], data["agent_a"], data["agent_b"], int(data["seed"]),
                   int(data["games_requested"]), games, bool(data.get("interrupted", False)),
                   dict(data.get("variant", {})))

    def table(self) -> str:
        """A win/draw/loss table split by A's colour, the score with its 95% CI, and move times."""
        a, b = self.spec_a, self.spec_b
        variant = self.variant_text()
        head = f"{self.game}{f' ({variant})' if variant else ''}: A = {a}  vs  B = {b}; {self.n} games"
        if self.n != self.games_requested:
            head += f" of {self.games_requested}"
        head += f", seed {self.seed}" + (" (INTERRUPTED)" if self.interrupted else "")
        rows = [head, "", f"{'A plays':16s}{'games':>6s}{'W':>6s}{'D':>6s}{'L':>6s}{'score':>8s}"]
        for colour in (1, 2):
            w, d, lo = self.wdl(colour)
            n = w + d + lo
            sc = f"{(w + d / 2) / n:8.3f}" if n else f"{'-':>8s}"
            label = f"{self.game_spec.player_name(colour)} ({'first' if colour == 1 else 'second'})"
            rows.append(f"{label:16s}{n:6d}{w:6d}{d:6d}{lo:6d}{sc}")
        w, d, lo = self.wdl()
        ci_lo, ci_hi, method = self.score_ci()
        rows.append(f"{'total':16s}{self.n:6d}{w:6d}{d:6d}{lo:6d}{self.score:8.3f}")
        note = {"wilson": "Wilson interval, a draw counted as half a win", "none": "no games"}[method]
        rows.append(f"A's score {self.score:.3f}, 95% CI [{ci_lo:.3f}, {ci_hi:.3f}] ({note})")
        fa, fb = self.forfeits("a"), self.forfeits("b")
        if fa or fb:
            rows.append(f"games lost by an illegal action: A {fa}, B {fb}")
        width = max(24, len(a) + 4, len(b) + 4)  # a long spec widens the column, never shifts the others
        rows += ["", f"{'time per move':{width}s}{'moves':>8s}{'mean':>12s}{'worst':>12s}"]
        for key, spec in (("a", a), ("b", b)):
            st = self.time_stats(key)
            rows.append(f"{key.upper() + ' ' + spec:{width}s}{st['moves']:8d}"
                        f"{_fmt_seconds(st['mean_s']):>12s}{_fmt_seconds(st['worst_s']):>12s}")
        return "\n".join(rows)




def write_json_atomic(path: str | os.PathLike, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically.

    See ``tictacgo.atomic``: readers see the old file or the complete new one;
    on any error the old file is left as it was and no temporary file remains.

    Args:
        path: the results file.
        data: anything ``json.dump`` accepts.
    """
    atomic_write_json(path, data, indent=1)
