"""A progress bar for long runs of games: tqdm if installed, else a line on stderr every few seconds
(games done of the total, elapsed time and an estimate of the time left).

The bar never stops a run: if stderr cannot be written (a pipe whose reader
is gone, a log file on a full disk), the bar goes quiet and the games go on.
"""

from __future__ import annotations

import sys
import time

#: Games done before an estimate of the time left is shown.
ESTIMATE_AFTER = 3
#: tqdm's line without the estimate, while too few games are done.
EARLY_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}]"


class Progress:
    """tqdm if importable, else a line on stderr every ``every`` seconds; nothing if disabled."""

    def __init__(self, total: int, enabled: bool, desc: str, every: float = 5.0, unit: str = "game"):
        self.total, self.enabled, self.desc, self.every, self.unit = total, enabled, desc, every, unit
        self.done = 0
        self.first = 0.0
        self.bar = None
        self.start = self.last = time.monotonic()
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                # No estimate of the time left until a few games are done: the first one's time holds
                # the workers' start-up, which would put the first estimate far off.
                self._quiet_on_failure(lambda: setattr(self, "bar", tqdm(
                    total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True,
                    bar_format=EARLY_FORMAT)))

    def _quiet_on_failure(self, show) -> None:
        """Call ``show``; if stderr fails, stop showing anything (the run matters more than its bar)."""
        try:
            show()
        except OSError:  # BrokenPipeError, a full disk
            self.enabled = False

    def update(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if self.done == 1:
            self.first = now  # the pace is taken from the games after the first (start-up excluded)
        if self.bar is not None:
            if self.done == ESTIMATE_AFTER:
                self.bar.bar_format = None  # tqdm's own, with its estimate of the time left
            self._quiet_on_failure(lambda: self.bar.update(1))
            return
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            pct = 100 * self.done / max(1, self.total)
            elapsed = now - self.start
            if self.done >= ESTIMATE_AFTER:
                pace = (now - self.first) / (self.done - 1)  # the games after the first set the pace
                left = f", about {pace * (self.total - self.done):.0f} s left"
            else:
                left = ""
            line = (f"{self.desc}: {self.done}/{self.total} {self.unit}s ({pct:.0f}%), {elapsed:.0f} s"
                    f"{left}")
            self._quiet_on_failure(lambda: print(line, file=sys.stderr, flush=True))

    def close(self) -> None:
        if self.bar is not None:
            try:
                self.bar.close()
            except OSError:
                pass
