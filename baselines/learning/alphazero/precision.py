"""The network's inference precision by name, ``"auto"`` included: bfloat16 where the CPU runs it fast.

``NetworkEvaluator`` runs the self-play network in ``"float32"`` or
``"bfloat16"``. bfloat16 is about twice as fast on CPUs with bfloat16
instructions (Intel's AMX, or AVX512-BF16) and much slower on CPUs without
them, so ``"auto"`` asks the CPU: ``resolve_precision("auto", device)`` is
bfloat16 where the CPU lists ``amx_bf16`` or ``avx512_bf16`` among its flags
(``/proc/cpuinfo``; where that file does not exist, float32: torch's own
CPU checks are private names) and float32 elsewhere, a CUDA device included (the
rule is about the CPU's instructions; bfloat16 on a GPU is not measured
here). Training, the Ray actors (each on its own machine's CPU) and the
benchmarks resolve the name once and say what they picked and why.

``"auto"`` is the default of training (``--inference-precision``): two pairs of 40-minute
Little-Go runs trained networks at least as strong in bfloat16 as in float32 (docs/alphazero.md,
"The self-play network's precision").
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

PRECISIONS = ("float32", "bfloat16")
#: The values of ``--inference-precision``: a precision, or ``"auto"``.
PRECISION_CHOICES = PRECISIONS + ("auto",)
#: The /proc/cpuinfo flags of the bfloat16 instructions that make bfloat16 inference fast, and their names.
BFLOAT16_FLAGS = {"amx_bf16": "AMX-BF16", "avx512_bf16": "AVX512-BF16"}
CPUINFO = Path("/proc/cpuinfo")


class Precision(NamedTuple):
    """A resolved precision: ``used`` ("float32" or "bfloat16") and ``reason``, a line for the run's log."""

    used: str
    reason: str


def cpu_flags(cpuinfo: Path) -> set[str] | None:
    """The CPU's flags as ``/proc/cpuinfo`` lists them (the first processor's), or None without the file."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return set()


def bfloat16_instructions(cpuinfo: Path | None = None) -> tuple[list[str], str]:
    """The CPU's fast-bfloat16 instruction sets (``BFLOAT16_FLAGS`` names) and where that was read
    (``cpuinfo``, default ``CPUINFO``). Without that file none are assumed: torch's own checks are
    private names, which this package does not call."""
    cpuinfo = CPUINFO if cpuinfo is None else cpuinfo
    flags = cpu_flags(cpuinfo)
    if flags is None:
        return [], f"{cpuinfo} absent"
    return [name for flag, name in BFLOAT16_FLAGS.items() if flag in flags], str(cpuinfo)


def resolve_precision(requested: str, device="cpu") -> Precision:
    """The precision to run for ``requested`` ("float32", "bfloat16" or "auto") on ``device``.

    Args:
        requested: one of ``PRECISION_CHOICES``.
        device: where the network runs (a ``torch.device`` or its name); "auto" picks bfloat16 on a CPU only.

    Raises:
        ValueError: ``requested`` is not one of ``PRECISION_CHOICES``.
    """
    if requested not in PRECISION_CHOICES:
        raise ValueError(f"inference precision must be one of {PRECISION_CHOICES}, got {requested!r}")
    if requested != "auto":
        return Precision(requested, f"inference precision {requested} (as asked)")
    kind = getattr(device, "type", str(device).split(":")[0])
    if kind != "cpu":
        return Precision("float32", f"inference precision auto: float32 on {kind} (auto picks bfloat16 "
                                    "only on a CPU with bfloat16 instructions)")
    found, source = bfloat16_instructions()
    if found:
        return Precision("bfloat16", f"inference precision auto: bfloat16, the CPU has {' and '.join(found)} "
                                     f"(by {source})")
    return Precision("float32", f"inference precision auto: float32, the CPU has neither AMX-BF16 nor "
                                f"AVX512-BF16 (by {source})")
