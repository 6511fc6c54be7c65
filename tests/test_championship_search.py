"""The championship player's compiled search gives the recorded results, node for node.

``tests/data/championship_search_reference.json`` holds what the search gave on
300 seeded positions (3x3 to 7x7 boards, several evaluation weights and
quiescence depths, node limits that cut iterations short): for each iteration
of an iterative deepening, the best action's index, its value, how many root
actions were searched, the positions seen and a digest of the root values; at
the end a digest of the transposition table, killers and history. It was
written by the recursive search (before it became an iterative one with an
explicit stack, so numba can cache it) and must not change when the kernels
are rewritten: the same moves, values, node counts and table contents.
Regenerate it only when a change of the search is intended (and say so):

    python tests/test_championship_search.py --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the championship player needs numba (the fast extra)")

from tictacgo.baselines.exact import championship_search as S  # noqa: E402
from tictacgo.baselines.exact.championship import SearchTables  # noqa: E402
from tictacgo.games import littlego as go  # noqa: E402
from tictacgo.solver.search import actions_left, kernel_position  # noqa: E402

REFERENCE = Path(__file__).resolve().parent / "data" / "championship_search_reference.json"
CASES = 300
WEIGHTS = ((80, 80, 15, 10, 0, 0, 100), (50, 100, 20, 15, 10, 0, 60), (120, 60, 30, 5, 40, 25, 0),
           (0, 0, 0, 0, 0, 0, 0))


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def case(index: int) -> dict:
    """The ``index``-th seeded search: a random position and the search's settings."""
    rng = np.random.default_rng([0xC5, index])
    size = int(rng.choice([3, 4, 5, 5, 5, 5, 6, 7]))
    game = go.LittleGo(size)
    state = game.initial_state()
    plies = int(rng.integers(0, game.max_actions - 1))
    for _ in range(plies):
        moves = go.legal_actions(state)
        # passes now and then, but not so often that games end early
        placements = [a for a in moves if a != size * size] or moves
        state = go.play(state, int(rng.choice(placements if rng.random() < 0.95 else moves)))
        if game.is_terminal(state):
            break
    if game.is_terminal(state):  # step back to a live position: replay one action fewer
        return case(index + 1000)
    return {"size": size, "state": state, "weights": WEIGHTS[int(rng.integers(len(WEIGHTS)))],
            "qdepth": int(rng.choice([0, 1, 3, 6, 6])), "max_depth": int(rng.integers(1, 10)),
            "nodes": int(rng.choice([50, 300, 2_000, 20_000, 200_000])),
            "table_bits": int(rng.choice([8, 12, 16]))}


def trace(c: dict) -> dict:
    """Iterative deepening as the agent runs it, with a node limit a move; what each iteration gave."""
    state, game = c["state"], c["state"].game
    tb = SearchTables(game, c["table_bits"])
    # the weights recorded, and 0 for any added since (an added term is off at 0)
    weights = np.zeros(len(S.DEFAULT_WEIGHTS), np.int64)
    weights[:len(c["weights"])] = c["weights"]
    komi100 = int(round(game.komi * S.SCALE))
    pos = kernel_position(state)
    tb.new_move()
    actions = np.array(go.legal_actions(state), dtype=np.int64)
    values = np.zeros(len(actions), np.int64)
    ctx = S.make_context(tb.geo, tb.nb, weights, tb.zs, tb.zk, tb.zt, tb.zpass, tb.tt, tb.killers, tb.hist,
                         tb.moves, tb.stats, komi100, c["qdepth"])
    iterations, spent = [], 0
    for depth in range(1, min(c["max_depth"], actions_left(state)) + 1):
        budget = c["nodes"] - spent
        if budget <= 0:
            break
        tb.stats[:] = (0, budget, 0, S.NO_CLOCK)
        i, value, done = S.search_root(pos.own, pos.opp, pos.black, pos.t, pos.last_pass, pos.ko, actions,
                                       depth, ctx, values)
        nodes = int(tb.stats[S.S_NODES])
        spent += nodes
        iterations.append([depth, int(i), int(value), int(done), nodes, int(tb.stats[S.S_ABORT]),
                           _digest(actions, values)])
        if tb.stats[S.S_ABORT]:
            break
        order = np.argsort(-values, kind="stable")
        order = np.concatenate(([i], order[order != i]))
        actions, values = actions[order], values[order]
    return {"iterations": iterations, "tables": _digest(*tb.tt, tb.killers, tb.hist)}


def record() -> list[dict]:
    out = []
    for k in range(CASES):
        c = case(k)
        s = c["state"]
        out.append({"case": k, "size": c["size"], "t": int(s.t), "board": go.render_ascii(s).splitlines(),
                    **{key: c[key] for key in ("weights", "qdepth", "max_depth", "nodes", "table_bits")},
                    **trace(c)})
    return out


@pytest.fixture(scope="module")
def reference():
    return json.loads(REFERENCE.read_text())


def test_the_reference_covers_aborts_proofs_and_every_board_size(reference):
    assert len(reference) == CASES
    iterations = [it for r in reference for it in r["iterations"]]
    assert any(it[5] for it in iterations) and any(not it[5] for it in iterations)  # cut short, and not
    assert any(abs(it[2]) >= S.WIN // 2 for it in iterations)  # proved results
    assert {r["size"] for r in reference} == {3, 4, 5, 6, 7}
    assert max(it[4] for it in iterations) > 10_000


@pytest.mark.parametrize("chunk", range(6))
def test_the_search_gives_the_recorded_moves_values_nodes_and_tables(reference, chunk):
    for r in reference[chunk::6]:
        c = case(r["case"])
        assert go.render_ascii(c["state"]).splitlines() == r["board"]
        got = trace(c)
        assert got["iterations"] == r["iterations"], (r["case"], r["board"])
        assert got["tables"] == r["tables"], r["case"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {REFERENCE}")
    args = parser.parse_args()
    data = record()
    if args.write:
        REFERENCE.write_text("[\n" + ",\n".join(json.dumps(r, separators=(",", ":")) for r in data) + "\n]\n")
        print(f"wrote {len(data)} cases to {REFERENCE}")
    else:
        print(json.dumps(data[:3], indent=1))


def test_the_evaluation_is_linear_in_its_weights_as_the_weights_fit_assumes():
    # championship_fit reads each weight's term as the evaluation under a unit weight less the evaluation
    # under none, and fits the weights by least squares on those terms
    from tictacgo.baselines.exact.championship_fit import terms
    from tictacgo.solver.search import board_tables

    geo = board_tables(5, 24).geo
    rng = np.random.default_rng(7)
    for k in range(40):
        c = case(k)
        if c["size"] != 5:
            continue
        pos = kernel_position(c["state"])
        base, t = terms(pos, geo, 250)
        w = rng.integers(-300, 300, len(S.DEFAULT_WEIGHTS))
        assert S.evaluate(pos.own, pos.opp, pos.black, pos.t, 250, geo, w) == base + int(np.dot(w, t))


def test_the_fit_recovers_weights_that_explain_the_margins_exactly():
    from tictacgo.baselines.exact.championship_fit import fit_rows

    rng = np.random.default_rng(3)
    truth = np.array([117, 225, 71, -89, 43, -11, 2, 58])
    x = rng.integers(-5, 6, (200, len(truth)))
    base = rng.integers(-500, 500, 200)
    rows = np.zeros((200, 7 + len(truth)), np.int64)
    rows[:, 6], rows[:, 7:] = base, x
    rows[:, 5] = base + x @ truth
    assert fit_rows(rows) == tuple(truth)


def test_the_fit_reads_game_records_with_the_bounded_reader_and_names_a_bad_file(tmp_path):
    from tictacgo.baselines.exact.championship_fit import game_moves

    good = tmp_path / "good.json"
    good.write_text(json.dumps({"games": [{"moves": [12, 7]}, {"record": {"moves": [6]}}, {"moves": []}]}))
    assert game_moves([str(good)]) == [[12, 7], [6]]
    for text, message in [("[1, 2]", "expected a JSON object whose 'games' is a list"),
                          ('{"games": [{"moves": [1, "2"]}]}', "game 0's moves must be a list of action"),
                          ("{nope", "not JSON"), ("[" * 100000, "nest")]:
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        with pytest.raises(ValueError, match=message) as caught:
            game_moves([str(good), str(bad)])
        assert str(bad) in str(caught.value)

def test_the_weights_fit_labels_recorded_games_and_a_refit_of_its_saved_positions_gives_the_same_weights(
        tmp_path):
    import ast
    import subprocess
    import sys

    from tictacgo.baselines import make_agent
    from tictacgo.game_loop import play_game

    game = go.LittleGo(5)
    games = [play_game(game, make_agent("greedy", game), make_agent("random", game),
                       rng=np.random.default_rng(seed)).moves for seed in range(3)]
    records = tmp_path / "games.json"
    records.write_text(json.dumps({"games": [{"moves": m} for m in games]}))
    script = Path(__file__).resolve().parents[1] / "scripts" / "fit_championship_weights.py"

    def weights(*options: str) -> tuple[int, ...]:
        done = subprocess.run([sys.executable, str(script), *options], capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr
        line = next(x for x in done.stdout.splitlines() if x.startswith("DEFAULT_WEIGHTS = "))
        return ast.literal_eval(line.split("=", 1)[1].strip())

    saved = tmp_path / "fit.npz"
    fitted = weights("--records", str(records), "--positions", "30", "--lefts", "8,9,10",
                     "--save", str(saved))
    assert len(fitted) == len(S.DEFAULT_WEIGHTS)
    with np.load(saved, allow_pickle=False) as z:
        rows = z["rows"]
    assert rows.shape == (30, 7 + len(S.DEFAULT_WEIGHTS))
    # positions with the actions to go asked for, labelled by a final margin: whole stones and komi's half
    assert set(rows[:, 4]) <= {8, 9, 10}
    assert all(abs(int(m)) % 100 == 50 for m in rows[:, 5])
    assert weights("--load", str(saved)) == fitted
