"""The game clock a GTP controller sets (``time_settings``, ``time_left``) and the per-move budget it allows.

GTP v2 knows one time system, Canadian byo-yomi: ``main_time`` seconds for
the whole game, then periods of ``byo_yomi_time`` seconds for
``byo_yomi_stones`` moves. ``byo_yomi_time = 0`` is absolute time (main time
only); ``byo_yomi_stones = 0`` with ``byo_yomi_time > 0`` means no time
limit, as the protocol says; ``0 0 0`` is read as no limit too. The
controller reports each colour's clock with ``time_left colour seconds
stones`` (``stones`` is 0 in main time); between reports the engine counts
its own thinking time off its colour's clock. A clock reported without a
time limit from ``time_settings`` is kept but not used.

Little-Go knows exactly how many actions each colour has left (the action
limit), so the budget is the time left spread over them: in main time,
``main_left / own_actions_left`` (plus one byo-yomi move's share when a
byo-yomi follows); in a byo-yomi period, ``period_left / stones_left``.
A tenth of that and 50 ms are kept back for the answer to travel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Kept back from each move's budget: a share of it and a fixed time for the answer to travel.
SAFETY_SHARE = 0.1
SAFETY_SECONDS = 0.05
#: The least budget ever given: an agent asked to move at all gets some time to do it.
MIN_BUDGET = 0.01


@dataclass
class ColourClock:
    """One colour's clock: seconds left in the current period, stones left in it (0: main time)."""

    seconds: float
    stones: int = 0


class GtpClock:
    """Time settings and both colours' clocks; no limit until ``settings`` sets one."""

    def __init__(self) -> None:
        self.main_time = 0.0
        self.byo_yomi_time = 0.0
        self.byo_yomi_stones = 0
        self.limited = False
        self.clocks: dict[int, ColourClock] = {}

    def settings(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None:
        """Start both colours' clocks afresh (``time_settings``).

        Raises:
            ValueError: a negative or non-finite value.
        """
        for name, value in (("main_time", main_time), ("byo_yomi_time", byo_yomi_time),
                            ("byo_yomi_stones", byo_yomi_stones)):
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}")
        self.main_time, self.byo_yomi_time, self.byo_yomi_stones = (
            float(main_time), float(byo_yomi_time), int(byo_yomi_stones))
        no_limit = (byo_yomi_time > 0 and byo_yomi_stones == 0) or (main_time == 0 and byo_yomi_time == 0)
        self.limited = not no_limit
        self.clocks = {}
        if self.limited:
            for colour in (1, 2):
                self.clocks[colour] = self._fresh()

    def _fresh(self) -> ColourClock:
        if self.main_time > 0 or not self.has_byo_yomi:
            return ColourClock(self.main_time, 0)
        return ColourClock(self.byo_yomi_time, self.byo_yomi_stones)

    @property
    def has_byo_yomi(self) -> bool:
        return self.byo_yomi_time > 0 and self.byo_yomi_stones > 0

    def time_left(self, colour: int, seconds: float, stones: int) -> None:
        """Set ``colour``'s clock as the controller reports it (``time_left``).

        Raises:
            ValueError: negative or non-finite seconds, negative stones.
        """
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"time must be a non-negative number of seconds, got {seconds!r}")
        if stones < 0:
            raise ValueError(f"stones must be a non-negative whole number, got {stones!r}")
        self.clocks[colour] = ColourClock(float(seconds), int(stones))

    def spend(self, colour: int, seconds: float) -> None:
        """Count ``seconds`` of the engine's own thinking off ``colour``'s clock."""
        clock = self.clocks.get(colour)
        if not self.limited or clock is None:
            return
        clock.seconds -= seconds
        if clock.stones > 0:
            clock.stones -= 1
            if clock.stones == 0 and clock.seconds >= 0:  # the period is done: a new one starts
                clock.seconds, clock.stones = self.byo_yomi_time, self.byo_yomi_stones
        elif clock.seconds <= 0 and self.has_byo_yomi:  # main time is over: byo-yomi begins
            clock.seconds, clock.stones = self.byo_yomi_time, self.byo_yomi_stones
        clock.seconds = max(clock.seconds, 0.0)

    def budget(self, colour: int, own_actions_left: int) -> float | None:
        """Seconds ``colour`` may spend on its next move, or None without a time limit.

        Args:
            colour: 1 (Black) or 2 (White).
            own_actions_left: the actions left to ``colour`` in this game, this one included.
        """
        if not self.limited or colour not in self.clocks:
            return None
        clock = self.clocks[colour]
        if clock.stones > 0:
            share = clock.seconds / clock.stones
        else:
            share = clock.seconds / max(own_actions_left, 1)
            if self.has_byo_yomi:
                share += self.byo_yomi_time / self.byo_yomi_stones
        return max(MIN_BUDGET, share * (1 - SAFETY_SHARE) - SAFETY_SECONDS)
