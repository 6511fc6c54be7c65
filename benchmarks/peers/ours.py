"""tictacgo's rows of the peer benchmark: random play through the rules core, the batched engines, the
AEC env, the Gymnasium env and the native vector env, and UCT MCTS. Each builder returns
``run(budget) -> {"count", "games", "seconds"}``; the libraries are imported inside the builders, so a
worker process loads only what its rows use."""

from __future__ import annotations

import random

from .cases import GAME_NAMES, SEED, UCT_C, Unavailable, game_key, midgame_actions, need, timed


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


def one_game_policy():
    """``pick(action_mask) -> action``: a uniformly random legal action of one game, drawn with Python's
    ``random`` (0 where none is legal: the ignored action of a vector env's reset step). The one-game rows
    of the Gymnasium env and the vector env both draw with it, so their rates differ by the env alone."""
    import numpy as np

    rnd = random.Random(SEED)
    flatnonzero = np.flatnonzero

    def pick(mask):
        legal = flatnonzero(mask)
        return int(legal[rnd.randrange(len(legal))]) if len(legal) else 0

    return pick


def tictacgo_gym(case: str, batch: int):
    import gymnasium

    import tictacgo  # noqa: F401  (registers the ids)

    env = gymnasium.make(env_id(game_key(case)), opponent="random", learner="first")
    pick = one_game_policy()
    _, info = env.reset(seed=SEED)
    state = {"info": info}

    def step():
        _, _, term, trunc, info = env.step(pick(state["info"]["action_mask"]))
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
    _, info = envs.reset(seed=SEED)
    state = {"info": info, "waiting": 0}
    if batch == 1:
        pick = one_game_policy()

        def one_step():
            actions = np.array([pick(state["info"]["action_mask"][0])])
            _, _, term, trunc, info = envs.step(actions)
            # NEXT_STEP auto-reset: a game that ended last step only resets now (its action is ignored).
            plies = 1 - state["waiting"] + (int(info["opponent_action"][0]) >= 0)
            state["waiting"] = int(term[0] or trunc[0])
            state["info"] = info
            return plies, state["waiting"]

        return lambda budget: timed(one_step, budget)
    rng = np.random.default_rng(SEED)
    count = np.count_nonzero  # the counting is the harness's, kept cheap beside a small batch's step

    def step():
        mask = state["info"]["action_mask"]
        actions = np.argmax(mask * rng.random(mask.shape), axis=1)
        _, _, term, trunc, info = envs.step(actions)
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
