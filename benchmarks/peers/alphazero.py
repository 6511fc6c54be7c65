"""The AlphaZero self-play rows: tictacgo's batched Gumbel self-play (torch) against pgx's AlphaZero
example on mctx (jax), with the same residual network written in plain jax for the peer."""

from __future__ import annotations

import time

from .cases import GAME_NAMES, SEED, game_key, need, timed

AZ_MAX_CONSIDERED = 16   # Gumbel: actions sampled at the root (tictacgo's default and mctx's)
AZ_MOVES_PER_CALL = 2    # pgx_mctx: self-play moves per compiled call (a lax.scan, as pgx's example runs)
AZ_VALUE_HIDDEN = 64     # the value head's hidden layer (tictacgo's Architecture default)


def tictacgo_az(case: str, az: dict):
    need("torch")
    import numpy as np
    import torch

    from tictacgo.baselines.learning.alphazero.network import Architecture, NetworkEvaluator, PolicyValueNet
    from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig, SelfPlay
    from tictacgo.games import make_game

    torch.set_num_threads(az["threads"])
    torch.manual_seed(SEED)
    variant = make_game(GAME_NAMES[game_key(case)])
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

