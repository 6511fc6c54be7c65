"""What the peer benchmark measures (its cases, implementations, batch sizes) and the helpers that time a
case inside a worker: ``timed`` runs a chunk of work for a time budget, ``need`` imports a peer's library
or says why the case cannot run here."""

from __future__ import annotations

import importlib
import random
import time

from tictacgo.games import littlego

SEED = 0
RANDOM_PLAY_CASES = ("ttt_random_play", "go5_random_play")
MCTS_CASES = ("go5_mcts", "ttt_mcts")
PPO_CASES = ("ttt_maskable_ppo", "go5_maskable_ppo")
AZ_CASES = ("go5_alphazero_selfplay",)
CASES = RANDOM_PLAY_CASES + MCTS_CASES + PPO_CASES + AZ_CASES
IMPLS = ("tictacgo_core", "tictacgo_aec", "tictacgo_gym", "tictacgo_vector", "tictacgo_vecenv",
         "pettingzoo", "openspiel", "pgx", "openspiel_mctsbot", "tictacgo_mcts", "dummy_vec_env",
         "tictacgo_az", "pgx_mctx", "envpool")
BATCHES = (1, 64, 1024, 8192)
UNITS = {"random_play": "plies/s", "mcts": "sims/s", "maskable_ppo": "env steps/s",
         "alphazero_selfplay": "positions/s"}
# Which worker process runs an implementation. The AlphaZero rows get workers of their own: torch's
# and XLA's thread pools are set once per process.
WORKER_OF = {"tictacgo_core": "tictacgo", "tictacgo_aec": "tictacgo", "tictacgo_gym": "tictacgo",
             "tictacgo_vector": "tictacgo", "tictacgo_mcts": "tictacgo", "pettingzoo": "pettingzoo",
             "openspiel": "openspiel", "openspiel_mctsbot": "openspiel", "pgx": "pgx",
             "dummy_vec_env": "sb3", "tictacgo_vecenv": "sb3", "tictacgo_az": "tictacgo_az",
             "pgx_mctx": "pgx_mctx", "envpool": "envpool"}
PEERS = ("pettingzoo", "openspiel", "pgx", "envpool", "openspiel_mctsbot", "dummy_vec_env", "pgx_mctx")
# tictacgo rows also compared with another tictacgo row of the same case and batch: the vector env
# at B = 1 with the single Gymnasium env (both driven by the same one-game policy).
OWN_BASELINES = {"tictacgo_vector": "tictacgo_gym"}
# The midgame position of go5_mcts: this many seeded random placements from the empty board.
MIDGAME_PLIES = 10
MIDGAME_SEED = 7
UCT_C = 1.0   # the exploration constant of both searches


class Unavailable(Exception):
    """A case cannot run here (its library is not installed, or the module is not in this checkout)."""


def timed(chunk, budget: float) -> dict:
    """Call ``chunk() -> (count, games[, evals])`` until ``budget`` seconds have passed (checked between
    chunks)."""
    count = games = evals = 0
    t0 = time.perf_counter()
    deadline = t0 + budget
    while True:
        c, g, *e = chunk()
        count += c
        games += g
        evals += sum(e)
        if time.perf_counter() >= deadline:
            break
    out = {"count": int(count), "games": int(games), "seconds": time.perf_counter() - t0}
    if evals:
        out["evals"] = int(evals)
    return out


# The game each case key plays, by its registry name.
GAME_NAMES = {"ttt": "tictactoe", "go5": "littlego"}


def game_key(case: str) -> str:
    return "ttt" if case.startswith("ttt") else "go5"


def need(module: str):
    """Import ``module`` or raise Unavailable naming it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise Unavailable(f"{module} is not importable ({e})") from e


def midgame_actions() -> list[int]:
    """10 seeded random placements (no pass) on the empty 5x5 board, legal in both engines."""
    rnd = random.Random(MIDGAME_SEED)
    s = littlego.LittleGo().initial_state()
    actions = []
    for _ in range(MIDGAME_PLIES):
        legal = [a for a in littlego.legal_actions(s) if a != 25]
        a = legal[rnd.randrange(len(legal))]
        actions.append(a)
        s = littlego.play(s, a)
    return actions
