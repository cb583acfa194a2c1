"""Detection in worker processes finds what the in-process detector finds, and fails closed."""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import os
import signal
import time
from typing import Any

import pytest

from bot.core.errors import GuardrailError
from guardrails.detect.detection import detect
from guardrails.detect.workers import PAUSABLE, WARM_UP_TEXT, ProcessDetector, ThreadDetector
from guardrails.engine import build_pattern_analyzer, resolve_model
from tests.fixtures.processes import cpu_ticks, process_state, until, worker_pids

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


async def test_a_worker_keeps_its_model_out_of_full_garbage_collections() -> None:
    """The model lives as long as the worker; a full collection that walked it (100-200 ms)
    would hold up every text waiting on that worker."""
    pool = ProcessDetector(resolve_model("auto"), None, 4000, workers=1)
    try:
        await pool.start()
        frozen = await asyncio.wrap_future(pool._pool.submit(gc.get_freeze_count))
        assert frozen > 100_000
        assert await pool.detect("I'm Maria Gonzalez", "console")  # and it still detects
    finally:
        await pool.close()


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


async def _warming_workers(pool: ProcessDetector, old: set[int]) -> set[int]:
    """The pids of a replacement pool's workers, once all are alive and still warming up."""
    while True:
        pids = {p.pid for p in multiprocessing.active_children()} - old
        if pool._warming and len(pids) == 2:
            return pids  # type: ignore[return-value]
        await asyncio.sleep(0.01)  # polls for the spawned processes; no ordering relies on it


async def test_replacements_killed_while_warming_up_recover_promptly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The OOM killer strikes again while the replacement workers load their model: the pool
    is replaced again after a short pause, only analyses handed to a dead pool fail closed,
    and the ones after wait for the next workers instead of failing for half a minute."""
    pool = ProcessDetector(resolve_model("auto"), None, 4000, workers=2)
    failures = 0
    try:
        await pool.start()
        first = {p.pid for p in multiprocessing.active_children()}
        assert _kill_workers() == 2
        turn = asyncio.create_task(pool.detect("I'm Maria Gonzalez", "console"))
        second = await asyncio.wait_for(_warming_workers(pool, first), 60)
        for pid in second:
            os.kill(pid, signal.SIGKILL)
        try:
            await turn
        except GuardrailError:
            failures += 1  # it was queued on the pool that was killed
        failures += await _failures_until_it_works(pool)
        third = {p.pid for p in multiprocessing.active_children()} - first - second
    finally:
        await pool.close()
    assert failures <= 2
    assert len(third) == 2
    died = [r.getMessage() for r in caplog.records if "worker process died" in r.getMessage()]
    assert len(died) == 2, died
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


FIRST = ["Maria", "Daniel", "Priya", "Tom", "Aisha", "Lukas", "Sofia", "Kenji", "Olga", "Pedro"]
LAST = ["Gonzalez", "Nguyen", "Castellano", "Okafor"]
CROWD = [
    (f"Hi, I'm {first} {last}, mail me at {first}.{last}@example.com".lower(), i % 5 != 4)
    for i, (first, last) in enumerate((f, s) for s in LAST for f in FIRST)
]
"""40 messages, each with its own name and address; every fifth is an output scan."""


def _expected(analyzer: Any, text: str, prose: bool) -> list[Any]:
    return detect(
        analyzer if prose else build_pattern_analyzer(analyzer), text, "console", prose=prose
    )


@pytest.mark.parametrize("kind", ["thread", "processes"])
async def test_concurrent_callers_each_get_their_own_texts_detections(
    presidio_analyzer: Any, kind: str
) -> None:
    """40 turns at once: texts that wait are analysed together, and no answer is mixed up."""
    if kind == "thread":
        detector: Any = ThreadDetector(presidio_analyzer)
    else:
        detector = ProcessDetector(resolve_model("auto"), None, 4000, workers=2)
    try:
        if kind == "processes":
            await detector.start()
        got = await asyncio.gather(
            *(detector.detect(text, "console", prose=prose) for text, prose in CROWD)
        )
    finally:
        await detector.close()
    assert list(got) == [_expected(presidio_analyzer, text, prose) for text, prose in CROWD]
    for (text, _), found in zip(CROWD, got, strict=True):
        addresses = [text[d.start : d.end] for d in found if d.type == "EMAIL_ADDRESS"]
        assert addresses == [text.rsplit(" ", 1)[1]]


async def test_a_text_that_breaks_the_model_fails_closed_alone() -> None:
    """A text longer than spaCy accepts (``nlp.max_length``, with chunks this large) fails
    closed; the texts sent in the same batch get their own detections."""
    pool = ProcessDetector(resolve_model("auto"), None, 2_000_000, workers=1)
    try:
        await pool.start()
        busy = [pool.detect(WARM_UP_TEXT, "console") for _ in range(2)]  # every slot taken
        texts = [CROWD[0][0], "I'm Maria Gonzalez. " * 51_000, CROWD[1][0]]
        got = await asyncio.gather(
            *busy, *(pool.detect(text, "console") for text in texts), return_exceptions=True
        )
        after = await pool.detect(CROWD[2][0], "console")
    finally:
        await pool.close()
    assert isinstance(got[3], GuardrailError)
    assert "Maria" not in str(got[3])
    for text, found in ((texts[0], got[2]), (texts[2], got[4]), (CROWD[2][0], after)):
        assert [text[d.start : d.end] for d in found if d.type == "EMAIL_ADDRESS"] == [  # type: ignore[union-attr]
            text.rsplit(" ", 1)[1]
        ]


async def test_a_worker_dying_mid_batch_fails_its_texts_closed_and_the_rest_are_answered() -> None:
    pool = ProcessDetector(resolve_model("auto"), None, 4000, workers=1)
    try:
        await pool.start()
        long = "I'm Maria Gonzalez. " * 400
        calls = [asyncio.create_task(pool.detect(long, "console")) for _ in range(2)]
        calls += [asyncio.create_task(pool.detect(text, "console")) for text, _ in CROWD[:8]]
        await asyncio.sleep(0)  # the first two handed to the pool, the rest waiting here
        assert _kill_workers() == 1
        got = await asyncio.gather(*calls, return_exceptions=True)
        assert await _failures_until_it_works(pool) == 0
    finally:
        await pool.close()
    assert all(isinstance(outcome, GuardrailError) for outcome in got[:2])
    for (text, _), found in zip(CROWD[:8], got[2:], strict=True):
        assert [text[d.start : d.end] for d in found if d.type == "EMAIL_ADDRESS"] == [  # type: ignore[union-attr]
            text.rsplit(" ", 1)[1]
        ]


@pytest.mark.skipif(not PAUSABLE, reason="workers are paused on Linux only")
async def test_paused_workers_take_no_cpu_until_resumed_and_a_paused_pool_still_closes() -> None:
    pool = ProcessDetector(resolve_model("auto"), None, 4000, workers=1)
    try:
        await pool.start()
        (pid,) = worker_pids()
        analysis = asyncio.create_task(pool.detect("I'm Maria Gonzalez. " * 400, "console"))
        pool.pause()
        # a signal takes effect as the process is next scheduled
        await until(lambda: process_state(pid) == "T", "the worker to stop")
        cpu = cpu_ticks(pid)
        done, _ = await asyncio.wait({analysis}, timeout=0.5)
        assert not done
        assert cpu_ticks(pid) == cpu
        pool.resume()
        found = await asyncio.wait_for(analysis, 120)
        assert {d.type for d in found} == {"PERSON"}
        pool.pause()  # stopped when the service stops: the pool still shuts down
    finally:
        await asyncio.wait_for(pool.close(), 60)
