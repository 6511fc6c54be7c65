"""The files of a saved AlphaZero model, and reading its description (no torch needed).

A model folder holds ``model.json`` (the format tag, the game variant (its
``variant`` object, ``game_to_json``), the architecture, the SHA-256 of each
weights file and what the trainer adds),
``model.pt`` (the torch ``state_dict``) and ``model.npz`` (the same network
with batch norms folded, for ``numpy_net``). Weights are written before the
JSON that names them, each atomically, so a JSON never names weights that are
not there in full; ``checked_bytes`` refuses a file whose hash differs.

Reading is bounded: ``read_description`` checks ``model.json`` (its size,
its nesting, the variant, and an architecture within ``MAX_CHANNELS``,
``MAX_BLOCKS``, ``MAX_VALUE_HIDDEN`` and ``MAX_PARAMETERS`` whose inputs and
outputs fit the variant), and ``weights_cap`` bounds the weights files by
what that architecture needs, before anything else is read or built.

The architecture's ``board`` is the board's rows; a board that is not square
also has ``board_cols`` (absent, or None, for a square one: the models saved
before boards could be rectangles are read unchanged).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tictacgo.baselines.model_reading import read_file, read_json
from tictacgo.games import make_game
from tictacgo.games.base import Game
from tictacgo.validate import check_bool, check_int

WEIGHTS_FILE = "model.pt"
NUMPY_FILE = "model.npz"
META_FILE = "model.json"
FORMAT = "tictacgo-alphazero-1"


# The variant's fields in model.json: the game's parameters, Little-Go's ``size`` as ``board_size``.
_JSON_NAMES = {"size": "board_size"}
_PARAM_NAMES = {v: k for k, v in _JSON_NAMES.items()}
# Written for every game (None where the game has no such parameter), as models always had them.
_VARIANT_FIELDS = ("board_size", "komi", "max_actions")


def game_to_json(game: Game) -> dict:
    """The ``variant`` object of ``model.json`` for the game a network plays.

    ``{"game": "littlego", "board_size": 5, "komi": 2.5, "max_actions": 24}``; a game without
    a parameter writes None for it (``{"game": "tictactoe", "board_size": None, ...}``).
    """
    out: dict = {"game": game.spec.name, **dict.fromkeys(_VARIANT_FIELDS)}
    for name, value in game.params.items():
        out[_JSON_NAMES.get(name, name)] = float(value) if name == "komi" else value
    return out


def game_from_json(data: Any) -> Game:
    """The game object of ``model.json``'s ``variant`` object (``game_to_json``'s dict).

    Raises:
        ValueError: not a dict with a ``game`` name, unknown fields, or a variant the game refuses.
    """
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise ValueError(f"a variant is a dict with a 'game' name, got {data!r}")
    params = {_PARAM_NAMES.get(k, k): v for k, v in data.items() if k != "game"}
    game = make_game(data["game"])
    known = set(game.params) | {_PARAM_NAMES.get(k, k) for k in _VARIANT_FIELDS}
    extra = set(params) - known
    if extra:
        fields = ", ".join(sorted(_JSON_NAMES.get(k, k) for k in known))
        raise ValueError(f"unknown variant fields {sorted(_JSON_NAMES.get(k, k) for k in extra)}; a "
                         f"{game.spec.name} variant has game, {fields}")
    return make_game(game, **params)


def describe_game(game: Game) -> str:
    """A short readable name of a variant: ``"littlego 5x5, komi 2.5, 24 actions"``."""
    spec = game.spec
    if spec.max_actions is None:
        return spec.name
    rows, cols = spec.board_shape
    return f"{spec.name} {rows}x{cols}, komi {spec.komi:g}, {spec.max_actions} actions"


def read_meta(folder: str | Path) -> dict:
    """The parsed ``model.json`` of a model folder.

    Raises:
        ValueError: no model there, or a JSON that is not one of ours.
    """
    path = Path(folder) / META_FILE
    if not path.is_file():
        raise ValueError(f"{folder} holds no AlphaZero model (no {META_FILE}); pass the folder "
                         f"that the AlphaZero training wrote")
    meta = read_json(path)  # size-capped, and a nesting too deep is a ValueError
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{path} is not an AlphaZero model description (format {FORMAT!r})")
    return meta


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checked_bytes(folder: str | Path, name: str, expected: str | None, cap: int | None = None) -> bytes:
    """The bytes of ``folder/name``, refused unless their SHA-256 is ``expected``.

    Args:
        cap: the most bytes the file may hold (checked before it is read); None: no limit.
    Raises:
        ValueError: a missing file, one over ``cap`` bytes, or another hash (a half-written or
            foreign file).
    """
    path = Path(folder) / name
    if cap is not None:
        data = read_file(path, cap, "weights file")
    elif not path.is_file():
        raise ValueError(f"{path} is missing")
    else:
        data = path.read_bytes()
    if not isinstance(expected, str):
        raise ValueError(f"{Path(folder) / META_FILE} names no SHA-256 for {name}")
    if sha256(data) != expected:
        raise ValueError(f"{path} is not the weights {META_FILE} describes (a half-written save?)")
    return data


# -- writing ---------------------------------------------------------------------------------

def publish_model(source: str | Path, folder: str | Path) -> Path:
    """Give ``folder`` the model files of the whole model folder ``source``.

    Each file is hard-linked (copied where the file system has no links)
    under a temporary name and renamed into place, ``model.json`` last: no
    file is ever half-written, a link costs no disk space (a full disk does
    not stop it), and a reader finds either the old files or the new ones,
    or, killed between two renames, weights that ``model.json`` does not
    describe, which ``checked_bytes`` refuses (the trainer's ``--resume``
    publishes the checkpoint again).

    Args:
        source: a model folder ``network.save_model`` wrote.
        folder: the folder to publish it in (it must exist).

    Returns:
        ``folder`` as a Path.
    """
    import os
    import shutil

    folder = Path(folder)
    for name in (WEIGHTS_FILE, NUMPY_FILE, META_FILE):
        src = Path(source) / name
        if name == NUMPY_FILE and not src.exists():
            continue  # an older model without the numpy export
        tmp = folder / f".{name}.publish-{os.getpid()}.tmp"
        tmp.unlink(missing_ok=True)
        try:
            try:
                os.link(src, tmp)
            except OSError:
                shutil.copyfile(src, tmp)
            _place(tmp, folder / name)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return folder


def _place(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` over ``target`` (one step of ``publish_model``)."""
    import os

    os.replace(tmp, target)


# -- reading a model's description: every field checked and bounded before anything is built -----

#: The largest networks a model file may describe (and ``Architecture`` may build): far above the
#: shipped ones (32 channels, 2 to 4 blocks), low enough that a crafted file cannot ask for gigabytes.
MAX_CHANNELS = 1024
MAX_BLOCKS = 100
MAX_VALUE_HIDDEN = 4096
MAX_PARAMETERS = 32_000_000  # 128 MB of float32 weights
#: Each size field's largest value (in_planes, board and num_actions must also fit the variant).
SIZE_LIMITS = {"in_planes": 64, "board": 19, "board_cols": 19, "num_actions": 19 * 19 + 1,
               "channels": MAX_CHANNELS, "value_hidden": MAX_VALUE_HIDDEN}
_ARCH_FIELDS = ("in_planes", "board", "num_actions", "channels", "blocks", "value_hidden")
_OPTIONAL_FIELDS = ("ownership", "board_cols")


def check_sizes(arch: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """An architecture's fields as plain values, each a whole number within its limit.

    Args:
        arch: ``in_planes``, ``board`` (the rows), ``num_actions``, ``channels``, ``blocks``,
            ``value_hidden``, and optionally ``ownership`` (default False) and ``board_cols``
            (the columns; absent or None: as many as the rows).
        prefix: put before each field's name in messages (``"Architecture."``).
    Returns:
        Every field, ``board_cols`` None for a square board (also when given equal to ``board``).
    Raises:
        ValueError: a field missing, of another type, out of its range, or a network over
            ``MAX_PARAMETERS`` weights.
    """
    missing = [f for f in _ARCH_FIELDS if f not in arch]
    if missing:
        raise ValueError(f"the architecture lacks {', '.join(missing)}")
    out: dict[str, Any] = {f: check_int(prefix + f, arch[f], min=1, max=SIZE_LIMITS[f])
                           for f in _ARCH_FIELDS if f != "blocks"}
    out["blocks"] = check_int(prefix + "blocks", arch["blocks"], min=0, max=MAX_BLOCKS)
    out["ownership"] = check_bool(prefix + "ownership", arch.get("ownership", False))
    cols = arch.get("board_cols")
    if cols is not None:
        cols = check_int(prefix + "board_cols", cols, min=1, max=SIZE_LIMITS["board_cols"])
    out["board_cols"] = None if cols == out["board"] else cols
    count = parameter_count(out)
    if count > MAX_PARAMETERS:
        raise ValueError(f"the architecture has {count:,} weights, over the {MAX_PARAMETERS:,} allowed "
                         f"(channels {out['channels']}, blocks {out['blocks']})")
    return {f: out[f] for f in (*_ARCH_FIELDS, *_OPTIONAL_FIELDS)}


def board_points(arch: dict[str, Any]) -> int:
    """The points of the board an architecture's inputs cover: ``board`` rows times its columns."""
    cols = arch.get("board_cols")
    return arch["board"] * (arch["board"] if cols is None else cols)


def parameter_count(arch: dict[str, Any]) -> int:
    """The weights and batch-norm statistics of the network ``arch`` describes (checked sizes)."""
    ch, points, a, h = arch["channels"], board_points(arch), arch["num_actions"], arch["value_hidden"]
    norm = 4  # a batch norm's weight, bias, running mean and variance per channel
    count = ch * arch["in_planes"] * 9 + norm * ch
    count += arch["blocks"] * 2 * (ch * ch * 9 + norm * ch)
    count += 2 * ch + norm * 2 + a * 2 * points + a                 # the policy head
    count += ch + norm + h * points + h + h + 1                      # the value head
    return count + (ch + 1 if arch["ownership"] else 0)


def weights_cap(arch: dict[str, Any]) -> int:
    """The most bytes a weights file of ``arch`` may hold: its float32 numbers twice over, and room
    for the file's own bookkeeping (names, headers)."""
    return 8 * parameter_count(arch) + (1 << 20)


@dataclass(frozen=True)
class Description:
    """A model's ``model.json``, checked: the whole dict, the variant and the architecture."""

    meta: dict
    game: Game
    architecture: dict

    @property
    def variant(self) -> Game:
        """The game the network plays (the name model.json gives it)."""
        return self.game


def _shown(value: Any) -> Any:
    """A field's value in a message (``board_cols`` None reads as a square board)."""
    return "absent (a square board)" if value is None else value


def read_description(folder: str | Path) -> Description:
    """``model.json`` of a model folder with its variant and architecture checked.

    The architecture must be one ``Architecture`` builds within its limits, and its inputs and
    outputs must fit the variant (the encoder's planes, the board's rows and columns, the game's
    actions).

    Raises:
        ValueError: naming the file and what is wrong in it.
    """
    meta = read_meta(folder)
    path = Path(folder) / META_FILE
    try:
        game = game_from_json(meta.get("variant"))
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path} has no usable variant: {e}") from None
    arch = meta.get("architecture")
    if not isinstance(arch, dict):
        raise ValueError(f"{path} has no architecture (a JSON object), got {arch!r:.80}")
    unknown = sorted(set(arch) - {*_ARCH_FIELDS, *_OPTIONAL_FIELDS})
    if unknown:
        raise ValueError(f"{path}: the architecture has unknown fields {unknown[:6]}")
    try:
        arch = check_sizes(arch)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    encoder = game.encoder
    rows, cols = encoder.board_shape
    fits = {"in_planes": len(encoder.network_planes), "board": rows,
            "board_cols": None if cols == rows else cols, "num_actions": game.num_actions}
    for field, want in fits.items():
        if arch[field] != want:
            raise ValueError(f"{path}: the architecture's {field} is {_shown(arch[field])}, but "
                             f"{describe_game(game)} needs {_shown(want)}")
    return Description(meta, game, arch)
