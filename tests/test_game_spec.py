"""Each rules core declares its facts (GameSpec) and offers the one Game interface;
code outside tictacgo/games asks the spec instead of testing which game it holds."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tictacgo.games import Game, GameSpec, littlego, tictactoe

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("game", [tictactoe.TicTacToe(), littlego.LittleGo()], ids=["tictactoe", "littlego"])
def test_every_rules_module_satisfies_the_game_interface(game):
    assert isinstance(game, Game)
    spec = game.spec
    assert isinstance(spec, GameSpec)
    assert spec.num_actions == game.num_actions == len(game.legal_mask(game.initial_state()))
    assert spec.pass_action == game.pass_action
    assert spec.num_planes == len(spec.planes)


def test_the_spec_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        tictactoe.SPEC.name = "chess"


def test_tic_tac_toe_declares_a_3x3_board_without_pass_or_score():
    spec = tictactoe.TicTacToe().spec
    assert (spec.name, spec.board_shape, spec.num_actions) == ("tictactoe", (3, 3), 9)
    assert spec.pass_action is None and spec.komi is None and spec.max_actions is None
    assert spec.player_names == ("X", "O") and spec.agent_names == ("player_1", "player_2")
    assert spec.solvable and not spec.captures
    assert spec.planes == ("own", "opponent", "legal", "to_move")


def test_little_go_declares_the_course_game_and_follows_the_board_size():
    spec = littlego.LittleGo().spec
    assert (spec.board_shape, spec.num_actions, spec.pass_action) == ((5, 5), 26, 25)
    assert (spec.komi, spec.max_actions) == (2.5, 24)
    assert spec.captures and not spec.solvable
    assert spec.planes == ("own", "opponent", "legal", "ko", "actions_left", "to_move")
    big = littlego.LittleGo(size=7, komi=3.5).spec
    assert (big.board_shape, big.num_actions, big.pass_action, big.komi, big.max_actions) == \
        ((7, 7), 50, 49, 3.5, 48)


def test_ko_bits_are_the_points_only_the_ko_rule_forbids():
    s = littlego.from_ascii("""
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
    """, to_move=1, previous="""
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . .
    """)
    assert littlego.ko_bits(s) == 1 << (1 * 5 + 2)
    assert littlego.ko_bits(littlego.LittleGo().initial_state()) == 0
    assert tictactoe.ko_bits(tictactoe.TicTacToe().initial_state()) == 0


# Patterns of "which game is this?" tests: a name compared, a game-specific
# attribute probed, a module compared by identity; a proxy for the game tested
# (how its pieces are drawn, whether it captures) to choose code; a hard-coded
# list of the games. (The vector env's old "is there a pass?" proxy looks like
# any honest question about the pass; tests/games/test_connect_three.py runs
# its greedy opponent on a game with neither pass nor captures instead.)
NAME_CHECKS = re.compile(
    r"""\.NAME\b|["']NAME["']|["']geo["']|hasattr\([^)]*["'](geo|x|o|black|white)["']|==\s*["'](littlego|tictactoe)["']"""
    r"""|[!=]=\s*["'](littlego|tictactoe)["']|["'](littlego|tictactoe)["']\s*[!=]=|\bis\s+(littlego|tictactoe|ttt|go)\b"""
    r"""|\bpieces\s*[!=]=|[!=]=\s*["'](stones|marks)["']"""
    r"""|\bcaptures\s+else\b|\bif\s+[\w.]*\bcaptures\b(?!\s*[=(])"""
    r"""|(?<!games=)[(\[]\s*["'](tictactoe|littlego)["']\s*,\s*["'](tictactoe|littlego)["']\s*[)\]]""")


def offending_lines(folders=("tictacgo", "envs", "wrappers", "baselines", "scripts")) -> list[str]:
    """Lines outside tictacgo/games that test which game they hold (``NAME_CHECKS``)."""
    offenders = []
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            if (ROOT / "tictacgo" / "games") in path.parents:
                continue
            for k, line in enumerate(path.read_text().splitlines(), 1):
                if NAME_CHECKS.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
    return offenders


def test_no_code_outside_the_games_package_tests_which_game_it_holds():
    offenders = offending_lines()
    assert not offenders, "ask the game object instead:\n" + "\n".join(offenders)


# The special cases the game object replaced, as they were written: each must be caught.
@pytest.mark.parametrize("line", [
    'return spec.pieces == "stones" and spec.pass_action is not None',   # play.py: "is Go?"
    'if game.spec.pieces == "stones":',                                   # protocol/viewer.py
    "nxt = _capture_move(game, state, bits) if captures else _winning_move(game, state, bits)",
    'rollout = "capture" if spec.captures else "random"',                 # mcts_evaluators.py
    "if spec.captures:",
    'choices=("tictactoe", "littlego"))',                                 # a hard-coded game list
    'p.add_argument("--game", choices=["littlego", "tictactoe"])',
    'if game.name == "littlego":',
])
def test_the_special_case_check_catches_what_the_game_object_replaced(line):
    assert NAME_CHECKS.search(line)


@pytest.mark.parametrize("line", [
    'register_agent("qlearning", _make, games=("tictactoe", "littlego"),',  # the games an agent plays
    "if self.pass_action is not None:",                                     # about the pass itself
    '"captures": vg.game.spec.captures,',                                   # a fact passed on as data
])
def test_the_special_case_check_lets_plain_facts_through(line):
    assert not NAME_CHECKS.search(line)
