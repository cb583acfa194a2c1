"""Acks first: queued turns wait while this process acks a burst of platform deliveries.

An ack is a few hundred microseconds of work that Slack times out after 3 s (and then
delivers the event again); a turn's start is milliseconds of detection and Redis work whose
answer takes seconds anyway. Turns that start in the middle of a burst share the event loop
(and the GIL, with detection in a thread) with every ack still in flight, so the queue's
worker asks ``AckGate.wait`` before it begins an entry, and the Slack adapter holds
``AckGate.acking`` for each delivery.

A burst is over once no ack has been under way for ``QUIET_SECONDS``: Slack's deliveries
come in waves (each of its connections sends the next event once the last was acked), and
the moment between two waves is no time to start turns. A turn waits ``most_seconds`` at
most, so a steady stream of deliveries delays turns but never starves them.

Work already running yields too: the gate pauses what it is given (``Yielding``: the
detection processes, ``guardrails.detect.workers.ProcessDetector.pause``) when a burst
begins and resumes it when the burst is over, after ``most_seconds`` at most. A long
message's analysis then gives the acks its core (on a 2-core machine, the other events' ack
p99 beside a 40 000-character message went from 66 to 35-40 ms, ``bench_slack --long``).
After a pause, the next waits as long as that pause lasted, so running work gets at least
half the time under any stream of deliveries.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

QUIET_SECONDS = 0.02
"""No ack under way for this long: the burst is over."""


class Yielding(Protocol):
    """Running work that can stop using the CPU for a moment (the detection processes)."""

    def pause(self) -> None:
        """Stop using the CPU until ``resume``."""
        ...

    def resume(self) -> None:
        """Carry on."""
        ...


class AckGate:
    """Counts the acks under way in this process; lets turns wait for them.

    Args:
        most_seconds: the longest a turn waits, and the longest ``yielding`` is paused at
            a time; 0 lets every turn begin at once and pauses nothing.
        yielding: running work paused while a burst is acked.
    """

    def __init__(self, most_seconds: float, yielding: Sequence[Yielding] = ()) -> None:
        if most_seconds < 0:
            raise ValueError("the acks-first wait must not be negative")
        self._most = most_seconds
        self._under_way = 0
        self._idle = asyncio.Event()  # set while no ack is under way
        self._idle.set()
        self._last_done = 0.0
        self._yielding = tuple(yielding) if most_seconds > 0 else ()
        self._paused_at: float | None = None  # when ``yielding`` was paused
        self._next_pause = 0.0  # no pause before this (loop time)
        self._timers: list[asyncio.TimerHandle] = []  # the resumes scheduled

    @property
    def under_way(self) -> int:
        """Acks under way now."""
        return self._under_way

    @property
    def paused(self) -> bool:
        """Whether the running work is paused now."""
        return self._paused_at is not None

    @contextmanager
    def acking(self) -> Iterator[None]:
        """Hold while acking one delivery."""
        self._under_way += 1
        self._idle.clear()
        if self._yielding:
            self._pause()
        try:
            yield
        finally:
            self._under_way -= 1
            self._last_done = asyncio.get_running_loop().time()
            if self._under_way == 0:
                self._idle.set()
                if self._paused_at is not None:  # resumed once the burst is over
                    self._resume_later(QUIET_SECONDS)

    def _pause(self) -> None:
        """Pause the running work as a burst begins (unless paused or it must run first)."""
        if self._paused_at is not None:
            return
        loop = asyncio.get_running_loop()
        if (now := loop.time()) < self._next_pause:
            return
        for work in self._yielding:
            work.pause()
        self._paused_at = now
        self._timers.append(loop.call_at(now + self._most, self.resume))

    def _resume_later(self, delay: float) -> None:
        """Resume after ``delay`` unless another ack is under way by then."""
        loop = asyncio.get_running_loop()
        self._timers.append(loop.call_later(delay, self._resume_if_over))

    def _resume_if_over(self) -> None:
        now = asyncio.get_running_loop().time()
        if self._under_way == 0 and now >= self._last_done + QUIET_SECONDS:
            self.resume()

    def resume(self) -> None:
        """Resume the paused work now (also when this process stops)."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self._paused_at is None:
            return
        now = asyncio.get_running_loop().time()
        self._next_pause = now + (now - self._paused_at)  # then at least as long running
        self._paused_at = None
        for work in self._yielding:
            work.resume()

    async def wait(self, stop: asyncio.Event) -> None:
        """Return once the acks' burst is over, ``most_seconds`` have passed, or ``stop``."""
        if self._most == 0:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._most
        while (now := loop.time()) < deadline and not stop.is_set():
            if self._under_way:  # until the last ack under way is done (or a stop)
                await _any_of((self._idle, stop), deadline - now)
                continue
            quiet_until = min(self._last_done + QUIET_SECONDS, deadline)
            if quiet_until <= now:
                return
            await _any_of((stop,), quiet_until - now)  # the quiet time (or a stop)


async def _any_of(events: tuple[asyncio.Event, ...], within: float) -> None:
    """Wait until one of ``events`` is set, ``within`` seconds at most."""
    waits = {asyncio.ensure_future(event.wait()) for event in events}
    try:
        await asyncio.wait(waits, timeout=within, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()
