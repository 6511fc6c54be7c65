"""The evaluation library behind the evaluation scripts: the Tic-Tac-Toe judgement by an agent's kind,
and the progress the long evaluations show on a terminal (and only there)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tictacgo.arena.progress import Progress
from tictacgo.evaluation import tictactoe_judge as judge_mod
from tictacgo.evaluation.progress import games_progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("spec", "kind", "audited", "opponents"), [
    ("ppo", "policy", ("ppo", "think3"), ("minimax", "random", "think3")),
    ("a2c:path=run/best_model.zip", "a2c", ("a2c:path=run/best_model.zip", "think3"),
     ("minimax", "random", "think3")),
    ("az:path=runs/ttt_az,sims=16", "az", ("az:path=runs/ttt_az,sims=0", "az:path=runs/ttt_az,sims=16"),
     ("minimax", "random")),
    ("az", "az", ("az:sims=0", "az"), ("minimax", "random")),
])
def test_the_plan_audits_a_learned_policy_beside_think3_and_alphazero_beside_its_raw_network(
        spec, kind, audited, opponents):
    plan = judge_mod.plan(spec, games=10, think3_games=3)
    assert (plan.kind, plan.audited) == (kind, audited)
    assert tuple(opp for opp, _ in plan.opponents) == opponents
    assert dict(plan.opponents)["minimax"] == 10 and dict(plan.opponents).get("think3", 3) == 3


def _results(minimax_losses: int = 0, random_losses: int = 0) -> dict:
    return {"minimax": {"first": (0, 10, minimax_losses), "second": (0, 10, 0)},
            "random": {"first": (9, 1, random_losses), "second": (8, 2, 0)}}


def test_each_kind_is_held_to_its_own_targets():
    good = {"a": {"all": 0.999, "unmasked argmax illegal": 0.001}, "b": {"all": 0.5}}
    assert judge_mod.missed_targets("az", good, ("a", "b"), _results()) == []
    assert judge_mod.missed_targets("az", {"a": {"all": 0.99}, "b": {}}, ("a", "b"), _results(1)) == [
        "raw network optimal 99.00% < 99.5%", "1 games lost to minimax"]
    # a2c: losses to random do not count, illegal favourites do
    assert judge_mod.missed_targets("a2c", good, ("a", "b"), _results(0, 3)) == []
    assert judge_mod.missed_targets("a2c", {"a": {"all": 0.9, "unmasked argmax illegal": 0.01}},
                                    ("a", "b"), _results()) == ["unmasked illegal 1.00% >= 0.5%"]
    # a learned policy: no loss at all, and 98% optimal moves
    assert judge_mod.missed_targets("policy", {"a": {"all": 0.97}}, ("a",), _results(0, 2)) == [
        "2 games lost", "optimal moves 97.00% < 98%"]


def test_minimax_judged_as_a_policy_is_optimal_everywhere_and_never_loses():
    out = judge_mod.judge("minimax", games=2, think3_games=1, seed=0, progress=False)
    assert out["positions"] == 4520 and out["rates"]["minimax"]["all"] == 1.0
    assert out["missed"] == []
    assert all(r[side][2] == 0 for r in out["results"].values() for side in ("first", "second"))


def test_a_seed_gives_the_same_matches_with_or_without_the_bar(monkeypatch):
    opponents = (("random", 4),)
    quiet = judge_mod.matches("think1", opponents, np.random.default_rng(3), progress=False)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    shown = judge_mod.matches("think1", opponents, np.random.default_rng(3), progress=True)
    assert quiet == shown


def test_the_matches_count_their_games_on_a_terminal(monkeypatch):
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    judge_mod.matches("think1", (("random", 2), ("think2", 1)), np.random.default_rng(0))
    assert "6/6" in err.getvalue() and "think1 matches" in err.getvalue()


def test_the_matches_write_nothing_into_a_pipe_or_file(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    judge_mod.matches("think1", (("random", 2),), np.random.default_rng(0))
    assert err.getvalue() == ""
    assert not games_progress(10, "games").enabled


def test_without_tqdm_the_progress_line_gives_the_count_the_time_and_an_estimate(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)   # import tqdm fails
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    bar = Progress(4, True, "matches", every=0.0)
    bar.update()
    bar.update()
    line = err.getvalue().splitlines()[-1]  # too few games for an estimate: the first holds start-up
    assert line.startswith("matches: 2/4 games (50%), ") and "left" not in line
    bar.update()
    line = err.getvalue().splitlines()[-1]
    assert line.startswith("matches: 3/4 games (75%), ") and line.endswith(" s left")


def test_judge_refuses_a_count_of_games_below_one():
    with pytest.raises(ValueError, match="must be positive, got 0 and 1"):
        judge_mod.judge("minimax", games=0, think3_games=1, seed=0)


# -- Little-Go ladder ------------------------------------------------------------------------------

def test_colour_rows_play_each_opponent_as_black_and_as_white_and_name_the_missed_targets():
    from tictacgo.evaluation.littlego_ladder import colour_rows

    rows, missed = colour_rows("random", [("greedy", 2)], seed=0, targets={"greedy": 1.0}, progress=False)
    (row,) = rows
    assert row["opponent"] == "greedy" and row["games"] == 2 and row["target"] == 1.0
    assert sum(row["black"]) == 2 and sum(row["white"]) == 2
    lost_colours = [c for c in ("black", "white") if row[c][0] < 2]
    assert [m.split(":")[0] for m in missed] == [f"greedy as {c.title()}" for c in lost_colours]
    again, _ = colour_rows("random", [("greedy", 2)], seed=0, targets={}, progress=False)
    assert again[0]["black"] == row["black"] and again[0]["white"] == row["white"]   # one seed, one table


def test_pairings_give_the_same_games_on_one_or_two_workers():
    from tictacgo.evaluation.littlego_ladder import pairings

    pairs = [("greedy", "random", "greedy", "random")]
    one = pairings(pairs, 4, seed=3, workers=1, progress=False)
    two = pairings(pairs, 4, seed=3, workers=2, progress=False)
    assert sorted(one[("greedy", "random")]) == sorted(two[("greedy", "random")])
    assert len(one[("greedy", "random")]) == 4


def test_the_summary_row_and_the_cross_rate_read_results_from_the_row_agents_view():
    from tictacgo.evaluation.littlego_ladder import cross_rate, rate_cell, summary_row

    row = summary_row("greedy", [1, 1, 0, -1])
    assert row.split()[:6] == ["greedy", "4", "2", "1", "1", "62.5%"]
    cross = {("a", "b"): [1, 1, -1, 0]}
    assert cross_rate(cross, "a", "b") == 0.625 and cross_rate(cross, "b", "a") == 0.375
    assert rate_cell(10, 10) == "100% [72%, 100%]"


# -- the endgame benchmark, and the scripts on a terminal and in a pipe -------------------------------

ROOT = Path(__file__).resolve().parents[1]
ENDGAMES = ROOT / "tests" / "data" / "littlego_endgames.npz"


def test_kept_counts_add_up_over_the_groups_of_a_seeded_subset():
    from tictacgo.evaluation.endgame_mistakes import count_kept, report_order, subset
    from tictacgo.solver.endgames import load_endgames

    endgames, _ = load_endgames(ENDGAMES)
    some = subset(endgames, 40, seed=0)
    assert len(some) == 40 and some == subset(endgames, 40, seed=0) and some != subset(endgames, 40, seed=1)
    counts = count_kept("greedy", some, seed=0, progress=False)
    assert counts["all"][1] == 40
    assert counts["Black"][1] + counts["White"][1] == 40
    assert sum(n for g, (_, n) in counts.items() if g.startswith("left")) == 40
    assert counts.get("decisive", [0, 0])[0] <= counts["all"][0]
    assert report_order(counts)[:1] == ["all"]


def test_an_evaluation_script_writes_no_progress_into_a_pipe():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "eval_mistakes.py"), "--agent", "random",
                           "--limit", "20"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "all" in done.stdout
    assert done.stderr == ""


def test_an_evaluation_script_shows_its_progress_on_a_terminal():
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, [str(ROOT / "scripts" / "eval_mistakes.py"), "--agent", "random",
                                           "--limit", "20"], timeout=120, encoding="utf-8")
    child.expect(pexpect.EOF)
    assert "20/20" in child.before and "random on the endgames" in child.before


# -- AlphaZero checkpoints against anchors ------------------------------------------------------------

def test_every_kth_checkpoint_is_rated_and_the_last_always(tmp_path):
    from tictacgo.evaluation.checkpoint_ratings import checkpoints

    for k in range(5):
        (tmp_path / "checkpoints" / f"{k:09d}").mkdir(parents=True)
        (tmp_path / "checkpoints" / f"{k:09d}" / "model.json").write_text("{}")
    assert [f.name for f in checkpoints(tmp_path, every=2)] == ["000000000", "000000002", "000000004"]
    assert [f.name for f in checkpoints(tmp_path, every=3)] == ["000000000", "000000003", "000000004"]
    with pytest.raises(ValueError, match="no checkpoints under"):
        checkpoints(tmp_path / "empty")


def test_a_checkpoint_is_rated_against_each_anchor_from_both_sides(tmp_path):
    pytest.importorskip("torch")
    from tictacgo.evaluation.checkpoint_ratings import rate

    entry = rate(ROOT / "baselines" / "models" / "tictactoe_az", "tictactoe", ["random"], games=1, sims=0,
                 seed=0, workers=1)
    assert entry["sims"] == 0 and entry["seconds"] > 0
    random_row = entry["anchors"]["random"]
    assert sum(random_row["as_first"]) == 1 and sum(random_row["as_second"]) == 1
    assert 0 <= random_row["score"] <= 1
