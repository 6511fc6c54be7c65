"""Fuzzing the envs and the course protocol with hypothesis: legal, illegal and malformed input mixed.

A stateful test per env (PettingZoo AEC and Gymnasium, both games, several
Little-Go board sizes) drives the env with a random mix of legal actions,
actions the rules refuse, malformed actions (wrong type, out of range) and
resets, while a reference state is kept with the rules core alone. After every
step:

* the env holds the reference state;
* the action mask is exactly the rules' legal set (all zeros for the agent
  not to move, and once the game is over);
* the board is player-relative for both agents (+1 own, -1 the opponent's);
* malformed input raised and left the game unchanged;
* at the end the rewards sum to zero and agree with the winner (and, for
  Little-Go, the winner agrees with the scores unless someone forfeited).

A property test of the vector envs (the native Gymnasium one and SB3's
``BatchedVecEnv``): a batched opponent that raises or answers wrongly makes
its step fail as a whole, so the env stays in step with a same-seed twin
whose opponent never fails.

A property test of the course protocol: any ``input.txt`` either parses to a
position the rules accept with that colour to move, or my-player refuses it
with exit status 1 and no ``output.txt``.

The budgets (``max_examples``, ``stateful_step_count``) keep the whole file
to a few seconds; ``scripts/soak.py`` plays millions of games with the same
invariants outside the test suite.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import tictacgo  # noqa: F401  (registers the Gymnasium ids)
from tictacgo import cli
from tictacgo.envs import littlego_v0, tictactoe_v0
from tictacgo.envs.observations import relative_board
from tictacgo.games import littlego
from tictacgo.protocol import course

FUZZ = settings(max_examples=12, stateful_step_count=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _malformed(num_actions: int) -> st.SearchStrategy:
    """Actions of the wrong type or out of range (each must raise and change nothing)."""
    return st.sampled_from([-1, num_actions, num_actions + 7, 10**30, -(10**30), 1.0, 2.5, float("nan"),
                            "3", b"3", True, False, [1], (1,), {"a": 1}, object(), np.float32(1),
                            np.array([1, 2]), np.int64(-1), np.int64(num_actions)])


def _mask(game, state) -> np.ndarray:
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if not game.is_terminal(state):
        mask[game.legal_actions(state)] = 1
    return mask


def _illegal_actions(game, state) -> list[int]:
    legal = set(game.legal_actions(state))
    return [a for a in range(game.num_actions) if a not in legal]


def _check_end(game, state, reward_of: dict[int, float], winner_colour: int | None) -> None:
    """Rewards sum to zero and agree with the winner; a Little-Go winner agrees with the scores."""
    assert sum(reward_of.values()) == 0
    w = game.winner(state)
    assert winner_colour == w
    if w == 0:
        assert reward_of == {1: 0, 2: 0}
    else:
        assert reward_of[w] == 1 and reward_of[3 - w] == -1
    if game.spec.komi is not None and game.end_reason(state) != "illegal":
        b, wh = littlego.scores(state)
        assert w == (1 if b > wh else 2 if wh > b else 0)


# --------------------------------------------------------------------------- PettingZoo AEC


class AECMachine(RuleBasedStateMachine):
    make = None  # set by the subclasses below: () -> (env, game, initial state)

    @initialize(seed=st.integers(0, 2**32 - 1))
    def start(self, seed):
        self.env, self.game, self.initial = type(self).make()
        self.env.reset(seed=seed)
        self.ref = self.initial
        self.first, self.second = self.env.possible_agents

    def _colour(self, agent: str) -> int:
        return 1 if agent == self.first else 2

    def _live(self) -> bool:
        return bool(self.env.agents) and not self.game.is_terminal(self.ref)

    @rule(seed=st.integers(0, 2**32 - 1))
    def reset(self, seed):
        self.env.reset(seed=seed)
        self.ref = self.initial

    @precondition(lambda self: self._live())
    @rule(data=st.data())
    def legal(self, data):
        action = data.draw(st.sampled_from(self.game.legal_actions(self.ref)))
        self.env.step(action)
        self.ref = self.game.play(self.ref, action)

    @precondition(lambda self: self._live() and _illegal_actions(self.game, self.ref))
    @rule(data=st.data())
    def illegal(self, data):
        mover = self.env.agent_selection
        action = data.draw(st.sampled_from(_illegal_actions(self.game, self.ref)))
        self.env.step(action)
        self.ref = self.game.forfeit(self.ref)
        info = self.env.infos[mover]
        assert info["reason"] == "illegal" and info["illegal_action"] == action

    @precondition(lambda self: self._live())
    @rule(action=st.data())
    def malformed(self, action):
        bad = action.draw(_malformed(self.game.num_actions))
        before = (self.env.unwrapped.game_state, self.env.agent_selection, dict(self.env.rewards))
        with pytest.raises((TypeError, ValueError)):
            self.env.step(bad)
        assert (self.env.unwrapped.game_state, self.env.agent_selection, dict(self.env.rewards)) == before

    @precondition(lambda self: self.env.agents and self.game.is_terminal(self.ref))
    @rule()
    def leave(self):
        agent = self.env.agent_selection
        _obs, _reward, term, _trunc, _info = self.env.last()
        assert term
        with pytest.raises(tictacgo.GameOverError):
            self.env.step(0)
        self.env.step(None)
        assert agent not in self.env.agents

    @invariant()
    def env_follows_the_rules(self):
        assert self.env.unwrapped.game_state == self.ref
        for agent in self.env.possible_agents:
            obs = self.env.observe(agent)
            colour = self._colour(agent)
            board = obs["observation"].reshape(relative_board(self.game, self.ref, colour).shape)
            np.testing.assert_array_equal(board, relative_board(self.game, self.ref, colour))
            expected = _mask(self.game, self.ref) if self.game.current_player(self.ref) == colour \
                else np.zeros(self.game.num_actions, np.int8)
            np.testing.assert_array_equal(obs["action_mask"], expected)

    @invariant()
    def the_end_is_scored(self):
        if not self.game.is_terminal(self.ref) or len(self.env.agents) < 2:
            return
        rewards = {self._colour(a): self.env.rewards[a] for a in self.env.possible_agents}
        infos = self.env.infos[self.first]
        winner = infos["winner"]
        _check_end(self.game, self.ref, rewards, 0 if winner == "draw" else self._colour(winner))
        if "scores" in infos:
            b, w = littlego.scores(self.ref)
            assert infos["scores"] == {self.first: b, self.second: w}


def _aec(module, **kw):
    def make():
        env = module.env(**kw)
        game = env.unwrapped.game
        return env, game, game.initial_state()
    return staticmethod(make)


class AECTicTacToe(AECMachine):
    make = _aec(tictactoe_v0)


class AECLittleGo3(AECMachine):
    make = _aec(littlego_v0, board_size=3, observation="flat")


class AECLittleGo5(AECMachine):
    make = _aec(littlego_v0)


class AECLittleGo4Komi0(AECMachine):
    make = _aec(littlego_v0, board_size=4, komi=0, max_actions=12)


# --------------------------------------------------------------------------- Gymnasium


class GymMachine(RuleBasedStateMachine):
    env_id = None
    kwargs: dict = {}

    @initialize(seed=st.integers(0, 2**32 - 1), learner=st.sampled_from(["first", "second"]))
    def start(self, seed, learner):
        import gymnasium as gym

        self.env = gym.make(type(self).env_id, opponent="random", learner=learner, **type(self).kwargs)
        self.game = self.env.unwrapped.game
        self._reset(seed)

    def _reset(self, seed):
        obs, info = self.env.reset(seed=seed)
        u = self.env.unwrapped
        self.ref = u.game.initial_state()
        if info["opponent_action"] >= 0:
            self.ref = self.game.play(self.ref, info["opponent_action"])
        self.obs, self.info, self.over = obs, info, False

    def _live(self) -> bool:
        return not self.over

    @rule(seed=st.integers(0, 2**32 - 1))
    def reset(self, seed):
        self._reset(seed)

    def _after(self, result):
        self.obs, reward, terminated, truncated, self.info = result
        assert truncated is False
        if terminated:
            self.over = True
            learner = self.env.unwrapped.learner_colour
            rewards = {learner: reward, 3 - learner: -reward}
            _check_end(self.game, self.ref, rewards, self.info["winner_colour"])
            assert self.info["winner"] == {0: "draw", learner: "learner"}.get(self.info["winner_colour"],
                                                                               "opponent")
        else:
            assert reward == 0.0

    @precondition(lambda self: self._live())
    @rule(data=st.data())
    def legal(self, data):
        action = data.draw(st.sampled_from(np.flatnonzero(self.info["action_mask"]).tolist()))
        result = self.env.step(action)
        self.ref = self.game.play(self.ref, action)
        if result[4]["opponent_action"] >= 0:
            self.ref = self.game.play(self.ref, result[4]["opponent_action"])
        self._after(result)

    @precondition(lambda self: self._live() and _illegal_actions(self.game, self.ref))
    @rule(data=st.data())
    def illegal(self, data):
        action = data.draw(st.sampled_from(_illegal_actions(self.game, self.ref)))
        result = self.env.step(action)
        self.ref = self.game.forfeit(self.ref)
        assert result[1] == -1.0 and result[4]["illegal_action"] and result[4]["reason"] == "illegal"
        self._after(result)

    @rule(data=st.data())
    def malformed(self, data):
        bad = data.draw(_malformed(self.env.action_space.n))
        before = self.env.unwrapped.game_state
        with pytest.raises((TypeError, ValueError, tictacgo.GameOverError)):
            self.env.step(bad)
        assert self.env.unwrapped.game_state is before

    @invariant()
    def env_follows_the_rules(self):
        u = self.env.unwrapped
        assert u.game_state == self.ref
        learner = u.learner_colour
        board = relative_board(self.game, self.ref, learner)
        np.testing.assert_array_equal(np.asarray(self.obs).reshape(board.shape), board)
        np.testing.assert_array_equal(self.info["action_mask"], _mask(self.game, self.ref))
        assert self.over == self.game.is_terminal(self.ref)


class GymTicTacToe(GymMachine):
    env_id = "TicTacToe-v0"


class GymLittleGo3(GymMachine):
    env_id = "LittleGo-v0"
    kwargs = {"board_size": 3, "observation": "board"}


class GymLittleGo5(GymMachine):
    env_id = "LittleGo-v0"


MACHINES = [AECTicTacToe, AECLittleGo3, AECLittleGo5, AECLittleGo4Komi0,
            GymTicTacToe, GymLittleGo3, GymLittleGo5]


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.__name__)
def test_env_fuzz(machine):
    run_state_machine_as_test(machine, settings=FUZZ)


# --------------------------------------------------------------------------- the course protocol


_DIGITS = st.sampled_from("0001112")


@st.composite
def input_texts(draw):
    """input.txt candidates: mostly well-formed boards (so that many parse), sometimes broken."""
    n = draw(st.sampled_from([5, 5, 5, 3, 4]))
    colour = draw(st.sampled_from(["1", "2", "1", "2", "3", "0", "x", ""]))
    boards = [["".join(draw(st.lists(_DIGITS, min_size=n, max_size=n))) for _ in range(n)] for _ in range(2)]
    if draw(st.booleans()):
        boards[0] = list(boards[1])  # the opponent passed
    lines = [colour, *boards[0], *boards[1]]
    if draw(st.integers(0, 5)) == 0:  # break the format now and then
        k = draw(st.integers(0, len(lines) - 1))
        lines[k] = draw(st.text(alphabet="0123 x\t", max_size=n + 2))
    if draw(st.integers(0, 9)) == 0:
        lines = lines[: draw(st.integers(0, len(lines)))]
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=150, deadline=None)
@given(text=input_texts())
def test_any_input_either_parses_to_a_position_the_rules_accept_or_is_refused(text):
    try:
        colour, previous, board = course.parse_input(text)
        state = course.state_from_input(colour, previous, board)
    except ValueError:
        return
    assert not littlego.is_terminal(state) and littlego.current_player(state) == colour
    assert littlego.legal_actions(state)  # PASS at least
    np.testing.assert_array_equal(littlego.to_board(state), board)
    course.check_reachable(colour, previous, board)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=input_texts())
def test_my_player_answers_legally_or_exits_1_without_output(text, tmp_path_factory):
    folder = tmp_path_factory.mktemp("player")
    (folder / "input.txt").write_text(text, newline="")
    (folder / "output.txt").write_text("2,2")  # stale: must not survive a refusal
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = cli.main(["my-player", "--agent", "random", "--dir", str(folder), "--seed", "0"])
    if rc == 0:
        colour, previous, board = course.read_input(folder / "input.txt")
        state = course.state_from_input(colour, previous, board)
        action, reason = course.judge_move(state, course.read_output(folder / "output.txt"))
        assert reason is None and action in littlego.legal_actions(state)
    else:
        assert rc == 1 and "bad input.txt" in err.getvalue()
        assert not (folder / "output.txt").exists()


# --------------------------------------------------------------------------- vector envs' failure paths

_FAILURES = ("raise", "illegal", "shape", "float")


class _Opponent:
    """A batched opponent ``f(obs, mask)``: a fixed legal choice, or a scheduled failure."""

    def __init__(self, schedule=()):
        self.schedule = list(schedule)

    def __call__(self, obs, mask):
        kind = self.schedule.pop(0) if self.schedule else "ok"
        if kind == "raise":
            raise ValueError("the opponent failed")
        if kind == "shape":
            return np.zeros(len(mask) + 1, np.int64)
        if kind == "float":
            return np.zeros(len(mask), np.float64)
        weights = np.arange(mask.shape[1], 0, -1) * 7 % 11 + 1.0  # any fixed preference will do
        chosen = np.argmax(mask * weights, axis=1)
        if kind == "illegal":
            chosen[-1] = int(np.argmin(mask[-1])) if not mask[-1].all() else -1
        return chosen


def _vector_pair(kind, game, learner, schedule):
    """Two same-seed vector envs: the first with a failing opponent, the second without."""
    if kind == "gymnasium":
        import gymnasium

        env_id = {"tictactoe": "TicTacToe-v0", "littlego": "LittleGo-v0"}[game]
        return [gymnasium.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point",
                                   learner=learner, opponent=opp)
                for opp in (_Opponent(schedule), _Opponent())]
    pytest.importorskip("stable_baselines3")
    from tictacgo.baselines.learning.batched_vec_env import BatchedVecEnv

    return [BatchedVecEnv(game, num_envs=3, learner=learner, opponent=opp)
            for opp in (_Opponent(schedule), _Opponent())]


def _vector_step(env, kind, actions):
    if kind == "gymnasium":
        obs, reward, terminated, _, info = env.step(actions)
        return obs, reward, terminated, {k: v for k, v in info.items() if not k.startswith("_")}
    obs, reward, done, infos = env.step(actions)
    return obs, reward, done, infos


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["gymnasium", "sb3"]), game=st.sampled_from(["tictactoe", "littlego"]),
       learner=st.sampled_from(["first", "second", "alternate", "random"]),
       schedule=st.lists(st.sampled_from(("ok",) * 3 + _FAILURES), max_size=30),
       picks=st.lists(st.integers(0, 2**16), min_size=3, max_size=3 * 25), seed=st.integers(0, 2**16))
def test_a_failing_vector_opponent_leaves_every_game_as_before_the_step(kind, game, learner, schedule, picks,
                                                                        seed):
    flaky, steady = _vector_pair(kind, game, learner, schedule)
    for env in (steady, flaky):
        if kind == "sb3":
            env.seed(seed)
        for _ in range(len(schedule) + 1):  # the opponent may fail in its openings: reset again
            try:
                env.reset(seed=seed) if kind == "gymnasium" else env.reset()
                break
            except (ValueError, RuntimeError, TypeError):
                continue
    for k in range(0, len(picks) - 2, 3):
        masks = flaky.action_masks()
        # Mostly legal actions, sometimes an illegal one (which loses that game).
        actions = np.array([np.flatnonzero(m)[p % m.sum()] if p % 5 else p % masks.shape[1]
                            for m, p in zip(masks, picks[k:k + 3], strict=True)])
        try:
            got = _vector_step(flaky, kind, actions)
        except (ValueError, RuntimeError, TypeError):
            assert _same(flaky.action_masks(), steady.action_masks())
            continue  # the step failed as a whole: the twin does not take it
        want = _vector_step(steady, kind, actions)
        assert _same(got, want), (k, got, want)
