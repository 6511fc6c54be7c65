"""The policy-value network: a small residual CNN, saved as weights plus a JSON description.

``PolicyValueNet(Architecture(...))`` maps the game's input planes
``(B, C, rows, cols)`` (``game.encoder``) to

* policy logits over the game's actions, ``(B, A)`` (A is ``game.num_actions``:
  Little-Go's points then PASS, Connect-Three's five columns);
* a value in [-1, 1] from the view of the player to move, ``(B,)``;
* optionally (``ownership=True``) an auxiliary ownership map in [-1, 1]
  ``(B, rows*cols)``: the final board from the mover's view (+1 own stone, -1 the
  opponent's, 0 empty), KataGo's auxiliary target.

Any rectangular board: the convolutions do not care, and the heads' linear
layers are sized ``rows * cols``. A square board's architecture is written to
``model.json`` as it always was (``board``: n); a board that is not square adds
``board_cols`` (``board`` is then its rows).

The trunk is AlphaZero's: a 3x3 convolution stem, ``blocks`` residual blocks
of two 3x3 convolutions with batch norm, then 1x1 convolution heads.
``PolicyValueNet.inference`` is eval mode's forward pass with each batch norm
folded into the convolution before it (the same function to float rounding,
with fewer operations): ``NetworkEvaluator``, which the search calls, uses it,
folding again only when the weights changed, in float32 or, on request,
bfloat16 (``precision``).

A saved model is a folder with ``model.pt`` (the ``state_dict``, read back
with ``torch.load(weights_only=True)``: loading never runs code),
``model.npz`` (the same network for ``numpy_net``, which plays without torch)
and ``model.json`` (the game variant, the architecture, the weights' SHA-256
and whatever the trainer adds: seed, steps, wall time); see ``modelfile``.
"""

from __future__ import annotations

import io
import weakref
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn.modules.module import (
    register_module_buffer_registration_hook,
    register_module_parameter_registration_hook,
)
from torch.optim.optimizer import register_optimizer_step_post_hook

from tictacgo.atomic import atomic_write_bytes, atomic_write_json
from tictacgo.baselines.learning.alphazero import heap, onednn
from tictacgo.baselines.learning.alphazero import precision as precision_names
from tictacgo.baselines.learning.alphazero.modelfile import (
    FORMAT,
    META_FILE,
    NUMPY_FILE,
    WEIGHTS_FILE,
    check_sizes,
    checked_bytes,
    game_to_json,
    read_description,
    sha256,
    weights_cap,
)
from tictacgo.baselines.learning.alphazero.numpy_net import NumpyNet, export
from tictacgo.baselines.model_reading import check_zip_size, first_line
from tictacgo.games.base import Game
from tictacgo.games.batched_common import BatchedGame


@dataclass(frozen=True)
class Architecture:
    """The shape of a ``PolicyValueNet``.

    Attributes:
        in_planes: input channels (the encoder's plane count).
        board: the board's rows (a square board's size n).
        num_actions: policy outputs, the game's actions (Little-Go: the points, then PASS).
        channels: channels of the trunk.
        blocks: residual blocks.
        value_hidden: units of the value head's hidden layer.
        ownership: add the auxiliary ownership head.
        board_cols: the board's columns where they differ from its rows; None: a square board.
    """

    in_planes: int
    board: int
    num_actions: int
    channels: int = 32
    blocks: int = 4
    value_hidden: int = 64
    ownership: bool = False
    board_cols: int | None = None

    def __post_init__(self):
        checked = check_sizes(asdict(self), prefix="Architecture.")  # whole numbers within modelfile's limits
        object.__setattr__(self, "board_cols", checked.get("board_cols"))  # the columns of a square: None

    @property
    def board_shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the input planes."""
        return self.board, self.board if self.board_cols is None else self.board_cols

    @classmethod
    def for_game(cls, game: Game, **kw) -> Architecture:
        """The architecture whose inputs and outputs fit ``game`` (``kw``: channels, blocks, ...)."""
        enc = game.encoder
        rows, cols = enc.board_shape
        return cls(len(enc.network_planes), rows, game.num_actions, **kw,
                   board_cols=None if cols == rows else cols)

    for_variant = for_game  # the name it had when a network's game was a ``Variant``

    @classmethod
    def from_json(cls, data: dict) -> Architecture:
        names = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or set(data) - names:
            raise ValueError(f"an architecture is a dict with fields {sorted(names)}, got {data!r}")
        return cls(**data)

    def to_json(self) -> dict:
        """The ``architecture`` object of ``model.json``: every field, ``board_cols`` only for a
        board that is not square (a square model's description reads as it always did)."""
        data = asdict(self)
        if self.board_cols is None:
            del data["board_cols"]
        return data


PRECISIONS = precision_names.PRECISIONS


def _folded(conv: nn.Conv2d, bn: nn.BatchNorm2d) -> tuple[torch.Tensor, torch.Tensor]:
    """The weight and bias of ``bn(conv(x))`` in eval mode as one convolution (``conv`` without bias)."""
    scale = bn.weight * torch.rsqrt(bn.running_var + bn.eps)
    return conv.weight * scale[:, None, None, None], bn.bias - bn.running_mean * scale


class _Block(nn.Module):
    def __init__(self, ch: int):
        super().__init__()
        self.c1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(ch)
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(ch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y)))


class PolicyValueNet(nn.Module):
    """AlphaZero's residual network for a small rectangular board (see the module docstring)."""

    def __init__(self, arch: Architecture):
        super().__init__()
        self.arch = arch
        ch, points = arch.channels, arch.board_shape[0] * arch.board_shape[1]
        self.stem = nn.Sequential(nn.Conv2d(arch.in_planes, ch, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(ch), nn.ReLU())
        self.trunk = nn.Sequential(*[_Block(ch) for _ in range(arch.blocks)])
        self.policy_head = nn.Sequential(nn.Conv2d(ch, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU(),
                                         nn.Flatten(), nn.Linear(2 * points, arch.num_actions))
        self.value_head = nn.Sequential(nn.Conv2d(ch, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU(),
                                        nn.Flatten(), nn.Linear(points, arch.value_hidden), nn.ReLU(),
                                        nn.Linear(arch.value_hidden, 1), nn.Tanh())
        self.ownership_head = (nn.Sequential(nn.Conv2d(ch, 1, 1), nn.Flatten(), nn.Tanh())
                               if arch.ownership else None)

    def forward(self, x: torch.Tensor):
        """``(logits (B, A), value (B,), ownership (B, rows*cols) or None)`` for planes
        ``(B, C, rows, cols)``."""
        h = self.trunk(self.stem(x))
        own = self.ownership_head(h) if self.ownership_head is not None else None
        return self.policy_head(h), self.value_head(h).squeeze(-1), own

    def folded_weights(self, dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
        """The weights ``inference`` takes: each batch norm folded into its convolution, as ``dtype``."""
        ph, vh = self.policy_head, self.value_head
        pairs = [_folded(self.stem[0], self.stem[1])]
        for block in self.trunk:
            pairs += [_folded(block.c1, block.b1), _folded(block.c2, block.b2)]
        pairs += [_folded(ph[0], ph[1]), (ph[4].weight, ph[4].bias),
                  _folded(vh[0], vh[1]), (vh[4].weight, vh[4].bias), (vh[6].weight, vh[6].bias)]
        return [t.detach().to(dtype) for pair in pairs for t in pair]

    def inference(self, x: torch.Tensor, weights: list[torch.Tensor] | None = None
                  ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits, value)`` of eval mode's ``forward``, computed in ``x``'s dtype.

        Args:
            x: planes ``(B, C, rows, cols)``.
            weights: ``folded_weights(x.dtype)`` (computed here when not given); run without autograd.
        """
        w = weights if weights is not None else self.folded_weights(x.dtype)
        relu, conv = torch.relu, nn.functional.conv2d
        h = relu(conv(x, w[0], w[1], padding=1))
        for i in range(2, self.trunk_weight_count(), 4):
            y = relu(conv(h, w[i], w[i + 1], padding=1))
            h = relu(h + conv(y, w[i + 2], w[i + 3], padding=1))
        return self.heads(h, w[self.trunk_weight_count():])

    def trunk_weight_count(self) -> int:
        """How many of ``folded_weights`` belong to the stem and the blocks (the rest are the heads')."""
        return 2 + 4 * len(self.trunk)

    def heads(self, h: torch.Tensor, w: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits, value)`` from the trunk's output ``h``; ``w``: the heads' folded weights."""
        relu, conv, linear = torch.relu, nn.functional.conv2d, nn.functional.linear
        logits = linear(relu(conv(h, w[0], w[1])).flatten(1), w[2], w[3])
        v = relu(linear(relu(conv(h, w[4], w[5])).flatten(1), w[6], w[7]))
        return logits, torch.tanh(linear(v, w[8], w[9])).squeeze(-1)


class WeightsWatch:
    """Whether a network's weights may have changed, told by torch's public hooks.

    ``key()`` changes whenever the weights may have: after any optimizer step in the
    process (a global post-step hook), a ``load_state_dict`` into the network, a
    forward pass in training mode (it moves the batch norms' statistics), a tensor
    replaced by ``.to()`` (its ``data_ptr``) or by assignment (a global hook on the
    registration of parameters and buffers), or a call of ``changed()`` (for edits
    by hand). One watch per network (``WeightsWatch.of``), shared by its evaluators,
    so building many evaluators adds no hooks.

    ``key()`` runs before every forward pass of self-play, so it reads the data
    pointers of a kept list of the network's tensors (walking the modules for it took
    a millisecond a call, as long as a small network's forward pass): the list is made
    again when a tensor may have been replaced: a parameter or buffer registered
    anywhere, a pointer that moved (``.to()`` keeps the parameters and replaces the
    buffers), or a first parameter that is another object (``.to()`` with torch's
    ``overwrite_module_params_on_conversion``).
    """

    _optimizer_steps = 0  # optimizer steps in this process since the first watch was made
    _registrations = 0    # parameters and buffers registered (or assigned) in any module since then
    _hooked = False
    _watches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __init__(self, net: nn.Module):
        self.net = weakref.ref(net)
        self.changes = 0
        self._tensors: tuple[torch.Tensor, ...] = ()
        self._first: torch.Tensor | None = None
        self._ptrs: tuple[int, ...] = ()
        self._registrations_seen = -1
        # Module-level functions, not closures: the network still pickles and deep-copies.
        net.register_load_state_dict_post_hook(_after_load_state_dict)
        net.register_forward_pre_hook(_before_forward)
        if not WeightsWatch._hooked:
            register_optimizer_step_post_hook(_after_optimizer_step)
            register_module_parameter_registration_hook(_after_registration)
            register_module_buffer_registration_hook(_after_registration)
            WeightsWatch._hooked = True

    @classmethod
    def of(cls, net: nn.Module) -> WeightsWatch:
        """The watch of ``net`` (made, and its hooks registered, on first use)."""
        watch = cls._watches.get(net)
        if watch is None:
            watch = cls._watches[net] = cls(net)
        return watch

    def changed(self) -> None:
        """Count a change of the weights."""
        self.changes += 1

    def key(self) -> tuple:
        """Equal to an earlier key only if the weights cannot have changed in between."""
        net = self.net()
        if net is None:
            return WeightsWatch._optimizer_steps, self.changes, ()
        first = next(net.parameters(), None)
        ptrs = tuple(t.data_ptr() for t in self._tensors)
        if (ptrs != self._ptrs or first is not self._first
                or self._registrations_seen != WeightsWatch._registrations):
            self._registrations_seen = WeightsWatch._registrations
            self._first = first
            self._tensors = (*net.parameters(), *net.buffers())
            ptrs = self._ptrs = tuple(t.data_ptr() for t in self._tensors)
        return WeightsWatch._optimizer_steps, self.changes, ptrs


def _after_optimizer_step(optimizer, args, kwargs) -> None:
    WeightsWatch._optimizer_steps += 1


def _after_registration(module: nn.Module, name: str, tensor) -> None:
    WeightsWatch._registrations += 1


def _after_load_state_dict(module: nn.Module, incompatible_keys) -> None:
    watch = WeightsWatch._watches.get(module)
    if watch is not None:  # None: a copy of a watched network, not watched itself
        watch.changed()


def _before_forward(module: nn.Module, args) -> None:
    if module.training:
        _after_load_state_dict(module, None)


#: The largest batch ``NetworkEvaluator`` runs through numpy on the CPU in float32 (torch above it).
NUMPY_BATCH = 8


class NetworkEvaluator:
    """The search's leaf evaluator for a network: planes from the engine, one forward pass.

    ``evaluator(engine, rows, legal) -> (logits, values)`` as ``search`` expects,
    numpy float64, values from the view of each game's player to move. The
    network is put in eval mode and run under ``torch.inference_mode``
    (``PolicyValueNet.inference``: batch norms folded). On the CPU it makes the process keep
    freed memory in its heap (``heap.keep_freed_memory``: glibc only, once, up to 256 MiB; turned
    off by ``TICTACGO_KEEP_FREED_MEMORY=0``), so the network's buffers do not page-fault at every
    call.

    Args:
        net: the network.
        game: the game (and variant) it plays; its encoder builds the planes.
        device: where the network runs (default: where its parameters are).
        precision: ``"float32"``, or ``"bfloat16"`` (about twice as fast on CPUs with AMX or
            AVX512-BF16 instructions, much slower on CPUs without them; logits and values differ from
            float32's by up to about 1e-2).

    On the CPU in float32, a batch of at most ``NUMPY_BATCH`` positions goes through the
    network's numpy forward pass (``numpy_net.NumpyNet`` over the same folded weights) instead
    of torch's: for a few positions torch's per-call cost is most of the time (self-play of a
    few games, one game's search). The two agree to float32 rounding.
    """

    def __init__(self, net: PolicyValueNet, game: Game, device: torch.device | str | None = None,
                 precision: str = "float32"):
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        self.net = net
        self.device = torch.device(device) if device is not None else next(net.parameters()).device
        self.precision = precision
        self.game = game
        self.encoder = game.encoder
        self.calls = 0      # forward passes
        self.positions = 0  # positions evaluated
        self._weights: list[torch.Tensor] = []
        self._watch = WeightsWatch.of(net)
        self._weights_key: tuple = ()
        self._dtype = torch.bfloat16 if precision == "bfloat16" else torch.float32
        # on a CPU: the trunk on oneDNN's prepacked convolutions (see onednn)
        self._packed: list[torch.Tensor] | None = None
        self._use_onednn = onednn.available(self.device)
        if self.device.type == "cpu":
            heap.keep_freed_memory()
        # small batches on the CPU in float32: the numpy forward pass (made when first needed)
        self._numpy_ok = precision == "float32" and self.device.type == "cpu"
        self._numpy: NumpyNet | None = None
        self._numpy_key: tuple = ()

    def weights_changed(self) -> None:
        """Say that the network's weights were changed by hand (in place, outside an optimizer).

        Optimizer steps, ``load_state_dict``, forward passes in training mode and ``.to()``
        are seen without it (``WeightsWatch``); an edit such as ``p.mul_(2)`` under
        ``torch.no_grad()`` is not, so the next evaluation would use the folded copy of
        the old weights unless this is called.
        """
        self._watch.changed()

    def _refold(self) -> None:
        """Fold (and prepack) the network's weights again if they may have changed (``WeightsWatch``)."""
        key = self._watch.key()
        if key == self._weights_key:
            return
        with torch.inference_mode():
            weights = self.net.folded_weights(torch.float32)
            self._weights = [w.to(self._dtype) for w in weights]
            if self._use_onednn:
                self._packed = onednn.prepack(weights[:self.net.trunk_weight_count()], self._dtype)
        self._weights_key = key

    def planes(self, engine: BatchedGame, rows: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return self.encoder.from_engine(engine, rows, legal)

    def evaluate_planes(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits, values)`` of a ``(B, C, rows, cols)`` float32 batch."""
        if self.net.training:
            self.net.eval()
        if self._numpy_ok and len(planes) <= NUMPY_BATCH:
            return self._evaluate_numpy(planes)
        self._refold()
        x = torch.from_numpy(planes).to(self.device)
        with torch.inference_mode():
            if self._use_onednn:
                heads = self._weights[self.net.trunk_weight_count():]
                logits, value = self.net.heads(onednn.trunk(x, self._packed), heads)
            else:
                logits, value = self.net.inference(x.to(self._dtype), self._weights)
        self.calls += 1
        self.positions += len(planes)
        return (logits.float().cpu().numpy().astype(np.float64),
                value.float().cpu().numpy().astype(np.float64))

    def _evaluate_numpy(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``evaluate_planes`` on the numpy forward pass, its arrays exported again when the weights
        may have changed (the same ``WeightsWatch`` key as the torch fold)."""
        key = self._watch.key()
        if self._numpy is None or key != self._numpy_key:
            arch = self.net.arch
            self._numpy = NumpyNet(export(self.net), arch.blocks, arch.board_shape)
            self._numpy_key = key
        logits, value = self._numpy(planes)
        self.calls += 1
        self.positions += len(planes)
        return logits.astype(np.float64), value.astype(np.float64)

    def __call__(self, engine: BatchedGame, rows: np.ndarray, legal: np.ndarray):
        return self.evaluate_planes(self.planes(engine, rows, legal))


def _weights_bytes(net: nn.Module) -> bytes:
    buf = io.BytesIO()
    torch.save(net.state_dict(), buf)
    return buf.getvalue()


def _numpy_bytes(net: PolicyValueNet) -> bytes:
    """The ``model.npz`` of ``net``: its numpy export (batch norms folded, ``numpy_net.export``)."""
    buf = io.BytesIO()
    np.savez(buf, **export(net))
    return buf.getvalue()


def save_model(folder: str | Path, net: PolicyValueNet, game: Game, info: dict | None = None) -> Path:
    """Write ``model.pt``, ``model.npz`` and ``model.json`` into ``folder`` (created), each atomically.

    Args:
        folder: the model's folder.
        net: the network.
        game: the game (and variant) it plays.
        info: JSON-serialisable facts to keep with it (seed, steps, wall time, command).
    Returns:
        The folder as a Path.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = _weights_bytes(net)
    atomic_write_bytes(folder / WEIGHTS_FILE, data)
    arrays = _numpy_bytes(net)
    atomic_write_bytes(folder / NUMPY_FILE, arrays)
    meta = {"format": FORMAT, "variant": game_to_json(game), "architecture": net.arch.to_json(),
            "weights_sha256": sha256(data), "numpy_sha256": sha256(arrays), "info": info or {}}
    atomic_write_json(folder / META_FILE, meta, indent=1)
    return folder


def load_model(folder: str | Path) -> tuple[PolicyValueNet, Game, dict]:
    """``(net, game, meta)`` from a model folder (weights read with ``weights_only=True``).

    The description is checked first (``read_description``), the weights file's size is
    bounded by its architecture before it is read, and the weights must fit the network exactly
    and be finite.

    Raises:
        ValueError: a missing, inconsistent or damaged model, naming the file.
    """
    desc = read_description(folder)
    arch = Architecture.from_json(desc.architecture)
    cap = weights_cap(desc.architecture)
    data = checked_bytes(folder, WEIGHTS_FILE, desc.meta.get("weights_sha256"), cap=cap)
    path = Path(folder) / WEIGHTS_FILE
    try:
        check_zip_size(data, cap)  # torch's format is a zip: refuse one that would inflate past the cap
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for damaged bytes or a pickle that is not weights
        raise ValueError(f"{path} is not plain weights ({type(e).__name__}: {first_line(e)})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path} is not a state_dict of tensors")
    net = PolicyValueNet(arch)
    # Names and shapes first: a crafted tensor may claim a shape far larger than its storage.
    wanted = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in state.items()}
    if wanted != got:
        diff = sorted(set(wanted) ^ set(got)) or [k for k in wanted if wanted[k] != got[k]]
        raise ValueError(f"{path} does not fit the architecture in {META_FILE} (first difference: "
                         f"{diff[0]!r}, {got.get(diff[0])} where {wanted.get(diff[0])} is needed)")
    bad = [k for k, v in state.items() if v.is_floating_point() and not bool(torch.isfinite(v).all())]
    if bad:
        raise ValueError(f"{path} holds NaN or infinite values in {bad[0]!r}: the weights are damaged")
    try:
        net.load_state_dict(state)
    except RuntimeError as e:
        raise ValueError(f"{path} does not fit the architecture in {META_FILE} ({first_line(e)})") from None
    net.eval()
    return net, desc.game, desc.meta


def add_numpy_export(folder: str | Path) -> Path:
    """Give a model folder saved without one its ``model.npz`` (and name it in ``model.json``)."""
    net, _, meta = load_model(folder)
    arrays = _numpy_bytes(net)
    atomic_write_bytes(Path(folder) / NUMPY_FILE, arrays)
    meta["numpy_sha256"] = sha256(arrays)
    atomic_write_json(Path(folder) / META_FILE, meta, indent=1)
    return Path(folder)
