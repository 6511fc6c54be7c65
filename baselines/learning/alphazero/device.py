"""Where an AlphaZero network runs, by name: ``"cpu"``, ``"cuda"`` or ``"auto"`` (CUDA when torch sees a GPU,
else the CPU).

Training (``--device``) and the ``az`` agent (``device=``) turn the name into a ``torch.device`` with
``resolve_device``, one rule for both; torch is imported only when it is called.
"""

from __future__ import annotations

from typing import Any

DEVICES = ("cpu", "cuda", "auto")


def resolve_device(name: str, option: str = "--device {}") -> Any:
    """The ``torch.device`` for ``name``.

    Args:
        name: one of ``DEVICES``.
        option: how the caller's user writes the setting, ``{}`` standing for its value
            (``"--device {}"``, ``"device={}"``), for the error message.
    Returns:
        ``torch.device("cuda")`` or ``torch.device("cpu")``.
    Raises:
        ValueError: a name not in ``DEVICES``, or ``"cuda"`` where torch sees no CUDA device.
    """
    if name not in DEVICES:
        raise ValueError(f"the device must be one of {DEVICES}, got {name!r} ({option.format('DEVICE')})")
    import torch

    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{option.format('cuda')} asked for, but torch sees no CUDA device (use "
                         f"{option.format('auto')} or cpu)")
    return torch.device(name)
