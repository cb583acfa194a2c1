"""veilbot as queues: replicas (an event loop, detection processes), Redis shards, a clock.

Each event is acked on a replica's event loop (acks before turn work, as ``AckGate`` has it)
and put on its thread's Redis shard; a queue worker then runs its thread's turn: detection
in one of the replica's detection processes beside its Redis reads, the turn's own CPU on the
event loop, the model call (a delay), the rest of its Redis work and the audit write. A
thread's turns run one at a time, in order. Turns begin only once the replica's acks have
been quiet for ``acks_quiet_s``, or after ``acks_first_s``. A worker holds a thread's token
for up to ``FAIR_ENTRIES`` events, as ``bot.state.queue`` does.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.perf.capacity.engine import Batches, Calendar, Cores, Server
from tests.perf.capacity.figures import Figures, lognormal

ACK, TURN = 0, 1
"""Priorities on the event loop."""
FAIR_ENTRIES = 8
"""``bot.state.queue._FAIR_ENTRIES``: events one worker answers before the token goes back."""
STEP_S = 0.001
"""The longest a turn holds the event loop between two awaits, as modelled (an assumption:
``bench_loop_hold`` measures 4-8 ms only for a 40 000-character message's longest step)."""


@dataclass(frozen=True)
class Topology:
    """What runs where.

    Attributes:
        replicas: ``veilbot run`` processes, each one event loop.
        detectors: detection processes per replica.
        shards: Redis shards (one server each).
        cores: CPUs all of it shares (None: each process has a core of its own).
        others: runnable threads of other work on those cores.
        client_on_loop: the sender shares the event loop (``bench_slack`` all in one).
        model_s: the model call's own time.
        audit_ms: the audit write's wait per turn (0: its CPU is in ``turn_ms``).
        chat: detection times of chat messages, not of ``bench_slack``'s short texts.
        fakes: ``bench_slack``'s own process (its fake model and fake Slack answering each
            turn) shares the cores.
    """

    replicas: int = 1
    detectors: int = 1
    shards: int = 1
    cores: int | None = None
    others: float = 0.0
    client_on_loop: bool = False
    model_s: float = 1.0
    audit_ms: float = 0.0
    chat: bool = True
    fakes: bool = False


@dataclass
class Outcome:
    """Per event: ack latency; per turn: the answer's delay less the model's own time."""

    acks: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)
    first: float = math.inf
    last: float = 0.0
    busy: dict[str, float] = field(default_factory=dict)

    def throughput(self) -> float:
        """Turns answered per second, first arrival to last answer."""
        span = self.last - self.first
        return len(self.answers) / span if span > 0 else 0.0


class _Replica:
    def __init__(
        self, calendar: Calendar, cores: Cores, topology: Topology, figures: Figures
    ) -> None:
        self.loop = Server(calendar, cores)
        self.detection = Batches(
            calendar, cores, topology.detectors, figures.detect_batch_ms / 1000
        )
        self.free_workers = 0
        self.acking = 0
        self.quiet_since = -math.inf


class Deployment:
    """The simulated system; ``arrive`` an event, ``calendar.run()``, read ``outcome``."""

    def __init__(self, figures: Figures, topology: Topology, seed: int = 1) -> None:
        self.figures, self.topology = figures, topology
        self.rng = random.Random(seed)
        self.calendar = Calendar()
        cores = Cores(self.calendar, topology.cores, topology.others)
        self.replicas = [
            _Replica(self.calendar, cores, topology, figures) for _ in range(topology.replicas)
        ]
        for replica in self.replicas:
            replica.free_workers = figures.queue_workers
        self.shards = [Server(self.calendar, cores) for _ in range(topology.shards)]
        self.client = Server(self.calendar, cores)  # the sender, when it shares the cores
        self.outcome = Outcome()
        self._threads: dict[int, deque[float]] = {}
        self._running: set[int] = set()
        self._ready: deque[int] = deque()

    def arrive(self, when: float, thread: int, acked: Callable[[], None] | None = None) -> None:
        """An event of ``thread`` delivered at ``when``; ``acked`` runs once it is acked."""
        self.calendar.at(when, lambda: self._ack(thread, acked))

    def _ack(self, thread: int, acked: Callable[[], None] | None) -> None:
        figures, start = self.figures, self.calendar.now
        self.outcome.first = min(self.outcome.first, start)
        replica = self.replicas[thread % len(self.replicas)]
        replica.acking += 1
        cpu = figures.ack_ms + (figures.client_ms if self.topology.client_on_loop else 0.0)
        if self.topology.cores is not None and not self.topology.client_on_loop:
            self.client.submit(figures.client_ms / 1000, lambda: None)
        redis_ms = figures.redis_commands_per_ack * figures.redis_command_ms

        def queued() -> None:
            replica.acking -= 1
            replica.quiet_since = self.calendar.now
            self.outcome.acks.append(self.calendar.now - start)
            self._threads.setdefault(thread, deque()).append(start)
            if thread not in self._running:
                self._ready.append(thread)
                self._running.add(thread)
            if acked is not None:
                acked()
            self._dispatch()

        replica.loop.submit(
            cpu / 1000, lambda: self._shard(thread).submit(redis_ms / 1000, queued), ACK
        )

    def _shard(self, thread: int) -> Server:
        return self.shards[thread % len(self.shards)]

    def _dispatch(self) -> None:
        """Give waiting threads' tokens to free workers, the replica with most free first."""
        while self._ready:
            replica = max(self.replicas, key=lambda r: r.free_workers)
            if replica.free_workers <= 0:
                return
            replica.free_workers -= 1
            self._step(replica, self._ready.popleft(), 0)

    def _step(self, replica: _Replica, thread: int, worked: int) -> None:
        """The holder of ``thread``'s token works its next event once the gate opens."""
        since = self.calendar.now

        def attempt() -> None:
            now, figures = self.calendar.now, self.figures
            opens = replica.quiet_since + figures.acks_quiet_s
            if (replica.acking == 0 and opens <= now) or now >= since + figures.acks_first_s:
                self._turn(replica, thread, worked)
                return
            retry = opens if replica.acking == 0 else now + figures.acks_quiet_s
            self.calendar.at(min(retry, since + figures.acks_first_s), attempt)

        attempt()

    def _release(self, replica: _Replica, thread: int, worked: int) -> None:
        """After a turn: the same worker goes on with the thread, or gives its token back."""
        if self._threads[thread] and worked < FAIR_ENTRIES:
            self._step(replica, thread, worked)
            return
        replica.free_workers += 1
        if self._threads[thread]:
            self._ready.append(thread)  # the token goes to the back of the stream
        else:
            self._running.discard(thread)
        self._dispatch()

    def _turn(self, replica: _Replica, thread: int, worked: int) -> None:
        figures, topo, rng = self.figures, self.topology, self.rng
        arrived = self._threads[thread].popleft()
        shard = self._shard(thread)
        half_redis = figures.redis_commands_per_turn * figures.redis_command_ms / 2000
        if topo.chat:
            detect = lognormal(rng, figures.chat_detect_p50_ms, figures.chat_detect_p95_ms)
        else:
            detect = lognormal(rng, figures.detect_p50_ms, figures.detect_p95_ms)
        sigma = math.log(figures.turn_spread) / 1.6449
        median = figures.turn_ms / math.exp(sigma * sigma / 2)
        turn_cpu = lognormal(rng, median, median * figures.turn_spread) / 1000
        pending = [2]

        def after_model() -> None:
            def done() -> None:
                now = self.calendar.now
                self.outcome.answers.append(now - arrived - topo.model_s)
                self.outcome.last = max(self.outcome.last, now)
                self._release(replica, thread, worked + 1)

            wait = topo.audit_ms / 1000

            def scanned() -> None:
                shard.submit(half_redis, lambda: self.calendar.at(self.calendar.now + wait, done))

            if topo.fakes and topo.cores is not None:
                self.client.submit(figures.fakes_ms / 1000, lambda: None)
            # the answer's output scan: pattern rules only, in a detection process
            replica.detection.submit(figures.scan_ms / 1000, scanned, prose=False)

        def joined() -> None:
            pending[0] -= 1
            if pending[0] == 0:
                self._on_loop(
                    replica,
                    turn_cpu,
                    lambda: self.calendar.at(self.calendar.now + topo.model_s, after_model),
                )

        replica.detection.submit(detect / 1000, joined)
        shard.submit(half_redis, joined)

    def _on_loop(self, replica: _Replica, seconds: float, done: Callable[[], None]) -> None:
        """Turn CPU in steps of ``STEP_S`` (a turn awaits Redis, detection, the model between
        them), so an ack waits for one step, not for the whole turn."""
        step = min(seconds, STEP_S)
        rest = seconds - step
        then = done if rest <= 0 else lambda: self._on_loop(replica, rest, done)
        replica.loop.submit(step, then, TURN)
