"""Every command's --help reads as plain terminal text, and `tictacgo --version` names the version."""

from importlib.metadata import version

import pytest

from tictacgo.cli import COMMANDS, main


def _help(capsys, argv):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], *([c] for c in COMMANDS), ["train", "--algo", "alphazero"]],
                         ids=lambda a: " ".join(a) or "tictacgo")
def test_help_has_no_restructuredtext_markup(capsys, argv):
    if argv[-1:] == ["alphazero"]:
        pytest.importorskip("torch")
    out = _help(capsys, [*argv, "--help"])
    assert "usage: tictacgo" in out
    assert "``" not in out


def test_version_prints_the_installed_version(capsys):
    assert _help(capsys, ["--version"]).strip() == f"tictacgo {version('tictacgo')}"


def test_play_help_names_its_default_agent(capsys):
    assert "default: random" in _help(capsys, ["play", "--help"])


def test_train_usage_offers_alphazero(capsys):
    out = _help(capsys, ["train", "--help"])
    assert "{maskable-ppo,a2c,alphazero,qlearning}" in out and "--algo alphazero --help" in out
