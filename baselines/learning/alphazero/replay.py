"""The replay buffer of self-play positions, augmented by the game's board symmetries.

A position is stored as its input planes ``(C, rows, cols)``, the search's policy
target over all actions, the game's result from the view of the player to
move (+1, 0, -1), a weight for that value target (0 where the result says
little about the position, e.g. during a random opening) and, if asked, the
final board from the mover's view (the ownership target).

The buffer is a ring of fixed capacity (the oldest positions leave first).
``sample`` draws uniformly and, with ``augment``, applies one of the game's
symmetries (``game.symmetries()``, ``tictacgo.games.symmetry``; by default
every symmetry of the board's shape: a square's eight, a rectangle's four) to
each sample: planes, ownership and the placement part of the policy move
together; PASS (the action after the points) is left unchanged. The value
does not change: a symmetry keeps the player to move. A symmetry moves the
planes by the map of its first ``rows * cols`` actions, so only a game whose
actions begin with the board's points can declare more than the identity
(Connect-Three, whose actions are its five columns, declares the identity
alone and trains without augmentation). ``transform_boards``, ``transform_policy`` and
``transform_action`` apply one symmetry of a square board.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from tictacgo.atomic import atomic_write_bytes
from tictacgo.games.symmetry import board_symmetries, move_actions, move_boards

#: A square board's symmetries (``tictacgo.games.symmetry.board_symmetries``): rotations 0..3
#: (``(4 - s) % 4`` undoes ``s``), mirrors 4..7 (each its own inverse).
NUM_SYMMETRIES = 8


def transform_boards(x: np.ndarray, sym: int) -> np.ndarray:
    """Symmetry ``sym`` (0..7, ``board_symmetries``' order) of arrays whose last two axes are a
    square board."""
    n = x.shape[-1]
    return move_boards(x, board_symmetries(n, n, n * n)[sym])


def transform_policy(policy: np.ndarray, sym: int, n: int) -> np.ndarray:
    """Symmetry ``sym`` of ``(..., A)`` vectors over actions: the ``n * n`` points move, PASS stays."""
    return move_actions(policy, board_symmetries(n, n, policy.shape[-1])[sym])


def transform_action(action: int, sym: int, n: int, num_actions: int) -> int:
    """Where symmetry ``sym`` sends one action (PASS and other non-point actions stay)."""
    if not 0 <= action < num_actions:
        raise ValueError(f"action must be in [0, {num_actions - 1}], got {action!r}")
    return int(board_symmetries(n, n, num_actions)[sym, action])


class ReplayBuffer:
    """A ring buffer of training positions (see the module docstring).

    Args:
        capacity: positions kept.
        plane_shape: ``(C, rows, cols)``.
        num_actions: the policy's length.
        ownership: keep an ownership target ``(rows * cols,)`` per position.
        symmetries: the game's ``symmetries()`` (``(S, num_actions)`` action maps, the identity
            first); default: every symmetry of the board's shape (``board_symmetries``), or the
            identity alone where there are fewer actions than points.
    Raises:
        ValueError: a bad capacity, symmetries of another shape, or symmetries besides the
            identity where the actions are not the board's points (they could not move the planes).
    """

    def __init__(self, capacity: int, plane_shape: tuple[int, int, int], num_actions: int,
                 ownership: bool = False, symmetries: np.ndarray | None = None):
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be a positive int, got {capacity!r}")
        C, rows, cols = plane_shape
        actions_are_points = num_actions >= rows * cols
        if symmetries is None:
            symmetries = (board_symmetries(rows, cols, num_actions) if actions_are_points
                          else np.arange(num_actions)[None])
        symmetries = np.asarray(symmetries, dtype=np.int64)
        if symmetries.ndim != 2 or symmetries.shape[1] != num_actions:
            raise ValueError(f"symmetries must be maps of the {num_actions} actions, (S, {num_actions}), "
                             f"got shape {symmetries.shape}")
        if len(symmetries) > 1 and not actions_are_points:
            raise ValueError(f"{len(symmetries)} symmetries given, but the {num_actions} actions are not "
                             f"the {rows}x{cols} board's points, so they cannot move the planes: pass the "
                             f"identity alone")
        self.capacity = capacity
        self.board_shape = (rows, cols)
        self.symmetries = symmetries
        self.planes = np.zeros((capacity, C, rows, cols), np.float32)
        self.policy = np.zeros((capacity, num_actions), np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.value_weight = np.zeros(capacity, np.float32)
        self.ownership = np.zeros((capacity, rows * cols), np.float32) if ownership else None
        self.size = 0
        self.next = 0
        self.added = 0  # positions ever added

    def __len__(self) -> int:
        return self.size

    def add(self, planes: np.ndarray, policy: np.ndarray, value: np.ndarray,
            value_weight: np.ndarray | None = None, ownership: np.ndarray | None = None) -> None:
        """Append ``k`` positions (arrays with a leading axis of ``k``)."""
        k = len(planes)
        if not (len(policy) == len(value) == k):
            raise ValueError(f"planes, policy and value need the same length, got {k}, {len(policy)}, "
                             f"{len(value)}")
        if self.ownership is not None and ownership is None:
            raise ValueError("this buffer keeps ownership targets; pass ownership=")
        if k > self.capacity:  # only the newest fit
            cut = slice(k - self.capacity, k)
            planes, policy, value = planes[cut], policy[cut], value[cut]
            value_weight = None if value_weight is None else value_weight[cut]
            ownership = None if ownership is None else ownership[cut]
            self.added += k - self.capacity
            k = self.capacity
        idx = (self.next + np.arange(k)) % self.capacity
        self.planes[idx] = planes
        self.policy[idx] = policy
        self.value[idx] = value
        self.value_weight[idx] = 1.0 if value_weight is None else value_weight
        if self.ownership is not None:
            self.ownership[idx] = ownership
        self.next = int((self.next + k) % self.capacity)
        self.size = min(self.capacity, self.size + k)
        self.added += k

    def sample(self, batch_size: int, rng: np.random.Generator,
               augment: bool = True) -> dict[str, np.ndarray]:
        """A batch drawn uniformly (with replacement), each sample under a random symmetry if ``augment``.

        Returns:
            ``{"planes", "policy", "value", "value_weight"[, "ownership"]}``.
        """
        if self.size == 0:
            raise ValueError("the replay buffer is empty")
        idx = rng.integers(self.size, size=batch_size)
        out = {"planes": self.planes[idx], "policy": self.policy[idx], "value": self.value[idx],
               "value_weight": self.value_weight[idx]}
        if self.ownership is not None:
            out["ownership"] = self.ownership[idx]
        if augment:
            sym = rng.integers(len(self.symmetries), size=batch_size)
            for s in range(1, len(self.symmetries)):
                m = sym == s
                if not m.any():
                    continue
                moves = self.symmetries[s]
                out["planes"][m] = move_boards(out["planes"][m], moves)
                out["policy"][m] = move_actions(out["policy"][m], moves)
                if self.ownership is not None:
                    own = out["ownership"][m].reshape(-1, *self.board_shape)
                    out["ownership"][m] = move_boards(own, moves).reshape(len(own), -1)
        return out

    # -- saving for --resume ---------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the buffer to an ``.npz`` file atomically."""
        arrays = {"planes": self.planes[: self.size], "policy": self.policy[: self.size],
                  "value": self.value[: self.size], "value_weight": self.value_weight[: self.size],
                  "meta": np.array([self.capacity, self.next, self.added, self.size], np.int64)}
        if self.ownership is not None:
            arrays["ownership"] = self.ownership[: self.size]
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        atomic_write_bytes(path, buf.getvalue())

    def load(self, path: str | Path) -> None:
        """Read a buffer written by ``save`` into this one (same shapes; no pickles are read).

        Raises:
            ValueError: a missing file, or one that is not a whole buffer of this shape (a
                truncated or foreign file, counters that disagree with the arrays, values
                that are not finite); this buffer is then left as it was.
        """
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"{path} is missing")
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except Exception as e:  # a damaged archive raises any of several errors (zip, zlib, EOF, format)
            raise ValueError(f"{path} is not a replay buffer ({type(e).__name__}: {e})") from None
        capacity, nxt, added, size = self._check_saved(arrays, path)
        if capacity != self.capacity:  # keep the newest that fit, in order
            order = (np.arange(size) + (nxt if size == capacity else 0)) % max(size, 1)
            keep = order[-self.capacity:]
            self.size = self.next = 0
            own = arrays["ownership"][keep] if self.ownership is not None else None
            self.add(arrays["planes"][keep], arrays["policy"][keep], arrays["value"][keep],
                     arrays["value_weight"][keep], own)
            self.added = added
            return
        self.planes[:size] = arrays["planes"]
        self.policy[:size] = arrays["policy"]
        self.value[:size] = arrays["value"]
        self.value_weight[:size] = arrays["value_weight"]
        if self.ownership is not None:
            self.ownership[:size] = arrays["ownership"]
        self.size, self.next, self.added = size, nxt, added

    def _check_saved(self, arrays: dict[str, np.ndarray], path: Path) -> tuple[int, int, int, int]:
        """``(capacity, next, added, size)`` of a saved buffer's arrays, after checking they fit this one.

        Raises:
            ValueError: a missing array, counters that disagree with the arrays, another shape,
                or values that are not finite.
        """
        names = ["planes", "policy", "value", "value_weight", "meta"]
        if self.ownership is not None:
            names.append("ownership")
        missing = [n for n in names if n not in arrays]
        if missing:
            raise ValueError(f"{path} is not a replay buffer of this run: no {', '.join(missing)}")
        if (self.ownership is None) != ("ownership" not in arrays):
            raise ValueError(f"{path} and this buffer disagree on ownership targets")
        meta = arrays["meta"]
        if meta.shape != (4,) or meta.dtype.kind not in "iu":
            raise ValueError(f"{path}: meta must be 4 integers, got {meta.dtype} {meta.shape}")
        capacity, nxt, added, size = (int(x) for x in meta)
        if not (capacity >= 1 and 0 <= size <= capacity and 0 <= nxt < capacity and added >= size
                and (size == capacity or nxt == size)):
            raise ValueError(f"{path}: inconsistent counters (capacity {capacity}, next {nxt}, "
                             f"added {added}, size {size})")
        shapes = {"planes": self.planes.shape[1:], "policy": self.policy.shape[1:], "value": (),
                  "value_weight": ()}
        if self.ownership is not None:
            shapes["ownership"] = self.ownership.shape[1:]
        for name, shape in shapes.items():
            a = arrays[name]
            if a.shape != (size, *shape):
                raise ValueError(f"{path} holds positions of another shape: {name} {a.shape}, expected "
                                 f"{(size, *shape)}")
            if a.dtype.kind != "f" or not np.isfinite(a).all():
                raise ValueError(f"{path}: {name} holds values that are not finite numbers")
        return capacity, nxt, added, size
