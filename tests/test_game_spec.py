"""Each rules core declares its facts (GameSpec) and offers the one Game interface;
code outside tictacgo/games asks the spec instead of testing which game it holds."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import numpy as np
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


@pytest.mark.parametrize("size", [3, 4, 5])
def test_ko_bits_are_every_empty_point_the_rules_refuse_for_ko_along_random_games(size):
    game, rng, kos = littlego.LittleGo(size), np.random.default_rng(size), 0
    for _ in range(300):
        state = game.initial_state()
        while state.end is None:
            empty = game.full & ~(state.black | state.white)
            refused = sum(1 << p for p in game.bits_to_list(empty)
                          if littlego.illegal_reason(state, p) == "ko")
            assert littlego.ko_bits(state) == refused, game.render_ascii(state)
            kos += refused != 0
            legal = littlego.legal_actions(state)
            state = littlego.play(state, int(rng.choice(legal)))
    assert kos > 0  # the games reached ko positions


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


#: The folders whose code must ask the game instead of testing which game it holds.
CHECKED_FOLDERS = ("tictacgo", "envs", "wrappers", "baselines", "scripts", "benchmarks")


def offending_lines(folders=CHECKED_FOLDERS) -> list[str]:
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


# -- the game object: a Game subclass with explicit methods -------------------------------------------

def test_the_games_define_their_methods_in_their_classes_not_by_setattr():
    for path in (ROOT / "tictacgo" / "games").glob("*.py"):
        assert "setattr(" not in path.read_text(), path.name
    for cls in (tictactoe.TicTacToe, littlego.LittleGo):
        for method in ("play", "legal_bits", "illegal_reason", "winner", "to_board", "check_state",
                       "render_ascii", "batched", "board_image", "board_svg", "symmetries", "network_planes",
                       "network_planes_batch", "network_plane_names"):
            assert method in vars(cls), (cls.__name__, method)


def test_the_base_class_declares_the_encoder_the_symmetries_and_the_network_planes():
    for name in ("encoder", "symmetries", "network_plane_names", "network_planes", "network_planes_batch"):
        assert name in vars(Game), name
    go = littlego.LittleGo(7)
    assert go.encoder is go.encoder and go.encoder.game is go   # one encoder per game object
    assert go.encoder.network_planes == go.network_plane_names and go.symmetries().shape == (8, 50)


def test_a_game_without_its_rules_cannot_be_built():
    class Half(Game):
        name = "half"

        def initial_state(self):
            return 0

    with pytest.raises(TypeError, match="abstract"):
        Half()


def test_the_games_say_how_a_game_ended_in_words():
    ttt, go = tictactoe.TicTacToe(), littlego.LittleGo()
    won = ttt.initial_state()
    for a in (0, 3, 1, 4, 2):
        won = ttt.play(won, a)
    assert ttt.end_words(won) == "X has three in a row"
    assert ttt.end_words(ttt.forfeit(ttt.initial_state())) == "X played an illegal action and forfeits"
    assert ttt.end_words(ttt.initial_state()) == ""
    passed = go.play(go.play(go.play(go.initial_state(), 12), 25), 25)
    assert go.end_words(passed) == "both players passed in a row"
    assert go.end_words(go.play(go.initial_state(), 25)).startswith("Black passed on the very first action")
    assert (go.player_label(1), ttt.player_label(2)) == ("Black (X)", "O")
    assert (go.point_label(12), go.point_label(25), ttt.point_label(4)) == ("C3", "pass", "cell 4")


def test_the_registry_takes_game_classes_by_name_and_alias():
    from tictacgo.games import GAMES, game_class, make_game, register_game

    assert GAMES["tictactoe"] is tictactoe.TicTacToe and game_class("Go") is littlego.LittleGo
    assert game_class(littlego.LittleGo(7)) is littlego.LittleGo
    assert make_game("little-go", size=7) is littlego.LittleGo(7)
    with pytest.raises(TypeError, match="Game subclass"):
        register_game(object)
    with pytest.raises(ValueError, match="taken by LittleGo"):
        register_game(type("Impostor", (tictactoe.TicTacToe,), {"name": "impostor"}), aliases=("go",))
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make_game("chess")


def test_class_of_takes_a_game_class_a_name_or_a_game_object():
    from tictacgo.games.registry import class_of

    unregistered = type("Unregistered", (tictactoe.TicTacToe,), {"name": "unregistered"})
    assert class_of(unregistered) is unregistered
    assert class_of("go") is class_of(littlego.LittleGo(7)) is littlego.LittleGo
    with pytest.raises(TypeError, match="expected a game name or game object"):
        class_of(object)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        class_of("chess")


def test_the_old_import_paths_still_work():
    from tictacgo.arena.records import GameStream
    from tictacgo.envs.bitmap_font import draw_text
    from tictacgo.envs.rendering import go_image, tictactoe_image
    from tictacgo.games import GameEntry, game_entry
    from tictacgo.games import spec as old_spec
    from tictacgo.games.pictures import grid_image

    assert old_spec.Game is Game and old_spec.GameSpec is GameSpec
    assert game_entry("ttt") is tictactoe.TicTacToe and isinstance(tictactoe.TicTacToe, GameEntry)
    assert littlego.place_bits is not None and littlego.fast_rollout is littlego.LittleGo.fast_rollout
    assert tictactoe.has_line(0b111) and callable(draw_text) and GameStream is not None
    board = np.zeros((3, 3), np.int8)
    np.testing.assert_array_equal(tictactoe_image(board), grid_image(board))
    assert go_image(np.zeros((5, 5), np.int8)).shape == (320, 320, 3)


OLD_SPEC_MODULE = "tictacgo.games.spec"


def old_spec_imports(paths: list[Path]) -> list[str]:
    """``file:line`` of each import of the old ``tictacgo.games.spec`` path in ``paths`` (every form,
    function-local ones included); files under the repository by their path in it."""
    found = []
    for path in paths:
        shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
                if node.module == OLD_SPEC_MODULE or OLD_SPEC_MODULE in names:
                    found.append(f"{shown}:{node.lineno}")
            elif isinstance(node, ast.Import) and any(a.name == OLD_SPEC_MODULE for a in node.names):
                found.append(f"{shown}:{node.lineno}")
    return found


def library_files() -> list[Path]:
    """Every Python file of the package, the scripts and the benchmarks, the old path's shim aside."""
    folders = ("tictacgo", "envs", "wrappers", "baselines", "scripts", "benchmarks")
    paths = sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))
    return [p for p in paths if p != ROOT / "tictacgo" / "games" / "spec.py"]


def test_the_library_imports_game_from_its_own_module_not_the_old_path():
    assert len(library_files()) > 100  # the package, the scripts and the benchmarks were found
    assert old_spec_imports(library_files()) == []


def test_the_old_path_check_sees_every_form_of_import(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("from tictacgo.games.spec import Game\n"
                    "from tictacgo.games import spec\n"
                    "import tictacgo.games.spec\n"
                    "def f():\n"
                    "    from tictacgo.games.spec import GameSpec\n"
                    "from tictacgo.games.base import Game\n"
                    "from tictacgo.games import Game, GameSpec\n")
    assert old_spec_imports([path]) == ["bad.py:1", "bad.py:2", "bad.py:3", "bad.py:5"]


def test_the_envs_name_each_game_from_its_class():
    from tictacgo.envs.game_envs import env_id, module_name, variant_keywords

    assert (env_id("littlego"), env_id(tictactoe.TicTacToe())) == ("LittleGo-v0", "TicTacToe-v0")
    assert module_name("go") == "littlego_v0"
    assert variant_keywords("littlego") == ("board_size", "komi", "max_actions")
    assert variant_keywords("tictactoe") == ()
