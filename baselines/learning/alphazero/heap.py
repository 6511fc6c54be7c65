"""Keep freed memory in the process's heap, so the network's buffers do not page-fault at every call.

A batch of 256 Little-Go positions through the 32x4 network allocates a dozen
activation tensors of about 800 kB each and frees them at the end of the call.
glibc's ``malloc`` serves blocks this size with ``mmap`` until a free teaches it
otherwise (its threshold adapts), and it gives the top of the heap back to the
kernel once more than a few megabytes are free there. Self-play's search
allocates and frees arrays of other sizes between the network's calls, so in
some runs the network's buffers keep coming back as fresh pages: up to 1.5
page faults per position evaluated, self-play about 1.2x slower in float32
(docs/speed.md, "Page faults in the network's buffers").

``keep_freed_memory`` fixes glibc's two thresholds (``mallopt``): blocks up to
32 MiB come from the heap, and the heap keeps up to 256 MiB of freed memory
instead of returning it. The setting is the process's, for its whole life (as
the ``MALLOC_MMAP_THRESHOLD_`` and ``MALLOC_TRIM_THRESHOLD_`` environment
variables would set it): a process that evaluates networks holds on to up to
256 MiB more than it otherwise would. ``NetworkEvaluator`` calls it for a
network on the CPU. It does nothing where the C library is not glibc, where
the user has set either environment variable (theirs wins), or where
``TICTACGO_KEEP_FREED_MEMORY=0``.
"""

from __future__ import annotations

import ctypes
import os
import platform

#: glibc's ``mallopt`` parameters (malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: blocks up to this size come from the heap (glibc's largest mmap threshold on 64-bit systems)
MMAP_THRESHOLD = 32 << 20
#: freed memory the heap keeps before giving its top back to the kernel
TRIM_THRESHOLD = 256 << 20
#: the environment variable that turns it off ("0")
OPT_OUT = "TICTACGO_KEEP_FREED_MEMORY"
_GLIBC_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")

_state: dict[str, str] = {}


def keep_freed_memory() -> str:
    """Set glibc's thresholds once for this process; say what was done.

    Returns:
        ``"set"`` (now or by an earlier call), or why not: ``"turned off"``
        (``TICTACGO_KEEP_FREED_MEMORY=0``), ``"the user's setting"`` (a ``MALLOC_*_THRESHOLD_``
        variable is set), ``"not glibc"``, or ``"mallopt refused"``.
    """
    if "result" not in _state:
        _state["result"] = _apply()
    return _state["result"]


def _apply() -> str:
    if os.environ.get(OPT_OUT, "1").strip() == "0":
        return "turned off"
    if any(v in os.environ for v in _GLIBC_VARIABLES):
        return "the user's setting"
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return "not glibc"
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return "not glibc"
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    # the mmap threshold first: fixing it also stops glibc from moving the trim threshold
    ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    return "set" if ok else "mallopt refused"
