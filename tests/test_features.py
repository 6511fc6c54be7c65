"""The game's one feature encoder and its symmetries.

``game.encoder`` builds every observation the envs offer and the planes
AlphaZero's network reads, for one state and for a batched engine's games;
``game.symmetries()`` is the one list of board symmetries that Q-learning,
the solver and AlphaZero's augmentation use. Before the encoder and the
symmetries moved into the games, they were built in three places each; the
digests in tests/data/feature_digests.json were recorded from that code
(commit 596d787: ``envs/observations.py``, AlphaZero's ``features.py``,
``BatchedGame.relative_boards``, ``solver.search.symmetries``, the Q-learners'
own symmetry tables) on the positions built below, and the arrays of today's
code must hash the same.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from tictacgo.baselines import qlearning as Q
from tictacgo.baselines import qlearning_go_keys as QK
from tictacgo.envs import observations as O
from tictacgo.games import LittleGo, TicTacToe
from tictacgo.games import littlego as go
from tictacgo.games.batched_engines import make_batched_engine
from tictacgo.games.features import FeatureEncoder
from tictacgo.games.spec import GameSpec
from tictacgo.games.symmetry import board_symmetries, inverse, left_right_mirror, move_actions, move_boards
from tictacgo.solver.search import symmetries as solver_symmetries

RECORDED = json.loads((Path(__file__).parent / "data" / "feature_digests.json").read_text())


# -- the positions the digests were recorded on ----------------------------------------------

def ttt_positions() -> list:
    """Every position of Tic-Tac-Toe (finished ones too), in breadth-first order from the empty board."""
    game, seen, todo = TicTacToe(), {}, [TicTacToe().initial_state()]
    while todo:
        s = todo.pop(0)
        if (s.x, s.o) in seen:
            continue
        seen[(s.x, s.o)] = s
        if not game.is_terminal(s):
            todo += [game.play(s, a) for a in game.legal_actions(s)]
    return list(seen.values())


def go_positions(game: LittleGo, count: int, seed: int) -> list:
    """``count`` positions of random play (placements, a pass one time in ten), finished ones too."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial_state()
        for _ in range(int(rng.integers(0, game.max_actions + 1))):
            acts = game.legal_actions(s)
            places = [x for x in acts if x != game.pass_action] or acts
            a = int(rng.choice(acts)) if rng.random() < 0.1 else int(rng.choice(places))
            s = game.play(s, a)
            if game.is_terminal(s):
                break
        out.append(s)
    return out


def host_positions(host_games: list[dict]) -> list:
    """Every position of the 300 games recorded from the course's host, the final ones too."""
    game, out = LittleGo(), []
    for g in host_games:
        s = game.initial_state()
        for pos in g["positions"]:
            out.append(s)
            m = pos["action"]
            s = game.play(s, 25 if m == "PASS" else m[0] * 5 + m[1])
        out.append(s)
    return out


def _hash(a) -> bytes:
    a = np.asarray(a)
    d = hashlib.sha256(repr((a.shape, a.dtype.str)).encode())
    d.update(np.ascontiguousarray(a).tobytes())
    return d.digest()


def encoder_digest(game, states: list) -> str:
    """One hash of every observation format from every viewer and the network planes of each state,
    then of the network planes and the player-relative boards of the live ones on a batched engine."""
    enc, d = game.encoder, hashlib.sha256()
    for s in states:
        for fmt in O.FORMATS:
            for viewer in (None, 1, 2):
                d.update(_hash(enc.observe(s, fmt, viewer)))
        d.update(_hash(enc.from_state(s)))
    live = [s for s in states if not game.is_terminal(s)]
    eng = make_batched_engine(game, len(live))
    for i, s in enumerate(live):
        eng.set_state(i, s)
    rows, legal = np.arange(len(live)), eng.legal_mask()
    d.update(_hash(enc.from_engine(eng, rows, legal)))
    d.update(_hash(enc.from_engine(eng, rows[::3], legal[::3])))
    for colour in (1, 2, eng.to_move.copy()):
        d.update(_hash(enc.observe_batch(eng, "board", colour)))
    return d.hexdigest()


CASES = {
    "littlego 5x5": lambda: (LittleGo(), go_positions(LittleGo(), 400, 1)),
    "littlego 3x3": lambda: (LittleGo(3), go_positions(LittleGo(3), 200, 2)),
    "littlego 4x4 komi 0.5 limit 20": lambda: (LittleGo(4, komi=0.5, max_actions=20),
                                               go_positions(LittleGo(4, komi=0.5, max_actions=20), 200, 3)),
    "littlego 7x7": lambda: (LittleGo(7), go_positions(LittleGo(7), 150, 4)),
}


# -- the arrays are those of the code before the encoder moved into the games -------------------

def test_every_tictactoe_observation_and_network_plane_is_the_recorded_one():
    assert encoder_digest(TicTacToe(), ttt_positions()) == RECORDED["tictactoe all positions"]


@pytest.mark.parametrize("case", list(CASES))
def test_every_littlego_observation_and_network_plane_is_the_recorded_one(case):
    game, states = CASES[case]()
    assert encoder_digest(game, states) == RECORDED[case]


def test_the_observations_of_the_host_games_are_the_recorded_ones(host_games):
    assert encoder_digest(LittleGo(), host_positions(host_games)) == RECORDED["littlego host games"]


def test_the_env_functions_are_the_encoders():
    game = LittleGo()
    s = go_positions(game, 1, 9)[0]
    for fmt in O.FORMATS:
        np.testing.assert_array_equal(O.observe(game, s, fmt, 2), game.encoder.observe(s, fmt, 2))
        assert O.observation_space(game, fmt).shape == game.encoder.observation_shape(fmt)
    np.testing.assert_array_equal(O.relative_board(game, s), game.encoder.relative_board(s))
    np.testing.assert_array_equal(O.planes(game, s), game.encoder.observation_planes(s))


def test_batched_planes_are_the_planes_of_each_game():
    game = LittleGo()
    states = [s for s in go_positions(game, 30, 7) if not game.is_terminal(s)]
    eng = make_batched_engine(game, len(states))
    for i, s in enumerate(states):
        eng.set_state(i, s)
    for fmt in O.FORMATS:
        batch = game.encoder.observe_batch(eng, fmt, 1, games=np.arange(0, len(states), 2))
        single = np.stack([game.encoder.observe(s, fmt, 1) for s in states[::2]])
        np.testing.assert_array_equal(batch, single)
    with pytest.raises(ValueError, match="unknown observation format 'pixels'"):
        game.encoder.observe_batch(eng, "pixels")


def test_one_encoder_per_game_variant():
    assert LittleGo().encoder is LittleGo().encoder and TicTacToe().encoder is TicTacToe().encoder
    assert LittleGo(3).encoder is not LittleGo().encoder
    assert LittleGo(7).encoder.network_shape == (8, 7, 7) and TicTacToe().encoder.network_shape == (3, 3, 3)


# -- the symmetries ---------------------------------------------------------------------------

def test_the_solver_and_the_qlearners_keys_are_the_recorded_ones(host_games):
    assert _digest_of(solver_symmetries(n) for n in range(2, 10)) == RECORDED["solver symmetries"]
    d = hashlib.sha256()
    for s in ttt_positions():
        key, syms = Q.canonical(s)
        d.update(repr((key, [Q.canonical_action(syms, a) for a in range(9)])).encode())
    assert d.hexdigest() == RECORDED["qlearning keys"]
    d = hashlib.sha256()
    for s in go_positions(LittleGo(), 300, 5) + host_positions(host_games)[:2000]:
        if not go.is_terminal(s):
            d.update(repr((QK.canonical_board(s)[0], QK.action_keys(s, board_plies=25, scheme=1))).encode())
    assert d.hexdigest() == RECORDED["qlearning go keys"]


def _digest_of(arrays) -> str:
    d = hashlib.sha256()
    for a in arrays:
        d.update(repr((a.shape, a.dtype.str)).encode())
        d.update(np.ascontiguousarray(a).tobytes())
    return d.hexdigest()


@pytest.mark.parametrize("game", [TicTacToe(), LittleGo(), LittleGo(4)], ids=["tictactoe", "go5", "go4"])
def test_a_square_board_has_eight_symmetries_that_form_a_group(game):
    sym = game.symmetries()
    A = game.num_actions
    assert sym.shape == (8, A) and (sym[0] == np.arange(A)).all()
    assert all(sorted(row) == list(range(A)) for row in sym)                      # each a bijection
    assert len({tuple(row) for row in sym}) == 8                                  # all different
    images = {tuple(row) for row in sym}
    assert all(tuple(a[b]) in images for a in sym for b in sym)                   # closed under composition
    if game.pass_action is not None:
        assert (sym[:, game.pass_action] == game.pass_action).all()               # PASS stays


def test_symmetries_keep_neighbours_neighbours():
    n = 5
    sym = LittleGo(n).symmetries()
    for row in sym:
        for p in range(n * n):
            i, j = divmod(p, n)
            for q in (p + 1 if j + 1 < n else None, p + n if i + 1 < n else None):
                if q is not None:
                    (a, b), (c, d) = divmod(int(row[p]), n), divmod(int(row[q]), n)
                    assert abs(a - c) + abs(b - d) == 1


def test_a_rectangle_has_four_symmetries_and_gravity_keeps_only_the_mirror():
    sym = board_symmetries(4, 5, 20)
    assert sym.shape == (4, 20)
    board = np.arange(20).reshape(4, 5)
    moved = {tuple(move_boards(board, row).ravel()) for row in sym}
    assert moved == {tuple(b.ravel()) for b in (board, board[::-1, ::-1], board[:, ::-1], board[::-1, :])}
    mirror = left_right_mirror(4, 5, 20)
    assert mirror.shape == (2, 20)
    np.testing.assert_array_equal(move_boards(board, mirror[1]), board[:, ::-1])
    with pytest.raises(ValueError, match="a 4x5 board needs at least 20 actions, got 9"):
        board_symmetries(4, 5, 9)


def test_moving_boards_and_policies_agree_and_inverse_undoes():
    sym = LittleGo(5).symmetries()
    inv = inverse(sym)
    rng = np.random.default_rng(0)
    planes = rng.random((3, 2, 5, 5))
    policy = rng.random((3, 26))
    for s in range(8):
        moved_planes, moved_policy = move_boards(planes, sym[s]), move_actions(policy, sym[s])
        for p in range(25):  # a point's values land on its image, in planes and policies alike
            q = int(sym[s, p])
            np.testing.assert_array_equal(moved_planes[..., q // 5, q % 5], planes[..., p // 5, p % 5])
            assert (moved_policy[:, q] == policy[:, p]).all()
        assert (moved_policy[:, 25] == policy[:, 25]).all()
        np.testing.assert_array_equal(move_boards(moved_planes, inv[s]), planes)
        np.testing.assert_array_equal(move_actions(moved_policy, inv[s]), policy)


# -- a game whose board is not square -----------------------------------------------------------

class DropState(NamedTuple):
    first: int
    second: int
    to_move: int


class Drop:
    """A stand-in game on a 2x3 board: just enough of the interface for the encoder."""

    spec = GameSpec(name="drop", title="Drop", player_names=("A", "B"), agent_names=("a_0", "b_0"),
                    board_shape=(2, 3), num_actions=6, pass_action=None, komi=None, max_actions=None,
                    planes=("own", "opponent", "legal", "to_move"), captures=False, solvable=True,
                    pieces="marks")
    network_plane_names = ("own", "opponent")

    def current_player(self, s):
        return s.to_move

    def stone_bits(self, s):
        return s.first, s.second

    def legal_mask(self, s):
        return np.array([1, 0, 1, 0, 0, 0], np.int8)


def test_the_encoder_reads_a_board_that_is_not_square():
    enc = FeatureEncoder(Drop())
    s = DropState(first=0b000001, second=0b100000, to_move=2)
    np.testing.assert_array_equal(enc.observe(s, "board"), [[-1, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(enc.observe(s, "flat", viewer=1), [1, 0, 0, 0, 0, -1])
    planes = enc.observe(s, "planes")
    assert planes.shape == (4, 2, 3) and planes.dtype == np.float32
    np.testing.assert_array_equal(planes[2], [[1, 0, 1], [0, 0, 0]])   # legal: two points of the top row
    assert planes[3].max() == 0                                          # the second player moves
    assert enc.observe(s, "planes_hwc").shape == (2, 3, 4)
    assert [enc.format_for_shape(x) for x in ((6,), (2, 3), (4, 2, 3))] == ["flat", "board", "planes"]
    with pytest.raises(ValueError, match=r"fits no observation of drop on a 2x3 board"):
        enc.format_for_shape((3, 2))


def test_planes_the_encoder_cannot_build_are_refused_when_it_is_built():
    class Odd(Drop):
        spec = Drop.spec.__class__(**{**Drop.spec.__dict__, "planes": ("own", "liberties")})

    with pytest.raises(ValueError, match=r"drop declares unknown observation planes \['liberties'\]"):
        FeatureEncoder(Odd())

    class Columns(Drop):  # actions are the 3 columns, not the 6 points: no point-wise legal plane
        spec = Drop.spec.__class__(**{**Drop.spec.__dict__, "num_actions": 3})

    with pytest.raises(ValueError, match="'legal' plane, which needs an action per point"):
        FeatureEncoder(Columns())


@pytest.mark.parametrize("case", list(CASES))
def test_the_compiled_engines_network_planes_are_the_numpy_engines(case):
    pytest.importorskip("numba")
    game, states = CASES[case]()
    live = [s for s in states if not game.is_terminal(s)]
    engines = [game.batched(len(live), backend=b) for b in ("numba", "numpy")]
    for eng in engines:
        for i, s in enumerate(live):
            eng.set_state(i, s)
    rows = np.arange(len(live))[::-2]  # some games, out of order
    compiled, plain = (game.encoder.from_engine(e, rows, e.legal_mask()[rows]) for e in engines)
    assert compiled.dtype == plain.dtype == np.float32
    np.testing.assert_array_equal(compiled, plain)
