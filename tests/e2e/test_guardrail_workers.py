"""Guardrail worker processes killed (as by the OOM killer) are replaced: the service recovers."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time

from bot.config.settings import Settings
from bot.core.types import TurnStatus
from guardrails.detect.workers import ProcessDetector
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.fixtures.processes import worker_pids


async def test_turns_and_readiness_recover_after_the_guardrail_workers_are_killed(
    make_app: MakeApp,
) -> None:
    app = await make_app(guardrail_workers=2)
    thread = unique_thread()
    workers = multiprocessing.active_children()
    assert len(workers) == 2
    for worker in workers:
        os.kill(worker.pid, signal.SIGKILL)  # type: ignore[arg-type]

    deadline = time.monotonic() + 90
    refused = 0
    while True:
        reply = await app.conversation.handle(message("I'm Maria Gonzalez", thread))
        assert reply is not None
        if reply.ok:
            break
        # Failed closed, and the user is told so.
        assert reply.status is TurnStatus.GUARDRAIL_ERROR
        assert "didn't send it" in reply.text
        refused += 1
        assert time.monotonic() < deadline, "the guardrail never recovered"
    assert refused <= 1
    assert "Maria Gonzalez" in reply.text
    assert (await app.readiness())["guardrail"]


async def test_turns_recover_when_the_replacement_workers_are_killed_while_warming_up(
    make_app: MakeApp,
) -> None:
    """Killed again while the new workers load their model: a few turns fail closed (those
    already handed to the dead workers), then turns wait for the next workers and are
    answered; nothing fails closed for half a minute."""
    app = await make_app(guardrail_workers=2)
    pool = app.guardrail._detector
    assert isinstance(pool, ProcessDetector)
    thread = unique_thread()
    first = {p.pid for p in multiprocessing.active_children()}
    for pid in first:
        os.kill(pid, signal.SIGKILL)  # type: ignore[arg-type]
    turn = asyncio.create_task(app.conversation.handle(message("I'm Maria Gonzalez", thread)))
    while not (pool._warming and len(second := worker_pids() - first) == 2):
        await asyncio.sleep(0.01)  # polls for the replacements to be spawned
    for pid in second:
        os.kill(pid, signal.SIGKILL)
    replies = [await turn]
    while not replies[-1].ok:  # type: ignore[union-attr]
        replies.append(await app.conversation.handle(message("I'm Maria Gonzalez", thread)))
        assert len(replies) <= 3, "turns kept failing closed after the second kill"
    for reply in replies[:-1]:
        assert reply is not None
        assert reply.status is TurnStatus.GUARDRAIL_ERROR
    assert "Maria Gonzalez" in replies[-1].text  # type: ignore[union-attr]
    assert (await app.readiness())["guardrail"]


async def test_by_default_a_long_message_is_analysed_beside_the_event_loop(
    make_app: MakeApp,
) -> None:
    before = {p.pid for p in multiprocessing.active_children()}
    app = await make_app(guardrail_workers=Settings.model_fields["guardrail_workers"].default)
    assert {p.pid for p in multiprocessing.active_children()} - before, "no worker process"

    longest, running = 0.0, True

    async def ticker() -> None:
        # Short sleeps, not a busy loop: a spinning ticker would take the core the
        # detection process (at the lowest CPU priority) needs, and starve it on a busy machine.
        nonlocal longest
        while running:
            last = time.perf_counter()
            await asyncio.sleep(0.002)
            longest = max(longest, time.perf_counter() - last)

    ticking = asyncio.create_task(ticker())
    began = time.perf_counter()
    text = ("the.deploy.failed.for-jane-doe-at-acme.12-34-56 " * 900)[:40000]
    analysis = await app.guardrail.analyze(text, platform="console")
    spent = time.perf_counter() - began
    running = False
    await ticking
    assert analysis.text == text
    # The loop ran all along: its longest wait is a small part of the analysis.
    assert longest < spent / 4, f"event loop held {longest:.3f}s of {spent:.3f}s"
