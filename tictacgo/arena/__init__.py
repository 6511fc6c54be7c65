"""The arena: play agents against each other and report what happened (``tictacgo.arena``).

Built in layers, each on the one before, over the package's one game loop
(``tictacgo.game_loop``: ``play_game``, ``GameRecord``, ``Forfeit`` and
``play_wdl``, which the arena re-exports):

* ``stats``: the score's confidence interval and the Wilson interval.
* ``results``: ``MatchResult`` (summary, table, JSON) and ``write_json_atomic``.
* ``records``: a run's game records on disk while it goes on (``GameSpool``), and
  results files streamed from them (``write_results_json``).
* ``jobs``, ``progress`` and ``runner``: seeded jobs (one game each) run in a pool
  of worker processes (or as Ray tasks, ``ray_backend``) with a progress bar;
  each worker builds an agent once (``AgentCache``) and re-seeds it per game; a
  worker that dies or cannot start stops the run with ``WorkerFailed``.
* ``match``: ``run_match`` between two registry specs, colours alternating.
* ``round_robin`` and ``ratings``: every pair plays; Bradley-Terry ratings.

The course's grading report lives with the course protocol
(``tictacgo.protocol.grading``); ``tictacgo arena`` is ``tictacgo.cli.arena``.
"""

from tictacgo.arena.jobs import AgentCache
from tictacgo.arena.match import run_match, validate_specs
from tictacgo.arena.ratings import Ratings, fit_bradley_terry
from tictacgo.arena.records import GameSpool, write_results_json
from tictacgo.arena.results import MatchGame, MatchResult, write_json_atomic
from tictacgo.arena.round_robin import RoundRobinResult, run_round_robin
from tictacgo.arena.runner import WorkerFailed
from tictacgo.arena.stats import score_interval, wilson_interval
from tictacgo.game_loop import Forfeit, GameRecord, play_game, play_wdl

__all__ = ["AgentCache", "Forfeit", "GameRecord", "GameSpool", "MatchGame", "MatchResult", "Ratings",
           "RoundRobinResult", "WorkerFailed", "fit_bradley_terry", "play_game", "play_wdl", "run_match",
           "run_round_robin", "score_interval", "validate_specs", "wilson_interval", "write_json_atomic",
           "write_results_json"]
