"""Positions per second of self-play, in this process or on N Ray actors: what ``--actors`` buys.

``self_play_rate`` times self-play alone (no gradient steps, the weights
fixed) for a run's settings: in this process (``SelfPlay.step``, as
``--actors 0`` plays) or on ``actors`` Ray actors feeding one learner that only
receives (``ActorPool.step``, as ``--actors N`` plays). Every actor first
returns one call (their start and first network passes are not timed); then
the positions of the calls that finish within ``seconds`` are counted
(``actor_moves`` x ``num_games`` a call, the positions searched, as the
training run counts them). The self-play's CPU time in that window (this
process's, or the actors' in the calls counted) gives positions per CPU
second, and CPU seconds per second (the cores it got): on a machine others
load, the wall rate follows the cores the processes get, the rate per CPU
second what each process does with its share.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch

from tictacgo.baselines.learning.alphazero.actors import start_actors
from tictacgo.baselines.learning.alphazero.network import Architecture, NetworkEvaluator, PolicyValueNet
from tictacgo.baselines.learning.alphazero.precision import resolve_precision
from tictacgo.baselines.learning.alphazero.selfplay import SelfPlay
from tictacgo.validate import check_int, check_number


def self_play_rate(cfg, actors: int, seconds: float) -> dict:
    """Self-play positions per second for the settings ``cfg`` (an ``AlphaZeroConfig``).

    Args:
        cfg: the run's settings (game, network size, games, search, ``actor_moves``, seed).
        actors: 0 for self-play in this process, else the number of Ray actors.
        seconds: how long to count.

    Returns:
        ``{"actors", "positions", "seconds", "positions_per_second", "positions_per_cpu_second",
        "cores"}`` (cores: the self-play's CPU seconds per second of wall time).
    """
    actors = check_int("actors", actors, min=0)
    seconds = check_number("seconds", seconds, positive=True)
    game = cfg.game_object()
    torch.manual_seed(cfg.seed)
    net = PolicyValueNet(Architecture.for_game(game, channels=cfg.channels, blocks=cfg.blocks))
    if actors == 0:
        torch.set_num_threads(cfg.threads)
        precision = resolve_precision(cfg.inference_precision, "cpu").used
        evaluator = NetworkEvaluator(net, game, device="cpu", precision=precision)
        selfplay = SelfPlay(game, evaluator, cfg.num_games, cfg.search_config(),
                            np.random.default_rng(cfg.seed), temperature_moves=cfg.temperature_moves,
                            random_opening=cfg.random_opening)
        selfplay.step()
        per_step, close = cfg.num_games, lambda: None
        cpu = time.process_time
    else:
        selfplay = start_actors(dataclasses.replace(cfg, actors=actors), net, lambda: 0, 0)
        for _ in range(actors):
            selfplay.step()
        per_step, close = selfplay.positions_per_step, selfplay.close
        pool = selfplay

        def cpu() -> float:
            return pool.cpu_seconds
    try:
        positions = 0
        t0, c0 = time.perf_counter(), cpu()
        while time.perf_counter() - t0 < seconds:
            selfplay.step()
            positions += per_step
        elapsed, cpu_seconds = time.perf_counter() - t0, cpu() - c0
    finally:
        close()
    return {"actors": actors, "positions": positions, "seconds": elapsed,
            "positions_per_second": positions / elapsed,
            "positions_per_cpu_second": positions / cpu_seconds if cpu_seconds > 0 else float("nan"),
            "cores": cpu_seconds / elapsed}
