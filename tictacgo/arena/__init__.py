"""The arena: play agents against each other and report what happened (``tictacgo.arena``).

Built in layers, each on the one before:

* ``game_loop``: ``play_game`` (the package's one game loop) and ``GameRecord``;
  ``play_wdl`` counts wins, draws and losses over a run of games.
* ``stats``: the score's confidence interval and the Wilson interval.
* ``results``: ``MatchResult`` (summary, table, JSON) and ``write_json_atomic``.
* ``runner``: seeded jobs run in a pool of worker processes with a progress bar;
  each worker builds an agent once (``AgentCache``) and re-seeds it per game.
* ``match``: ``run_match`` between two registry specs, colours alternating.
* ``round_robin`` and ``ratings``: every pair plays; Bradley-Terry ratings.

The course's grading report lives with the course protocol
(``tictacgo.protocol.grading``); ``tictacgo arena`` is ``tictacgo.cli.arena``.
"""

from tictacgo.arena.game_loop import Forfeit, GameRecord, play_game, play_wdl
from tictacgo.arena.match import run_match, validate_specs
from tictacgo.arena.ratings import Ratings, fit_bradley_terry
from tictacgo.arena.results import MatchGame, MatchResult, colour_name, write_json_atomic
from tictacgo.arena.round_robin import RoundRobinResult, run_round_robin
from tictacgo.arena.runner import AgentCache
from tictacgo.arena.stats import score_interval, wilson_interval

__all__ = ["AgentCache", "Forfeit", "GameRecord", "MatchGame", "MatchResult", "Ratings", "RoundRobinResult",
           "colour_name", "fit_bradley_terry", "play_game", "play_wdl", "run_match", "run_round_robin",
           "score_interval", "validate_specs", "wilson_interval", "write_json_atomic"]
