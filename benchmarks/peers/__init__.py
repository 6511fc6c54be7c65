"""One benchmark of tictacgo against PettingZoo, OpenSpiel, pgx and EnvPool, measured side by side in one run.

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
      reply (``info["opponent_action"]``). The learner's action is drawn with
      Python's ``random`` from ``flatnonzero(info["action_mask"])``.
    * ``tictacgo_vector``: the native vector env,
      ``gymnasium.make_vec(id, num_envs=B, vectorization_mode="vector_entry_point")``,
      counted as ``tictacgo_gym``. At B = 1 the learner's action is drawn as
      ``tictacgo_gym``'s, and the table gives its rate over ``tictacgo_gym``'s
      first (the two differ by the env alone); for larger B it is
      ``argmax(mask * rng.random(mask.shape), axis=1)``, one numpy draw for
      the batch (at B = 1 those numpy calls, and the numpy counting of the
      plies, cost more than the one-game draw: the ratio would compare the
      policies as much as the envs).
    * ``pettingzoo``: ``tictactoe_v3`` / ``go_v5(board_size=5, komi=2.5)``, the AEC loop.
    * ``openspiel``: ``tic_tac_toe`` / ``go(board_size=5, komi=2.5)`` through
      pyspiel: ``legal_actions()`` -> ``apply_action``.
    * ``pgx``: ``tic_tac_toe`` / ``pgx.go.Go(size=5, komi=2.5)``,
      ``jax.jit(vmap(auto_reset(step)))`` on the CPU, one call per batched ply.
    * ``envpool``: EnvPool's C++ ports of pgx's games, ``TicTacToe-v1`` /
      ``Go9x9-v1`` with ``board_size=5, komi=2.5``, through
      ``envpool.make_gymnasium(task, num_envs=B)`` (the mask from
      ``info["legal_action_mask"]``, finished games reset on their next step).
      EnvPool's pgx ports need Python 3.12 or newer: on an older Python, or
      without envpool, the rows are left out with a note saying which.

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
(tictacgo, PettingZoo, OpenSpiel, pgx with ``JAX_PLATFORMS=cpu``, EnvPool, SB3), set up
once (jit compiles included, their times are reported), so jax's threads do
not run beside the others. After a short warm-up of every case, the repeats
are interleaved round-robin over all cases, one measurement at a time, so
machine noise falls on all of them alike. Cases whose library is not
installed (or, for the vector env and VecEnv, not yet in this checkout) are
left out with a note.

Run it as ``python scripts/bench.py [options]`` or ``python -m benchmarks.peers [options]`` from the
repository's root (``make bench`` installs the peers first); ``--help`` lists the options. It prints one
Markdown table (rates, the runs, ratios of each tictacgo row to the peers on the same case, batch and
position) and writes the JSON ``{"rows": [...], "skipped": [...], "machine": {...}}``.
"""

from .driver import main

__all__ = ["main"]
