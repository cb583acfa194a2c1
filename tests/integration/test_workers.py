"""Detection in worker processes finds what the in-process detector finds, and fails closed."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time
from typing import Any

import pytest

from bot.core.errors import GuardrailError
from guardrails.engine import resolve_model
from guardrails.workers import ProcessDetector, ThreadDetector

MESSAGES = [
    ("slack", "Ping <@U024BE7LH> and mail <mailto:jane.doe@acme.com|jane.doe@acme.com> today"),
    ("discord", "I'm Maria Gonzalez, card 4111 1111 1111 1111, call +1 415 555 0123"),
    ("console", "deploy v4.2 of the billing service on Friday"),
]


async def test_process_workers_find_what_the_thread_detector_finds(presidio_analyzer: Any) -> None:
    in_thread = ThreadDetector(presidio_analyzer)
    pool = ProcessDetector(resolve_model("auto"), None, 4000, workers=2)
    try:
        await pool.start()
        expected = [await in_thread.detect(text, p) for p, text in MESSAGES]  # type: ignore[arg-type]
        got = await asyncio.gather(*(pool.detect(text, p) for p, text in MESSAGES))  # type: ignore[arg-type]
    finally:
        await pool.close()
    assert list(got) == expected
    assert {d.type for d in expected[1]} >= {"PERSON", "CREDIT_CARD", "PHONE_NUMBER"}
    assert expected[2] == []


async def test_workers_that_cannot_start_fail_closed() -> None:
    pool = ProcessDetector("no_such_spacy_model", None, 4000, workers=1)
    try:
        with pytest.raises(GuardrailError):
            await pool.start()
        with pytest.raises(GuardrailError):
            await pool.detect("I'm Maria Gonzalez", "console")
    finally:
        await pool.close()


def _kill_workers() -> int:
    """SIGKILL every worker process of this test process, as the OOM killer would."""
    workers = multiprocessing.active_children()
    for worker in workers:
        os.kill(worker.pid, signal.SIGKILL)  # type: ignore[arg-type]
    return len(workers)


async def _failures_until_it_works(pool: ProcessDetector) -> int:
    """Analyses that failed closed before one worked (within a minute)."""
    deadline = time.monotonic() + 60
    failures = 0
    while True:
        try:
            found = await asyncio.wait_for(pool.detect("I'm Maria Gonzalez", "console"), 60)
        except GuardrailError:
            failures += 1
            assert time.monotonic() < deadline
            continue
        assert [d.type for d in found] == ["PERSON"]
        return failures


async def test_dead_workers_are_replaced_and_later_analyses_succeed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pool = ProcessDetector(resolve_model("auto"), None, 4000, workers=2)
    try:
        await pool.start()
        in_flight = asyncio.create_task(pool.detect("I'm Maria Gonzalez. " * 400, "console"))
        await asyncio.sleep(0)  # handed to the pool
        assert _kill_workers() == 2
        with pytest.raises(GuardrailError):
            await in_flight  # fails closed

        assert await _failures_until_it_works(pool) == 0  # the next analysis succeeds
        # Killed while idle: at most the analysis racing the kill fails, later ones succeed.
        _kill_workers()
        assert await _failures_until_it_works(pool) <= 1
    finally:
        await pool.close()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors
    assert all("Maria" not in r.getMessage() for r in caplog.records)


async def test_a_cancelled_analysis_never_answers_the_next_one() -> None:
    """A turn cancelled mid-analysis (a drain's deadline): the worker's late answer to it is
    read and dropped, so each later analysis gets its own answer."""
    pool = ProcessDetector(resolve_model("auto"), None, 4000, workers=1)
    try:
        await pool.start()
        long = asyncio.create_task(pool.detect("I'm Maria Gonzalez. " * 400, "console"))
        await asyncio.sleep(0)  # handed to the worker
        long.cancel()
        with pytest.raises(asyncio.CancelledError):
            await long
        quiet = await pool.detect("deploy v4.2 of the billing service on Friday", "console")
        named = await pool.detect("I'm Maria Gonzalez", "console")
    finally:
        await pool.close()
    assert quiet == []
    assert [d.type for d in named] == ["PERSON"]
