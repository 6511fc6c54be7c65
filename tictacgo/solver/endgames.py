"""The endgame benchmark: Little-Go positions with their exact value and the moves that keep it.

Like the Tic-Tac-Toe oracle, the benchmark says whether an agent's move is
optimal: a position's *value* is the result with perfect play for the
player to move (+1 win, -1 loss, 0 draw), and its *optimal moves* are the
legal actions after which that value still holds (in a lost position every
move is optimal; such positions say nothing about an agent).

The positions come from seeded games among registry agents
(``tictacgo.evaluation.sampling``) with the recipe stored beside them; the file
is a compressed ``.npz`` of plain integer arrays and a JSON recipe, read
with ``allow_pickle=False``.

    endgames, recipe = load_endgames("tests/data/littlego_endgames.npz")
    kept = sum(agent.act(e.state) in e.optimal for e in endgames)
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from dataclasses import dataclass

import numpy as np

from tictacgo.atomic import atomic_write
from tictacgo.games import littlego
from tictacgo.solver.search import Solver, actions_left, variant

FORMAT = "tictacgo-littlego-endgames-1"
#: The largest benchmark file read, and the most its arrays may unpack to (the shipped one: ~30 kB).
MAX_FILE_BYTES = 64 << 20
MAX_UNPACKED_BYTES = 256 << 20
# The GoState fields stored per position (with the variant, they rebuild the state).
_STATE_FIELDS = ("black", "white", "to_move", "t", "prev_black", "prev_white", "ko_armed", "last_pass",
                 "captured", "last_action")


@dataclass(frozen=True)
class Endgame:
    """One benchmark position.

    Attributes:
        state: the position (a live Little-Go state).
        value: +1, -1 or 0: the result with perfect play for the player to move.
        optimal: the legal actions that keep ``value`` (PASS is ``n*n``).
        black, white: the agent specs of the game it comes from.
        game: that game's index in its pairing.
    """

    state: littlego.GoState
    value: int
    optimal: frozenset[int]
    black: str
    white: str
    game: int

    @property
    def left(self) -> int:
        """Actions to go."""
        return actions_left(self.state)

    @property
    def decisive(self) -> bool:
        """Whether some legal move loses the value (so the position can tell a mistake)."""
        return len(self.optimal) < len(littlego.legal_actions(self.state))


def label(state: littlego.GoState, solver: Solver, time_limit: float | None = None
          ) -> tuple[int, frozenset[int]] | None:
    """(value, optimal moves) of ``state`` by exact search; None if a search ran out of time.

    Every legal action is solved (a lost position's actions all keep the loss,
    so only its own value is searched).
    """
    root = solver.solve(state, time_limit=time_limit)
    if root.value is None:
        return None
    if root.value < 0:
        return root.value, frozenset(littlego.legal_actions(state))
    values = solver.move_values(state, time_limit=time_limit)
    if any(r.value is None for r in values.values()):
        return None
    return root.value, frozenset(a for a, r in values.items() if r.value == root.value)


def _state(variant: tuple[int, float, int], fields: dict) -> littlego.GoState:
    """A rules-core state of ``variant`` (size, komi, limit) from its stored fields."""
    base = littlego.LittleGo(*variant).initial_state()
    return base._replace(**fields)


def save_endgames(path: str | os.PathLike, endgames: list[Endgame], recipe: dict) -> None:
    """Write ``endgames`` (one variant) and the recipe that made them, atomically, as compressed npz."""
    if not endgames:
        raise ValueError("no endgame positions to save")
    variants = {variant(e.state) for e in endgames}
    if len(variants) != 1:
        raise ValueError(f"the positions must share one variant (size, komi, limit), got {sorted(variants)}")
    ((size, komi, max_actions),) = variants
    agents = sorted({e.black for e in endgames} | {e.white for e in endgames})
    index = {a: k for k, a in enumerate(agents)}
    arrays = {f: np.array([int(getattr(e.state, f)) for e in endgames], dtype=np.int64)
              for f in _STATE_FIELDS}
    arrays["value"] = np.array([e.value for e in endgames], dtype=np.int8)
    arrays["optimal"] = np.array([sum(1 << a for a in e.optimal) for e in endgames], dtype=np.int64)
    arrays["black_agent"] = np.array([index[e.black] for e in endgames], dtype=np.int16)
    arrays["white_agent"] = np.array([index[e.white] for e in endgames], dtype=np.int16)
    arrays["game"] = np.array([e.game for e in endgames], dtype=np.int32)
    meta = {"format": FORMAT, "size": size, "komi": komi, "max_actions": max_actions,
            "agents": agents, "recipe": recipe}
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays), binary=True)


def load_endgames(path: str | os.PathLike) -> tuple[list[Endgame], dict]:
    """The positions of a benchmark file and its metadata (variant, agents, recipe).

    The file is checked before its arrays are read: a regular file of at most ``MAX_FILE_BYTES``
    whose members unpack to at most ``MAX_UNPACKED_BYTES`` together; every position must be one
    that legal play reaches.

    Raises:
        ValueError: not a benchmark file of this format, too large, or damaged (one line naming
            the file and what is wrong).
        OSError: the file is missing or cannot be read.
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{os.fspath(path)} is not a regular file")
    if os.path.getsize(path) > MAX_FILE_BYTES:
        raise ValueError(f"{os.fspath(path)} is larger than {MAX_FILE_BYTES} bytes; not an endgame benchmark")
    try:
        return _read_endgames(path)
    except (KeyError, IndexError, TypeError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise ValueError(f"{os.fspath(path)} is not an endgame benchmark file of this package "
                         f"({type(e).__name__}: {str(e)[:200]})") from None


def _read_endgames(path: str | os.PathLike) -> tuple[list[Endgame], dict]:
    with np.load(path, allow_pickle=False) as data:
        unpacked = sum(info.file_size for info in data.zip.infolist())
        if unpacked > MAX_UNPACKED_BYTES:
            raise ValueError(f"its arrays unpack to {unpacked} bytes, over {MAX_UNPACKED_BYTES}")
        if "meta" not in data.files:
            raise ValueError("no 'meta' entry")
        meta = json.loads(str(data["meta"]))
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ValueError(f"format {meta.get('format') if isinstance(meta, dict) else meta!r}, "
                             f"expected {FORMAT!r}")
        cols = {k: data[k] for k in data.files if k != "meta"}
    variant = (int(meta["size"]), float(meta["komi"]), int(meta["max_actions"]))
    agents = meta["agents"]
    lengths = {k: len(v) for k, v in cols.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"its columns differ in length: {lengths}")
    out = []
    for i in range(len(cols["value"])):
        fields = {f: int(cols[f][i]) for f in _STATE_FIELDS}
        fields["ko_armed"] = bool(fields["ko_armed"])
        fields["last_pass"] = bool(fields["last_pass"])
        state = _state(variant, fields)
        try:
            littlego.check_state(state)
        except ValueError as e:
            raise ValueError(f"position {i} is not one that legal play reaches: {e}") from None
        bits = int(cols["optimal"][i])
        optimal = frozenset(a for a in range(bits.bit_length()) if bits >> a & 1)
        out.append(Endgame(state, int(cols["value"][i]), optimal,
                           agents[int(cols["black_agent"][i])], agents[int(cols["white_agent"][i])],
                           int(cols["game"][i])))
    return out, meta
