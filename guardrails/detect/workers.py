"""Where detection runs: a worker thread in this process, or a pool of worker processes.

spaCy holds the GIL for most of a pass, so a thread cannot use a second core, and while it
runs the event loop waits for the GIL between its own steps. By default
(``VEILBOT_GUARDRAIL_WORKERS`` >= 1) detection runs in that many processes, each with its own
analyzer built once, and the event loop only waits; 0 runs it in a thread of this process.
Either way a failure, including a worker that died, becomes ``GuardrailError``: fail closed.

Analyses are batched when the detector is busy (``guardrails.detect.batching``): texts that arrive
while every worker is at work go together, as one task, to the next worker that frees, which
runs ``detect_many`` (one NER pass for all of them); the pool's per-task costs (pickling, a
wake-up of its manager thread here) are paid once per batch. A lone analysis is sent at once.
Each caller gets its own text's detections or its own ``GuardrailError`` (one text that
breaks the analysis fails alone).

A worker that dies (the OOM killer, a crash in native code) breaks a ``ProcessPoolExecutor`` for
good: every later call fails. ``ProcessDetector`` replaces a broken pool with a new one (logged
at ERROR, by exception type), so the analyses that were in flight fail closed, later ones wait
for the new workers to warm up, and readiness recovers on its own. Every text of a batch in
flight on a dead worker fails closed.

A pool that worked is replaced at once. One that broke before any analysis worked on it (its
workers killed while they warmed up, or a configuration they cannot start with) is replaced
after a backoff that doubles with each such pool in a row, from half a second up to 30 s, so
a broken configuration does not respawn in a loop. Analyses that arrive meanwhile wait for the
replacement when it is due within a few seconds, and fail closed at once when it is not.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bot.core.errors import GuardrailError
from bot.core.scopes import PolicyOverride
from bot.core.types import Platform
from guardrails.detect.batching import BATCH_CHUNKS, DEFAULT_CHUNK_CHARS, Batches, Item, Outcome
from guardrails.policy import Policy, default_policy, with_override
from guardrails.text.spans import Detection

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine

logger = logging.getLogger(__name__)

_FIRST_RETRY_SECONDS = 0.5
_RETRY_SECONDS = 30.0
"""The longest pause between two replacements of pools that never worked."""
_WAIT_SECONDS = 5.0
"""How long an analysis waits for a replacement pool to be started before it fails closed."""

WARM_UP_TEXT = "Hi, I'm Jane Doe from Denver, jane@example.com, +1 212 555 0187."


class Detector(Protocol):
    """Runs ``detection.detect`` off the event loop (``detect_many`` when busy)."""

    async def detect(
        self,
        text: str,
        platform: Platform,
        *,
        prose: bool = True,
        policy: PolicyOverride | None = None,
    ) -> list[Detection]:
        """The detections of ``text``; any failure is ``GuardrailError``.

        ``prose=False`` is the output scan: pattern rules only, on an analyzer without an NLP
        model (about a millisecond), built on first use next to the main one. ``policy``: a
        scope's changes to the loaded policy, applied in the worker.
        """
        ...

    async def close(self) -> None:
        """Release workers."""
        ...


class ThreadDetector:
    """One batch at a time in a worker thread (spaCy is not documented as thread-safe)."""

    def __init__(
        self,
        analyzer: AnalyzerEngine,
        policy: Policy | None = None,
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
    ) -> None:
        self._engines = _Engines(analyzer, policy or default_policy(), chunk_chars)
        self._batches = Batches(self._send, 1, BATCH_CHUNKS * chunk_chars)

    async def detect(
        self,
        text: str,
        platform: Platform,
        *,
        prose: bool = True,
        policy: PolicyOverride | None = None,
    ) -> list[Detection]:
        """Detect in a worker thread, queued on the event loop."""
        return await self._batches.detect((text, platform, prose, policy))

    def _send(self, items: list[Item]) -> asyncio.Future[list[Outcome]]:
        return asyncio.get_running_loop().run_in_executor(None, self._engines.detect_many, items)

    async def close(self) -> None:
        """Nothing to release."""


class _Engines:
    """The analyzers of one detector: the full one, and the pattern-only one on first use."""

    def __init__(self, analyzer: AnalyzerEngine, policy: Policy, chunk_chars: int) -> None:
        self.analyzer, self.policy, self.chunk = analyzer, policy, chunk_chars
        self._patterns: AnalyzerEngine | None = None

    def detect_many(self, items: list[Item]) -> list[Outcome]:
        """The outcome of each item, in order: one pass per kind and scope policy."""
        from guardrails.detect.detection import detect_many  # the rules: not for a spawner

        outcomes: list[Outcome] = [[] for _ in items]
        groups: dict[tuple[bool, PolicyOverride | None], list[int]] = {}
        for i, item in enumerate(items):  # one pass per kind and scope policy
            groups.setdefault((item[2], item[3]), []).append(i)
        for (prose, override), where in groups.items():
            messages = [(items[i][0], items[i][1]) for i in where]
            policy = with_override(self.policy, override)
            found = detect_many(
                self._analyzer(prose), messages, policy, chunk_chars=self.chunk, prose=prose
            )
            for i, outcome in zip(where, found, strict=True):
                outcomes[i] = outcome
        return outcomes

    def _analyzer(self, prose: bool) -> AnalyzerEngine:
        if prose:
            return self.analyzer
        if self._patterns is None:
            from guardrails.engine import build_pattern_analyzer

            self._patterns = build_pattern_analyzer(self.analyzer)
        return self._patterns


# State of one worker process, set by ``_init_worker``.
_worker: _Engines | None = None


def _exit_with_parent() -> None:
    """In a worker: exit as soon as the service process is gone, even killed by SIGKILL.

    A pool's workers otherwise outlive a killed service (about 170 MB each, parent 1) and keep
    its stderr open, so whatever reads that pipe never sees it end. The parent's sentinel
    becomes readable when the parent exits; a daemon thread waits on it, then ends the process.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def wait() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=wait, name="exit-with-parent", daemon=True).start()


PAUSABLE = sys.platform == "linux"
"""Whether workers can be paused while the service acks a burst (``ProcessDetector.pause``).

A paused (``SIGSTOP``) worker cannot run the thread of ``_exit_with_parent``; on Linux the
kernel kills it instead when the service dies (``PR_SET_PDEATHSIG``), so a killed service
never leaves stopped workers behind. Elsewhere workers are not paused."""

_PR_SET_PDEATHSIG = 1


def _killed_with_parent() -> None:
    """In a worker on Linux: the kernel sends ``SIGKILL`` when the service process dies.

    The signal follows the thread that started the worker: the event loop's, which lives as
    long as the service.
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid != os.getppid():  # died before the prctl
        os._exit(0)


WORKER_NICENESS = 19
"""How much lower than the service's a detection process's CPU priority is (``nice``).

The lowest priority: a waking service process preempts detection at once. At 5, one
40 000-character message being analysed raised the other events' ack p99 from 83 to 131-134
ms (``bench_slack --replicas 1 --long 40000``, 2 cores); at 19, 84-94 ms, with the same
throughput (``--model-delay 0 --guardrail-workers 2``: 101-105 turns/s either way). Not
``SCHED_IDLE``: it lowered the burst's ack p99 (median 45 against 66 ms) but on a machine
saturated by other work it starved detection outright (a detection-worker test stalled for
15 minutes beside a second test suite), and a turn must still be answered there."""


def _init_worker(model: str, policy_file: str | None, chunk_chars: int) -> None:
    from guardrails.engine import build_analyzer
    from guardrails.policy import load_policy

    # Ctrl-C reaches the terminal's whole process group: the service stops its workers
    # itself (``close``). Spawned with SIGINT blocked (``_sigint_blocked``), so a Ctrl-C
    # during the imports waits; ignoring it discards that one too.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _exit_with_parent()
    if PAUSABLE:
        _killed_with_parent()
    # Detection is bulk work; the service's event loop (acks, replies) must not wait for the
    # CPU behind it: on a busy machine the scheduler serves the service first.
    os.nice(WORKER_NICENESS)
    global _worker  # noqa: PLW0603  (per-process state is the point of an initializer)
    policy = load_policy(Path(policy_file) if policy_file else None)
    _worker = _Engines(build_analyzer(model), policy, chunk_chars)
    for outcome in _worker.detect_many([(WARM_UP_TEXT, "console", p, None) for p in (True, False)]):
        if isinstance(outcome, Exception):
            raise outcome
    # The model lives as long as the process: keep its objects out of every full collection
    # (each would walk them all, 100-200 ms, between two texts). See bot.service.startup_frozen.
    gc.collect()
    gc.freeze()


def _detect_batch_in_worker(items: list[Item]) -> list[Outcome]:
    assert _worker is not None  # noqa: S101  (the pool's initializer ran)
    return _worker.detect_many(items)


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread: a worker spawned meanwhile inherits the mask.

    A signal that arrives meanwhile is held, not lost: this process gets it on leaving.
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


class ProcessDetector:
    """Detection in a pool of worker processes, one analyzer each.

    Args:
        model: the resolved spaCy model name or path.
        policy_file: the policy YAML (``None`` for the shipped default).
        chunk_chars: the chunk size of ``detect``.
        workers: how many processes.
    """

    def __init__(
        self, model: str, policy_file: Path | None, chunk_chars: int, workers: int
    ) -> None:
        self._initargs = (model, str(policy_file) if policy_file else None, chunk_chars)
        self._workers = workers
        self._failed_pools = 0  # pools in a row that broke before they worked
        self._pool = self._new_pool()
        self._next: asyncio.Future[None] | None = None  # a replacement is scheduled
        self._timer: asyncio.TimerHandle | None = None
        self._warming: set[asyncio.Task[None]] = set()
        self._paused: set[int] = set()  # workers stopped by ``pause``
        # One batch more than workers: a worker that finishes finds the next one queued.
        self._batches = Batches(self._send, workers + 1, BATCH_CHUNKS * chunk_chars)

    def _new_pool(self) -> ProcessPoolExecutor:
        self._proven = False  # no analysis has worked on it yet
        return ProcessPoolExecutor(
            self._workers,
            mp_context=multiprocessing.get_context("spawn"),  # no fork of a threaded process
            initializer=_init_worker,
            initargs=self._initargs,
        )

    async def start(self) -> None:
        """Start every worker and wait until each has built and warmed up its analyzer."""
        await asyncio.gather(*(self.detect(WARM_UP_TEXT, "console") for _ in range(self._workers)))

    async def detect(
        self,
        text: str,
        platform: Platform,
        *,
        prose: bool = True,
        policy: PolicyOverride | None = None,
    ) -> list[Detection]:
        """Detect in the next free worker process, with whatever else waits for one.

        A pool found broken before the batch was handed over is replaced and the batch runs
        on the new one (after waiting up to ``_WAIT_SECONDS`` for it to be started); every
        text of a batch in flight when a worker died fails closed.
        """
        return await self._batches.detect((text, platform, prose, policy))

    def _send(self, items: list[Item]) -> asyncio.Future[list[Outcome]]:
        if self._next is None:
            try:
                return self._submit(items)
            except BrokenProcessPool:
                if self._next is None:  # replaced at once
                    return self._submit(items)
        return asyncio.ensure_future(self._send_later(items))

    async def _send_later(self, items: list[Item]) -> list[Outcome]:
        """Wait (bounded) for the scheduled replacement pool, then hand the batch to it."""
        deadline = asyncio.get_running_loop().time() + _WAIT_SECONDS
        while (scheduled := self._next) is not None:
            if self._timer is None or self._timer.when() > deadline:
                raise BrokenProcessPool("no guardrail workers; a replacement is not due yet")
            await asyncio.shield(scheduled)
            try:
                return await self._submit(items)
            except BrokenProcessPool:
                continue  # broke again before it took the batch: wait for the next one
        return await self._submit(items)

    def _submit(self, items: list[Item]) -> asyncio.Future[list[Outcome]]:
        """Hand a batch to the current pool; a broken pool is replaced and the error raised."""
        pool = self._pool
        try:
            with _sigint_blocked():  # a submit may spawn the pool's workers
                future = pool.submit(_detect_batch_in_worker, items)
        except BrokenProcessPool as exc:
            self._replace(pool, exc)
            raise
        sent = asyncio.wrap_future(future)
        sent.add_done_callback(lambda done: self._check(pool, done))  # before the callers wake
        return sent

    def _check(self, pool: ProcessPoolExecutor, done: asyncio.Future[list[Outcome]]) -> None:
        """After a batch: a broken pool is replaced; one that answered has proven to work."""
        if done.cancelled():
            return
        if isinstance(exc := done.exception(), BrokenProcessPool):
            self._replace(pool, exc)
        elif exc is None and pool is self._pool and not self._proven:
            self._proven = True
            self._failed_pools = 0

    def _replace(self, broken: ProcessPoolExecutor, exc: BaseException) -> None:
        """Replace a broken pool (once, whoever notices first): at once if it worked, else later.

        A pool whose workers never worked is replaced after ``_FIRST_RETRY_SECONDS``, doubled
        for each such pool in a row up to ``_RETRY_SECONDS``.
        """
        if self._pool is not broken or self._next is not None:
            return
        delay = 0.0
        if not self._proven:
            delay = min(_FIRST_RETRY_SECONDS * 2**self._failed_pools, _RETRY_SECONDS)
            self._failed_pools += 1
        logger.error(
            "guardrail worker process died (%s); starting %d new workers in %.1f s",
            type(exc).__name__,
            self._workers,
            delay,
        )
        broken.shutdown(wait=False, cancel_futures=True)
        if delay == 0.0:
            self._install()
            return
        loop = asyncio.get_running_loop()
        self._next = loop.create_future()
        self._timer = loop.call_later(delay, self._install)

    def _install(self) -> None:
        """Start the replacement pool, wake the analyses that wait for it, and warm it up."""
        self._pool = self._new_pool()
        scheduled, self._next, self._timer = self._next, None, None
        if scheduled is not None and not scheduled.done():
            scheduled.set_result(None)
        task = asyncio.get_running_loop().create_task(self._warm_up())
        self._warming.add(task)
        task.add_done_callback(self._warming.discard)

    async def _warm_up(self) -> None:
        """Start the new workers now, so the next turn does not pay for it (failures logged)."""
        try:
            await self.start()
        except GuardrailError as exc:
            logger.error("new guardrail workers failed to start (%s)", type(exc.__cause__).__name__)

    def pause(self) -> None:
        """Stop the workers' CPU use (``SIGSTOP``) until ``resume``: the service acks first.

        While a burst of deliveries is acked, a long analysis would take the core the acks
        need (on Linux a CPU running even a ``nice`` 19 process is not idle to the scheduler,
        so a waking service thread queues behind the other busy one). The caller
        (``bot.state.acks.AckGate``) bounds how long and how often. Not on other platforms.
        """
        if not PAUSABLE or self._paused:
            return
        for pid in list(self._pool._processes or {}):  # noqa: SLF001  (the pool's own workers)
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:  # died: the pool is replaced when noticed
                continue
            self._paused.add(pid)

    def resume(self) -> None:
        """Let the workers ``pause`` stopped run again (``SIGCONT``)."""
        paused, self._paused = self._paused, set()
        for pid in paused:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                continue

    async def close(self) -> None:
        """Stop the workers (running analyses are abandoned)."""
        self.resume()  # a stopped worker would never see the pool's shutdown
        if self._timer is not None:
            self._timer.cancel()
        if self._next is not None and not self._next.done():
            self._next.cancel()
        for task in list(self._warming):
            task.cancel()
        await asyncio.gather(*self._warming, return_exceptions=True)
        await asyncio.to_thread(self._pool.shutdown, wait=True, cancel_futures=True)
