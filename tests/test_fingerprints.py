"""Seeded agents and arena matches play the moves recorded in tests/data/fingerprints.json.

The file was written by ``tests/fingerprints.py`` before the game-object
refactor; code that claims "behaviour unchanged" must reproduce every move.
"""

import json
from pathlib import Path

import fingerprints
import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDED = json.loads((ROOT / "tests" / "data" / "fingerprints.json").read_text())


def test_every_case_is_recorded():
    assert set(RECORDED["games"]) == {fingerprints.case_key(c) for c in fingerprints.GAME_CASES}
    assert set(RECORDED["arena"]) == {fingerprints.case_key(c) for c in fingerprints.ARENA_CASES}


@pytest.mark.parametrize("case", fingerprints.GAME_CASES, ids=fingerprints.case_key)
def test_seeded_game_plays_the_recorded_moves(case):
    assert fingerprints.game_moves(*case) == RECORDED["games"][fingerprints.case_key(case)]


@pytest.mark.parametrize("case", fingerprints.ARENA_CASES, ids=fingerprints.case_key)
def test_seeded_arena_match_plays_the_recorded_moves(case):
    assert fingerprints.arena_moves(*case) == RECORDED["arena"][fingerprints.case_key(case)]
