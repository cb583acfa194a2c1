"""Where a file is read: a short-lived child process under a memory and a CPU-time limit.

A parser builds what a file describes, and a small file can describe a lot: a 59 KB workbook
holds 14 million empty cells, a screenshot of dense text keeps OCR busy for a minute. The caps
of ``bot.files.limits`` refuse the shapes known beforehand; whatever else a file makes its
reader do, it does in a process of its own, never in the service:

- forked from a server process that imported the readers once (multiprocessing's
  ``forkserver``: the threaded service itself is never forked), so a child starts in a few
  milliseconds;
- in a process group of its own, so Tesseract, which it runs, goes with it, and a Ctrl-C at
  the terminal does not reach it;
- under ``RLIMIT_AS`` (the address space it started with plus ``max_memory``; Tesseract
  inherits that ceiling) and ``RLIMIT_CPU`` (the file's seconds left), with its warnings, log
  records and the service's secrets gone (``bot.files.reading``, the child's side);
- killed with its group at the file's deadline, or when the turn is cancelled.

A file's reader processes share one ``Deadline``: a PDF's extraction, then each scanned
picture's reading and painting. The answers say which limit was met and name the file by its
position; a reader's own failure (``reader_failed``) is logged by its type only. One
``Readers`` runs at most ``FileLimits.readers`` at once, so the memory all files take at once
is bounded too.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import ParamSpec, TypeVar, cast

from bot.core.errors import FileRejected
from bot.files.limits import FileLimits
from bot.files.reading import run_task

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

_CONTEXT = multiprocessing.get_context("forkserver")
# Imported once by the fork server, shared by every child; a module whose extra is not
# installed (images without the ``files`` extra) is skipped there and answered in the child.
_CONTEXT.set_forkserver_preload(
    ["bot.files.reading", "bot.files.extract", "bot.files.out.units", "bot.files.images"]
)


class Deadline:
    """The time one file's reading may take, spent by each of its reader processes in turn.

    Only the readers' time counts: the guardrail's work on what they read, in the service,
    is bounded by the text limit instead.
    """

    def __init__(self, position: int, seconds: float) -> None:
        self.position = position
        self._left = seconds

    def left(self) -> float:
        """Seconds left for this file's readers."""
        return self._left

    def spend(self, seconds: float) -> None:
        """Count ``seconds`` a reader of this file took."""
        self._left -= seconds


class Readers:
    """Runs a file's reading in confined child processes, at most ``limits.readers`` at once."""

    def __init__(self, limits: FileLimits) -> None:
        self._limits = limits
        self._slots = asyncio.Semaphore(limits.readers)

    @property
    def limits(self) -> FileLimits:
        """The limits the children run under."""
        return self._limits

    async def run(
        self, deadline: Deadline, task: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``task(*args, **kwargs)`` in a child process; its result, or why there is none.

        ``task`` is a module-level function of ``bot.files`` and its arguments and result
        are pickled: file bytes in, text and small results out.

        Raises:
            FileRejected: ``task`` refused the file; or its reader ran past the file's time,
                past ``max_memory``, or died (``unreadable_file``).
        """
        async with self._slots:
            return cast(T, await _confined(self._limits, deadline, task, args, kwargs))


async def _confined(
    limits: FileLimits,
    deadline: Deadline,
    task: Callable[..., object],
    args: tuple[object, ...],
    kwargs: dict[str, object],
) -> object:
    left = deadline.left()
    if left <= 0:
        raise limits.too_slow(deadline.position)
    receive, send = _CONTEXT.Pipe(duplex=False)
    child = _CONTEXT.Process(
        target=run_task, args=(send, task, args, kwargs, limits.max_memory, left), daemon=True
    )
    try:
        outcome = await _outcome(child, receive, send, deadline)
    except TimeoutError:
        raise limits.too_slow(deadline.position) from None
    return _answer(outcome, child.exitcode, limits, deadline.position)


async def _outcome(
    child: multiprocessing.process.BaseProcess,
    receive: Connection,
    send: Connection,
    deadline: Deadline,
) -> tuple[str, object] | None:
    """Start ``child`` and wait for its one message while the file has time; then end it.

    ``None``: it ended without a word. The time counts from the child's start, so the fork
    server's own first start (its imports) is not charged to the file. The start (a thread's)
    is waited for even when the turn is cancelled, so the child it starts is always ended too.
    """
    starting = asyncio.ensure_future(asyncio.to_thread(_start, child, deadline.position))
    waiting, began = False, 0.0
    try:
        await asyncio.shield(starting)
        began = time.monotonic()
        send.close()
        # A thread waits for the one message, or the pipe's end when the child dies, and
        # closes the pipe then; ``readers`` bounds how many such threads there are.
        received = asyncio.ensure_future(asyncio.to_thread(_receive, receive))
        waiting = True
        return await asyncio.wait_for(asyncio.shield(received), deadline.left())
    finally:
        if began:
            deadline.spend(time.monotonic() - began)
        await asyncio.gather(starting, return_exceptions=True)
        send.close()
        if not waiting:
            receive.close()
        if child.pid is not None:
            _kill_group(child)  # the waiting thread then sees the pipe's end
            await asyncio.to_thread(child.join, 5)


def _start(child: multiprocessing.process.BaseProcess, position: int) -> None:
    try:
        child.start()
    except OSError as exc:  # no process could be started: fail closed, with a line to act on
        log.error("file reader could not start file=%s error=%s", position, type(exc).__name__)
        raise FileRejected(
            f"File {position} could not be read here right now; please try again.",
            reason="reader_unavailable",
        ) from exc


def _receive(receive: Connection) -> tuple[str, object] | None:
    try:
        return cast(tuple[str, object], receive.recv())
    except (EOFError, OSError):
        return None  # the child died without a word
    finally:
        receive.close()


def _kill_group(child: multiprocessing.process.BaseProcess) -> None:
    """Kill the child and whatever it started (Tesseract); a finished child's group is empty."""
    assert child.pid is not None  # noqa: S101  (started)
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if child.exitcode is None:  # killed before it made its own group
        child.kill()


def _answer(
    outcome: tuple[str, object] | None, exitcode: int | None, limits: FileLimits, position: int
) -> object:
    """The task's result, or the answer for how its reader ended."""
    if outcome is not None:
        kind, value = outcome
        if kind == "done":
            return value
        if kind == "rejected":
            message, reason = cast(tuple[str, str], value)
            raise FileRejected(message, reason=reason)
        if kind == "memory":
            raise limits.too_big_to_read(position)
        log.error("file reader failed file=%s error=%s", position, value)
    elif exitcode == -signal.SIGXCPU:
        raise limits.too_slow(position)  # its CPU time ran out
    elif exitcode == -signal.SIGKILL:
        raise limits.too_big_to_read(position)  # the kernel's OOM killer
    else:
        log.error("file reader died file=%s exitcode=%s", position, exitcode)
    raise FileRejected(
        f"File {position} could not be read: reading it failed. Please send it again, or "
        "paste the text you need.",
        reason="reader_failed",
    )
