"""Where detection runs: a worker thread in this process, or a pool of worker processes.

spaCy holds the GIL for most of a pass, so threads cannot use a second core. With
``VEILBOT_GUARDRAIL_WORKERS`` > 1 detection runs in that many processes, each with its own
analyzer built once (about 170 MB each with the small model), and the event loop only waits.
Either way a failure, including a worker that died, becomes ``GuardrailError``: fail closed.

A worker that dies (the OOM killer, a crash in native code) is replaced at once by a new one
(logged at ERROR): the analysis it had fails closed, later ones wait for the new worker to warm
up, and readiness recovers on its own.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
import time
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bot.core.errors import GuardrailError
from bot.core.types import Platform
from guardrails.detection import DEFAULT_CHUNK_CHARS, detect
from guardrails.engine import build_pattern_analyzer
from guardrails.policy import Policy, default_policy
from guardrails.spans import Detection

if TYPE_CHECKING:
    from multiprocessing.context import SpawnContext

    from presidio_analyzer import AnalyzerEngine

logger = logging.getLogger(__name__)

_RETRY_SECONDS = 30.0

WARM_UP_TEXT = "Hi, I'm Jane Doe from Denver, jane@example.com, +1 212 555 0187."


class Detector(Protocol):
    """Runs ``guardrails.detection.detect`` off the event loop."""

    async def detect(self, text: str, platform: Platform, *, prose: bool = True) -> list[Detection]:
        """The detections of ``text``; any failure is ``GuardrailError``.

        ``prose=False`` is the output scan: pattern rules only, on an analyzer without an NLP
        model (about a millisecond), built on first use next to the main one.
        """
        ...

    async def close(self) -> None:
        """Release workers."""
        ...


def _failed(exc: BaseException) -> GuardrailError:
    return GuardrailError(f"PII detection failed ({type(exc).__name__}); fail closed")


class ThreadDetector:
    """One analysis at a time in a worker thread (spaCy is not documented as thread-safe)."""

    def __init__(
        self,
        analyzer: AnalyzerEngine,
        policy: Policy | None = None,
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
    ) -> None:
        self._engines = _Engines(analyzer, policy or default_policy(), chunk_chars)
        self._busy = asyncio.Semaphore(1)

    async def detect(self, text: str, platform: Platform, *, prose: bool = True) -> list[Detection]:
        """Detect in a worker thread, queued on the event loop."""
        async with self._busy:
            try:
                return await asyncio.to_thread(self._engines.detect, text, platform, prose)
            except Exception as exc:
                raise _failed(exc) from exc

    async def close(self) -> None:
        """Nothing to release."""


class _Engines:
    """The analyzers of one detector: the full one, and the pattern-only one on first use."""

    def __init__(self, analyzer: AnalyzerEngine, policy: Policy, chunk_chars: int) -> None:
        self.analyzer, self.policy, self.chunk = analyzer, policy, chunk_chars
        self._patterns: AnalyzerEngine | None = None

    def detect(self, text: str, platform: Platform, prose: bool) -> list[Detection]:
        analyzer = self.analyzer
        if not prose:
            if self._patterns is None:
                self._patterns = build_pattern_analyzer(self.analyzer)
            analyzer = self._patterns
        return detect(analyzer, text, platform, self.policy, chunk_chars=self.chunk, prose=prose)


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


def _init_worker(model: str, policy_file: str | None, chunk_chars: int) -> None:
    from guardrails.engine import build_analyzer
    from guardrails.policy import load_policy

    _exit_with_parent()
    global _worker  # noqa: PLW0603  (per-process state is the point of an initializer)
    policy = load_policy(Path(policy_file) if policy_file else None)
    _worker = _Engines(build_analyzer(model), policy, chunk_chars)
    for prose in (True, False):
        _worker.detect(WARM_UP_TEXT, "console", prose)


def _detect_in_worker(text: str, platform: Platform, prose: bool) -> list[Detection]:
    assert _worker is not None  # noqa: S101  (the pool's initializer ran)
    return _worker.detect(text, platform, prose)


def _serve(conn: Connection, model: str, policy_file: str | None, chunk_chars: int) -> None:
    """A worker process: build the analyzer, then answer analyses until the pipe closes.

    A failed analysis is answered with its exception's type name only (no text crosses back).
    A worker that cannot build its analyzer exits, which closes the pipe: fail closed.
    """
    _init_worker(model, policy_file, chunk_chars)
    message: object = _READY
    try:
        while True:
            conn.send(message)
            text, platform, prose = conn.recv()
            try:
                message = (True, _detect_in_worker(text, platform, prose))
            except Exception as exc:  # noqa: BLE001  (the service fails closed on it)
                message = (False, type(exc).__name__)
    except (EOFError, OSError):  # the service closed the pipe (or is gone): done
        return


_READY = "ready"
"""What a worker sends once its analyzer is built; answers are ``(ok, payload)`` tuples."""


class _Worker:
    """One worker process, the service's end of its pipe, and the analysis it is doing."""

    def __init__(self, context: SpawnContext, initargs: tuple[str, str | None, int]) -> None:
        ours, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, *initargs), daemon=True)
        self.process.start()
        theirs.close()
        self.conn = ours
        self.born = time.monotonic()
        self.ready = False  # it has built its analyzer (it started; any death is later)
        self.pending: deque[asyncio.Future[list[Detection]]] = deque()  # answered in order
        self.loop: asyncio.AbstractEventLoop | None = None  # reading its pipe while pending
        self.successor: _Worker | None = None  # what took its place (its slots follow)

    def current(self) -> _Worker:
        worker = self
        while worker.successor is not None:
            worker = worker.successor
        return worker


_DEPTH = 2
"""Analyses handed to one worker at once: the next waits in its pipe, so a worker never
idles while the event loop (busy under a burst) gets round to reading its last answer."""


class ProcessDetector:
    """Detection in worker processes, one analyzer each.

    Each worker has a pipe of its own that the event loop reads directly: an analysis costs
    one write and one read in the service, where a ``ProcessPoolExecutor`` adds a management
    thread and a queue feeder thread (two more thread wake-ups each way, and the GIL passed
    between them). Each worker has ``_DEPTH`` slots in one FIFO of free slots. A worker that
    died is noticed when its pipe closes (the analyses it had fail closed) or before it is
    given one, and replaced at once (logged at ERROR); while none has ever worked (a missing
    model, a bad policy file) at most every ``_RETRY_SECONDS``, analyses failing closed
    meanwhile.

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
        self._context = multiprocessing.get_context("spawn")  # no fork of a threaded process
        self._workers = [_Worker(self._context, self._initargs) for _ in range(workers)]
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()  # free slots, by worker
        for _ in range(_DEPTH):
            for worker in self._workers:
                self._idle.put_nowait(worker)
        self._closed = False
        self._proven = False  # a worker of this detector has answered: the configuration works

    async def start(self) -> None:
        """Start every worker and wait until each has built and warmed up its analyzer."""
        count = len(self._workers)
        await asyncio.gather(*(self.detect(WARM_UP_TEXT, "console") for _ in range(count)))

    async def detect(self, text: str, platform: Platform, *, prose: bool = True) -> list[Detection]:
        """Detect in the next free worker process (waiting for one when all are busy).

        A cancelled caller does not free the worker early: its answer is still read, then
        dropped, and only then does the worker take the next analysis.
        """
        worker = await self._take()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[list[Detection]] = loop.create_future()
        try:
            worker.conn.send((text, platform, prose))
        except OSError as exc:  # it died after the check
            self._lost(worker)
            raise _failed(exc) from exc
        worker.pending.append(done)
        if len(worker.pending) == 1:
            worker.loop = loop
            loop.add_reader(worker.conn.fileno(), self._answered, worker)
        return await done

    async def _take(self) -> _Worker:
        if self._closed:
            raise _failed(RuntimeError("closed"))
        worker = (await self._idle.get()).current()
        if self._closed:  # closed while waiting: pass the wake-up on to the next waiter
            self._idle.put_nowait(worker)
            raise _failed(RuntimeError("closed"))
        if worker.process.is_alive():
            return worker
        replacement = self._replacement(worker)
        if replacement is None:
            self._idle.put_nowait(worker)  # fails the next analysis fast too
            raise _failed(BrokenProcessPool(f"exit code {worker.process.exitcode}"))
        self._restart_idle(replacement)
        return replacement

    def _answered(self, worker: _Worker) -> None:
        """The worker's pipe is readable: that it is ready, its answer, or its end."""
        assert worker.loop is not None  # noqa: S101  (set with the reader)
        try:
            message = worker.conn.recv()
        except (EOFError, OSError) as exc:
            message = exc
        if message == _READY:
            worker.ready = True
            return  # the answer comes next
        if isinstance(message, BaseException):
            self._lost(worker)
            return
        done = worker.pending.popleft()
        if not worker.pending:
            worker.loop.remove_reader(worker.conn.fileno())
        ok, payload = message
        if not done.done():
            if ok:
                self._proven = True
                done.set_result(payload)
            else:
                done.set_exception(GuardrailError(f"PII detection failed ({payload}); fail closed"))
        self._idle.put_nowait(worker)

    def _lost(self, worker: _Worker) -> None:
        """A worker found dead with analyses: they fail closed; replaced if allowed."""
        worker.process.join(0)
        slots = _fail(worker, BrokenProcessPool("worker died"))
        replacement = self._replacement(worker)
        if replacement is not None:
            self._restart_idle(replacement)
        for _ in range(slots):
            self._idle.put_nowait(replacement or worker)

    def _restart_idle(self, fresh: _Worker) -> None:
        """After a crash, start the idle workers over too, as a ``ProcessPoolExecutor`` does.

        Whatever killed one (the OOM killer, all of them at once) may be killing the others,
        not found dead yet: the next analyses should wait for new workers, not fail on those.
        Busy workers keep their analyses.
        """
        for worker in list(self._workers):
            if worker is not fresh and not worker.pending:
                self._replace(worker)

    def _replacement(self, dead: _Worker) -> _Worker | None:
        """A new worker in place of ``dead``; ``None`` for one that died starting, for a while.

        Until a worker of this detector has answered, one that never built its analyzer (a
        missing model, a bad policy file) is replaced at most every ``_RETRY_SECONDS``, so a
        broken configuration does not respawn in a loop; otherwise at once.
        """
        if self._closed:
            return None
        starting = not self._proven and not _started(dead)
        if starting and time.monotonic() - dead.born < _RETRY_SECONDS:
            return None
        logger.error(
            "guardrail worker process died (exit code %s); starting a new one",
            dead.process.exitcode,
        )
        return self._replace(dead)

    def _replace(self, old: _Worker) -> _Worker:
        slots = _fail(old, BrokenProcessPool("worker replaced"))
        old.conn.close()  # a live one reads the end of its pipe and exits
        new = _Worker(self._context, self._initargs)
        self._workers[self._workers.index(old)] = new
        old.successor = new
        for _ in range(slots):  # the slots of the analyses that just failed
            self._idle.put_nowait(new)
        return new

    async def close(self) -> None:
        """Stop the workers (running analyses fail closed)."""
        self._closed = True
        for worker in self._workers:
            _fail(worker, RuntimeError("closed"))
            self._idle.put_nowait(worker)  # wakes an analysis waiting for a slot (passed on)
            worker.conn.close()  # the worker reads the end of its pipe and exits
        await asyncio.to_thread(self._join)

    def _join(self) -> None:
        for worker in self._workers:
            worker.process.join(10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()


def _started(worker: _Worker) -> bool:
    """Whether a dead worker had built its analyzer (its unread messages say so)."""
    try:
        while not worker.ready and worker.conn.poll(0):
            worker.ready = worker.conn.recv() == _READY
    except (EOFError, OSError):
        pass
    return worker.ready


def _fail(worker: _Worker, exc: BaseException) -> int:
    """Stop reading a worker's pipe and fail the analyses it had; how many it had."""
    slots = len(worker.pending)
    if worker.pending and worker.loop is not None:
        worker.loop.remove_reader(worker.conn.fileno())
    while worker.pending:
        done = worker.pending.popleft()
        if not done.done():
            done.set_exception(_failed(exc))
    return slots
