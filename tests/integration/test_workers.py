"""Detection in worker processes finds what the in-process detector finds, and fails closed."""

from __future__ import annotations

import asyncio
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
