#!/usr/bin/env python3
"""Soak test: play many random games through the envs and check invariants at every step.

Not a unit test (``tests/test_fuzz.py`` is the suite's short version): this
plays ``--games`` games (default 1,000,000) round-robin over the cases chosen,
each game through the PettingZoo AEC env or the Gymnasium env against a random
opponent, with the rules core as the reference. Every step picks a legal
action, or with ``--illegal`` probability an action the rules refuse (the game
ends, the mover loses), or with ``--malformed`` probability a malformed action
(wrong type, out of range: it must raise and change nothing). Checked after
every step:

* the env holds the reference state;
* the action mask equals the rules' legal set (zeros for the agent not to move);
* the board is player-relative (+1 own stones, -1 the opponent's);
* at the end the rewards sum to zero and agree with the winner, and a
  Little-Go winner agrees with the scores unless someone forfeited.

A failure prints the case, the game's seed and its actions (enough to replay
it) and exits with status 1. Progress and games per second are printed every
``--every`` seconds and at the end; Ctrl-C stops early with the same summary
(exit status 130).

Usage::

    python scripts/soak.py                      # 1,000,000 games, every case
    python scripts/soak.py --games 20000 --cases aec-littlego-5 gym-tictactoe
    python scripts/soak.py --list
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from dataclasses import dataclass

import numpy as np

import tictacgo  # noqa: F401  (registers the Gymnasium ids)
from tictacgo.baselines.learning.training_config import setting
from tictacgo.cli.options import add_options
from tictacgo.envs import littlego_v0, tictactoe_v0
from tictacgo.envs.observations import relative_board
from tictacgo.games import littlego
from tictacgo.interrupt import interrupt_on_termination

MALFORMED = (-1, 10**9, 1.5, float("nan"), "3", None, True, np.float32(1), np.array([1, 2]))


class InvariantError(AssertionError):
    pass


def check(ok: bool, what: str) -> None:
    if not ok:
        raise InvariantError(what)


def legal_mask(game, state) -> np.ndarray:
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if not game.is_terminal(state):
        mask[game.legal_actions(state)] = 1
    return mask


def check_end(game, state, reward_of: dict[int, float], winner_colour: int | None) -> None:
    check(sum(reward_of.values()) == 0, f"rewards {reward_of} do not sum to zero")
    w = game.winner(state)
    check(winner_colour == w, f"winner {winner_colour} reported, the rules say {w}")
    expected = {1: 0, 2: 0} if w == 0 else {w: 1, 3 - w: -1}
    check(reward_of == expected, f"rewards {reward_of} for winner {w}")
    if game.spec.komi is not None and game.end_reason(state) != "illegal":
        b, wh = littlego.scores(state)
        check(w == (1 if b > wh else 2 if wh > b else 0), f"winner {w} with scores {b}:{wh}")


def pick(game, state, rnd: random.Random, p_illegal: float) -> int:
    legal = game.legal_actions(state)
    if rnd.random() < p_illegal:
        taken = set(legal)
        illegal = [a for a in range(game.num_actions) if a not in taken]
        if illegal:
            return rnd.choice(illegal)
    return rnd.choice(legal)


def step_malformed(env, rnd: random.Random):
    """Step ``env`` with a random malformed action, which it must refuse with TypeError or ValueError."""
    bad = rnd.choice(MALFORMED)
    try:
        env.step(bad)
    except (TypeError, ValueError):
        return bad
    raise InvariantError(f"malformed action {bad!r} was accepted")


def aec_game(env, rnd: random.Random, seed: int, p_illegal: float, p_malformed: float, log: list) -> None:
    """One game through an AEC env, checked at every step."""
    u = env.unwrapped
    game = u.game
    env.reset(seed=seed)
    ref = game.initial_state()
    first, second = env.possible_agents
    colour = {first: 1, second: 2}
    for agent in env.agent_iter():
        _obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        check(u.game_state == ref, "the env's state differs from the reference")
        for a in (first, second):
            obs = env.observe(a)
            board = relative_board(game, ref, colour[a])
            check(np.array_equal(obs["observation"].reshape(board.shape), board),
                  f"{a}'s board is not player-relative")
            mask = legal_mask(game, ref) if colour[a] == game.current_player(ref) \
                else np.zeros(game.num_actions, np.int8)
            check(np.array_equal(obs["action_mask"], mask), f"{a}'s mask is not the legal set")
        if rnd.random() < p_malformed:
            bad = step_malformed(env, rnd)
            check(u.game_state == ref and env.agent_selection == agent, f"malformed {bad!r} changed the game")
        action = pick(game, ref, rnd, p_illegal)
        log.append(action)
        legal = action in game.legal_actions(ref)
        env.step(action)
        ref = game.play(ref, action) if legal else game.forfeit(ref)
        if game.is_terminal(ref):
            check(u.game_state == ref, "the env's final state differs from the reference")
            rewards = {colour[a]: env.rewards[a] for a in env.possible_agents}
            winner = env.infos[first]["winner"]
            check_end(game, ref, rewards, 0 if winner == "draw" else colour[winner])
    check(game.is_terminal(ref), "the agent loop ended before the game")


def gym_game(env, rnd: random.Random, seed: int, p_illegal: float, p_malformed: float, log: list) -> None:
    """One episode through a Gymnasium env against its random opponent, checked at every step."""
    u = env.unwrapped
    game = u.game
    obs, info = env.reset(seed=seed)
    ref = u.game.initial_state()
    if info["opponent_action"] >= 0:
        ref = game.play(ref, info["opponent_action"])
    while True:
        learner = u.learner_colour
        check(u.game_state == ref, "the env's state differs from the reference")
        board = relative_board(game, ref, learner)
        check(np.array_equal(np.asarray(obs).reshape(board.shape), board), "the board is not player-relative")
        check(np.array_equal(info["action_mask"], legal_mask(game, ref)), "the mask is not the legal set")
        if game.is_terminal(ref):
            return
        if rnd.random() < p_malformed:
            bad = step_malformed(env, rnd)
            check(u.game_state is ref or u.game_state == ref, f"malformed {bad!r} changed the game")
        action = pick(game, ref, rnd, p_illegal)
        log.append(action)
        legal = action in game.legal_actions(ref)
        obs, reward, terminated, truncated, info = env.step(action)
        check(truncated is False, "truncated")
        if legal:
            ref = game.play(ref, action)
            if info["opponent_action"] >= 0:
                log.append(info["opponent_action"])
                ref = game.play(ref, info["opponent_action"])
        else:
            ref = game.forfeit(ref)
            check(reward == -1.0 and info["illegal_action"], "an illegal action was not scored as a loss")
        check(terminated == game.is_terminal(ref), "terminated disagrees with the rules")
        if terminated:
            check_end(game, ref, {learner: reward, 3 - learner: -reward}, info["winner_colour"])
        else:
            check(reward == 0.0, f"reward {reward} before the end")


def make_cases() -> dict[str, tuple]:
    import gymnasium as gym

    def gym_env(env_id, **kw):
        return lambda: gym.make(env_id, opponent="random", learner="random", **kw)

    return {
        "aec-tictactoe": (aec_game, lambda: tictactoe_v0.env()),
        "aec-littlego-3": (aec_game, lambda: littlego_v0.env(board_size=3)),
        "aec-littlego-4": (aec_game, lambda: littlego_v0.env(board_size=4, komi=0)),
        "aec-littlego-5": (aec_game, lambda: littlego_v0.env()),
        "gym-tictactoe": (gym_game, gym_env("TicTacToe-v0")),
        "gym-littlego-3": (gym_game, gym_env("LittleGo-v0", board_size=3)),
        "gym-littlego-5": (gym_game, gym_env("LittleGo-v0")),
    }


@dataclass
class Args:
    games: int = setting(1_000_000, "Games in all.")
    cases: list[str] | None = setting(None, "Cases to play (see --list).", default_text="all")
    seed: int = setting(0, "Non-negative seed.")
    illegal: float = setting(0.02, "Chance of an illegal action per step.")
    malformed: float = setting(0.02, "Chance of a malformed action per step.")
    every: float = setting(10.0, "Seconds between progress lines.")
    list_cases: bool = setting(False, "List the cases and exit.", flags=("--list",))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser, Args())
    args = dataclasses.replace(Args(), **vars(parser.parse_args(argv)))

    cases = make_cases()
    if args.list_cases:
        print("\n".join(cases))
        return 0
    names = args.cases or list(cases)
    unknown = [n for n in names if n not in cases]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(cases)}")
    if args.games < 1 or args.seed < 0:
        parser.error("--games must be at least 1 and --seed non-negative")
    for flag, p in (("--illegal", args.illegal), ("--malformed", args.malformed)):
        if not 0 <= p <= 1:  # nan fails too
            parser.error(f"{flag} must be a probability in [0, 1], got {p}")

    envs = {n: cases[n][1]() for n in names}
    played = dict.fromkeys(names, 0)
    start = last = time.perf_counter()
    status = 0
    interrupt_on_termination()  # kill and a closed terminal stop it as Ctrl-C does, with the counts
    try:
        for g in range(args.games):
            name = names[g % len(names)]
            game_seed = int(np.random.SeedSequence(args.seed, spawn_key=(g,)).generate_state(1)[0])
            rnd = random.Random(game_seed)
            log: list[int] = []
            try:
                cases[name][0](envs[name], rnd, game_seed, args.illegal, args.malformed, log)
            except InvariantError as e:
                print(f"FAILED in game {g} ({name}, seed {game_seed}): {e}\n  actions: {log}",
                      file=sys.stderr)
                status = 1
                break
            played[name] += 1
            now = time.perf_counter()
            if now - last >= args.every:
                last = now
                print(f"{g + 1:,} games, {(g + 1) / (now - start):,.0f} games/s", flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        status = 130
    elapsed = time.perf_counter() - start
    total = sum(played.values())
    print(f"{total:,} games checked in {elapsed:.1f} s: {total / max(elapsed, 1e-9):,.0f} games/s")
    for name in names:
        print(f"  {name:16s} {played[name]:>12,}")
    if status == 0:
        print("every invariant held")
    return status


if __name__ == "__main__":
    sys.exit(main())
