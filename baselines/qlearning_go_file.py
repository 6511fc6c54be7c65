"""The Little-Go Q-table's file: an ``.npz`` of plain arrays, written atomically, read with bounds.

Arrays (``numpy.savez_compressed``; read with ``allow_pickle=False``):

* ``keys``: uint64, sorted and unique (``tictacgo.baselines.qlearning_go_keys``);
* ``q``: float32 values in [-1.5, 1.5], one a key (``VALUE_BOUND``);
* ``visits``: uint32, how many updates each key had;
* ``meta``: uint8, UTF-8 JSON: ``format`` (``"tictacgo-qtable-littlego"``),
  ``version`` (2; version 1 is read too), the ``variant`` (size, komi,
  action limit), the training parameters (``params.keys``, the pattern
  keys' scheme: 1 for a version-1 file, whose phase counted quarters of the
  game and whose keys have no field for the reply's capture) and record
  (games, seconds, opponents, the learning curve).

An afterstate table (key scheme 3, ``tictacgo.baselines.qlearning_go_afterstate``)
is saved in the same arrays: a key is ``AFTERSTATE_FLAG`` and the index of
one of its lookup tables' entries (those updated at least once), ``q`` the
entry's value, ``visits`` its updates; every other entry is 0.

``save_table(..., min_board_visits=m)`` leaves out the board keys updated
fewer than ``m`` times (their values rest on a few games and the pattern
value stands in for them at play). The loader reads within bounds
(``tictacgo.reading``): a regular file, its size, the archive's members,
their uncompressed sizes and expansion, and each array's declared type and
shape against its member's size, all before reading any array; then the
arrays' lengths, order, ranges and key shapes; a file that fails any check
raises one ``ValueError`` that names it and the reason.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np

from tictacgo import reading
from tictacgo.atomic import atomic_write
from tictacgo.baselines.qlearning_go import QLearningGoAgent, QTable
from tictacgo.baselines.qlearning_go_afterstate import (
    AFTERSTATE_FLAG,
    AFTERSTATE_SCHEME,
    MAX_SIZE,
    AfterstateQAgent,
    AfterstateTable,
    tuple_layout,
)
from tictacgo.baselines.qlearning_go_keys import BOARD_FLAG, KEY_SCHEMES, valid_keys
from tictacgo.validate import check_path

FORMAT = "tictacgo-qtable-littlego"
FILE_SCHEMES = (*KEY_SCHEMES, AFTERSTATE_SCHEME)  # the tables' kinds a file may hold
VERSION = 2                    # the version written; 1 and 2 are read
READABLE_VERSIONS = (1, 2)
SHIPPED_TABLE = Path(__file__).resolve().parent / "models" / "littlego_qlearning.npz"
MAX_FILE_BYTES = 64 << 20      # the loader refuses bigger files before reading them
MAX_ENTRIES = 4_000_000        # and bigger tables before allocating them
# Every value lies in [-1.5, 1.5]: a shaped value is an unshaped one (an end reward in [-1, 1],
# discounted) less the position's potential (in [-0.5, 0.5]); see qlearning_go.update.
VALUE_BOUND = 1.5
_ARRAYS = {"keys": np.uint64, "q": np.float32, "visits": np.uint32, "meta": np.uint8}
_MAX_META_BYTES = 1 << 20
_NPY_HEADER = 1024             # room for a .npy member's header
MAX_EXPANSION = 64             # the most the arrays unpack to, as a multiple of the file's size


def save_table(table: QTable | AfterstateTable, path: str | os.PathLike, min_board_visits: int = 1) -> Path:
    """Write ``table`` as a compressed ``.npz`` atomically.

    Args:
        table: the table (pattern keys or afterstate entries).
        path: the file to write (its folder is created).
        min_board_visits: leave out board keys updated fewer times than this.
    Returns:
        The path written.
    """
    meta = dict(table.meta, format=FORMAT, version=VERSION, min_board_visits=min_board_visits)
    meta_bytes = json.dumps(meta, sort_keys=True).encode()
    if len(meta_bytes) > _MAX_META_BYTES:
        raise ValueError(f"the table's record takes {len(meta_bytes):,} bytes, more than {_MAX_META_BYTES:,}")
    if isinstance(table, AfterstateTable):
        index = np.flatnonzero(table.visits)
        arrays = {"keys": index.astype(np.uint64) | np.uint64(AFTERSTATE_FLAG),
                  "q": table.weights[index].astype(np.float32), "visits": table.visits[index]}
    else:
        keys = sorted(k for k in table.q if not k & BOARD_FLAG or table.visits[k] >= min_board_visits)
        arrays = {"keys": np.array(keys, dtype=np.uint64),
                  "q": np.array([table.q[k] for k in keys], dtype=np.float32),
                  "visits": np.array([min(table.visits[k], 2**32 - 1) for k in keys], dtype=np.uint32)}
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays, meta=np.frombuffer(meta_bytes, dtype=np.uint8))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, lambda f: f.write(buf.getvalue()), binary=True)


def _read_arrays(path: Path, bad) -> dict[str, np.ndarray]:
    """The archive's arrays, read within bounds (``tictacgo.reading``): a regular file of at most
    ``MAX_FILE_BYTES``, the expected members, each of at most its cap, unpacking to at most
    ``MAX_EXPANSION`` times the file's size, and each array's declared shape accounting for its
    member's size exactly, all before any array is allocated."""
    try:
        with reading.open_regular(path, MAX_FILE_BYTES) as f, \
                reading.open_zip(f, max_unpacked=None, max_ratio=MAX_EXPANSION) as z:
            infos = {i.filename: i for i in z.infolist()}
            if set(infos) != {f"{name}.npy" for name in _ARRAYS}:
                raise bad(f"expected the arrays {sorted(_ARRAYS)}, found "
                          f"{reading.shorten(str(sorted(infos)))}")
            for name, info in infos.items():
                limit = _MAX_META_BYTES if name == "meta.npy" else MAX_ENTRIES * 8
                if info.file_size > limit + _NPY_HEADER:
                    raise bad(f"the array {name[:-4]!r} would take {info.file_size:,} bytes "
                              f"(at most {limit:,})")
            declared = {name[:-4]: reading.npy_declared(z, info) for name, info in infos.items()}
            for name, (shape, dtype, _, _) in declared.items():
                if len(shape) != 1 or dtype != _ARRAYS[name]:
                    raise bad(f"the array {name!r} must be 1-D {np.dtype(_ARRAYS[name]).name}, got "
                              f"{len(shape)}-D {dtype}")
            return {name: reading.read_npy(z, infos[f"{name}.npy"], declared[name]) for name in _ARRAYS}
    except reading.ReadError as e:
        raise bad(str(e) if not str(e).startswith("not a zip") else f"not an npz archive ({e})") from None
    except OSError as e:
        raise bad(f"cannot be read ({e.strerror or e})") from None


def _check_meta(raw: np.ndarray, bad) -> dict:
    try:
        meta = reading.parse_json(raw.tobytes())
    except reading.ReadError as e:
        raise bad(f"the meta record is not JSON this reader takes ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise bad(f"expected the format {FORMAT!r}, found {reading.shown(found)}")
    if meta.get("version") not in READABLE_VERSIONS:
        raise bad(f"unsupported version {reading.shown(meta.get('version'))} (this code reads versions "
                  f"{', '.join(map(str, READABLE_VERSIONS))})")
    variant = meta.get("variant")
    if not (isinstance(variant, dict) and set(variant) == {"size", "komi", "max_actions"}):
        raise bad(f"the meta record must give the variant (size, komi, max_actions), got "
                  f"{reading.shown(variant)}")
    params = meta.get("params", {})
    plies = params.get("board_plies", 0) if isinstance(params, dict) else None
    if not isinstance(plies, int) or isinstance(plies, bool) or not 0 <= plies <= 1000:
        raise bad(f"the params must be an object with board_plies an integer in [0, 1000], got {params!r}")
    if meta["version"] == 1:      # written before the key schemes had a name: scheme 1
        meta["params"] = params = {**params, "keys": 1}
    if params.get("keys", KEY_SCHEMES[-1]) not in FILE_SCHEMES:
        raise bad(f"the params' key scheme must be one of {FILE_SCHEMES}, got {params.get('keys')!r}")
    if params.get("keys") == AFTERSTATE_SCHEME:
        size, actions = variant["size"], variant["max_actions"]
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (size, actions)) \
                or not 2 <= size <= MAX_SIZE or not 1 <= actions <= 1000:
            raise bad(f"an afterstate table's variant must have a size of 2 to {MAX_SIZE} and an action "
                      f"limit of 1 to 1000, got {reading.shown(variant)}")
    return meta


def load_table(path: str | os.PathLike) -> QTable | AfterstateTable:
    """Read a table written by ``save_table``; sizes are checked before anything is allocated.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is not a valid Little-Go Q-table (the message names it and why).
    """
    path = Path(path)
    if not path.exists():  # a folder or a named pipe is refused by the reader, naming what it is
        raise FileNotFoundError(f"no Q-table file at {str(path)!r}; train one with "
                                f"tictacgo train littlego --algo qlearning --out {path}")

    def bad(why: str) -> ValueError:
        return ValueError(f"{str(path)!r} is not a valid {FORMAT} file: {why}")

    arrays = _read_arrays(path, bad)
    for name, dtype in _ARRAYS.items():
        a = arrays[name]
        if a.ndim != 1 or a.dtype != dtype:
            raise bad(f"the array {name!r} must be 1-D {np.dtype(dtype).name}, got {a.ndim}-D {a.dtype}")
    keys, q, visits = arrays["keys"], arrays["q"], arrays["visits"]
    if not len(keys) == len(q) == len(visits):
        raise bad(f"keys, q and visits differ in length ({len(keys)}, {len(q)}, {len(visits)})")
    if len(keys) > 1 and not (keys[1:] > keys[:-1]).all():
        raise bad("the keys must be sorted and unique")
    if not (np.isfinite(q).all() and (np.abs(q) <= VALUE_BOUND).all()):
        raise bad(f"every value in q must be a finite number in [-{VALUE_BOUND}, {VALUE_BOUND}]")
    meta = _check_meta(arrays["meta"], bad)
    scheme = meta.get("params", {}).get("keys", KEY_SCHEMES[-1])
    ok = valid_keys(keys, scheme)
    if not ok.all():
        raise bad(f"the key {int(keys[~ok][0])} is not a Little-Go Q-table key")
    if (visits == 0).any():
        raise bad("every key must have at least one visit")
    if scheme == AFTERSTATE_SCHEME:
        lay = tuple_layout(meta["variant"]["size"], meta["variant"]["max_actions"])
        index = (keys & np.uint64(AFTERSTATE_FLAG - 1)).astype(np.int64)
        if len(index) and index[-1] >= lay.total:
            raise bad(f"the entry {int(index[-1])} is past the {lay.total:,} entries of the variant's tables")
        table = AfterstateTable.empty_for(meta["variant"])
        table.weights[index], table.visits[index] = q, visits
        table.meta = meta
        return table
    key_list = keys.tolist()
    return QTable(dict(zip(key_list, q.tolist(), strict=True)),
                  dict(zip(key_list, visits.tolist(), strict=True)), meta)


def make_go_agent(game, rng: np.random.Generator | None,
                  path: str | None = None) -> QLearningGoAgent | AfterstateQAgent:
    """The ``qlearning`` agent for Little-Go: the table at ``path``, or the shipped one.

    Raises:
        ValueError: a missing or invalid file, or a table trained for another variant.
    """
    if path is not None:
        path = check_path("path", path, "a Q-table file name")
    file = Path(path) if path is not None else SHIPPED_TABLE
    try:
        table = load_table(file)
    except FileNotFoundError as e:
        raise ValueError(str(e)) from None
    if isinstance(table, AfterstateTable):
        return AfterstateQAgent(game, rng=rng, table=table)
    return QLearningGoAgent(game, rng=rng, table=table)
