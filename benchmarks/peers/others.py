"""The peers' rows of the benchmark: random play in PettingZoo's AEC envs, OpenSpiel (and its
``MCTSBot``), pgx on jax's CPU backend and EnvPool's C++ ports of pgx's games. A peer that is not
installed (or, for EnvPool, a Python older than 3.12) raises ``Unavailable``, and the driver leaves its
rows out with the reason."""

from __future__ import annotations

import random
import sys

from .cases import SEED, UCT_C, Unavailable, game_key, midgame_actions, need, timed
from .ours import aec_loop


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




# EnvPool's ports of pgx's games and the settings that make them this benchmark's games.
ENVPOOL_TASKS = {"ttt": ("TicTacToe-v1", {}), "go5": ("Go9x9-v1", {"board_size": 5, "komi": 2.5})}


def envpool_task(case: str) -> tuple[str, dict]:
    """EnvPool's task id and settings for a case; Unavailable where Python or EnvPool cannot run it."""
    if sys.version_info < (3, 12):
        raise Unavailable(f"EnvPool's TicTacToe-v1 and Go9x9-v1 need Python 3.12 or newer; this is Python "
                          f"{sys.version_info.major}.{sys.version_info.minor}")
    need("envpool")
    return ENVPOOL_TASKS[game_key(case)]


def envpool_play(case: str, batch: int):
    """Random legal play in B EnvPool games stepped at once (C++ threads), the mask from ``info``."""
    import numpy as np

    task, settings = envpool_task(case)
    envs = need("envpool").make_gymnasium(task, num_envs=batch, seed=SEED, **settings)
    rng = np.random.default_rng(SEED)
    _, info = envs.reset()
    state = {"info": info, "waiting": 0}
    count = np.count_nonzero

    def step():
        mask = state["info"]["legal_action_mask"]
        actions = np.argmax(mask * rng.random(mask.shape), axis=1).astype(np.int32)
        _, _, term, trunc, info = envs.step(actions)
        # EnvPool resets a finished game on its next step (that step's action is ignored): not a ply.
        plies = batch - state["waiting"]
        state["waiting"] = count(term | trunc)
        state["info"] = info
        return plies, state["waiting"]

    return lambda budget: timed(step, budget)
