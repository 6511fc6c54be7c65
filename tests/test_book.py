"""The book of proved moves: built from checked certificates (or a frontier run), read with care, and
played by the ``solver`` agent before any search, perfectly where it covers the game."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="the solver agent and proof extraction need numba (the fast extra)")

from tictacgo.baselines import make_agent  # noqa: E402
from tictacgo.game_loop import play_game  # noqa: E402
from tictacgo.games import littlego  # noqa: E402
from tictacgo.proof import proof_file, verify  # noqa: E402
from tictacgo.proof.book import (  # noqa: E402
    Book,
    book_from_certificates,
    book_from_frontier,
    default_book,
    default_book_path,
    load_book,
    proof_book_path,
    row_key,
)
from tictacgo.proof.certificate import prove  # noqa: E402
from tictacgo.proof.checker import SETTLED  # noqa: E402
from tictacgo.proof.position_code import canonical  # noqa: E402
from tictacgo.proof.shipped_books import frontier_results  # noqa: E402
from tictacgo.solver import Solver, move_values  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FRONTIER = ROOT / "docs" / "data" / "solver_frontier_5x5.json"


@pytest.fixture(scope="module")
def book_3x3(tmp_path_factory):
    """A book of the 3x3 empty board's certificate (every line to the game's end), written to a file:
    (book, path)."""
    out = tmp_path_factory.mktemp("book")
    cert = prove(littlego.LittleGo(3).initial_state(), Solver(18), line=[], leaf_rules=()).write(
        out / "3x3.cert")
    book = book_from_certificates([cert])
    return book, book.write(out / "3x3.book")


def test_every_book_move_keeps_the_value_of_its_position(book_3x3):
    book, _ = book_3x3
    state, seen = littlego.LittleGo(3).initial_state(), 0
    # Walk every line of White's strategy: at each White position the book's move is among the best.
    stack = [state]
    while stack:
        state = stack.pop()
        hit = book.lookup(state)
        if state.to_move == littlego.WHITE:
            assert hit is not None
            values = move_values(state)
            assert values[hit[0]].value == max(r.value for r in values.values()) == hit[1] == 1
            seen += 1
            actions = [hit[0]]
        else:
            assert hit is None  # Black loses 3x3 whatever it plays: no proved-best move to keep
            actions = littlego.legal_actions(state)
        stack.extend(s for s in (littlego.play(state, a) for a in actions) if s.end is None)
    # The book holds the certificate's White positions (how many depends on which winning moves the
    # solver picked); the walk meets each of them at least once.
    assert seen >= len(book) > 0


def test_a_book_from_a_certificate_with_settled_leaves_holds_its_moves_and_skips_the_settled_rows(tmp_path):
    cert = prove(littlego.LittleGo(3).initial_state(), Solver(18), line=[], leaf_rules=("pass_bound",))
    path = cert.write(tmp_path / "3x3.cert")
    book = book_from_certificates([path])
    white = cert.strategies["white"]
    moves = {code: move for code, move in white.items() if move != SETTLED}
    assert cert.settled > 0 and len(book) == len(moves) == cert.rows - cert.settled
    for code in white:
        entry = book.entries.get(row_key(code))
        assert (entry is None) if white[code] == SETTLED else (entry[0] == moves[code] and entry[1] == 1)


def test_a_book_reads_back_as_it_was_written(book_3x3):
    book, path = book_3x3
    again = load_book(path)
    assert again.entries == book.entries and again.variant() == (3, 1.5, 8)
    assert "3x3.cert: white wins from the empty board, checked" in again.sources[0]


@pytest.mark.parametrize("colour", [littlego.BLACK, littlego.WHITE])
def test_the_solver_agent_plays_4x4_from_the_shipped_book_from_the_first_move_and_never_loses(colour):
    game = littlego.LittleGo(4)
    for seed in range(3):
        agent = make_agent("solver:fallback=random,max_left=0", game, rng=np.random.default_rng(seed))
        other = make_agent("random", game, rng=np.random.default_rng(100 + seed))
        state, from_book = game.initial_state(), []
        while state.end is None:
            if state.to_move == colour:
                state = littlego.play(state, agent.act(state))
                from_book.append(agent.last_book)
            else:
                state = littlego.play(state, other.act(state))
        assert all(from_book) and from_book  # max_left=0: no search; every move came from the book
        assert littlego.returns(state)[colour - 1] >= 0  # 4x4 is a draw: the book never loses it


def test_the_solver_agent_wins_3x3_as_white_from_a_book_file(book_3x3):
    _, path = book_3x3
    game = littlego.LittleGo(3)
    for seed in range(5):
        agent = make_agent(f"solver:book={path},fallback=random,max_left=0", game,
                           rng=np.random.default_rng(seed))
        result = play_game(game, make_agent("random", game, rng=np.random.default_rng(seed)), agent)
        assert result.winner == littlego.WHITE


def test_the_shipped_5x5_book_knows_the_winning_move_of_the_deepest_proved_position():
    run = json.loads(FRONTIER.read_text())
    game = littlego.LittleGo(5)
    state = game.initial_state()
    for move in run["line"][:5]:
        i, j = map(int, move.split(","))
        state = littlego.play(state, i * 5 + j)
    book = default_book(5, 2.5, 24)
    assert book is not None and book.lookup(state) == (2 * 5 + 1, 1)  # 2,1: White's only winning move
    agent = make_agent("solver:fallback=random", game, rng=np.random.default_rng(0))
    assert agent.act(state) == 11 and agent.last_book


def test_the_shipped_5x5_book_opens_with_the_centre_and_answers_every_reply_the_runs_refuted():
    game = littlego.LittleGo(5)
    book = default_book(5, 2.5, 24)
    assert book.lookup(game.initial_state()) == (12, 1)  # 2,2: the empty board is a Black win
    agent = make_agent("solver:fallback=random", game, rng=np.random.default_rng(0))
    assert agent.act(game.initial_state()) == 12 and agent.last_book
    centre = littlego.play(game.initial_state(), 12)
    for name in ("2-3", "2-4", "3-4", "4-4", "pass"):
        run = json.loads((ROOT / "docs" / "data" / "after_centre" / f"{name}.json").read_text())
        row = next(r for r in run["positions"] if r["taken"] == 2)
        state = littlego.play(centre, 25 if run["line"][1] == "PASS" else course_action(run["line"][1]))
        move, value = book.lookup(state)
        # the run's winning move or an image of it (the position after the reply may be symmetric)
        proved = littlego.play(state, 25 if row["best_move"] == "PASS" else course_action(row["best_move"]))
        assert value == 1 and canonical(littlego.play(state, move))[0] == canonical(proved)[0], name
    for reply in (1, 3, 5, 9, 15, 19, 21, 23):  # the eight knight's-move points: images of 3,4
        assert book.lookup(littlego.play(centre, reply))[1] == 1


def course_action(text: str) -> int:
    i, j = map(int, text.split(","))
    return i * 5 + j


def test_book_none_and_margin_true_play_without_the_book():
    game = littlego.LittleGo(3)
    state = littlego.play(game.initial_state(), 4)
    assert make_agent("solver:book=none", game).book is None
    agent = make_agent("solver:margin=true", game)
    agent.act(state)
    assert agent.book is not None and not agent.last_book and agent.last_exact


def test_a_frontier_run_adds_the_positions_it_proved_won_for_the_mover():
    book = book_from_frontier(FRONTIER)
    run = json.loads(FRONTIER.read_text())
    won = [p for p in run["positions"] if p["value_for_black"] == -1 and p["mover"] == "White"]
    assert len(book) == len(won) == 4 and "not checked by a certificate" in book.sources[0]


@pytest.mark.parametrize("field, bad, message", [
    ("line", ["2,2", "two,3"],
     r"not a frontier run's JSON .*: move 'two,3' is not i,j \(row and column from 0\) or PASS"),
    ("line", ["2,2", "5,0"], r"not a frontier run's JSON .*: move '5,0' is off the 5x5 board"),
    ("best_move", "9,9",
     r"position 0 of the run is not a frontier entry .*: move '9,9' is off the 5x5 board"),
])
def test_a_frontier_run_with_a_bad_move_is_refused_naming_the_file_and_the_move(
        tmp_path, field, bad, message):
    run = json.loads(FRONTIER.read_text())
    if field == "line":
        run["line"] = bad
    else:
        run["positions"][0]["best_move"] = bad
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: {message}$"):
        book_from_frontier(path)


def test_a_book_of_another_variant_is_refused_by_the_agent_naming_both(book_3x3):
    _, path = book_3x3
    with pytest.raises(ValueError, match=r"holds positions of \(3, 1.5, 8\) .* not of this game's "
                                         r"\(4, 2.0, 15\)"):
        make_agent(f"solver:book={path}", littlego.LittleGo(4))


def test_a_book_over_the_size_cap_or_with_a_bad_row_is_refused(book_3x3, tmp_path):
    _, path = book_3x3
    with pytest.raises(proof_file.ProofFileError, match="more than the 100 bytes"):
        load_book(path, max_bytes=100)
    header, tables = proof_file.read(path, "tictacgo-book", {**proof_file.COLUMNS, "value": np.int8})
    tables["book"]["value"][0] = 5
    bad = proof_file.write(tmp_path / "bad.book", header, tables)
    with pytest.raises(proof_file.ProofFileError, match="an outcome 0 or 1 .*outcome 5"):
        load_book(bad)
    with pytest.raises(proof_file.ProofFileError, match="format 'tictacgo-book', expected 'tictacgo-cert"):
        verify(path)


def test_a_book_move_the_rules_refuse_is_never_played():
    game = littlego.LittleGo(3)
    state = littlego.play(game.initial_state(), 4)
    book = Book(game)
    book.add(state, 4, 1)  # the centre is taken
    assert book.lookup(state) is None
    agent = make_agent("solver:fallback=random,book=none", game)
    agent.book = book
    assert agent.act(state) != 4 and not agent.last_book


def test_a_gtp_engine_with_the_solver_plays_the_books_move_on_4x4():
    import io

    from tictacgo.protocol.coords import vertex_to_action
    from tictacgo.protocol.gtp import GtpEngine

    engine = GtpEngine(lambda game: make_agent("solver:fallback=random,max_left=0", game), log=io.StringIO())
    assert engine.handle("boardsize 4") == "=\n\n"
    answer = engine.handle("genmove b")
    assert answer.startswith("= ") and engine.agent.last_book
    # On 4x4 only the four centre points keep the draw (docs/solver.md); the book plays one of them.
    assert vertex_to_action(answer[2:].strip(), 4) in (5, 6, 9, 10)


def test_the_shipped_books_are_the_moves_of_the_published_certificates_which_the_checker_accepts():
    certs = ROOT / "docs" / "data" / "certificates"
    book = book_from_certificates([certs / "littlego_3x3_empty.cert"])
    assert book.entries == default_book(3, 1.5, 8).entries
    book = book_from_certificates([certs / "littlego_5x5_after12.cert", certs / "littlego_5x5_after11.cert"])
    for path in frontier_results(ROOT / "docs" / "data"):  # the line's run, the six after 2,2, combined
        book = book_from_frontier(path, book)
    assert book.entries == load_book(default_book_path(littlego.LittleGo(5))).entries
    # the agents read it with the proof's book (tictacgo prove --book): every entry of the two is there
    merged = default_book(5, 2.5, 24)
    proof = load_book(proof_book_path(littlego.LittleGo(5)))
    assert set(merged.entries) == set(book.entries) | set(proof.entries)
    assert (certs / "littlego_4x4_empty.cert").is_file()  # its check takes a minute: docs/solver.md
