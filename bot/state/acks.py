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
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

QUIET_SECONDS = 0.02
"""No ack under way for this long: the burst is over."""


class AckGate:
    """Counts the acks under way in this process; lets turns wait for them.

    Args:
        most_seconds: the longest a turn waits; 0 lets every turn begin at once.
    """

    def __init__(self, most_seconds: float) -> None:
        if most_seconds < 0:
            raise ValueError("the acks-first wait must not be negative")
        self._most = most_seconds
        self._under_way = 0
        self._idle = asyncio.Event()  # set while no ack is under way
        self._idle.set()
        self._last_done = 0.0

    @property
    def under_way(self) -> int:
        """Acks under way now."""
        return self._under_way

    @contextmanager
    def acking(self) -> Iterator[None]:
        """Hold while acking one delivery."""
        self._under_way += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._under_way -= 1
            self._last_done = asyncio.get_running_loop().time()
            if self._under_way == 0:
                self._idle.set()

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
