"""AlphaZero: planes, the batched search against a one-game reference, symmetries, saving, self-play."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tictacgo.baselines.audit import optimal_actions, reachable_positions  # noqa: E402
from tictacgo.baselines.learning.alphazero import search as S  # noqa: E402
from tictacgo.baselines.learning.alphazero.agent import AZAgent  # noqa: E402
from tictacgo.baselines.learning.alphazero.network import (  # noqa: E402
    Architecture,
    NetworkEvaluator,
    PolicyValueNet,
    add_numpy_export,
    load_model,
    save_model,
)
from tictacgo.baselines.learning.alphazero.numpy_net import (  # noqa: E402
    NumpyEvaluator,
    NumpyNet,
    export,
    load_numpy,
)
from tictacgo.baselines.learning.alphazero.replay import (  # noqa: E402
    ReplayBuffer,
    transform_action,
    transform_boards,
    transform_policy,
)
from tictacgo.baselines.learning.alphazero.selfplay import SearchConfig, SelfPlay  # noqa: E402
from tictacgo.baselines.learning.alphazero.train import AlphaZeroConfig, train  # noqa: E402
from tictacgo.baselines.registry import make_agent  # noqa: E402
from tictacgo.games import littlego as go  # noqa: E402
from tictacgo.games import make_game  # noqa: E402
from tictacgo.games import tictactoe as ttt  # noqa: E402
from tictacgo.games.base import Game  # noqa: E402
from tictacgo.games.batched_engines import make_batched_engine  # noqa: E402

TTT = ttt.TicTacToe()
GO5 = go.LittleGo()
GO3 = go.LittleGo(3)


# -- helpers ----------------------------------------------------------------------------------

def random_states(game: Game, count: int, seed: int) -> list:
    """``count`` live rules-core states reached by random play."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial_state()
        for _ in range(int(rng.integers(0, (game.spec.max_actions or 9)))):
            acts = game.legal_actions(s)
            pa = game.pass_action
            places = [a for a in acts if a != pa] or acts
            nxt = game.play(s, int(rng.choice(places)))
            if game.is_terminal(nxt):
                break
            s = nxt
        out.append(s)
    return out


def engine_of(game: Game, states: list):
    eng = make_batched_engine(game, len(states))
    for i, s in enumerate(states):
        eng.set_state(i, s)
    return eng


class TinyNet:
    """A deterministic stand-in for a network: linear logits and tanh value of the planes, row by row.

    Row by row, so that a batch and a single position give bit-identical numbers.
    """

    def __init__(self, game: Game, seed: int = 0):
        enc = game.encoder
        self.game, self.encoder = game, enc
        d = len(enc.network_planes) * enc.board_shape[0] * enc.board_shape[1]
        a = game.num_actions
        rng = np.random.default_rng(seed)
        self.wp = rng.normal(size=(a, d))
        self.wv = rng.normal(size=d) * 0.3

    def row(self, planes: np.ndarray) -> tuple[np.ndarray, float]:
        x = planes.astype(np.float64).ravel()
        return np.array([float(np.dot(w, x)) for w in self.wp]), float(np.tanh(np.dot(self.wv, x)))

    def __call__(self, engine, rows, legal):
        planes = self.encoder.from_engine(engine, rows, legal)
        outs = [self.row(p) for p in planes]
        return np.stack([o[0] for o in outs]), np.array([o[1] for o in outs])

    def of_state(self, state):
        return self.row(self.encoder.from_state(state))


class RefNode:
    def __init__(self, game, state, net: TinyNet):
        A = game.num_actions
        self.state = state
        self.children: dict[int, RefNode] = {}
        self.visits = 1
        self.legal = game.legal_mask(state).astype(bool)[None]
        self.terminal = game.is_terminal(state)
        if self.terminal:
            logits, value = np.zeros(A), game.returns(state)[game.current_player(state) - 1]
        else:
            logits, value = net.of_state(state)
        self.logits = S.masked_logits(logits[None], self.legal)
        self.raw = self.value = float(value)
        self.child_visits = np.zeros((1, A), np.int64)
        self.child_value = np.zeros((1, A))
        self.child_discount = np.zeros((1, A))

    def q(self):
        return self.child_discount * self.child_value

    def cq(self):
        return S.completed_q(np.array([self.raw]), self.q(), self.child_visits, S.softmax(self.logits),
                             self.legal)


def reference_search(game, state, net: TinyNet, sims: int, rule: str, noise: np.ndarray,
                     max_considered: int = 16):
    """A plain one-game search over rules-core states and node objects, with the same formulas.

    ``noise``: the root's Gumbel row (rule "gumbel") or its noisy prior (rule "puct").
    """
    root = RefNode(game, state, net)
    m = min(max_considered, int(root.legal.sum()))
    schedule = S.considered_visits(m, sims)
    for s in range(sims):
        node, path, depth = root, [], 0
        while not node.terminal:
            if rule == "gumbel" and depth == 0:
                score = S.gumbel_root_scores(np.array([schedule[s]]), noise[None], node.logits, node.cq(),
                                             node.child_visits, node.legal)
            elif rule == "gumbel":
                score = S.gumbel_interior_scores(node.logits, node.cq(), node.child_visits, node.legal)
            else:
                prior = noise[None] if depth == 0 else S.softmax(node.logits)
                score = S.puct_scores(node.q(), node.child_visits, np.array([node.visits]),
                                      np.array([node.value]), prior, node.legal)
            a = int(score.argmax())
            path.append((node, a))
            if a not in node.children:
                child = RefNode(game, game.play(node.state, a), net)
                node.children[a] = child
                same = game.current_player(child.state) == game.current_player(node.state)
                node.child_discount[0, a] = 1.0 if same else -1.0
                node = child
                break
            node = node.children[a]
            depth += 1
        else:
            node.visits += 1  # a finished game reached again
        v = node.value
        for parent, a in reversed(path):
            v = parent.child_discount[0, a] * v
            parent.value = (parent.value * parent.visits + v) / (parent.visits + 1)
            parent.visits += 1
            parent.child_value[0, a] = parent.children[a].value
            parent.child_visits[0, a] += 1
    return root


# -- planes -----------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", [TTT, GO5, GO3], ids=["tictactoe", "go5", "go3"])
def test_planes_from_the_engine_equal_planes_from_the_state(variant):
    states = random_states(variant, 300, seed=1)
    eng = engine_of(variant, states)
    enc = variant.encoder
    rows = np.arange(len(states))
    batch = enc.from_engine(eng, rows, eng.legal_mask())
    single = np.stack([enc.from_state(s) for s in states])
    assert batch.dtype == single.dtype == np.float32
    np.testing.assert_array_equal(batch, single)


def test_go_planes_are_from_the_movers_view_and_carry_the_ko_pass_and_clock():
    s = go.from_ascii("""
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .""", to_move=go.BLACK, previous="""
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . .""", t=10)
    p = GO5.encoder.from_state(s)
    planes = dict(zip(GO5.encoder.network_planes, p, strict=True))
    assert planes["own"][0, 1] == 1 and planes["opponent"][0, 2] == 1          # Black moves: own = Black
    assert planes["previous_own"][1, 2] == 1                                     # the stone White captured
    assert planes["legal"][1, 2] == 0                                            # the ko recapture
    assert planes["black_to_move"].min() == 1
    assert planes["actions_left"][0, 0] == pytest.approx((24 - 10) / 24)
    assert planes["opponent_passed"].max() == 0
    after = go.play(s, 20)  # Black at (4, 0); White to move
    pw = dict(zip(GO5.encoder.network_planes, GO5.encoder.from_state(after), strict=True))
    assert pw["own"][0, 2] == 1 and pw["opponent"][4, 0] == 1 and pw["black_to_move"].max() == 0


def test_search_tree_rows_hold_the_engine_state_exactly():
    states = random_states(GO5, 20, seed=3)
    eng = engine_of(GO5, states)
    tree = S.Tree(eng, 3)
    games = np.arange(20)
    tree.store(games, 2, eng)
    other = make_batched_engine(GO5, 20)
    tree.load(games, 2, other)
    assert all(other.state(i) == states[i] for i in games)


# -- the search -------------------------------------------------------------------------------

@pytest.mark.parametrize("variant,sims", [(TTT, 24), (GO5, 32), (GO3, 40)], ids=["tictactoe", "go5", "go3"])
def test_batched_gumbel_search_matches_the_one_game_reference(variant, sims):
    states = random_states(variant, 12, seed=5)
    net = TinyNet(variant, seed=2)
    out = S.gumbel_search(engine_of(variant, states), net, sims, np.random.default_rng(7), max_considered=8)
    gumbel = np.random.default_rng(7).gumbel(size=out.visits.shape)
    for i, s in enumerate(states):
        root = reference_search(variant, s, net, sims, "gumbel", gumbel[i], max_considered=8)
        np.testing.assert_array_equal(out.visits[i], root.child_visits[0])
        assert out.root_value[i] == pytest.approx(root.value, abs=1e-12)


@pytest.mark.parametrize("variant,sims", [(TTT, 24), (GO5, 32)], ids=["tictactoe", "go5"])
def test_batched_puct_search_matches_the_one_game_reference(variant, sims):
    states = random_states(variant, 12, seed=6)
    net = TinyNet(variant, seed=4)
    eng = engine_of(variant, states)
    out = S.puct_search(eng, net, sims, np.random.default_rng(9), dirichlet_alpha=0.5, temperature=0)
    legal = eng.legal_mask()
    logits, _ = net(eng, np.arange(len(states)), legal)
    noise = S.dirichlet_noise(np.random.default_rng(9), legal, 0.5)
    prior = 0.75 * S.softmax(S.masked_logits(logits, legal)) + 0.25 * noise
    for i, s in enumerate(states):
        root = reference_search(variant, s, net, sims, "puct", prior[i])
        np.testing.assert_array_equal(out.visits[i], root.child_visits[0])
        assert out.root_value[i] == pytest.approx(root.value, abs=1e-12)


def _ttt_value(state, memo: dict = {}) -> float:  # noqa: B006 -- a deliberate cache
    """The exact value of a Tic-Tac-Toe state from the view of its player to move."""
    key = (state.x, state.o)
    if key not in memo:
        if ttt.is_terminal(state):
            memo[key] = ttt.returns(state)[state.to_move - 1]
        else:
            memo[key] = max(-_ttt_value(ttt.play(state, a)) for a in ttt.legal_actions(state))
    return memo[key]


def _exact_evaluator(prior_seed: int):
    """Exact minimax values with an uninformative prior (fixed random logits per position)."""
    def evaluate(engine, rows, legal):
        states = [engine.state(int(i)) for i in rows]
        logits = [np.random.default_rng((prior_seed, s.x, s.o)).normal(size=9) for s in states]
        return np.stack(logits), np.array([_ttt_value(s) for s in states])

    return evaluate


def test_gumbel_improved_policy_puts_more_mass_on_optimal_moves_than_the_prior():
    positions = reachable_positions(ttt.TicTacToe())
    optimal = optimal_actions(ttt.TicTacToe(), positions)
    picked = [i for i, (s, best) in enumerate(zip(positions, optimal, strict=True))
              if len(best) < len(ttt.legal_actions(s))][::6]
    states = [positions[i] for i in picked]
    out = S.gumbel_search(engine_of(TTT, states), _exact_evaluator(0), 16, np.random.default_rng(0))
    mask = np.zeros_like(out.legal)
    for row, i in enumerate(picked):
        mask[row, list(optimal[i])] = True
    improved = (out.policy * mask).sum(-1)
    prior = (out.prior * mask).sum(-1)
    # Q is a mean over the subtree's visits, not a minimax value, so a few positions may lose
    # a little mass (6 of 3,191 over all of them at 16 simulations); almost all gain a lot.
    assert len(states) > 500
    assert (improved < prior).mean() < 0.01
    assert (improved > prior + 0.05).mean() > 0.95
    assert improved.mean() > prior.mean() + 0.4


@pytest.mark.parametrize("search", ["gumbel", "puct"])
def test_one_legal_move_gives_a_finite_policy_on_that_move(search):
    s = ttt.from_board([[1, 2, 1], [1, 2, 2], [2, 1, 0]])
    eng = engine_of(TTT, [s])
    out = SearchConfig(search, 8).run(eng, TinyNet(TTT), np.random.default_rng(0))
    for arr in (out.policy, out.prior, out.q, out.root_value):
        assert np.isfinite(arr).all()
    assert out.action[0] == 8 and out.policy[0, 8] == pytest.approx(1.0) and out.visits[0, 8] == 8


def _zero(engine, rows, legal):
    return np.zeros((len(rows), engine.num_actions)), np.zeros(len(rows))


@pytest.mark.parametrize("search", ["gumbel", "puct"])
def test_search_values_have_the_movers_sign_for_both_colours(search):
    config = SearchConfig(search, 64, gumbel_scale=0, dirichlet_fraction=0)
    # Tic-Tac-Toe, a value-free evaluator: each colour to move finds its immediate win.
    x_wins = ttt.from_board([[1, 1, 0], [2, 2, 0], [0, 0, 0]], to_move=ttt.X)       # X wins at 2
    o_wins = ttt.from_board([[1, 1, 0], [2, 2, 0], [1, 0, 0]], to_move=ttt.O)       # O wins at 5
    out = config.run(engine_of(TTT, [x_wins, o_wins]), _zero, np.random.default_rng(0), temperature=0)
    assert list(out.action) == [2, 5]
    assert out.q[0, 2] == 1.0 and out.q[1, 5] == 1.0 and (out.root_value > 0).all()
    # Exact values, each root action searched once (Gumbel's first round): every Q is the
    # action's exact value for the mover, whichever colour moves and whether it wins or loses.
    picked = {}
    for s in reachable_positions(ttt.TicTacToe()):
        picked.setdefault((s.to_move, _ttt_value(s)), s)
    for (_mover, v), s in picked.items():
        legal = ttt.legal_actions(s)
        out = SearchConfig("gumbel", len(legal), gumbel_scale=0).run(engine_of(TTT, [s]), _exact_evaluator(1),
                                                                    np.random.default_rng(0))
        assert out.raw_value[0] == v and (out.visits[0, legal] == 1).all()
        np.testing.assert_array_equal(out.q[0, legal], [-_ttt_value(ttt.play(s, a)) for a in legal])
    assert {m for m, _ in picked} == {ttt.X, ttt.O} and {v for _, v in picked} == {-1.0, 0.0, 1.0}
    # Little-Go 3x3, the last action of the game, stones against stones plus komi 1.5:
    # whatever the mover does, it loses (White first, then Black).
    white_loses = go.from_ascii("X X X\nX . .\n. O .", to_move=go.WHITE, komi=1.5, max_actions=8, t=7)
    black_loses = go.from_ascii("O O O\nO . .\n. X .", to_move=go.BLACK, komi=1.5, max_actions=9, t=8)
    for s in (white_loses, black_loses):
        out = config.run(engine_of(s.game, [s]), _zero, np.random.default_rng(0),
                         temperature=0)
        visited = out.visits[0] > 0
        assert visited.sum() > 1 and (out.q[0][visited] == -1.0).all()
        assert out.root_value[0] < -0.9


def test_gumbel_without_simulations_or_noise_plays_the_raw_networks_best_legal_move():
    states = random_states(GO5, 50, seed=8)
    eng = engine_of(GO5, states)
    net = TinyNet(GO5, seed=1)
    out = S.gumbel_search(eng, net, 0, np.random.default_rng(0), gumbel_scale=0)
    logits, _ = net(eng, np.arange(50), eng.legal_mask())
    np.testing.assert_array_equal(out.action, np.where(eng.legal_mask(), logits, -np.inf).argmax(-1))
    np.testing.assert_allclose(out.policy, out.prior)


def test_sequential_halving_schedule_matches_gumbel_muzero():
    assert S.considered_visits(4, 8) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert S.considered_visits(1, 3) == [0, 1, 2]
    sched = S.considered_visits(16, 32)
    assert len(sched) == 32 and sched[:16] == [0] * 16


def test_search_refuses_finished_roots_and_negative_budgets():
    eng = make_batched_engine(TTT, 2)
    with pytest.raises(ValueError, match="simulations"):
        S.gumbel_search(eng, _zero, -1, np.random.default_rng(0))
    eng.forfeit(np.array([True, False]))
    with pytest.raises(ValueError, match=r"games \[0\] are over"):
        S.gumbel_search(eng, _zero, 4, np.random.default_rng(0))


# -- symmetries and training positions --------------------------------------------------------

def test_symmetries_move_planes_and_policy_together_and_keep_pass():
    n = 5
    rng = np.random.default_rng(0)
    for sym in range(8):
        for a in rng.integers(0, n * n, size=5):
            planes = np.zeros((1, 2, n, n), np.float32)
            planes[0, 0].flat[a] = 1
            pol = np.zeros((1, n * n + 1), np.float32)
            pol[0, a] = 1
            tp, tpol = transform_boards(planes, sym), transform_policy(pol, sym, n)
            moved = transform_action(int(a), sym, n, n * n + 1)
            assert int(tp[0, 0].argmax()) == int(tpol[0].argmax()) == moved
        assert transform_action(n * n, sym, n, n * n + 1) == n * n
    # the eight are distinct and each is a bijection
    images = {tuple(transform_boards(np.arange(9).reshape(3, 3), s).ravel()) for s in range(8)}
    assert len(images) == 8 and all(sorted(im) == list(range(9)) for im in images)


def test_symmetric_positions_have_symmetric_planes():
    states = random_states(GO5, 40, seed=11)
    enc = GO5.encoder
    for s in states:
        for sym in (1, 5):
            board, prev = go.to_board(s), go.previous_board(s)
            t_board, t_prev = transform_boards(board, sym), transform_boards(prev, sym)
            moved = go.from_boards(t_board, s.to_move, t_prev, t=s.t)
            expected = transform_boards(enc.from_state(s), sym)
            np.testing.assert_array_equal(enc.from_state(moved), expected)


def test_replay_samples_keep_targets_with_their_position_under_symmetries():
    buf = ReplayBuffer(64, (3, 3, 3), 9)
    planes = np.zeros((9, 3, 3, 3), np.float32)
    policy = np.zeros((9, 9), np.float32)
    for a in range(9):
        planes[a, 0].flat[a] = 1      # the mover's stone at a
        policy[a, a] = 1              # the target: that same point
    buf.add(planes, policy, np.linspace(-1, 1, 9).astype(np.float32))
    batch = buf.sample(500, np.random.default_rng(0))
    own = batch["planes"][:, 0].reshape(500, 9).argmax(-1)
    assert (batch["policy"].argmax(-1) == own).all()
    # the value stays with its position: find the original by the stone's orbit
    orbit = {a: {transform_action(a, s, 3, 9) for s in range(8)} for a in range(9)}
    for p, v in zip(own, batch["value"], strict=True):
        assert any(p in orbit[a] and v == pytest.approx(np.linspace(-1, 1, 9)[a]) for a in range(9))


def test_self_play_targets_belong_to_the_player_to_move():
    sp = SelfPlay(TTT, TinyNet(TTT, seed=3), 1, SearchConfig("gumbel", 8), np.random.default_rng(0))
    games = 0
    while games < 20:
        pos = sp.step()
        if pos is None:
            continue
        games += 1
        x_moves = pos.planes[:, 2, 0, 0] == 1
        assert (x_moves == (pos.mover == ttt.X)).all()
        signed = pos.value * np.where(x_moves, 1, -1)      # X's result, seen from every position
        assert (signed == signed[0]).all()
        assert pos.value[-1] in (0.0, 1.0)                  # the last mover never loses Tic-Tac-Toe
        np.testing.assert_allclose(pos.policy.sum(-1), 1, rtol=1e-5)
        assert (pos.policy[pos.planes[:, :2].reshape(len(pos), 2, 9).any(1)] == 0).all()  # taken cells


# -- networks, saving, agents ------------------------------------------------------------------

def _tiny_net(variant: Game) -> PolicyValueNet:
    torch.manual_seed(0)
    return PolicyValueNet(Architecture.for_variant(variant, channels=8, blocks=1)).eval()


def test_saved_models_load_with_weights_only_and_give_the_same_outputs(tmp_path):
    net = _tiny_net(GO5)
    save_model(tmp_path / "m", net, GO5, {"seed": 0})
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    assert meta["variant"] == {"game": "littlego", "board_size": 5, "komi": 2.5, "max_actions": 24}
    assert meta["architecture"]["channels"] == 8 and meta["info"] == {"seed": 0}
    raw = (tmp_path / "m" / "model.pt").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == meta["weights_sha256"]
    npz = (tmp_path / "m" / "model.npz").read_bytes()
    assert hashlib.sha256(npz).hexdigest() == meta["numpy_sha256"]
    torch.load(tmp_path / "m" / "model.pt", weights_only=True)  # plain tensors only
    loaded, variant, _ = load_model(tmp_path / "m")
    assert variant == GO5
    x = torch.rand(4, 8, 5, 5)
    with torch.inference_mode():
        for a, b in zip(net(x)[:2], loaded(x)[:2], strict=True):
            torch.testing.assert_close(a, b)


def test_a_model_whose_weights_do_not_match_its_json_is_refused(tmp_path):
    save_model(tmp_path / "m", _tiny_net(TTT), TTT)
    (tmp_path / "m" / "model.pt").write_bytes(b"not these")
    with pytest.raises(ValueError, match="not the weights"):
        load_model(tmp_path / "m")
    with pytest.raises(ValueError, match="no AlphaZero model"):
        load_model(tmp_path / "missing")
    (tmp_path / "m" / "model.npz").write_bytes(b"nor these")
    with pytest.raises(ValueError, match="not the weights"):
        load_numpy(tmp_path / "m")


def test_add_numpy_export_gives_a_model_saved_without_one_the_export_save_model_writes(tmp_path):
    save_model(tmp_path / "m", _tiny_net(TTT), TTT)
    written = (tmp_path / "m" / "model.npz").read_bytes()
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    (tmp_path / "m" / "model.npz").unlink()
    del meta["numpy_sha256"]
    (tmp_path / "m" / "model.json").write_text(json.dumps(meta))
    add_numpy_export(tmp_path / "m")
    assert (tmp_path / "m" / "model.npz").read_bytes() == written
    load_numpy(tmp_path / "m")  # its checksum is in model.json again


@pytest.mark.parametrize("variant", [TTT, GO5], ids=["tictactoe", "go5"])
def test_the_numpy_forward_pass_matches_torch(variant):
    net = _net_with_moved_batch_norms(variant)
    enc = variant.encoder
    planes = np.stack([enc.from_state(s) for s in random_states(variant, 50, 2)])
    with torch.inference_mode():
        logits, value, _ = net(torch.from_numpy(planes))
    np_logits, np_value = NumpyNet(export(net), 2)(planes)
    np.testing.assert_allclose(np_logits, logits.numpy(), atol=2e-5, rtol=1e-4)
    np.testing.assert_allclose(np_value, value.numpy(), atol=2e-5, rtol=1e-4)


def _net_with_moved_batch_norms(variant: Game) -> PolicyValueNet:
    torch.manual_seed(1)
    net = PolicyValueNet(Architecture.for_variant(variant, channels=16, blocks=2))
    net.train()
    with torch.no_grad():  # move the batch norms' running statistics away from their start
        for _ in range(3):
            net(torch.rand(64, net.arch.in_planes, net.arch.board, net.arch.board) * 2)
    return net.eval()


@pytest.mark.parametrize("variant", [TTT, GO5], ids=["tictactoe", "littlego"])
def test_inference_with_batch_norms_folded_matches_the_eval_forward_pass(variant):
    net = _net_with_moved_batch_norms(variant)
    enc = variant.encoder
    planes = np.stack([enc.from_state(s) for s in random_states(variant, 50, 3)])
    with torch.inference_mode():
        logits, value, _ = net(torch.from_numpy(planes))
        folded_logits, folded_value = net.inference(torch.from_numpy(planes))
    torch.testing.assert_close(folded_logits, logits, atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(folded_value, value, atol=2e-5, rtol=1e-4)
    # the evaluator the search calls gives the same numbers, and follows the weights when they change
    evaluator = NetworkEvaluator(net, variant)
    np.testing.assert_allclose(evaluator.evaluate_planes(planes)[0], logits.numpy(), atol=2e-5, rtol=1e-4)
    with torch.no_grad():
        net.stem[0].weight.mul_(2.0)  # an edit by hand: the evaluator is told
        logits2, _, _ = net(torch.from_numpy(planes))
    evaluator.weights_changed()
    assert not torch.allclose(logits2, logits, atol=1e-3)
    np.testing.assert_allclose(evaluator.evaluate_planes(planes)[0], logits2.numpy(), atol=2e-5, rtol=1e-4)


@pytest.mark.parametrize("onednn_trunk", [True, False], ids=["onednn", "conv2d"])
def test_a_bfloat16_evaluator_stays_close_to_float32_and_follows_the_weights(onednn_trunk, monkeypatch):
    from tictacgo.baselines.learning.alphazero import onednn

    if not onednn_trunk:
        monkeypatch.setattr(onednn, "available", lambda device: False)
    net = _net_with_moved_batch_norms(GO5)
    enc = GO5.encoder
    planes = np.stack([enc.from_state(s) for s in random_states(GO5, 50, 4)])
    bf16 = NetworkEvaluator(net, GO5, precision="bfloat16")
    for _ in range(2):  # the second time after a change of the weights, which the evaluator must see
        logits32, value32 = NetworkEvaluator(net, GO5).evaluate_planes(planes)
        logits16, value16 = bf16.evaluate_planes(planes)
        assert logits16.dtype == np.float64 and value16.shape == value32.shape
        # bfloat16 keeps 8 bits of mantissa: outputs agree to a few hundredths, not to float32's rounding
        np.testing.assert_allclose(logits16, logits32, atol=0.05)
        np.testing.assert_allclose(value16, value32, atol=0.05)
        with torch.no_grad():
            net.trunk[0].c1.weight.mul_(-3.0)
        bf16.weights_changed()  # an edit by hand: the evaluator is told


def test_the_float32_evaluators_prepacked_trunk_gives_conv2ds_numbers(monkeypatch):
    from tictacgo.baselines.learning.alphazero import onednn

    if not onednn.available(torch.device("cpu")):
        pytest.skip("this torch has no oneDNN convolutions")
    net = _net_with_moved_batch_norms(GO5)
    planes = np.stack([GO5.encoder.from_state(s) for s in random_states(GO5, 50, 5)])
    packed = NetworkEvaluator(net, GO5)
    assert packed._use_onednn
    logits, values = packed.evaluate_planes(planes)
    assert packed._packed is not None and packed._packed[0].dtype == torch.float32
    monkeypatch.setattr(onednn, "available", lambda device: False)
    plain = NetworkEvaluator(net, GO5)
    assert not plain._use_onednn
    plain_logits, plain_values = plain.evaluate_planes(planes)
    np.testing.assert_allclose(logits, plain_logits, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(values, plain_values, atol=1e-5, rtol=1e-5)


def test_a_bad_precision_is_refused():
    with pytest.raises(ValueError, match="precision must be one of"):
        NetworkEvaluator(_net_with_moved_batch_norms(GO5), GO5, precision="float16")


def test_the_shipped_tictactoe_model_plays_without_importing_torch():
    import subprocess
    import sys

    code = ("import sys\n"
            "from tictacgo.baselines.registry import make_agent\n"
            "from tictacgo.games import tictactoe as ttt\n"
            "a = make_agent('az:sims=8', 'tictactoe')\n"
            "s = ttt.play(ttt.TicTacToe().initial_state(), 0)\n"
            "print(a.act(s), 'torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         check=True)
    action, torch_loaded = out.stdout.split()
    assert action == "4" and torch_loaded == "False"  # the centre: the only reply that keeps the draw


def test_az_never_plays_an_illegal_move_on_any_tictactoe_position(tmp_path):
    save_model(tmp_path / "m", _tiny_net(TTT), TTT)
    raw = make_agent(f"az:path={tmp_path / 'm'},sims=0", "tictactoe", rng=np.random.default_rng(0))
    searched = make_agent(f"az:path={tmp_path / 'm'},sims=4", "tictactoe", rng=np.random.default_rng(0))
    positions = reachable_positions(ttt.TicTacToe())
    assert len(positions) == 4520
    for i, s in enumerate(positions):
        assert ttt.legal_bits(s) >> raw.act(s) & 1
        if i % 10 == 0:
            assert ttt.legal_bits(s) >> searched.act(s) & 1


def test_az_never_plays_an_illegal_move_on_random_go_positions(tmp_path):
    save_model(tmp_path / "m", _tiny_net(GO5), GO5)
    agent = make_agent(f"az:path={tmp_path / 'm'},sims=0", "littlego", rng=np.random.default_rng(0))
    states = random_states(GO5, 2000, seed=12)
    for s in states:
        assert go.legal_bits(s) >> agent.act(s) & 1
    evaluator = NumpyEvaluator(NumpyNet(export(_tiny_net(GO5)), 1), GO5)
    out = S.gumbel_search(engine_of(GO5, states), evaluator, 8, np.random.default_rng(0))
    assert out.legal[np.arange(len(states)), out.action].all()


def test_az_refuses_a_position_of_another_variant(tmp_path):
    save_model(tmp_path / "m", _tiny_net(GO5), GO5)
    agent = make_agent(f"az:path={tmp_path / 'm'},sims=2", "littlego")
    with pytest.raises(ValueError, match="trained for littlego 5x5"):
        agent.act(go.LittleGo(3).initial_state())
    with pytest.raises(ValueError, match="does not play|plays littlego"):
        AZAgent(ttt.TicTacToe(), NetworkEvaluator(_tiny_net(GO5), GO5), GO5)


# -- training ------------------------------------------------------------------------------------

@pytest.mark.parametrize("game,size", [("tictactoe", None), ("littlego", 3)])
def test_a_tiny_self_play_run_trains_saves_and_resumes(tmp_path, game, size):
    cfg = AlphaZeroConfig(game=game, board_size=size, out=str(tmp_path / "run"), channels=8, blocks=1,
                          num_games=16, simulations=4, batch_size=32, min_buffer=32, max_positions=16 * 12,
                          max_seconds=0, checkpoint_every=1e9, progress=False, tensorboard=False,
                          buffer_size=2000, ownership_weight=0.5 if game == "littlego" else 0.0)
    first = train(cfg, log=lambda *_: None)
    assert first["positions"] == 16 * 12 and first["games"] > 0 and first["gradient_steps"] > 0
    net, variant, meta = load_model(tmp_path / "run")
    assert variant == make_game(game, size=size) and meta["info"]["positions"] == 16 * 12
    cfg.resume, cfg.max_positions = True, 16 * 20
    second = train(cfg, log=lambda *_: None)
    assert second["positions"] == 16 * 20 and second["gradient_steps"] > first["gradient_steps"]
    assert len(second["checkpoints"]) == 2
    agent = make_agent(f"az:path={tmp_path / 'run'},sims=4", variant)
    s = variant.initial_state()
    assert variant.legal_bits(s) >> agent.act(s) & 1


def test_training_options_are_the_config_fields_with_their_documentation():
    import argparse

    from tictacgo.cli.train_alphazero import add_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["littlego", "--board-size", "3", "--simulations", "8",
                              "--no-augment", "--max-seconds", "10"])
    cfg = config_from_args(args)
    assert (cfg.game, cfg.board_size, cfg.simulations, cfg.augment, cfg.max_seconds) == ("littlego", 3, 8,
                                                                                         False, 10.0)
    assert "Simulations per self-play move." in parser.format_help()
    with pytest.raises(ValueError, match="never stops"):
        config_from_args(parser.parse_args(["tictactoe", "--max-seconds", "0"]))


def test_tictacgo_train_with_algo_alphazero_trains_and_saves_a_network(tmp_path, capsys):
    from tictacgo.cli import main

    out = tmp_path / "az"
    status = main(["train", "tictactoe", "--algo", "alphazero", "--max-seconds", "2", "--out", str(out),
                   "--num-games", "8", "--channels", "8", "--blocks", "1", "--min-buffer", "50",
                   "--no-progress", "--no-tensorboard"])
    assert status == 0
    assert (out / "model.json").is_file() and (out / "model.pt").is_file()
    assert main(["train", "tictactoe", "--algo", "alphazero", "--max-seconds", "0"]) == 2
    assert "never stops" in capsys.readouterr().err
