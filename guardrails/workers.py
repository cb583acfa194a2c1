"""Where detection runs: a worker thread in this process, or a pool of worker processes.

spaCy holds the GIL for most of a pass, so threads cannot use a second core. With
``VEILBOT_GUARDRAIL_WORKERS`` > 1 detection runs in that many processes, each with its own
analyzer built once (about 170 MB each with the small model), and the event loop only waits.
Either way a failure, including a worker that died, becomes ``GuardrailError``: fail closed.

A worker that dies (the OOM killer, a crash in native code) breaks a ``ProcessPoolExecutor`` for
good: every later call fails. ``ProcessDetector`` replaces a broken pool at once with a new one
(logged at ERROR, by exception type), so the analyses that were in flight fail closed, later
ones wait for the new workers to warm up, and readiness recovers on its own.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bot.core.errors import GuardrailError
from bot.core.types import Platform
from guardrails.detection import DEFAULT_CHUNK_CHARS, detect
from guardrails.engine import build_pattern_analyzer
from guardrails.policy import Policy, default_policy
from guardrails.spans import Detection

if TYPE_CHECKING:
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
        self._pool = self._new_pool()
        self._warming: set[asyncio.Task[None]] = set()

    def _new_pool(self) -> ProcessPoolExecutor:
        self._proven = False  # no analysis has worked on it yet
        self._born = time.monotonic()
        return ProcessPoolExecutor(
            self._workers,
            mp_context=multiprocessing.get_context("spawn"),  # no fork of a threaded process
            initializer=_init_worker,
            initargs=self._initargs,
        )

    async def start(self) -> None:
        """Start every worker and wait until each has built and warmed up its analyzer."""
        await asyncio.gather(*(self.detect(WARM_UP_TEXT, "console") for _ in range(self._workers)))

    async def detect(self, text: str, platform: Platform, *, prose: bool = True) -> list[Detection]:
        """Detect in the next free worker process.

        A pool found broken before the analysis was handed over is replaced and the analysis
        runs on the new one; an analysis in flight when a worker died fails closed.
        """
        try:
            pool, future = self._submit(text, platform, prose)
        except BrokenProcessPool:
            try:
                pool, future = self._submit(text, platform, prose)
            except BrokenProcessPool as exc:  # not replaced (it never worked): fail closed
                raise _failed(exc) from exc
        try:
            found = await asyncio.wrap_future(future)
        except BrokenProcessPool as exc:
            self._replace(pool, exc)
            raise _failed(exc) from exc
        except Exception as exc:
            raise _failed(exc) from exc
        self._proven = self._proven or pool is self._pool
        return found

    def _submit(
        self, text: str, platform: Platform, prose: bool
    ) -> tuple[ProcessPoolExecutor, Future[list[Detection]]]:
        pool = self._pool
        try:
            return pool, pool.submit(_detect_in_worker, text, platform, prose)
        except BrokenProcessPool as exc:
            self._replace(pool, exc)
            raise
        except RuntimeError as exc:  # shut down: closing
            raise _failed(exc) from exc

    def _replace(self, broken: ProcessPoolExecutor, exc: BaseException) -> None:
        """Swap a broken pool for a new one (once, whoever notices first) and warm it up.

        A pool whose workers never worked (a missing model, a bad policy file) is replaced at
        most every ``_RETRY_SECONDS``, so a broken configuration does not respawn in a loop.
        """
        if self._pool is not broken:
            return
        if not self._proven and time.monotonic() - self._born < _RETRY_SECONDS:
            return
        logger.error(
            "guardrail worker process died (%s); starting %d new workers",
            type(exc).__name__,
            self._workers,
        )
        self._pool = self._new_pool()
        broken.shutdown(wait=False, cancel_futures=True)
        task = asyncio.get_running_loop().create_task(self._warm_up())
        self._warming.add(task)
        task.add_done_callback(self._warming.discard)

    async def _warm_up(self) -> None:
        """Start the new workers now, so the next turn does not pay for it (failures logged)."""
        try:
            await self.start()
        except GuardrailError as exc:
            logger.error("new guardrail workers failed to start (%s)", type(exc.__cause__).__name__)

    async def close(self) -> None:
        """Stop the workers (running analyses are abandoned)."""
        for task in list(self._warming):
            task.cancel()
        await asyncio.gather(*self._warming, return_exceptions=True)
        await asyncio.to_thread(self._pool.shutdown, wait=True, cancel_futures=True)
