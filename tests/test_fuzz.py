"""Fuzzing the envs, the course protocol, GTP and SGF: legal, illegal and malformed input mixed.

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

Seeded fuzz tests of the GTP engine (random command lines, half of them
well-formed so that games get deep, the rest any words, ids and characters:
every answer starts with ``=`` or ``?``, none is an internal error, nothing is
logged as a traceback, the position stays legal; and once over stdin with bytes
that are not UTF-8 and an over-long line) and of SGF reading (mutations of
valid records: read into a record the rules core starts, or refused with one
ValueError line).

The budgets (``max_examples``, ``stateful_step_count``, the seeded counts) keep the whole file
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


# --------------------------------------------------------------------------- GTP and SGF


_GTP_COMMANDS = ["protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
                 "clear_board", "komi", "play", "genmove", "undo", "showboard", "time_settings", "time_left",
                 "final_score", "final_status_list", "quit", "frobnicate", "PLAY", "resign", ""]
_GTP_WORDS = ["b", "w", "black", "WHITE", "purple", "pass", "resign", "C3", "a1", "E5", "J9", "T19", "I3",
              "Z0", "c99", "0", "1", "2", "5", "7", "19", "20", "-1", "07", "2.5", "-0.5", ".5", "1e3",
              "1e999", "nan", "inf", "-inf", "1_0", "0x10", "²", "¹", "٣", "٢.٥", "Ⅻ", "9" * 30, "1" * 5000,
              "alive", "dead", "seki", "#", "# comment", "\t", "\x00", "\x1b[2J", "\r", "é", "☃", "\ud800",
              "genmove", "play"]


def _gtp_sensible(rng, size: int) -> str:
    """A well-formed command, so that games get deep: moves on the board, sizes and komi in range."""
    colour = rng.choice("bw")
    column = "ABCDEFGHJKLMNOPQRST"[rng.randrange(size)]
    vertex = "pass" if rng.random() < 0.05 else f"{column}{rng.randrange(size) + 1}"
    return rng.choice([f"play {colour} {vertex}"] * 6 + [f"genmove {colour}"] * 3 + [
        "undo", f"boardsize {rng.choice([3, 4, 5, 5, 5, 7])}",
        f"komi {rng.choice(['0.5', '2.5', '-3', '7'])}",
        "clear_board", "final_score", "final_status_list alive", "showboard",
        f"time_settings {rng.randrange(100)} {rng.randrange(5)} {rng.randrange(3)}",
        f"time_left {colour} {rng.randrange(100)} {rng.randrange(3)}"])


def _gtp_line(rng, size: int = 5) -> str:
    """A command line: half of them well-formed, the others an optional id, a command (mostly a
    real one) and 0 to 4 words of any kind."""
    if rng.random() < 0.5:
        return _gtp_sensible(rng, size)
    words = []
    if rng.random() < 0.2:
        words.append(rng.choice(["1", "42", "007", "²", "-3", "9" * 40]))
    words.append(rng.choice(_GTP_COMMANDS))
    words += [rng.choice(_GTP_WORDS) for _ in range(rng.randrange(5))]
    if rng.random() < 0.1:
        words.append("".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 12))))
    return rng.choice([" ", "  ", "\t"]).join(words)


def test_gtp_fuzz_every_answer_is_a_response_and_the_engine_never_dies():
    """2,000 seeded random command lines: each is answered ``=`` or ``?`` (or, blank, not at all),
    never ``internal error``, nothing is logged as a traceback, and the position stays legal."""
    import io
    import random

    from tictacgo.baselines import make_agent
    from tictacgo.protocol.gtp import GtpEngine

    rng = random.Random(20261126)
    log = io.StringIO()
    engine = GtpEngine(lambda game: make_agent("random", game, rng=np.random.default_rng(0)), log=log)
    deepest = 0
    for _ in range(2000):
        line = _gtp_line(rng, engine.size)
        engine.quit = False
        response = engine.handle(line)
        if response is None:
            continue
        assert response[:1] in ("=", "?") and response.endswith("\n\n"), (line[:60], response[:200])
        assert "internal error" not in response, (line[:60], response[:200])
        assert response.count("\n\n") == 1 or response.startswith("= \n"), (line[:60], response[:200])
        littlego.check_state(engine.state)
        assert engine.state.game.size == engine.size
        deepest = max(deepest, len(engine.moves))
    assert "Traceback" not in log.getvalue()
    assert deepest >= 10  # the fuzz reaches positions well into a game


def test_gtp_fuzz_over_stdin_answers_every_line_and_exits_0():
    """One ``tictacgo gtp`` process fed seeded random lines, bytes that are not UTF-8 and an
    over-long line: one response per command line, no traceback, status 0."""
    import random
    import subprocess
    import sys

    rng = random.Random(7)
    lines = [_gtp_line(rng) for _ in range(300)]
    lines = [line for line in lines if not line.lstrip().startswith("quit") and "quit" not in line.split()]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    data += b"\nplay b \xff\xfe\x80\n" + b"x" * 10_000 + b"\nname\n"
    proc = subprocess.run([sys.executable, "-m", "tictacgo.cli", "gtp", "--agent", "random", "--seed", "0"],
                          input=data, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert b"Traceback" not in proc.stderr and b"internal error" not in proc.stdout
    answers = [a for a in proc.stdout.decode("utf-8").split("\n\n") if a]
    assert all(a[:1] in ("=", "?") for a in answers)
    assert answers[-1] == "= tictacgo" and answers[-2].startswith("? syntax error: a command line is longer")


def _valid_records(rng) -> list[bytes]:
    """SGF records of random legal Little-Go games on a few variants."""
    from tictacgo.protocol import sgf

    records = []
    for n, komi in ((5, None), (5, 0.5), (3, 1.0), (7, 6.5)):
        state = littlego.LittleGo(n, komi).initial_state()
        moves = []
        while state.end is None and len(moves) < rng.randrange(4, 40):
            action = rng.choice(littlego.legal_actions(state))
            moves.append(action)
            state = littlego.play(state, action)
        records.append(sgf.record_to_sgf(moves, n=n, komi=komi, black="a [tricky] name", white="b\\c"))
    return records


_SGF_SPLICES = [b"(", b")", b";", b"[", b"]", b"\\", b"KM[inf]", b"KM[nan]", b"SZ[99]", b"SZ[1]", b"SZ[x]",
                b"GM[2]", b"AB[cc]", b"B[zz]", b"W[]", b";B[aa]", b";W[tt]", b"ACTIONLIMIT[0]", b"CA[nosuch]",
                b"\xff\xfe", b"\x00", "²".encode(), b"9" * 50, b"((((", b"))))", b"C[" + b";" * 50 + b"]"]


def _mutate(rng, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(5)
        k = rng.randrange(len(b) + 1)
        if kind == 0 and b:
            b[min(k, len(b) - 1)] = rng.randrange(256)
        elif kind == 1:
            del b[k:k + rng.randrange(1, 8)]
        elif kind == 2:
            b[k:k] = rng.choice(_SGF_SPLICES)
        elif kind == 3:
            del b[k:]
        else:
            j = rng.randrange(len(b) + 1)
            b[k:k] = b[min(j, k):max(j, k)][:64]  # a piece of itself again
    return bytes(b)


def test_sgf_fuzz_a_mutated_record_is_read_or_refused_in_one_clean_line():
    """1,500 seeded mutations of valid records: ``sgf_to_record`` returns a record the rules core
    can start, or raises ValueError with a one-line message; nothing else escapes."""
    import random

    from tictacgo.protocol import sgf

    rng = random.Random(561)
    valid = _valid_records(rng)
    read = refused = 0
    for _ in range(1500):
        data = _mutate(rng, rng.choice(valid))
        try:
            record = sgf.sgf_to_record(data)
        except ValueError as e:
            message = str(e)
            assert message and "\n" not in message and len(message) < 400, (data[:200], message[:400])
            refused += 1
            continue
        littlego.check_state(record.initial)
        n = record.initial.game.size
        assert all(isinstance(a, int) and 0 <= a <= n * n for a in record.actions)
        read += 1
    assert read > 100 and refused > 100  # both sides of the boundary are exercised
