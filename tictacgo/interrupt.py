"""Stop on SIGTERM and SIGHUP as on Ctrl-C.

A long run (an arena match, training, a soak test) keeps what it has on
Ctrl-C: the games played so far, the last checkpoint. ``kill PID``, a
closed terminal or a job scheduler's stop sends SIGTERM or SIGHUP instead,
which by default kill Python at once, losing all that.
``interrupt_on_termination()`` makes them raise ``KeyboardInterrupt`` in the
main thread, so the same cleanup runs.

Example:

    from tictacgo.interrupt import interrupt_on_termination

    interrupt_on_termination()
    try:
        long_run()
    except KeyboardInterrupt:
        save_what_we_have()
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["TERMINATION_SIGNALS", "interrupt_on_termination", "termination_as_interrupt"]

TERMINATION_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


def interrupt_on_termination() -> dict:
    """Make SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in this process.

    Only the main thread may set signal handlers; elsewhere nothing changes.
    A signal this process ignores (``nohup`` ignores SIGHUP) stays ignored.

    Returns:
        The handlers replaced, signal -> handler (for ``restore``); empty when
        nothing was installed.
    """
    if threading.current_thread() is not threading.main_thread():
        return {}
    old = {}
    for sig in TERMINATION_SIGNALS:
        handler = signal.getsignal(sig)
        if handler is not signal.SIG_IGN:
            old[sig] = signal.signal(sig, _raise_interrupt)
    return old


@contextmanager
def termination_as_interrupt() -> Iterator[None]:
    """``interrupt_on_termination()`` while the block runs; the old handlers after it."""
    old = interrupt_on_termination()
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
