"""The event calendar, the cores (shared as the kernel shares them) and the servers on them."""

from __future__ import annotations

import functools
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

Action = Callable[[], None]


class Calendar:
    """Time and the future events, in order (ties in the order they were scheduled)."""

    def __init__(self) -> None:
        self.now = 0.0
        self._events: list[tuple[float, int, Action]] = []
        self._seq = itertools.count()

    def at(self, when: float, action: Action) -> None:
        """Run ``action`` at time ``when`` (seconds)."""
        heapq.heappush(self._events, (when, next(self._seq), action))

    def run(self) -> None:
        """Run every event until none is left."""
        while self._events:
            self.now, _, action = heapq.heappop(self._events)
            action()


class Cores:
    """A machine's CPUs, shared as the kernel shares them (processor sharing).

    Every job running on some server is one runnable thread; with ``n`` of them and
    ``others`` runnable threads of other work on ``count`` cores, each advances at
    ``min(1, count / (n + others))`` CPU-seconds per second. ``count=None``: each its own core.
    """

    def __init__(self, calendar: Calendar, count: int | None, others: float = 0.0) -> None:
        self._calendar, self._count, self._others = calendar, count, others
        self._left: dict[int, float] = {}
        self._done: dict[int, Action] = {}
        self._ids = itertools.count()
        self._since = 0.0
        self._version = 0

    def run(self, seconds: float, done: Action) -> None:
        """Run ``seconds`` of CPU; ``done`` when they are spent."""
        if self._count is None:
            self._calendar.at(self._calendar.now + seconds, done)
            return
        self._advance()
        job = next(self._ids)
        self._left[job], self._done[job] = seconds, done
        self._plan()

    def _rate(self) -> float:
        assert self._count is not None
        return min(1.0, self._count / (len(self._left) + self._others))

    def _advance(self) -> None:
        now = self._calendar.now
        if self._left:
            spent = (now - self._since) * self._rate()
            for job in self._left:
                self._left[job] -= spent
        self._since = now

    def _plan(self) -> None:
        self._version += 1
        if self._left:
            version, soonest = self._version, min(self._left.values())
            when = self._calendar.now + max(0.0, soonest) / self._rate()
            self._calendar.at(when, lambda: self._finish(version))

    def _finish(self, version: int) -> None:
        if version != self._version:
            return  # the set of running jobs changed since this was planned
        self._advance()
        ended = [job for job, left in self._left.items() if left <= 1e-12]
        for job in ended:
            del self._left[job]
        self._plan()
        for job in ended:
            self._done.pop(job)()


@dataclass(order=True)
class _Job:
    priority: int
    seq: int
    seconds: float = field(compare=False)
    done: Action = field(compare=False)


class Server:
    """``slots`` identical servers sharing one queue; lower ``priority`` goes first.

    Non-preemptive: an ack waits for the turn step already running, as on an event loop.
    """

    def __init__(self, calendar: Calendar, cores: Cores, slots: int = 1) -> None:
        self._calendar, self._cores, self._slots = calendar, cores, slots
        self._queue: list[_Job] = []
        self._seq = itertools.count()
        self.busy = 0
        self.busy_seconds = 0.0

    def submit(self, seconds: float, done: Action, priority: int = 1) -> None:
        """Queue a job of ``seconds``; ``done`` runs when it ends."""
        heapq.heappush(self._queue, _Job(priority, next(self._seq), seconds, done))
        self.start()

    def start(self) -> None:
        """Begin queued jobs while a slot is free."""
        while self._queue and self.busy < self._slots:
            job = heapq.heappop(self._queue)
            self.busy += 1
            self.busy_seconds += job.seconds
            self._cores.run(job.seconds, functools.partial(self._end, job))

    def _end(self, job: _Job) -> None:
        self.busy -= 1
        self.start()
        job.done()


class Batches:
    """Detection processes that take the texts waiting for them together, as
    ``guardrails.detect.batching.Batches`` hands them over: a process that frees takes its
    share of the texts waiting or in flight (at most ``most``), and pays ``per_batch`` once
    for a batch with any prose in it (one NER pass) beside each text's own time.
    """

    def __init__(
        self, calendar: Calendar, cores: Cores, slots: int, per_batch: float, most: int = 32
    ) -> None:
        self._cores, self._slots, self._per_batch, self._most = cores, slots, per_batch, most
        self._waiting: list[tuple[float, bool, Action]] = []
        self._running = 0
        self._in_flight = 0
        self.busy_seconds = 0.0

    def submit(self, seconds: float, done: Action, *, prose: bool = True) -> None:
        """Queue one text of ``seconds``; ``done`` runs when its batch ends."""
        self._waiting.append((seconds, prose, done))
        self.start()

    def start(self) -> None:
        """Hand batches to free processes."""
        while self._waiting and self._running < self._slots:
            share = -(-(len(self._waiting) + self._in_flight) // self._slots)
            batch = self._waiting[: min(share, self._most)]
            del self._waiting[: len(batch)]
            seconds = sum(s for s, _, _ in batch)
            if any(prose for _, prose, _ in batch):
                seconds += self._per_batch
            self._running += 1
            self._in_flight += len(batch)
            self.busy_seconds += seconds
            self._cores.run(seconds, functools.partial(self._end, batch))

    def _end(self, batch: list[tuple[float, bool, Action]]) -> None:
        self._running -= 1
        self._in_flight -= len(batch)
        self.start()
        for _, _, done in batch:
            done()
