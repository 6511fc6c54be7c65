"""AlphaZero asks the game object: it is built once per command, never per move, and model.json
keeps the keys it always had (``Variant``, the record the game object replaced, is a deprecated shim)."""

from __future__ import annotations

import functools
import json

import pytest

torch = pytest.importorskip("torch")

from tictacgo.baselines import make_agent  # noqa: E402
from tictacgo.baselines.learning.alphazero.agent import shipped_model  # noqa: E402
from tictacgo.baselines.learning.alphazero.modelfile import (  # noqa: E402
    describe_game,
    game_from_json,
    game_to_json,
    read_description,
)
from tictacgo.baselines.learning.alphazero.network import Architecture, PolicyValueNet, save_model  # noqa: E402
from tictacgo.cli import main  # noqa: E402
from tictacgo.games import LittleGo, TicTacToe, littlego  # noqa: E402


@pytest.fixture
def builds(monkeypatch):
    """Counts the calls of ``LittleGo(...)`` (its constructor, patched) from here on."""
    count = {"n": 0}
    original = littlego.LittleGo.__new__

    @functools.wraps(original)
    def counting(cls, *args, **kwargs):
        count["n"] += 1
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(littlego.LittleGo, "__new__", counting)
    return count


def test_training_alphazero_on_a_7x7_board_builds_the_game_once(tmp_path, builds, capsys):
    rc = main(["train", "littlego", "--algo", "alphazero", "--board-size", "7",
               "--out", str(tmp_path / "run"), "--max-positions", "240", "--max-seconds", "0",
               "--num-games", "4", "--simulations", "2", "--channels", "4", "--blocks", "0",
               "--min-buffer", "4", "--batch-size", "4", "--no-progress", "--no-tensorboard",
               "--checkpoint-every", "1e9"])
    assert rc == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    summary = json.loads(out[out.index("\n{") + 1:])  # the JSON summary after the progress lines
    assert summary["games"] > 0 and summary["gradient_steps"] > 0  # whole games played and trained on
    assert builds["n"] == 1
    meta = json.loads((tmp_path / "run" / "model.json").read_text())
    assert meta["variant"] == {"game": "littlego", "board_size": 7, "komi": 3.5, "max_actions": 48}


def test_the_az_agent_builds_no_game_while_it_plays(builds):
    agent = make_agent("az:sims=8", "littlego")
    state = LittleGo().initial_state()
    built = builds["n"]
    for _ in range(4):
        state = littlego.play(state, agent.act(state))
    assert builds["n"] == built


def test_model_json_names_the_variant_with_the_keys_it_always_had():
    assert game_to_json(LittleGo()) == {"game": "littlego", "board_size": 5, "komi": 2.5, "max_actions": 24}
    assert game_to_json(TicTacToe()) == {"game": "tictactoe", "board_size": None, "komi": None,
                                         "max_actions": None}
    for game in (LittleGo(), LittleGo(7, komi=0.5, max_actions=30), TicTacToe()):
        assert game_from_json(game_to_json(game)) is game
    assert describe_game(LittleGo()) == "littlego 5x5, komi 2.5, 24 actions"
    assert describe_game(TicTacToe()) == "tictactoe"
    with pytest.raises(ValueError, match=r"unknown variant fields \['colour'\]; a littlego variant has game, "
                                         r"board_size, komi, max_actions$"):
        game_from_json({"game": "littlego", "colour": 1})
    with pytest.raises(ValueError, match="tictactoe takes no parameters"):
        game_from_json({"game": "tictactoe", "board_size": 4})


@pytest.mark.parametrize("name", ["tictactoe", "littlego"])
def test_the_shipped_models_read_as_their_game(name):
    desc = read_description(shipped_model(name))
    assert desc.game is (TicTacToe() if name == "tictactoe" else LittleGo())
    assert game_to_json(desc.game) == desc.meta["variant"]


def test_a_saved_model_reads_back_as_the_same_game(tmp_path):
    game = LittleGo(3)
    save_model(tmp_path / "m", PolicyValueNet(Architecture.for_game(game, channels=4, blocks=0)), game)
    assert read_description(tmp_path / "m").game is game


def test_variant_still_works_and_says_it_is_deprecated():
    from tictacgo.baselines.learning.alphazero.features import encoder_for
    from tictacgo.baselines.learning.alphazero.variant import Variant

    with pytest.warns(DeprecationWarning, match="pass the game object"):
        v = Variant.make("littlego", board_size=7)
    assert v.to_json() == {"game": "littlego", "board_size": 7, "komi": 3.5, "max_actions": 48}
    assert v.game_object is LittleGo(7) and v.module is LittleGo(7)
    assert v.describe() == "littlego 7x7, komi 3.5, 48 actions"
    assert encoder_for(v) is LittleGo(7).encoder
