"""A short tour of the package, the README's main job (``tictacgo demo``).

1. Creates the PettingZoo AEC envs and the Gymnasium envs.
2. Plays one Little-Go game between two agents through the AEC env and
   renders the final board (ANSI).
3. Plays one Tic-Tac-Toe episode in the Gymnasium env: the shipped
   MaskablePPO model (``ppo``, a learned agent) against minimax, choosing
   its moves from the env's observation and action mask.
4. Prints a small win/draw/loss table between agents, learned ones
   included (the MaskablePPO models and the AlphaZero network, ``az``),
   played on the rules cores with fixed seeds.

Without the ``train`` extra the learned agent sits out and a random
learner plays instead; the demo says so.
"""

from __future__ import annotations

import sys

import gymnasium
import numpy as np

import tictacgo  # noqa: F401 -- registers the Gymnasium ids
from tictacgo.arena import AgentCache, play_game
from tictacgo.baselines import make_agent, parse_agent_spec
from tictacgo.envs import littlego_v0
from tictacgo.games import make_game


def _aec_game(seed: int) -> None:
    env = littlego_v0.env(board_size=5, render_mode="ansi")
    env.reset(seed=seed)
    game = env.unwrapped.game  # the env's game: the agents search the rules it plays
    rngs = np.random.default_rng(seed).spawn(2)
    agents = {"black_0": make_agent("mcts:sims=300", game, rngs[0]),
              "white_0": make_agent("greedy", game, rngs[1])}
    for name in env.agent_iter():
        _obs, _reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.unwrapped.game_state
        env.step(agents[name].act(state))
    print(env.render())
    print(f"winner: {info.get('winner')}, reason: {info.get('reason')}, scores: {info.get('scores')}")
    env.close()


def _learned_agent(game_name: str):
    """The shipped ``ppo`` agent for ``game_name``, or None (with a note) if it cannot load."""
    try:
        return make_agent("ppo", game_name)
    except ValueError as e:
        print(f"(no learned agent for {game_name}: {e})")
        return None


def _gym_episode(seed: int) -> None:
    env = gymnasium.make("TicTacToe-v0", opponent="minimax", learner="second", render_mode="ansi")
    learned = _learned_agent("tictactoe")
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = False
    total = 0.0
    while not done:
        if learned is not None:  # from the env's observation and action mask, as a trained policy does
            action = learned.predict(obs, info["action_mask"])
        else:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    print(env.render())
    print(f"learner's return: {total:+.0f} (winner: {info.get('winner')}, reason: {info.get('reason')})")
    env.close()


def _table(n_games: int, seed: int) -> None:
    """Play each pairing ``n_games`` times and print a row of A's wins, draws and B's wins.

    Each game is built once and each agent once for the table (an ``AgentCache``), re-seeded
    with its pairing's generator and reset before every game, as the arena's workers do.
    """
    pairings = [("tictactoe", "minimax", "random"), ("tictactoe", "minimax", "minimax"),
                ("tictactoe", "minimax", "think3"), ("tictactoe", "ppo", "minimax"),
                ("tictactoe", "ppo", "random"), ("littlego", "greedy", "random"),
                ("littlego", "mcts:sims=300", "greedy"), ("littlego", "ppo", "greedy"),
                ("littlego", "ppo", "aggressive"), ("tictactoe", "az", "minimax"),
                ("tictactoe", "az", "random"), ("littlego", "az", "aggressive")]
    print(f"{'game':10s} {'agent A':16s} {'agent B':10s} {'A wins':>7s} {'draws':>6s} {'B wins':>7s}")
    root = np.random.SeedSequence(seed)
    games = {name: make_game(name) for name in dict.fromkeys(p[0] for p in pairings)}
    specs = {text: parse_agent_spec(text) for p in pairings for text in p[1:]}
    agents = AgentCache()
    for (game_name, a_spec, b_spec), ss in zip(pairings, root.spawn(len(pairings)), strict=True):
        game = games[game_name]
        ra, rb = (np.random.default_rng(s) for s in ss.spawn(2))
        try:
            a = agents.agent(specs[a_spec], game, ra)
            b = agents.agent(specs[b_spec], game, rb, playing=(a,))
        except ValueError as e:  # a learned agent without the train extra or a shipped model
            print(f"{game_name:10s} {a_spec:16s} {b_spec:10s} (skipped: {e})")
            continue
        tally = [0, 0, 0]
        row = f"{game_name:10s} {a_spec:16s} {b_spec:10s}"
        for g in range(n_games):
            _progress(f"{row} game {g + 1}/{n_games}")
            first, second = (a, b) if g % 2 == 0 else (b, a)  # colours alternate
            w = play_game(game, first, second).winner
            if w == 0:
                tally[1] += 1
            else:
                tally[0 if (first, second)[w - 1] is a else 2] += 1
        _progress("")
        print(f"{row} {tally[0]:7d} {tally[1]:6d} {tally[2]:7d}")


def _progress(line: str) -> None:
    """Show which game a row is at, in place on a terminal (long rows run for tens of seconds)."""
    if sys.stderr.isatty():
        print(f"\r{line:<60s}", end="\r" if not line else "", file=sys.stderr, flush=True)


def tour(games: int = 20, seed: int = 0) -> None:
    """Print the tour: the envs, a rendered game each, and a table of ``games`` games per pairing.

    Args:
        games: games per pairing in the table (at least 1).
        seed: a non-negative seed for everything.
    """
    print("== Little-Go through the PettingZoo AEC env: MCTS (300 simulations) as Black vs greedy ==")
    _aec_game(seed)
    print("\n== Tic-Tac-Toe through gymnasium.make('TicTacToe-v0'): the shipped MaskablePPO (O) "
          "vs minimax ==")
    _gym_episode(seed)
    print(f"\n== {games} games per pairing, colours alternating, seed {seed} ==")
    _table(games, seed)
