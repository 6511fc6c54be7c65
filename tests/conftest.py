"""Shared pytest fixtures, and the ``slow`` marker for the tests listed in slow_tests.txt."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tictacgo.arena import play_game
from tictacgo.games import tictactoe as ttt

DATA_DIR = Path(__file__).resolve().parent / "data"
SLOW_TESTS = Path(__file__).resolve().parent / "slow_tests.txt"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: took a second or more in a measured run "
                                       "(tests/slow_tests.txt); `make test-fast` leaves these out")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests slow_tests.txt names (measured, not guessed) as ``slow``."""
    slow = {line.strip() for line in SLOW_TESTS.read_text().splitlines()
            if line.strip() and not line.startswith("#")}
    for item in items:
        if item.nodeid in slow or item.nodeid.split("::")[0] in slow:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _sb3_logs_stay_in_pytests_folder(tmp_path_factory):
    """A test that builds an SB3 model itself and trains it without a logger would leave an empty
    ``SB3-<date>`` folder in /tmp at each ``learn``; SB3 puts it at ``SB3_LOGDIR`` instead, here a
    folder of pytest's own, which pytest removes (the package's code gives SB3 its logger:
    ``tictacgo.baselines.learning.training.quiet_logger``)."""
    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))
    yield
    if old is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = old


def load_host_data(name: str) -> list[dict]:
    """The records of ``tests/data/<name>`` (recorded course-host games); a missing file fails."""
    path = DATA_DIR / name
    if not path.exists():
        pytest.fail(f"recorded host data {path} is missing: tests/data ships with the repository")
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="session")
def host_games() -> list[dict]:
    """The 300 games recorded from the course's game host (see tests/data/README.md)."""
    return load_host_data("littlego_host_games.jsonl.gz")


@pytest.fixture(scope="session")
def host_illegal() -> list[dict]:
    """The recorded positions where a player submitted a refused move."""
    return load_host_data("littlego_host_illegal.jsonl.gz")


def _play_ttt_game(agent_x, agent_o) -> int:
    """One Tic-Tac-Toe game from the empty board; the winner (1 X, 2 O) or 0 for a draw.

    Through the arena's one game loop, but an illegal action fails the test
    (instead of scoring a forfeit) and the agents are not reset.
    """
    record = play_game(ttt.TicTacToe(), agent_x, agent_o, reset=False)
    if record.forfeit:
        raise AssertionError(f"an agent played an illegal move: {record.illegal_detail}")
    return record.winner


@pytest.fixture
def play_ttt_game() -> Callable[[object, object], int]:
    """``play_ttt_game(agent_x, agent_o) -> winner`` (1 X, 2 O, 0 draw); illegal actions raise."""
    return _play_ttt_game
