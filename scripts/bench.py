#!/usr/bin/env python3
"""One benchmark of tictacgo against PettingZoo, OpenSpiel and pgx, measured side by side in one run.

Cases (``case`` / ``impl`` in the JSON; every rate is a median of ``--repeats`` runs):

``ttt_random_play``, ``go5_random_play``: random legal play, game plies per
    second (one ply = one player's move, as pgx and OpenSpiel count). Each
    step reads the legal set or mask, picks a uniformly random legal action and
    applies it; finished games start again.

    * ``tictacgo_core``: the rules core (``tictacgo.games``), one game at a
      time for B = 1; for B > 1 the batched engine
      (``tictacgo.games.batched_*``: B games stepped with numpy, auto-reset).
    * ``tictacgo_aec``: the PettingZoo AEC env (``env.last()`` -> mask ->
      ``env.step``; the AEC dead steps at game end run but do not count).
    * ``tictacgo_gym``: the single-agent Gymnasium env against its built-in
      ``random`` opponent; a step counts the learner's ply and the opponent's
      reply (``info["opponent_action"]``).
    * ``tictacgo_vector``: the native vector env,
      ``gymnasium.make_vec(id, num_envs=B, vectorization_mode="vector_entry_point")``,
      counted as ``tictacgo_gym``.
    * ``pettingzoo``: ``tictactoe_v3`` / ``go_v5(board_size=5, komi=2.5)``, the AEC loop.
    * ``openspiel``: ``tic_tac_toe`` / ``go(board_size=5, komi=2.5)`` through
      pyspiel: ``legal_actions()`` -> ``apply_action``.
    * ``pgx``: ``tic_tac_toe`` / ``pgx.go.Go(size=5, komi=2.5)``,
      ``jax.jit(vmap(auto_reset(step)))`` on the CPU, one call per batched ply.

``go5_mcts`` (``position`` "empty" or "midgame"), ``ttt_mcts``: MCTS simulations
    per second, counted from the search tree's root visits. ``tictacgo_mcts`` is
    the registry's ``mcts:sims=N,rollout=random,reuse=false`` (UCT, uniform
    random rollouts); ``openspiel_mctsbot`` is
    ``open_spiel.python.algorithms.mcts.MCTSBot`` with
    ``RandomRolloutEvaluator(n_rollouts=1)``, the same ``uct_c`` and
    ``solve=False`` (tictacgo's search has no solver). Both search the same
    position: the midgame is 10 seeded random placements replayed in both
    engines. The games' rules differ in length: the course's Little-Go stops
    after 24 actions, OpenSpiel's go plays on until two passes, so its
    rollouts are longer.

``ttt_maskable_ppo``, ``go5_maskable_ppo``: sb3-contrib MaskablePPO training
    throughput, env steps (learner actions) per second over one
    ``learn(n_envs * n_steps)`` after a warm-up one, gradient updates included:
    ``dummy_vec_env`` (SB3's ``DummyVecEnv`` of ``n_envs`` single Gymnasium
    envs) against ``tictacgo_vecenv`` (the SB3 VecEnv on the batched engine),
    same network (``MlpPolicy``, 64x64), same hyperparameters (default 64 envs
    x 64 steps = 4096 steps a measurement, minibatches of 256, 10 epochs),
    random opponent, learner colours alternating, torch on one thread.

``go5_alphazero_selfplay``: AlphaZero self-play without gradient steps,
    self-play positions (moves of one game) per second, with network
    evaluations per second beside it (``evals_per_s``). Both sides play
    ``--az-games`` Little-Go/5x5 go games at once (default 256), Gumbel MuZero
    search with ``--az-sims`` simulations (32) and 16 actions considered at the
    root, Gumbel noise scale 1, the search's improved policy recorded as the
    target of every position; the network is an untrained residual CNN of
    ``--az-channels`` x ``--az-blocks`` (32 x 4, the shipped Little-Go
    model's size: 3x3 stem, blocks of two 3x3 convolutions with batch norm,
    1x1 policy and value heads, the value head's hidden layer 64 wide), on one
    CPU thread (``--az-threads``), in float32 (``--az-precision bfloat16``:
    both sides' network in bfloat16).

    * ``tictacgo_az``: the self-play of ``tictacgo train littlego --algo
      alphazero`` (``alphazero.selfplay.SelfPlay.step``: the batched search on
      numpy arrays, the batched engine, the torch network evaluating the
      leaves of every game in one call); counts the network's rows (leaves
      of finished games are not evaluated).
    * ``pgx_mctx``: pgx's AlphaZero example (``examples/alphazero/train.py``'s
      ``selfplay``): ``pgx.go.Go(size=5, komi=2.5, max_terminal_steps=24)``,
      ``mctx.gumbel_muzero_policy`` with ``qtransform_completed_by_mix_value``,
      ``recurrent_fn`` stepping ``jax.vmap(env.step)`` and calling the network,
      ``vmap(auto_reset(step))`` after the search, moves run in a
      ``jax.lax.scan`` (``AZ_MOVES_PER_CALL`` a call) compiled once with
      ``jax.jit`` on the CPU (the compile time is reported as ``compile_s``);
      the network is the same CNN written in plain jax (inference batch norm
      from stored statistics, as haiku's). mctx evaluates every simulation's
      leaf, ``B * (sims + 1)`` evaluations a move. pgx's go is not the
      course's game: it has no action limit of its own (its ``max_terminal_steps``
      timeout, 50 for 5x5 by default, is set here to the course's 24 actions
      so the games have the same length), scores by area (the course counts
      stones) and forbids positional superko (the course: simple ko).

Every implementation family runs in its own long-lived worker subprocess
(tictacgo, PettingZoo, OpenSpiel, pgx with ``JAX_PLATFORMS=cpu``, SB3), set up
once (jit compiles included, their times are reported), so jax's threads do
not run beside the others. After a short warm-up of every case, the repeats
are interleaved round-robin over all cases, one measurement at a time, so
machine noise falls on all of them alike. Cases whose library is not
installed (or, for the vector env and VecEnv, not yet in this checkout) are
left out with a note.

Usage::

    pip install -e .[train,bench]       # the peers: open_spiel, pgx, jax, mctx
    python scripts/bench.py [--budget 1.5] [--repeats 3] [--cases go5_random_play,go5_mcts]
                            [--impls tictacgo_core,pgx] [--batches 1,1024] [--json out.json] [--quick]
    python scripts/bench.py --cases go5_alphazero_selfplay --budget 6   # AlphaZero self-play alone

It prints one Markdown table (rates, the runs, ratios of each tictacgo row to
the peers on the same case, batch and position) and writes the JSON
``{"rows": [...], "skipped": [...], "machine": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

SEED = 0
RANDOM_PLAY_CASES = ("ttt_random_play", "go5_random_play")
MCTS_CASES = ("go5_mcts", "ttt_mcts")
PPO_CASES = ("ttt_maskable_ppo", "go5_maskable_ppo")
AZ_CASES = ("go5_alphazero_selfplay",)
CASES = RANDOM_PLAY_CASES + MCTS_CASES + PPO_CASES + AZ_CASES
IMPLS = ("tictacgo_core", "tictacgo_aec", "tictacgo_gym", "tictacgo_vector", "tictacgo_vecenv",
         "pettingzoo", "openspiel", "pgx", "openspiel_mctsbot", "tictacgo_mcts", "dummy_vec_env",
         "tictacgo_az", "pgx_mctx")
BATCHES = (1, 64, 1024, 8192)
UNITS = {"random_play": "plies/s", "mcts": "sims/s", "maskable_ppo": "env steps/s",
         "alphazero_selfplay": "positions/s"}
# Which worker process runs an implementation. The AlphaZero rows get workers of their own: torch's
# and XLA's thread pools are set once per process.
WORKER_OF = {"tictacgo_core": "tictacgo", "tictacgo_aec": "tictacgo", "tictacgo_gym": "tictacgo",
             "tictacgo_vector": "tictacgo", "tictacgo_mcts": "tictacgo", "pettingzoo": "pettingzoo",
             "openspiel": "openspiel", "openspiel_mctsbot": "openspiel", "pgx": "pgx",
             "dummy_vec_env": "sb3", "tictacgo_vecenv": "sb3", "tictacgo_az": "tictacgo_az",
             "pgx_mctx": "pgx_mctx"}
PEERS = ("pettingzoo", "openspiel", "pgx", "openspiel_mctsbot", "dummy_vec_env", "pgx_mctx")
# The midgame position of go5_mcts: this many seeded random placements from the empty board.
MIDGAME_PLIES = 10
MIDGAME_SEED = 7
UCT_C = 1.0   # the exploration constant of both searches


class Unavailable(Exception):
    """A case cannot run here (its library is not installed, or the module is not in this checkout)."""


# ----------------------------------------------------------------------------
# Measurement helpers (run inside the workers)
# ----------------------------------------------------------------------------

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
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise Unavailable(f"{module} is not importable ({e})") from e


def midgame_actions() -> list[int]:
    """10 seeded random placements (no pass) on the empty 5x5 board, legal in both engines."""
    from tictacgo.games import littlego

    rnd = random.Random(MIDGAME_SEED)
    s = littlego.LittleGo().initial_state()
    actions = []
    for _ in range(MIDGAME_PLIES):
        legal = [a for a in littlego.legal_actions(s) if a != 25]
        a = legal[rnd.randrange(len(legal))]
        actions.append(a)
        s = littlego.play(s, a)
    return actions


# -- tictacgo -------------------------------------------------------------------

def tictacgo_core(case: str, batch: int):
    import numpy as np

    from tictacgo.games import make_game

    game = make_game(GAME_NAMES[game_key(case)])
    if batch == 1:
        rnd = random.Random(SEED)
        init, legal_actions, play, is_terminal = (game.initial_state, game.legal_actions, game.play,
                                                  game.is_terminal)

        def one_game():
            s = init()
            n = 0
            while not is_terminal(s):
                legal = legal_actions(s)
                s = play(s, legal[rnd.randrange(len(legal))])
                n += 1
            return n, 1

        return lambda budget: timed(one_game, budget)
    if game_key(case) == "ttt":
        engine = need("tictacgo.games.batched_tictactoe").BatchedTicTacToe(batch)
    else:
        engine = need("tictacgo.games.batched_littlego").BatchedLittleGo(batch)
    rng = np.random.default_rng(SEED)
    engine.reset()

    def step():
        mask = engine.legal_mask()
        actions = np.argmax(mask * rng.random(mask.shape), axis=1)
        done, _ = engine.step(actions)   # every game is live: finished ones were reset by step
        return batch, np.count_nonzero(done)

    return lambda budget: timed(step, budget)


def aec_loop(env):
    import numpy as np

    rnd = random.Random(SEED)
    flatnonzero = np.flatnonzero
    env.reset(seed=SEED)

    def one_game():
        env.reset()
        n = 0
        for _agent in env.agent_iter():
            obs, _rew, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)    # AEC dead step, not counted
                continue
            legal = flatnonzero(obs["action_mask"])
            env.step(int(legal[rnd.randrange(len(legal))]))
            n += 1
        return n, 1

    return lambda budget: timed(one_game, budget)


def tictacgo_aec(case: str, batch: int):
    from tictacgo.envs import littlego_v0, tictactoe_v0

    return aec_loop(tictactoe_v0.env() if game_key(case) == "ttt" else littlego_v0.env(board_size=5))


def env_id(key: str) -> str:
    """The Gymnasium id of a case key's game, from the game registry."""
    from tictacgo.envs.game_envs import env_id

    return env_id(GAME_NAMES[key])


def tictacgo_gym(case: str, batch: int):
    import gymnasium
    import numpy as np

    import tictacgo  # noqa: F401  (registers the ids)

    env = gymnasium.make(env_id(game_key(case)), opponent="random", learner="first")
    rnd = random.Random(SEED)
    _, info = env.reset(seed=SEED)
    state = {"info": info}

    def step():
        legal = np.flatnonzero(state["info"]["action_mask"])
        _, _, term, trunc, info = env.step(int(legal[rnd.randrange(len(legal))]))
        plies = 1 + (info["opponent_action"] >= 0)
        if term or trunc:
            _, info = env.reset()
        state["info"] = info
        return plies, int(term or trunc)

    return lambda budget: timed(step, budget)


def tictacgo_vector(case: str, batch: int):
    import gymnasium
    import numpy as np

    import tictacgo  # noqa: F401

    need("tictacgo.envs.vector_env")
    gym_id = env_id(game_key(case))
    if gymnasium.registry[gym_id].vector_entry_point is None:
        raise Unavailable(f"{gym_id} has no vector_entry_point in this checkout")
    envs = gymnasium.make_vec(gym_id, num_envs=batch, vectorization_mode="vector_entry_point",
                              opponent="random", learner="first")
    rng = np.random.default_rng(SEED)
    _, info = envs.reset(seed=SEED)
    state = {"info": info, "waiting": 0}
    count = np.count_nonzero  # the counting is the harness's, kept cheap beside a small batch's step

    def step():
        mask = state["info"]["action_mask"]
        actions = np.argmax(mask * rng.random(mask.shape), axis=1)
        _, _, term, trunc, info = envs.step(actions)
        # NEXT_STEP auto-reset: a game that ended last step only resets now (its action is ignored).
        plies = batch - state["waiting"] + count(info["opponent_action"] >= 0)
        state["waiting"] = count(term | trunc)
        state["info"] = info
        return plies, state["waiting"]

    return lambda budget: timed(step, budget)


def tictacgo_mcts(case: str, position: str | None, sims: int):
    import numpy as np

    from tictacgo.baselines.registry import make_agent
    from tictacgo.games import littlego, make_game

    game = make_game(GAME_NAMES[game_key(case)])
    agent = make_agent(f"mcts:sims={sims},rollout=random,reuse=false,c={UCT_C}", game,
                       rng=np.random.default_rng(SEED))
    s = game.initial_state()
    if position == "midgame":
        for a in midgame_actions():
            s = littlego.play(s, a)

    def search():
        return agent.search(s).n, 0

    return lambda budget: timed(search, budget)


# -- peers ----------------------------------------------------------------------

def pettingzoo_play(case: str, batch: int):
    if game_key(case) == "ttt":
        return aec_loop(need("pettingzoo.classic.tictactoe_v3").env())
    return aec_loop(need("pettingzoo.classic.go_v5").env(board_size=5, komi=2.5))


def openspiel_game(case: str):
    pyspiel = need("pyspiel")
    if game_key(case) == "ttt":
        return pyspiel.load_game("tic_tac_toe")
    return pyspiel.load_game("go", {"board_size": 5, "komi": 2.5})


def openspiel_play(case: str, batch: int):
    g = openspiel_game(case)
    rnd = random.Random(SEED)

    def one_game():
        s = g.new_initial_state()
        n = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[rnd.randrange(len(legal))])
            n += 1
        return n, 1

    return lambda budget: timed(one_game, budget)


def openspiel_mctsbot(case: str, position: str | None, sims: int):
    import numpy as np

    g = openspiel_game(case)
    mcts = need("open_spiel.python.algorithms.mcts")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(SEED))
    bot = mcts.MCTSBot(g, uct_c=UCT_C, max_simulations=sims, evaluator=evaluator, solve=False,
                       random_state=np.random.RandomState(SEED))
    s = g.new_initial_state()
    if position == "midgame":
        for a in midgame_actions():
            if a not in s.legal_actions():
                raise RuntimeError(f"midgame move {a} is illegal in OpenSpiel's go: {s}")
            s.apply_action(a)

    def search():
        return bot.mcts_search(s).explore_count, 0

    return lambda budget: timed(search, budget)


def pgx_play(case: str, batch: int):
    need("pgx")
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    if jax.default_backend() != "cpu":
        raise RuntimeError(f"jax must run on the CPU here, got backend {jax.default_backend()!r}")
    if game_key(case) == "ttt":
        env = pgx.make("tic_tac_toe")
    else:
        from pgx.go import Go

        env = Go(size=5, komi=2.5)
    step_ar = auto_reset(env.step, env.init)

    def one_step(carry):
        st, key, ngames = carry
        key, k_act, k_step = jax.random.split(key, 3)
        logits = jnp.where(st.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits, axis=-1)
        st = jax.vmap(step_ar)(st, action, jax.random.split(k_step, batch))
        return st, key, ngames + jnp.sum(st.terminated).astype(jnp.int32)

    step_fn = jax.jit(one_step)
    key, sub = jax.random.split(jax.random.PRNGKey(SEED))
    st = jax.jit(jax.vmap(env.init))(jax.random.split(sub, batch))
    carry = [step_fn((st, key, jnp.int32(0)))]   # trace + compile + one call
    jax.block_until_ready(carry[0])
    calls_per_sync = max(1, min(50, 4096 // batch))

    def chunk():
        g0 = int(carry[0][2])
        c = carry[0]
        for _ in range(calls_per_sync):
            c = step_fn(c)
        jax.block_until_ready(c)
        carry[0] = c
        return calls_per_sync * batch, int(c[2]) - g0

    return lambda budget: timed(chunk, budget)


# -- MaskablePPO ------------------------------------------------------------------

def maskable_ppo(case: str, impl: str, ppo: dict):
    need("sb3_contrib")
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    import tictacgo  # noqa: F401

    torch.set_num_threads(1)
    game = game_key(case)
    n_envs, n_steps = ppo["n_envs"], ppo["n_steps"]
    if impl == "dummy_vec_env":
        gym_id = env_id(game)
        env = DummyVecEnv([lambda: gymnasium.make(gym_id, opponent="random", learner="alternate")] * n_envs)
    else:
        mod = need("tictacgo.baselines.learning.batched_vec_env")
        env = mod.BatchedVecEnv(GAME_NAMES[game], num_envs=n_envs,
                                opponent="random", learner="alternate")
    env.seed(SEED)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=ppo["batch_size"],
                        n_epochs=ppo["n_epochs"], gamma=0.95, ent_coef=0.01, seed=SEED, device="cpu",
                        policy_kwargs={"net_arch": [64, 64]}, verbose=0)
    steps = n_envs * n_steps
    model.learn(steps)   # warm-up

    def run(budget):
        t0 = time.perf_counter()
        before = model.num_timesteps
        model.learn(steps, reset_num_timesteps=False)
        return {"count": model.num_timesteps - before, "games": 0, "seconds": time.perf_counter() - t0}

    return run


# -- AlphaZero self-play --------------------------------------------------------------

AZ_MAX_CONSIDERED = 16   # Gumbel: actions sampled at the root (tictacgo's default and mctx's)
AZ_MOVES_PER_CALL = 2    # pgx_mctx: self-play moves per compiled call (a lax.scan, as pgx's example runs)
AZ_VALUE_HIDDEN = 64     # the value head's hidden layer (tictacgo's Architecture default)


def tictacgo_az(case: str, az: dict):
    need("torch")
    import numpy as np
    import torch

    from tictacgo.baselines.learning.alphazero.network import Architecture, NetworkEvaluator, PolicyValueNet
    from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig, SelfPlay
    from tictacgo.baselines.learning.alphazero.variant import Variant

    torch.set_num_threads(az["threads"])
    torch.manual_seed(SEED)
    variant = Variant.make(GAME_NAMES[game_key(case)])
    arch = Architecture.for_variant(variant, channels=az["channels"], blocks=az["blocks"],
                                    value_hidden=AZ_VALUE_HIDDEN)
    evaluator = NetworkEvaluator(PolicyValueNet(arch).eval(), variant, precision=az["precision"])
    search = SearchConfig("gumbel", az["sims"], AZ_MAX_CONSIDERED, gumbel_scale=1.0)
    selfplay = SelfPlay(variant, evaluator, az["games"], search, np.random.default_rng(SEED))

    def move():
        evals, games = evaluator.positions, selfplay.games_finished
        selfplay.step()
        return az["games"], selfplay.games_finished - games, evaluator.positions - evals

    return lambda budget: timed(move, budget)


def jax_resnet(num_actions: int, channels: int, blocks: int, dtype: str = "float32"):
    """``(init, apply)`` of the residual CNN in plain jax (NHWC), as pgx's example's haiku ``AZNet`` (v1).

    ``apply(params, obs) -> (logits, value)``; batch norm in inference mode from stored statistics. The
    network computes in ``dtype`` (its parameters are made so by ``init``); its outputs are float32.
    """
    import jax
    import jax.numpy as jnp

    def conv_params(key, k, cin, cout):
        w = jax.random.normal(key, (k, k, cin, cout)) * (2.0 / (k * k * cin)) ** 0.5
        return {"w": w, "b": jnp.zeros(cout)}

    def bn_params(c):
        return {"scale": jnp.ones(c), "offset": jnp.zeros(c), "mean": jnp.zeros(c), "var": jnp.ones(c)}

    def linear_params(key, nin, nout):
        return {"w": jax.random.normal(key, (nin, nout)) / nin ** 0.5, "b": jnp.zeros(nout)}

    def init(key, obs_shape):
        return jax.tree_util.tree_map(lambda a: a.astype(dtype), init32(key, obs_shape))

    def init32(key, obs_shape):
        n, _, cin = obs_shape
        keys = iter(jax.random.split(key, 4 + 2 * blocks + 5))
        return {
            "stem": (conv_params(next(keys), 3, cin, channels), bn_params(channels)),
            "blocks": [(conv_params(next(keys), 3, channels, channels), bn_params(channels),
                        conv_params(next(keys), 3, channels, channels), bn_params(channels))
                       for _ in range(blocks)],
            "policy": (conv_params(next(keys), 1, channels, 2), bn_params(2),
                       linear_params(next(keys), 2 * n * n, num_actions)),
            "value": (conv_params(next(keys), 1, channels, 1), bn_params(1),
                      linear_params(next(keys), n * n, AZ_VALUE_HIDDEN),
                      linear_params(next(keys), AZ_VALUE_HIDDEN, 1)),
        }

    def conv(p, x):
        dims = ("NHWC", "HWIO", "NHWC")
        return jax.lax.conv_general_dilated(x, p["w"], (1, 1), "SAME", dimension_numbers=dims) + p["b"]

    def bn(p, x):
        return (x - p["mean"]) * (p["scale"] * jax.lax.rsqrt(p["var"] + 1e-5)) + p["offset"]

    def linear(p, x):
        return x @ p["w"] + p["b"]

    def apply(params, obs):
        x = obs.astype(dtype)
        c, b = params["stem"]
        x = jax.nn.relu(bn(b, conv(c, x)))
        for c1, b1, c2, b2 in params["blocks"]:
            y = jax.nn.relu(bn(b1, conv(c1, x)))
            x = jax.nn.relu(x + bn(b2, conv(c2, y)))
        c, b, lin = params["policy"]
        logits = linear(lin, jax.nn.relu(bn(b, conv(c, x))).reshape(x.shape[0], -1))
        c, b, lin1, lin2 = params["value"]
        h = jax.nn.relu(linear(lin1, jax.nn.relu(bn(b, conv(c, x))).reshape(x.shape[0], -1)))
        return logits.astype(jnp.float32), jnp.tanh(linear(lin2, h)).reshape(-1).astype(jnp.float32)

    return init, apply


def pgx_mctx(case: str, az: dict):
    need("pgx")
    need("mctx")
    import jax
    import jax.numpy as jnp
    import mctx
    from pgx.experimental import auto_reset
    from pgx.go import Go

    if jax.default_backend() != "cpu":
        raise RuntimeError(f"jax must run on the CPU here, got backend {jax.default_backend()!r}")
    env = Go(size=5, komi=2.5, max_terminal_steps=24)
    batch, sims = az["games"], az["sims"]
    init, forward = jax_resnet(env.num_actions, az["channels"], az["blocks"], az["precision"])

    # recurrent_fn and the self-play step are pgx's examples/alphazero/train.py, less pmap and haiku's state.
    def recurrent_fn(params, rng_key, action, state):
        del rng_key
        current_player = state.current_player
        state = jax.vmap(env.step)(state, action)
        logits, value = forward(params, state.observation)
        logits = logits - jnp.max(logits, axis=-1, keepdims=True)
        logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
        reward = state.rewards[jnp.arange(state.rewards.shape[0]), current_player]
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -1.0 * jnp.ones_like(value))
        out = mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value)
        return out, state

    def step_fn(params, state, key):
        key1, key2 = jax.random.split(key)
        observation = state.observation
        logits, value = forward(params, observation)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        policy_output = mctx.gumbel_muzero_policy(
            params=params, rng_key=key1, root=root, recurrent_fn=recurrent_fn, num_simulations=sims,
            invalid_actions=~state.legal_action_mask, qtransform=mctx.qtransform_completed_by_mix_value,
            max_num_considered_actions=AZ_MAX_CONSIDERED, gumbel_scale=1.0)
        actor = state.current_player
        state = jax.vmap(auto_reset(env.step, env.init))(state, policy_output.action,
                                                         jax.random.split(key2, batch))
        discount = jnp.where(state.terminated, 0.0, -1.0 * jnp.ones_like(value))
        return state, {"obs": observation, "action_weights": policy_output.action_weights,
                       "reward": state.rewards[jnp.arange(batch), actor], "terminated": state.terminated,
                       "discount": discount}

    def selfplay(params, state, key):
        return jax.lax.scan(lambda st, k: step_fn(params, st, k), state,
                            jax.random.split(key, AZ_MOVES_PER_CALL))

    key, k_init, k_params = jax.random.split(jax.random.PRNGKey(SEED), 3)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(k_init, batch))
    params = init(k_params, state.observation.shape[1:])
    t0 = time.perf_counter()
    compiled = jax.jit(selfplay).lower(params, state, key).compile()
    compile_s = time.perf_counter() - t0
    carry = [state, key]

    def moves():
        key, sub = jax.random.split(carry[1])
        state, data = compiled(params, carry[0], sub)
        jax.block_until_ready((state, data))
        carry[:] = [state, key]
        n = AZ_MOVES_PER_CALL * batch
        return n, int(data["terminated"].sum()), n * (sims + 1)

    run = lambda budget: timed(moves, budget)  # noqa: E731
    run.setup_info = {"compile_s": round(compile_s, 3)}
    return run


def build(spec: dict):
    case, impl, batch = spec["case"], spec["impl"], spec["batch"]
    if case in MCTS_CASES:
        return {"tictacgo_mcts": tictacgo_mcts, "openspiel_mctsbot": openspiel_mctsbot}[impl](
            case, spec.get("position"), spec["sims"])
    if case in PPO_CASES:
        return maskable_ppo(case, impl, spec["ppo"])
    if case in AZ_CASES:
        return {"tictacgo_az": tictacgo_az, "pgx_mctx": pgx_mctx}[impl](case, spec["az"])
    return {"tictacgo_core": tictacgo_core, "tictacgo_aec": tictacgo_aec, "tictacgo_gym": tictacgo_gym,
            "tictacgo_vector": tictacgo_vector, "pettingzoo": pettingzoo_play, "openspiel": openspiel_play,
            "pgx": pgx_play}[impl](case, batch)


def versions() -> dict:
    from importlib import metadata

    out = {}
    for dist in ("numpy", "gymnasium", "pettingzoo", "open_spiel", "pgx", "mctx", "jax", "jaxlib", "torch",
                 "stable_baselines3", "sb3_contrib", "tictacgo"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def worker_main() -> None:
    """Serve JSON requests on stdin, one per line: set up a case, or measure it once."""
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)            # whatever the libraries print goes to stderr, not into the replies
    sys.stdout = sys.stderr
    runners: dict[str, Any] = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "setup":
                t0 = time.perf_counter()
                runner = runners[req["key"]] = build(req["spec"])
                out = {"ok": True, "setup_s": time.perf_counter() - t0, **getattr(runner, "setup_info", {})}
            elif req["op"] == "measure":
                out = {"ok": True, **runners[req["key"]](req["budget"])}
            elif req["op"] == "versions":
                out = {"ok": True, "versions": versions()}
            else:
                raise ValueError(f"unknown op {req['op']!r}")
        except Unavailable as e:
            out = {"ok": False, "unavailable": str(e)}
        except Exception as e:  # reported to the driver, which notes it and goes on
            out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        reply.write(json.dumps(out) + "\n")


# ----------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------

@dataclass
class Row:
    case: str
    impl: str
    batch: int
    position: str | None = None
    runs: list = field(default_factory=list)
    eval_runs: list = field(default_factory=list)
    games: int = 0
    count: int = 0
    evals: int = 0
    setup_s: float = 0.0
    compile_s: float | None = None

    @property
    def key(self) -> str:
        return f"{self.case}/{self.impl}/{self.batch}/{self.position}"


# XLA's CPU flags for one thread, as torch's set_num_threads(1) (the AlphaZero rows' --az-threads 1).
XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def worker_env(name: str, az_threads: int) -> dict:
    """The environment of a worker: jax's on the CPU (and, for pgx_mctx, on one thread when asked)."""
    env = dict(os.environ)
    if name in ("pgx", "pgx_mctx"):
        env["JAX_PLATFORMS"] = "cpu"
    if name == "pgx_mctx" and az_threads == 1:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + XLA_ONE_THREAD).strip()
    return env


class Worker:
    def __init__(self, name: str, env: dict):
        self.log = tempfile.TemporaryFile(mode="w+")
        self.name = name
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, env=env)

    def ask(self, req: dict) -> dict:
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self.log.seek(0)
            return {"ok": False, "error": f"worker {self.name} died: {self.log.read()[-1500:]}"}
        return json.loads(line)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def plan(cases: list[str], impls: list[str], batches: list[int], ppo_envs: int,
         az_games: int = 256) -> list[Row]:
    """The rows to measure; a MaskablePPO row's batch is its n_envs, an AlphaZero row's its games."""
    rows = []
    for case in cases:
        if case in RANDOM_PLAY_CASES:
            for impl, bs in (("tictacgo_core", batches), ("tictacgo_aec", [1]), ("tictacgo_gym", [1]),
                             ("tictacgo_vector", batches), ("pettingzoo", [1]), ("openspiel", [1]),
                             ("pgx", batches)):
                rows += [Row(case, impl, b) for b in bs if b in batches and impl in impls]
        elif case == "go5_mcts":
            rows += [Row(case, impl, 1, pos) for pos in ("empty", "midgame")
                     for impl in ("tictacgo_mcts", "openspiel_mctsbot") if impl in impls]
        elif case == "ttt_mcts":
            rows += [Row(case, impl, 1) for impl in ("tictacgo_mcts", "openspiel_mctsbot") if impl in impls]
        elif case in AZ_CASES:
            rows += [Row(case, impl, az_games) for impl in ("tictacgo_az", "pgx_mctx") if impl in impls]
        else:
            rows += [Row(case, impl, ppo_envs) for impl in ("dummy_vec_env", "tictacgo_vecenv")
                     if impl in impls]
    return rows


def unit(case: str) -> str:
    return UNITS[case.split("_", 1)[1]]


def fmt_ratio(x: float) -> str:
    """``2.56x``; three decimals below 0.1 so that small ratios do not print as 0.00x."""
    return f"{x:.2f}x" if x >= 0.1 else f"{x:.3f}x"


def ratios(row: dict, rows: list[dict]) -> str:
    if row["impl"] in PEERS:
        return ""
    out = []
    for peer in rows:
        if (peer["impl"] in PEERS and peer["case"] == row["case"] and peer["batch"] == row["batch"]
                and peer.get("position") == row.get("position")):
            out.append(f"{fmt_ratio(row['per_s'] / peer['per_s'])} {peer['impl']}")
    return ", ".join(out)


def markdown(rows: list[dict]) -> str:
    lines = ["| case | impl | B | rate (median) | unit | runs | vs peers (same case, B) |",
             "|---|---|---:|---:|---|---|---|"]
    for r in rows:
        case = r["case"] + (f" ({r['position']})" if r.get("position") else "")
        runs = ", ".join(f"{x:,.0f}" for x in r["runs"])
        lines.append(f"| {case} | {r['impl']} | {r['batch']} | {r['per_s']:,.0f} | {r['unit']} | {runs} "
                     f"| {ratios(r, rows)} |")
    return "\n".join(lines)


def alphazero_notes(rows: list[dict]) -> str:
    """Lines under the table for the AlphaZero rows: network evaluations per second, jit compile time."""
    lines = []
    for r in rows:
        if r["case"] in AZ_CASES:
            line = (f"{r['case']} {r['impl']} B={r['batch']}: {r['evals_per_s']:,.0f} network evaluations/s "
                    f"(median; {r['evals_per_position']:.1f} a position)")
            if r.get("compile_s") is not None:
                line += f", jit compile {r['compile_s']:.1f} s (not timed in the rates)"
            lines.append(line)
    return "\n".join(lines)


def machine_info(args, worker_versions: dict, load_before, load_after) -> dict:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cpu_count": os.cpu_count(),
            "python": platform.python_version(), "versions": worker_versions,
            "loadavg_before": load_before, "loadavg_after": load_after, "budget_s": args.budget,
            "repeats": args.repeats, "mcts_sims": args.sims, "ppo": ppo_settings(args),
            "alphazero": az_settings(args),
            "note": args.note, "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def ppo_settings(args) -> dict:
    if args.quick:
        return {"n_envs": 2, "n_steps": 32, "batch_size": 32, "n_epochs": 1}
    return {"n_envs": args.ppo_envs, "n_steps": args.ppo_n_steps, "batch_size": 256, "n_epochs": 10}


def az_settings(args) -> dict:
    if args.quick:
        return {"games": 4, "sims": 4, "channels": 8, "blocks": 1, "threads": 1, "precision": "float32"}
    return {"games": args.az_games, "sims": args.az_sims, "channels": args.az_channels,
            "blocks": args.az_blocks, "threads": args.az_threads, "precision": args.az_precision}


def csv_list(kind: str, allowed, cast=str):
    def parse(text: str):
        items = [cast(x.strip()) for x in text.split(",") if x.strip()]
        bad = [x for x in items if x not in allowed]
        if bad or not items:
            choices = ", ".join(map(str, allowed))
            raise argparse.ArgumentTypeError(f"{kind} must be a comma list of {choices}; got {text!r}")
        return items
    return parse


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=positive_float, default=None,
                    help="seconds per measurement (default 1.5, or 0.05 with --quick)")
    ap.add_argument("--repeats", type=positive_int, default=3, help="interleaved runs per case (median)")
    ap.add_argument("--cases", type=csv_list("--cases", CASES), default=list(CASES))
    ap.add_argument("--impls", type=csv_list("--impls", IMPLS), default=list(IMPLS))
    ap.add_argument("--batches", type=csv_list("--batches", BATCHES, int), default=list(BATCHES))
    ap.add_argument("--sims", type=positive_int, default=None,
                    help="MCTS simulations per search (default 400, or 20 with --quick)")
    ap.add_argument("--ppo-envs", type=positive_int, default=64, help="n_envs of both MaskablePPO rows")
    ap.add_argument("--ppo-n-steps", type=positive_int, default=64,
                    help="rollout length per env; one measurement is one rollout and its updates")
    ap.add_argument("--az-games", type=positive_int, default=256, help="AlphaZero self-play games at once")
    ap.add_argument("--az-sims", type=positive_int, default=32, help="AlphaZero simulations per move")
    ap.add_argument("--az-channels", type=positive_int, default=32, help="AlphaZero network channels")
    ap.add_argument("--az-blocks", type=positive_int, default=4, help="AlphaZero network residual blocks")
    ap.add_argument("--az-threads", type=positive_int, default=1,
                    help="CPU threads of the AlphaZero rows' torch and XLA (1: as training runs)")
    ap.add_argument("--az-precision", choices=("float32", "bfloat16"), default="float32",
                    help="the AlphaZero rows' network arithmetic, on both sides")
    ap.add_argument("--quick", action="store_true", help="tiny budgets, for a test")
    ap.add_argument("--json", default=None, help="write the rows and the machine to this file")
    ap.add_argument("--note", default="", help="a note about the machine, kept in the JSON")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.budget is None:
        args.budget = 0.05 if args.quick else 1.5
    if args.sims is None:
        args.sims = 20 if args.quick else 400
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    ppo, az = ppo_settings(args), az_settings(args)
    rows = plan(args.cases, args.impls, args.batches, ppo["n_envs"], az["games"])
    workers: dict[str, Worker] = {}
    skipped: list[dict] = []
    live: list[Row] = []
    load_before = os.getloadavg()
    t_start = time.perf_counter()
    for row in rows:   # set-up (imports, jit compiles) once per case
        name = WORKER_OF[row.impl]
        if name not in workers:
            workers[name] = Worker(name, worker_env(name, az["threads"]))
        spec = {"case": row.case, "impl": row.impl, "batch": row.batch, "position": row.position,
                "sims": args.sims, "ppo": ppo, "az": az}
        out = workers[name].ask({"op": "setup", "key": row.key, "spec": spec})
        if not out["ok"]:
            reason = out.get("unavailable") or out.get("error")
            skipped.append({"case": row.case, "impl": row.impl, "batch": row.batch,
                            **({"position": row.position} if row.position else {}), "reason": reason})
            print(f"skipped {row.key}: {reason}", file=sys.stderr, flush=True)
            continue
        row.setup_s = out["setup_s"]
        row.compile_s = out.get("compile_s")
        live.append(row)
    for rep in range(-1, args.repeats):   # -1: the warm-up round, not recorded
        for row in list(live):
            budget = min(0.3, args.budget) if rep < 0 else args.budget
            out = workers[WORKER_OF[row.impl]].ask({"op": "measure", "key": row.key, "budget": budget})
            if not out["ok"]:
                skipped.append({"case": row.case, "impl": row.impl, "batch": row.batch,
                                "reason": out.get("unavailable") or out.get("error")})
                live.remove(row)
                continue
            if rep >= 0:
                row.runs.append(out["count"] / out["seconds"])
                if "evals" in out:
                    row.eval_runs.append(out["evals"] / out["seconds"])
                    row.evals += out["evals"]
                row.games += out["games"]
                row.count += out["count"]
        print(f"round {rep + 1}/{args.repeats} done at {time.perf_counter() - t_start:.0f}s",
              file=sys.stderr, flush=True)
    worker_versions: dict = {}
    for w in workers.values():
        out = w.ask({"op": "versions"})
        worker_versions.update(out.get("versions", {}))
        w.close()
    results = []
    for row in live:
        r = {"case": row.case, "impl": row.impl, "batch": row.batch}
        if row.position:
            r["position"] = row.position
        r.update(per_s=statistics.median(row.runs), runs=row.runs, unit=unit(row.case),
                 setup_s=round(row.setup_s, 3))
        if row.case in RANDOM_PLAY_CASES and row.batch == 1 and row.games:
            # whole games only: a batch's games start together, so a short window of a large batch
            # sees too few of them end for a fair mean length
            r["plies_per_game"] = round(row.count / row.games, 2)
        if row.eval_runs:
            r["evals_per_s"] = statistics.median(row.eval_runs)
            r["eval_runs"] = row.eval_runs
            r["evals_per_position"] = round(row.evals / row.count, 2)
        if row.compile_s is not None:
            r["compile_s"] = row.compile_s
        results.append(r)
    machine = machine_info(args, worker_versions, load_before, os.getloadavg())
    machine["wall_s"] = round(time.perf_counter() - t_start, 1)
    print(markdown(results) + "\n")
    if any(r["case"] in AZ_CASES for r in results):
        print(alphazero_notes(results) + "\n")
    for s in skipped:
        pos = f" ({s['position']})" if s.get("position") else ""
        print(f"left out: {s['case']}{pos} {s['impl']} B={s['batch']}: {s['reason']}")
    print(f"medians of {args.repeats} interleaved runs of {args.budget}s each; python {machine['python']}, "
          f"{machine['cpu_count']} CPUs ({machine['cpu']}), load {load_before[0]:.2f} before, "
          f"{machine['loadavg_after'][0]:.2f} after, {machine['wall_s']}s in all")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": results, "skipped": skipped, "machine": machine}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
